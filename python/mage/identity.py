"""How an implementation is named: family, strategy, variant, precision.

The family is the technology (eager, compile, triton, native, native-py, cubecl, cusparse, …) or the peer
library (liger, pyg, quack, cuequivariance), the strategy one kernel design within it (default, split, persistent, max-autotune,
…), the variant the op's formulation (outgoing, sum, … or default) and the precision the arithmetic (ieee, tf32, …).
The full name is ``family/variant/precision`` for the default strategy and
``family.strategy/variant/precision`` otherwise (``triton.split/outgoing/tf32``).

Pure string functions: the registry, the experiments and the store's migration read names alike.
"""

from __future__ import annotations

DEFAULT_STRATEGY = "default"
# The peers: libraries a user would pick instead of Mage's kernels, each a family named after it (mage.backends.peers).
PEER_FAMILIES = ("liger", "pyg", "quack", "cuequivariance")
# Families that are another library's implementation of an op (torch.compile, cuSPARSE through torch.sparse, the
# peers), not Mage's own kernels: the fastest of them is what an answer sets Mage's kernels beside.
LIBRARY_FAMILIES = ("compile", "cusparse", *PEER_FAMILIES)

# Backend names before schema 9, as (family, strategy): the store's migration and mage import of an
# older document map them so old and new runs of one implementation share its name.
LEGACY_BACKENDS = {
    "triton-split": ("triton", "split"),
    "compile-default": ("compile", DEFAULT_STRATEGY),
    "compile-max-autotune": ("compile", "max-autotune"),
    "rust-cubecl": ("cubecl", DEFAULT_STRATEGY),
}


def backend_of(family: str, strategy: str) -> str:
    """The name's first part: the family, with the strategy after a dot unless it is the default."""
    return family if strategy == DEFAULT_STRATEGY else f"{family}.{strategy}"


def full_name(family: str, strategy: str, variant: str, precision: str) -> str:
    return f"{backend_of(family, strategy)}/{variant}/{precision}"


def family_of(name: str) -> str:
    return name.split("/", 1)[0].split(".", 1)[0]


def matches(name: str, pattern: str) -> bool:
    """Whether ``pattern`` selects the implementation called ``name``: its full name, its family
    (every strategy), or a prefix of its name ending at a '/' boundary (``triton.split/outgoing``)."""
    return name == pattern or family_of(name) == pattern or name.startswith(pattern.rstrip("/") + "/")


def from_legacy(backend: str, name: str) -> tuple[str, str, str]:
    """(family, strategy, name) of an implementation stored under a pre-schema-9 ``backend``."""
    family, strategy = LEGACY_BACKENDS.get(backend, (backend, DEFAULT_STRATEGY))
    return family, strategy, backend_of(family, strategy) + name[len(backend):]
