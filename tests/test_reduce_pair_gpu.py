"""The native pair strategy of LayerNorm on a CUDA device (a cluster holding two rows, weight and bias read once for
the two): the contract against the float64 reference (normal, heavy-tailed and large-mean inputs) at float32, bf16
and fp16 on every plan, from 16384 to 262147 columns, with an odd count of rows so that pairs one to eight rows apart
and a row without a partner all occur; an input, a weight and a bias off every 16-byte boundary; the same bits on a
repeat, through both hosts and from a CUDA graph. Skipped where no CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu tests/test_reduce_pair_gpu.py``.
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.check import check
from mage.spec import Case
from test_reduce_columns_gpu import _inputs
from test_reduce_resident_gpu import (assert_right_off_every_16_byte_boundary,
                                      assert_the_same_bits_through_both_hosts_and_a_graph)

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

FAMILIES = ("native", "native-py")
PRECISIONS = ("ieee", "bf16", "fp16")
ROWS = 37  # odd, and past every pair period's two rounds: rows left without a partner at every width
# Every plan's widest row, a width of every remainder past it, and the study's widths.
WIDTHS = [16384, 16387, 32768, 32771, 65536, 65537, 65538, 131072, 131075, 262144, 262147]


def _impl(family: str = "native", precision: str = "ieee"):
    return next(i for i in registry.implementations("layernorm")
                if i.family == family and i.strategy == "pair" and i.precision == precision)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("cols", WIDTHS, ids=str)
def test_contract_against_float64_on_every_pairing(family, cols, precision):
    impl = _impl(family, precision)
    result = check(impl, registry.baseline_of(impl), registry.get_op("layernorm"),
                   Case("layernorm", "pair", "seed", {"rows": ROWS, "cols": cols}), "cuda", seed=cols)
    print(f"{impl.name} {ROWS}x{cols}: worst error {result.rel_error}, eager {result.eager_error}")
    assert result.passed, result.reason


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("cols", [65537, 262144])
def test_an_input_weight_and_bias_off_every_16_byte_boundary(precision, cols):
    """Each pair's head and the alignment of its weight and bias reads change together; a row given another row's
    statistics would be off by its whole value."""
    assert_right_off_every_16_byte_boundary(_impl(precision=precision).fn, ROWS, cols, precision)


@pytest.mark.parametrize("precision", ["ieee", "bf16"])
@pytest.mark.parametrize("cols", [65537, 262144])
def test_the_same_bits_on_a_repeat_through_both_hosts_and_from_a_graph(precision, cols):
    assert_the_same_bits_through_both_hosts_and_a_graph(_impl, _inputs(ROWS, cols, precision), precision)
