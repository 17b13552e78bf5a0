"""The native cluster strategy (layernorm, softmax) on a CUDA device: the contract against the float64
reference (normal, heavy-tailed and large-mean inputs) at widths 1024 to 262144, aligned and not; rows
that start off every 16-byte boundary, output aligned differently from the input; the same bits on a
repeat, through both host paths and from a CUDA graph. The same for the slice strategy (the cluster kernel
with one CTA: a block a row, whatever its alignment).
Skipped where no CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu tests/test_reduce_wide_gpu.py``.
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.backends import rows
from mage.check import check
from mage.spec import Case

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

OPS = ("layernorm", "softmax")
# Few rows a width (the study's cases hold 256 MB): 7 rows of a width ≡ 3 mod 4 start at all four alignments.
WIDTHS = [(7, 1024), (7, 4099), (5, 16384), (3, 65536), (7, 65537), (3, 262144), (2, rows.CLUSTER_MAX_COLS)]


def _native(op: str, family: str = "native", strategy: str = "cluster"):
    return next(i for i in registry.implementations(op)
                if i.family == family and i.strategy == strategy and i.precision == "ieee")


# The slice strategy's widths: each plan's narrowest and widest rows (16387: a body of 4096 float4s and a tail);
# the smem strategy's (a slice in shared memory by one bulk copy a CTA) every width the cluster strategy takes.
SLICE_WIDTHS = [(7, 1024), (7, 4099), (5, 4101), (5, 8195), (3, 8196), (3, 16387)]
STRATEGY_WIDTHS = [("slice", *width) for width in SLICE_WIDTHS] + [("smem", *width) for width in WIDTHS]


@pytest.mark.parametrize("family", ["native", "native-py"])
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("strategy, rows_, cols", STRATEGY_WIDTHS, ids=[f"{s}-{c}" for s, _, c in STRATEGY_WIDTHS])
def test_the_slice_and_smem_kernels_pass_the_contract_and_repeat_their_bits_across_hosts(op, family, strategy, rows_,
                                                                                         cols):
    impl = _native(op, family, strategy)
    spec = registry.get_op(op)
    case = Case(op, strategy, "seed", {"rows": rows_, "cols": cols})
    result = check(impl, registry.baseline_of(impl), spec, case, "cuda", seed=cols)
    print(f"{impl.name} {rows_}x{cols}: worst error {result.rel_error}, eager {result.eager_error}")
    assert result.passed, result.reason
    inputs = spec.make_inputs(case, 5, "cuda", "heavy")
    assert torch.equal(impl.fn(*inputs), _native(op, "native" if family == "native-py" else "native-py",
                                                  strategy).fn(*inputs))


@pytest.mark.parametrize("family", ["native", "native-py"])
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("rows_, cols", WIDTHS, ids=[str(c) for _, c in WIDTHS])
def test_contract_against_float64_at_every_width(op, family, rows_, cols):
    impl = _native(op, family)
    spec = registry.get_op(op)
    assert "large-mean" in spec.distributions
    result = check(impl, registry.baseline_of(impl), spec, Case(op, "wide", "seed", {"rows": rows_, "cols": cols}),
                   "cuda", seed=cols)
    print(f"{impl.name} {rows_}x{cols}: worst error {result.rel_error}, eager {result.eager_error}")
    assert result.passed, result.reason


# The 16-bit cluster and slice kernels of both ops (8 elements a 16-byte chunk, held as loaded): 8 rows of an odd
# width start at all eight 2-byte alignments; the widths reach every plan.
SIXTEEN_BIT = [("cluster", 8, 1024), ("cluster", 8, 4099), ("cluster", 5, 16384), ("cluster", 3, 65536),
               ("cluster", 8, 65537), ("cluster", 3, 262144), ("slice", 8, 1024), ("slice", 8, 4099),
               ("slice", 3, 16387)]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("precision", ["bf16", "fp16"])
@pytest.mark.parametrize("strategy, rows_, cols", SIXTEEN_BIT, ids=[f"{s}-{c}" for s, _, c in SIXTEEN_BIT])
def test_the_16_bit_row_strategies_pass_the_contract_and_repeat_their_bits(op, precision, strategy, rows_, cols):
    impl = next(i for i in registry.implementations(op)
                if i.family == "native" and i.strategy == strategy and i.precision == precision)
    spec = registry.get_op(op)
    case = Case(op, "wide16", "seed", {"rows": rows_, "cols": cols})
    result = check(impl, registry.baseline_of(impl), spec, case, "cuda", seed=cols)
    print(f"{impl.name} {rows_}x{cols}: worst error {result.rel_error}, eager {result.eager_error}")
    assert result.passed, result.reason
    inputs = spec.make_inputs_at(case, 5, "cuda", "heavy", precision)
    assert torch.equal(impl.fn(*inputs), impl.fn(*inputs))


def _reference(op, inputs):
    spec = registry.get_op(op)
    return spec.reference(tuple(t.double() for t in inputs), spec.variants[0])


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("strategy, cols", [("cluster", 4099), ("cluster", 65537), ("cluster", 262144),
                                            ("slice", 4099), ("slice", 16387), ("smem", 4099), ("smem", 65537),
                                            ("smem", 262144)])
@pytest.mark.parametrize("distribution", ["normal", "large-mean"])
def test_an_input_off_every_16_byte_boundary_and_an_output_on_one(op, strategy, cols, distribution):
    """x starts 4 bytes past a boundary, so x's rows and out's rows differ in alignment: the kernel stores
    those rows with scalar stores and still loads the body as float4."""
    spec = registry.get_op(op)
    inputs = list(spec.make_inputs(Case(op, "t", "seed", {"rows": 5, "cols": cols}), 3, "cuda", distribution))
    storage = torch.empty(inputs[0].numel() + 1, device="cuda")
    shifted = storage[1:].view_as(inputs[0])
    shifted.copy_(inputs[0])
    assert shifted.data_ptr() % 16 == 4
    inputs[0] = shifted
    out = _native(op, strategy=strategy).fn(*inputs)
    assert out.data_ptr() % 16 == 0
    ref = _reference(op, inputs)
    error = (torch.linalg.norm(out.double() - ref) / torch.linalg.norm(ref)).item()
    print(f"{op} {strategy} {cols} {distribution} shifted: error {error:.3g}")
    assert error < 1e-5 if distribution == "normal" else error < 1e-3


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("cols", [4099, 65537, 262144])
def test_the_same_bits_on_a_repeat_through_both_hosts_and_from_a_graph(op, cols):
    spec = registry.get_op(op)
    inputs = spec.make_inputs(Case(op, "t", "seed", {"rows": 9, "cols": cols}), 5, "cuda", "heavy")
    first = _native(op).fn(*inputs)
    assert torch.equal(first, _native(op).fn(*inputs))
    assert torch.equal(first, _native(op, "native-py").fn(*inputs))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        replayed = _native(op).fn(*inputs)
    replayed.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(first, replayed)


@pytest.mark.parametrize("op", OPS)
def test_the_study_cases_pass_at_262144_and_65537(op):
    """The study's own shapes (256 MB: hundreds to thousands of clusters in flight at once)."""
    impl = _native(op)
    for case in registry.get_op(op).cases():
        if case.suite == "reduction" and case.params["cols"] in (65537, 262144):
            result = check(impl, registry.baseline_of(impl), registry.get_op(op), case, "cuda", seed=17)
            assert result.passed, f"{case.name}: {result.reason}"
