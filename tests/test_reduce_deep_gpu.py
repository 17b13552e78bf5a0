"""The native deep strategy of LayerNorm and softmax on a CUDA device (a CTA's slice in its registers and, past them,
in shared memory by one bulk copy, one to four CTAs a row): the contract against the float64 reference (normal,
heavy-tailed and large-mean inputs) at float32, bf16 and fp16 on every plan, from 16384 to 262147 columns, slices that
end in the registers and that run past them, through both hosts (each opting a kernel in to its > 48 KB of shared
memory); an input off every 16-byte boundary, and LayerNorm's weight and bias too; the same bits on a repeat, through
both hosts and from a CUDA graph. Skipped where no CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu tests/test_reduce_deep_gpu.py``.
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.check import check
from mage.spec import Case
from test_reduce_resident_gpu import (_off_boundary, assert_right_off_every_16_byte_boundary,
                                      assert_the_same_bits_through_both_hosts_and_a_graph)

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

OPS = ("layernorm", "softmax")
FAMILIES = ("native", "native-py")
PRECISIONS = ("ieee", "bf16", "fp16")
DTYPES = {"ieee": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
ROWS = 37
# Each float32 plan's widths: the registers alone (16384, 32768), past them by a chunk (32772) and to the plan's
# widest (65536 to 65539), then the clusters of 2 and 4 at their edges and the study's widths; a 16-bit row's
# registers hold 65536, its one CTA 131079 and its two the rest.
WIDTHS = [16384, 32768, 32772, 65536, 65537, 65539, 65540, 131072, 131075, 131076, 131080, 262144, 262147]


def _deep(op: str, family: str = "native", precision: str = "ieee"):
    return next(i for i in registry.implementations(op)
                if i.family == family and i.strategy == "deep" and i.precision == precision)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("cols", WIDTHS, ids=str)
def test_contract_against_float64_on_every_plan(op, family, cols, precision):
    impl = _deep(op, family, precision)
    result = check(impl, registry.baseline_of(impl), registry.get_op(op),
                   Case(op, "deep", "seed", {"rows": ROWS, "cols": cols}), "cuda", seed=cols)
    print(f"{impl.name} {ROWS}x{cols}: worst error {result.rel_error}, eager {result.eager_error}")
    assert result.passed, result.reason


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("cols", [65537, 131075, 262144])
def test_layernorm_s_input_weight_and_bias_off_every_16_byte_boundary(cols, precision):
    """Each row's head, the copy's source and the alignment of weight and bias change together; a column of the
    shared part normalized with the wrong weight would be off by its whole value."""
    assert_right_off_every_16_byte_boundary(_deep("layernorm", precision=precision).fn, ROWS, cols, precision)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("cols", [65537, 131075, 262144])
def test_softmax_s_input_off_every_16_byte_boundary(cols, precision):
    """x one element past a boundary: within twice eager's error against float64 (eager at the same precision)."""
    case = Case("softmax", "t", "seed", {"rows": ROWS, "cols": cols})
    x = _off_boundary(registry.get_op("softmax").make_inputs(case, 3, "cuda")[0].to(DTYPES[precision]), 1)
    out = _deep("softmax", precision=precision).fn(x)
    ref = torch.softmax(x.double(), dim=1)
    error = (torch.linalg.norm(out.double() - ref) / torch.linalg.norm(ref)).item()
    eager = torch.softmax(x.float(), dim=1).to(x.dtype)
    eager_error = (torch.linalg.norm(eager.double() - ref) / torch.linalg.norm(ref)).item()
    print(f"softmax {precision} {ROWS}x{cols} shifted: error {error:.3g}, eager {eager_error:.3g}")
    assert error <= 2 * eager_error + 1e-7


@pytest.mark.parametrize("precision", ["ieee", "bf16"])
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("cols", [65537, 262144])
def test_the_same_bits_on_a_repeat_through_both_hosts_and_from_a_graph(op, cols, precision):
    inputs = [t.to(DTYPES[precision]) for t in
              registry.get_op(op).make_inputs(Case(op, "t", "seed", {"rows": ROWS, "cols": cols}), 5, "cuda")]
    assert_the_same_bits_through_both_hosts_and_a_graph(lambda family, precision: _deep(op, family, precision),
                                                        inputs, precision)
