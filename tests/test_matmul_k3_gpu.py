"""triton.k3 and its chunk variants, triton.k3map (tf32x3 over K' = 3K) and triton.swap (tf32 as cᵀ = bᵀ·aᵀ) on a
CUDA device (the matmul study's targets): every swap config's error, the refused BLOCK_M 256 ones beside the kept ones
(printed, so the cause shows either way); contracts on the TMA path (aligned, ragged tiles) and on the tile-kernel
fallback, the launches (two for k3, one for swap), and at K 8192 and 32768, normal and heavy-tailed, each chunk
length's tf32x3 error against cuBLAS ieee's (the default's at most it: the IEEE-class claim where rounding
accumulates; the long chunks' printed, for the flush study) and swap's against cuBLAS tf32's (printed). The
autotune configs chosen are printed last. Skipped where no CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu -s tests/test_matmul_k3_gpu.py``.
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.backends.precision import precision_mode
from mage.check import check
from mage.ops.matmul import triton_swap as swap
from mage.spec import Case

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

registry.load()
TF32X3 = ["triton.k3/default/tf32x3", "triton.k3map/default/tf32x3"]  # CHUNK 128: at most cuBLAS ieee's error
LONG_CHUNKS = ["triton.k3chunk256/default/tf32x3", "triton.k3chunk512/default/tf32x3"]
NEW = [*TF32X3, "triton.swap/default/tf32"]
# The TMA path, ragged tiles on it (K 1036: a chunk part-padded), and unaligned rows (the tile kernel).
SHAPES = [{"m": 1024, "k": 1024, "n": 1024}, {"m": 1000, "k": 1036, "n": 1028}, {"m": 333, "k": 517, "n": 129}]


def _impl(name):
    return next(i for i in registry.implementations("matmul") if i.name == name)


def _call(name, a, b):
    with precision_mode(_impl(name).precision):
        return _impl(name).fn(a, b)


@pytest.mark.parametrize("params", SHAPES, ids=lambda p: f"{p['m']}x{p['k']}x{p['n']}")
@pytest.mark.parametrize("name", NEW)
def test_the_new_matmuls_pass_their_contracts(name, params):
    impl = _impl(name)
    case = Case("matmul", "gpu", "seed", params, 5)
    result = check(impl, registry.baseline_of(impl), registry.get_op("matmul"), case, "cuda", seed=2024)
    print(f"{name} {params}: error {result.rel_error}, eager {result.eager_error}, {result.reason or 'pass'}")
    assert result.passed, result.reason


def _kernels(fn) -> list[str]:
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]


@pytest.mark.parametrize("name, expected", [(TF32X3[0], ["split_k3", "matmul_k3"]),
                                            (TF32X3[1], ["split_k3", "matmul_k3"]), (NEW[2], ["matmul_swap"])])
def test_the_launches_are_the_split_and_the_product_or_the_product_alone(name, expected):
    a, b = torch.randn(2048, 2048, device="cuda"), torch.randn(2048, 2048, device="cuda")
    kernels = _kernels(lambda: _call(name, a, b))
    print(f"{name} launches:", kernels)
    assert len(kernels) == len(expected) and all(part in kernel for part, kernel in zip(expected, kernels))


@pytest.mark.parametrize("shape", [*swap.SWAP_SHAPES, *swap.REFUSED_SHAPES], ids=str)
def test_every_swap_config_is_right_where_block_m_256_was_refused(shape):
    """2048³ (128 tiles of 256 × 128: one a program) and 4096³, where runs 66-67 refused the BLOCK_M 256 configs
    (and an H100 the 128 × 256 one in two epilogue slices); each config launched as it is. Only the kept configs
    must pass: the refused ones' errors are printed."""
    right = 1e-3  # half the contract's tf32 ceiling; a right swap errs by 4.7e-4 (runs 66-67), a wrong one by 0.02-0.2
    for n in (2048, 4096):
        a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
        ref = a.double() @ b.double()
        error = float((swap._matmul(a, b, swap.swap_config(*shape)).double() - ref).norm() / ref.norm())
        print(f"swap config {shape} at {n}³: error {error:.3g}")
        assert shape in swap.REFUSED_SHAPES or error < right, error


@pytest.mark.parametrize("distribution", ["normal", "nonfinite"])
@pytest.mark.parametrize("shape", swap.SWAP_SHAPES, ids=str)
def test_every_kept_swap_config_keeps_every_element_within_the_tf32_rounding_bound(shape, distribution):
    """The contract's error is norm-wise, and a few wrong elements among a million hide in it: on the non-finite
    contract's inputs at 1024³, where NaN and infinities leave fewer finite elements to average over, an H100
    refused triton.swap at 0.00399 (eager 0.000294). Each element against the bound of a dot product of operands
    rounded or truncated to tf32 (under 2⁻¹⁰ each) and summed in float32: |c − c₆₄| ≤ (2⁻⁹ + K·2⁻²³)·(|a|·|b|)."""
    spec = registry.get_op("matmul")
    case = spec.case("1024x1024x1024")
    a, b = spec.make_inputs_at(case, 11, "cuda", distribution, "tf32")
    ref = a.double() @ b.double()
    bound = (2**-9 + a.shape[1] * 2**-23) * (a.double().abs() @ b.double().abs())
    out = swap._matmul(a, b, swap.swap_config(*shape)).double()
    finite = torch.isfinite(ref) & torch.isfinite(bound)
    excess = ((out - ref).abs() / bound).where(finite, torch.zeros_like(ref))
    wrong = torch.nonzero(excess > 1)
    named = [(tuple(at), float(out[tuple(at)]), float(ref[tuple(at)])) for at in wrong[:6].tolist()]
    print(f"swap config {shape}, {distribution}: {int(finite.sum())} finite elements, {len(wrong)} past the bound "
          f"(worst {float(excess.max()):.3g} of it){': ' if named else ''}{named}")
    assert len(wrong) == 0


@pytest.mark.parametrize("k", [8192, 32768])
@pytest.mark.parametrize("distribution", ["normal", "heavy"])
def test_at_deep_k_k3_is_at_least_as_accurate_as_cublas_ieee(k, distribution):
    spec = registry.get_op("matmul")
    case = spec.case(f"1024x{k}x1024")
    a, b = spec.make_inputs(case, 7, "cuda", distribution)
    ref = a.double() @ b.double()
    errors = {name: float((_call(name, a, b).double() - ref).norm() / ref.norm())
              for name in ("eager/default/ieee", *TF32X3, *LONG_CHUNKS, "eager/default/tf32",
                           "triton.swap/default/tf32")}
    print(f"K {k} {distribution}:", {name: f"{e:.3g}" for name, e in errors.items()})
    assert all(errors[name] <= errors["eager/default/ieee"] for name in TF32X3), errors


def test_print_the_chosen_autotune_configs():
    from mage.ops.matmul import triton_k3, triton_swap

    kernels = {"k3": triton_k3._matmul_k3_kernel, "swap": triton_swap._matmul_swap_kernel}
    for name, kernel in kernels.items():
        for key, config in kernel.cache.items():
            print(f"{name} {key}: {config}")
    assert all(kernel.cache for kernel in kernels.values())
