"""Every registered op as a torch.library custom op ``mage::<op>``, and the choice of what it runs.

The schema of ``mage::<op>`` is the op's inputs (the parameters of its spec's ``validate``) followed by
two strings, the variant and the full name of the implementation to run:

    mage::triangle(Tensor a, Tensor b, str variant, str impl) -> Tensor

so triangle outgoing and incoming are one op, and the implementation is an argument. ``call`` resolves
it in Python before the custom op runs, from the innermost ``use``: torch.compile traces that lookup
(a constant string in its graph, guarded on the assignment), and a CUDA graph captures whatever kernels
the named implementation launches. Outside any ``use``, each op runs its baseline.

The custom op validates its inputs with the spec first (InputError, as the implementations do), runs the
implementation under the precision it declares, and returns a contiguous output: what the fake
implementation promises and what a block's next op reads. An implementation returning another layout
(eager triangle's einsum) is copied inside the op, and that copy is the op's time in a block.

``call`` routes elsewhere in two cases, chosen with ``routed``: ``direct`` calls the implementation's
function itself, so a whole-block torch.compile sees torch's own ops (the all-torch twin of a block,
with the baseline's code, not a copy of it); ``reference`` calls the spec's float64 reference, so a
block run in float64 is its reference.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from dataclasses import dataclass, field
from typing import Iterator

import torch

from mage import registry
from mage.backends.precision import TOLERANCE, precision_mode
from mage.errors import InputError, UnknownNameError
from mage.spec import require_tensor

NAMESPACE = "mage"
ROUTES = ("library", "direct", "reference")


def input_names(spec) -> list[str]:
    """The op's inputs, as its spec's ``validate`` names them."""
    return list(inspect.signature(spec.validate).parameters)


def schema(spec) -> str:
    tensors = ", ".join(f"Tensor {name}" for name in input_names(spec))
    return f"({tensors}, str variant, str impl) -> Tensor"


def _define(spec) -> None:
    def run(*args):
        *inputs, variant, name = args
        impl = implementation_named(spec.name, name)
        spec.validate(*inputs)
        reason = impl.unavailable_reason(inputs[0].device.type)
        if reason:
            raise InputError(f"{spec.name} {impl.name} cannot run on {inputs[0].device.type}: {reason}")
        with precision_mode(impl.precision):
            return impl.fn(*inputs).contiguous()

    def fake(*args):
        *inputs, variant, _ = args
        spec.validate(*inputs)
        return spec.output_like(tuple(inputs), variant).contiguous()

    op = torch.library.custom_op(f"{NAMESPACE}::{spec.name}", run, mutates_args=(), schema=schema(spec))
    op.register_fake(fake)


def implementation_named(op: str, name: str) -> registry.Implementation:
    """The implementation of ``op`` called ``name`` (a full name)."""
    for impl in registry.implementations(op):
        if impl.name == name:
            return impl
    raise UnknownNameError(f"{op} has no implementation {name!r}")


def at_precision(spec, precision: str) -> str:
    """The precision an op runs at in a block of ``precision``: that one where the op declares it (tf32
    triangle), else the op's first (layernorm has only ieee)."""
    return precision if precision in spec.precisions else spec.precisions[0]


@dataclass(frozen=True)
class Assignment:
    """What each op runs: a selector per op (as --impl takes it), resolved for every variant at one
    precision. Ops not named run their baseline."""

    precision: str = "ieee"
    selectors: dict[str, str] = field(default_factory=dict)
    chosen: dict[tuple[str, str], str] = field(default_factory=dict, compare=False)  # (op, variant) -> full name
    refused: dict[tuple[str, str], str] = field(default_factory=dict, compare=False)  # (op, variant) -> why not

    @classmethod
    def resolve(cls, precision: str, selectors: dict[str, str]) -> Assignment:
        """Resolve ``selectors``; an unknown op, precision or implementation is refused here, in one line.

        One object per assignment, kept: torch.compile guards on the object a compiled block read, so the
        same assignment entered again reuses its graph and another one compiles its own."""
        return _resolved(precision, tuple(sorted(selectors.items())))

    @classmethod
    def _resolve_all(cls, precision: str, selectors: dict[str, str]) -> Assignment:
        if precision not in TOLERANCE:
            raise UnknownNameError(f"unknown precision {precision!r}; known: {', '.join(TOLERANCE)}")
        for op, selector in selectors.items():
            registry.get_op(op)
            registry.check_patterns([selector], [op])
        chosen, refused = {}, {}
        for op, spec in registry.ops().items():
            for variant in spec.variants:
                try:
                    chosen[(op, variant)] = _resolve(spec, selectors.get(op), variant, precision)
                except UnknownNameError as error:
                    refused[(op, variant)] = str(error)
        return cls(precision, dict(selectors), chosen, refused)

    def implementation(self, op: str, variant: str) -> str:
        """The full name of what ``op`` runs at ``variant``; UnknownNameError where its selector has none."""
        name = self.chosen.get((op, variant))
        if name is None:
            raise UnknownNameError(self.refused.get((op, variant), f"unknown op {op!r} or variant {variant!r}"))
        return name


@functools.lru_cache(maxsize=None)
def _resolved(precision: str, selectors: tuple[tuple[str, str], ...]) -> Assignment:
    return Assignment._resolve_all(precision, dict(selectors))


def _resolve(spec, selector: str | None, variant: str, precision: str) -> str:
    at = at_precision(spec, precision)
    if selector is None:
        return registry.baseline_for(spec.name, variant, at).name
    matching = [i for i in registry.select(spec.name, [selector]) if i.variant == variant]
    named = [i for i in matching if i.precision == at] or (matching if selector.count("/") == 2 else [])
    if len(named) > 1:  # a family names its default strategy first (triton, not triton.split)
        named = [i for i in named if i.backend == selector] or named
    if len(named) != 1:
        found = ", ".join(i.name for i in named) or "none"
        raise UnknownNameError(f"{spec.name}={selector} names no single implementation of variant {variant!r} at "
                               f"{at} (found: {found})")
    return named[0].name


_active = {"assignment": None, "route": "library"}  # read by call(); torch.compile guards on what it reads


def current() -> Assignment:
    if _active["assignment"] is None:
        _active["assignment"] = Assignment.resolve("ieee", {})
    return _active["assignment"]


@contextlib.contextmanager
def use(precision: str | None = None, **selectors: str) -> Iterator[Assignment]:
    """Run each named op's chosen implementation inside the block, e.g.
    ``with use("tf32", layernorm="native", triangle="triton.split"):``. Ops not named keep the outer
    choice (the baseline outside any ``use``); the precision is the outer one unless given (ieee outside)."""
    outer = current()
    inner = Assignment.resolve(precision or outer.precision, outer.selectors | selectors)
    _active["assignment"] = inner
    try:
        yield inner
    finally:
        _active["assignment"] = outer


@contextlib.contextmanager
def routed(route: str) -> Iterator[None]:
    """Route every ``call`` through the custom ops (library), to the implementations' own functions
    (direct), or to the specs' float64 references (reference)."""
    if route not in ROUTES:
        raise UnknownNameError(f"unknown route {route!r}; known: {', '.join(ROUTES)}")
    outer = _active["route"]
    _active["route"] = route
    try:
        yield
    finally:
        _active["route"] = outer


def call(op: str, variant: str, *inputs: torch.Tensor) -> torch.Tensor:
    """``op`` at ``variant`` on ``inputs``, by the current assignment and route."""
    route = _active["route"]
    spec = registry.get_op(op)
    if route == "reference":
        return spec.reference(inputs, variant)
    for argument, value in zip(_INPUTS[op], inputs):
        require_tensor(argument, value)  # what the dispatcher would refuse in many lines, refused in one
    name = current().implementation(op, variant)
    if route == "direct":
        return implementation_named(op, name).fn(*inputs)
    return getattr(getattr(torch.ops, NAMESPACE), op)(*inputs, variant, name)


def custom_op(op: str):
    """The OpOverload ``mage::<op>.default`` (for torch.library.opcheck and the tests)."""
    return getattr(getattr(torch.ops, NAMESPACE), op).default


_INPUTS: dict[str, tuple[str, ...]] = {}  # op -> its input names, for each op defined


def define_all() -> None:
    """Define ``mage::<op>`` for every registered op not defined yet."""
    for op, spec in registry.ops().items():
        if op not in _INPUTS:
            _define(spec)
            _INPUTS[op] = tuple(input_names(spec))


define_all()
