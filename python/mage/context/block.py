"""What every model block shares: its op call sites, seeded weights, its float64 reference, and the
adapter that holds it to a contract with the op checker (mage.check), as an op is.

A block is a small nn.Module whose forward calls Mage ops through ``library.call`` and torch's Linear
(and elementwise torch for gates and residuals). It declares its call sites in order: each names the
op, the variant and the op spec's case parameters at the block's shapes, so an op can be measured
alone at those shapes with the spec's own inputs.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import torch
from torch import nn

from mage.context import library
from mage.registry import Implementation
from mage.spec import Case, OpSpec, draw, generator

SUITE = "context"


@dataclass(frozen=True)
class Site:
    """One op call in a block: e.g. layernorm#1, the block's second LayerNorm."""

    op: str
    variant: str
    params: dict = field(hash=False)
    index: int = 0  # among the block's calls of this op
    seed: int = 0  # of the op's inputs when measured alone (a graph's seed fixes the graph)

    @property
    def name(self) -> str:
        return f"{self.op}#{self.index}"

    def case(self, block: str) -> Case:
        return Case(self.op, f"{block}:{self.name}", SUITE, self.params, seed=self.seed)


def sites(*calls: tuple) -> list[Site]:
    """Sites of (op, variant, params[, seed]) calls in block order, numbered per op; a site without a
    seed of its own (a graph's) is seeded by its place."""
    counts: dict[str, int] = {}
    numbered = []
    for place, (op, variant, params, *seed) in enumerate(calls):
        numbered.append(Site(op, variant, params, counts.get(op, 0), seed=seed[0] if seed else 7919 * (place + 1)))
        counts[op] = counts.get(op, 0) + 1
    return numbered


class Block(nn.Module):
    """Base of every block: ``name`` (family/size), ``sites``, ``make_inputs``, ``forward``."""

    family: str = ""

    def __init__(self, size: str, seed: int, device: str):
        super().__init__()
        self.size, self.seed = size, seed
        self._generator = generator(seed, device)
        self._float64: Block | None = None

    @property
    def name(self) -> str:
        return f"{self.family}/{self.size}"

    @property
    def sites(self) -> list[Site]:
        raise NotImplementedError

    def make_inputs(self, seed: int, device: str, distribution: str = "normal") -> tuple:
        """Fresh, seeded inputs of one block call; never zeros."""
        raise NotImplementedError

    # Seeded parameters, drawn on the block's device.

    def linear(self, features_in: int, features_out: int, bias: bool = True) -> nn.Linear:
        layer = nn.Linear(features_in, features_out, bias=bias, device=self._generator.device)
        with torch.no_grad():
            layer.weight.copy_(draw((features_out, features_in), self._generator, "normal") / math.sqrt(features_in))
            if bias:
                layer.bias.copy_(0.1 * draw((features_out,), self._generator, "normal"))
        return layer.requires_grad_(False)

    def norm_parameters(self, features: int) -> tuple[nn.Parameter, nn.Parameter]:
        """LayerNorm's weight (near 1) and bias (near 0), never exactly either."""
        weight = 1.0 + 0.1 * draw((features,), self._generator, "normal")
        bias = 0.1 * draw((features,), self._generator, "normal")
        return nn.Parameter(weight, requires_grad=False), nn.Parameter(bias, requires_grad=False)

    def at_dtype(self, dtype: torch.dtype) -> Block:
        """This block with its floating-point parameters rounded to ``dtype`` (a bf16 block's weights): its own
        float64 reference is then computed from the rounded values, as an op's is from its rounded inputs."""
        if dtype == torch.float32:
            return self
        twin = copy.deepcopy(self, memo={id(self._generator): None, id(self._float64): None})
        object.__setattr__(twin, "_float64", None)
        return twin.to(dtype)

    def reference(self, *inputs: torch.Tensor) -> torch.Tensor:
        """The block in float64, each op through its spec's reference (inputs already float64)."""
        if self._float64 is None:
            twin = copy.deepcopy(self, memo={id(self._generator): None})  # a generator cannot be copied
            object.__setattr__(self, "_float64", twin.to(torch.float64))  # not a submodule of its own
        with library.routed("reference"):
            return self._float64(*inputs)


class BlockSpec(OpSpec):
    """A block seen by the op checker: its inputs, its float64 reference, its one case."""

    variants = ("default",)
    # The finite distributions only: the non-finite contract is each op's, and a block's eager baseline fails it
    # on the CPU, where torch's float32 GELU of +inf is NaN (inf in float64 and on CUDA).
    distributions = ("normal", "heavy")

    def __init__(self, block: Block):
        self.block = block
        self.name = block.name
        self.precisions = tuple(library.TOLERANCE)

    def case(self, name: str = "") -> Case:
        return Case(self.name, self.block.size, SUITE, {}, seed=self.block.seed)

    def cases(self) -> list[Case]:
        return [self.case()]

    def make_inputs(self, case, seed, device, distribution="normal"):
        return self.block.make_inputs(seed, device, distribution)

    def validate(self, *inputs) -> None:
        """Nothing of its own: each op the block calls validates its inputs."""

    def reference(self, inputs, variant):
        return self.block.reference(*inputs)


def block_implementation(block_name: str, label: str, precision: str, fn) -> Implementation:
    """One way of running a block (an assignment, a compile) as the checker takes an implementation."""
    return Implementation(op=block_name, family=label, variant="default", precision=precision, fn=fn)

