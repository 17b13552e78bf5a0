"""cuSPARSE's CSR SpMM through ``torch.sparse.mm``: what a user reaches for instead of a kernel.

The adjacency matrix gets all-ones values (materialized per call, as a user would), so the
product is the neighbor sum. int32 and int64 indices are passed through as they are.
"""

import torch

from mage.ops.neighbor_agg.spec import SPEC
from mage.registry import implementation


def cuda_only(device: str) -> str | None:
    if device != "cuda":
        return "torch.sparse.mm calls cuSPARSE only on CUDA; on the CPU it is a different library"
    return None


@implementation("neighbor_agg", family="cusparse", variants=("sum",), available=cuda_only)
def neighbor_agg(rowptr, col, x):
    SPEC.validate(rowptr, col, x)
    ones = torch.ones(col.numel(), dtype=x.dtype, device=x.device)
    # The CSR structure is the harness's to check (SPEC.validate_values), once, before any call.
    adjacency = torch.sparse_csr_tensor(
        rowptr, col, ones, size=(rowptr.numel() - 1, x.shape[0]), check_invariants=False
    )
    return torch.sparse.mm(adjacency, x)
