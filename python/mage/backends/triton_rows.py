"""What the Triton kernels of the row-wise reductions (layernorm, softmax) share: autotune lists
sized for whole rows, warp rows and streamed rows, and the host side of each strategy's launch.

Every kernel of these ops takes ``x, *operands, out`` (operands: the op's per-column tensors), then
``rows, cols, x_stride`` (split kernels: the partials buffer and ``rows, cols, x_stride, chunks``), then
the op's scalars; mage.backends.rows says how each strategy shares a row's work.
"""

from __future__ import annotations

import triton
import triton.language as tl

from mage.backends import rows as shared
from mage.backends.triton import pick_configs, prune_wider_than
from mage.errors import InputError
from mage.outputs import empty_output

SPLIT_WARPS = 8  # a split program's tile of SPLIT_COLS (4096) floats is 16 a thread


def _tile_limit(args):
    # Keep BLOCK_R · BLOCK_C ≤ 16 K elements (64 regs a thread at 8 warps) but allow one row.
    return max(1, shared.REGISTERS_MAX_COLS // args["BLOCK_C"])


def _warp_tile_limit(args):
    # One warp holds at most 1024 floats (32 a lane) of however many rows.
    return max(1, shared.WARP_MAX_COLS // args["BLOCK_C"])


def registers_autotune(kernel):
    """``kernel`` (a whole-rows kernel) autotuned over BLOCK_R rows a program and 4–16 warps."""
    full = [triton.Config({"BLOCK_R": r}, num_warps=w) for r in (1, 2, 4, 8, 16) for w in (4, 8, 16)]
    return triton.autotune(configs=pick_configs(full, [triton.Config({"BLOCK_R": 16}, num_warps=4)]),
                           key=["rows", "cols"],
                           prune_configs_by={"early_config_prune": prune_wider_than("BLOCK_R", _tile_limit)})(kernel)


def warp_autotune(kernel):
    """``kernel`` (a whole-rows kernel) launched with one warp a program: a row's reductions are
    shuffles inside the warp, with no shared memory or barrier, and narrow rows fill the warp."""
    full = [triton.Config({"BLOCK_R": r}, num_warps=1) for r in (1, 2, 4, 8)]
    return triton.autotune(configs=pick_configs(full, [triton.Config({"BLOCK_R": 4}, num_warps=1)]),
                           key=["rows", "cols"],
                           prune_configs_by={"early_config_prune": prune_wider_than("BLOCK_R", _warp_tile_limit)})(kernel)


def _streaming_limit(args):
    # No chunk wider than the row.
    return triton.next_power_of_2(args["cols"])


def streaming_autotune(kernel):
    """``kernel`` (BLOCK_R rows a program streaming BLOCK_C columns at a time) autotuned; its
    STATISTICS constexpr (which formula) is part of the key. Under the interpreter, 16 rows a
    program (its cost is per program) in chunks narrower than the seed case's rows, so that they are merged."""
    full = [triton.Config({"BLOCK_R": 1, "BLOCK_C": c}, num_warps=w) for c in (2048, 4096) for w in (4, 8)]
    full += [triton.Config({"BLOCK_R": 4, "BLOCK_C": 1024}, num_warps=w) for w in (4, 8)]
    interpreted = [triton.Config({"BLOCK_R": 16, "BLOCK_C": 128}, num_warps=4)]
    return triton.autotune(configs=pick_configs(full, interpreted), key=["rows", "cols", "STATISTICS"],
                           prune_configs_by={"early_config_prune": prune_wider_than("BLOCK_C", _streaming_limit)})(kernel)


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
    return r, row_ok, part_ptr + (r.to(tl.int64)[:, None] * chunks + k[None, :]) * STATS, row_ok[:, None] & (k < chunks)[None, :]


def prepared(spec, x, *operands):
    """(x with unit column stride, the output) once the inputs are valid."""
    spec.validate(x, *operands)
    out = empty_output(tuple(x.shape), like=x)
    return (x if x.stride(1) == 1 else x.contiguous()), out


def refuse(rule, x) -> None:
    """Raise InputError with the strategy's reason if it cannot take rows as wide as ``x``'s."""
    if reason := rule({"cols": x.shape[1]}):
        raise InputError(reason)


def launch_rows(kernel, x, operands, out, scalars):
    rows, cols = x.shape
    if out.numel():
        grid = lambda meta: (triton.cdiv(rows, meta["BLOCK_R"]),)
        kernel[grid](x, *operands, out, rows, cols, x.stride(0), *scalars, BLOCK_C=triton.next_power_of_2(cols))
    return out


def launch_streaming(kernel, x, operands, out, scalars, statistics: int):
    rows, cols = x.shape
    if out.numel():
        grid = lambda meta: (triton.cdiv(rows, meta["BLOCK_R"]),)
        kernel[grid](x, *operands, out, rows, cols, x.stride(0), *scalars, STATISTICS=statistics)
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
