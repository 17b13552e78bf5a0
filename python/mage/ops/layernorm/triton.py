"""LayerNorm in Triton, one kernel design per strategy (mage.backends.rows says how each shares a row).

- default: the registers kernel, autotuned, up to MAX_FUSED_COLS columns; the online kernel beyond.
  The strategies below launch at a fixed geometry from the row width (mage.backends.triton_rows).
- ``registers``: whole rows, several per program, in registers; statistics two-pass in registers.
- ``warp``: the same kernel launched with one warp a program, for rows of at most 1024 columns.
- ``split``: the input as flat tiles, each with the count, mean and M2 of the (at most two) rows it holds,
  combined per row by a tiny second kernel, normalized by a third (three launches, two reads of x).
- ``lagged``: the same tiles in one launch: a program publishes its tile's statistics, then normalizes
  a tile a row behind it once that tile's rows are complete, so x is read from DRAM once.
- ``online``: a program streams its row(s) and folds chunk statistics into running ones (Welford's update a chunk
  at a time: Chan et al.'s pairwise form), then re-reads the row to normalize: two reads.
- ``twopass``: a program streams the sum, then the squared deviations, then writes: three reads.
- ``naive``: one streamed pass of Σx and Σx², var = E[x²] − E[x]²: as fast as online, and wrong
  when a row's mean is large next to its spread (the large-mean contract, which it must fail).

Every mean is divided with IEEE rounding (``rounded_div``), not Triton's approximate ``/``: at 16-bit a row of
large mean rounds to a handful of values, and a mean 2 ulp off turns the row's tiny spread into a full-scale
error at widths that are not powers of two.
"""

import triton
import triton.language as tl

from mage.backends import rows as shared
from mage.backends import triton_rows as launch
from mage.backends.triton import INTERPRETED, rounded_div, triton_available
from mage.ops.layernorm.spec import EPS, SPEC
from mage.registry import implementation

# Widest row the default strategy keeps whole in registers (64 KiB per row; 16 warps hold 32 floats a thread).
MAX_FUSED_COLS = shared.REGISTERS_MAX_COLS
# Under the interpreter a split tile is small, so that the seed cases' rows are split and combined.
SPLIT_COLS = 256 if INTERPRETED else shared.SPLIT_COLS
PARTIAL_STATS = 3  # count, mean, M2 of a chunk
ONLINE, TWOPASS, NAIVE = 0, 1, 2  # the streaming kernel's STATISTICS


@triton.jit
def _layernorm_rows_kernel(
    x_ptr, w_ptr, b_ptr, out_ptr,  # x: rows × cols, row stride x_stride; w, b: cols; out: rows × cols
    rows, cols, x_stride, eps,
    BLOCK_R: tl.constexpr,
    BLOCK_C: tl.constexpr,  # next power of two ≥ cols: the whole row
):
    # Whole rows in registers: one read, both statistics from registers (two-pass, at no memory
    # cost), one write; weight and bias loaded once for BLOCK_R rows.
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.arange(0, BLOCK_C)
    row_ok = r < rows
    col_ok = c < cols
    mask = row_ok[:, None] & col_ok[None, :]
    r64 = r.to(tl.int64)
    x = tl.load(x_ptr + r64[:, None] * x_stride + c[None, :], mask=mask, other=0.0).to(tl.float32)
    mean = rounded_div(tl.sum(x, axis=1), cols)
    centered = tl.where(mask, x - mean[:, None], 0.0)
    var = tl.sum(centered * centered, axis=1) / cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + c, mask=col_ok, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + c, mask=col_ok, other=0.0).to(tl.float32)
    out = centered * rstd[:, None] * w[None, :] + b[None, :]
    tl.store(out_ptr + r64[:, None] * cols + c[None, :], out, mask=mask)


_layernorm_registers_kernel = launch.registers_autotune(_layernorm_rows_kernel)


@triton.jit
def _chunk_stats(x, ok, n):
    """(mean, M2) of each row of a chunk held in registers, two-pass: no cancellation inside the chunk."""
    chunk_mean = rounded_div(tl.sum(x, axis=1), n)
    d = tl.where(ok, x - chunk_mean[:, None], 0.0)
    return chunk_mean, tl.sum(d * d, axis=1)


@triton.jit
def _online_stats(x_rows, row_ok, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """(mean, M2) of each row in one read: running count, mean and M2 merged with each chunk's
    (Welford's update a chunk at a time, in Chan et al.'s pairwise form)."""
    c = tl.arange(0, BLOCK_C)
    mean = tl.zeros([BLOCK_R], tl.float32)
    m2 = tl.zeros([BLOCK_R], tl.float32)
    seen = 0.0
    for start in range(0, cols, BLOCK_C):
        ok = row_ok[:, None] & (start + c < cols)[None, :]
        x = tl.load(x_rows + start + c[None, :], mask=ok, other=0.0).to(tl.float32)
        n = tl.minimum(cols - start, BLOCK_C).to(tl.float32)
        chunk_mean, chunk_m2 = _chunk_stats(x, ok, n)
        total = seen + n
        delta = chunk_mean - mean
        mean = mean + delta * rounded_div(n, total)
        m2 = m2 + chunk_m2 + delta * delta * (seen * n / total)
        seen = total
    return mean, m2


@triton.jit
def _twopass_stats(x_rows, row_ok, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """(mean, M2) of each row in two reads, the textbook order: the mean, then squared deviations
    from it (lane-wise partial sums, reduced once per pass)."""
    c = tl.arange(0, BLOCK_C)
    total = tl.zeros([BLOCK_R, BLOCK_C], tl.float32)
    for start in range(0, cols, BLOCK_C):
        total += tl.load(x_rows + start + c[None, :], mask=row_ok[:, None] & (start + c < cols)[None, :], other=0.0)
    mean = rounded_div(tl.sum(total, axis=1), cols)
    squares = tl.zeros([BLOCK_R, BLOCK_C], tl.float32)
    for start in range(0, cols, BLOCK_C):
        ok = row_ok[:, None] & (start + c < cols)[None, :]
        d = tl.where(ok, tl.load(x_rows + start + c[None, :], mask=ok, other=0.0) - mean[:, None], 0.0)
        squares += d * d
    return mean, tl.sum(squares, axis=1)


@triton.jit
def _naive_stats(x_rows, row_ok, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """(mean, M2) of each row from Σx and Σx² in one read: M2 = Σx² − N·mean², deliberately unstable
    (measured so that its speed is seen beside its error): it cancels every digit when the mean
    dwarfs the spread."""
    c = tl.arange(0, BLOCK_C)
    total = tl.zeros([BLOCK_R, BLOCK_C], tl.float32)
    squares = tl.zeros([BLOCK_R, BLOCK_C], tl.float32)
    for start in range(0, cols, BLOCK_C):
        x = tl.load(x_rows + start + c[None, :], mask=row_ok[:, None] & (start + c < cols)[None, :], other=0.0)
        total += x
        squares += x * x
    mean = rounded_div(tl.sum(total, axis=1), cols)
    # Cancellation can leave M2 below 0: clamped, a NaN kept (a row with NaN or an infinity is NaN, as in float64).
    return mean, tl.maximum(tl.sum(squares, axis=1) - cols * mean * mean, 0.0, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def _layernorm_streaming_kernel(
    x_ptr, w_ptr, b_ptr, out_ptr,  # x: rows × cols, row stride x_stride; w, b: cols; out: rows × cols
    rows, cols, x_stride, eps,
    STATISTICS: tl.constexpr,  # ONLINE, TWOPASS or NAIVE
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    # BLOCK_R rows a program (one for rows wider than registers) stream through BLOCK_C columns at a
    # time: once or twice for the statistics, then once more to be normalized and written.
    r, row_ok, x_rows = launch.program_rows(x_ptr, rows, x_stride, BLOCK_R)
    if STATISTICS == 0:
        mean, m2 = _online_stats(x_rows, row_ok, cols, BLOCK_R, BLOCK_C)
    elif STATISTICS == 1:
        mean, m2 = _twopass_stats(x_rows, row_ok, cols, BLOCK_R, BLOCK_C)
    else:
        mean, m2 = _naive_stats(x_rows, row_ok, cols, BLOCK_R, BLOCK_C)
    rstd = 1.0 / tl.sqrt(m2 / cols + eps)
    out_rows = out_ptr + r.to(tl.int64)[:, None] * cols
    c = tl.arange(0, BLOCK_C)
    for start in range(0, cols, BLOCK_C):
        col_ok = start + c < cols
        ok = row_ok[:, None] & col_ok[None, :]
        x = tl.load(x_rows + start + c[None, :], mask=ok, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + start + c, mask=col_ok, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + start + c, mask=col_ok, other=0.0).to(tl.float32)
        tl.store(out_rows + start + c[None, :], (x - mean[:, None]) * rstd[:, None] * w[None, :] + b[None, :], mask=ok)


@triton.jit
def _tile_stats(x_ptr, part_ptr, tile, total, cols, whole, CHUNK: tl.constexpr):
    """Store a flat tile's (count, mean, M2) of the row it starts in (slot 0) and of the next (slot 1),
    each two-pass over registers; return the tile's first row and whether it reaches the next."""
    start, first_row, split, n = launch.tile_span(tile, total, cols, CHUNK)
    x = launch.load_tile(x_ptr + start, n, whole, 0.0, CHUNK)
    local = tl.arange(0, CHUNK)
    ok, later = local < n, local >= split
    n1 = tl.maximum(n - split, 0).to(tl.float32)
    n0 = n.to(tl.float32) - n1
    mean0 = rounded_div(tl.sum(tl.where(ok & ~later, x, 0.0), axis=0), tl.maximum(n0, 1.0))
    mean1 = rounded_div(tl.sum(tl.where(ok & later, x, 0.0), axis=0), tl.maximum(n1, 1.0))
    d = tl.where(ok, x - tl.where(later, mean1, mean0), 0.0)
    slot = part_ptr + tile.to(tl.int64) * 6
    tl.store(slot, n0)
    tl.store(slot + 1, mean0)
    tl.store(slot + 2, tl.sum(tl.where(later, 0.0, d * d), axis=0))
    tl.store(slot + 3, n1)
    tl.store(slot + 4, mean1)
    tl.store(slot + 5, tl.sum(tl.where(later, d * d, 0.0), axis=0))
    return first_row, split < n


@triton.jit
def _row_stats(part_ptr, r, row_ok, cols, eps, CHUNK: tl.constexpr, TILES: tl.constexpr):
    """(mean, rstd) of rows r from their tiles' partials, exactly: M2 = Σ M2ᵢ + Σ nᵢ (meanᵢ − mean)², in
    tile order. Read past L1 (.cg): in the lagged kernel other programs wrote them during this launch."""
    slots, ok = launch.row_slots(r, cols, CHUNK, TILES)
    ok = ok & row_ok[:, None]
    n = tl.load(part_ptr + slots * 3, mask=ok, other=0.0, cache_modifier=".cg")
    means = tl.load(part_ptr + slots * 3 + 1, mask=ok, other=0.0, cache_modifier=".cg")
    mean = rounded_div(tl.sum(n * means, axis=1), cols)
    d = tl.where(ok, means - mean[:, None], 0.0)
    m2 = tl.sum(tl.load(part_ptr + slots * 3 + 2, mask=ok, other=0.0, cache_modifier=".cg"), axis=1) + tl.sum(n * d * d, axis=1)
    return mean, 1.0 / tl.sqrt(m2 / cols + eps)


@triton.jit
def _normalize_tile(x_ptr, w_ptr, b_ptr, out_ptr, tile, total, cols, whole, mean0, rstd0, mean1, rstd1,
                    CHUNK: tl.constexpr):
    # 16 elements of x, w and b a thread, int32 offsets: few registers, so many blocks an SM keep
    # loads in flight (the earlier split's normalize kernel combined every partial in each program,
    # at 138 registers and one block an SM).
    start, first_row, split, n = launch.tile_span(tile, total, cols, CHUNK)
    x = launch.load_tile(x_ptr + start, n, whole, 0.0, CHUNK)
    local = tl.arange(0, CHUNK)
    later = local >= split
    c = local + tl.where(later, -split, cols - split)
    w = tl.load(w_ptr + c, mask=local < n, other=0.0)
    b = tl.load(b_ptr + c, mask=local < n, other=0.0)
    out = (x - tl.where(later, mean1, mean0)) * tl.where(later, rstd1, rstd0) * w + b
    launch.store_tile(out_ptr + start, n, whole, out, CHUNK)


@triton.jit
def _layernorm_split_stats_kernel(
    x_ptr,  # rows × cols, contiguous: total elements as one array of tiles
    part_ptr,  # tiles × 2 × 3: count, mean, M2 of the tile's first row and of the next
    total, cols, whole_tiles,
    CHUNK: tl.constexpr,
):
    # A tile a program, 16,384 of them at the study's 256 MB, whatever the width: every SM busy, each
    # program writing its own slots, so no two programs touch one address and no atomic is needed.
    tile = tl.program_id(0)
    _tile_stats(x_ptr, part_ptr, tile, total, cols, tile < whole_tiles, CHUNK)


@triton.jit
def _layernorm_split_combine_kernel(
    part_ptr,  # tiles × 2 × 3, from the stats kernel
    row_ptr,  # rows × 2: mean, rstd
    rows, cols, eps,
    BLOCK_R: tl.constexpr, CHUNK: tl.constexpr,
    TILES: tl.constexpr,  # next power of two ≥ the most tiles a row touches
):
    # Tiny: 2 × 3 floats a tile, BLOCK_R rows a program; the normalize kernel then reads 2 floats a row.
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    mean, rstd = _row_stats(part_ptr, r, r < rows, cols, eps, CHUNK, TILES)
    tl.store(row_ptr + r.to(tl.int64) * 2, mean, mask=r < rows)
    tl.store(row_ptr + r.to(tl.int64) * 2 + 1, rstd, mask=r < rows)


@triton.jit
def _layernorm_split_normalize_kernel(
    x_ptr, w_ptr, b_ptr, out_ptr,  # x, out: rows × cols, contiguous; w, b: cols
    row_ptr,  # rows × 2 from the combine
    rows, cols, total, whole_tiles,
    CHUNK: tl.constexpr,
):
    tile = tl.program_id(0)
    first_row = tile.to(tl.int64) * CHUNK // cols
    has_next = first_row + 1 < rows
    _normalize_tile(x_ptr, w_ptr, b_ptr, out_ptr, tile, total, cols, tile < whole_tiles,
                    tl.load(row_ptr + first_row * 2), tl.load(row_ptr + first_row * 2 + 1),
                    tl.load(row_ptr + first_row * 2 + 2, mask=has_next, other=0.0),
                    tl.load(row_ptr + first_row * 2 + 3, mask=has_next, other=0.0), CHUNK)


@triton.jit
def _layernorm_lagged_kernel(
    x_ptr, w_ptr, b_ptr, out_ptr,  # x, out: rows × cols, contiguous; w, b: cols
    part_ptr,  # tiles × 2 × 3, written and read in this launch
    sync_ptr,  # rows + 1 int32, zeroed: tiles published a row, then the ticket counter
    rows, cols, total, tiles, whole_tiles, lag, eps,
    CHUNK: tl.constexpr, TILES: tl.constexpr,
):
    # Tickets in the order programs start. Ticket t publishes tile t's statistics, then normalizes tile
    # t − lag (lag: the most tiles a row touches), whose rows end before tile t: it waits only for
    # programs already running. The ~1,000 programs resident read about 16 MB ahead of the normalize,
    # inside the 60 MB L2, so x comes from DRAM once: the copy's traffic, not the split's 1.5×.
    ticket = tl.atomic_add(sync_ptr + rows, 1)
    if ticket < tiles:
        first_row, reaches_next = _tile_stats(x_ptr, part_ptr, ticket, total, cols, ticket < whole_tiles, CHUNK)
        launch.publish(sync_ptr, first_row, reaches_next)
    if ticket >= lag:
        tile = ticket - lag
        start, first_row, split, n = launch.tile_span(tile, total, cols, CHUNK)
        launch.wait_for_row(sync_ptr, first_row, cols, CHUNK)
        if split < n:
            launch.wait_for_row(sync_ptr, first_row + 1, cols, CHUNK)
        r = first_row + tl.arange(0, 2)
        mean, rstd = _row_stats(part_ptr, r, (r == first_row) | (split < n), cols, eps, CHUNK, TILES)
        _normalize_tile(x_ptr, w_ptr, b_ptr, out_ptr, tile, total, cols, tile < whole_tiles,
                        launch.pick(mean, 0), launch.pick(rstd, 0), launch.pick(mean, 1), launch.pick(rstd, 1), CHUNK)


# bf16/fp16 (the registers and online kernels widen their loads to float32, and round once on the store).
@implementation("layernorm", family="triton", variants=("affine",), precisions=("ieee", "bf16", "fp16"),
                available=triton_available)
def layernorm(x, weight, bias):
    x, out = launch.prepared(SPEC, x, weight, bias)
    if x.shape[1] <= MAX_FUSED_COLS:
        return launch.launch_rows(_layernorm_registers_kernel, x, (weight, bias), out, (EPS,))
    return launch.launch_streaming(_layernorm_streaming_kernel, x, (weight, bias), out, (EPS,), ONLINE)


def _in_registers(geometry, takes):
    def layernorm_in_registers(x, weight, bias):
        x, out = launch.prepared(SPEC, x, weight, bias)
        launch.refuse(takes, x)
        return launch.launch_rows(_layernorm_rows_kernel, x, (weight, bias), out, (EPS,), geometry)

    return layernorm_in_registers


def _streaming(statistics: int):
    def layernorm_streaming(x, weight, bias):
        x, out = launch.prepared(SPEC, x, weight, bias)
        return launch.launch_streaming(_layernorm_streaming_kernel, x, (weight, bias), out, (EPS,), statistics)

    return layernorm_streaming


launch.register_strategies("layernorm", "affine", _in_registers, _streaming, ONLINE, TWOPASS)
# Registered to be measured and seen failing: its large-mean contract fails, so it is stored failed and never timed.
implementation("layernorm", family="triton", strategy="naive", variants=("affine",), available=triton_available,
               fails="large-mean inputs: error")(_streaming(NAIVE))


@implementation("layernorm", family="triton", strategy="split", variants=("affine",), available=triton_available)
def layernorm_split(x, weight, bias, split_cols: int = SPLIT_COLS):
    """``split_cols``: the widest tile one program takes (the tests pass a small one to split small rows)."""
    x, out = launch.prepared(SPEC, x, weight, bias)
    return launch.launch_split(_layernorm_split_stats_kernel, _layernorm_split_combine_kernel,
                               _layernorm_split_normalize_kernel, x, (weight, bias), out, (EPS,), PARTIAL_STATS,
                               split_cols)


@implementation("layernorm", family="triton", strategy="lagged", variants=("affine",), available=launch.lagged_available)
def layernorm_lagged(x, weight, bias, split_cols: int = SPLIT_COLS):
    x, out = launch.prepared(SPEC, x, weight, bias)
    return launch.launch_lagged(_layernorm_lagged_kernel, x, (weight, bias), out, (EPS,), PARTIAL_STATS, split_cols)
