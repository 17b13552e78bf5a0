"""The blocks Mage measures in context, by name (family/size), at full size or tiny (for the tests)."""

from __future__ import annotations

from typing import Callable

from mage.context import gnn, mlp, trimul
from mage.context.block import Block, BlockSpec
from mage.errors import UnknownNameError
from mage.spec import input_dtype

FAMILIES: dict[str, type[Block]] = {"mlp": mlp.Mlp, "trimul": trimul.TriangleUpdate, "gnn": gnn.GnnLayer}
SIZES = {"full": {"mlp": mlp.SIZES, "trimul": trimul.SIZES, "gnn": gnn.SIZES},
         "tiny": {"mlp": mlp.TINY, "trimul": trimul.TINY, "gnn": gnn.TINY}}


def names(size: str = "full") -> list[str]:
    if size not in SIZES:
        raise UnknownNameError(f"unknown block size {size!r}; known: {', '.join(SIZES)}")
    return [f"{family}/{shape}" for family, shapes in SIZES[size].items() for shape in shapes]


def select(patterns: list[str] | None, size: str = "full") -> list[str]:
    """Block names that ``patterns`` select (all if none): a full name or a family (``trimul``)."""
    known = names(size)
    if not patterns:
        return known
    chosen = []
    for pattern in patterns:
        matched = [name for name in known if name == pattern or name.split("/")[0] == pattern]
        if not matched:
            raise UnknownNameError(f"unknown block {pattern!r} at size {size}; known: {', '.join(known)} "
                                   f"(or a family: {', '.join(FAMILIES)})")
        chosen += [name for name in matched if name not in chosen]
    return chosen


def build(name: str, device: str) -> Block:
    family, shape = name.split("/", 1)
    factory: Callable[..., Block] = FAMILIES[family]
    return factory(shape, device)


def timed_inputs(block: Block, precision: str, device: str) -> tuple:
    """The inputs a context run times ``block`` on at ``precision`` (its case's seed)."""
    spec = BlockSpec(block)
    case = spec.case()
    return spec.make_inputs_at(case, case.seed, device, "normal", precision)


def build_as_timed(name: str, precision: str, device: str) -> tuple[Block, tuple]:
    """The block at ``precision``'s input dtype and the inputs a context run times it on."""
    block = build(name, device).at_dtype(input_dtype(precision))
    return block, timed_inputs(block, precision, device)
