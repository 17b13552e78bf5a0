"""Peers: the libraries a user would pick instead of Mage's kernels, each an implementation family named after it.

A peer's implementations live beside the others in its ops' folders (``ops/softmax/liger.py``), registered with
``@implementation`` and held to the same contracts, boundaries and launch paths; they run by default, as the
library baselines do, and an answer sets Mage's kernels beside the fastest of them (identity.LIBRARY_FAMILIES).

Its library is imported when it is first needed, never while Mage loads: a library that is missing or fails on
import makes only its own rows skips, with a reason naming the package (``pip install -e '.[peers]'``), and a
call made anyway raises PeerMissing. Every run records the installed version of each peer (mage.measure.env).
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
from dataclasses import dataclass
from types import ModuleType

from mage.errors import MageError
from mage.registry import Availability

PEERS_EXTRA = "pip install -e '.[peers]'"


class PeerMissing(MageError):
    """A peer's library was called for where it cannot be imported."""


@dataclass(frozen=True)
class Peer:
    name: str  # the library, as its authors write it
    family: str  # the implementation family, named after the library
    distribution: str  # what pip installs: its version is recorded with each run
    module: str  # the package imported
    requirement: str = ""  # what to pip install, where it is not the bare distribution (an extra of it)
    # (module, distribution) of a package holding its compiled kernels, where the library's own package imports
    # without it and fails only when called (cuEquivariance's torch front end and its ops wheel).
    kernels: tuple[str, str] | None = None

    def missing(self) -> str | None:
        """Why the library cannot be used here (not installed, or failing on import), or None."""
        problem = _import_problem(self.module, self.distribution, self.requirement or self.distribution)
        if problem is None and self.kernels is not None:
            module, distribution = self.kernels
            problem = _import_problem(module, distribution, distribution)
        return problem

    def cuda_only(self, device: str) -> str | None:
        """Device rule of a library whose kernels exist for CUDA alone."""
        return None if device == "cuda" else f"{self.name}'s kernels run on CUDA devices only"

    def load(self, submodule: str = "") -> ModuleType:
        """The library's package, or ``submodule`` of it (``ops.softmax``); PeerMissing where it cannot be imported."""
        if problem := self.missing():
            raise PeerMissing(problem)
        return importlib.import_module(f"{self.module}.{submodule}" if submodule else self.module)

    def distributions(self) -> tuple[str, ...]:
        """What pip installs of it: its own package, and its kernels' where they come apart."""
        return (self.distribution, *((self.kernels[1],) if self.kernels else ()))

    def version(self) -> str | None:
        """The installed version, read from the package's metadata without importing it; None if not installed."""
        return _version(self.distribution)

    def available(self, *device_rules: Availability) -> Availability:
        """The availability rule of one of its implementations: each device rule first (cheap: nothing is
        imported where the kernel could not run anyway), then the library itself."""

        def rule(device: str) -> str | None:
            for device_rule in device_rules:
                if reason := device_rule(device):
                    return reason
            return self.missing()

        return rule


@functools.lru_cache(maxsize=None)
def _import_problem(module: str, distribution: str, requirement: str) -> str | None:
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name == module:
            return f"{distribution} is not installed ({PEERS_EXTRA}, or pip install '{requirement}')"
        return f"{distribution} is installed but fails on import: {error}"
    except Exception as error:  # whatever the library's own import raised (a CUDA runtime it cannot find, say)
        return f"{distribution} is installed but fails on import: {type(error).__name__}: {error}"
    return None


LIGER = Peer("Liger-Kernel", "liger", "liger-kernel", "liger_kernel")
PYG = Peer("PyTorch Geometric", "pyg", "torch_geometric", "torch_geometric")
# Its CuTe-DSL runtime comes in one build per CUDA major: the extra picks torch's CUDA 13.
QUACK = Peer("QuACK", "quack", "quack-kernels", "quack", requirement="quack-kernels[cu13]")
# A fused implementation of a block (mage.context.fused), not of an op; its kernels in the build for torch's CUDA 13.
CUEQUIVARIANCE = Peer("cuEquivariance", "cuequivariance", "cuequivariance-torch", "cuequivariance_torch",
                      kernels=("cuequivariance_ops_torch", "cuequivariance-ops-torch-cu13"))
PEERS = (LIGER, PYG, QUACK, CUEQUIVARIANCE)


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def versions() -> dict[str, str | None]:
    """Each peer's installed version by its package name (None where it is not installed): stored with a run."""
    return {distribution: _version(distribution) for peer in PEERS for distribution in peer.distributions()}


# Liger-Kernel holds a row in one Triton block of at most this many elements (liger_kernel.ops.utils.calculate_settings).
LIGER_MAX_COLS = 65536


def liger_takes(params: dict) -> str | None:
    """Case rule of Liger's row kernels (layernorm, softmax): it refuses wider rows with a RuntimeError."""
    if params["cols"] > LIGER_MAX_COLS:
        return (f"Liger-Kernel holds a row in one Triton block of at most {LIGER_MAX_COLS} elements and refuses "
                f"{params['cols']} columns")
    return None


def quack_widths(kernel: str, elements: int, why: str):
    """Case rule of a QuACK row kernel: the width must be a multiple of ``elements`` (``why`` says what of the
    kernel needs it)."""

    def rule(params: dict) -> str | None:
        if params["cols"] % elements:
            return f"QuACK's {kernel} {why}, so the width must divide by {elements}; {params['cols']} columns do not"
        return None

    return rule
