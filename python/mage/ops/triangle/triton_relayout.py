"""Triangle multiplication as a relayout and a batched TMA GEMM (``triton.relayout``, ``triton.relayout3``):
two or three launches, not one, at every precision (ieee, tf32, tf32x3, bf16, fp16).

Why (results/README.md, the triangle study): eager's bmm on channel-first inputs takes a sixth of its channel-last
call, and every one-launch channel-last Triton kernel so far is slower than eager and issue-bound at a few
per cent of the tensor pipe. The tensor cores are fed well only from K-major tiles in shared memory, which
a channel-last tensor (each channel's matrix strided by C) cannot give TMA. So the layout is paid for
once, in a copy, and the product runs as the GEMM it is:

1. ``_triangle_relayout_kernel`` (one launch for a and b): a strided 4-D copy of [rows, k, channels]
   boxes into K-major copies a′[b·C + c, row, k], b′ likewise (B·C matrices of N × N, rows padded to 16
   elements so TMA can address them). A box is read with the channel innermost (whole sectors of the
   channel-last tensor) and written with k innermost; Triton's coalescing gives the load and the store
   each its own layout and moves the box between them through shared memory: the tiled transpose that
   eager's permute copies do in separate launches. For incoming the row is i = dimension 2 and k
   dimension 1 (a′[c, i, k] = a[k, i, c]): the copy absorbs the difference and the GEMM is the same.
   Operands that already lie K-major (channel-first with k contiguous, B·C·N rows of N) skip it.
2. ``_triangle_gemm_kernel``: a persistent TMA + wgmma GEMM over the B·C channels, out_g = a′_g · b′_gᵀ,
   both operands K-major (what a tf32 wgmma reads). Tiles of BLOCK_M × BLOCK_N reuse each a′ slab across
   BLOCK_N columns and each b′ slab across BLOCK_M rows, from swizzled shared memory over num_stages TMA
   buffers (as matmul's triton.persistent). Programs walk CHANNEL_GROUP channels side by side inside
   each tile of a grouped tile order: the channels in flight share DRAM sectors of the channel-last
   output (8 fp32 channels a sector), and a′/b′ of the channels in flight (2 · N² · 4 bytes each, 2 MiB at
   N 512) stay in L2 for all their tiles.
   - ``relayout`` (2 launches): the epilogue stores the tile straight into the channel-last output, each
     element 4 bytes at a stride of C; neighbouring channels' programs, scheduled together, fill the
     rest of each sector in L2 before it is written back.
   - ``relayout3`` (3 launches): the epilogue stores the tile channel-first through TMA (asynchronously,
     into rows padded as a′'s), and the relayout kernel copies that back to channel-last: 2 · B·N²·C more
     bytes of traffic, against the scattered 4-byte stores of the direct epilogue. Measured, the copy
     costs less (results/README.md, the triangle study).
Launches per call are a boundary Mage reports, so the comparison with one-launch kernels stays honest.
"""

import functools

import torch
import triton
import triton.testing
import triton.language as tl

from mage.backends.triton import (grouped_tile, num_sms, pick_configs, tma_ready, triton_available,
                                  triton_tf32_available, use_descriptor_workspace)
from mage.ops.triangle.spec import SPEC
from mage.ops.triangle.triton_cblock import DOT_PRECISION
from mage.outputs import empty_output
from mage.registry import implementation
from mage.spec import input_dtype

ROW_ALIGN = 16  # elements a K-major copy's rows are padded to: 16-byte aligned rows (TMA) at every dtype
# Autotuning times each config over 20 ms, not Triton's 100: a run tunes a key per case, variant and layout,
# and 20 ms is still 20 calls or more of the N 1024 product.
QUICK_BENCH = functools.partial(triton.testing.do_bench, warmup=5, rep=20)


def _relayout_configs():
    def config(br, bk, bc, warps):
        return triton.Config({"BLOCK_R": br, "BLOCK_K": bk, "BLOCK_C": bc}, num_warps=warps)

    # Boxes of 8–16 K elements (32–64 KiB of shared memory for the transpose). Channel-last to K-major and
    # back: 32 channels and 32 k make both sides 128-byte runs. Channel-first-transposed (rows contiguous)
    # to K-major transposes each channel's matrix: few channels, square row × k boxes.
    # At N 512 the 16 × 32 × 32 box at 8 warps (64 elements a thread) held 128 registers a thread: 2 programs
    # an SM, 75 % of DRAM peak (tf32, on an H200). 32 elements a thread (8 warps on 8192-element boxes) take 58–78
    # (sm_90 compiles), so twice the programs fit an SM, each with its load in flight while others store; a
    # 64-channel box makes 256-byte channel runs.
    full = [config(8, 32, 32, 4), config(4, 64, 32, 4), config(16, 32, 32, 8), config(32, 32, 8, 4),
            config(64, 64, 2, 8), config(8, 32, 32, 8), config(4, 64, 32, 8), config(4, 32, 64, 8)]
    # The interpreter's cost is per program: one large box keeps the seed case to a few dozen programs
    # (tests/test_triangle_relayout.py sets small boxes to cover the edges).
    return pick_configs(full, [config(16, 64, 64, 4)])


@triton.jit
def _copy_box(src_ptr, dst_ptr, R, K, C, s_b, s_r, s_k, s_c, d_b, d_r, d_k, d_c,
              BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_C: tl.constexpr):
    """This program's [BLOCK_R, BLOCK_K, BLOCK_C] box of src (logical B × R × K × C, any strides) into dst."""
    tiles_k = tl.cdiv(K, BLOCK_K)
    tiles_c = tl.cdiv(C, BLOCK_C)
    pid = tl.program_id(0)
    offs_c = (pid % tiles_c) * BLOCK_C + tl.arange(0, BLOCK_C)
    offs_k = ((pid // tiles_c) % tiles_k) * BLOCK_K + tl.arange(0, BLOCK_K)
    offs_r = (pid // (tiles_c * tiles_k)) * BLOCK_R + tl.arange(0, BLOCK_R)
    batch = tl.program_id(2).to(tl.int64)
    r = offs_r[:, None, None].to(tl.int64)
    k = offs_k[None, :, None].to(tl.int64)
    c = offs_c[None, None, :].to(tl.int64)
    mask = (r < R) & (k < K) & (c < C)
    box = tl.load(src_ptr + batch * s_b + r * s_r + k * s_k + c * s_c, mask=mask)
    tl.store(dst_ptr + batch * d_b + r * d_r + k * d_k + c * d_c, box, mask=mask)


@triton.autotune(configs=_relayout_configs(), key=["R", "K", "C", "s_r", "s_k", "s_c", "d_k", "d_c"],
                 do_bench=QUICK_BENCH)
@triton.jit
def _triangle_relayout_kernel(
    src0_ptr,  # logical B × R × K × C, strides (s_b, s_r, s_k, s_c)
    dst0_ptr,  # logical B × R × K × C, strides (d_b, d_r, d_k, d_c)
    src1_ptr,  # a second pair with the same strides (program_id(1) == 1), or the first again, unread
    dst1_ptr,
    R,
    K,
    C,
    s_b,
    s_r,
    s_k,
    s_c,
    d_b,
    d_r,
    d_k,
    d_c,
    BLOCK_R: tl.constexpr,
    BLOCK_K: tl.constexpr,
    BLOCK_C: tl.constexpr,
):
    # Two branches rather than a selected pointer, so that each keeps its argument's alignment.
    if tl.program_id(1) == 0:
        _copy_box(src0_ptr, dst0_ptr, R, K, C, s_b, s_r, s_k, s_c, d_b, d_r, d_k, d_c, BLOCK_R, BLOCK_K, BLOCK_C)
    else:
        _copy_box(src1_ptr, dst1_ptr, R, K, C, s_b, s_r, s_k, s_c, d_b, d_r, d_k, d_c, BLOCK_R, BLOCK_K, BLOCK_C)


# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages, CHANNEL_GROUP) per operand kind. tf32: matmul's
# persistent tiles (128 × 256 and 128 × 128, BLOCK_K 32, 3–4 stages: ≤ 147 KiB); one config walks the
# channels one at a time (CHANNEL_GROUP 1) to show what grouping them buys. 8 warps are two warpgroups,
# each issuing wgmma on its own 64 rows (128 × 128: 64 × 128 each; 128 × 256, the CUTLASS Hopper tile:
# 64 × 256 each), where the autotuner's earlier 4-warp choice fed the tensor pipe from one (52 % active at N 512 tf32). The
# channel-first epilogue stages its TMA store in BLOCK_M × BLOCK_N × 4 bytes of shared memory beside the
# stages (sm_90 compiles: 128 × 128 at 4 stages 192 KiB, at 3 stages 160 KiB), so 128 × 256 fits it only at
# BLOCK_K 16 (4 stages of 24 KiB, 224 KiB); the autotuner skips what does not fit (128 × 256 at BLOCK_K 32
# is for the channel-last epilogue). tf32x3 runs three dots a step (Triton's own split), so 128 × 128 at
# most. 16-bit: BLOCK_K 64 in the same shared memory, and 16 channels side by side (a 32-byte sector holds 16);
# 128 × 128 also at 5 and 6 stages (196 and 229 KiB with the epilogue's buffers), as deep as cuBLAS's own bf16
# kernel for this product (nvjet 128 × 128 × 64, 6 stages) keeps its loads in flight. ieee: FMA dots, whose
# operand fragments spill past 64 × 64 × 16 at 4 warps or 128 × 64 × 16 at 8. Compiled for sm_90 (ptxas), none of
# these spills.
GEMM_SHAPES = {
    "tf32": [(128, 128, 32, 8, 4, 8), (128, 256, 32, 8, 3, 8), (128, 256, 16, 8, 4, 8), (128, 128, 32, 8, 3, 8),
             (128, 128, 32, 4, 4, 8), (128, 128, 32, 8, 4, 1)],
    "tf32x3": [(128, 128, 32, 8, 3, 8), (128, 64, 32, 4, 3, 8)],
    "16-bit": [(128, 128, 64, 8, 4, 16), (128, 256, 64, 8, 3, 16), (128, 128, 64, 8, 4, 8), (128, 128, 64, 8, 5, 16),
               (128, 128, 64, 8, 6, 16)],
    "ieee": [(64, 64, 16, 4, 3, 8), (128, 64, 16, 8, 2, 8)],
}


def _gemm_configs(kind: str):
    def config(bm, bn, bk, warps, stages, group):
        return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "CHANNEL_GROUP": group, "GROUP_M": 4},
                             num_warps=warps, num_stages=stages)

    # The interpreter's config: few, large tiles (tests/test_triangle_relayout.py sets small ones).
    return pick_configs([config(*shape) for shape in GEMM_SHAPES[kind]], [config(128, 128, 128, 4, 1, 8)])


def _gemm_kernel(kind: str):
    # The epilogue in the key: the channel-last one (stride C) and the channel-first one (TMA) tune apart.
    @triton.autotune(configs=_gemm_configs(kind), key=["N", "C", "G", "o_sj", "PRECISION", "TMA_EPILOGUE"],
                     do_bench=QUICK_BENCH)
    @triton.jit
    def _triangle_gemm_kernel(
        a_ptr,  # G·N × N (row stride a_rows): a′, K-major, channel g's rows g·N … g·N + N − 1
        b_ptr,  # G·N × N (row stride b_rows): b′, likewise
        out_ptr,  # out[b, i, j, c] at b·o_sb + c·o_sc + i·o_si + j·o_sj, of a's dtype (TMA_EPILOGUE: o_sb C·o_sc)
        N,
        C,
        G,  # B · C channels
        a_rows,
        b_rows,
        o_sb,
        o_sc,
        o_si,
        o_sj,
        NUM_SMS: tl.constexpr,
        PRECISION: tl.constexpr,  # the dot's input_precision
        TMA_EPILOGUE: tl.constexpr,  # channel-first out (o_sj 1, 16-byte aligned rows): TMA stores
        BLOCK_M: tl.constexpr,
        BLOCK_N: tl.constexpr,
        BLOCK_K: tl.constexpr,
        CHANNEL_GROUP: tl.constexpr,
        GROUP_M: tl.constexpr,
    ):
        # Boxes past the last row or past N columns arrive zero-filled. Rows past a channel's N read the
        # next channel's: they feed only rows i ≥ N or columns j ≥ N of the tile, which are never stored.
        a_desc = tl.make_tensor_descriptor(a_ptr, [G * N, N], [a_rows, 1], [BLOCK_M, BLOCK_K])
        b_desc = tl.make_tensor_descriptor(b_ptr, [G * N, N], [b_rows, 1], [BLOCK_N, BLOCK_K])
        if TMA_EPILOGUE:
            # One N × N matrix a channel: the box is clipped at each channel's edges (and at channel G).
            o_desc = tl.make_tensor_descriptor(out_ptr, [G, N, N], [o_sc, o_si, 1], [1, BLOCK_M, BLOCK_N // 2])
        num_pid_m = tl.cdiv(N, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        tiles = num_pid_m * num_pid_n
        k_tiles = tl.cdiv(N, BLOCK_K)
        work = tl.cdiv(G, CHANNEL_GROUP) * tiles * CHANNEL_GROUP
        for item in tl.range(tl.program_id(0), work, NUM_SMS, flatten=True):
            # item → (channel group, tile, channel within the group): the group's channels fastest.
            in_group = item % (tiles * CHANNEL_GROUP)
            channel = (item // (tiles * CHANNEL_GROUP)) * CHANNEL_GROUP + in_group % CHANNEL_GROUP
            pid_m, pid_n = grouped_tile(in_group // CHANNEL_GROUP, num_pid_m, num_pid_n, GROUP_M)
            # Channels past G (a last, part-full group) load zero-filled boxes and store nothing.
            g = channel
            row_a = g * N + pid_m * BLOCK_M
            row_b = g * N + pid_n * BLOCK_N
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for k in range(k_tiles):
                a = a_desc.load([row_a, k * BLOCK_K])
                b = b_desc.load([row_b, k * BLOCK_K]).T
                acc = tl.dot(a, b, acc, input_precision=PRECISION)
            if TMA_EPILOGUE:
                # Asynchronous stores (Triton's pipeliner waits on one only before its buffer's next use): the
                # next tile's loads and dots start while this one drains, where a register-to-global
                # epilogue stalls the SM's one program. In two halves, as the persistent matmul tutorial's
                # subtiles: one tile-sized store is given two tile-sized buffers (sm_90: 64 KiB more).
                left, right = tl.split(tl.permute(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1)))
                o_desc.store([g, pid_m * BLOCK_M, pid_n * BLOCK_N], left.to(out_ptr.dtype.element_ty)[None, :, :])
                o_desc.store([g, pid_m * BLOCK_M, pid_n * BLOCK_N + BLOCK_N // 2],
                             right.to(out_ptr.dtype.element_ty)[None, :, :])
            else:
                offs_i = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
                offs_j = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
                base = out_ptr + (g // C).to(tl.int64) * o_sb + (g % C).to(tl.int64) * o_sc
                ptrs = base + offs_i[:, None].to(tl.int64) * o_si + offs_j[None, :] * o_sj
                mask = (offs_i[:, None] < N) & (offs_j[None, :] < N) & (channel < G)
                tl.store(ptrs, acc.to(out_ptr.dtype.element_ty), mask=mask)

    return _triangle_gemm_kernel


# One autotuned kernel object per operand kind, each with its own config list and tuning cache.
GEMM_KERNELS = {kind: _gemm_kernel(kind) for kind in GEMM_SHAPES}


def gemm_kind(precision: str) -> str:
    """Which config list a precision's GEMM is tuned over."""
    return "16-bit" if input_dtype(precision).itemsize == 2 else precision


def hopper(rule):
    """``rule``, and on CUDA a device with TMA (sm_90 or newer): the GEMM's descriptors need it."""

    def available(device: str) -> str | None:
        reason = rule(device)
        if reason is None and device == "cuda" and torch.cuda.get_device_capability()[0] < 9:
            return "its TMA descriptors need sm_90 or newer"
        return reason

    return available


def aligned(n: int) -> int:
    """A row of n elements padded to ROW_ALIGN."""
    return triton.cdiv(n, ROW_ALIGN) * ROW_ALIGN


def _k_major(operands, dims):
    """Each operand as (tensor, row stride) of a G·N × N K-major matrix: itself where it already lies so
    (channel-first with k contiguous, rows 16-byte aligned: the relayout is skipped), else a copy, made by
    one relayout launch for all that need it. ``dims``: the operands' (batch, row, k, channel) dimensions."""
    B, N, _, C = operands[0].shape
    ready, pairs = [], []
    for t in operands:
        view = t.permute(dims)  # logical B × row × k × C
        if view.permute(0, 3, 1, 2).is_contiguous() and tma_ready(view.permute(0, 3, 1, 2).reshape(B * C * N, N)):
            ready.append((t, N))
            continue
        copy = torch.empty((B * C, N, aligned(N)), dtype=t.dtype, device=t.device)
        pairs.append((view, copy.view(B, C, N, -1)[..., :N].permute(0, 2, 3, 1)))
        ready.append((copy, copy.stride(1)))
    if pairs:
        relayout(pairs)
    return ready


def relayout(pairs):
    """Copy each (src, dst) pair of logical B × R × K × C views (any strides): both in one launch where
    their strides match, else one launch each."""
    (src, dst), *rest = pairs
    together = bool(rest) and (rest[0][0].stride(), rest[0][1].stride()) == (src.stride(), dst.stride())
    if rest and not together:
        relayout(rest)
    src1, dst1 = rest[0] if together else (src, dst)
    B, R, K, C = src.shape
    boxes = lambda meta: (triton.cdiv(R, meta["BLOCK_R"]) * triton.cdiv(K, meta["BLOCK_K"])
                          * triton.cdiv(C, meta["BLOCK_C"]))
    grid = lambda meta: (boxes(meta), 2 if together else 1, B)
    _triangle_relayout_kernel[grid](src, dst, src1, dst1, R, K, C, *src.stride(), *dst.stride())


def k_major_product(a_k, a_rows, b_k, b_rows, product, o_strides, B, N, C, precision, channel_first):
    """The GEMM launch: out_g = a′_g · b′_gᵀ for the B·C channels of K-major a′, b′ (rows of a_rows, b_rows
    elements), into ``product`` at (batch, channel, i, j) strides ``o_strides``: channel-first through TMA
    (rows padded as a′'s) or straight into a channel-last tensor."""
    kernel = GEMM_KERNELS[gemm_kind(precision)]
    G = B * C
    sms = num_sms(a_k.device)
    grid = lambda meta: (min(sms, triton.cdiv(G, meta["CHANNEL_GROUP"]) * meta["CHANNEL_GROUP"]
                             * triton.cdiv(N, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"])),)
    use_descriptor_workspace(a_k.device)
    kernel[grid](a_k, b_k, product, N, C, G, a_rows, b_rows, *o_strides, NUM_SMS=sms,
                 PRECISION=DOT_PRECISION.get(precision, precision), TMA_EPILOGUE=channel_first)


def _triangle(a, b, variant, precision, out_channel_first):
    SPEC.validate(a, b)
    B, N, _, C = a.shape
    out = empty_output((B, N, N, C), like=a)
    if out.numel() == 0:
        return out
    # (batch, row, k, channel): outgoing a[b, i, k, c], b[b, j, k, c]; incoming a[b, k, i, c], b[b, k, j, c].
    dims = (0, 1, 2, 3) if variant == "outgoing" else (0, 2, 1, 3)
    (a_k, a_rows), (b_k, b_rows) = _k_major((a, b), dims)
    # The epilogue's (batch, channel, i, j) strides: straight into channel-last out, or a channel-first
    # B × C × N × N product (rows padded as a′'s, for its TMA stores) that one more relayout launch copies back.
    product = (torch.empty((B, C, N, aligned(N)), dtype=a.dtype, device=a.device)[..., :N] if out_channel_first
               else out)
    o_strides = product.stride() if out_channel_first else (out.stride(0), out.stride(3), out.stride(1), out.stride(2))
    k_major_product(a_k, a_rows, b_k, b_rows, product, o_strides, B, N, C, precision, out_channel_first)
    if out_channel_first:
        relayout([(product.permute(0, 2, 3, 1), out)])
    return out


@implementation("triangle", family="triton", strategy="relayout", variants=("outgoing", "incoming"),
                precisions=("tf32",), available=hopper(triton_tf32_available))
@implementation("triangle", family="triton", strategy="relayout", variants=("outgoing", "incoming"),
                precisions=("ieee", "tf32x3", "bf16", "fp16"), available=hopper(triton_available))
def triangle(a, b, variant, precision):
    """Relayout and the GEMM, its epilogue writing channel-last: 2 launches (1 on K-major inputs)."""
    return _triangle(a, b, variant, precision, out_channel_first=False)


@implementation("triangle", family="triton", strategy="relayout3", variants=("outgoing", "incoming"),
                precisions=("tf32",), available=hopper(triton_tf32_available))
@implementation("triangle", family="triton", strategy="relayout3", variants=("outgoing", "incoming"),
                precisions=("ieee", "tf32x3", "bf16", "fp16"), available=hopper(triton_available))
def triangle_relayout3(a, b, variant, precision):
    """Relayout, the GEMM writing channel-first, and a relayout back to channel-last: 3 launches (2 on K-major
    inputs)."""
    return _triangle(a, b, variant, precision, out_channel_first=True)
