"""Triangle multiplication in tf32 with one 2-D tensor-core product per channel (``triton.split``).

``triton.py`` moves each slab's channels to the front and runs one batched (3-D) tl.dot; Triton
lowers a 3-D dot to mma.sync (Ampere's instruction), never to Hopper's wgmma. Here a program loads
the same coalesced BLOCK × BLOCK_K × 8 boxes (one 32-byte sector per row of 8 channels), splits
them in registers into eight channel tiles (three rounds of tl.split), and runs eight 2-D tl.dots,
which Triton lowers to wgmma on sm_90 (tests/test_triton.py checks the TTGIR). Eight accumulators
replace the batched one; they are joined back into channel-last order for one store.

It is faster than the 3-D kernel at the large size and slower at the seed size; Nsight Compute shows
both kernels latency-bound at low occupancy (measured in results/README.md).
"""

import triton
import triton.language as tl

from mage.backends.triton import pick_configs, triton_tf32_available
from mage.ops.triangle.spec import channel_last_only
from mage.ops.triangle.triton import launch_channel_last, slab_tile, store_slab
from mage.registry import implementation

CHANNELS = 8  # channels a program owns: one 32-byte sector of each row


def _configs():
    def config(bi, bj, bk, warps, stages):
        return triton.Config({"BLOCK_I": bi, "BLOCK_J": bj, "BLOCK_K": bk, "GROUP_I": 4}, num_warps=warps,
                             num_stages=stages)

    # Eight accumulators of BLOCK_I × BLOCK_J floats: 64 × 32 is 128 registers a thread at 4 warps, and the
    # channel split and joins take about as many again. ptxas (sm_90a) puts most of these at 251–255
    # registers, and two spill: 64 × 32 × 32 (556 bytes) and 64 × 32 × 16 at 3 stages (8 bytes). The
    # H200's autotuner chose a spilling 64 × 32 one (ncu: 255 registers, local-memory spills;
    # results/h200/studies/triangle). The 8-warp 64 × 32 × 16 (178 registers) and the 64 × 16 × 16 (180) do not
    # spill and leave room for a second program an SM.
    full = [config(64, 32, 16, 4, 2), config(64, 32, 32, 4, 2), config(64, 64, 16, 4, 2), config(64, 64, 16, 8, 2),
            config(128, 32, 16, 8, 2), config(64, 32, 16, 4, 3), config(64, 32, 16, 8, 2), config(64, 16, 16, 4, 2)]
    return pick_configs(full, [config(16, 16, 16, 4, 1)])


@triton.jit
def split_channels(x):
    """A [R, K, 8] box as its eight [R, K] channel tiles, channel 0 first."""
    rows: tl.constexpr = x.shape[0]
    cols: tl.constexpr = x.shape[1]
    even, odd = tl.split(tl.reshape(x, (rows, cols, 4, 2)))  # channels 0 2 4 6 | 1 3 5 7
    e0, e1 = tl.split(tl.reshape(even, (rows, cols, 2, 2)))  # 0 4 | 2 6
    o0, o1 = tl.split(tl.reshape(odd, (rows, cols, 2, 2)))  # 1 5 | 3 7
    c0, c4 = tl.split(e0)
    c2, c6 = tl.split(e1)
    c1, c5 = tl.split(o0)
    c3, c7 = tl.split(o1)
    return c0, c1, c2, c3, c4, c5, c6, c7


@triton.jit
def join_channels(c0, c1, c2, c3, c4, c5, c6, c7):
    """The inverse of split_channels: eight [R, S] channel tiles as one [R, S, 8] box, channel 0 first
    (joined as [R, S, 2, 2, 2], channel = 4m + 2n + parity)."""
    rows: tl.constexpr = c0.shape[0]
    cols: tl.constexpr = c0.shape[1]
    even = tl.join(tl.join(c0, c4), tl.join(c2, c6))
    odd = tl.join(tl.join(c1, c5), tl.join(c3, c7))
    return tl.reshape(tl.join(even, odd), (rows, cols, 8))


@triton.autotune(configs=_configs(), key=["N", "C"])
@triton.jit
def _triangle_channel_split_kernel(
    a_ptr,  # B × N × N × C, channel contiguous; row index i, contraction index k per strides
    b_ptr,  # B × N × N × C, channel contiguous; row index j, contraction index k per strides
    out_ptr,  # B × N × N × C, contiguous
    N,
    C,
    a_sb,
    a_si,
    a_sk,
    b_sb,
    b_sj,
    b_sk,
    BLOCK_I: tl.constexpr,
    BLOCK_J: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_I: tl.constexpr,
):
    batch, offs_i, offs_j, offs_c, offs_k, rows_i, rows_j, c_ok = slab_tile(N, C, BLOCK_I, BLOCK_J, BLOCK_K, 8, GROUP_I)
    a_ptrs = (a_ptr + batch * a_sb + rows_i[:, None, None] * a_si
              + offs_k[None, :, None].to(tl.int64) * a_sk + offs_c[None, None, :])
    b_ptrs = (b_ptr + batch * b_sb + rows_j[:, None, None] * b_sj
              + offs_k[None, :, None].to(tl.int64) * b_sk + offs_c[None, None, :])
    acc0 = tl.zeros((BLOCK_I, BLOCK_J), dtype=tl.float32)
    acc1 = tl.zeros_like(acc0)
    acc2 = tl.zeros_like(acc0)
    acc3 = tl.zeros_like(acc0)
    acc4 = tl.zeros_like(acc0)
    acc5 = tl.zeros_like(acc0)
    acc6 = tl.zeros_like(acc0)
    acc7 = tl.zeros_like(acc0)
    for k in range(0, tl.cdiv(N, BLOCK_K)):
        k_ok = offs_k[None, :, None] < N - k * BLOCK_K
        a0, a1, a2, a3, a4, a5, a6, a7 = split_channels(tl.load(a_ptrs, mask=k_ok & c_ok[None, None, :], other=0.0))
        b0, b1, b2, b3, b4, b5, b6, b7 = split_channels(tl.load(b_ptrs, mask=k_ok & c_ok[None, None, :], other=0.0))
        acc0 = tl.dot(a0, tl.trans(b0), acc0, input_precision="tf32")
        acc1 = tl.dot(a1, tl.trans(b1), acc1, input_precision="tf32")
        acc2 = tl.dot(a2, tl.trans(b2), acc2, input_precision="tf32")
        acc3 = tl.dot(a3, tl.trans(b3), acc3, input_precision="tf32")
        acc4 = tl.dot(a4, tl.trans(b4), acc4, input_precision="tf32")
        acc5 = tl.dot(a5, tl.trans(b5), acc5, input_precision="tf32")
        acc6 = tl.dot(a6, tl.trans(b6), acc6, input_precision="tf32")
        acc7 = tl.dot(a7, tl.trans(b7), acc7, input_precision="tf32")
        a_ptrs += BLOCK_K * a_sk
        b_ptrs += BLOCK_K * b_sk
    store_slab(out_ptr, join_channels(acc0, acc1, acc2, acc3, acc4, acc5, acc6, acc7), batch, offs_i, offs_j, offs_c, N, C)


@implementation("triangle", family="triton", strategy="split", variants=("outgoing", "incoming"), precisions=("tf32",),
                available=triton_tf32_available, takes=channel_last_only)
def triangle(a, b, variant, precision):
    def launch(out, a, b, strides, N, C, B):
        grid = lambda meta: (triton.cdiv(N, meta["BLOCK_I"]) * triton.cdiv(N, meta["BLOCK_J"]), triton.cdiv(C, CHANNELS), B)
        _triangle_channel_split_kernel[grid](a, b, out, N, C, *strides)

    return launch_channel_last(a, b, variant, launch)
