"""Mage's fused triangle multiplicative update (``triton.pairformer``): the trimul block in three launches, none
of them a relayout.

The block (mage.context.trimul) per op takes 20-odd launches: a LayerNorm, six Linears and their gates, the
triangle op's relayout of a and b, its GEMM, a relayout back, a second LayerNorm. Here:

1. ``_trimul_project_kernel``: a tile of pairs (p, q) of z, all C channels in registers; the input LayerNorm
   in the prologue, the four C × C projections (gate and value of a and of b) as dots on the normalized tile
   (each gate beside its value: one dot of twice the columns), and σ(gate) ⊙ value in the epilogue, stored
   straight into the K-major copies a′[c, i, k], b′[c, j, k] the
   triangle GEMM reads by TMA: for outgoing the pair (p, q) is (i, k), for incoming (k, i), so the store's
   strides absorb the variant and no copy of a or b is made. At bf16 and C ≤ 128, ``triton.pairformer-cublas``
   and ``triton.pairformer-resident`` run it persistent instead, one program an SM holding the four weights in
   shared memory across its tiles, the next tiles' loads in flight while this one's dots run, its gates computed
   on bf16 pairs (``_trimul_project_resident_kernel``: 281 µs against the per-tile kernel's 301 at N 768 on an
   H100); ``triton.pairformer-resident`` runs its output kernel so too (``_trimul_output_resident_kernel``).
2. The triangle op's own batched TMA GEMM (mage.ops.triangle.triton_relayout, as ``triton.relayout3`` runs
   it): t′[c] = a′[c] · b′[c]ᵀ per channel, stored channel-first. ``triton.pairformer-cublas`` (tf32, bf16) has
   cuBLAS's batched GEMM (torch.bmm) take the same a′ and b′ in place, as cuEquivariance's update does: at bf16,
   N 768 cuBLAS's kernel took 182 µs where the Triton GEMM took 239 (H100).
3. ``_trimul_output_kernel``: a tile of pairs (i, j) of t′ (channel-first: each channel's run of j is
   contiguous) and of z; both LayerNorms over the channels in registers (the input's again, rather than a
   stored copy of its gate: reading z costs what reading the gate would, and nothing is written for it), the
   output projection and gate as dots, σ(zₙ·G_oᵀ) ⊙ (tₙ·P_oᵀ) stored channel-last: the relayout back to
   channel-last happens in registers.

DRAM traffic per call: z read twice, a′ and b′ written and read, t′ written and read, out written: 8 · N²C
elements against the per-op block's 20-odd passes. Precision: the dots run at the block's tf32, or tf32x3 for IEEE
accuracy (three TF32 products, as the triangle op's tf32x3), or at bf16 on bf16 operands (z, the weights, a′, b′,
t′ and out bf16: half the bytes), accumulating in float32; LayerNorm statistics in float32 at every precision, and
the gates too but in the resident strategy's kernels, which gate bf16 pairs.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from mage.backends.triton import (INTERPRETED, num_sms, pick_configs, rounded_div, triton_available,
                                  triton_tf32_available)
from mage.context.fusion import fused
from mage.ops.triangle import triton_relayout

EPS = 1e-5  # the layernorm op's (mage.ops.layernorm.spec)
DOT = {"tf32": "tf32", "ieee": "tf32x3", "bf16": "bf16"}  # the block's precision -> the dots' precision
MIN_DOT = 16  # tl.dot's least extent in every dimension
# Shared memory one program may hold on sm_90 (an H100's or H200's 227 KiB): the dots' operand tiles are staged
# there for wgmma, each normalized tile (rows × channels) and each step's weight tile (channels × output columns,
# once per stage), float32, or bf16 at bf16, and twice over at tf32x3 (high and low parts). Compiled for sm_90,
# the kernels take what this counts (tests/test_context_fused.py).
SHARED_BYTES = 227 * 1024
# The gates' sigmoid as two MUFU instructions: Triton's tl.sigmoid divides with div.full.f32 and exponentiates
# with ex2.approx.f32, whose denormal and range fix-ups (FSETP, FSEL) compiled for sm_90 were near a tenth of the
# projection's instructions. The interpreter runs no inline assembly: it takes tl.sigmoid.
FAST_SIGMOID = tl.constexpr(not INTERPRETED)
LOG2_E = tl.constexpr(1.4426950408889634)
# The widest channel row whose four bf16 weights stay resident in one program's shared memory (4 · C² · 2 bytes:
# 128 KiB at 128).
RESIDENT_CHANNELS = 128


def _tile_configs():
    def config(run, across, out, warps, stages=1):
        return triton.Config({"BLOCK_RUN": run, "BLOCK_ACROSS": across, "BLOCK_OUT": out}, num_warps=warps,
                             num_stages=stages)

    # 64–256 pairs a program (the dots' rows, C deep), 32–64 output channels a step (the projection's gate and
    # value side by side: 64–128 columns a dot). A tile's rows run along the index its widest access is contiguous
    # in (a′ and b′ stored, t′ read, channel by channel): runs of 16 pairs make 32-byte pieces of each channel at
    # bf16, runs of 64–256 whole 128-byte lines. Two stages load the next step's weights (cp.async) while this
    # step's dots run. Compiled for sm_90 (ptxas), none spills at bf16, where 128 × 32 at 8 warps takes 114
    # registers a thread (two programs an SM); at tf32 the 4-warp 128-pair, 16 × 8 and 16-warp tiles spill
    # (84–312 bytes), and at tf32x3 (three dots a step) all but the 32-channel steps of 64 × 4 warps and
    # 128 × 8 warps: the autotuner's timing weighs that.
    full = [config(16, 8, 32, 4), config(16, 8, 64, 8), config(64, 2, 64, 8), config(64, 1, 32, 4),
            config(64, 1, 64, 4), config(128, 1, 32, 4), config(128, 1, 32, 8), config(128, 1, 64, 8),
            config(256, 1, 32, 8), config(128, 1, 64, 16), config(64, 1, 32, 4, 2), config(128, 1, 32, 8, 2)]
    # The interpreter's cost is per program: few, large tiles.
    return pick_configs(full, [config(16, 16, 32, 4)])


def staged_bytes(config, operands: int, columns: int, precision: str, channels: int) -> int:
    """The shared memory a kernel's dots stage under ``config``: ``operands`` normalized tiles of its pairs and
    ``columns`` weight tiles of BLOCK_OUT output columns a stage, BLOCK_CH (``channels``) deep."""
    tiles = _pairs(config) * operands + columns * config.kwargs["BLOCK_OUT"] * config.num_stages
    return tiles * channels * (2 if precision == "bf16" else 4) * (2 if precision == "tf32x3" else 1)


def _fits(operands: int, columns: int):
    """An ``early_config_prune`` keeping the configs whose staged tiles fit SHARED_BYTES (``operands`` normalized
    tiles, ``columns`` weight tiles a step)."""

    def prune(configs, named_args, **kwargs):
        args = {**named_args, **kwargs}

        def staged(config):
            return staged_bytes(config, operands, columns, args["PRECISION"], args["BLOCK_CH"])

        return [c for c in configs if staged(c) <= SHARED_BYTES] or [min(configs, key=staged)]

    return prune


# Each kernel's (normalized tiles, weight tiles a step): the projection's gate and value side by side.
PROJECT_TILES, OUTPUT_TILES = (1, 2), (2, 1)


def _pairs(config) -> int:
    return config.kwargs["BLOCK_RUN"] * config.kwargs["BLOCK_ACROSS"]


@triton.jit
def _pair_tile(tile, N, BLOCK_RUN: tl.constexpr, BLOCK_ACROSS: tl.constexpr, P_FASTEST: tl.constexpr = False):
    """Tile ``tile``'s pairs (p, q) of an N × N grid, flattened to rows: (p, q, in range). Rows run BLOCK_RUN long
    along q, or along p with P_FASTEST, BLOCK_ACROSS runs a tile: a store or load whose address is contiguous in
    that index gets runs of it that Triton's compiler can see, so whole 16-byte vectors and sectors (compiled for
    sm_90, incoming's a′ and b′ took 64 two-byte stores a thread at bf16 while its rows ran along q)."""
    tiles_run = tl.cdiv(N, BLOCK_RUN)
    rows = tl.arange(0, BLOCK_RUN * BLOCK_ACROSS)
    along = (tile % tiles_run) * BLOCK_RUN + rows % BLOCK_RUN
    across = (tile // tiles_run) * BLOCK_ACROSS + rows // BLOCK_RUN
    p, q = (along, across) if P_FASTEST else (across, along)
    return p, q, (p < N) & (q < N)


@triton.jit
def _layernorm_rows(x, w_ptr, b_ptr, offs_c, C, EPS, PRECISION: tl.constexpr):
    """Each row of x (ROWS × BLOCK_CH, float32, zero past C) normalized over its C channels, then scaled and
    shifted: the dots' operand, rounded to bf16 once here at bf16."""
    in_c = offs_c < C
    mean = rounded_div(tl.sum(x, axis=1), C)
    centred = tl.where(in_c[None, :], x - mean[:, None], 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centred * centred, axis=1) / C + EPS)
    weight = tl.load(w_ptr + offs_c, mask=in_c, other=0.0).to(tl.float32)
    bias = tl.load(b_ptr + offs_c, mask=in_c, other=0.0).to(tl.float32)
    normalized = centred * rstd[:, None] * weight[None, :] + bias[None, :]
    if PRECISION == "bf16":
        normalized = normalized.to(tl.bfloat16)
    return normalized


@triton.jit
def _sigmoid(x, PRECISION: tl.constexpr):
    """1 / (1 + 2^(−x·log₂e)) by ex2.approx.ftz and rcp.approx.ftz (each within 2 ulp, as tl.sigmoid's are):
    x → −∞ gives 1/∞ = 0, x → ∞ gives 1, NaN stays NaN. At bf16, whose products keep 8 bits, ½ + ½·tanh(x/2) by
    tanh.approx: one MUFU instruction where the other takes two (within 2⁻¹¹ of 1, ±1 at ±∞, NaN stays NaN). On
    an H100 it took the bf16 projection from 311 to 297 µs and the output kernel from 277 to 266 at N 768."""
    if FAST_SIGMOID and PRECISION == "bf16":
        half = tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=f,f", [x * 0.5], dtype=tl.float32,
                                         is_pure=True, pack=1)
        return half * 0.5 + 0.5
    elif FAST_SIGMOID:
        power = tl.inline_asm_elementwise("ex2.approx.ftz.f32 $0, $1;", "=f,f", [x * -LOG2_E], dtype=tl.float32,
                                          is_pure=True, pack=1)
        return tl.inline_asm_elementwise("rcp.approx.ftz.f32 $0, $1;", "=f,f", [power + 1.0], dtype=tl.float32,
                                         is_pure=True, pack=1)
    else:
        return tl.sigmoid(x)


# σ(2h) ⊙ v = (½·tanh(h) + ½) ⊙ v on two bf16 pairs a register: a tanh.approx.bf16x2, an fma.rn.bf16x2 and a
# mul.rn.bf16x2 for two outputs (1056980736 is 0x3F003F00: ½ in both bf16 halves). Compiled for sm_90, the fma and
# mul pair up (HFMA2.BF16_V2, HMUL2.BF16_V2) but the tanh does not: ptxas issues one MUFU.TANH.BF16 a half, as
# many MUFU instructions as the float32 gate's tanh.approx.f32.
PACKED_GATE = tl.constexpr("{ .reg .b32 t, s, h; mov.b32 h, 1056980736; tanh.approx.bf16x2 t, $1; "
                           "fma.rn.bf16x2 s, t, h, h; mul.rn.bf16x2 $0, s, $2; }")


@triton.jit
def _packed_gate(gate, gate_bias, value, value_bias):
    """σ(gate + gate_bias) ⊙ (value + value_bias) as bf16, from float32 accumulators (rows × columns) and float32
    biases (columns): the biases added in float32, then gate and value rounded to bf16 and gated two a register
    (PACKED_GATE). Infinities saturate the gate to 0 or 1 and NaN stays NaN, as in float32. The interpreter runs no
    inline assembly: it gates in float32 and rounds once."""
    if FAST_SIGMOID:
        half_gate = (gate * 0.5 + gate_bias[None, :] * 0.5).to(tl.bfloat16)
        return tl.inline_asm_elementwise(PACKED_GATE, "=r,r,r", [half_gate, (value + value_bias[None, :]).to(
            tl.bfloat16)], dtype=tl.bfloat16, is_pure=True, pack=2)
    else:
        return (tl.sigmoid(gate + gate_bias[None, :]) * (value + value_bias[None, :])).to(tl.bfloat16)


@triton.jit
def _dot(x, w, PRECISION: tl.constexpr):
    """x · w accumulated in float32: at the dots' precision (tf32, tf32x3), or on bf16 operands at bf16."""
    if PRECISION == "bf16":
        return tl.dot(x, w)
    else:
        return tl.dot(x, w, input_precision=PRECISION)


@triton.jit
def _linear(x, w_ptr, b_ptr, offs_k, offs_n, C, PRECISION: tl.constexpr):
    """x · Wᵀ + bias for output channels offs_n, in float32; W is C × C row-major (out, in), as torch's Linear
    holds it (bf16 at bf16, x then bf16 too)."""
    w = tl.load(w_ptr + offs_n[None, :] * C + offs_k[:, None], mask=(offs_k[:, None] < C) & (offs_n[None, :] < C),
                other=0.0)  # BLOCK_CH (in) × BLOCK_OUT (out)
    bias = tl.load(b_ptr + offs_n, mask=offs_n < C, other=0.0).to(tl.float32)
    return _dot(x, w, PRECISION) + bias[None, :]


@triton.jit
def _weight_columns(w_ptr, offs_k, offs_n, C):
    """Output channels offs_n of a C × C weight (out, in) as a dot's operand, input channels offs_k × offs_n: the
    resident output kernel's, loaded once. _linear keeps its own load: through this helper, the per-tile kernel
    compiled to other registers."""
    return tl.load(w_ptr + offs_n[None, :] * C + offs_k[:, None], mask=(offs_k[:, None] < C) & (offs_n[None, :] < C),
                   other=0.0)


@triton.jit
def _gated_weights(g_w, v_w, offs_k, start, C, BLOCK_OUT: tl.constexpr):
    """The weights of the BLOCK_OUT output channels from ``start`` of a gate G and a value V, their columns
    interleaved (gate, value, gate, value, …): one BLOCK_CH × 2·BLOCK_OUT operand, so that one dot reads x once for
    both, and each thread's accumulator holds a gate beside its value."""
    column = tl.arange(0, 2 * BLOCK_OUT)
    out = start + column // 2
    row = out[None, :] * C + offs_k[:, None]
    mask = (offs_k[:, None] < C) & (out[None, :] < C)
    return tl.load(tl.where((column % 2 == 0)[None, :], g_w + row, v_w + row), mask=mask, other=0.0)


@triton.jit
def _gated_bias(g_b, v_b, start, C, BLOCK_OUT: tl.constexpr):
    """The biases of _gated_weights' columns, in float32."""
    column = tl.arange(0, 2 * BLOCK_OUT)
    out = start + column // 2
    return tl.load(tl.where(column % 2 == 0, g_b + out, v_b + out), mask=out < C, other=0.0).to(tl.float32)


@triton.jit
def _gate(x, w, bias, PRECISION: tl.constexpr, BLOCK_OUT: tl.constexpr, PACKED: tl.constexpr = False):
    """σ(x · Gᵀ + g_b) ⊙ (x · Vᵀ + v_b) in float32 from _gated_weights' interleaved operand: one dot, the gates and
    values split in registers; with PACKED (bf16), gated in bf16 pairs by _packed_gate."""
    if PACKED:
        gate, value = tl.split(tl.reshape(_dot(x, w, PRECISION), (x.shape[0], BLOCK_OUT, 2)))
        gate_bias, value_bias = tl.split(tl.reshape(bias, (BLOCK_OUT, 2)))
        return _packed_gate(gate, gate_bias, value, value_bias)
    else:
        gate, value = tl.split(tl.reshape(_dot(x, w, PRECISION) + bias[None, :], (x.shape[0], BLOCK_OUT, 2)))
        return _sigmoid(gate, PRECISION) * value


@triton.jit
def _normalized_pairs(z_ptr, norm_w, norm_b, tile, N, EPS, C: tl.constexpr, PRECISION: tl.constexpr,
                      BLOCK_CH: tl.constexpr, P_FASTEST: tl.constexpr, BLOCK_RUN: tl.constexpr,
                      BLOCK_ACROSS: tl.constexpr):
    """Tile ``tile``'s pairs of z, LayerNorm'd over their channels (the dots' operand), and the pairs (p, q)."""
    p, q, in_grid = _pair_tile(tile, N, BLOCK_RUN, BLOCK_ACROSS, P_FASTEST)
    offs_c = tl.arange(0, BLOCK_CH)
    pair = (p * N + q).to(tl.int64)
    z = tl.load(z_ptr + pair[:, None] * C + offs_c[None, :], mask=in_grid[:, None] & (offs_c[None, :] < C),
                other=0.0).to(tl.float32)
    return _layernorm_rows(z, norm_w, norm_b, offs_c, C, EPS, PRECISION), p, q, in_grid


@triton.jit
def _product_tile(t_ptr, tile, N, t_sc, t_si, t_sj, C: tl.constexpr, BLOCK_CH: tl.constexpr, I_FASTEST: tl.constexpr,
                  BLOCK_RUN: tl.constexpr, BLOCK_ACROSS: tl.constexpr):
    """Tile ``tile``'s pairs (i, j) of t′, all C channels (float32, zero past C), its rows running along the index
    t′ is contiguous in; and the pairs (i, j, in range)."""
    i, j, in_grid = _pair_tile(tile, N, BLOCK_RUN, BLOCK_ACROSS, I_FASTEST)
    offs_c = tl.arange(0, BLOCK_CH)
    where = offs_c[None, :].to(tl.int64) * t_sc + (i.to(tl.int64) * t_si + j.to(tl.int64) * t_sj)[:, None]
    t = tl.load(t_ptr + where, mask=in_grid[:, None] & (offs_c[None, :] < C), other=0.0).to(tl.float32)
    return t, i, j, in_grid


@triton.jit
def _store_channels(ptr, values, p, q, in_grid, start, s_c, s_p, s_q, C: tl.constexpr, BLOCK_OUT: tl.constexpr):
    """values (pairs × BLOCK_OUT) into channels start … start + BLOCK_OUT − 1 of a′ or b′, at c·s_c + p·s_p +
    q·s_q."""
    offs_n = start + tl.arange(0, BLOCK_OUT)
    where = offs_n[None, :].to(tl.int64) * s_c + (p.to(tl.int64) * s_p + q.to(tl.int64) * s_q)[:, None]
    tl.store(ptr + where, values.to(ptr.dtype.element_ty), mask=in_grid[:, None] & (offs_n[None, :] < C))


@triton.autotune(configs=_tile_configs(), key=["N", "C", "P_FASTEST", "PRECISION"],
                 prune_configs_by={"early_config_prune": _fits(*PROJECT_TILES)})
@triton.jit
def _trimul_project_kernel(
    z_ptr,  # N × N × C, contiguous
    norm_w, norm_b,  # the input LayerNorm's, C each
    ga_w, ga_b, pa_w, pa_b, gb_w, gb_b, pb_w, pb_b,  # gate and value of a and b: C × C (out, in) and C
    a_ptr,  # a′: pair (p, q)'s channel c at c·s_c + p·s_p + q·s_q (K-major, rows padded)
    b_ptr,  # b′, the same strides
    N, s_c, s_p, s_q, EPS,
    C: tl.constexpr,  # the channels: a constant, so that every mask past them folds away when C is BLOCK_CH
    PRECISION: tl.constexpr,
    BLOCK_CH: tl.constexpr,  # C rounded up to a power of two (≥ 16): the whole channel row in registers
    P_FASTEST: tl.constexpr,  # a′ and b′ contiguous in p (incoming), not in q (outgoing)
    BLOCK_RUN: tl.constexpr,
    BLOCK_ACROSS: tl.constexpr,
    BLOCK_OUT: tl.constexpr,
):
    zn, p, q, in_grid = _normalized_pairs(z_ptr, norm_w, norm_b, tl.program_id(0), N, EPS, C, PRECISION, BLOCK_CH,
                                          P_FASTEST, BLOCK_RUN, BLOCK_ACROSS)
    offs_c = tl.arange(0, BLOCK_CH)
    for start in range(0, C, BLOCK_OUT):
        # a stored before b is computed: two accumulators live at a time, not four.
        a = _gate(zn, _gated_weights(ga_w, pa_w, offs_c, start, C, BLOCK_OUT),
                  _gated_bias(ga_b, pa_b, start, C, BLOCK_OUT), PRECISION, BLOCK_OUT)
        _store_channels(a_ptr, a, p, q, in_grid, start, s_c, s_p, s_q, C, BLOCK_OUT)
        b = _gate(zn, _gated_weights(gb_w, pb_w, offs_c, start, C, BLOCK_OUT),
                  _gated_bias(gb_b, pb_b, start, C, BLOCK_OUT), PRECISION, BLOCK_OUT)
        _store_channels(b_ptr, b, p, q, in_grid, start, s_c, s_p, s_q, C, BLOCK_OUT)


def _resident_configs():
    def config(run, warps, stages):
        return triton.Config({"BLOCK_RUN": run, "BLOCK_ACROSS": 1, "STAGES": stages}, num_warps=warps)

    # One program an SM: the projection's four weights take 128 KiB of its shared memory at C 128, the output's
    # two 64 KiB. Tiles of 64 or 128 pairs (runs along the contiguous index, as _tile_configs' long runs; fewer
    # rows than a warpgroup's 64 would not run wgmma), two or four warpgroups; STAGES tiles in flight: the next
    # tiles' loads (cp.async into shared memory) are issued before this one's LayerNorm, dots and stores. With two
    # warpgroups an SM holds 8 warps: on an H100 both kernels then issued on a third of cycles, the output kernel
    # waiting on shared memory (short scoreboard 2.05 per issued instruction). Compiled for sm_90 (ptxas), four
    # warpgroups fit 128 registers a thread without a spill at 64 pairs (108 in the projection), and the
    # projection's at 128.
    full = [config(64, 8, 2), config(64, 8, 3), config(64, 8, 4), config(128, 8, 2), config(64, 16, 2),
            config(64, 16, 3), config(128, 16, 2)]
    return pick_configs(full, [triton.Config({"BLOCK_RUN": 16, "BLOCK_ACROSS": 16, "STAGES": 2}, num_warps=4)])


@triton.autotune(configs=_resident_configs(), key=["N", "C", "P_FASTEST"])
@triton.jit
def _trimul_project_resident_kernel(
    z_ptr, norm_w, norm_b, ga_w, ga_b, pa_w, pa_b, gb_w, gb_b, pb_w, pb_b, a_ptr, b_ptr,  # as the projection's
    N, s_c, s_p, s_q, EPS,
    PROGRAMS,  # the grid: this program takes tiles program_id, program_id + PROGRAMS, …
    C: tl.constexpr,
    BLOCK_CH: tl.constexpr,  # at most RESIDENT_CHANNELS
    P_FASTEST: tl.constexpr,
    BLOCK_RUN: tl.constexpr,
    BLOCK_ACROSS: tl.constexpr,
    STAGES: tl.constexpr,  # tiles in flight
):
    """The projection at bf16 with its weights resident: each program loads the four C × C weights once, into
    shared memory (as two halves of output channels each, gate and value side by side), then walks its tiles of
    pairs, STAGES of them in flight, each gate packed (_packed_gate). _trimul_project_kernel loads the weights again
    for every tile: 128 KiB from L2 for each 128 pairs, four times what it reads of z."""
    HALF: tl.constexpr = BLOCK_CH // 2
    offs_c = tl.arange(0, BLOCK_CH)
    wa0 = _gated_weights(ga_w, pa_w, offs_c, 0, C, HALF)
    wa1 = _gated_weights(ga_w, pa_w, offs_c, HALF, C, HALF)
    wb0 = _gated_weights(gb_w, pb_w, offs_c, 0, C, HALF)
    wb1 = _gated_weights(gb_w, pb_w, offs_c, HALF, C, HALF)
    tiles = tl.cdiv(N, BLOCK_RUN) * tl.cdiv(N, BLOCK_ACROSS)
    for tile in tl.range(tl.program_id(0), tiles, PROGRAMS, num_stages=STAGES):
        zn, p, q, in_grid = _normalized_pairs(z_ptr, norm_w, norm_b, tile, N, EPS, C, "bf16", BLOCK_CH, P_FASTEST,
                                              BLOCK_RUN, BLOCK_ACROSS)
        # The biases are read again each tile (from L1): held, they took a hundred registers a thread.
        a0 = _gate(zn, wa0, _gated_bias(ga_b, pa_b, 0, C, HALF), "bf16", HALF, True)
        _store_channels(a_ptr, a0, p, q, in_grid, 0, s_c, s_p, s_q, C, HALF)
        a1 = _gate(zn, wa1, _gated_bias(ga_b, pa_b, HALF, C, HALF), "bf16", HALF, True)
        _store_channels(a_ptr, a1, p, q, in_grid, HALF, s_c, s_p, s_q, C, HALF)
        b0 = _gate(zn, wb0, _gated_bias(gb_b, pb_b, 0, C, HALF), "bf16", HALF, True)
        _store_channels(b_ptr, b0, p, q, in_grid, 0, s_c, s_p, s_q, C, HALF)
        b1 = _gate(zn, wb1, _gated_bias(gb_b, pb_b, HALF, C, HALF), "bf16", HALF, True)
        _store_channels(b_ptr, b1, p, q, in_grid, HALF, s_c, s_p, s_q, C, HALF)


@triton.autotune(configs=_tile_configs(), key=["N", "C", "PRECISION", "I_FASTEST"],
                 prune_configs_by={"early_config_prune": _fits(*OUTPUT_TILES)})
@triton.jit
def _trimul_output_kernel(
    t_ptr,  # t′: channel c of pair (i, j) at c·t_sc + i·t_si + j·t_sj (channel-first: t_sj or t_si is 1)
    z_ptr,  # N × N × C, contiguous
    in_w, in_b, mid_w, mid_b,  # the LayerNorms of z and of t, C each
    go_w, go_b, po_w, po_b,  # the output gate (on zₙ) and projection (on tₙ): C × C (out, in) and C
    out_ptr,  # N × N × C, contiguous
    N, t_sc, t_si, t_sj, EPS,
    C: tl.constexpr,
    PRECISION: tl.constexpr,
    BLOCK_CH: tl.constexpr,
    I_FASTEST: tl.constexpr,  # t′ contiguous in i (the product stored transposed), not in j
    BLOCK_RUN: tl.constexpr,
    BLOCK_ACROSS: tl.constexpr,
    BLOCK_OUT: tl.constexpr,
):
    t, i, j, in_grid = _product_tile(t_ptr, tl.program_id(0), N, t_sc, t_si, t_sj, C, BLOCK_CH, I_FASTEST,
                                     BLOCK_RUN, BLOCK_ACROSS)
    offs_c = tl.arange(0, BLOCK_CH)
    in_c = offs_c[None, :] < C
    tn = _layernorm_rows(t, mid_w, mid_b, offs_c, C, EPS, PRECISION)
    pair = (i * N + j).to(tl.int64)
    z = tl.load(z_ptr + pair[:, None] * C + offs_c[None, :], mask=in_grid[:, None] & in_c, other=0.0).to(tl.float32)
    zn = _layernorm_rows(z, in_w, in_b, offs_c, C, EPS, PRECISION)
    for start in range(0, C, BLOCK_OUT):
        offs_n = start + tl.arange(0, BLOCK_OUT)
        out = _sigmoid(_linear(zn, go_w, go_b, offs_c, offs_n, C, PRECISION), PRECISION) * _linear(
            tn, po_w, po_b, offs_c, offs_n, C, PRECISION)
        tl.store(out_ptr + pair[:, None] * C + offs_n[None, :], out.to(out_ptr.dtype.element_ty),
                 mask=in_grid[:, None] & (offs_n[None, :] < C))


@triton.jit
def _output_half(zn, tn, go_w, po_w, go_b, po_b, pair, in_grid, out_ptr, start, C: tl.constexpr,
                 HALF: tl.constexpr):
    """Output channels start … start + HALF − 1 of a tile: σ(zₙ·G_oᵀ + g_b) ⊙ (tₙ·P_oᵀ + p_b), packed, stored."""
    offs_n = start + tl.arange(0, HALF)
    gate_bias = tl.load(go_b + offs_n, mask=offs_n < C, other=0.0).to(tl.float32)
    value_bias = tl.load(po_b + offs_n, mask=offs_n < C, other=0.0).to(tl.float32)
    out = _packed_gate(_dot(zn, go_w, "bf16"), gate_bias, _dot(tn, po_w, "bf16"), value_bias)
    tl.store(out_ptr + pair[:, None] * C + offs_n[None, :], out, mask=in_grid[:, None] & (offs_n[None, :] < C))


@triton.autotune(configs=_resident_configs(), key=["N", "C", "I_FASTEST"])
@triton.jit
def _trimul_output_resident_kernel(
    t_ptr, z_ptr, in_w, in_b, mid_w, mid_b, go_w, go_b, po_w, po_b, out_ptr,  # as the output kernel's
    N, t_sc, t_si, t_sj, EPS,
    PROGRAMS,  # the grid: this program takes tiles program_id, program_id + PROGRAMS, …
    C: tl.constexpr,
    BLOCK_CH: tl.constexpr,  # at most RESIDENT_CHANNELS
    I_FASTEST: tl.constexpr,
    BLOCK_RUN: tl.constexpr,
    BLOCK_ACROSS: tl.constexpr,
    STAGES: tl.constexpr,  # tiles in flight
):
    """The output kernel at bf16 with its two weights resident in shared memory (each as two halves of output
    channels), walking its tiles of pairs with STAGES of them in flight, its gate packed."""
    HALF: tl.constexpr = BLOCK_CH // 2
    offs_c = tl.arange(0, BLOCK_CH)
    in_c = offs_c[None, :] < C
    first, second = tl.arange(0, HALF), HALF + tl.arange(0, HALF)
    go0, go1 = _weight_columns(go_w, offs_c, first, C), _weight_columns(go_w, offs_c, second, C)
    po0, po1 = _weight_columns(po_w, offs_c, first, C), _weight_columns(po_w, offs_c, second, C)
    tiles = tl.cdiv(N, BLOCK_RUN) * tl.cdiv(N, BLOCK_ACROSS)
    for tile in tl.range(tl.program_id(0), tiles, PROGRAMS, num_stages=STAGES):
        t, i, j, in_grid = _product_tile(t_ptr, tile, N, t_sc, t_si, t_sj, C, BLOCK_CH, I_FASTEST, BLOCK_RUN,
                                         BLOCK_ACROSS)
        tn = _layernorm_rows(t, mid_w, mid_b, offs_c, C, EPS, "bf16")
        pair = (i * N + j).to(tl.int64)
        z = tl.load(z_ptr + pair[:, None] * C + offs_c[None, :], mask=in_grid[:, None] & in_c,
                    other=0.0).to(tl.float32)
        zn = _layernorm_rows(z, in_w, in_b, offs_c, C, EPS, "bf16")
        _output_half(zn, tn, go0, po0, go_b, po_b, pair, in_grid, out_ptr, 0, C, HALF)
        _output_half(zn, tn, go1, po1, go_b, po_b, pair, in_grid, out_ptr, HALF, C, HALF)


def _grid(N):
    return lambda meta: (triton.cdiv(N, meta["BLOCK_RUN"]) * triton.cdiv(N, meta["BLOCK_ACROSS"]),)


def _takes(block) -> str | None:
    return None if block.c <= 256 else f"a pair's {block.c} channels are held in registers: at most 256"


def _channels(C: int) -> int:
    """BLOCK_CH: C rounded up to a power of two, at least tl.dot's least extent."""
    return max(MIN_DOT, triton.next_power_of_2(C))


def _takes_resident(block) -> str | None:
    if _channels(block.c) <= RESIDENT_CHANNELS:
        return None
    return f"the four weights of {block.c} channels do not fit one program's shared memory: at most {RESIDENT_CHANNELS}"


@fused("trimul", family="triton", strategy="pairformer", precisions=("tf32",),
       available=triton_relayout.hopper(triton_tf32_available), takes=_takes)
@fused("trimul", family="triton", strategy="pairformer", precisions=("ieee", "bf16"),
       available=triton_relayout.hopper(triton_available), takes=_takes)
def update(block, z, precision):
    """The block on z (1 × N × N × C, float32; bf16 at bf16, its weights too) in three launches."""
    return pairformer_update(block, z, block.variant, DOT[precision])


@fused("trimul", family="triton", strategy="pairformer-cublas", precisions=("tf32",),
       available=triton_relayout.hopper(triton_tf32_available), takes=_takes)
@fused("trimul", family="triton", strategy="pairformer-cublas", precisions=("bf16",),
       available=triton_relayout.hopper(triton_available), takes=_takes)
def update_cublas(block, z, precision):
    """As ``triton.pairformer``, its triangle GEMM cuBLAS's batched GEMM on the projection's a′ and b′, and at bf16
    its projection resident where the weights fit (the output kernel stays per tile: resident, it was slower)."""
    resident = DOT[precision] == "bf16" and _channels(block.c) <= RESIDENT_CHANNELS
    return pairformer_update(block, z, block.variant, DOT[precision], resident_projection=resident,
                             contraction="cublas")


@fused("trimul", family="triton", strategy="pairformer-resident", precisions=("bf16",),
       available=triton_relayout.hopper(triton_available), takes=_takes_resident)
def update_resident(block, z, precision):
    """As ``triton.pairformer-cublas`` at bf16, its output kernel persistent too: the weights resident in shared
    memory, the next tiles' loads in flight, the gates packed two a register."""
    return pairformer_update(block, z, block.variant, DOT[precision], resident_projection=True, resident_output=True,
                             contraction="cublas")


def pairformer_update(block, z: torch.Tensor, variant: str, dot: str, resident_projection: bool = False,
                      resident_output: bool = False, contraction: str = "triton",
                      transposed_product: bool = False) -> torch.Tensor:
    """The trimul block's output for ``z`` with its dots at ``dot`` (tf32 | tf32x3 | ieee | bf16: z and the
    block's weights then bf16); ``resident_projection``, ``resident_output``: that kernel's weights held in shared
    memory, one program an SM (bf16 and at most RESIDENT_CHANNELS channels only); ``contraction``: the triangle
    GEMM by the Triton TMA kernel or by cuBLAS (``cublas``: tf32 and bf16, under the caller's precision mode);
    ``transposed_product``: the GEMM asked for t′ᵀ = b′·a′ᵀ (the same sums, t′ then contiguous in i), which the
    output kernel reads with its tiles running along i."""
    batch, N, _, C = z.shape
    dtype = torch.bfloat16 if dot == "bf16" else torch.float32
    if batch != 1 or z.dtype != dtype:
        raise ValueError(f"the fused update at {dot} takes one {dtype} pair representation, got {tuple(z.shape)} "
                         f"{z.dtype}")
    if contraction == "cublas" and dot not in ("tf32", "bf16"):
        raise ValueError(f"cuBLAS's contraction runs at tf32 or bf16, got {dot}")
    z = z.contiguous()
    rows = triton_relayout.aligned(N)  # K-major rows padded for TMA, as the triangle op pads them
    a_k = torch.empty((C, N, rows), dtype=z.dtype, device=z.device)
    b_k = torch.empty_like(a_k)
    # (p, q) is (i, k) outgoing, (k, i) incoming: a′[c, i, k] at c·C_stride + i·rows + k either way.
    s_p, s_q = (rows, 1) if variant == "outgoing" else (1, rows)
    channels = _channels(C)
    project_args = (z, block.in_weight, block.in_bias, block.gate_a.weight, block.gate_a.bias, block.proj_a.weight,
                    block.proj_a.bias, block.gate_b.weight, block.gate_b.bias, block.proj_b.weight, block.proj_b.bias,
                    a_k, b_k, N, a_k.stride(0), s_p, s_q, EPS)
    resident = resident_projection or resident_output
    if resident and (dot != "bf16" or channels > RESIDENT_CHANNELS):
        raise ValueError(f"the resident kernels take bf16 and at most {RESIDENT_CHANNELS} channels, got {dot} and {C}")
    programs = num_sms(z.device) if resident else None
    if resident_projection:
        _trimul_project_resident_kernel[(programs,)](*project_args, programs, C=C, BLOCK_CH=channels,
                                                     P_FASTEST=variant == "incoming")
    else:
        _trimul_project_kernel[_grid(N)](*project_args, C=C, PRECISION=dot, BLOCK_CH=channels,
                                         P_FASTEST=variant == "incoming")
    left, right = (b_k, a_k) if transposed_product else (a_k, b_k)
    if contraction == "cublas":
        product = torch.bmm(left[..., :N], right[..., :N].transpose(1, 2)).unsqueeze(0)  # channel-first
    else:
        product = torch.empty((1, C, N, rows), dtype=z.dtype, device=z.device)[..., :N]
        triton_relayout.k_major_product(left, rows, right, rows, product, product.stride(), 1, N, C, dot, True)
    if transposed_product:
        product = product.transpose(2, 3)  # t′[c, i, j], i contiguous
    out = torch.empty_like(z)
    output_args = (product, z, block.in_weight, block.in_bias, block.mid_weight, block.mid_bias, block.gate_out.weight,
                   block.gate_out.bias, block.proj_out.weight, block.proj_out.bias, out, N, product.stride(1),
                   product.stride(2), product.stride(3), EPS)
    if resident_output:
        _trimul_output_resident_kernel[(programs,)](*output_args, programs, C=C, BLOCK_CH=channels,
                                                    I_FASTEST=transposed_product)
    else:
        _trimul_output_kernel[_grid(N)](*output_args, C=C, PRECISION=dot, BLOCK_CH=channels,
                                        I_FASTEST=transposed_product)
    return out
