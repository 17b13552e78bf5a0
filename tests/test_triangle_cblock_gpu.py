"""triton.cblock on a CUDA device: tf32's contract (its rounding included, which the interpreter cannot
show) at the seed and large cases with the full autotune list, each product on its own on ragged
shapes, and the other precisions at the seed case. Skipped where no CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu -rA tests/test_triangle_cblock_gpu.py``: the tf32 tests
autotune the kernel on the run's cases (N and C multiples of 16, the divisibility a run compiles for),
so a run then finds every config in Triton's cache, and print the config each case chose.
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.backends.precision import TOLERANCE
from mage.check import check
from mage.ops.triangle import triton_cblock
from mage.ops.triangle.spec import SPEC
from mage.spec import Case

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

CBLOCK = {(i.variant, i.precision): i for i in registry.implementations("triangle") if i.backend == "triton.cblock"}


def _contract(impl, case: Case, seed: int = 2024):
    result = check(impl, registry.baseline_of(impl), SPEC, case, "cuda", seed)
    assert result.passed, result.reason
    return result


@pytest.mark.parametrize("case_name", ["B1-N128-C64", "B1-N512-C128"])
@pytest.mark.parametrize("variant", SPEC.variants)
def test_tf32_contract_at_the_seed_and_large_cases(variant, case_name):
    impl = CBLOCK[variant, "tf32"]
    assert impl.unavailable_reason("cuda") is None
    result = _contract(impl, SPEC.case(case_name))
    assert result.rel_error > 1e-6, "tf32 rounding shows at these sizes: a float32 error means tf32 was not used"
    kernel = triton_cblock._KERNELS[4]
    print(f"{impl.name} @ {case_name}: error {result.rel_error:.2e}; autotuner chose {kernel.best_config}")


@pytest.fixture(params=["batched", "split"])
def one_product(request, monkeypatch):
    """One config of the product named, in both kernels: the autotuner would run only its fastest."""
    for kernel in triton_cblock._KERNELS.values():
        chosen = [c for c in kernel.configs if c.kwargs["PRODUCT"] == request.param][:1]
        monkeypatch.setattr(kernel, "configs", chosen)
    return request.param


@pytest.mark.parametrize("precision", ["tf32", "bf16"])
@pytest.mark.parametrize("variant", SPEC.variants)
def test_each_product_on_ragged_tiles_and_channels(one_product, variant, precision):
    impl = CBLOCK[variant, precision]
    case = Case("triangle", "gpu-ragged", "seed", {"batch": 2, "n": 37, "c": 11}, seed=2024)
    result = check(impl, registry.baseline_of(impl), SPEC, case, "cuda", 2024)
    # Few channels can make eager's "tf32" product run in FP32 (5 channels on an H200): the 10×-eager rule would then
    # hold a TF32 kernel to FP32's error, so here the ceiling alone checks the indexing (a wrong index
    # gives an error of order one).
    assert result.rel_error is not None and result.rel_error <= TOLERANCE[precision], (one_product, result.reason)


@pytest.mark.parametrize("precision", ["ieee", "tf32x3", "bf16", "fp16"])
def test_other_precisions_at_the_seed_case(monkeypatch, precision):
    """The split product alone (one compile a precision; the run autotunes the rest): ieee and tf32x3 held
    to ieee's error, the 16-bit ones to 2e-2 and returning their own dtype."""
    for kernel in triton_cblock._KERNELS.values():
        monkeypatch.setattr(kernel, "configs", [c for c in kernel.configs if c.kwargs["PRODUCT"] == "split"][:1])
    impl = CBLOCK["outgoing", precision]
    case = SPEC.case("B1-N128-C64")
    _contract(impl, case)
    a, b = SPEC.make_inputs_at(case, 3, "cuda", "normal", precision)
    assert impl.fn(a, b).dtype == a.dtype

