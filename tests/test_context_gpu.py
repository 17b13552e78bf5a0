"""Mage custom ops and blocks on a CUDA device: opcheck for every op and GPU implementation, CUDA-graph
capture and replay of each block, fullgraph compile, the profiler's attribution of kernels to ``mage::<op>``
ranges, and one block measured end to end. Skipped where no CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu tests/test_context_gpu.py``.
"""

from __future__ import annotations

import pytest
import torch

from mage import check, registry
from mage.backends.compiled import FAMILY as COMPILE_FAMILY
from mage.backends.precision import TOLERANCE
from mage.context import blocks, library, measure, use
from mage.measure import kernel, span
from mage.measure.device import Timer
from mage.measure.method import Method
from mage.spec import Case

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

# torch.compile of a baseline is left out: it is no kernel of its own, and blocks are compiled whole.
GPU_IMPLS = [impl for op in sorted(registry.ops()) for impl in registry.implementations(op)
             if impl.family != COMPILE_FAMILY and impl.unavailable_reason("cuda") is None]
SELECTORS = ("eager", "triton", "native", "native-py", "cubecl", "cusparse")


def _inputs(op: str, precision: str) -> tuple:
    spec = registry.get_op(op)
    return spec.make_inputs_at(Case(op, "gpu", "test", spec.test_params[0], seed=17), 17, "cuda", "normal", precision)


def _assignment(block, family: str) -> dict[str, str]:
    """``family`` for every op of the block that has it at the block's variants, else the baseline."""
    chosen = {}
    for site in block.sites:
        try:
            with use(**{site.op: family}) as assignment:
                assignment.implementation(site.op, site.variant)
        except Exception:  # noqa: BLE001 - the op has no such implementation: it keeps its baseline
            continue
        chosen[site.op] = family
    return chosen


def _reference(block, inputs):
    return block.reference(*check.upcast(inputs))


def test_the_profiler_attributes_each_kernel_to_its_mage_op_range():
    block = blocks.build("trimul/outgoing-tiny", "cuda")
    inputs = block.make_inputs(7, "cuda")
    with use(layernorm="triton", triangle="native"):
        for _ in range(3):
            block(*inputs)
        capture = kernel.capture_ranges(lambda: block(*inputs), 10, measure.RANGE_PREFIX, on_gpu=True)
        replay, _ = span.graph_replay(lambda: block(*inputs), 10)
        replay()
        replayed_us = Timer("cuda").span_us(replay)
    assert [r.name for r in capture.ranges] == ["mage::layernorm", "mage::triangle", "mage::layernorm"]
    assert all(r.time_us > 0 and r.launches >= 1 for r in capture.ranges), capture
    assert sum(r.time_us for r in capture.ranges) < capture.total_us  # the Linears and gates are the rest
    assert capture.launches > sum(r.launches for r in capture.ranges)
    # The total is kernel time, not the ranges' shadows on the device timeline: one graph replay of the
    # same calls (no host gaps) takes at least as long as the kernels it runs.
    assert capture.total_us * 10 <= 1.05 * replayed_us


def test_a_tiny_block_is_measured_end_to_end_on_both_paths():
    request = measure.Request(blocks=["mlp/tiny"], precisions=["ieee"], device="cuda", size="tiny",
                              method=Method(budget_s=0.05), compile_modes=("default",))
    results, shares = next(measure.run(request))
    failed = [(r.assignment, r.path, r.reason) for r in results if r.status != "pass"]
    assert not failed
    assert {r.path for r in results} == {"single", "graph"}
    assert all(r.kernel_us > 0 and r.launches >= 1 and r.span_median_us > 0 for r in results)
    eager = [s for s in shares if s.assignment == "eager"]
    assert [s.site for s in eager] == ["layernorm#0", "bias_gelu#0"]
    assert all(0 < s.fraction < 1 and s.isolated_us > 0 for s in eager)



@pytest.mark.parametrize("family", SELECTORS)
@pytest.mark.parametrize("name", blocks.names("tiny"))
def test_every_block_captures_in_a_cuda_graph_and_replays_right(name, family):
    block = blocks.build(name, "cuda")
    inputs = block.make_inputs(4, "cuda")
    with use(**_assignment(block, family)):
        replay, out = span.graph_replay(lambda: block(*inputs), 3)
        fresh = block.make_inputs(5, "cuda")
        for target, values in zip(inputs, fresh):
            target.copy_(values)
        replay()
        torch.cuda.synchronize()
    assert check.rel_error(out, _reference(block, fresh)) < TOLERANCE["ieee"]


@pytest.mark.parametrize("name", ["gnn/powerlaw-tiny", "trimul/incoming-tiny"])  # a compile costs seconds
def test_blocks_compile_fullgraph_on_the_gpu_with_native_ops(name):
    block = blocks.build(name, "cuda")
    inputs = block.make_inputs(6, "cuda")
    compiled = torch.compile(block, fullgraph=True, dynamic=False)
    with use(**_assignment(block, "native")):
        out = compiled(*inputs)
    assert check.rel_error(out, _reference(block, inputs)) < TOLERANCE["ieee"]


@pytest.mark.parametrize("impl", GPU_IMPLS, ids=lambda impl: f"{impl.op}:{impl.name}")
def test_opcheck_passes_for_every_gpu_implementation(impl):
    torch.library.opcheck(library.custom_op(impl.op), (*_inputs(impl.op, impl.precision), impl.variant, impl.name))
