"""An interrupted run is continued into the same run id, repeating only what is missing."""

import signal
import sqlite3

import pytest

from mage.errors import Interrupted, MageError
from mage.measure.method import Method
from mage.resume import stored_request
from mage.plan import Planned, Request
from mage.runner import Runner
from mage.store import SCHEMA, SCHEMA_VERSION, Store

from test_cli import mage

QUICK = Method(span_samples=3, min_samples=1, kernel_calls=2, host_calls=4, host_chunk=2, warmup_calls=1)


def test_resume_runs_what_is_missing_and_completes_the_run(tmp_path, layernorm, impl_like):
    spec, eager, case = layernorm
    second = type(case)(case.op, "17x9", "seed", {"rows": 17, "cols": 9}, seed=3)
    interrupt = {"on": True}

    def interrupted_on_second_case(x, w, b):
        if interrupt["on"] and x.shape[0] == 17:
            raise Interrupted(signal.SIGINT)  # Ctrl-C, as the handler raises it
        return eager.fn(x, w, b)

    def crashes(x, w, b):
        raise RuntimeError("always wrong")

    # The crashing implementation's row of the second case is stored before the interruption: a
    # partly stored case, which resume must redo whole rather than store twice.
    impls = [impl_like(eager, crashes, "crash"), impl_like(eager, interrupted_on_second_case), eager]
    work = [Planned(spec, c, impls) for c in (case, second)]
    request = Request(suites=["seed"], device="cpu", paths=["single", "batch"], method=QUICK)
    first = Runner(Store(tmp_path / "mage.db"), request, "pytest")
    with pytest.raises(Interrupted):
        first.run(work)
    store = Store(tmp_path / "mage.db")
    assert {r["case"] for r in store.rows(first.run_id)} == {"33x65", "17x9"}
    before = {r["result_id"] for r in store.rows(first.run_id) if r["case"] == "33x65"}

    interrupt["on"] = False
    progress = []
    resumed = Runner(store, request, "pytest", progress.append).resume(first.run_id, work)

    assert resumed == first.run_id
    run = store.run(resumed)
    assert run["status"] == "complete" and len(run["env_end"]["resumed"]) == 1
    rows = store.rows(resumed)
    keys = [(r["case"], r["impl"], r["path"], r["cache"]) for r in rows]
    assert len(keys) == len(set(keys)) == 2 * 3 * 2  # cases × implementations × paths, each once
    assert {r["result_id"] for r in rows if r["case"] == "33x65"} == before  # the finished case was kept
    assert {(r["impl"].split("/")[0], r["status"]) for r in rows} == {("crash", "fail"), ("fixture", "pass"),
                                                                       ("eager", "pass")}
    assert sum(step.note == "stored before" for step in progress) == len(impls)


def test_a_complete_run_is_not_resumed(tmp_path, layernorm):
    spec, eager, case = layernorm
    request = Request(suites=["seed"], device="cpu", method=QUICK)
    store = Store(tmp_path / "mage.db")
    run_id = Runner(store, request, "pytest").run([Planned(spec, case, [eager])])
    assert stored_request(dict(store.run(run_id), status="incomplete")) == request
    with pytest.raises(MageError, match="is complete; only an incomplete run can be resumed"):
        stored_request(store.run(run_id))


def test_mage_run_resume_end_to_end(tmp_path):
    assert mage("run", "--op", "layernorm", "--impl", "eager", cwd=tmp_path).returncode == 0
    db = sqlite3.connect(tmp_path / "mage.db")
    total = db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    with db:  # as if the process had died before its last case
        last_case = db.execute("SELECT MAX(case_id) FROM results").fetchone()[0]
        db.execute("DELETE FROM result_samples WHERE result_id IN (SELECT id FROM results WHERE case_id = ?)", (last_case,))
        db.execute("DELETE FROM results WHERE case_id = ?", (last_case,))
        db.execute("UPDATE runs SET status = 'running', finished_at = NULL, pid = NULL")
    refused = mage("run", "--resume", "1", "--op", "matmul", cwd=tmp_path)
    assert refused.returncode == 2 and "drop --op" in refused.stderr and "Traceback" not in refused.stderr
    resumed = mage("run", "--resume", "1", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "stored as run 1" in resumed.stdout
    assert db.execute("SELECT COUNT(*) FROM results").fetchone()[0] == total
    assert db.execute("SELECT status FROM runs").fetchone()[0] == "complete"
    again = mage("run", "--resume", "1", cwd=tmp_path)
    assert again.returncode == 2 and "run 1 is complete" in again.stderr


def test_a_version_2_store_gains_every_later_result_column(tmp_path):
    path = tmp_path / "v2.db"
    old = sqlite3.connect(path)
    old.executescript("\n".join(line for line in SCHEMA.splitlines()
                                if "suspect" not in line and "host_m" not in line and "clock_" not in line
                                and "tuning" not in line and "_floor_us" not in line and "gpu_" not in line
                                and "stats_json" not in line))
    old.execute("PRAGMA user_version=2")
    old.commit()
    old.close()
    store = Store(path)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 16
    assert {"suspect", "host_min_us", "host_max_us", "sm_clock_min_mhz", "sm_clock_max_mhz", "clock_events",
            "tuning", "memory_floor_us", "compute_floor_us", "gpu_index", "gpu_uuid"} <= {
        row[1] for row in store.db.execute("PRAGMA table_info(results)")}


def test_a_run_stored_before_noise_stopping_resumes_sampling_as_it_was_sampled(tmp_path):
    from mage.resume import request_of

    stored = Method().as_dict()
    del stored["noise_target"]  # as a run stored before the parameter existed
    stored["request"] = {"suites": ["seed"], "ops": None, "impls": None, "paths": ["single"], "caches": ["warm"],
                         "device": "cpu"}
    resumed = request_of({"id": 1, "method": stored}).method
    assert resumed.noise_target == 0.0  # every affordable sample, not a stop at today's default target
    assert request_of({"id": 1, "method": {**stored, "noise_target": 0.01}}).method.noise_target == 0.01
