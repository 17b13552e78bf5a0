"""mage run --isolate: a crash, a hang or an out-of-memory error costs its own rows, never the run."""

import dataclasses
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from mage import isolation, resume
from mage.measure.method import Method
from mage.plan import Planned, Request, plan
from mage.store import Result, Store
from mage.worker import PROGRESS, ROW, read_row

from test_cli import MAGE

REPO = Path(__file__).resolve().parent.parent
MAGE_WORKER = [sys.executable, "-m", "mage.worker"]


def test_an_isolated_run_survives_crashes_hangs_and_oom(tmp_path):
    impls = ["eager/affine/ieee", "crash-segv", "crash-abort", "hang", "oom"]  # one eager row: eager's ieee
    # The crashing fixtures are registered in the run's processes only, never in this one.
    environment = os.environ | {"MAGE_PLUGINS": "tests.plugins.crashing", "COLUMNS": "200",
                                "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([*MAGE, "run", "--isolate", "--case-timeout", "40", "--device", "cpu", "--op", "layernorm",
                             *(arg for impl in impls for arg in ("--impl", impl))],
                            cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr  # the run went on; its crashed implementations failed
    assert result.stdout.splitlines()[-1].startswith("3 implementations failed: layernorm crash-abort/affine/ieee")

    store = Store(tmp_path / "mage.db")
    run_id = store.latest_run_id()
    assert store.run(run_id)["status"] == "complete"
    rows = store.rows(run_id)
    keys = [(r["case"], r["impl"], r["path"], r["cache"]) for r in rows]
    assert len(keys) == len(set(keys)) == len(impls)  # one seed case, path single, cache warm: each row once
    by_backend = {r["backend"]: r for r in rows}
    assert by_backend["eager"]["status"] == "pass" and by_backend["eager"]["span_mean_us"] > 0
    assert store.samples(by_backend["eager"]["result_id"])
    assert by_backend["crash-segv"]["status"] == "fail" and "SIGSEGV" in by_backend["crash-segv"]["reason"]
    assert by_backend["crash-abort"]["status"] == "fail" and "SIGABRT" in by_backend["crash-abort"]["reason"]
    assert by_backend["hang"]["status"] == "fail" and "timed out after 10 s" in by_backend["hang"]["reason"]
    assert by_backend["oom"]["status"] == "skip" and by_backend["oom"]["reason"].startswith("out of memory")
    orphans = sqlite3.connect(tmp_path / "mage.db").execute(
        "SELECT COUNT(*) FROM result_samples WHERE result_id NOT IN (SELECT id FROM results)").fetchone()[0]
    assert orphans == 0


def _run_with_plugin(tmp_path, *args):
    environment = os.environ | {"MAGE_PLUGINS": "tests.plugins.crashing", "COLUMNS": "200",
                                "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([*MAGE, "run", *args], cwd=tmp_path, env=environment, capture_output=True, text=True,
                          timeout=300)


def test_a_lost_device_stops_a_plain_run_which_resumes_isolated(tmp_path):
    result = _run_with_plugin(tmp_path, "--device", "cpu", "--op", "layernorm", "--impl", "eager",
                              "--impl", "breaks-context")
    assert result.returncode == 1  # an implementation failed (and took the device with it)
    message = " ".join(result.stderr.split())
    assert "breaks-context/affine/ieee left the CUDA context unusable" in message and "--resume 1 --isolate" in message
    store = Store(tmp_path / "mage.db")
    assert store.run(1)["status"] == "incomplete"
    rows = store.rows(1)
    assert [(r["backend"], r["status"]) for r in rows] == [("breaks-context", "fail")]  # eager was never timed
    assert "illegal memory access" in rows[0]["reason"] and "unusable" in rows[0]["reason"]

    resumed = _run_with_plugin(tmp_path, "--resume", "1", "--isolate", "--case-timeout", "60")
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr  # breaks-context failed; the run completed
    rows = {r["backend"]: r for r in Store(tmp_path / "mage.db").rows(1)}
    assert rows["eager"]["status"] == "pass" and rows["eager"]["span_mean_us"] > 0
    assert rows["breaks-context"]["status"] == "fail" and "unusable" in rows["breaks-context"]["reason"]
    assert Store(tmp_path / "mage.db").run(1)["status"] == "complete"


def test_by_default_only_large_and_sweep_cases_go_to_workers(tmp_path, layernorm, monkeypatch):
    from mage.isolation import DEFAULT_SUITES, IsolatedRunner
    from mage.measure.method import Method
    from mage.plan import Planned, Request

    spec, eager, case = layernorm
    sweep = type(case)(case.op, "17x9", "sweep", {"rows": 17, "cols": 9}, seed=3)
    in_workers = []
    monkeypatch.setattr(IsolatedRunner, "_run_worker",
                        lambda self, planned, impls, gpu: in_workers.append(planned.case.name) or (None, None))
    quick = Method(span_samples=3, min_samples=1, kernel_calls=2, host_calls=4, host_chunk=2, warmup_calls=1)
    request = Request(suites=["seed", "sweep"], device="cpu", method=quick)
    runner = IsolatedRunner(Store(tmp_path / "mage.db"), request, "pytest", suites=DEFAULT_SUITES)
    runner.run([Planned(spec, c, [eager]) for c in (case, sweep)])
    assert in_workers == ["17x9"]
    rows = Store(tmp_path / "mage.db").rows(runner.run_id)
    assert [(r["case"], r["status"]) for r in rows if r["case"] == case.name] == [(case.name, "pass")]  # in-process
    # A case whose every implementation is skipped here needs no worker either.
    too_large = type(case)(case.op, "65536x65536", "sweep", {"rows": 65536, "cols": 65536}, seed=3)
    runner.run([Planned(spec, too_large, [eager])])
    assert in_workers == ["17x9"]
    assert Store(tmp_path / "mage.db").rows(runner.run_id)[0]["status"] == "skip"


def test_a_device_lost_in_the_recheck_stores_the_culprit_and_stops(tmp_path):
    result = _run_with_plugin(tmp_path, "--device", "cpu", "--op", "layernorm", "--impl", "eager",
                              "--impl", "breaks-context-late")
    assert result.returncode == 1 and "breaks-context-late/affine/ieee left the CUDA context unusable" in " ".join(
        result.stderr.split())
    store = Store(tmp_path / "mage.db")
    assert store.run(1)["status"] == "incomplete"
    assert [(r["backend"], r["status"]) for r in store.rows(1)] == [("breaks-context-late", "fail")]


def test_a_worker_s_step_reaches_the_parent_whole_and_names_its_implementation():
    from mage.isolation import _named
    from mage.progress import Step

    profile = Step("layernorm:33x65", "profile", "crash-segv/affine/ieee")
    spans = Step("layernorm:33x65", "span", where="single/warm")
    assert [Step.from_json(step.to_json()) for step in (profile, spans)] == [profile, spans]
    assert str(profile) == "layernorm:33x65 profile crash-segv/affine/ieee"
    assert str(spans) == "layernorm:33x65 span single/warm"
    assert str(Step("matmul:64", "check", "eager/default/ieee", note="stored before")) == (
        "matmul:64 check eager/default/ieee: stored before")

    class Named:
        name = "crash-segv/affine/ieee"

    assert _named(profile, [Named]) is Named
    assert _named(spans, [Named]) is None and _named(None, [Named]) is None  # a shared step, or none yet
    assert _named(Step("layernorm:33x65", "check", Named.name), [Named]) is None  # a check runs none of its code





QUICK = Method(span_samples=3, min_samples=3, kernel_calls=2, host_calls=4, host_chunk=2, warmup_calls=1)


def _request(ops):
    return Request(suites=["seed"], ops=ops, impls=["eager"], device="cpu", method=QUICK)


def test_a_worker_opens_no_store_and_sends_its_rows(tmp_path):
    """The parent is the store's one writer: a worker needs the run's record only, so it can run anywhere."""
    request = _request(["layernorm"])
    run = {"id": 1, "command": "pytest", "ceilings": {},
           "method": QUICK.as_dict() | {"request": resume.request_record(request)}}
    job = {"run": run, "case": "layernorm:1024x1024", "impls": ["eager/affine/ieee"]}
    worker = subprocess.run([*MAGE_WORKER, json.dumps(job)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                            env=os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "python"),
                                                                                        os.environ.get("PYTHONPATH")]))})
    assert worker.returncode == 0, worker.stderr
    rows = [read_row(line) for line in worker.stdout.splitlines() if line.startswith(ROW)]
    assert [(case, impl, result.path, result.status) for case, impl, result, _, _ in rows] == [
        ("layernorm:1024x1024", "eager/affine/ieee", "single", "pass")]
    assert rows[0][2].span_median_us > 0 and len(rows[0][3]) == rows[0][2].span_samples
    assert list(tmp_path.iterdir()) == []  # no store, nothing else written where it ran
    assert read_row(ROW + json.dumps({"case": "x", "impl": "y"})[:-3]) is None  # a line cut short is no row


def test_the_parent_stores_only_rows_of_the_case_and_implementations_it_asked_for(tmp_path, layernorm):
    spec, eager, case = layernorm
    store = Store(tmp_path / "mage.db")
    runner = isolation.IsolatedRunner(store, _request(["layernorm"]), "pytest")
    runner.run_id = store.begin_run(clock="cpu", suite="seed", command="pytest", env={}, method={}, ceilings={})
    sent = isolation._Following(iter([]), lambda step: None)
    for case_key, name, path in ((case.key, eager.name, "single"), ("other:1x1", eager.name, "batch"),
                                 (case.key, "triton/affine/ieee", "graph"), (case.key, eager.name, "single")):
        sent.rows.put((case_key, name, Result(path, "warm", "pass"), [(0, 1.0)], {"rows": 33}))
    runner._store_sent(Planned(spec, case, [eager]), [eager], sent)
    assert [(r["case"], r["impl"], r["path"]) for r in store.rows(runner.run_id)] == [(case.name, eager.name, "single")]
    # The facts the worker's spec computed about the case's inputs are stored with the case, once.
    assert [row[0] for row in store.db.execute("SELECT stats_json FROM cases")] == ['{"rows": 33}']


def test_cases_are_shared_across_gpu_slots_and_each_row_stored_once(tmp_path, monkeypatch):
    """--gpus on fake devices: two slots, each worker pinned by CUDA_VISIBLE_DEVICES, one writer."""
    started = []
    real_popen = subprocess.Popen

    def recording(args, **kwargs):  # subprocess is one module: git's calls come here too
        if args[1:3] == ["-m", "mage.worker"]:
            started.append((kwargs["env"]["CUDA_VISIBLE_DEVICES"], json.loads(args[-1])["case"]))
        return real_popen(args, **kwargs)

    monkeypatch.setattr(isolation.subprocess, "Popen", recording)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO / "python"), os.environ.get("PYTHONPATH")])))
    store = Store(tmp_path / "mage.db")
    request = _request(["layernorm", "bias_gelu", "neighbor_agg"])
    work = plan(request)
    runner = isolation.IsolatedRunner(store, request, "pytest", gpus=["0", "1"])
    run_id = runner.run(work)
    assert store.run(run_id)["status"] == "complete"
    rows = store.rows(run_id)
    expected = sorted((p.case.op, p.case.name, impl.name) for p in work for impl in p.impls)
    assert sorted((r["op"], r["case"], r["impl"]) for r in rows) == expected  # each row once, none lost
    assert all(r["status"] == "pass" for r in rows), [r["reason"] for r in rows]
    assert {gpu for gpu, _ in started} == {"0", "1"} and len(started) == len(work)  # both slots, a worker a case


class _SlowStart:
    """A worker whose start-up takes most of the case's limit, then whose implementation's contract takes a little
    more than what is left of it (but far less than a step's own limit), then sends its row."""

    def __init__(self, job, gpu, case_key: str, impl: str):
        import time

        from mage.progress import Step

        def lines():
            time.sleep(3.4)  # the start-up: Python, torch, the registry
            for step in ("check", "contract"):
                yield PROGRESS + Step(case_key, step, impl).to_json() + "\n"
            time.sleep(0.7)
            yield ROW + json.dumps({"case": case_key, "impl": impl, "result": dataclasses.asdict(
                Result("single", "warm", "pass")), "samples": [], "case_stats": None}) + "\n"
            self.returncode = 0

        self.lines, self.returncode, self.lost = lines(), None, ""

    def poll(self):
        return self.returncode

    def kill(self):
        self.returncode = -9

    def last_error(self):
        return ""

    def close(self):
        pass


def test_a_slow_worker_start_is_charged_to_no_implementation(tmp_path, layernorm):
    spec, eager, case = layernorm
    store = Store(tmp_path / "mage.db")
    runner = isolation.IsolatedRunner(store, _request(["layernorm"]), "pytest", case_timeout=4.0,
                                      launch=lambda job, gpu: _SlowStart(job, gpu, case.key, eager.name))
    runner.run_id = store.begin_run(clock="cpu", suite="seed", command="pytest", env={}, method={}, ceilings={})
    # 4.1 s from launch to its row: past the case's limit from the launch, within it from the worker's first step;
    # its contract, 0.7 s, within a step's own limit of 1 s.
    assert runner._run_worker(Planned(spec, case, [eager]), [eager]) == (None, None)
    assert [(r["impl"], r["status"]) for r in store.rows(runner.run_id)] == [(eager.name, "pass")]
