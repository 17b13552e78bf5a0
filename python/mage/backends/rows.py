"""What the row-wise reductions (layernorm, softmax) share: the reduction study's widths, which widths
each kernel design can take, and how the split strategy cuts a row.

Strategies (mage.identity) of one op differ in how the programs share a row's work:

- ``registers``: a program holds whole rows in registers; the row is read once. Limited by registers.
- ``warp``: one warp a program, holding several narrow rows; its reductions never leave the warp.
- ``split``: the input read as one flat array cut into tiles (a row spread over several programs), the
  tiles' statistics combined per row by a tiny second kernel (no atomics), normalized by a third.
- ``lagged``: the split's tiles in one launch: each program publishes its tile's statistics, then
  normalizes a tile a row's length behind it, whose second read comes from L2, not DRAM.
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
# Elements of a split tile on a GPU: 16,384 tiles for the study's 256 MB, so every width keeps every SM
# busy (far more than 2 × 132 programs) with 16-byte loads in flight.
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


def tile_plan(rows: int, cols: int, split_cols: int) -> tuple[int, int, int]:
    """(chunk, tiles, whole tiles) of the split: the rows × cols input read as one flat array in tiles of
    ``chunk`` elements, the largest power of two ≤ min(cols, split_cols). A tile is never wider than a row,
    so it holds parts of at most two; it is aligned whatever the width (4099 columns too), and every tile
    but a ragged last is whole, read without a mask, which is what lets the kernels load 16 bytes at a time."""
    chunk = 1 << (min(cols, split_cols).bit_length() - 1)
    total = rows * cols
    return chunk, -(-total // chunk), total // chunk


def tiles_a_row(cols: int, chunk: int) -> int:
    """The most tiles one row touches: its width in tiles, plus one where it starts inside a tile."""
    return -(-cols // chunk) + 1


def partials(tiles: int, stats: int, like: torch.Tensor) -> torch.Tensor:
    """The split's tiles × 2 × stats buffer: each tile's statistics of the row it starts in (slot 0) and of
    the next row (slot 1, empty when the tile lies in one row), every element written before it is read."""
    return torch.empty((tiles, 2, stats), dtype=torch.float32, device=like.device)
