"""Registry of ops and implementations.

An implementation is one decorated function in its op's folder:

    @implementation("layernorm", family="eager", baseline=True)
    def layernorm(x, weight, bias):
        return torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias)

An implementation is named ``family[.strategy]/variant/precision`` (mage.identity). One is
registered per variant and precision it declares, each checked against the op's spec (registered
first: its spec.py is imported before the op's other modules); one that declares no variants has
the spec's. If the function takes ``variant`` or ``precision`` keyword arguments, they are bound.

torch.compile of a baseline is registered by marking it ``@with_compiled`` (mage.backends.compiled)
above its ``@implementation``: the registry knows no backend, backends and ops register into it.

Implementations outside mage.ops (a test's deliberately crashing fixtures, say) are plugins: load()
also imports every module named in the environment variable MAGE_PLUGINS (comma-separated module
paths, e.g. ``MAGE_PLUGINS=tests.plugins.crashing``). An environment variable, rather than an
import in the caller, so that the worker processes of an isolated run (mage.isolation) see them too.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import pkgutil
from dataclasses import dataclass, field
from typing import Callable, Iterable

from mage import identity
from mage.errors import FOREIGN_FAULTS, PluginError, UnknownNameError

Availability = Callable[[str], "str | None"]  # device type -> None if available, else the reason
CaseRule = Callable[[dict], "str | None"]  # a case's params -> None if the kernel takes it, else why not
# tf32x3 (three TF32 products) claims IEEE accuracy, so it is held to eager IEEE's error.
BASELINE_PRECISION = {"tf32x3": "ieee"}


@dataclass(frozen=True)
class Implementation:
    op: str
    family: str
    variant: str
    precision: str
    fn: Callable = field(compare=False, repr=False)
    strategy: str = identity.DEFAULT_STRATEGY
    baseline: bool = False
    available: Availability = field(default=lambda device: None, compare=False, repr=False)
    takes: CaseRule = field(default=lambda params: None, compare=False, repr=False)
    # A formula registered to be seen failing its contract (an unstable one, measured beside the stable
    # ones): how its contract's failure reason begins. Such a failure is stored, and is not the run's.
    fails: str | tuple[str, ...] = ""
    # Whether it runs by default: a baseline, or its family's champion for its variant and precision
    # (OpSpec.champions; torch.compile's is its default mode). Every other strategy is a study, run when named.
    champion: bool = True

    @property
    def backend(self) -> str:
        """The name's first part: ``triton``, or ``triton.split`` for a strategy other than the default."""
        return identity.backend_of(self.family, self.strategy)

    @property
    def name(self) -> str:
        """Stable identifier, e.g. ``triton/outgoing/tf32`` or ``triton.split/outgoing/tf32``."""
        return identity.full_name(self.family, self.strategy, self.variant, self.precision)

    def unavailable_reason(self, device: str) -> str | None:
        return self.available(device)

    def case_skip_reason(self, params: dict) -> str | None:
        """Why this kernel's design cannot take a case with these params (a row too wide for its
        registers, say), or None."""
        return self.takes(params)

    def failed_as_registered(self, reason: str) -> bool:
        """Whether a contract failure with ``reason`` is the one this implementation is registered to show."""
        prefixes = (self.fails,) if isinstance(self.fails, str) else self.fails
        return any(prefix and reason.startswith(prefix) for prefix in prefixes)


_OPS: dict[str, object] = {}
_IMPLS: dict[str, list[Implementation]] = {}
_REGISTERED_FROM: dict[Callable, list[Implementation]] = {}  # decorated function -> what it registered
_AFTER_LOAD: list[Callable[[], None]] = []
_LOADED = False  # load() has begun
_LOAD_DONE = False  # and has imported everything


def register_op(spec) -> None:
    _OPS[spec.name] = spec
    _IMPLS.setdefault(spec.name, [])


def implementation(
    op: str,
    *,
    family: str,
    strategy: str = identity.DEFAULT_STRATEGY,
    variants: Iterable[str] | None = None,
    precisions: Iterable[str] = ("ieee",),
    baseline: bool = False,
    available: Availability | None = None,
    takes: CaseRule | None = None,
    fails: str | tuple[str, ...] = "",
    champion_of: str | None = None,
):
    """Register ``fn`` for every (variant, precision) pair it declares (every variant of the spec
    when it declares none). ``takes`` says which cases its design can run (all when None); ``fails``,
    how the contract failure it is registered to show begins, or each way it may (none when empty); ``champion_of``, the
    family whose champion it follows (its own when None: a second host path of the same kernels names
    the first, so both run the same strategy by default)."""

    def register(fn: Callable) -> Callable:
        params = inspect.signature(fn).parameters
        for variant in variants or _spec_of(op).variants:
            for precision in precisions:
                bound = {}
                if "variant" in params:
                    bound["variant"] = variant
                if "precision" in params:
                    bound["precision"] = precision
                call = functools.partial(fn, **bound) if bound else fn
                impl = Implementation(
                    op=op,
                    family=family,
                    strategy=strategy,
                    variant=variant,
                    precision=precision,
                    fn=call,
                    baseline=baseline,
                    available=available or (lambda device: None),
                    takes=takes or (lambda params: None),
                    fails=fails,
                    champion=baseline or strategy == _spec_of(op).champion(champion_of or family, variant, precision),
                )
                add(impl)
                _REGISTERED_FROM.setdefault(fn, []).append(impl)
        return fn

    return register


def _spec_of(op: str):
    try:
        return _OPS[op]
    except KeyError:
        raise UnknownNameError(f"an implementation of {op!r} is registered before its spec "
                               f"(register_op in the op's spec.py comes first)") from None


def registered_from(fn: Callable) -> list[Implementation]:
    """What the @implementation decorators on ``fn`` registered: one per variant and precision of each."""
    return list(_REGISTERED_FROM.get(fn, ()))


def after_load(register: Callable[[], None]) -> None:
    """Call ``register`` once load() has imported every op module and plugin (at once if it has): what is
    derived from other implementations (torch.compile of a baseline) comes after each op's own."""
    if _LOAD_DONE:
        register()
    else:
        _AFTER_LOAD.append(register)


def add(impl: Implementation) -> None:
    spec = _spec_of(impl.op)
    spec.check_variant(impl.variant)
    spec.check_precision(impl.precision)
    impls = _IMPLS.setdefault(impl.op, [])
    if any(i.name == impl.name for i in impls):
        raise ValueError(f"implementation {impl.op}:{impl.name} is registered twice")
    impls.append(impl)


def load() -> None:
    """Import every op package under mage.ops and every module in it, then the plugins, once; then
    register what waits for them all (after_load)."""
    global _LOADED, _LOAD_DONE
    if _LOADED:
        return
    _LOADED = True
    import mage.ops as ops_pkg

    for op_info in pkgutil.iter_modules(ops_pkg.__path__):
        if not op_info.ispkg:
            continue
        package = f"mage.ops.{op_info.name}"
        importlib.import_module(f"{package}.spec")
        op_path = importlib.import_module(package).__path__
        for module in pkgutil.iter_modules(op_path):
            if module.name != "spec":
                importlib.import_module(f"{package}.{module.name}")
    for plugin in filter(None, (name.strip() for name in os.environ.get("MAGE_PLUGINS", "").split(","))):
        _load_plugin(plugin)
    for register in _AFTER_LOAD:  # last: a plugin's baseline is compiled too, after a plugin's kernel of an op
        register()
    _AFTER_LOAD.clear()
    _LOAD_DONE = True


def _load_plugin(module: str) -> None:
    """Import one module named in MAGE_PLUGINS; a typo or a module that fails is the environment's fault."""
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as error:
        raise PluginError(f"plugin {module!r} in MAGE_PLUGINS cannot be found: {error}") from error
    except FOREIGN_FAULTS as error:  # whatever the plugin's own code raised while it was imported, exits too
        raise PluginError(f"plugin {module!r} in MAGE_PLUGINS failed on import: "
                          f"{type(error).__name__}: {error}") from error


def ops() -> dict:
    load()
    return dict(_OPS)


def get_op(name: str):
    load()
    try:
        return _OPS[name]
    except KeyError:
        raise UnknownNameError(f"unknown op {name!r}; known ops: {', '.join(sorted(_OPS))}") from None


def implementations(op: str) -> list[Implementation]:
    get_op(op)
    return list(_IMPLS[op])


def baseline_for(op: str, variant: str, precision: str) -> Implementation:
    """The baseline an implementation of ``op`` at ``variant`` and ``precision`` is compared with."""
    compared_with = BASELINE_PRECISION.get(precision, precision)
    for candidate in implementations(op):
        if candidate.baseline and candidate.variant == variant and candidate.precision == compared_with:
            return candidate
    raise UnknownNameError(f"{op} has no baseline for {variant}/{precision}")


def baseline_of(impl: Implementation) -> Implementation:
    """The op's baseline for ``impl``'s variant, at the precision its contract compares with."""
    return baseline_for(impl.op, impl.variant, impl.precision)


def select(op: str, patterns: Iterable[str] | None, all_strategies: bool = False) -> list[Implementation]:
    """Implementations of ``op`` that one of ``patterns`` selects (if None: each family's champion, the
    baselines and the compiled baselines): a family (``triton``: its champion for each variant and
    precision), every strategy of a family (``triton.*``), a family and strategy (``triton.split``), a full
    name, or a prefix of one ending at a '/' boundary (``compile.max-autotune/outgoing``). With
    ``all_strategies`` a family, or no pattern, selects every strategy."""
    impls = implementations(op)
    if not patterns:
        return [i for i in impls if all_strategies or i.champion]
    return [i for i in impls if any(_selects(i, pattern, all_strategies) for pattern in patterns)]


def _selects(impl: Implementation, pattern: str, all_strategies: bool) -> bool:
    if pattern == impl.family:
        return all_strategies or impl.champion
    return pattern == f"{impl.family}.*" or identity.matches(impl.name, pattern)


def failed_as_registered(op: str, name: str, reason: str) -> bool:
    """Whether ``op``'s implementation ``name`` failed its contract as it is registered to (Implementation.fails)."""
    return any(i.name == name and i.failed_as_registered(reason or "") for i in implementations(op))


def check_patterns(patterns: Iterable[str], op_names: Iterable[str]) -> None:
    """Refuse implementation patterns that match nothing in any selected op."""
    for pattern in patterns:
        if not any(select(op, [pattern]) for op in op_names):
            known = sorted({name for op in op_names for i in implementations(op) for name in (i.family, i.backend)})
            raise UnknownNameError(
                f"unknown implementation {pattern!r}; known families and strategies: {', '.join(known)}"
            )
