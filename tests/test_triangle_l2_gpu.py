"""triton.relayout-l2 and triton.relayout-l2-cublas on a CUDA device: tf32's contract (its rounding included,
which the interpreter cannot show) at the seed and large cases, where the large case runs 16 groups of 8
channels (float32) on an H100 or H200; the other precisions at the seed case and at N 384, where a part-full last
group is drawn by C 72 (16-bit: groups of 16, the last of 8); and the same bits from any grouping. Skipped where no
CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu -rA tests/test_triangle_l2_gpu.py``: each test prints its error and
the group its call used.
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.check import check
from mage.ops.triangle import triton_l2
from mage.ops.triangle.spec import SPEC
from mage.spec import Case, input_dtype

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

STRATEGIES = ("triton.relayout-l2", "triton.relayout-l2-cublas")
GROUPED = {(i.backend, i.variant, i.precision): i for i in registry.implementations("triangle")
           if i.backend in STRATEGIES}


def _contract(impl, case: Case, seed: int = 2024):
    assert impl.unavailable_reason("cuda") is None
    result = check(impl, registry.baseline_of(impl), SPEC, case, "cuda", seed)
    p = case.params
    itemsize = input_dtype(impl.precision).itemsize
    group = triton_l2.channel_group(p["batch"], p["n"], p["c"], itemsize, triton_l2.l2_bytes(torch.device("cuda")))
    print(f"{impl.name} @ {case.name}: error {result.rel_error}; groups of {group}")
    assert result.passed, result.reason
    return result


@pytest.mark.parametrize("case_name", ["B1-N128-C64", "B1-N512-C128"])
@pytest.mark.parametrize("variant", SPEC.variants)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_tf32_contract_at_the_seed_and_large_cases(strategy, variant, case_name):
    result = _contract(GROUPED[strategy, variant, "tf32"], SPEC.case(case_name))
    assert result.rel_error > 1e-6, "tf32 rounding shows at these sizes: a float32 error means tf32 was not used"


@pytest.mark.parametrize("precision", ["ieee", "tf32x3", "bf16", "fp16"])
@pytest.mark.parametrize("variant", SPEC.variants)
def test_other_precisions_with_a_part_full_last_group(variant, precision):
    case = Case("triangle", "B1-N384-C72", "seed", {"batch": 1, "n": 384, "c": 72}, seed=7)
    _contract(GROUPED["triton.relayout-l2", variant, precision], case)
    if precision in ("bf16", "fp16"):
        _contract(GROUPED["triton.relayout-l2-cublas", variant, precision], case)


def test_any_grouping_gives_the_same_bits():
    a, b = SPEC.make_inputs_at(SPEC.case("B1-N128-C64"), 3, "cuda", "normal", "ieee")
    first = triton_l2.grouped_triangle(a, b, "outgoing", "ieee", "triton", group=8)
    for group, hints in ((16, True), (64, True), (8, False)):
        assert torch.equal(triton_l2.grouped_triangle(a, b, "outgoing", "ieee", "triton", group, hints), first)
