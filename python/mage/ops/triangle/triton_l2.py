"""Triangle multiplication with its relayout held in L2 (``triton.relayout-l2``, ``triton.relayout-l2-cublas``):
``triton.relayout3``'s three launches, made for one group of channels at a time, each group small enough that
its K-major copies and its product stay in L2 between the launches that write and read them.

Why (results/README.md, the triangle study): profiled at N 512 tf32, more than half of relayout3's time moves the
layout through DRAM. The K-major copies of a and b are written to DRAM and read back by the GEMM (268 MB each way at
N 512 C 128 float32), and the channel-first product likewise (134 MB). A group of g channels needs
3 · B · N · N′ · itemsize · g bytes of copies and product (3 MiB a channel at N 512 float32). Sized to half the
L2, and reused by every group, those bytes move between L2 and the SMs: DRAM sees a, b and the output once,
402 MB at N 512 against relayout3's 938. The streamed sides are marked evict-first (the loads of a and b, the
stores of the output) and the group's copies evict-last, so that the stream does not push them out.

For each group, three launches:
1. one relayout launch copies the group's channels of a and b K-major. A channel-last tensor is then read in runs
   of g channels: a group is a whole number of 32-byte sectors (8 float32 or 16 16-bit channels) wherever L2 holds
   that many;
2. the GEMM writes the group's product channel-first: Mage's Triton TMA GEMM (every precision), or cuBLAS's
   batched GEMM in ``-cublas`` (tf32, bf16 and fp16: it has no tf32x3 and no IEEE tensor-core mode);
3. one relayout launch copies the product into the group's channels of the output.

That is 3 · ⌈C / g⌉ launches a call (48 at N 512 C 128 float32), a cost Mage reports as launches and host time,
and which the graph path removes.
"""

import torch

from mage.backends.triton import triton_available, triton_tf32_available
from mage.ops.triangle.spec import SPEC, channel_last_only
from mage.ops.triangle.triton_relayout import aligned, hopper, k_major_product, relayout
from mage.outputs import empty_output
from mage.registry import implementation

SECTOR = 32  # bytes: a group's channels make whole sectors of a channel-last row
L2_SHARE = 0.5  # of the L2 a group's copies and product may fill; the rest holds the streamed sides in flight


def l2_bytes(device: torch.device) -> int:
    """The device's L2 size; 0 on the CPU, which has none to size the groups for."""
    if device.type != "cuda":
        return 0
    return torch.cuda.get_device_properties(device).L2_cache_size


def channel_group(B: int, N: int, C: int, itemsize: int, l2: int) -> int:
    """Channels a group: the most whole sectors of channels whose copies and product fit in ``L2_SHARE`` of ``l2``
    bytes, never fewer than a sector's channels (fewer would read a and b in part-sectors), never more than C."""
    sector = SECTOR // itemsize
    per_channel = 3 * B * N * aligned(N) * itemsize
    fitting = int(L2_SHARE * l2) // per_channel // sector * sector
    return min(C, max(sector, fitting))


def grouped_triangle(a: torch.Tensor, b: torch.Tensor, variant: str, precision: str, contraction: str,
                     group: int | None = None, hints: bool = True) -> torch.Tensor:
    """The contraction of channel-last a and b, ``group`` channels at a time (``channel_group``'s when None), the
    GEMM by ``contraction`` (``triton`` | ``cublas``: tf32, bf16, fp16, under the caller's precision mode);
    ``hints``: the L2 eviction policies above (off only to measure what they buy)."""
    SPEC.validate(a, b)
    B, N, _, C = a.shape
    out = empty_output((B, N, N, C), like=a)
    if out.numel() == 0:
        return out
    group = group or channel_group(B, N, C, a.element_size(), l2_bytes(a.device))
    rows = aligned(N)
    # Scratch for one group, reused by every group: the K-major copies (channel b·g + c at rows (b·g + c)·N …) and
    # the channel-first product, its rows padded as the copies' for the Triton GEMM's TMA stores.
    a_k = torch.empty((B * group, N, rows), dtype=a.dtype, device=a.device)
    b_k = torch.empty_like(a_k)
    product = torch.empty((B * group, N, N if contraction == "cublas" else rows), dtype=a.dtype, device=a.device)
    # (batch, row, k, channel): outgoing a[b, i, k, c], b[b, j, k, c]; incoming a[b, k, i, c], b[b, k, j, c].
    dims = (0, 1, 2, 3) if variant == "outgoing" else (0, 2, 1, 3)
    stream, keep = ("evict_first", "evict_last") if hints else ("", "")
    for start in range(0, C, group):
        g = min(group, C - start)
        channels = slice(start, start + g)
        a_g, b_g, p_g = a_k[: B * g], b_k[: B * g], product[: B * g]
        as_channel_last = lambda t: t.view(B, g, N, t.shape[-1])[..., :N].permute(0, 2, 3, 1)
        relayout([(a.permute(dims)[..., channels], as_channel_last(a_g)),
                  (b.permute(dims)[..., channels], as_channel_last(b_g))], load_evict=stream, store_evict=keep)
        if contraction == "cublas":
            torch.bmm(a_g[..., :N], b_g[..., :N].transpose(1, 2), out=p_g)
        else:
            p_4d = p_g.view(B, g, N, rows)[..., :N]
            k_major_product(a_g, rows, b_g, rows, p_4d, p_4d.stride(), B, N, g, precision, channel_first=True)
        relayout([(as_channel_last(p_g), out[..., channels])], load_evict=keep, store_evict=stream)
    return out


@implementation("triangle", family="triton", strategy="relayout-l2", variants=("outgoing", "incoming"),
                precisions=("tf32",), available=hopper(triton_tf32_available), takes=channel_last_only)
@implementation("triangle", family="triton", strategy="relayout-l2", variants=("outgoing", "incoming"),
                precisions=("ieee", "tf32x3", "bf16", "fp16"), available=hopper(triton_available),
                takes=channel_last_only)
def triangle_l2(a, b, variant, precision):
    """relayout3 a channel group at a time, the group's copies and product held in L2: 3 launches a group."""
    return grouped_triangle(a, b, variant, precision, "triton")


# No TMA here: the relayout kernel and cuBLAS run on any CUDA device.
@implementation("triangle", family="triton", strategy="relayout-l2-cublas", variants=("outgoing", "incoming"),
                precisions=("tf32",), available=triton_tf32_available, takes=channel_last_only)
@implementation("triangle", family="triton", strategy="relayout-l2-cublas", variants=("outgoing", "incoming"),
                precisions=("bf16", "fp16"), available=triton_available, takes=channel_last_only)
def triangle_l2_cublas(a, b, variant, precision):
    """As ``triton.relayout-l2``, each group's GEMM cuBLAS's batched GEMM: 3 launches a group."""
    return grouped_triangle(a, b, variant, precision, "cublas")
