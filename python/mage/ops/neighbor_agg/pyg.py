"""PyTorch Geometric's aggregation: ``torch_geometric.utils.scatter(..., reduce=...)``, what its message passing
runs for ``aggr="sum"`` and ``aggr="mean"``: each edge's source row gathered (``x.index_select``), then scattered
onto its destination row (``scatter_add_``; the mean divides by a scattered count as well).

PyG holds a graph as edge_index (COO): each call expands the CSR row pointers into the edges' destination rows
first, one repeat_interleave of the edge count, as the eager baseline does; the gather and the scatter are PyG's."""

import torch

from mage.backends.peers import PYG
from mage.ops.neighbor_agg.spec import SPEC
from mage.registry import implementation


@implementation("neighbor_agg", family=PYG.family, variants=("sum", "mean"), available=PYG.available())
def neighbor_agg(rowptr, col, x, variant):
    SPEC.validate(rowptr, col, x)
    scatter = PYG.load("utils").scatter
    rows = rowptr.numel() - 1
    destination = torch.repeat_interleave(torch.arange(rows, device=x.device), rowptr.diff(),
                                          output_size=col.numel())
    return scatter(x.index_select(0, col), destination, dim=0, dim_size=rows, reduce=variant)
