"""Fused implementations of a block: one function that runs the whole block, or a run of its call sites, in
place of its per-op calls.

A per-op assignment swaps one op at a time and keeps every tensor between ops in DRAM; a fused implementation
(a library's, or Mage's own kernels) may keep them on chip. It is registered for a block family with the
precisions it runs at, a rule saying which blocks it takes (a variant, a size), and the call sites it replaces
(all of them unless named): the sites it leaves run the best per-op assignment, through ``library.call`` as the
block's own forward does. Its function takes the block (its weights, variant and sizes) and the block's inputs:

    @fused("trimul", family="triton", strategy="pairformer", precisions=("tf32",))
    def update(block, z, precision): ...

mage.context.measure holds a fused implementation to the block's contract and times it on the same paths and
boundaries as every assignment, stored as an assignment of kind ``fused`` labelled ``fused(<backend>)``.

Implementations live in mage/context/fused/, one module each, imported by load() (by name, as the registry
imports op packages: they import this module, not the other way).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from dataclasses import dataclass, field
from typing import Callable, Iterable

from mage import identity
from mage.registry import Availability

KIND = "fused"
BlockRule = Callable[[object], "str | None"]  # a block -> None if the implementation takes it, else why not


@dataclass(frozen=True)
class FusedImplementation:
    block_family: str  # the block family it implements ("trimul")
    family: str  # the technology or peer library ("triton", "cuequivariance")
    precision: str  # the block precision it runs at (ieee | tf32 | bf16)
    fn: Callable = field(compare=False, repr=False)  # fn(block, *inputs) -> the block's output
    strategy: str = identity.DEFAULT_STRATEGY
    sites: tuple[str, ...] = ()  # the call sites it replaces ("layernorm#1"); empty: the whole block
    available: Availability = field(default=lambda device: None, compare=False, repr=False)
    takes: BlockRule = field(default=lambda block: None, compare=False, repr=False)

    @property
    def backend(self) -> str:
        return identity.backend_of(self.family, self.strategy)

    @property
    def label(self) -> str:
        """How a block result names it: ``fused(cuequivariance)``, ``fused(triton.pairformer)``."""
        return f"{KIND}({self.backend})"

    def covers(self, site_name: str) -> bool:
        return not self.sites or site_name in self.sites

    def skip_reason(self, block, device: str) -> str | None:
        """Why it cannot run ``block`` on ``device`` (the device, or a library missing, before the block's
        shapes), or None."""
        return self.available(device) or self.takes(block)


_FUSED: list[FusedImplementation] = []
_LOADED = False


def fused(block_family: str, *, family: str, strategy: str = identity.DEFAULT_STRATEGY,
          precisions: Iterable[str] = ("ieee",), sites: Iterable[str] = (), available: Availability | None = None,
          takes: BlockRule | None = None):
    """Register ``fn(block, *inputs[, precision])`` as a fused implementation of ``block_family``, once per
    precision (bound to ``precision`` when the function takes it)."""

    def register(fn: Callable) -> Callable:
        takes_precision = "precision" in inspect.signature(fn).parameters
        for precision in precisions:
            call = functools.partial(fn, precision=precision) if takes_precision else fn
            impl = FusedImplementation(block_family, family, precision, call, strategy, tuple(sites),
                                       available or (lambda device: None), takes or (lambda block: None))
            if impl in _FUSED:
                raise ValueError(f"fused implementation {impl.label} of {block_family} at {precision} is registered "
                                 "twice")
            _FUSED.append(impl)
        return fn

    return register


def load() -> None:
    """Import every module of mage/context/fused/ once."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    package = importlib.import_module("mage.context.fused")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")


def implementations(block_family: str, precision: str | None = None) -> list[FusedImplementation]:
    """The fused implementations of a block family, at ``precision`` (every precision when None)."""
    load()
    return [impl for impl in _FUSED
            if impl.block_family == block_family and precision in (None, impl.precision)]
