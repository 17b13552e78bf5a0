"""Softmax in Triton, one kernel design per strategy (mage.backends.rows says how each shares a row).

- default: the registers kernel, autotuned, up to MAX_FUSED_COLS columns; the online kernel beyond.
  The strategies below launch at a fixed geometry from the row width (mage.backends.triton_rows).
- ``registers``: BLOCK_R whole rows per program in registers: max, exp, sum, divide, one read.
- ``warp``: the same kernel launched with one warp a program, for rows of at most 1024 columns.
- ``split``: the input as flat tiles, each with the (max, Σ exp(x − max)) of the (at most two) rows it
  holds, combined per row by a tiny second kernel, written by a third (three launches, two reads of x).
- ``lagged``: the same tiles in one launch: a program publishes its tile's statistics, then writes a
  tile a row behind it once that tile's rows are complete, so x is read from DRAM once.
- ``online``: a program streams its row(s), keeps a running max and a sum rescaled whenever the max grows
  (Milakov and Gimelshein's online softmax): the statistics in one read, the output in a second.
- ``twopass``: a program streams the max, then the sum, then writes: three reads.

NaN and infinities, as in float64: a NaN or a +inf in a row makes the row's Σ exp(x − max) NaN (exp(NaN − m)
or exp(inf − inf)), whatever ``tl.maximum`` and ``tl.max`` do with a NaN (compiled, they drop it), so the
whole row is NaN; a row that is all −inf has the sum 0 and writes exp(−inf) / 0, NaN, float64's 0 / 0.
No guard stands between the sum and its inverse: a real row's sum is at least 1 (its max's own term)
unless it is NaN or that 0, and the NaN or infinity that rows past the end compute is never stored.
Running maxima start at NO_VALUE (−FLT_MAX), not −inf, so that a lane that has seen only −inf rescales
its sum by exp(0), not by exp(−inf + inf).
"""

import triton
import triton.language as tl

from mage.backends import rows as shared
from mage.backends import triton_rows as launch
from mage.backends.triton import INTERPRETED, triton_available
from mage.ops.softmax.spec import SPEC
from mage.registry import implementation

MAX_FUSED_COLS = shared.REGISTERS_MAX_COLS
# Under the interpreter a split tile is small, so that the seed cases' rows are split and combined.
SPLIT_COLS = 256 if INTERPRETED else shared.SPLIT_COLS
PARTIAL_STATS = 2  # max, Σ exp(x − max) of a chunk
NO_VALUE = tl.constexpr(-3.4028234663852886e38)  # −FLT_MAX: the max of no value; exp(−inf − NO_VALUE) is 0
ONLINE, TWOPASS = 0, 1  # the streaming kernel's STATISTICS


@triton.jit
def _softmax_rows_kernel(
    x_ptr, out_ptr,  # rows × cols: x with row stride x_stride, out contiguous
    rows, cols, x_stride,
    BLOCK_R: tl.constexpr,
    BLOCK_C: tl.constexpr,  # next power of two ≥ cols: the whole row
):
    # Whole rows in registers: the row is read once and both reductions run on registers.
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.arange(0, BLOCK_C)
    mask = (r < rows)[:, None] & (c < cols)[None, :]
    r64 = r.to(tl.int64)
    x = tl.load(x_ptr + r64[:, None] * x_stride + c[None, :], mask=mask, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=1)[:, None])  # NaN in a row that is all −inf (rows past the end too)
    tl.store(out_ptr + r64[:, None] * cols + c[None, :], e * (1.0 / tl.sum(e, axis=1))[:, None], mask=mask)


_softmax_registers_kernel = launch.registers_autotune(_softmax_rows_kernel)


@triton.jit
def _online_stats(x_rows, row_ok, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """(max, Σ exp(x − max)) of each row in one read: lane-wise running maxima and sums, each sum
    rescaled by exp(old − new) when its max grows (Milakov and Gimelshein), lanes combined at the end.
    Maxima start at NO_VALUE, so that a lane that sees no value, or only −inf, rescales by 1, not NaN."""
    c = tl.arange(0, BLOCK_C)
    m = tl.full([BLOCK_R, BLOCK_C], NO_VALUE, tl.float32)
    s = tl.zeros([BLOCK_R, BLOCK_C], tl.float32)
    for start in range(0, cols, BLOCK_C):
        ok = row_ok[:, None] & (start + c < cols)[None, :]
        x = tl.load(x_rows + start + c[None, :], mask=ok, other=-float("inf")).to(tl.float32)
        grown = tl.maximum(m, x)
        s = s * tl.exp(m - grown) + tl.exp(x - grown)
        m = grown
    row_max = tl.max(m, axis=1)
    return row_max, tl.sum(s * tl.exp(m - row_max[:, None]), axis=1)


@triton.jit
def _twopass_stats(x_rows, row_ok, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """(max, Σ exp(x − max)) of each row in two reads, the textbook order: fewer exps than online,
    one more read."""
    c = tl.arange(0, BLOCK_C)
    m = tl.full([BLOCK_R, BLOCK_C], NO_VALUE, tl.float32)
    for start in range(0, cols, BLOCK_C):
        ok = row_ok[:, None] & (start + c < cols)[None, :]
        m = tl.maximum(m, tl.load(x_rows + start + c[None, :], mask=ok, other=-float("inf")))
    row_max = tl.max(m, axis=1)
    s = tl.zeros([BLOCK_R, BLOCK_C], tl.float32)
    for start in range(0, cols, BLOCK_C):
        ok = row_ok[:, None] & (start + c < cols)[None, :]
        s += tl.exp(tl.load(x_rows + start + c[None, :], mask=ok, other=-float("inf")) - row_max[:, None])
    return row_max, tl.sum(s, axis=1)


@triton.jit
def _softmax_streaming_kernel(
    x_ptr, out_ptr,  # rows × cols: x with row stride x_stride, out contiguous
    rows, cols, x_stride,
    STATISTICS: tl.constexpr,  # ONLINE or TWOPASS
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    # BLOCK_R rows a program (one for rows wider than registers) stream through BLOCK_C columns at a
    # time: once or twice for the statistics, then once more to be written.
    r, row_ok, x_rows = launch.program_rows(x_ptr, rows, x_stride, BLOCK_R)
    if STATISTICS == 0:
        row_max, total = _online_stats(x_rows, row_ok, cols, BLOCK_R, BLOCK_C)
    else:
        row_max, total = _twopass_stats(x_rows, row_ok, cols, BLOCK_R, BLOCK_C)
    inverse = 1.0 / total  # inf for a row that is all −inf (rows past the end too): NaN is written there
    out_rows = out_ptr + r.to(tl.int64)[:, None] * cols
    c = tl.arange(0, BLOCK_C)
    for start in range(0, cols, BLOCK_C):
        ok = row_ok[:, None] & (start + c < cols)[None, :]
        # exp: 0 where nothing is stored
        x = tl.load(x_rows + start + c[None, :], mask=ok, other=-float("inf")).to(tl.float32)
        tl.store(out_rows + start + c[None, :], tl.exp(x - row_max[:, None]) * inverse[:, None], mask=ok)


@triton.jit
def _tile_stats(x_ptr, part_ptr, tile, total, cols, whole, CHUNK: tl.constexpr):
    """Store a flat tile's (max, Σ exp(x − max)) of the row it starts in (slot 0) and of the next (slot 1:
    max NO_VALUE and sum 0 when the tile lies in one row); return the tile's first row and whether it
    reaches the next."""
    start, first_row, split, n = launch.tile_span(tile, total, cols, CHUNK)
    x = launch.load_tile(x_ptr + start, n, whole, 0.0, CHUNK)
    local = tl.arange(0, CHUNK)
    ok, later = local < n, local >= split
    # At least NO_VALUE: a part that is all −inf (a masked stretch of a row) then sums exp(−inf − NO_VALUE) = 0,
    # not exp(−inf + inf), NaN. A NaN reaches the sum through exp(x − m) whatever the maxima do with it.
    m0 = tl.maximum(tl.max(tl.where(ok & ~later, x, NO_VALUE), axis=0), NO_VALUE)
    m1 = tl.maximum(tl.max(tl.where(ok & later, x, NO_VALUE), axis=0), NO_VALUE)
    e = tl.exp(tl.where(ok, x - tl.where(later, m1, m0), -float("inf")))  # past the end: 0, not an overflow
    slot = part_ptr + tile.to(tl.int64) * 4
    tl.store(slot, m0)
    tl.store(slot + 1, tl.sum(tl.where(later, 0.0, e), axis=0))
    tl.store(slot + 2, m1)
    tl.store(slot + 3, tl.sum(tl.where(later, e, 0.0), axis=0))
    return first_row, split < n


@triton.jit
def _row_stats(part_ptr, r, row_ok, cols, CHUNK: tl.constexpr, TILES: tl.constexpr):
    """(max, 1 / sum) of rows r from their tiles' partials: M = max mᵢ, S = Σ sᵢ exp(mᵢ − M), in tile
    order. Read past L1 (.cg): in the lagged kernel other programs wrote them during this launch."""
    slots, ok = launch.row_slots(r, cols, CHUNK, TILES)
    ok = ok & row_ok[:, None]
    maxima = tl.load(part_ptr + slots * 2, mask=ok, other=NO_VALUE, cache_modifier=".cg")
    row_max = tl.max(maxima, axis=1)
    sums = tl.load(part_ptr + slots * 2 + 1, mask=ok, other=0.0, cache_modifier=".cg")
    return row_max, 1.0 / tl.sum(sums * tl.exp(maxima - row_max[:, None]), axis=1)


@triton.jit
def _write_tile(x_ptr, out_ptr, tile, total, cols, whole, max0, inverse0, max1, inverse1, CHUNK: tl.constexpr):
    start, first_row, split, n = launch.tile_span(tile, total, cols, CHUNK)
    x = launch.load_tile(x_ptr + start, n, whole, 0.0, CHUNK)
    local = tl.arange(0, CHUNK)
    later = local >= split
    shifted = tl.where(local < n, x - tl.where(later, max1, max0), -float("inf"))  # past the end: unwritten
    launch.store_tile(out_ptr + start, n, whole, tl.exp(shifted) * tl.where(later, inverse1, inverse0), CHUNK)


@triton.jit
def _softmax_split_stats_kernel(
    x_ptr,  # rows × cols, contiguous: total elements as one array of tiles
    part_ptr,  # tiles × 2 × 2: max and Σ exp(x − max) of the tile's first row and of the next
    total, cols, whole_tiles,
    CHUNK: tl.constexpr,
):
    # A tile a program, 16,384 of them at the study's 256 MB, whatever the width: every SM busy, each
    # program writing its own slots, so no two programs touch one address and no atomic is needed.
    tile = tl.program_id(0)
    _tile_stats(x_ptr, part_ptr, tile, total, cols, tile < whole_tiles, CHUNK)


@triton.jit
def _softmax_split_combine_kernel(
    part_ptr,  # tiles × 2 × 2, from the stats kernel
    row_ptr,  # rows × 2: max, 1 / sum
    rows, cols,
    BLOCK_R: tl.constexpr, CHUNK: tl.constexpr,
    TILES: tl.constexpr,  # next power of two ≥ the most tiles a row touches
):
    # Tiny: 2 × 2 floats a tile, BLOCK_R rows a program; the write kernel then reads 2 floats a row.
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    row_max, inverse = _row_stats(part_ptr, r, r < rows, cols, CHUNK, TILES)
    tl.store(row_ptr + r.to(tl.int64) * 2, row_max, mask=r < rows)
    tl.store(row_ptr + r.to(tl.int64) * 2 + 1, inverse, mask=r < rows)


@triton.jit
def _softmax_split_normalize_kernel(
    x_ptr, out_ptr,  # rows × cols, contiguous
    row_ptr,  # rows × 2 from the combine
    rows, cols, total, whole_tiles,
    CHUNK: tl.constexpr,
):
    tile = tl.program_id(0)
    first_row = tile.to(tl.int64) * CHUNK // cols
    has_next = first_row + 1 < rows
    _write_tile(x_ptr, out_ptr, tile, total, cols, tile < whole_tiles,
                tl.load(row_ptr + first_row * 2), tl.load(row_ptr + first_row * 2 + 1),
                tl.load(row_ptr + first_row * 2 + 2, mask=has_next, other=0.0),
                tl.load(row_ptr + first_row * 2 + 3, mask=has_next, other=0.0), CHUNK)


@triton.jit
def _softmax_lagged_kernel(
    x_ptr, out_ptr,  # rows × cols, contiguous
    part_ptr,  # tiles × 2 × 2, written and read in this launch
    sync_ptr,  # rows + 1 int32, zeroed: tiles published a row, then the ticket counter
    rows, cols, total, tiles, whole_tiles, lag,
    CHUNK: tl.constexpr, TILES: tl.constexpr,
):
    # As LayerNorm's lagged kernel: ticket t publishes tile t, then writes tile t − lag, whose rows are
    # complete by then (it waits only for programs already running) and whose x is still in L2.
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
        row_max, inverse = _row_stats(part_ptr, r, (r == first_row) | (split < n), cols, CHUNK, TILES)
        _write_tile(x_ptr, out_ptr, tile, total, cols, tile < whole_tiles, launch.pick(row_max, 0),
                    launch.pick(inverse, 0), launch.pick(row_max, 1), launch.pick(inverse, 1), CHUNK)


# bf16/fp16 (the registers and online kernels widen their loads to float32, and round once on the store).
@implementation("softmax", family="triton", variants=("rows",), precisions=("ieee", "bf16", "fp16"),
                available=triton_available)
def softmax(x):
    x, out = launch.prepared(SPEC, x)
    if x.shape[1] <= MAX_FUSED_COLS:
        return launch.launch_rows(_softmax_registers_kernel, x, (), out, ())
    return launch.launch_streaming(_softmax_streaming_kernel, x, (), out, (), ONLINE)


def _in_registers(geometry, takes):
    def softmax_in_registers(x):
        x, out = launch.prepared(SPEC, x)
        launch.refuse(takes, x)
        return launch.launch_rows(_softmax_rows_kernel, x, (), out, (), geometry)

    return softmax_in_registers


def _streaming(statistics: int):
    def softmax_streaming(x):
        x, out = launch.prepared(SPEC, x)
        return launch.launch_streaming(_softmax_streaming_kernel, x, (), out, (), statistics)

    return softmax_streaming


launch.register_strategies("softmax", "rows", _in_registers, _streaming, ONLINE, TWOPASS)


@implementation("softmax", family="triton", strategy="split", variants=("rows",), available=triton_available)
def softmax_split(x, split_cols: int = SPLIT_COLS):
    """``split_cols``: the widest tile one program takes (the tests pass a small one to split small rows)."""
    x, out = launch.prepared(SPEC, x)
    return launch.launch_split(_softmax_split_stats_kernel, _softmax_split_combine_kernel,
                               _softmax_split_normalize_kernel, x, (), out, (), PARTIAL_STATS, split_cols)


@implementation("softmax", family="triton", strategy="lagged", variants=("rows",), available=launch.lagged_available)
def softmax_lagged(x, split_cols: int = SPLIT_COLS):
    x, out = launch.prepared(SPEC, x)
    return launch.launch_lagged(_softmax_lagged_kernel, x, (), out, (), PARTIAL_STATS, split_cols)
