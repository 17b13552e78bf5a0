"""Triangle multiplication as ``triton.relayout3`` with cuBLAS's batched GEMM (``triton.relayout3-cublas``): Mage's
relayout copies around ``torch.bmm``, at tf32, bf16 and fp16 (cuBLAS has no tf32x3 and no IEEE tensor-core mode).

Why: eager's bmm on channel-first inputs is the fastest product of the B·C channel matrices Mage has timed, faster
than relayout3's Triton TMA GEMM on the same K-major operands (results/README.md, the triangle study). So the
layout is paid for as in relayout3 (a K-major copy of a and b in one launch, a copy of the channel-first product
back to channel-last) and cuBLAS computes the product between them: 3 launches.

The copies and the product can be made a channel group at a time (``group``), each group's three launches
reusing one group's scratch. That is the L2 study of results/README.md: groups whose copies and product fit in
half the L2 were meant to keep them there between launches, and every group smaller than C measured slower than
one group of all C channels, which is what a call runs.
"""

import torch

from mage.backends.triton import triton_available, triton_tf32_available
from mage.ops.triangle.spec import SPEC, channel_last_only
from mage.ops.triangle.triton_relayout import relayout
from mage.outputs import empty_output
from mage.registry import implementation


def grouped_triangle(a: torch.Tensor, b: torch.Tensor, variant: str, group: int | None = None) -> torch.Tensor:
    """The contraction of channel-last a and b, ``group`` channels at a time (all C when None), each group copied
    K-major, contracted by cuBLAS (under the caller's precision mode) and copied back."""
    SPEC.validate(a, b)
    B, N, _, C = a.shape
    out = empty_output((B, N, N, C), like=a)
    if out.numel() == 0:
        return out
    group = min(group or C, C)
    # One group's scratch, reused by every group: the K-major copies and the channel-first product, channel
    # b·g + c of a group of g at index b·g + c.
    a_k = torch.empty((B * group, N, N), dtype=a.dtype, device=a.device)
    b_k, product = torch.empty_like(a_k), torch.empty_like(a_k)
    # (batch, row, k, channel): outgoing a[b, i, k, c], b[b, j, k, c]; incoming a[b, k, i, c], b[b, k, j, c].
    dims = (0, 1, 2, 3) if variant == "outgoing" else (0, 2, 1, 3)
    for start in range(0, C, group):
        g = min(group, C - start)
        channels = slice(start, start + g)
        a_g, b_g, p_g = a_k[: B * g], b_k[: B * g], product[: B * g]
        as_channel_last = lambda t: t.view(B, g, N, N).permute(0, 2, 3, 1)  # noqa: E731  (logical B × row × k × g)
        relayout([(a.permute(dims)[..., channels], as_channel_last(a_g)),
                  (b.permute(dims)[..., channels], as_channel_last(b_g))])
        torch.bmm(a_g, b_g.transpose(1, 2), out=p_g)
        relayout([(as_channel_last(p_g), out[..., channels])])
    return out


# No TMA here: the relayout kernel and cuBLAS run on any CUDA device.
@implementation("triangle", family="triton", strategy="relayout3-cublas", variants=("outgoing", "incoming"),
                precisions=("tf32",), available=triton_tf32_available, takes=channel_last_only)
@implementation("triangle", family="triton", strategy="relayout3-cublas", variants=("outgoing", "incoming"),
                precisions=("bf16", "fp16"), available=triton_available, takes=channel_last_only)
def triangle_cublas(a, b, variant):
    """relayout3's copies around cuBLAS's batched GEMM: 3 launches."""
    return grouped_triangle(a, b, variant)
