"""What the Triton kernels of the row-wise reductions (layernorm, softmax) share: the default
strategy's autotune list, the fixed launch geometry of the study's strategies, jit helpers that
address a program's rows, and the host side of each strategy's launch.

Every kernel of these ops takes ``x, *operands, out`` (operands: the op's per-column tensors), then
``rows, cols, x_stride`` (split kernels: the partials buffer and ``rows, cols, x_stride, chunks``), then
the op's scalars; mage.backends.rows says how each strategy shares a row's work.
"""

from __future__ import annotations

import triton
import triton.language as tl

from mage.backends import rows as shared
from mage.backends.triton import INTERPRETED, pick_configs, prune_wider_than, triton_available
from mage.errors import InputError
from mage.outputs import empty_output
from mage.registry import implementation

SPLIT_WARPS = 8  # a split program's tile of SPLIT_COLS (4096) floats is 16 a thread


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


def registers_geometry(cols: int) -> dict:
    """Whole rows, TILE floats a program or one row, 16 floats a thread (4 to 16 warps)."""
    width = triton.next_power_of_2(cols)
    block_rows = max(1, TILE // width)
    return {"BLOCK_R": block_rows, "num_warps": max(4, min(16, block_rows * width // 512))}


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
def row_partials(part_ptr, rows, chunks, STATS: tl.constexpr, BLOCK_R: tl.constexpr, CHUNKS_P2: tl.constexpr):
    """For a split normalize program: its rows, which of them exist, the addresses of their
    partials (BLOCK_R × CHUNKS_P2, the first statistic of each; the others follow it) and their mask."""
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    row_ok = r < rows
    k = tl.arange(0, CHUNKS_P2)
    slots = part_ptr + (r.to(tl.int64)[:, None] * chunks + k[None, :]) * STATS
    return r, row_ok, slots, row_ok[:, None] & (k < chunks)[None, :]


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


def launch_split(stats_kernel, normalize_kernel, x, operands, out, scalars, stats: int, split_cols: int):
    """The split strategy: chunk statistics into a rows × chunks × ``stats`` buffer, then the combine."""
    rows, cols = x.shape
    if out.numel() == 0:
        return out
    block_rows, chunk, chunks = shared.split_plan(rows, cols, split_cols)
    part = shared.partials(rows, chunks, stats, like=x)
    grid = (triton.cdiv(rows, block_rows), chunks)
    stats_kernel[grid](x, part, rows, cols, x.stride(0), chunks, BLOCK_R=block_rows, CHUNK=chunk,
                       num_warps=SPLIT_WARPS)
    normalize_kernel[grid](x, *operands, out, part, rows, cols, x.stride(0), chunks, *scalars, BLOCK_R=block_rows,
                           CHUNK=chunk, CHUNKS_P2=triton.next_power_of_2(chunks), num_warps=SPLIT_WARPS)
    return out


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
