"""Fused implementations of the trimul block on a CUDA device: Mage's triton.pairformer and cuEquivariance's
fused update held to the block's contract at the block's sizes (tf32, ieee and, for the peer, bf16; outgoing and
incoming), captured in a CUDA graph and replayed, and measured by mage context beside the best per-op assignment.
cuEquivariance's rows skip where it is not installed (pip install -e '.[peers]').

Run on the GPU machine with ``pytest -m gpu tests/test_context_fused_gpu.py``.
"""

from __future__ import annotations

import functools

import pytest
import torch

from mage import check
from mage.backends.peers import CUEQUIVARIANCE
from mage.context import blocks, fusion, measure
from mage.context.block import BlockSpec
from mage.measure.method import Method
from mage.spec import input_dtype

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

QUICK = Method(budget_s=0.2, min_samples=5, rounds=1, kernel_calls=5, warmup_calls=2, refresh_sets=2)
BLOCKS = ["trimul/outgoing-384", "trimul/incoming-384"]
FUSED = [(impl.label, impl.precision) for impl in fusion.implementations("trimul")]


@functools.lru_cache(maxsize=None)
def _block(name: str, precision: str):
    """The block as a context run measures it at ``precision``: its weights bf16 at bf16."""
    return blocks.build(name, "cuda").at_dtype(input_dtype(precision))


def _fused(label: str, precision: str) -> fusion.FusedImplementation:
    (impl,) = [i for i in fusion.implementations("trimul", precision) if i.label == label]
    return impl


@pytest.mark.parametrize("name", BLOCKS)
@pytest.mark.parametrize("label, precision", FUSED)
def test_each_fused_update_passes_the_block_s_contract(name, label, precision):
    block, impl = _block(name, precision), _fused(label, precision)
    if reason := impl.skip_reason(block, "cuda"):
        pytest.skip(reason)
    spec = BlockSpec(block)
    measurement = measure.BlockMeasurement(block, precision, measure.Request([name], [precision], "cuda", QUICK),
                                           None, lambda step: None)
    way = measure.Way(impl.label, fusion.KIND, {}, fused=impl)
    eager = measure.Way(measure.EAGER, "eager", {})
    result = check.check(measurement._checked(way, measurement.function(way)),
                         measurement._checked(eager, measurement.function(eager)), spec, spec.case(), "cuda", seed=41)
    assert result.passed, result.reason


@pytest.mark.parametrize("label, precision", FUSED)
def test_each_fused_update_replays_in_a_cuda_graph(label, precision):
    block, impl = _block(BLOCKS[0], precision), _fused(label, precision)
    if reason := impl.skip_reason(block, "cuda"):
        pytest.skip(reason)
    z = block.make_inputs(5, "cuda")[0].to(input_dtype(precision))
    call = functools.partial(impl.fn, block)
    expected = call(z).clone()  # warmed: autotuned outside the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = call(z)
    z.copy_(block.make_inputs(6, "cuda")[0])
    graph.replay()
    torch.cuda.synchronize()
    assert torch.allclose(out, call(z), rtol=0, atol=0)
    assert not torch.allclose(out, expected)


def test_mage_context_measures_the_fused_updates_beside_the_best_assignment():
    request = measure.Request(["trimul/outgoing-384"], ["tf32"], "cuda", QUICK,
                              assign={"layernorm": "native", "triangle": "triton.relayout3"}, compile_modes=())
    results, _ = next(measure.run(request))
    graph = {r.assignment: r for r in results if r.path == "graph"}
    mine = graph["fused(triton.pairformer)"]
    assert mine.status == "pass", mine.reason
    assert mine.launches == 3  # the projection, the triangle GEMM, the output: no relayout
    assert graph["layernorm=native,triangle=triton.relayout3"].status == "pass"
    peer = graph["fused(cuequivariance)"]
    assert peer.status == ("skip" if CUEQUIVARIANCE.missing() else "pass"), peer.reason
