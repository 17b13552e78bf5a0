"""Generated tests of every registered implementation (plugins included): its contract on the CPU,
its refusal of the spec's bad inputs, and the checker's rejection of it made deliberately wrong.

Nothing here names an op or a kernel: a new one is tested by registering it, with its spec's
test_params and bad_inputs.
"""

import pytest
import torch

from mage import check as check_module
from mage import registry
from mage.backends import compiled
from mage.check import check
from mage.errors import InputError
from mage.outputs import empty_output
from mage.spec import Case

registry.load()
IMPLEMENTATIONS = [impl for op in sorted(registry.ops()) for impl in registry.implementations(op)]
# Kernels check their inputs and refuse bad ones by name. Torch's own formulations (the baseline and
# torch.compile of it) raise torch's errors; the harness validates inputs before it calls them.
VALIDATING = [impl for impl in IMPLEMENTATIONS if not impl.baseline and impl.family != compiled.FAMILY]


def _refused_by_validate(spec, make) -> bool:
    """Whether the host-side checks every call runs refuse these inputs; the rest (a graph's
    structure, spec.validate_values) the harness checks once, before any kernel sees them."""
    try:
        spec.validate(*make())
    except InputError:
        return True
    return False


BAD_CALLS = [
    pytest.param(impl, make, message, id=f"{impl.op}:{impl.name}-{n}")
    for impl in VALIDATING
    for n, (make, message) in enumerate(registry.get_op(impl.op).bad_inputs())
    if _refused_by_validate(registry.get_op(impl.op), make)
]


def _name(impl) -> str:
    return f"{impl.op}:{impl.name}"


def _seed_case(spec):
    return next(case for case in spec.cases() if case.suite == "seed")


def _test_case(spec):
    return Case(spec.name, "test", "seed", spec.test_params[0], seed=3)


def _small_case(spec, impl) -> Case:
    """The spec's first small test shape that this kernel's design takes (the first one, which the checker's
    tests below use too, where it takes it); where it takes none (a kernel made for wide rows, say), the
    smallest of the spec's cases it does take: never no case at all."""
    for n, params in enumerate(spec.test_params):
        if impl.case_skip_reason(params) is None:
            return Case(spec.name, f"test{n}", "seed", params, seed=3 + n)
    taken = [case for case in spec.cases() if impl.case_skip_reason(case.params) is None]
    assert taken, f"{impl.name} takes neither a test shape nor a case of {spec.name}"
    return min(taken, key=lambda case: spec.flops(case, impl.variant) + spec.bytes(case, impl.variant))


def _runnable(impl):
    reason = impl.unavailable_reason("cpu")
    if reason:
        pytest.skip(reason)
    return registry.get_op(impl.op)


def _passes_as_registered(impl, spec, case):
    result = check(impl, registry.baseline_of(impl), spec, case, "cpu", seed=2024)
    if impl.fails:  # registered to be seen failing (an unstable formula): it fails, and only as registered
        assert not result.passed and impl.failed_as_registered(result.reason), f"{case.params}: {result.reason}"
    elif check_module.mage_s_own(impl):
        assert result.passed, f"{case.params}: {result.reason}"
    else:  # eager or a library: it may get a NaN or an infinity wrong (torch's float32 GELU of +inf on the CPU)
        assert result.passed or check_module.timed_despite(result, impl), f"{case.params}: {result.reason}"


@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=_name)
def test_every_implementation_passes_its_contract_on_the_cpu(impl):
    """On a small test shape: the fast tier's contract of each implementation."""
    spec = _runnable(impl)
    _passes_as_registered(impl, spec, _small_case(spec, impl))


@pytest.mark.slow
@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=_name)
def test_every_implementation_passes_its_contract_on_the_seed_case(impl):
    """The seed suite's shape (1024², 1024³ …): minutes for some strategies under the interpreter."""
    spec = _runnable(impl)
    case = _seed_case(spec)
    if impl.case_skip_reason(case.params):
        pytest.skip(impl.case_skip_reason(case.params))
    _passes_as_registered(impl, spec, case)


@pytest.mark.parametrize("impl, make, message", BAD_CALLS)
def test_every_kernel_refuses_bad_inputs_by_name(impl, make, message):
    with pytest.raises(InputError, match=message):
        impl.fn(*make())


@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=_name)
def test_the_checker_rejects_each_implementation_zeroing_half_its_output(impl, impl_like):
    spec = _runnable(impl)

    def zeroes_half(*inputs):
        out = impl.fn(*inputs)
        first_half = torch.arange(out.numel(), device=out.device).reshape(out.shape) < out.numel() // 2
        return out.masked_fill_(first_half, 0)  # whatever its strides

    result = check(impl_like(impl, zeroes_half), registry.baseline_of(impl), spec, _test_case(spec), "cpu", 3)
    assert not result.passed and "error" in result.reason


@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=_name)
def test_the_checker_rejects_each_implementation_skipping_its_last_row(impl, impl_like):
    """The ragged edge is what block masks get wrong; poisoning shows it was never written."""
    spec = _runnable(impl)

    def skips_last_row(*inputs):
        out = impl.fn(*inputs)
        partial = empty_output(out.shape, like=out)
        partial[:-1] = out[:-1]
        return partial

    result = check(impl_like(impl, skips_last_row), registry.baseline_of(impl), spec, _test_case(spec), "cpu", 3)
    assert not result.passed and "NaN" in result.reason


def test_every_op_has_a_baseline_for_each_variant_and_precision():
    for op, spec in registry.ops().items():
        for impl in registry.implementations(op):
            assert registry.baseline_of(impl).baseline
        assert {i.variant for i in registry.implementations(op)} == set(spec.variants)


def test_every_op_has_a_seed_and_a_large_case():
    for spec in registry.ops().values():
        suites = {case.suite for case in spec.cases()}
        assert {"seed", "large", "sweep"} <= suites, spec.name


def test_selection_by_family_strategy_and_prefix():
    """What a family, a strategy or a name selects, read from the registry: adding a strategy touches its op only."""
    triangle = registry.implementations("triangle")
    triton_backends = {i.backend for i in triangle if i.family == "triton"}
    assert {i.backend for i in registry.select("triangle", ["eager"])} == {"eager"}
    assert {i.backend for i in registry.select("triangle", ["triton.*"])} == triton_backends
    assert {i.backend for i in registry.select("triangle", ["triton"], all_strategies=True)} == triton_backends
    champions = registry.select("triangle", ["triton"])
    assert champions == [i for i in triangle if i.family == "triton" and i.champion]
    assert len({(i.variant, i.precision) for i in champions}) == len(champions)  # one a variant and precision
    assert len(triton_backends) > 1  # the champion and its studies
    study = sorted(triton_backends - {i.backend for i in champions} - {"triton"})[0]  # "triton": the champion
    assert {i.name for i in registry.select("triangle", [study])} == {i.name for i in triangle if i.backend == study}
    one = next(i.name for i in triangle if i.backend == study)
    assert [i.name for i in registry.select("triangle", [one])] == [one]
    assert {i.backend for i in registry.select("layernorm", ["compile.*"])} == {"compile", "compile.max-autotune"}
    assert {i.backend for i in registry.select("layernorm", ["compile"])} == {"compile"}  # max-autotune: a study
    assert registry.select("triangle", [study[:-1]]) == []
    names = [i.name for i in registry.select("triangle", ["eager/outgoing"])]
    assert names == ["eager/outgoing/ieee", "eager/outgoing/bf16", "eager/outgoing/fp16", "eager/outgoing/tf32"]
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
    monkeypatch.setattr(registry, "_REGISTERED_FROM", dict(registry._REGISTERED_FROM))


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
    with pytest.raises(UnknownNameError, match="'rmsnorm' is registered before its spec"):
        registry.implementation("rmsnorm", family="probe")(lambda x: x)


def test_strategies_of_one_family_share_it(scratch_registry):
    registry.implementation("layernorm", family="triton", strategy="persistent")(lambda x, w, b: x)
    persistent = registry.select("layernorm", ["triton.persistent"])
    assert [(i.name, i.family, i.strategy, i.backend) for i in persistent] == [
        ("triton.persistent/affine/ieee", "triton", "persistent", "triton.persistent")]
    assert "triton.persistent/affine/ieee" in {i.name for i in registry.select("layernorm", ["triton.*"])}
    assert not persistent[0].champion  # a strategy the spec does not name as champion is a study
    assert persistent[0] not in registry.select("layernorm", ["triton"]) + registry.select("layernorm", None)


def test_compiled_variants_of_a_baseline_follow_the_op_s_own_implementations():
    names = [i.name for i in registry.implementations("layernorm")]
    assert names.index("compile/affine/ieee") > names.index("triton/affine/ieee")  # eager.py is imported first
    assert {i.name for i in registry.implementations("matmul") if i.family == compiled.FAMILY} == {
        f"{backend}/default/{precision}" for backend in ("compile", "compile.max-autotune")
        for precision in ("ieee", "tf32", "bf16", "fp16")}


def test_a_baseline_marked_with_compiled_after_loading_is_compiled_at_once(scratch_registry):
    from mage.spec import OpSpec

    class ProbeSpec(OpSpec):
        name = "probe"

    registry.register_op(ProbeSpec())

    @compiled.with_compiled
    @registry.implementation("probe", family="eager", baseline=True)
    def probe(x):
        return x + 1

    assert [i.name for i in registry.implementations("probe")] == [
        "eager/default/ieee", "compile/default/ieee", "compile.max-autotune/default/ieee"]
    compile_default = registry.implementations("probe")[1]
    assert compile_default.unavailable_reason("cpu") is None and not compile_default.baseline
    assert "max-autotune" in registry.implementations("probe")[2].unavailable_reason("cpu")


def test_with_compiled_below_its_implementation_is_refused(scratch_registry):
    def probe(x, weight, bias):
        return x

    with pytest.raises(ValueError, match="with_compiled on .*probe compiles a baseline: it goes above"):
        registry.implementation("layernorm", family="probe")(compiled.with_compiled(probe))
    with pytest.raises(ValueError, match="compiles a baseline"):
        compiled.with_compiled(registry.implementation("layernorm", family="probe2")(probe))
