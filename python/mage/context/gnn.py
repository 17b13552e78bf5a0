"""GNN layer, GraphSAGE-mean style: neighbor_agg (mean) → Linear(F, F) → bias + GELU.

    h[i] = mean of x[j] over i's neighbours j      the CSR graph of neighbor_agg's spec
    out  = gelu(h · Wᵀ + b)                        W: F × F (its bias is bias_gelu's)

Graphs come from neighbor_agg's generators through its spec (ops/neighbor_agg/graphs.py): the large
power-law graph of its large case (1 M nodes, 16 M edges) and an R-MAT graph of the same size
(Graph500 parameters, scale 20, edge factor 16), F 128.
"""

from __future__ import annotations

import torch
from torch import nn

from mage import registry
from mage.context import library
from mage.context.block import Block, sites
from mage.spec import draw

FEATURES = 128
SIZES = {
    "powerlaw": ({"graph": "powerlaw", "nodes": 1 << 20, "edges": 16 << 20}, FEATURES, (1 << 20) * 31 + 16),
    "rmat": ({"graph": "rmat", "nodes": 1 << 20, "scale": 20, "edge_factor": 16}, FEATURES, 20 * 31 + 16),
}
TINY = {
    "powerlaw-tiny": ({"graph": "powerlaw", "nodes": 64, "edges": 320}, 8, 64 * 31 + 5),
    "rmat-tiny": ({"graph": "rmat", "nodes": 64, "scale": 6, "edge_factor": 4}, 8, 6 * 31 + 4),
}


class GnnLayer(Block):
    family = "gnn"

    def __init__(self, size: str, device: str, seed: int = 128):
        super().__init__(size, seed, device)
        graph, self.features, self.graph_seed = (SIZES | TINY)[size]
        self.graph_params = {**graph, "features": self.features, "index": "int64"}
        self.linear_layer = self.linear(self.features, self.features, bias=False)
        self.bias = nn.Parameter(0.1 * draw((self.features,), self._generator, "normal"), requires_grad=False)

    @property
    def sites(self):
        return sites(("neighbor_agg", "mean", self.graph_params, self.graph_seed),
                     ("bias_gelu", "erf", {"rows": self.graph_params["nodes"], "cols": self.features}))

    def make_inputs(self, seed, device, distribution="normal"):
        # The spec's own inputs: the graph its case's seed fixes, and features fresh from ``seed``.
        return registry.get_op("neighbor_agg").make_inputs(self.sites[0].case(self.name), seed, device, distribution)

    def forward(self, rowptr: torch.Tensor, col: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        h = library.call("neighbor_agg", "mean", rowptr, col, x)
        return library.call("bias_gelu", "erf", self.linear_layer(h), self.bias)
