"""Pairformer triangle multiplicative update (AlphaFold 3, Boltz), outgoing or incoming.

    z: 1 × N × N × C pair representation;  zₙ = layernorm(z) over C
    a = σ(zₙ·G_aᵀ) ⊙ (zₙ·P_aᵀ),  b = σ(zₙ·G_bᵀ) ⊙ (zₙ·P_bᵀ)      gated projections
    t = triangle(a, b)                                             outgoing or incoming contraction
    out = σ(zₙ·G_oᵀ) ⊙ (layernorm(t)·P_oᵀ)                         gated output projection

Every projection is a C × C Linear with a bias; the contraction keeps C channels. Sizes: N 384 and
768 at C 128, the pair representation of those models.
"""

from __future__ import annotations

import torch

from mage.context import library
from mage.context.block import Block, sites
from mage.spec import draw, generator

CHANNELS = 128
SIZES = {f"{variant}-{n}": (variant, n, CHANNELS) for variant in ("outgoing", "incoming") for n in (384, 768)}
TINY = {f"{variant}-tiny": (variant, 6, 4) for variant in ("outgoing", "incoming")}


class TriangleUpdate(Block):
    family = "trimul"

    def __init__(self, size: str, device: str, seed: int = 384):
        super().__init__(size, seed, device)
        self.variant, self.n, self.c = (SIZES | TINY)[size]
        self.in_weight, self.in_bias = self.norm_parameters(self.c)
        self.mid_weight, self.mid_bias = self.norm_parameters(self.c)
        self.gate_a, self.proj_a, self.gate_b, self.proj_b, self.gate_out, self.proj_out = (
            self.linear(self.c, self.c) for _ in range(6))

    @property
    def sites(self):
        rows = {"rows": self.n * self.n, "cols": self.c}
        return sites(("layernorm", "affine", rows),
                     ("triangle", self.variant, {"batch": 1, "n": self.n, "c": self.c}),
                     ("layernorm", "affine", rows))

    def make_inputs(self, seed, device, distribution="normal"):
        return (draw((1, self.n, self.n, self.c), generator(seed, device), distribution),)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        pairs = z.reshape(-1, self.c)
        zn = library.call("layernorm", "affine", pairs, self.in_weight, self.in_bias)
        a = torch.sigmoid(self.gate_a(zn)) * self.proj_a(zn)
        b = torch.sigmoid(self.gate_b(zn)) * self.proj_b(zn)
        t = library.call("triangle", self.variant, a.view(z.shape), b.view(z.shape))
        tn = library.call("layernorm", "affine", t.view(-1, self.c), self.mid_weight, self.mid_bias)
        return (torch.sigmoid(self.gate_out(zn)) * self.proj_out(tn)).view(z.shape)
