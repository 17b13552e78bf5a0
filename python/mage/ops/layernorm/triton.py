"""LayerNorm in one launch: each program keeps BLOCK_R whole rows in registers.

A row is read once and written once. Statistics are two-pass in registers (the mean, then the
mean of squared deviations), which avoids E[x²] − E[x]²'s cancellation at no memory cost.
weight and bias are loaded once per program and reused for its BLOCK_R rows. Rows wider than
MAX_FUSED_COLS do not fit in registers: they are streamed in chunks, with chunk statistics
combined by Chan's parallel formula, and then read a second time to normalize.
"""

import triton
import triton.language as tl

from mage.backends.triton import pick_configs, prune_wider_than, triton_available
from mage.ops.layernorm.spec import EPS, SPEC
from mage.outputs import empty_output
from mage.registry import implementation

# Widest row kept whole in registers (64 KiB per row; 16 warps hold 32 floats a thread).
MAX_FUSED_COLS = 16384


def _layernorm_configs():
    # BLOCK_R × BLOCK_C stays near 4–16 K floats a program; pruning drops configs whose tile
    # would exceed that for the actual row width.
    full = [
        triton.Config({"BLOCK_R": r}, num_warps=w)
        for r in (1, 2, 4, 8, 16)
        for w in (4, 8, 16)
    ]
    return pick_configs(full, [triton.Config({"BLOCK_R": 16}, num_warps=4)])


def _tile_limit(args):
    # Keep BLOCK_R · BLOCK_C ≤ 16 K elements (64 regs a thread at 8 warps) but allow one row.
    return max(1, 16384 // args["BLOCK_C"])


@triton.autotune(
    configs=_layernorm_configs(),
    key=["rows", "cols"],
    prune_configs_by={"early_config_prune": prune_wider_than("BLOCK_R", _tile_limit)},
)
@triton.jit
def _layernorm_fused_kernel(
    x_ptr,  # rows × cols, row stride x_stride
    w_ptr,  # cols
    b_ptr,  # cols
    out_ptr,  # rows × cols, contiguous
    rows,
    cols,
    x_stride,
    eps,
    BLOCK_R: tl.constexpr,
    BLOCK_C: tl.constexpr,  # next power of two ≥ cols: the whole row
):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.arange(0, BLOCK_C)
    row_ok = r < rows
    col_ok = c < cols
    mask = row_ok[:, None] & col_ok[None, :]
    r64 = r.to(tl.int64)
    x = tl.load(x_ptr + r64[:, None] * x_stride + c[None, :], mask=mask, other=0.0)
    mean = tl.sum(x, axis=1) / cols
    centered = tl.where(mask, x - mean[:, None], 0.0)
    var = tl.sum(centered * centered, axis=1) / cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + c, mask=col_ok, other=0.0)
    b = tl.load(b_ptr + c, mask=col_ok, other=0.0)
    out = centered * rstd[:, None] * w[None, :] + b[None, :]
    tl.store(out_ptr + r64[:, None] * cols + c[None, :], out, mask=mask)


def _layernorm_chunked_configs():
    full = [triton.Config({"BLOCK_C": c}, num_warps=w) for c in (2048, 4096, 8192) for w in (4, 8, 16)]
    return pick_configs(full, [triton.Config({"BLOCK_C": 16}, num_warps=4)])


@triton.autotune(configs=_layernorm_chunked_configs(), key=["rows", "cols"])
@triton.jit
def _layernorm_chunked_kernel(
    x_ptr,  # rows × cols, row stride x_stride
    w_ptr,  # cols
    b_ptr,  # cols
    out_ptr,  # rows × cols, contiguous
    rows,
    cols,
    x_stride,
    eps,
    BLOCK_C: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * x_stride
    out_row = out_ptr + row * cols
    c = tl.arange(0, BLOCK_C)
    mean = 0.0
    m2 = 0.0
    seen = 0.0
    for start in range(0, cols, BLOCK_C):
        ok = start + c < cols
        x = tl.load(x_row + start + c, mask=ok, other=0.0)
        n = tl.minimum(cols - start, BLOCK_C).to(tl.float32)
        chunk_mean = tl.sum(x, axis=0) / n
        d = tl.where(ok, x - chunk_mean, 0.0)
        chunk_m2 = tl.sum(d * d, axis=0)
        # Chan et al.: merge (seen, mean, m2) with the chunk's (n, chunk_mean, chunk_m2).
        total = seen + n
        delta = chunk_mean - mean
        mean = mean + delta * (n / total)
        m2 = m2 + chunk_m2 + delta * delta * (seen * n / total)
        seen = total
    rstd = 1.0 / tl.sqrt(m2 / cols + eps)
    for start in range(0, cols, BLOCK_C):
        ok = start + c < cols
        x = tl.load(x_row + start + c, mask=ok, other=0.0)
        w = tl.load(w_ptr + start + c, mask=ok, other=0.0)
        b = tl.load(b_ptr + start + c, mask=ok, other=0.0)
        tl.store(out_row + start + c, (x - mean) * rstd * w + b, mask=ok)


@implementation("layernorm", family="triton", variants=("affine",), available=triton_available)
def layernorm(x, weight, bias):
    SPEC.validate(x, weight, bias)
    rows, cols = x.shape
    out = empty_output((rows, cols), like=x)
    if out.numel() == 0:
        return out
    if x.stride(1) != 1:
        x = x.contiguous()
    if cols <= MAX_FUSED_COLS:
        block_c = triton.next_power_of_2(cols)
        grid = lambda meta: (triton.cdiv(rows, meta["BLOCK_R"]),)
        _layernorm_fused_kernel[grid](x, weight, bias, out, rows, cols, x.stride(0), EPS, BLOCK_C=block_c)
    else:
        _layernorm_chunked_kernel[(rows,)](x, weight, bias, out, rows, cols, x.stride(0), EPS)
    return out
