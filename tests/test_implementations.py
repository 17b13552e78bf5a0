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


def test_every_op_has_a_baseline_for_each_variant_and_precision():
    for op, spec in registry.ops().items():
        for impl in registry.implementations(op):
            assert _baseline(impl).baseline
        assert {i.variant for i in registry.implementations(op)} == set(spec.variants)


def test_every_op_has_a_seed_and_a_large_case():
    for spec in registry.ops().values():
        suites = {case.suite for case in spec.cases()}
        assert {"seed", "large", "sweep"} <= suites, spec.name


def test_selection_by_family_strategy_and_prefix():
    assert {i.backend for i in registry.select("triangle", ["eager"])} == {"eager"}
    assert {i.backend for i in registry.select("triangle", ["triton"])} == {"triton", "triton.split"}
    assert {i.name for i in registry.select("triangle", ["triton.split"])} == {
        "triton.split/outgoing/tf32", "triton.split/incoming/tf32"}
    assert [i.name for i in registry.select("triangle", ["triton.split/outgoing/tf32"])] == ["triton.split/outgoing/tf32"]
    assert {i.backend for i in registry.select("layernorm", ["compile"])} == {"compile", "compile.max-autotune"}
    assert registry.select("triangle", ["triton.spl"]) == []
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


@pytest.fixture
def scratch_registry(monkeypatch):
    """The registry as loaded, with registrations made in the test undone afterwards."""
    registry.load()
    monkeypatch.setattr(registry, "_OPS", dict(registry._OPS))
    monkeypatch.setattr(registry, "_IMPLS", {op: list(impls) for op, impls in registry._IMPLS.items()})


def test_an_implementation_without_variants_gets_the_spec_s(scratch_registry):
    registry.implementation("triangle", family="probe")(lambda a, b, variant: a)
    assert [i.name for i in registry.implementations("triangle") if i.family == "probe"] == [
        "probe/outgoing/ieee", "probe/incoming/ieee"]


def test_a_variant_or_precision_the_spec_does_not_declare_is_refused(scratch_registry):
    from mage.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match="'layernorm' declares no variant 'plain'.*affine"):
        registry.implementation("layernorm", family="probe", variants=("plain",))(lambda x, w, b: x)
    with pytest.raises(UnknownNameError, match="'layernorm' declares no precision 'tf32'.*ieee"):
        registry.implementation("layernorm", family="probe", precisions=("tf32",))(lambda x, w, b: x)
    with pytest.raises(UnknownNameError, match="'softmax' is registered before its spec"):
        registry.implementation("softmax", family="probe")(lambda x: x)


def test_strategies_of_one_family_share_it(scratch_registry):
    registry.implementation("layernorm", family="triton", strategy="persistent")(lambda x, w, b: x)
    persistent = registry.select("layernorm", ["triton.persistent"])
    assert [(i.name, i.family, i.strategy, i.backend) for i in persistent] == [
        ("triton.persistent/affine/ieee", "triton", "persistent", "triton.persistent")]
    assert {i.name for i in registry.select("layernorm", ["triton"])} == {
        "triton/affine/ieee", "triton.persistent/affine/ieee"}
