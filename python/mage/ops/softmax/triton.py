"""Softmax in Triton, one kernel design per strategy (mage.backends.rows says how each shares a row).

- default: the registers kernel, autotuned, up to MAX_FUSED_COLS columns; the online kernel beyond.
  The strategies below launch at a fixed geometry from the row width (mage.backends.triton_rows).
- ``registers``: BLOCK_R whole rows per program in registers: max, exp, sum, divide, one read.
- ``warp``: the same kernel launched with one warp a program, for rows of at most 1024 columns.
- ``split``: each chunk's (max, Σ exp(x − max)) from several programs into a partials buffer, then a
  second kernel whose programs rescale their row's partials to the row's max and write a chunk.
- ``online``: a program streams its row(s), keeps a running max and a sum rescaled whenever the max grows
  (Milakov and Gimelshein's online softmax): the statistics in one read, the output in a second.
- ``twopass``: a program streams the max, then the sum, then writes: three reads.
"""

import triton
import triton.language as tl

from mage.backends import rows as shared
from mage.backends import triton_rows as launch
from mage.backends.triton import INTERPRETED, triton_available
from mage.ops.softmax.spec import SPEC
from mage.registry import implementation

MAX_FUSED_COLS = shared.REGISTERS_MAX_COLS
# Under the interpreter a split chunk is small, so that the seed cases' rows are split and combined.
SPLIT_COLS = 256 if INTERPRETED else shared.SPLIT_COLS
PARTIAL_STATS = 2  # max, Σ exp(x − max) of a chunk
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
    x = tl.load(x_ptr + r64[:, None] * x_stride + c[None, :], mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.maximum(tl.max(x, axis=1), -3.0e38)[:, None])  # rows past the end: 0, not NaN
    total = tl.maximum(tl.sum(e, axis=1), 1e-38)  # and no division by their zero sum
    tl.store(out_ptr + r64[:, None] * cols + c[None, :], e * (1.0 / total)[:, None], mask=mask)


_softmax_registers_kernel = launch.registers_autotune(_softmax_rows_kernel)


@triton.jit
def _online_stats(x_rows, row_ok, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """(max, Σ exp(x − max)) of each row in one read: lane-wise running maxima and sums, each sum
    rescaled by exp(old − new) when its max grows (Milakov and Gimelshein), lanes combined at the end.
    Maxima start finite, so that a lane that never sees a value rescales by 0, not NaN."""
    c = tl.arange(0, BLOCK_C)
    m = tl.full([BLOCK_R, BLOCK_C], -3.0e38, tl.float32)
    s = tl.zeros([BLOCK_R, BLOCK_C], tl.float32)
    for start in range(0, cols, BLOCK_C):
        ok = row_ok[:, None] & (start + c < cols)[None, :]
        x = tl.load(x_rows + start + c[None, :], mask=ok, other=-float("inf"))
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
    m = tl.full([BLOCK_R, BLOCK_C], -3.0e38, tl.float32)
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
    inverse = 1.0 / tl.maximum(total, 1e-38)  # rows past the end sum to 0: no division by it
    out_rows = out_ptr + r.to(tl.int64)[:, None] * cols
    c = tl.arange(0, BLOCK_C)
    for start in range(0, cols, BLOCK_C):
        ok = row_ok[:, None] & (start + c < cols)[None, :]
        x = tl.load(x_rows + start + c[None, :], mask=ok, other=-float("inf"))  # exp: 0 where nothing is stored
        tl.store(out_rows + start + c[None, :], tl.exp(x - row_max[:, None]) * inverse[:, None], mask=ok)


@triton.jit
def _softmax_split_stats_kernel(
    x_ptr,  # rows × cols, row stride x_stride
    part_ptr,  # rows × chunks × 2: max and Σ exp(x − max) of each chunk
    rows, cols, x_stride, chunks,
    BLOCK_R: tl.constexpr,
    CHUNK: tl.constexpr,
):
    # A row too wide for one program is shared by `chunks` programs; each writes its chunk's
    # (max, sum) to its own slot, so no two programs touch one address and no atomic is needed.
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    row_ok = r < rows
    c = tl.program_id(1) * CHUNK + tl.arange(0, CHUNK)
    ok = row_ok[:, None] & (c < cols)[None, :]
    x = tl.load(x_ptr + r.to(tl.int64)[:, None] * x_stride + c[None, :], mask=ok, other=-float("inf"))
    m = tl.maximum(tl.max(x, axis=1), -3.0e38)  # rows past the end: finite, so no NaN
    slot = part_ptr + (r.to(tl.int64) * chunks + tl.program_id(1)) * 2
    tl.store(slot, m, mask=row_ok)
    tl.store(slot + 1, tl.sum(tl.exp(x - m[:, None]), axis=1), mask=row_ok)


@triton.jit
def _softmax_split_normalize_kernel(
    x_ptr, out_ptr,  # rows × cols: x with row stride x_stride, out contiguous
    part_ptr,  # rows × chunks × 2, from the stats kernel
    rows, cols, x_stride, chunks,
    BLOCK_R: tl.constexpr,
    CHUNK: tl.constexpr,
    CHUNKS_P2: tl.constexpr,  # next power of two ≥ chunks
):
    # Every program of a row combines the row's few partials itself (cheaper than a third launch):
    # max M = max mᵢ, sum S = Σ sᵢ exp(mᵢ − M).
    r, row_ok, slots, k_ok = launch.row_partials(part_ptr, rows, chunks, 2, BLOCK_R, CHUNKS_P2)
    maxima = tl.load(slots, mask=k_ok, other=-3.0e38)
    row_max = tl.max(maxima, axis=1)
    total = tl.sum(tl.load(slots + 1, mask=k_ok, other=0.0) * tl.exp(maxima - row_max[:, None]), axis=1)
    c = tl.program_id(1) * CHUNK + tl.arange(0, CHUNK)
    ok = row_ok[:, None] & (c < cols)[None, :]
    x = tl.load(x_ptr + r.to(tl.int64)[:, None] * x_stride + c[None, :], mask=ok, other=-float("inf"))
    out = tl.exp(x - row_max[:, None]) * (1.0 / tl.maximum(total, 1e-38))[:, None]
    tl.store(out_ptr + r.to(tl.int64)[:, None] * cols + c[None, :], out, mask=ok)


@implementation("softmax", family="triton", variants=("rows",), available=triton_available)
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
    """``split_cols``: the widest chunk one program takes (the tests pass a small one to split small rows)."""
    x, out = launch.prepared(SPEC, x)
    return launch.launch_split(_softmax_split_stats_kernel, _softmax_split_normalize_kernel, x, (), out, (),
                               PARTIAL_STATS, split_cols)
