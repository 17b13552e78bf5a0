"""Contracts accept the correct implementation and reject every way of being wrong."""

import torch

from mage.check import check, rel_error
from mage.outputs import empty_output


def test_eager_passes_its_own_contract(layernorm):
    spec, eager, case = layernorm
    result = check(eager, eager, spec, case, "cpu", seed=11)
    assert result.passed, result.reason
    assert 0 < result.rel_error < 1e-6


def test_a_wrong_result_fails(layernorm, impl_like):
    spec, eager, case = layernorm

    def without_affine(x, weight, bias):
        return torch.nn.functional.layer_norm(x, x.shape[-1:], eps=1e-5)

    result = check(impl_like(eager, without_affine), eager, spec, case, "cpu", seed=11)
    assert not result.passed
    assert "error" in result.reason and result.rel_error > 1e-3


def test_a_slightly_wrong_result_fails_the_ieee_ceiling(layernorm, impl_like):
    spec, eager, case = layernorm

    def off_by_1e_4(x, weight, bias):
        return eager.fn(x, weight, bias) * (1 + 1e-4)

    assert not check(impl_like(eager, off_by_1e_4), eager, spec, case, "cpu", seed=3).passed


def test_unwritten_outputs_fail_through_poisoning(layernorm, impl_like):
    spec, eager, case = layernorm

    def writes_half(x, weight, bias):
        out = empty_output(x.shape, like=x)
        out[: x.shape[0] // 2] = eager.fn(x, weight, bias)[: x.shape[0] // 2]
        return out

    result = check(impl_like(eager, writes_half), eager, spec, case, "cpu", seed=5)
    assert not result.passed
    assert "NaN or Inf" in result.reason


def test_writing_an_input_fails(layernorm, impl_like):
    spec, eager, case = layernorm

    def in_place(x, weight, bias):
        out = eager.fn(x, weight, bias)
        x.mul_(2)
        return out

    result = check(impl_like(eager, in_place), eager, spec, case, "cpu", seed=5)
    assert not result.passed and "wrote its input #0" in result.reason


def test_wrong_shape_dtype_and_type_fail(layernorm, impl_like):
    spec, eager, case = layernorm
    cases = {
        "shape": lambda x, w, b: eager.fn(x, w, b)[:-1],
        "dtype": lambda x, w, b: eager.fn(x, w, b).double(),
        "not a tensor": lambda x, w, b: eager.fn(x, w, b).tolist(),
    }
    for expected, fn in cases.items():
        result = check(impl_like(eager, fn), eager, spec, case, "cpu", seed=5)
        assert not result.passed, expected
        assert expected.split()[-1] in result.reason


def test_nan_never_passes(layernorm, impl_like):
    spec, eager, case = layernorm

    def one_nan(x, w, b):
        out = eager.fn(x, w, b)
        out[0, 0] = float("nan")
        return out

    assert not check(impl_like(eager, one_nan), eager, spec, case, "cpu", seed=5).passed


def test_heavy_tailed_inputs_are_checked_too(layernorm, impl_like):
    """An implementation right on normal inputs and wrong on heavy-tailed ones must fail."""
    spec, eager, case = layernorm

    def wrong_on_outliers(x, w, b):
        out = eager.fn(x, w, b)
        return out if x.abs().max() < 6 else out + 1

    result = check(impl_like(eager, wrong_on_outliers), eager, spec, case, "cpu", seed=5)
    assert not result.passed and result.reason.startswith("heavy")


def test_rel_error_is_frobenius():
    ref = torch.tensor([3.0, 4.0], dtype=torch.float64)
    assert rel_error(torch.tensor([3.0, 4.5]), ref) == 0.1
