"""Triangle at bf16 and fp16 on the CPU, through eager: the spec declares both precisions, inputs are the
float32 draw rounded (in every layout), the float64 reference is computed on those rounded values, eager
at the same precision is the baseline, and the precision's ceiling and the 10×-eager rule apply."""

import pytest
import torch

from mage import check, registry
from mage.spec import Case, input_dtype

registry.load()
SPEC = registry.get_op("triangle")
CASE = Case("triangle", "test", "seed", {"batch": 2, "n": 9, "c": 5}, seed=7)
SIXTEEN_BIT = ("bf16", "fp16")


def test_triangle_declares_bf16_and_fp16_with_an_eager_baseline_for_each_variant():
    assert set(SIXTEEN_BIT) <= set(SPEC.precisions)
    for precision in SIXTEEN_BIT:
        for variant in SPEC.variants:
            eager = registry.baseline_for("triangle", variant, precision)
            assert (eager.family, eager.precision) == ("eager", precision)


@pytest.mark.parametrize("layout", ["channel-last", "channel-first", "channel-first-transposed"])
def test_inputs_at_16_bits_are_the_float32_draw_rounded_in_its_layout(layout):
    case = Case("triangle", "t", "seed", {**CASE.params, "layout": layout}, seed=3)
    drawn = SPEC.make_inputs(case, 3, "cpu", "heavy")
    rounded = SPEC.make_inputs_at(case, 3, "cpu", "heavy", "bf16")
    for r, d in zip(rounded, drawn):
        assert r.dtype == torch.bfloat16 and r.stride() == d.stride() and torch.equal(r, d.to(torch.bfloat16))


@pytest.mark.parametrize("precision", SIXTEEN_BIT)
@pytest.mark.parametrize("variant", ["outgoing", "incoming"])
def test_eager_meets_its_contract_and_returns_its_dtype(precision, variant):
    eager = registry.baseline_for("triangle", variant, precision)
    a, b = SPEC.make_inputs_at(CASE, 1, "cpu", "normal", precision)
    assert eager.fn(a, b).dtype == input_dtype(precision)
    result = check.check(eager, eager, SPEC, CASE, "cpu", seed=1)
    assert result.passed, result.reason
    assert 1e-4 < result.rel_error < 2e-2  # the output's own 16-bit rounding, far from ieee's 1e-7


def test_the_reference_is_computed_on_the_rounded_inputs(impl_like):
    """The exact product of the bf16 values, rounded once: right only against a reference on those values."""
    eager = registry.baseline_for("triangle", "outgoing", "bf16")
    exact = impl_like(eager, lambda a, b: SPEC.reference(check.upcast((a, b)), "outgoing").to(torch.bfloat16))
    result = check.check(exact, eager, SPEC, CASE, "cpu", seed=4)
    assert result.passed, result.reason
    assert result.rel_error < 2 ** -8


def test_a_16_bit_triangle_is_held_to_the_ceiling(impl_like):
    eager = registry.baseline_for("triangle", "incoming", "bf16")
    coarse = impl_like(eager, lambda a, b: eager.fn(a, b).to(torch.float8_e4m3fn).to(torch.bfloat16))
    result = check.check(coarse, eager, SPEC, CASE, "cpu", seed=1)
    assert not result.passed and "bf16 ceiling 0.02" in result.reason


def test_a_16_bit_triangle_is_held_to_ten_times_eager_at_its_precision(impl_like):
    eager = registry.baseline_for("triangle", "outgoing", "fp16")
    noisy = impl_like(eager, lambda a, b: (eager.fn(a, b).float() * (1 + 1e-2 * torch.randn(a.shape))).half())
    result = check.check(noisy, eager, SPEC, CASE, "cpu", seed=1)
    assert not result.passed and "fp16 ceiling 0.02" in result.reason and result.rel_error < 2e-2


def test_compulsory_bytes_narrow_with_the_dtype():
    case = SPEC.case("B1-N128-C64")
    assert SPEC.bytes_at(case, "outgoing", "fp16") == SPEC.bytes(case, "outgoing") / 2 == 2 * 3 * 128 * 128 * 64
