"""Softmax at bf16 and fp16 on the CPU: every 16-bit implementation that runs here (eager, torch.compile, Triton
under the interpreter, Liger-Kernel's under it too, the native kernels under the CPU emulation) meets its
contract at ragged widths, one row past the register kernels included, and returns its dtype; on hand-made
rows of −inf, +inf, NaN and values near the dtype's largest it gives float64's answer on the same values,
rounded once."""

import functools
import math

import pytest
import torch

from mage import check, registry
from mage.backends import native
from mage.spec import Case, input_dtype
from native_emu import EmuHost, compiler

registry.load()
SPEC = registry.get_op("softmax")
SIXTEEN_BIT = ("bf16", "fp16")
FAMILIES = ("eager", "compile", "triton", "native", "native-py", "liger")
# A prime width, a ragged width of a warp's registers, one past the widest register kernel (online in both
# Triton and the native kernels).
WIDTHS = ({"rows": 7, "cols": 33}, {"rows": 5, "cols": 1000}, {"rows": 2, "cols": 16411})


def _emulated(precision: str) -> registry.Implementation:
    """The native launcher (the one both host paths run) on the CPU emulation."""
    return registry.Implementation(op="softmax", family="native-emu", variant="rows", precision=precision,
                                   fn=functools.partial(native.LAUNCHERS[("softmax", "default")], EmuHost(),
                                                        precision=precision))


def _on_the_cpu() -> list:
    """Each 16-bit champion that runs on the CPU, the native one through the emulation; the rest skipped."""
    impls = [pytest.param(impl, id=impl.name) for impl in registry.select("softmax", None)
             if impl.precision in SIXTEEN_BIT and impl.backend in ("eager", "compile", "triton", "liger")]
    emulated = pytest.mark.skipif(compiler() is None, reason="the CPU emulation needs g++ or clang++")
    return impls + [pytest.param(_emulated(p), id=f"native-emu/rows/{p}", marks=emulated) for p in SIXTEEN_BIT]


def _runnable(impl):
    if reason := impl.unavailable_reason("cpu"):
        pytest.skip(reason)
    return impl


def test_softmax_declares_both_16_bit_precisions_in_every_family_that_takes_them():
    champions = registry.select("softmax", None)
    for precision in SIXTEEN_BIT:  # each family's champion at each (native's: its slice strategy, spec.champions)
        assert set(FAMILIES) <= {impl.family for impl in champions if impl.precision == precision}
    # CubeCL's softmax kernels are float32 only.
    assert {impl.precision for impl in registry.implementations("softmax") if impl.family == "cubecl"} == {"ieee"}


@pytest.mark.parametrize("params", WIDTHS, ids=lambda p: f"{p['rows']}x{p['cols']}")
@pytest.mark.parametrize("impl", _on_the_cpu())
def test_each_16_bit_softmax_meets_its_contract_at_ragged_widths(impl, params):
    if impl.family == "compile" and params["cols"] > 1000:
        pytest.skip("torch.compile builds a C++ kernel per shape on the CPU: the narrower widths show its contract")
    _runnable(impl)
    case = Case("softmax", "test", "seed", params, seed=params["cols"])
    result = check.check(impl, registry.baseline_for("softmax", "rows", impl.precision), SPEC, case, "cpu", seed=3)
    assert result.passed, result.reason
    assert 1e-5 < result.rel_error < 2e-2  # the 16-bit output's rounding, far from float32's


def _edge_rows(cols: int, dtype: torch.dtype) -> torch.Tensor:
    """Rows of ``cols`` values of ``dtype``: all −inf (masked: NaN, float64's 0 / 0), one value among −inf (1
    there), a +inf (NaN), a NaN (NaN), values near the dtype's largest of both signs (their differences
    overflow the dtype, not float32), and near 1e4 (a few of the dtype's spacings apart)."""
    gen = torch.Generator().manual_seed(cols)
    largest = torch.finfo(dtype).max / 2
    x = torch.randn(7, cols, generator=gen)
    x[0] = -math.inf
    x[1] = -math.inf
    x[1, cols // 2] = 3.0
    x[2, cols - 1] = math.inf
    x[3, 1] = math.nan
    x[4] = largest * torch.randint(0, 2, (cols,), generator=gen).mul(2).sub(1)
    x[4, 0] = largest
    x[5] = largest - torch.rand(cols, generator=gen) * largest / 64
    x[6] = 1e4 + 16 * x[6]
    return x.to(dtype)


@pytest.mark.parametrize("cols", [33, 1000])
@pytest.mark.parametrize("impl", _on_the_cpu())
def test_each_16_bit_softmax_gives_float64_s_answer_rounded_on_infinite_masked_and_large_rows(impl, cols):
    _runnable(impl)
    dtype = input_dtype(impl.precision)
    x = _edge_rows(cols, dtype)
    ref = SPEC.reference((x.double(),), "rows")
    out = impl.fn(x)
    assert out.dtype == dtype
    assert torch.equal(out.isnan(), ref.isnan()) and ref[:4].isnan().sum() == 3 * cols
    finite = ~ref.isnan()
    # float32 arithmetic, then one rounding: within one unit of the dtype's last place (subnormal fp16 included).
    spacing = torch.finfo(dtype).eps * ref[finite].abs() + torch.finfo(dtype).smallest_normal * torch.finfo(dtype).eps
    assert ((out[finite].double() - ref[finite]).abs() <= spacing).all()
