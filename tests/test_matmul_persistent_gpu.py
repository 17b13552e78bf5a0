"""triton.persistent on a CUDA device (the matmul study's targets): the tf32 and tf32x3 products pass their
contracts on the TMA path (aligned, ragged tiles) and on the tile-kernel fallback, tf32x3 takes two
launches, and at K 8192 and 32768 (normal and heavy-tailed) its error is at most cuBLAS ieee's (the
other IEEE-class implementations' errors are stored by the matmul sweep runs: compiling
their kernels here would take most of this file's time). The autotune configs chosen are printed last.
Skipped where no CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu -s tests/test_matmul_persistent_gpu.py``.
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.backends.precision import precision_mode
from mage.check import check
from mage.spec import Case

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

registry.load()
NEW = ["triton.persistent/default/tf32", "triton.persistent/default/tf32x3"]
# The TMA path (the sizes a run measures specialize alike, so these compile what a run uses), ragged tiles
# on it, and unaligned rows (the tile kernel).
SHAPES = [{"m": 1024, "k": 1024, "n": 1024}, {"m": 1000, "k": 1036, "n": 1028}, {"m": 333, "k": 517, "n": 129}]


def _impl(name):
    return next(i for i in registry.implementations("matmul") if i.name == name)


@pytest.mark.parametrize("params", SHAPES, ids=lambda p: f"{p['m']}x{p['k']}x{p['n']}")
@pytest.mark.parametrize("name", NEW)
def test_the_persistent_matmul_passes_its_contract(name, params):
    impl = _impl(name)
    result = check(impl, registry.baseline_of(impl), registry.get_op("matmul"), Case("matmul", "gpu", "seed", params, 5),
                   "cuda", seed=2024)
    print(f"{name} {params}: error {result.rel_error}, eager {result.eager_error}")
    assert result.passed, result.reason


def _kernels(fn) -> list[str]:
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]


def test_tf32x3_takes_two_launches_a_split_of_both_operands_and_the_product():
    a, b = torch.randn(2048, 2048, device="cuda"), torch.randn(2048, 2048, device="cuda")
    kernels = _kernels(lambda: _impl("triton.persistent/default/tf32x3").fn(a, b))
    print("triton.persistent tf32x3 launches:", kernels)
    assert len(kernels) == 2 and "split_operands" in kernels[0] and "tma" in kernels[1]


@pytest.mark.parametrize("k", [8192, 32768])
@pytest.mark.parametrize("distribution", ["normal", "heavy"])
def test_tf32x3_at_deep_k_is_at_least_as_accurate_as_cublas_ieee(k, distribution):
    spec = registry.get_op("matmul")
    case = spec.case(f"1024x{k}x1024")
    a, b = spec.make_inputs(case, 7, "cuda", distribution)
    ref = a.double() @ b.double()
    errors = {}
    for name in ("eager/default/ieee", "triton.persistent/default/tf32x3"):
        with precision_mode(_impl(name).precision):
            out = _impl(name).fn(a, b)
        errors[name] = float((out.double() - ref).norm() / ref.norm())
    print(f"K {k} {distribution}:", {name: f"{e:.3g}" for name, e in errors.items()})
    assert errors["triton.persistent/default/tf32x3"] <= errors["eager/default/ieee"]


def test_print_the_chosen_autotune_configs():
    from mage.ops.matmul import triton_persistent

    for precision, kernel in triton_persistent.TMA_KERNELS.items():
        for key, config in kernel.cache.items():
            print(f"triton.persistent {precision} {key}: {config}")
    assert any(kernel.cache for kernel in triton_persistent.TMA_KERNELS.values())
