"""triton.channel on a CUDA device: every precision's contract (tf32's rounding included, which the
interpreter cannot show) on every layout, ragged shapes, and the large case's layouts against eager.
Skipped where no CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu tests/test_triangle_gpu.py``. The first shape has the
divisibility of the run's cases (N and C multiples of 16), so the kernels it autotunes and compiles
are the ones a run then finds in Triton's cache.
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.backends.precision import TOLERANCE
from mage.check import check
from mage.ops.triangle import triton_channel
from mage.ops.triangle.spec import LAYOUTS, SPEC
from mage.spec import Case

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

CHANNEL = [i for i in registry.implementations("triangle") if i.backend == "triton.channel"]


def _check(impl, params: dict, layout: str, seed: int = 2024):
    case = Case("triangle", f"gpu-{layout}", "seed", {**params, "layout": layout}, seed=seed)
    result = check(impl, registry.baseline_of(impl), SPEC, case, "cuda", seed)
    assert result.passed, result.reason
    return result


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("impl", [i for i in CHANNEL if i.precision != "tf32x3"], ids=lambda i: i.name)
def test_contract_like_the_run_cases(impl, layout):
    assert impl.unavailable_reason("cuda") is None
    _check(impl, {"batch": 1, "n": 64, "c": 16}, layout)


@pytest.fixture
def one_config(monkeypatch):
    """Ragged shapes compile kernels of their own: one config keeps them to one compile each."""
    kernel = triton_channel._triangle_channel_kernel
    monkeypatch.setattr(kernel, "configs", kernel.configs[-1:])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("impl", [i for i in CHANNEL if i.variant == "incoming"], ids=lambda i: i.name)
def test_contract_on_ragged_shapes(one_config, impl, layout):
    if impl.precision != "tf32":
        _check(impl, {"batch": 2, "n": 37, "c": 5}, layout)
        return
    # At 5 channels eager's "tf32" product runs in FP32 on channel-last inputs (error 1.1e-7 on an
    # H200), so the contract's 10×-eager rule would hold a TF32 kernel to FP32's error: here the
    # indexing is what is checked, by the TF32 ceiling alone (a wrong index gives an error of order one).
    case = Case("triangle", f"gpu-{layout}", "seed", {"batch": 2, "n": 37, "c": 5, "layout": layout}, seed=2024)
    result = check(impl, registry.baseline_of(impl), SPEC, case, "cuda", 2024)
    assert result.rel_error is not None and result.rel_error <= TOLERANCE["tf32"], result.reason


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_large_case_in_each_layout_meets_tf32s_contract(layout):
    impl = next(i for i in CHANNEL if (i.variant, i.precision) == ("outgoing", "tf32"))
    name = "B1-N512-C128" + ("" if layout == "channel-last" else f"-{layout}")
    result = check(impl, registry.baseline_of(impl), SPEC, SPEC.case(name), "cuda", 7)
    assert result.passed, result.reason
    assert result.rel_error > 1e-6, "tf32 rounding shows at this size: a float32 error means tf32 was not used"
