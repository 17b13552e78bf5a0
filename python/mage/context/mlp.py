"""Transformer MLP block: LayerNorm → Linear(d, 4d) → bias + GELU → Linear(4d, d) → residual.

    h   = layernorm(x)                       x: tokens × d
    out = x + gelu(h · W₁ᵀ + b₁) · W₂ᵀ + b₂  W₁: 4d × d (its bias is bias_gelu's), W₂: d × 4d

GELU is erf GELU, as bias_gelu's spec says. Sizes: GPT-2 small (d 768, 8 × 1024 tokens) and a
7B-class width (d 4096, 4096 tokens).
"""

from __future__ import annotations

import torch
from torch import nn

from mage.context import library
from mage.context.block import Block, sites
from mage.spec import draw, generator

SIZES = {"gpt2-small": (768, 8 * 1024), "7b": (4096, 4096)}
TINY = {"tiny": (16, 12)}


class Mlp(Block):
    family = "mlp"

    def __init__(self, size: str, device: str, seed: int = 768):
        super().__init__(size, seed, device)
        self.d, self.tokens = (SIZES | TINY)[size]
        self.norm_weight, self.norm_bias = self.norm_parameters(self.d)
        self.up = self.linear(self.d, 4 * self.d, bias=False)
        self.up_bias = nn.Parameter(0.1 * draw((4 * self.d,), self._generator, "normal"), requires_grad=False)
        self.down = self.linear(4 * self.d, self.d)

    @property
    def sites(self):
        return sites(("layernorm", "affine", {"rows": self.tokens, "cols": self.d}),
                     ("bias_gelu", "erf", {"rows": self.tokens, "cols": 4 * self.d}))

    def make_inputs(self, seed, device, distribution="normal"):
        return (draw((self.tokens, self.d), generator(seed, device), distribution),)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = library.call("layernorm", "affine", x, self.norm_weight, self.norm_bias)
        h = library.call("bias_gelu", "erf", self.up(h), self.up_bias)
        return x + self.down(h)
