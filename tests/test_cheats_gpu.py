"""Cheats on the GPU (run with `pytest -m gpu`): work left running on a side stream, answers from memory
caught by input refresh on every launch path, outputs that are not plain tensors."""

import pytest
import torch
from cheats import deferred_output, stale_answer

from mage import registry
from mage.check import check
from mage.measure.method import Method
from mage.outputs import empty_output
from mage.runner import Planned, Request, Runner
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


# Answering from memory (issue 13, item 14), through the real Runner on the GPU.

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
