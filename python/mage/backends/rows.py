"""What the row-wise reductions (layernorm, softmax) share: the reduction study's widths, which widths
each kernel design can take, and how the split strategy cuts a row.

Strategies (mage.identity) of one op differ in how the programs share a row's work:

- ``registers``: a program holds whole rows in registers; the row is read once. Limited by registers.
- ``warp``: one warp a program, holding several narrow rows; its reductions never leave the warp.
- ``split``: a row cut into chunks over several programs, combined without atomics by a second kernel.
- ``online``: one program streams the row, folding each chunk into running statistics: two reads.
- ``twopass``: one program streams the row once per statistic, then once more to write: three reads.
"""

from __future__ import annotations

import torch

from mage.spec import Case

# The study's widths: powers of two, a prime-ish neighbour of each register limit, and beyond them.
REDUCTION_WIDTHS = (64, 256, 1000, 1024, 4096, 4099, 16384, 65536, 65537, 262144)
REDUCTION_BYTES = 256 * 2**20  # input per case: well past the H200's L2, so each case streams HBM

# Widest rows a design keeps in registers: a warp's 32 lanes × 32 floats; 16 warps × 32 floats a lane.
WARP_MAX_COLS = 1024
REGISTERS_MAX_COLS = 16384
# Columns one split program takes on a GPU: a quarter of the register limit, so that 4+ programs
# share a row once it is too wide for one.
SPLIT_COLS = 4096


def row_cases(op: str) -> list[Case]:
    """The cases of a row-wise op: seed, large and sweep shapes (GUIDE §3), and the study's widths,
    one case each with enough rows for REDUCTION_BYTES of float32 input (named apart from the sweep
    cases of the same shape)."""

    def case(rows: int, cols: int, suite: str, name: str = "") -> Case:
        return Case(op, name or f"{rows}x{cols}", suite, {"rows": rows, "cols": cols}, seed=rows * 31 + cols)

    sweep = [case(rows, cols, "sweep") for rows, cols in ((4096, 1024), (16384, 1024), (16384, 4096))]
    study = []
    for cols in REDUCTION_WIDTHS:
        rows = -(-REDUCTION_BYTES // (4 * cols))
        study.append(case(rows, cols, "reduction", f"{rows}x{cols}-study"))
    return [case(1024, 1024, "seed"), case(65536, 4096, "large"), *sweep, *study]


def warp_takes(params: dict) -> str | None:
    if params["cols"] > WARP_MAX_COLS:
        return (f"a warp keeps at most {WARP_MAX_COLS} floats of a row in registers (32 a lane); "
                f"{params['cols']} columns would spill")
    return None


def registers_takes(params: dict) -> str | None:
    if params["cols"] > REGISTERS_MAX_COLS:
        return (f"a program keeps at most {REGISTERS_MAX_COLS} floats of a row in registers (16 warps, 32 a "
                f"lane); {params['cols']} columns would spill: the split, online and twopass strategies take it")
    return None


def split_plan(rows: int, cols: int, split_cols: int) -> tuple[int, int, int]:
    """(rows a program, chunk, chunks) for rows ``cols`` wide cut into power-of-two chunks of at most
    ``split_cols``; a program takes several rows when its chunk is narrower than SPLIT_COLS."""
    chunk = min(split_cols, 1 << max(cols - 1, 0).bit_length())
    block_rows = min(max(1, SPLIT_COLS // chunk), 1 << max(rows - 1, 0).bit_length())
    return block_rows, chunk, -(-cols // chunk)


def partials(rows: int, chunks: int, stats: int, like: torch.Tensor) -> torch.Tensor:
    """The split's rows × chunks × stats buffer of per-chunk statistics, every element written by the
    first kernel before the second reads it."""
    return torch.empty((rows, chunks, stats), dtype=torch.float32, device=like.device)
