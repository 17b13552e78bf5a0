"""Low-precision and tf32x3 kernels on a CUDA device: every bf16/fp16 implementation of matmul, bias_gelu
and layernorm held to its contract (against eager at the same precision), on the seed case and on
shapes that take each matmul path; tf32x3 in one launch launches one kernel and stays at IEEE accuracy
where K is long. Skipped where no CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu tests/test_matmul_gpu.py``.
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

# torch.compile's are left out: max-autotune alone takes minutes, beyond this file's budget in gemm.sh.
LOW = [impl for op in ("matmul", "bias_gelu", "layernorm") for impl in registry.implementations(op)
       if impl.precision in ("bf16", "fp16") and impl.family != "compile"]
# Aligned (the persistent TMA path; the sizes a run measures specialize alike, so its compiled kernels are
# reused there) and odd (the tile kernel).
MATMUL_SHAPES = [{"m": 1024, "k": 1024, "n": 1024}, {"m": 333, "k": 517, "n": 129}]


def _name(impl) -> str:
    return f"{impl.op}:{impl.name}"


def _check(impl, case: Case):
    result = check(impl, registry.baseline_of(impl), registry.get_op(impl.op), case, "cuda", seed=2024)
    assert result.passed, result.reason
    return result


@pytest.mark.parametrize("impl", LOW, ids=_name)
def test_every_16_bit_implementation_passes_its_contract_on_the_seed_case(impl):
    case = next(c for c in registry.get_op(impl.op).cases() if c.suite == "seed")
    result = _check(impl, case)
    print(f"{_name(impl)} seed: error {result.rel_error:.3g}, eager {result.eager_error:.3g}")


@pytest.mark.parametrize("params", MATMUL_SHAPES, ids=lambda p: f"{p['m']}x{p['k']}x{p['n']}")
@pytest.mark.parametrize("name", ["triton/default/bf16", "triton/default/fp16", "triton/default/tf32x3",
                                  "triton.onelaunch/default/tf32x3", "triton/default/tf32"])
def test_matmul_paths_pass_their_contracts(name, params):
    impl = next(i for i in registry.implementations("matmul") if i.name == name)
    result = _check(impl, Case("matmul", "gpu", "seed", params, seed=5))
    print(f"{name} {params}: error {result.rel_error:.3g}, eager {result.eager_error:.3g}")


def _launches(fn) -> list[str]:
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]


def test_tf32x3_in_one_launch_is_one_kernel_and_split_beforehand_is_three():
    a, b = torch.randn(2048, 2048, device="cuda"), torch.randn(2048, 2048, device="cuda")
    impls = {i.name: i for i in registry.implementations("matmul")}
    one = _launches(lambda: impls["triton.onelaunch/default/tf32x3"].fn(a, b))
    three = _launches(lambda: impls["triton/default/tf32x3"].fn(a, b))
    print("one launch:", one, "split beforehand:", three)
    assert len(one) == 1 and "persistent" in one[0]
    assert len(three) == 3


@pytest.mark.parametrize("k", [8192, 32768])
@pytest.mark.parametrize("distribution", ["normal", "heavy"])
def test_tf32x3_at_long_k_is_at_least_as_accurate_as_cublas_ieee(k, distribution):
    """The claim behind tf32x3: IEEE-class accuracy where rounding accumulates (M = N = 1024)."""
    spec = registry.get_op("matmul")
    case = spec.case(f"1024x{k}x1024")
    a, b = spec.make_inputs(case, 7, "cuda", distribution)
    ref = a.double() @ b.double()
    impls = {i.name: i for i in registry.implementations("matmul")}
    errors = {}
    for name in ("eager/default/ieee", "triton/default/tf32x3", "triton.onelaunch/default/tf32x3"):
        with precision_mode(impls[name].precision):
            out = impls[name].fn(a, b)
        errors[name] = float((out.double() - ref).norm() / ref.norm())
    print(f"K {k} {distribution}:", {n: f"{e:.3g}" for n, e in errors.items()})
    assert errors["triton/default/tf32x3"] <= errors["eager/default/ieee"]
    assert errors["triton.onelaunch/default/tf32x3"] <= errors["eager/default/ieee"]
