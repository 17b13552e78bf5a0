"""cuSPARSE's CSR SpMM through ``torch.sparse.mm``: what a user reaches for instead of a kernel.

The adjacency matrix's values are materialized per call, as a user would: all ones for the sum, 1/degree of its
row for the mean (a row without edges has no entries, so its mean is 0). int32 and int64 indices are passed
through as they are.
"""

import torch

from mage.ops.neighbor_agg.spec import SPEC
from mage.registry import implementation


def cuda_only(device: str) -> str | None:
    if device != "cuda":
        return "torch.sparse.mm calls cuSPARSE only on CUDA; on the CPU it is a different library"
    return None


def edge_weights(rowptr, col, x, variant):
    """Each edge's weight in the product: 1, or 1/degree of its row for the mean."""
    if variant == "sum":
        return torch.ones(col.numel(), dtype=x.dtype, device=x.device)
    degree = rowptr.diff()
    return torch.repeat_interleave(degree.clamp(min=1).to(x.dtype).reciprocal(), degree, output_size=col.numel())


@implementation("neighbor_agg", family="cusparse", variants=("sum", "mean"), available=cuda_only)
def neighbor_agg(rowptr, col, x, variant):
    SPEC.validate(rowptr, col, x)
    # The CSR structure is the harness's to check (SPEC.validate_values), once, before any call.
    adjacency = torch.sparse_csr_tensor(
        rowptr, col, edge_weights(rowptr, col, x, variant), size=(rowptr.numel() - 1, x.shape[0]),
        check_invariants=False,
    )
    return torch.sparse.mm(adjacency, x)
