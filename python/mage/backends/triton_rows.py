"""What the Triton kernels of the row-wise reductions (layernorm, softmax) share: the default
strategy's autotune list, the fixed launch geometry of the study's strategies, jit helpers that
address a program's rows, and the host side of each strategy's launch.

Every whole-row kernel takes ``x, *operands, out`` (operands: the op's per-column tensors), then
``rows, cols, x_stride``, then the op's scalars; the split's kernels work on flat tiles of a contiguous x
(launch_split, launch_lagged say what each takes). mage.backends.rows says how each strategy shares a row's work.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from mage.backends import rows as shared
from mage.backends.triton import INTERPRETED, pick_configs, prune_wider_than, triton_available
from mage.errors import InputError
from mage.outputs import empty_output
from mage.registry import implementation

# A split program holds 8 floats a thread (two 16-byte loads): 16 warps for a tile of SPLIT_COLS (4096),
# fewer for narrower tiles. Compiled for sm_90, 16 a thread took 75–148 registers, one block an SM; 8 take 39–62.
SPLIT_FLOATS_A_THREAD = 8
COMBINE_SLOTS = 1024  # partial slots a combine program reads: rows a program = this ÷ tiles a row


def _tile_limit(args):
    # Keep BLOCK_R · BLOCK_C ≤ 16 K elements (64 regs a thread at 8 warps) but allow one row.
    return max(1, shared.REGISTERS_MAX_COLS // args["BLOCK_C"])


def registers_autotune(kernel):
    """``kernel`` (a whole-rows kernel) autotuned over BLOCK_R rows a program and 4–16 warps."""
    full = [triton.Config({"BLOCK_R": r}, num_warps=w) for r in (1, 2, 4, 8, 16) for w in (4, 8, 16)]
    return triton.autotune(configs=pick_configs(full, [triton.Config({"BLOCK_R": 16}, num_warps=4)]),
                           key=["rows", "cols"],
                           prune_configs_by={"early_config_prune": prune_wider_than("BLOCK_R", _tile_limit)})(kernel)


# The study's strategies launch with a fixed geometry from the row width, not an autotuned one: the
# study compares designs (and tuning every width would cost more compiles than the study has time
# for). Tiles of about TILE floats a program; under the interpreter larger, since its cost is per program.
TILE = 16384 if INTERPRETED else 4096
WARP_TILE = 512  # a warp program's tile: 16 floats a lane
INTERPRETER_CHUNK = 128  # streamed columns under the interpreter: the seed case's rows are merged from chunks


# Two programs of 16 warps an SM (16384 columns, 32 floats a thread): compiled for sm_90, LayerNorm's row
# kernel takes 86 registers a thread there (its row, weight and bias live at once), so one program holds an
# SM and nothing else is in flight while it reduces and fetches weight and bias; softmax's takes 64, two
# programs an SM, and reached 0.98 of the copy rate where LayerNorm stayed at 0.85 (H200, 256 MB a case). Capped at 64
# (maxnreg), LayerNorm's compiles without a spill. Only at 16 warps: at 8, the cap of two programs (128)
# lets ptxas take more registers than it takes uncapped (64 against 39 for LayerNorm at 4096 columns).
WIDEST_WARPS = 16
REGISTERS_AN_SM = 65536


def registers_geometry(cols: int) -> dict:
    """Whole rows, TILE floats a program or one row, 16 floats a thread (4 to 16 warps; at 16, registers
    capped for two programs an SM)."""
    width = triton.next_power_of_2(cols)
    block_rows = max(1, TILE // width)
    warps = max(4, min(WIDEST_WARPS, block_rows * width // 512))
    geometry = {"BLOCK_R": block_rows, "num_warps": warps}
    if warps == WIDEST_WARPS:
        geometry["maxnreg"] = REGISTERS_AN_SM // (2 * 32 * warps)
    return geometry


def warp_geometry(cols: int) -> dict:
    """One warp a program, holding as many narrow rows as fill WARP_TILE floats: a row's reductions are
    shuffles inside the warp, with no shared memory or barrier, and narrow rows keep every lane busy."""
    return {"BLOCK_R": max(1, WARP_TILE // triton.next_power_of_2(cols)), "num_warps": 1}


def streaming_geometry(cols: int) -> dict:
    """Chunks of up to 4096 columns (16 floats a thread at 8 warps); rows narrower than a tile are
    taken several a program."""
    width = triton.next_power_of_2(cols)
    return {"BLOCK_R": max(1, TILE // width), "BLOCK_C": min(width, INTERPRETER_CHUNK if INTERPRETED else 4096),
            "num_warps": 8}


@triton.jit
def program_rows(x_ptr, rows, x_stride, BLOCK_R: tl.constexpr):
    """A program's BLOCK_R rows, which of them exist, and pointers to their starts (BLOCK_R × 1)."""
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    return r, r < rows, x_ptr + r.to(tl.int64)[:, None] * x_stride


@triton.jit
def tile_span(tile, total, cols, CHUNK: tl.constexpr):
    """A flat tile's first element, the row it is in, the offset in the tile where the next row starts
    (CHUNK or more: not in this tile; a tile is never wider than a row, so it holds at most two) and its
    element count. Offsets inside a tile are int32: 64-bit ones for every element cost the registers
    that kept the earlier split's kernels at one block an SM."""
    start = tile.to(tl.int64) * CHUNK
    first_row = start // cols
    return start, first_row, ((first_row + 1) * cols - start).to(tl.int32), tl.minimum(total - start, CHUNK).to(tl.int32)


@triton.jit
def load_tile(x_ptr, n, whole, other, CHUNK: tl.constexpr):
    # A whole tile is read without a mask: its 16-byte loads need no proof that the mask is constant
    # over 4 elements, which a row width such as 4099 would deny them. Only the last tile is ragged.
    local = tl.arange(0, CHUNK)
    if whole:
        x = tl.load(x_ptr + local)
    else:
        x = tl.load(x_ptr + local, mask=local < n, other=other)
    return x


@triton.jit
def store_tile(out_ptr, n, whole, value, CHUNK: tl.constexpr):
    local = tl.arange(0, CHUNK)
    if whole:
        tl.store(out_ptr + local, value)
    else:
        tl.store(out_ptr + local, value, mask=local < n)


@triton.jit
def row_slots(r, cols, CHUNK: tl.constexpr, TILES: tl.constexpr):
    """For rows r: the partial slot (tile · 2 + which) of every tile each row touches (rows × TILES) and
    which exist. A row is in slot 1 of its first tile when that tile began in the row before, else in
    slot 0; its later tiles all begin inside it."""
    row_start = r.to(tl.int64) * cols
    first = row_start // CHUNK
    k = first[:, None] + tl.arange(0, TILES)[None, :]
    later = (k == first[:, None]) & ((first * CHUNK) != row_start)[:, None]
    return k * 2 + later.to(tl.int64), k <= ((row_start + cols - 1) // CHUNK)[:, None]


@triton.jit
def publish(sync_ptr, first_row, reaches_next):
    """Count this tile's statistics as stored in its rows' counters (the row it starts in, and the next
    if it reaches it): integer arrivals, ordered after every store of the program."""
    tl.debug_barrier()
    tl.atomic_add(sync_ptr + first_row, 1, sem="release")
    if reaches_next:
        tl.atomic_add(sync_ptr + first_row + 1, 1, sem="release")


@triton.jit
def wait_for_row(sync_ptr, row, cols, CHUNK: tl.constexpr):
    """Spin until every tile of ``row`` has published its statistics."""
    row_start = row * cols
    need = (row_start + cols - 1) // CHUNK - row_start // CHUNK + 1
    seen = tl.atomic_add(sync_ptr + row, 0, sem="acquire")
    while seen < need:
        seen = tl.atomic_add(sync_ptr + row, 0, sem="acquire")


@triton.jit
def pick(values, which):
    """Element ``which`` (0 or 1) of a two-element vector, as a scalar."""
    return tl.sum(tl.where(tl.arange(0, 2) == which, values, 0.0), axis=0)


def prepared(spec, x, *operands):
    """(x with unit column stride, the output) once the inputs are valid."""
    spec.validate(x, *operands)
    out = empty_output(tuple(x.shape), like=x)
    return (x if x.stride(1) == 1 else x.contiguous()), out


def refuse(rule, x) -> None:
    """Raise InputError with the strategy's reason if it cannot take rows as wide as ``x``'s."""
    if reason := rule({"cols": x.shape[1]}):
        raise InputError(reason)


def launch_rows(kernel, x, operands, out, scalars, geometry=None):
    """A whole-rows kernel: autotuned, or at ``geometry(cols)`` (BLOCK_R and num_warps)."""
    rows, cols = x.shape
    if out.numel():
        meta = geometry(cols) if geometry else {}
        grid = (triton.cdiv(rows, meta["BLOCK_R"]),) if meta else lambda tuned: (triton.cdiv(rows, tuned["BLOCK_R"]),)
        kernel[grid](x, *operands, out, rows, cols, x.stride(0), *scalars, BLOCK_C=triton.next_power_of_2(cols), **meta)
    return out


def launch_streaming(kernel, x, operands, out, scalars, statistics: int):
    rows, cols = x.shape
    if out.numel():
        meta = streaming_geometry(cols)
        kernel[(triton.cdiv(rows, meta["BLOCK_R"]),)](x, *operands, out, rows, cols, x.stride(0), *scalars,
                                                      STATISTICS=statistics, **meta)
    return out


def _tiles(x, split_cols: int) -> tuple[int, int, int, int, int]:
    """(chunk, tiles, whole tiles, tiles a row, warps a program) of x (rows.tile_plan)."""
    rows, cols = x.shape
    chunk, tiles, whole = shared.tile_plan(rows, cols, split_cols)
    warps = max(1, min(16, chunk // (32 * SPLIT_FLOATS_A_THREAD)))
    return chunk, tiles, whole, shared.tiles_a_row(cols, chunk), warps


def launch_split(stats_kernel, combine_kernel, normalize_kernel, x, operands, out, scalars, stats: int,
                 split_cols: int):
    """The split strategy, three launches: flat tiles' statistics into a tiles × 2 × ``stats`` buffer
    (stats_kernel: x, partials, total, cols, whole tiles), each row's combined into rows × 2
    (combine_kernel: partials, row statistics, rows, cols, scalars), then the tiles normalized
    (normalize_kernel: x, operands, out, row statistics, rows, cols, total, whole tiles)."""
    rows, cols = x.shape
    if out.numel() == 0:
        return out
    x = x.contiguous()  # flat tiles need the rows back to back
    chunk, tiles, whole, per_row, warps = _tiles(x, split_cols)
    part = shared.partials(tiles, stats, like=x)
    row_stats = x.new_empty((rows, 2))
    stats_kernel[(tiles,)](x, part, x.numel(), cols, whole, CHUNK=chunk, num_warps=warps)
    width = triton.next_power_of_2(per_row)
    block_rows = max(1, COMBINE_SLOTS // width)
    combine_kernel[(triton.cdiv(rows, block_rows),)](part, row_stats, rows, cols, *scalars, BLOCK_R=block_rows,
                                                     CHUNK=chunk, TILES=width, num_warps=4)
    normalize_kernel[(tiles,)](x, *operands, out, row_stats, rows, cols, x.numel(), whole, CHUNK=chunk,
                               num_warps=warps)
    return out


def launch_lagged(kernel, x, operands, out, scalars, stats: int, split_cols: int):
    """The lagged strategy, one kernel (after zeroing its counters): x, operands, out, partials, the
    counters (one a row, then the ticket), rows, cols, total, tiles, whole tiles, lag, scalars. The lag is
    the most tiles a row touches, so a program waits only for tiles of earlier tickets: programs that have
    started, whose statistics come before anything they wait for, so the wait always ends."""
    rows, cols = x.shape
    if out.numel() == 0:
        return out
    x = x.contiguous()
    chunk, tiles, whole, per_row, warps = _tiles(x, split_cols)
    part = shared.partials(tiles, stats, like=x)
    counters = torch.zeros(rows + 1, dtype=torch.int32, device=x.device)
    kernel[(tiles + per_row,)](x, *operands, out, part, counters, rows, cols, x.numel(), tiles, whole, per_row,
                               *scalars, CHUNK=chunk, TILES=triton.next_power_of_2(per_row), num_warps=warps)
    return out


def lagged_available(device: str) -> str | None:
    """The lagged strategy runs where its programs run at once: on the CPU, Triton's interpreter had not
    finished one 1024×1024 seed case of LayerNorm's lagged kernel in 20 minutes (each waits on other
    programs' published statistics), so only its own tests run it there, at small sizes."""
    if device == "cpu":
        return ("the lagged kernel waits on other programs' statistics, which Triton's interpreter takes "
                "minutes to serve at the seed sizes: a GPU strategy (tests/test_reduction.py runs it small)")
    return triton_available(device)


def register_strategies(op: str, variant: str, in_registers, streaming, online: int, twopass: int) -> None:
    """Register an op's row strategies that differ only in geometry or statistics: ``registers`` and
    ``warp`` from ``in_registers(geometry, takes)``, ``online`` and ``twopass`` from ``streaming(statistics)``."""
    for strategy, geometry, takes in (("registers", registers_geometry, shared.registers_takes),
                                      ("warp", warp_geometry, shared.warp_takes)):
        implementation(op, family="triton", strategy=strategy, variants=(variant,), available=triton_available,
                       takes=takes)(in_registers(geometry, takes))
    for strategy, statistics in (("online", online), ("twopass", twopass)):
        implementation(op, family="triton", strategy=strategy, variants=(variant,),
                       available=triton_available)(streaming(statistics))
