"""Mage ops as torch.library custom ops (mage.context.library), and the blocks built from them, on the CPU:
schemas, fake tensors, opcheck, the choice of implementation, torch.compile without graph breaks, bad
input, and the blocks' float64 references and contracts."""

from __future__ import annotations

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from mage import check, registry
from mage.context import blocks, library, use
from mage.context.block import BlockSpec, block_implementation
from mage.errors import InputError, UnknownNameError
from mage.spec import Case

OPS = sorted(registry.ops())


def _case(op: str) -> Case:
    spec = registry.get_op(op)
    return Case(op, "test", "test", spec.test_params[0], seed=11)


def _inputs(op: str) -> tuple:
    return registry.get_op(op).make_inputs(_case(op), 11, "cpu")


def _eager_and_triton(op: str) -> list[registry.Implementation]:
    """The CPU-runnable implementations opcheck is run on: the baselines, and Triton under the interpreter."""
    return [impl for impl in registry.implementations(op)
            if impl.precision == "ieee" and impl.family in ("eager", "triton")
            and impl.unavailable_reason("cpu") is None]


@pytest.mark.parametrize("op", OPS)
def test_every_registered_op_is_a_custom_op_with_its_inputs_variant_and_implementation(op):
    names = library.input_names(registry.get_op(op))
    schema = str(library.custom_op(op)._schema)
    assert schema.startswith(f"mage::{op}(")
    assert schema.endswith(", str variant, str impl) -> Tensor")
    assert [argument.name for argument in library.custom_op(op)._schema.arguments] == [*names, "variant", "impl"]


@pytest.mark.parametrize("op", OPS)
def test_the_fake_implementation_gives_the_reference_shape_and_dtype(op):
    spec = registry.get_op(op)
    inputs = _inputs(op)
    for variant in spec.variants:
        expected = spec.reference(check.upcast(inputs), variant)
        with FakeTensorMode(allow_non_fake_inputs=False) as mode:
            fake = tuple(mode.from_tensor(t) for t in inputs)
            out = library.custom_op(op)(*fake, variant, registry.baseline_for(op, variant, "ieee").name)
        assert tuple(out.shape) == tuple(expected.shape) and out.dtype == torch.float32
        assert out.is_contiguous()


@pytest.mark.parametrize("impl", [impl for op in OPS for impl in _eager_and_triton(op)],
                         ids=lambda impl: f"{impl.op}:{impl.name}")
def test_opcheck_passes_for_every_cpu_implementation(impl):
    torch.library.opcheck(library.custom_op(impl.op), (*_inputs(impl.op), impl.variant, impl.name))


def test_outside_any_use_each_op_runs_its_baseline_and_nesting_restores_the_outer_choice():
    assert library.current().implementation("layernorm", "affine") == "eager/affine/ieee"
    with use(layernorm="triton", bias_gelu="triton"):
        assert library.current().implementation("layernorm", "affine") == "triton/affine/ieee"
        with use(layernorm="eager/affine/ieee"):
            assert library.current().implementation("layernorm", "affine") == "eager/affine/ieee"
            assert library.current().implementation("bias_gelu", "erf") == "triton/erf/ieee"  # kept from outside
        assert library.current().implementation("layernorm", "affine") == "triton/affine/ieee"
    assert library.current().implementation("layernorm", "affine") == "eager/affine/ieee"


def test_a_selector_resolves_against_the_call_variant_and_the_block_precision():
    with use("tf32", triangle="triton.split"):
        assignment = library.current()
        assert assignment.implementation("triangle", "incoming") == "triton.split/incoming/tf32"
        assert assignment.implementation("layernorm", "affine") == "eager/affine/ieee"  # layernorm has only ieee
        assert assignment.implementation("triangle", "outgoing") == "triton.split/outgoing/tf32"
    with use("tf32", triangle="triton"):  # a family names its champion at the precision, not every strategy of it
        champion = registry.select("triangle", ["triton"])
        assert library.current().implementation("triangle", "outgoing") == next(
            i.name for i in champion if (i.variant, i.precision) == ("outgoing", "tf32"))


@pytest.mark.parametrize("selectors, message", [
    ({"nope": "triton"}, "unknown op 'nope'"),
    ({"layernorm": "nope"}, "unknown implementation 'nope'"),
])
def test_an_unknown_op_or_implementation_is_refused_on_entry(selectors, message):
    with pytest.raises(UnknownNameError, match=message):
        with use(**selectors):
            pass


def test_an_implementation_without_the_call_variant_is_refused_at_the_call(monkeypatch):
    monkeypatch.setattr(registry, "_IMPLS", {op: list(impls) for op, impls in registry._IMPLS.items()})
    monkeypatch.setattr(registry, "_REGISTERED_FROM", dict(registry._REGISTERED_FROM))
    registry.implementation("neighbor_agg", family="sum-only", variants=("sum",))(lambda rowptr, col, x: x)
    rowptr, col, x = _inputs("neighbor_agg")
    with use(neighbor_agg="sum-only"):
        with pytest.raises(UnknownNameError, match=r"neighbor_agg=sum-only names no single implementation of "
                                                   r"variant 'mean'"):
            library.call("neighbor_agg", "mean", rowptr, col, x)


def test_an_implementation_unavailable_here_is_an_input_error_not_a_crash():
    with use(layernorm="native"):
        with pytest.raises(InputError, match=r"layernorm native/affine/ieee cannot run on cpu"):
            library.call("layernorm", "affine", *_inputs("layernorm"))


def _refused_by_validate(op: str, make) -> bool:
    """Whether the spec's host-side checks refuse these inputs (a CSR graph's values are the harness's to
    check, once, before any call: a custom op must not read device memory)."""
    try:
        registry.get_op(op).validate(*make())
    except InputError:
        return True
    return False


@pytest.mark.parametrize("op, make, message", [
    (op, make, message) for op in OPS for make, message in registry.get_op(op).bad_inputs()
    if "meta" not in message and _refused_by_validate(op, make)
], ids=lambda value: value if isinstance(value, str) and len(value) < 20 else "")
def test_bad_inputs_keep_the_op_input_error_through_the_custom_op(op, make, message):
    variant = registry.get_op(op).variants[0]
    for selector in ("eager", "triton"):
        with use(**{op: selector}):
            with pytest.raises(InputError, match=message):
                library.call(op, variant, *make())


def test_a_non_contiguous_input_is_taken_or_refused_in_one_line():
    x, weight, bias = _inputs("layernorm")
    strided = torch.cat([x, x], dim=1)[:, ::2]
    with use(layernorm="triton"):
        out = library.call("layernorm", "affine", strided, weight, bias)
    reference = registry.get_op("layernorm").reference(check.upcast((strided, weight, bias)), "affine")
    assert check.rel_error(out, reference) < 1e-5


@pytest.fixture
def recorded(monkeypatch):
    """The implementations the custom ops ran, in order."""
    ran = []
    looked_up = library.implementation_named

    def recording(op, name):
        ran.append(name)
        return looked_up(op, name)

    monkeypatch.setattr(library, "implementation_named", recording)
    return ran


def test_a_block_compiles_fullgraph_without_breaks_and_follows_the_assignment(recorded):
    block = blocks.build("mlp/tiny", "cpu")
    (x,) = block.make_inputs(3, "cpu")
    assert torch._dynamo.explain(block)(x).graph_break_count == 0
    compiled = torch.compile(block, fullgraph=True, dynamic=False)
    with use(layernorm="triton"):
        out = compiled(x)
    assert recorded[-2:] == ["triton/affine/ieee", "eager/erf/ieee"]
    assert check.rel_error(out, block.reference(*check.upcast((x,)))) < 1e-5
    compiled(x)  # outside the use: a graph of its own, with the baseline
    assert recorded[-2:] == ["eager/affine/ieee", "eager/erf/ieee"]


@pytest.mark.parametrize("name", blocks.names("tiny"))
def test_every_tiny_block_passes_its_contract_eagerly_and_directly(name):
    block = blocks.build(name, "cpu")
    spec = BlockSpec(block)

    def routed(route):
        def run(*inputs):
            with library.routed(route):
                return block(*inputs)
        return block_implementation(name, route, "ieee", run)

    eager = routed("library")
    for implementation in (eager, routed("direct")):
        result = check.check(implementation, eager, spec, spec.case(), "cpu", seed=5)
        assert result.passed, result.reason
        assert result.rel_error < 1e-5


def test_a_block_whose_output_is_off_fails_its_contract():
    block = blocks.build("trimul/incoming-tiny", "cpu")
    spec = BlockSpec(block)
    eager = block_implementation(block.name, "eager", "ieee", block)
    wrong = block_implementation(block.name, "wrong", "ieee", lambda z: block(z) * (1 + 1e-3))
    result = check.check(wrong, eager, spec, spec.case(), "cpu", seed=5)
    assert not result.passed and "error" in result.reason


def test_the_reference_runs_each_op_through_its_spec_in_float64(recorded):
    block = blocks.build("gnn/powerlaw-tiny", "cpu")
    inputs = block.make_inputs(2, "cpu")
    reference = block.reference(*check.upcast(inputs))
    assert reference.dtype == torch.float64 and not recorded  # no implementation ran
    assert next(block.parameters()).dtype == torch.float32  # the block itself is untouched


@pytest.mark.parametrize("name", blocks.names("tiny"))
def test_blocks_declare_their_sites_with_the_spec_case_params(name):
    block = blocks.build(name, "cpu")
    for site in block.sites:
        spec = registry.get_op(site.op)
        inputs = spec.make_inputs(site.case(block.name), site.seed, "cpu")
        spec.check_inputs(*inputs)
        assert site.variant in spec.variants
        assert all(bool((t != 0).any()) for t in inputs if t.is_floating_point())


def test_use_is_exported_as_mage_use():
    import mage

    with mage.use(layernorm="triton"):
        assert library.current().implementation("layernorm", "affine") == "triton/affine/ieee"
