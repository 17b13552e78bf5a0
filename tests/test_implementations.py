"""One generated contract test per registered implementation that can run on the CPU."""

import pytest

from mage import registry
from mage.check import check
from mage.runner import _baseline

registry.load()
IMPLEMENTATIONS = [impl for op in sorted(registry.ops()) for impl in registry.implementations(op)]


def _seed_case(spec):
    return next(case for case in spec.cases() if case.suite == "seed")


@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=lambda impl: f"{impl.op}:{impl.name}")
def test_every_implementation_passes_its_contract_on_the_cpu(impl):
    reason = impl.unavailable_reason("cpu")
    if reason:
        pytest.skip(reason)
    spec = registry.get_op(impl.op)
    result = check(impl, _baseline(impl), spec, _seed_case(spec), "cpu", seed=2024)
    assert result.passed, result.reason


def test_every_op_has_an_eager_baseline_for_each_variant_and_precision():
    for op, spec in registry.ops().items():
        for impl in registry.implementations(op):
            assert _baseline(impl).backend == "eager"
        assert {i.variant for i in registry.implementations(op)} == set(spec.variants)


def test_every_op_has_a_seed_and_a_large_case():
    for spec in registry.ops().values():
        suites = {case.suite for case in spec.cases()}
        assert {"seed", "large", "sweep"} <= suites, spec.name


def test_selection_by_backend_and_prefix():
    assert {i.backend for i in registry.select("triangle", ["eager"])} == {"eager"}
    names = [i.name for i in registry.select("triangle", ["eager/outgoing"])]
    assert names == ["eager/outgoing/ieee", "eager/outgoing/tf32"]
    assert registry.select("triangle", ["eager/out"]) == []  # prefixes stop at '/' boundaries


def test_unknown_names_are_refused_with_what_exists():
    from mage.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match="unknown op 'conv'.*layernorm"):
        registry.get_op("conv")
    with pytest.raises(UnknownNameError, match="unknown implementation 'cutlass'.*eager"):
        registry.check_patterns(["cutlass"], ["matmul"])
    with pytest.raises(UnknownNameError, match="unknown case"):
        registry.get_op("matmul").case("3x3x3")
