"""Triangle multiplication, outgoing and incoming, in one launch on the channel-last layout.

For each (batch, channel) the op is an N × N matrix product; the channel is the contiguous
dimension, so a tile that holds a single channel would read 4 bytes out of every 32-byte
sector. Each program therefore owns a BLOCK_C-channel slab of a BLOCK_I × BLOCK_J output tile:
it loads a BLOCK_I × BLOCK_K × BLOCK_C box of a and a BLOCK_K × BLOCK_J × BLOCK_C box of b (rows
of BLOCK_C contiguous floats, one 32-byte sector at BLOCK_C = 8), moves the channel to the front
in registers, and runs one batched tl.dot over the channels. No permuted copy of a or b is made.

The two variants differ only in which index of a and b is the contraction index, so one
kernel serves both through strides: outgoing reads a[b, i, k, c] and b[b, j, k, c], incoming
a[b, k, i, c] and b[b, k, j, c].

Programs sweep every (i, j) tile of one channel slab before the next slab starts, so the slab
of a and b in use (2 · N² · BLOCK_C floats, 16 MiB at N = 512, BLOCK_C = 8) stays in L2.
"""

import triton
import triton.language as tl

from mage.backends.triton import autotune_no_wider, grouped_tile, pick_configs, triton_available, triton_tf32_available, unit_last_stride
from mage.ops.triangle.spec import SPEC, channel_last_only
from mage.outputs import empty_output
from mage.registry import implementation


def _triangle_configs():
    def config(bi, bj, bk, bc, warps, stages):
        return triton.Config(
            {"BLOCK_I": bi, "BLOCK_J": bj, "BLOCK_K": bk, "BLOCK_C": bc, "GROUP_I": 4},
            num_warps=warps,
            num_stages=stages,
        )

    # The accumulator is BLOCK_C · BLOCK_I · BLOCK_J floats (≤ 128 a thread). Compiled for
    # sm_90, none of these spills. ieee (FMA) wants 64 × 64 tiles: the 32 × 32 ones issue one
    # shared load per two FMAs. tf32 (mma.sync: Hopper's wgmma has no batched form) also runs
    # the 32 × 32 ones, whose lower register use buys occupancy. BLOCK_K ≥ 16 (tl.dot's least).
    full = [
        config(64, 64, 16, 8, 8, 3),
        config(64, 64, 16, 4, 4, 3),
        config(64, 64, 16, 4, 4, 4),
        config(64, 64, 32, 4, 8, 3),
        config(64, 32, 32, 8, 8, 2),
        config(32, 32, 16, 8, 4, 3),
        config(32, 32, 16, 16, 8, 3),
    ]
    return pick_configs(full, [config(32, 32, 32, 8, 4, 1)])


@triton.jit
def slab_tile(N, C, BLOCK_I: tl.constexpr, BLOCK_J: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_C: tl.constexpr,
              GROUP_I: tl.constexpr):
    """This program's tile: (batch, offs_i, offs_j, offs_c, offs_k, rows_i, rows_j, c_ok). Rows
    past N read row 0 (their results are never stored), so loads mask only k and c."""
    pid_i, pid_j = grouped_tile(tl.program_id(0), tl.cdiv(N, BLOCK_I), tl.cdiv(N, BLOCK_J), GROUP_I)
    batch = tl.program_id(2).to(tl.int64)
    offs_i = pid_i * BLOCK_I + tl.arange(0, BLOCK_I)
    offs_j = pid_j * BLOCK_J + tl.arange(0, BLOCK_J)
    offs_c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    offs_k = tl.arange(0, BLOCK_K)
    rows_i = tl.where(offs_i < N, offs_i, 0).to(tl.int64)
    rows_j = tl.where(offs_j < N, offs_j, 0).to(tl.int64)
    return batch, offs_i, offs_j, offs_c, offs_k, rows_i, rows_j, offs_c < C


@triton.jit
def store_slab(out_ptr, out, batch, offs_i, offs_j, offs_c, N, C):
    """out (BLOCK_I × BLOCK_J × BLOCK_C) into the channel-last B × N × N × C output, edges masked."""
    out_ptrs = (out_ptr + batch * N * N * C + offs_i[:, None, None].to(tl.int64) * N * C
                + offs_j[None, :, None] * C + offs_c[None, None, :])
    mask = (offs_i < N)[:, None, None] & (offs_j < N)[None, :, None] & (offs_c < C)[None, None, :]
    tl.store(out_ptrs, out, mask=mask)


@autotune_no_wider(_triangle_configs(), key=["N", "C", "PRECISION"], block="BLOCK_C", extent="C", least=4)
@triton.jit
def _triangle_slab_kernel(
    a_ptr,  # B × N × N × C, channel contiguous; row index i, contraction index k per strides
    b_ptr,  # B × N × N × C, channel contiguous; row index j, contraction index k per strides
    out_ptr,  # B × N × N × C, contiguous
    N,
    C,
    a_sb,  # a's stride along the batch
    a_si,  # a's stride along i
    a_sk,  # a's stride along k
    b_sb,
    b_sj,
    b_sk,
    PRECISION: tl.constexpr,
    BLOCK_I: tl.constexpr,
    BLOCK_J: tl.constexpr,
    BLOCK_K: tl.constexpr,
    BLOCK_C: tl.constexpr,
    GROUP_I: tl.constexpr,
):
    batch, offs_i, offs_j, offs_c, offs_k, rows_i, rows_j, c_ok = slab_tile(N, C, BLOCK_I, BLOCK_J, BLOCK_K, BLOCK_C,
                                                                            GROUP_I)
    a_ptrs = (a_ptr + batch * a_sb + rows_i[:, None, None] * a_si
              + offs_k[None, :, None].to(tl.int64) * a_sk + offs_c[None, None, :])
    b_ptrs = (b_ptr + batch * b_sb + offs_k[:, None, None].to(tl.int64) * b_sk
              + rows_j[None, :, None] * b_sj + offs_c[None, None, :])
    acc = tl.zeros((BLOCK_C, BLOCK_I, BLOCK_J), dtype=tl.float32)
    for k in range(0, tl.cdiv(N, BLOCK_K)):
        k_left = N - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_k[None, :, None] < k_left) & c_ok[None, None, :], other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None, None] < k_left) & c_ok[None, None, :], other=0.0)
        # Channels to the front: one BLOCK_I × BLOCK_K by BLOCK_K × BLOCK_J product per channel.
        acc = tl.dot(tl.permute(a, (2, 0, 1)), tl.permute(b, (2, 0, 1)), acc, input_precision=PRECISION)
        a_ptrs += BLOCK_K * a_sk
        b_ptrs += BLOCK_K * b_sk
    store_slab(out_ptr, tl.permute(acc, (1, 2, 0)), batch, offs_i, offs_j, offs_c, N, C)


def launch_channel_last(a, b, variant, launch):
    """Validate a and b, allocate the (poisoned) output, and call ``launch(out, a, b, strides, N, C, B)``
    with the operands channel-contiguous and their (batch, row, contraction) strides in the argument
    order of both Triton triangle kernels. Returns the output."""
    SPEC.validate(a, b)
    B, N, _, C = a.shape
    out = empty_output((B, N, N, C), like=a)
    if out.numel() == 0:
        return out
    a, b = unit_last_stride(a), unit_last_stride(b)
    if variant == "outgoing":  # a[b, i, k, c], b[b, j, k, c]
        order = (0, 1, 2)
    else:  # a[b, k, i, c], b[b, k, j, c]
        order = (0, 2, 1)
    launch(out, a, b, (*(a.stride(d) for d in order), *(b.stride(d) for d in order)), N, C, B)
    return out


@implementation("triangle", family="triton", variants=("outgoing", "incoming"), precisions=("tf32",),
                available=triton_tf32_available, takes=channel_last_only)
@implementation("triangle", family="triton", variants=("outgoing", "incoming"), precisions=("ieee",),
                available=triton_available, takes=channel_last_only)
def triangle(a, b, variant, precision):
    def launch(out, a, b, strides, N, C, B):
        grid = lambda meta: (triton.cdiv(N, meta["BLOCK_I"]) * triton.cdiv(N, meta["BLOCK_J"]),
                             triton.cdiv(C, meta["BLOCK_C"]), B)
        _triangle_slab_kernel[grid](a, b, out, N, C, *strides, PRECISION=precision)

    return launch_channel_last(a, b, variant, launch)
