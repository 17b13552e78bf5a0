"""Cases across workers beyond one process: a Ray cluster (mage run --ray), and a lost machine."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ci import required
from mage import isolation
from mage.errors import WorkersLost
from mage.measure.method import Method
from mage.plan import Request, plan
from mage.store import Store

REPO = Path(__file__).resolve().parent.parent
QUICK = Method(span_samples=3, min_samples=3, kernel_calls=2, host_calls=4, host_chunk=2, warmup_calls=1)


@required(importlib.util.find_spec("ray") is None, "Ray is not installed (pip install 'mage[ray]')")
def test_a_run_on_a_local_ray_cluster_stores_every_row_once_from_the_parent(tmp_path):
    environment = os.environ | {"COLUMNS": "200", "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO / "python"), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, "-m", "mage", "run", "--device", "cpu", "--op", "layernorm", "--op",
                             "bias_gelu", "--impl", "eager/erf/ieee", "--impl", "eager/affine/ieee", "--min-samples", "3",
                             "--ray", "local"],
                            cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    store = Store(tmp_path / "mage.db")
    rows = store.rows(1)
    assert sorted((r["op"], r["impl"], r["status"]) for r in rows) == [
        ("bias_gelu", "eager/erf/ieee", "pass"), ("layernorm", "eager/affine/ieee", "pass")]
    assert all(r["span_samples"] and len(store.samples(r["result_id"])) == r["span_samples"] for r in rows)
    assert store.run(1)["status"] == "complete"


class _LostOnLayerNorm:
    """A worker whose machine dies on LayerNorm's case; every other case runs as a local worker."""

    def __init__(self, job, gpu):
        self.local = None if job["case"].startswith("layernorm") else isolation.LocalWorker(job, gpu)
        self.lost = "" if self.local else "NodeDiedError: the node running it died"
        self.lines = self.local.lines if self.local else iter([])

    @property
    def returncode(self):
        return self.local.returncode if self.local else -9

    def poll(self):
        return self.local.poll() if self.local else -9

    def __getattr__(self, name):
        return getattr(self.local, name)

    def close(self):
        if self.local:
            self.local.close()


def test_a_lost_machine_leaves_its_case_for_resume_and_costs_nothing_else(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO / "python"), os.environ.get("PYTHONPATH")])))
    store = Store(tmp_path / "mage.db")
    # At ieee: eager has a baseline per precision (ieee, bf16, fp16), and one row is what this test follows.
    request = Request(suites=["seed"], ops=["layernorm", "bias_gelu"], impls=["eager/affine/ieee", "eager/erf/ieee"],
                      device="cpu", method=QUICK)
    runner = isolation.IsolatedRunner(store, request, "pytest", gpus=[None, None], launch=_LostOnLayerNorm)
    with pytest.raises(WorkersLost, match=r"1 case lost .*layernorm:1024x1024 \(NodeDiedError"):
        runner.run(plan(request))
    assert store.run(runner.run_id)["status"] == "incomplete"
    assert [(r["op"], r["status"]) for r in store.rows(runner.run_id)] == [("bias_gelu", "pass")]  # no failure stored


def test_each_gpu_slot_measures_with_its_own_gpu_s_ceilings(tmp_path, monkeypatch, layernorm):
    """Its floors are its own GPU's: the parent measures each slot's GPU, and the run's end records them."""
    import contextlib
    import dataclasses

    import torch

    from mage.plan import Planned

    spec, eager, case = layernorm
    measured = iter([{"copy_gbs": 4000.0}, {"copy_gbs": 3000.0}])
    monkeypatch.setattr(torch.cuda, "device", lambda index: contextlib.nullcontext())
    monkeypatch.setattr(isolation.ceilings, "measure", lambda device: next(measured))
    monkeypatch.setattr(isolation.env, "gpu_identity_of", lambda index: {"gpu_index": 4 + index})
    store = Store(tmp_path / "mage.db")
    runner = isolation.IsolatedRunner(store, Request(suites=["seed"], device="cpu"), "pytest", gpus=["4", "5"])
    runner.request = dataclasses.replace(runner.request, device="cuda")  # no GPU here: only the request says so
    runner.run_id = store.begin_run(clock="gpu", suite="seed", command="pytest", env={}, method={},
                                    ceilings={"copy_gbs": 1.0})
    runner.end_notes = {}
    runner._measure_slot_ceilings()
    assert runner.end_notes["gpus"] == [{"slot": "4", "gpu_index": 4, "ceilings": {"copy_gbs": 4000.0}},
                                        {"slot": "5", "gpu_index": 5, "ceilings": {"copy_gbs": 3000.0}}]
    jobs = []

    class Refused:
        def __init__(self, job, gpu):
            jobs.append((gpu, job["run"]["ceilings"]))
            raise OSError("no worker in this test")

    runner.launch = Refused
    for gpu in ("5", "4"):
        with pytest.raises(OSError):
            runner._run_worker(Planned(spec, case, [eager]), [eager], gpu)
    assert jobs == [("5", {"copy_gbs": 3000.0}), ("4", {"copy_gbs": 4000.0})]
