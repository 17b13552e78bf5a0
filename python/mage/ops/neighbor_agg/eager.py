import torch

from mage.backends.compiled import with_compiled
from mage.registry import implementation


# index_add_, advanced indexing and repeat_interleave all accept int32 indices in torch 2.11
# (CPU and CUDA), so the graph's own index dtype is used as given, without conversion.
@with_compiled
@implementation("neighbor_agg", family="eager", variants=("sum", "mean"), baseline=True)
def neighbor_agg(rowptr, col, x, variant):
    n = rowptr.numel() - 1
    degree = rowptr.diff()
    rows = torch.repeat_interleave(torch.arange(n, device=x.device), degree, output_size=col.numel())
    out = torch.zeros(n, x.shape[1], dtype=x.dtype, device=x.device).index_add_(0, rows, x[col])
    if variant == "mean":
        out = out / degree.clamp(min=1).unsqueeze(1)
    return out
