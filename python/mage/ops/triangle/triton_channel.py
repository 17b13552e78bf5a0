"""Triangle multiplication with one 2-D tl.dot per channel, on any layout (``triton.channel``).

A program owns one channel c of one BLOCK_I × BLOCK_J tile of (i, j) and walks k in steps of
BLOCK_K: out[:, :, c] = A_c · B_cᵀ, with A_c(i, k) and B_c(j, k) read through a's and b's strides,
so the same kernel reads every layout of spec.py (channel-last, channel-first, channel-first
transposed). Each step is a [BLOCK_I, BLOCK_K] × [BLOCK_K, BLOCK_J] product, the 2-D dot Triton
lowers to Hopper's wgmma (tests/test_triton.py checks the sm_90 compile), with one
BLOCK_I × BLOCK_J accumulator: the tile sizes of a matmul, not of a channel slab.

What each layout gives it to reuse, and the program order chosen for it:
- channel-first (either): A_c and B_c are dense N × N matrices, so the kernel is a batched matmul.
  Programs sweep every tile of a channel before the next channel, grouped GROUP_I row-tiles at
  a time (grouped_tile), so the row panels of A_c and B_c in use (2 · N · BLOCK · 4 bytes per
  group) are read from DRAM once and from L2 by the tiles that share them. Where k is contiguous
  the loads are vectors along k; where the row index is, along i and j (the dot's operands then
  arrive transposed, M- or N-major).
- channel-last: an element of A_c is 4 bytes of a 32-byte sector that holds 8 channels. Programs
  are ordered channel fastest, so the C programs of one (i, j) tile run side by side, and a sector
  fetched from DRAM for channel c is read from L2 by the programs of the 7 channels beside it:
  DRAM reads each byte about once, but L2 sends every SM whole sectors for single floats, 8× the
  bytes its dots use. That traffic is what this layout costs the kernel (the layout experiment).

The caller who holds channel-last tensors would pay the transposition to channel-first once per
tensor (read and write N²C floats each); the spec makes it when the inputs are drawn, outside the
timed call, so the layout cases time the contraction alone. Edges: rows past N read row 0 (never
stored); k past N loads zeros.
"""

import triton
import triton.language as tl

from mage.backends.triton import grouped_tile, pick_configs, triton_available, triton_tf32_available
from mage.ops.triangle.spec import SPEC
from mage.outputs import empty_output
from mage.registry import implementation


def _configs():
    def config(bi, bj, bk, warps, stages):
        return triton.Config({"BLOCK_I": bi, "BLOCK_J": bj, "BLOCK_K": bk, "GROUP_I": 8}, num_warps=warps,
                             num_stages=stages)

    # Matmul tiles: one accumulator of BLOCK_I × BLOCK_J floats (64 registers a thread at 128 × 128 with
    # 8 warps). Three, since each layout and precision compiles its own (a few seconds of a run each).
    full = [config(128, 128, 32, 8, 3), config(128, 64, 32, 4, 4), config(64, 64, 32, 4, 4)]
    # The interpreter's cost is per program: 64 × 64 tiles keep the seed case (64 channels) to 256.
    return pick_configs(full, [config(64, 64, 32, 4, 1)])


@triton.autotune(configs=_configs(), key=["N", "C", "a_si", "a_sk", "a_sc", "b_sj", "b_sk", "PRECISION"])
@triton.jit
def _triangle_channel_kernel(
    a_ptr,  # B × N × N × C in any layout: a[b, i, k, c] at b·a_sb + i·a_si + k·a_sk + c·a_sc
    b_ptr,  # likewise b[b, j, k, c]
    out_ptr,  # B × N × N × C, contiguous (channel-last)
    N,
    C,
    a_sb,
    a_si,
    a_sk,
    a_sc,
    b_sb,
    b_sj,
    b_sk,
    b_sc,
    PRECISION: tl.constexpr,
    CHANNEL_FASTEST: tl.constexpr,  # program order: the channels of a tile side by side, or a channel's tiles
    BLOCK_I: tl.constexpr,
    BLOCK_J: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_I: tl.constexpr,
):
    tiles_i, tiles_j = tl.cdiv(N, BLOCK_I), tl.cdiv(N, BLOCK_J)
    pid = tl.program_id(0)
    if CHANNEL_FASTEST:
        channel, tile = pid % C, pid // C
    else:
        channel, tile = pid // (tiles_i * tiles_j), pid % (tiles_i * tiles_j)
    pid_i, pid_j = grouped_tile(tile, tiles_i, tiles_j, GROUP_I)
    batch = tl.program_id(1).to(tl.int64)
    channel = channel.to(tl.int64)
    offs_i = pid_i * BLOCK_I + tl.arange(0, BLOCK_I)
    offs_j = pid_j * BLOCK_J + tl.arange(0, BLOCK_J)
    offs_k = tl.arange(0, BLOCK_K)
    rows_i = tl.where(offs_i < N, offs_i, 0).to(tl.int64)
    rows_j = tl.where(offs_j < N, offs_j, 0).to(tl.int64)
    a_ptrs = a_ptr + batch * a_sb + channel * a_sc + rows_i[:, None] * a_si + offs_k[None, :].to(tl.int64) * a_sk
    b_ptrs = b_ptr + batch * b_sb + channel * b_sc + offs_k[:, None].to(tl.int64) * b_sk + rows_j[None, :] * b_sj
    acc = tl.zeros((BLOCK_I, BLOCK_J), dtype=tl.float32)
    for k in range(0, tl.cdiv(N, BLOCK_K)):
        k_left = N - k * BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)  # [BLOCK_I, BLOCK_K] of A_c
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)  # [BLOCK_K, BLOCK_J] of B_cᵀ
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_ptrs += BLOCK_K * a_sk
        b_ptrs += BLOCK_K * b_sk
    out_ptrs = (out_ptr + batch * N * N * C + offs_i[:, None].to(tl.int64) * N * C
                + offs_j[None, :].to(tl.int64) * C + channel)
    tl.store(out_ptrs, acc, mask=(offs_i < N)[:, None] & (offs_j < N)[None, :])


@implementation("triangle", family="triton", strategy="channel", variants=("outgoing", "incoming"),
                precisions=("tf32",), available=triton_tf32_available)
@implementation("triangle", family="triton", strategy="channel", variants=("outgoing", "incoming"),
                precisions=("ieee", "tf32x3"), available=triton_available)
def triangle(a, b, variant, precision):
    SPEC.validate(a, b)
    B, N, _, C = a.shape
    out = empty_output((B, N, N, C), like=a)
    if out.numel() == 0:
        return out
    # (batch, row, contraction, channel) strides: outgoing reads a[b, i, k, c], incoming a[b, k, i, c].
    order = (0, 1, 2, 3) if variant == "outgoing" else (0, 2, 1, 3)
    a_strides, b_strides = ([t.stride(d) for d in order] for t in (a, b))
    channel_fastest = a.stride(3) == 1 and b.stride(3) == 1
    grid = lambda meta: (C * triton.cdiv(N, meta["BLOCK_I"]) * triton.cdiv(N, meta["BLOCK_J"]), B)
    _triangle_channel_kernel[grid](a, b, out, N, C, *a_strides, *b_strides, PRECISION=precision,
                                   CHANNEL_FASTEST=channel_fastest)
    return out
