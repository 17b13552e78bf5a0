"""triton.relayout and triton.relayout3 on a CUDA device: tf32's contract (its rounding included, which the
interpreter cannot show) at the seed and large cases with the full autotune lists, every other precision
at the seed case, every layout at N 128, and ragged shapes with one config (the run's cases compile for N
and C multiples of 16; a ragged N compiles every config again). Skipped where no CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu -rA tests/test_triangle_relayout_gpu.py``: each test prints
its error and the configs the autotuner chose.
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.backends.precision import TOLERANCE
from mage.check import check
from mage.ops.triangle import triton_relayout
from mage.ops.triangle.spec import CHANNEL_LAST, LAYOUTS, SPEC
from mage.spec import Case

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

STRATEGIES = ("triton.relayout", "triton.relayout3")
RELAYOUT = {(i.backend, i.variant, i.precision): i for i in registry.implementations("triangle")
            if i.backend in STRATEGIES}


def _contract(impl, case: Case, seed: int = 2024):
    assert impl.unavailable_reason("cuda") is None
    result = check(impl, registry.baseline_of(impl), SPEC, case, "cuda", seed)
    kernels = [triton_relayout.GEMM_KERNELS[triton_relayout.gemm_kind(impl.precision)],
               triton_relayout._triangle_relayout_kernel]
    chosen = "; ".join(f"{k.base_fn.__name__}: {getattr(k, 'best_config', None)}" for k in kernels)
    print(f"{impl.name} @ {case.name}: error {result.rel_error}; {chosen}")
    assert result.passed, result.reason
    return result


@pytest.mark.parametrize("case_name", ["B1-N128-C64", "B1-N512-C128"])
@pytest.mark.parametrize("variant", SPEC.variants)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_tf32_contract_at_the_seed_and_large_cases(strategy, variant, case_name):
    result = _contract(RELAYOUT[strategy, variant, "tf32"], SPEC.case(case_name))
    assert result.rel_error > 1e-6, "tf32 rounding shows at these sizes: a float32 error means tf32 was not used"


@pytest.mark.parametrize("precision", ["ieee", "tf32x3", "bf16", "fp16"])
def test_other_precisions_at_the_seed_case(precision):
    """ieee and tf32x3 held to ieee's error, the 16-bit ones to 2e-2 and returning their own dtype (outgoing:
    the GEMM is the same for both variants, and the tf32 tests run both)."""
    impl = RELAYOUT["triton.relayout", "outgoing", precision]
    case = SPEC.case("B1-N128-C64")
    _contract(impl, case)
    a, b = SPEC.make_inputs_at(case, 3, "cuda", "normal", precision)
    assert impl.fn(a, b).dtype == a.dtype


@pytest.mark.parametrize("layout", [layout for layout in LAYOUTS if layout != CHANNEL_LAST])
@pytest.mark.parametrize("variant", SPEC.variants)
def test_tf32_on_the_channel_first_layouts(variant, layout):
    """K-major inputs (outgoing on channel-first, incoming on channel-first-transposed) skip the copy;
    the others are copied from their own strides."""
    case = Case("triangle", f"gpu-{layout}", "seed", {"batch": 1, "n": 128, "c": 64, "layout": layout}, seed=5)
    _contract(RELAYOUT["triton.relayout", variant, "tf32"], case)


@pytest.fixture
def one_config(monkeypatch):
    """The first config of each kernel: a ragged N compiles a kernel of its own for every config."""
    for kernel in (*triton_relayout.GEMM_KERNELS.values(), triton_relayout._triangle_relayout_kernel):
        monkeypatch.setattr(kernel, "configs", kernel.configs[:1])


@pytest.mark.parametrize("precision", ["tf32", "bf16"])
@pytest.mark.parametrize("variant", SPEC.variants)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_ragged_tiles_rows_and_channels(one_config, strategy, variant, precision):
    """N 37: ragged tiles and rows padded to 48 for TMA; C 11 over two batches: a part-full channel group."""
    impl = RELAYOUT[strategy, variant, precision]
    case = Case("triangle", "gpu-ragged", "seed", {"batch": 2, "n": 37, "c": 11}, seed=2024)
    result = check(impl, registry.baseline_of(impl), SPEC, case, "cuda", 2024)
    # Few channels can make eager's "tf32" product run in FP32 (5 channels on an H200): the 10×-eager rule would then
    # hold a TF32 kernel to FP32's error, so here the ceiling alone checks the indexing (a wrong index
    # gives an error of order one).
    assert result.rel_error is not None and result.rel_error <= TOLERANCE[precision], result.reason
