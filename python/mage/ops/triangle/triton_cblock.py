"""Triangle multiplication with channel blocks, one launch on the channel-last layout, at every precision
(``triton.cblock``): ieee, tf32, tf32x3, and bf16/fp16 (16-bit operands and output, float32 accumulation).

A program owns (batch, a BLOCK_I row tile, a BLOCK_J column tile, BLOCK_C channels). Per k step it loads
a BLOCK_I × BLOCK_K × BLOCK_C box of a and a BLOCK_J × BLOCK_K × BLOCK_C box of b with the channel
innermost: each (row, k) gives BLOCK_C contiguous elements, so the loads are vectors; at 8 fp32 or 16
16-bit channels that is one whole 32-byte sector, and no byte L2 sends an SM is wasted. Configs with
fewer channels trade that for larger i × j tiles: L2 sends them a whole sector for every row of a half
or a quarter of one (the rest of each sector, read from DRAM with it, waits in L2 for the next slab). What
the tiling reuses, and where:
- registers: each loaded element of a feeds BLOCK_J products and each of b BLOCK_I (the intensity of a
  matmul tile, 2·BI·BJ/(BI + BJ) flops a loaded element), with BLOCK_C accumulators of BI × BJ live;
  the accumulators (BLOCK_C · BI · BJ floats, 8–32 K a program here) are what bounds the tile.
- L2: programs run slab by slab (a slab is BLOCK_C channels, all (i, j) tiles), so a slab of a and b
  (2 · N² · BLOCK_C elements, 16 MiB at N 512 and 8 fp32 channels) is fetched from DRAM about once and
  then read from L2 by every tile that needs it; inside a slab GROUP_I row tiles sweep the columns
  together (grouped_tile), so the a panel in use is shared by neighbouring programs.

Two ways to feed the tensor cores per channel, chosen by the autotuner (``PRODUCT`` is part of each
config, so the GPU run measures both and keeps the faster):
- ``batched``: the channel moved to the front in registers (a permutation, no data moves) and one 3-D
  tl.dot over [BC, BI, BK] × [BC, BK, BJ]. Triton lowers a 3-D dot to mma.sync (Ampere's instruction;
  tests/test_triangle.py checks it in the sm_90 TTGIR): Hopper's wgmma has no batched form.
- ``split``: the box split in registers into its eight channel tiles (triton_split.split_channels;
  each thread holds all eight channels of its elements, so the split moves no data) and eight 2-D
  tl.dots, which Triton lowers to wgmma on sm_90 (also checked there), each followed by a wait for it
  (warp_group_dot_wait, pendings 0, in the TTGIR): the eight do not overlap. Eight channels only.
The accumulators are permuted (batched) or joined (split) back to channel-last order in registers and
stored in one pass.

Edges: rows past N read row 0 (never stored); k past N and channels past C load zeros.
"""

import triton
import triton.language as tl

from mage.backends.triton import pick_configs, triton_available, triton_tf32_available
from mage.ops.triangle.spec import channel_last_only
from mage.ops.triangle.triton import launch_channel_last, slab_tile, store_slab
from mage.ops.triangle.triton_split import join_channels, split_channels
from mage.registry import implementation
from mage.spec import input_dtype

# The dot's input_precision per precision: it names how fp32 operands are multiplied; 16-bit operands
# go to the tensor cores whatever it says (as in matmul's Triton kernels).
DOT_PRECISION = {"bf16": "tf32", "fp16": "tf32"}

# (PRODUCT, BLOCK_I, BLOCK_J, BLOCK_K, BLOCK_C, num_warps, num_stages) per operand width: every one
# compiles for sm_90 without spilling (ptxas; tests/test_triangle.py checks it). Accumulators: 8 K
# floats a program at 4 warps, 16 K at 8 (64 a thread); the 16-bit 64 × 64 split holds 32 K.
# Two batched configs a width run unpipelined (num_stages 1): their operands then reach the dot through
# Triton's register-to-shared layout conversion instead of the cp.async buffer, which the sm_90 TTGIR
# shows unswizzled with the channel innermost (vec 1, maxPhase 1): there the lanes of an mma fragment
# read words BLOCK_K · BLOCK_C apart, a multiple of the 32 banks, so they share banks. Which costs more,
# the conflicts or the unhidden load latency, is for the H200's autotuner (and ncu) to say.
_FP32_CONFIGS = [
    ("batched", 64, 64, 16, 4, 8, 3), ("batched", 32, 32, 32, 8, 4, 3), ("batched", 64, 32, 16, 8, 8, 3),
    ("batched", 64, 32, 16, 8, 8, 1), ("batched", 64, 64, 16, 4, 8, 1), ("batched", 64, 64, 32, 2, 4, 3),
    ("split", 64, 32, 16, 8, 8, 2), ("split", 64, 32, 16, 8, 8, 3),
]
# 16-bit boxes are half the bytes: 16 channels fill a sector, and K steps of 32 fit the same shared memory.
_HALF_CONFIGS = [
    ("batched", 64, 64, 32, 4, 8, 3), ("batched", 32, 32, 32, 16, 8, 3), ("batched", 64, 32, 32, 8, 8, 3),
    ("batched", 64, 32, 32, 8, 8, 1), ("batched", 64, 64, 32, 4, 8, 1), ("split", 64, 32, 32, 8, 8, 3),
    ("split", 64, 64, 32, 8, 8, 2),
]


def _configs(element_bytes: int) -> list[triton.Config]:
    def config(product, bi, bj, bk, bc, warps, stages):
        return triton.Config({"PRODUCT": product, "BLOCK_I": bi, "BLOCK_J": bj, "BLOCK_K": bk, "BLOCK_C": bc,
                              "GROUP_I": 4}, num_warps=warps, num_stages=stages)

    shapes = _FP32_CONFIGS if element_bytes == 4 else _HALF_CONFIGS
    # The interpreter runs one config: the split product, whose channel bookkeeping is the subtler.
    return pick_configs([config(*shape) for shape in shapes], [config("split", 32, 32, 16, 8, 4, 1)])


def _kernel(element_bytes: int):
    # The operand width picks the config list, so each width has its own autotuned kernel; a_si in the
    # key tunes outgoing (i strided by N·C) and incoming (i strided by C: rows of BI·BC contiguous) apart.
    @triton.autotune(configs=_configs(element_bytes), key=["N", "C", "a_si", "PRECISION"])
    @triton.jit
    def _triangle_cblock_kernel(
        a_ptr,  # B × N × N × C, channel contiguous; row index i, contraction index k per strides
        b_ptr,  # B × N × N × C, channel contiguous; row index j, contraction index k per strides
        out_ptr,  # B × N × N × C, contiguous, of a's dtype
        N,
        C,
        a_sb,
        a_si,
        a_sk,
        b_sb,
        b_sj,
        b_sk,
        PRECISION: tl.constexpr,  # the dot's input_precision
        PRODUCT: tl.constexpr,  # "batched" (one 3-D dot) or "split" (eight 2-D dots; BLOCK_C 8)
        BLOCK_I: tl.constexpr,
        BLOCK_J: tl.constexpr,
        BLOCK_K: tl.constexpr,
        BLOCK_C: tl.constexpr,
        GROUP_I: tl.constexpr,
    ):
        batch, offs_i, offs_j, offs_c, offs_k, rows_i, rows_j, c_ok = slab_tile(N, C, BLOCK_I, BLOCK_J, BLOCK_K,
                                                                                BLOCK_C, GROUP_I)
        # Both boxes [rows, k, channels]: the channel innermost, as in memory.
        a_ptrs = (a_ptr + batch * a_sb + rows_i[:, None, None] * a_si
                  + offs_k[None, :, None].to(tl.int64) * a_sk + offs_c[None, None, :])
        b_ptrs = (b_ptr + batch * b_sb + rows_j[:, None, None] * b_sj
                  + offs_k[None, :, None].to(tl.int64) * b_sk + offs_c[None, None, :])
        if PRODUCT == "batched":
            acc = tl.zeros((BLOCK_C, BLOCK_I, BLOCK_J), dtype=tl.float32)
        else:
            tl.static_assert(BLOCK_C == 8, "the split product splits eight channels")
            acc0 = tl.zeros((BLOCK_I, BLOCK_J), dtype=tl.float32)
            acc1 = tl.zeros_like(acc0)
            acc2 = tl.zeros_like(acc0)
            acc3 = tl.zeros_like(acc0)
            acc4 = tl.zeros_like(acc0)
            acc5 = tl.zeros_like(acc0)
            acc6 = tl.zeros_like(acc0)
            acc7 = tl.zeros_like(acc0)
        for k in range(0, tl.cdiv(N, BLOCK_K)):
            ok = (offs_k[None, :, None] < N - k * BLOCK_K) & c_ok[None, None, :]
            a = tl.load(a_ptrs, mask=ok, other=0.0)
            b = tl.load(b_ptrs, mask=ok, other=0.0)
            if PRODUCT == "batched":
                # [BC, BI, BK] × [BC, BK, BJ]: one product per channel.
                acc = tl.dot(tl.permute(a, (2, 0, 1)), tl.permute(b, (2, 1, 0)), acc, input_precision=PRECISION)
            else:
                a0, a1, a2, a3, a4, a5, a6, a7 = split_channels(a)
                b0, b1, b2, b3, b4, b5, b6, b7 = split_channels(b)
                acc0 = tl.dot(a0, tl.trans(b0), acc0, input_precision=PRECISION)
                acc1 = tl.dot(a1, tl.trans(b1), acc1, input_precision=PRECISION)
                acc2 = tl.dot(a2, tl.trans(b2), acc2, input_precision=PRECISION)
                acc3 = tl.dot(a3, tl.trans(b3), acc3, input_precision=PRECISION)
                acc4 = tl.dot(a4, tl.trans(b4), acc4, input_precision=PRECISION)
                acc5 = tl.dot(a5, tl.trans(b5), acc5, input_precision=PRECISION)
                acc6 = tl.dot(a6, tl.trans(b6), acc6, input_precision=PRECISION)
                acc7 = tl.dot(a7, tl.trans(b7), acc7, input_precision=PRECISION)
            a_ptrs += BLOCK_K * a_sk
            b_ptrs += BLOCK_K * b_sk
        if PRODUCT == "batched":
            out = tl.permute(acc, (1, 2, 0))
        else:
            out = join_channels(acc0, acc1, acc2, acc3, acc4, acc5, acc6, acc7)
        store_slab(out_ptr, out.to(out_ptr.dtype.element_ty), batch, offs_i, offs_j, offs_c, N, C)

    return _triangle_cblock_kernel


_KERNELS = {element_bytes: _kernel(element_bytes) for element_bytes in (4, 2)}


@implementation("triangle", family="triton", strategy="cblock", variants=("outgoing", "incoming"),
                precisions=("tf32",), available=triton_tf32_available, takes=channel_last_only)
@implementation("triangle", family="triton", strategy="cblock", variants=("outgoing", "incoming"),
                precisions=("ieee", "tf32x3", "bf16", "fp16"), available=triton_available, takes=channel_last_only)
def triangle(a, b, variant, precision):
    kernel = _KERNELS[input_dtype(precision).itemsize]

    def launch(out, a, b, strides, N, C, B):
        grid = lambda meta: (triton.cdiv(N, meta["BLOCK_I"]) * triton.cdiv(N, meta["BLOCK_J"]),
                             triton.cdiv(C, meta["BLOCK_C"]), B)
        kernel[grid](a, b, out, N, C, *strides, PRECISION=DOT_PRECISION.get(precision, precision))

    return launch_channel_last(a, b, variant, launch)
