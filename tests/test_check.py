"""Contracts accept the correct implementation and reject every way of being wrong."""

import torch
from cheats import deferred_output

from mage import registry
from mage.check import InputRefresh, check, rel_error
from mage.outputs import empty_output


def test_eager_passes_its_own_contract(layernorm):
    spec, eager, case = layernorm
    result = check(eager, eager, spec, case, "cpu", seed=11)
    assert result.passed, result.reason
    # The worst error is the large-mean one (ill-conditioned: about 5e-4 in float32, see layernorm's spec).
    assert 1e-5 < result.rel_error < 1e-3


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


def test_a_tensor_subclass_fails_the_contract(layernorm, impl_like):
    spec, eager, case = layernorm
    result = check(impl_like(eager, deferred_output.as_subclass(eager.fn)), eager, spec, case, "cpu", seed=5)
    assert not result.passed
    assert "it returned a Deferred, a subclass of torch.Tensor: outputs must be plain tensors" in result.reason


def test_a_sparse_output_fails_the_contract(layernorm, impl_like):
    spec, eager, case = layernorm
    result = check(impl_like(eager, lambda x, w, b: eager.fn(x, w, b).to_sparse()), eager, spec, case, "cpu", seed=5)
    assert not result.passed and "must be strided" in result.reason


def _refresh(spec, case, sets=3, variants=("affine",)):
    inputs = spec.make_inputs(case, case.seed, "cpu")
    return inputs, tuple(t.clone() for t in inputs), InputRefresh(spec, case, inputs, "cpu", 99, sets, list(variants))


def test_refresh_gives_the_same_buffers_new_values_and_verifies_against_them(layernorm):
    spec, eager, case = layernorm
    inputs, original, refresh = _refresh(spec, case)
    addresses = [t.data_ptr() for t in inputs]
    answer_for_original = eager.fn(*inputs)
    for _ in range(4):  # round the three sets and back to the first
        refresh()
        assert [t.data_ptr() for t in inputs] == addresses
        assert all(not torch.equal(t, o) for t, o in zip(inputs, original))
        assert refresh.stale(eager.fn(*inputs), "affine", "ieee") == ""
        assert refresh.stale(answer_for_original, "affine", "ieee").startswith("error ")
    assert refresh.current == 0
    assert "subclass" in refresh.stale(eager.fn(*inputs).as_subclass(deferred_output.Deferred), "affine", "ieee")


def test_every_refreshed_element_differs_from_every_value_it_held_before(layernorm):
    """An implementation keyed on a few elements must see a new key at every refresh, even where draws coincide."""
    spec, _, case = layernorm

    class SameDrawEverySeed(type(spec)):
        def make_inputs(self, case, seed, device, distribution="normal"):
            return super().make_inputs(case, case.seed, device, distribution)

    inputs, original, refresh = _refresh(SameDrawEverySeed(), case)
    held = [original] + [refresh.sets[k] for k in range(3)]
    for position in range(3):
        for a in range(len(held)):
            for b in range(a + 1, len(held)):
                assert not (held[a][position] == held[b][position]).any()


def test_a_graphs_index_tensors_stay_and_its_features_are_refreshed():
    spec = registry.get_op("neighbor_agg")
    case = spec.case("uniform-4096-d16-F64")
    inputs, original, refresh = _refresh(spec, case, sets=2, variants=("sum", "mean"))
    refresh()
    rowptr, col, x = inputs
    assert torch.equal(rowptr, original[0]) and torch.equal(col, original[1])
    assert not (x == original[2]).any()
    assert set(refresh.references) == {("sum", 0), ("sum", 1), ("mean", 0), ("mean", 1)}
