"""One live process owns a run: a second claimant is refused with who holds it, a dead claim is taken over."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from mage import store as store_module
from mage.resume import stored_request
from mage.errors import RunClaimedError
from mage.store import HOST, Owner, Result, Store

from test_cli import MAGE
from test_transfer import store_run

HOLDER = textwrap.dedent("""
    import sys, time
    from mage.store import Store
    store = Store(sys.argv[1])
    run = store.begin_run(clock="cpu", suite="seed", command="holder", env={}, method={}, ceilings={})
    print(run, flush=True)
    time.sleep(600)
""")

CLAIMANT = textwrap.dedent("""
    import os, sys, time
    from mage.errors import RunClaimedError
    from mage.store import Store
    store = Store(sys.argv[1])
    while not os.path.exists(sys.argv[2]):
        time.sleep(0.01)
    try:
        store.claim_run(1)
        print("claimed", flush=True)
        time.sleep(3)  # still holding it while the other one tries
    except RunClaimedError as error:
        print("refused:", error, flush=True)
""")


def interrupted_run(path):
    """A run that ended incomplete, as a killed or interrupted one reads."""
    store = Store(path)
    run = store_run(store)
    store.db.execute("UPDATE runs SET status = 'incomplete'")
    store.db.commit()
    return store, run


@pytest.fixture
def holder(tmp_path):
    """A live process of its own that began run 1 and holds it."""
    process = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "mage.db")], stdout=subprocess.PIPE,
                               text=True)
    assert process.stdout.readline().strip() == "1"
    yield process
    if process.poll() is None:
        process.kill()
        process.wait()


def test_a_live_claim_is_refused_naming_its_holder_and_taken_over_once_it_dies(tmp_path, holder):
    store = Store(tmp_path / "mage.db")
    with pytest.raises(RunClaimedError, match=f"run 1 is being run by process {holder.pid} on {HOST} since"):
        store.claim_run(1)
    with pytest.raises(RunClaimedError, match=f"process {holder.pid}"):
        stored_request(store.run(1))
    with pytest.raises(RunClaimedError, match="is not owned by this process"):  # writing without the claim
        store.add_result(1, 1, 1, Result("single", "warm", "pass"))
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert store.run(1)["status"] == "incomplete"
    store.claim_run(1)
    run = store.run(1)
    assert (run["status"], run["pid"], run["owner_host"]) == ("running", os.getpid(), HOST)


def test_mage_run_resume_refuses_a_run_another_process_holds(tmp_path, holder):
    refused = subprocess.run([*MAGE, "run", "--resume", "1", "--db", "mage.db"], cwd=tmp_path, capture_output=True,
                             text=True, timeout=300, env=os.environ | {"COLUMNS": "200"})
    message = " ".join(refused.stderr.split())
    assert refused.returncode == 2 and f"run 1 is being run by process {holder.pid} on {HOST}" in message
    assert "Traceback" not in refused.stderr


def test_two_processes_claiming_at_once_one_wins(tmp_path):
    store, _ = interrupted_run(tmp_path / "mage.db")
    go = tmp_path / "go"
    claimants = [subprocess.Popen([sys.executable, "-c", CLAIMANT, str(tmp_path / "mage.db"), str(go)],
                                  stdout=subprocess.PIPE, text=True) for _ in range(2)]
    time.sleep(1)  # both started and waiting
    go.touch()
    outputs = sorted(claimant.communicate(timeout=120)[0].strip() for claimant in claimants)
    assert outputs[0] == "claimed" and outputs[1].startswith("refused: run 1 is being run by process"), outputs


def test_a_claim_from_another_host_is_held_while_its_heartbeat_is_fresh(tmp_path):
    store, run = interrupted_run(tmp_path / "mage.db")
    fresh = store_module._now()
    store.db.execute("UPDATE runs SET status = 'running', finished_at = NULL, pid = 1, owner_host = 'gpu-box',"
                     " claimed_at = ?, heartbeat_at = ?", (fresh, fresh))
    store.db.commit()
    with pytest.raises(RunClaimedError, match="process 1 on gpu-box"):
        store.claim_run(run)
    store.db.execute("UPDATE runs SET heartbeat_at = '2026-01-01T00:00:00+00:00'")  # the machine was lost
    store.db.commit()
    assert store.run(run)["status"] == "incomplete"
    store.claim_run(run)
    assert store.run(run)["owner_host"] == HOST


def test_the_heartbeat_is_refreshed_while_the_run_goes(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "HEARTBEAT_S", 0.05)
    store, run = interrupted_run(tmp_path / "mage.db")
    store.claim_run(run)
    store.db.execute("UPDATE runs SET heartbeat_at = '2026-01-01T00:00:00+00:00'")
    store.db.commit()
    with store.heartbeat(run):
        time.sleep(0.5)
    assert store.run(run)["heartbeat_at"] > "2026-01-01T00:00:00+00:00"
    assert store.run(run)["status"] == "running"


def test_a_run_taken_over_stores_nothing_more_from_its_former_owner(tmp_path):
    store, run = interrupted_run(tmp_path / "mage.db")
    store.claim_run(run)
    results = store.db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    other = Store(tmp_path / "mage.db")
    other.owner = Owner(os.getpid() + 1)  # as if another process had taken the run over
    other.db.execute("UPDATE runs SET pid = ?", (os.getpid() + 1,))
    other.db.commit()
    with pytest.raises(RunClaimedError, match="not owned by this process"):
        store.add_result(run, 1, 1, Result("single", "warm", "pass"), [(0, 1.0)])
    assert store.db.execute("SELECT COUNT(*) FROM results").fetchone()[0] == results
    other.add_result(run, 1, 1, Result("single", "warm", "pass"))  # its owner may
