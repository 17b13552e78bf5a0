"""Fault injection on a GPU (run with `pytest -m gpu` on the H200): an isolated run keeps every honest result
while a kernel writes out of bounds, one computes the wrong thing, one finishes on a side stream, one turns
stale once timed and one reuses its output buffer."""

import os
import re
import subprocess
from pathlib import Path

import pytest
import torch

from mage.store import Store

from test_cli import MAGE

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

REPO = Path(__file__).resolve().parent.parent
FAULTY = {
    "fault-oob": "illegal memory access|worker killed by SIG",  # the worker may die before Python sees the error
    "wrong": "error",
    "side-stream": "another stream",
    # Caught while timed, where it first answers stale (the kernel capture's verified call), else at the re-check.
    "stale": "returned a stale result during timing|failed a re-check during timing",
    "aliased": "output of the previous call",
}
HONEST = ["eager", "triton", "native"]


def test_an_isolated_gpu_run_keeps_every_honest_result_among_faulty_kernels(tmp_path):
    environment = os.environ | {"MAGE_PLUGINS": "tests.plugins.gpu_faults", "COLUMNS": "200",
                                "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "python"), str(REPO),
                                                                            os.environ.get("PYTHONPATH")]))}
    impls = [*HONEST, *FAULTY]
    result = subprocess.run([*MAGE, "run", "--isolate", "--case-timeout", "300", "--device", "cuda", "--op", "layernorm",
                             "--suite", "seed", "--path", "single", *(arg for impl in impls for arg in ("--impl", impl))],
                            cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stdout + result.stderr  # the run completes; the faulty kernels failed
    store = Store(tmp_path / "mage.db")
    run = store.run(store.latest_run_id())
    assert run["status"] == "complete"
    rows = {r["backend"]: r for r in store.rows(run["id"])}
    for backend in HONEST:
        assert rows[backend]["status"] == "pass", rows[backend]["reason"]
        assert rows[backend]["kernel_us"] > 0 and rows[backend]["span_mean_us"] > 0
    for backend, why in FAULTY.items():
        assert rows[backend]["status"] == "fail", (backend, rows[backend])
        assert re.search(why, rows[backend]["reason"]), (backend, rows[backend]["reason"])
    print({backend: rows[backend]["reason"][:160] for backend in FAULTY})


def test_an_implementation_that_exhausts_device_memory_while_timed_fails_alone_and_the_run_goes_on(tmp_path):
    """In one process (no --isolate): one implementation hoards 2 GiB of every timed call, another asks for more
    than the device has; each fails on every path with the reason, the memory given back, every other timed."""
    environment = os.environ | {"MAGE_PLUGINS": "tests.plugins.resource_faults", "COLUMNS": "200",
                                "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "python"), str(REPO),
                                                                            os.environ.get("PYTHONPATH")]))}
    honest = ["eager/affine/ieee", "compile/affine/ieee"]
    result = subprocess.run([*MAGE, "run", "--no-isolate", "--device", "cuda", "--op", "layernorm", "--suite", "seed",
                             *(arg for impl in [*honest, "hoards", "greedy"] for arg in ("--impl", impl))],
                            cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stdout + result.stderr  # the run completes; the two failed
    assert "bug in Mage" not in result.stderr and "Traceback" not in result.stderr
    store = Store(tmp_path / "mage.db")
    run = store.run(store.latest_run_id())
    assert run["status"] == "complete"
    rows = store.rows(run["id"])
    for row in rows:
        if row["impl"] in honest:
            assert row["status"] == "pass" and row["span_mean_us"] > 0, row
        elif row["impl"].startswith("hoards"):
            assert row["status"] == "fail" and "of device memory across its timed calls" in row["reason"], row
        elif row["impl"].startswith("greedy"):
            assert row["status"] == "fail" and "ran out of device memory while timed" in row["reason"], row
    assert {row["path"] for row in rows} == {"single", "batch", "graph"}
