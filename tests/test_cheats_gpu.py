"""Cheats that only a GPU can commit or give away (run with `pytest -m gpu`): work left running on a side
stream; answers from memory caught by input refresh on every launch path; outputs that are not plain tensors;
and the fixtures of tests/cheats/ through the real Runner on CUDA, each flagged SUSPECT."""

import pytest
import torch
from cheats import deferred_output, honest_only_under_profiler, silent_while_profiled, stale_answer, warm_cache_memo

from mage import registry
from mage.check import check
from mage.measure.method import Method
from mage.outputs import empty_output
from mage.plan import Planned, Request
from mage.runner import Runner
from mage.store import Store

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]


def _matmul():
    spec = registry.get_op("matmul")
    eager = next(i for i in registry.implementations("matmul") if i.name == "eager/default/ieee")
    return spec, eager, spec.case("1024x1024x1024")


def test_work_left_on_a_side_stream_fails_the_contract(impl_like):
    spec, eager, case = _matmul()

    def on_a_side_stream(a, b):
        out = empty_output((a.shape[0], b.shape[1]), like=a)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            torch.cuda._sleep(2_000_000)  # about a millisecond: still running when the call returns
            torch.matmul(a, b, out=out)
        return out

    result = check(impl_like(eager, on_a_side_stream), eager, spec, case, "cuda", seed=3)
    assert not result.passed and "another stream" in result.reason


def test_the_eager_baseline_leaves_nothing_running(impl_like):
    spec, eager, case = _matmul()
    assert check(eager, eager, spec, case, "cuda", seed=3).passed


# Cheats that only the GPU's boundaries give away, through the real Runner (fixtures: tests/cheats/).

QUICK = Method(span_samples=60, min_samples=10, kernel_calls=20, host_calls=40, host_chunk=10, warmup_calls=5)


def _run_on_cuda(tmp_path, impls, case, paths=("single",)):
    spec = registry.get_op(impls[0].op)
    request = Request(suites=[case.suite], paths=list(paths), device="cuda", method=QUICK)
    store = Store(tmp_path / "mage.db")
    run_id = Runner(store, request, "pytest").run([Planned(spec, case, impls)])
    return store.run(run_id), {(r["backend"], r["path"], r["cache"]): r for r in store.rows(run_id)}


def test_the_run_records_the_devices_peaks(tmp_path):
    spec, eager, case = _matmul()
    run, rows = _run_on_cuda(tmp_path, [eager], case)
    assert run["ceilings"]["peak_fp32_tflops"] > run["ceilings"]["matmul_ieee_tflops"]  # cuBLAS below the peak
    assert run["ceilings"]["peak_hbm_gbps"] > run["ceilings"]["copy_gbps"]
    row = rows["eager", "single", "warm"]
    assert row["compute_floor_us"] < row["kernel_us"] and row["suspect"] is None


def test_a_cached_product_is_flagged_below_the_compute_floor_with_a_warm_l2(tmp_path, impl_like):
    spec, eager, case = _matmul()
    _, rows = _run_on_cuda(tmp_path, [impl_like(eager, warm_cache_memo.cheat(eager.fn)), eager], case)
    memo = rows["fixture", "single", "warm"]
    assert memo["status"] == "pass"
    assert "below its compute floor" in memo["suspect"] and "no cache state can beat it" in memo["suspect"]
    assert rows["eager", "single", "warm"]["suspect"] is None


def _caught(row: dict) -> str:
    """Why the harness does not take a row as honest: the reason it failed, or why it is suspect ('' if neither)."""
    return row["reason"] if row["status"] == "fail" else row["suspect"] or ""


def test_honest_only_under_the_profiler_never_passes_as_honest(tmp_path, impl_like):
    """Its spans are a memory's. Input refresh finds the stale answer (a graph replays what was captured
    unprofiled, whatever the inputs hold next), or else its boundaries disagree (spans below its own kernel time)."""
    spec, eager, case = _matmul()
    _, rows = _run_on_cuda(tmp_path, [impl_like(eager, honest_only_under_profiler.cheat(eager.fn)), eager], case,
                           paths=("single", "batch", "graph"))
    for path in ("single", "batch", "graph"):
        caught = _caught(rows["fixture", path, "warm"])
        print(path, "caught:", caught)
        assert any(why in caught for why in ("returned a stale result during timing", "below its own kernel time",
                                             "is above the single span")), (path, caught)
    assert all(rows["eager", path, "warm"]["status"] == "pass" and rows["eager", path, "warm"]["suspect"] is None
               for path in ("single", "batch", "graph"))


def test_a_call_that_launches_nothing_while_profiled_is_flagged(tmp_path, impl_like):
    spec, eager, case = _matmul()
    _, rows = _run_on_cuda(tmp_path, [impl_like(eager, silent_while_profiled.cheat(eager.fn)), eager], case)
    silent = rows["fixture", "single", "warm"]
    print("launches", silent["launches"], "suspect:", silent["suspect"])
    assert silent["status"] == "pass" and silent["launches"] < 1
    assert "launched nothing on the GPU" in silent["suspect"]
    assert rows["eager", "single", "warm"]["suspect"] is None


# Answering from memory, through the real Runner on the GPU.

def _run_layernorm(tmp_path, impls, paths, caches):
    spec = registry.get_op("layernorm")
    eager = next(i for i in registry.implementations("layernorm") if i.name == "eager/affine/ieee")
    method = Method(min_samples=6, span_samples=30, kernel_calls=5, host_calls=4, host_chunk=2, warmup_calls=3)
    request = Request(suites=["seed"], device="cuda", method=method, paths=list(paths), caches=list(caches))
    store = Store(tmp_path / "mage.db")
    run_id = Runner(store, request, "pytest").run([Planned(spec, spec.case("1024x1024"), [*impls(eager), eager])])
    return {(r["backend"], r["path"], r["cache"]): r for r in store.rows(run_id)}


def test_answering_from_memory_fails_at_the_kernel_capture(tmp_path, impl_like):
    rows = _run_layernorm(tmp_path, lambda eager: [impl_like(eager, stale_answer.ByAddress(eager.fn))],
                          ["single", "graph"], ["warm", "cold"])
    for path in ("single", "graph"):
        for cache in ("warm", "cold"):
            cheat, eager = rows[("fixture", path, cache)], rows[("eager", path, cache)]
            assert cheat["status"] == "fail"
            assert cheat["reason"].startswith("returned a stale result during timing (kernel capture, warm L2): error ")
            assert eager["status"] == "pass", eager["reason"]


@pytest.mark.parametrize("path, cache", [("single", "warm"), ("single", "cold"), ("batch", "warm"),
                                         ("graph", "warm"), ("graph", "cold")])
def test_answering_from_memory_while_unprofiled_fails_on_every_path(tmp_path, impl_like, path, cache):
    def cheat(eager):
        return [impl_like(eager, stale_answer.unless_profiled(stale_answer.ByAddress(eager.fn), eager.fn))]

    rows = _run_layernorm(tmp_path, cheat, [path], [cache])
    assert rows[("fixture", path, cache)]["status"] == "fail"
    assert rows[("fixture", path, cache)]["reason"].startswith(
        f"returned a stale result during timing on the {path} path ({cache} L2): error ")
    honest = rows[("eager", path, cache)]
    assert honest["status"] == "pass", honest["reason"]
    assert honest["span_samples"] >= 6 and honest["span_rse"] is not None


def test_a_tensor_subclass_output_fails_on_the_gpu(impl_like):
    spec, eager, case = _matmul()
    result = check(impl_like(eager, deferred_output.as_subclass(eager.fn)), eager, spec, case, "cuda", seed=3)
    assert not result.passed and "a subclass of torch.Tensor" in result.reason
