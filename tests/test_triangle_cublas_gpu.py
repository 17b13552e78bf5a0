"""triton.relayout3-cublas on a CUDA device: tf32's contract (its rounding included, which the interpreter cannot
show) at the seed and large cases, the 16-bit ones at the seed case and at N 384 C 72, and the channel groups of the
L2 study held to the same contract. Skipped where no CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu -rA tests/test_triangle_cublas_gpu.py``: each test prints its error.
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.backends.precision import precision_mode
from mage.check import check
from mage.ops.triangle import triton_cublas
from mage.ops.triangle.spec import SPEC
from mage.spec import Case

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

CUBLAS = {(i.variant, i.precision): i for i in registry.implementations("triangle")
          if i.backend == "triton.relayout3-cublas"}
N384 = Case("triangle", "B1-N384-C72", "seed", {"batch": 1, "n": 384, "c": 72}, seed=7)


def _contract(impl, case: Case, seed: int = 2024):
    assert impl.unavailable_reason("cuda") is None
    result = check(impl, registry.baseline_of(impl), SPEC, case, "cuda", seed)
    print(f"{impl.name} @ {case.name}: error {result.rel_error}")
    assert result.passed, result.reason
    return result


@pytest.mark.parametrize("case_name", ["B1-N128-C64", "B1-N512-C128"])
@pytest.mark.parametrize("variant", SPEC.variants)
def test_tf32_contract_at_the_seed_and_large_cases(variant, case_name):
    result = _contract(CUBLAS[variant, "tf32"], SPEC.case(case_name))
    assert result.rel_error > 1e-6, "tf32 rounding shows at these sizes: a float32 error means tf32 was not used"


@pytest.mark.parametrize("case", [SPEC.case("B1-N128-C64"), N384], ids=lambda c: c.name)
@pytest.mark.parametrize("precision", ["bf16", "fp16"])
@pytest.mark.parametrize("variant", SPEC.variants)
def test_16_bit_contracts(variant, precision, case):
    impl = CUBLAS[variant, precision]
    _contract(impl, case)
    a, b = SPEC.make_inputs_at(case, 3, "cuda", "normal", precision)
    assert impl.fn(a, b).dtype == a.dtype


@pytest.mark.parametrize("group", [8, 16, 32])
def test_the_channel_groups_keep_the_contract(group):
    """Groups of the L2 study at C 72: nine full groups of 8, and groups of 16 or 32 whose last is part-full
    (16 · 4 + 8, 32 · 2 + 8)."""
    a, b = SPEC.make_inputs_at(N384, 5, "cuda", "normal", "bf16")
    expected = SPEC.reference((a.double(), b.double()), "incoming")
    with precision_mode("bf16"):
        out = triton_cublas.grouped_triangle(a, b, "incoming", group)
    error = ((out.double() - expected).norm() / expected.norm()).item()
    assert out.dtype == torch.bfloat16 and error < 2e-2, error
