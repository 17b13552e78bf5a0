"""Neighbor aggregation (sum, mean) over CSR (native.cu): no floating-point atomics, deterministic.

One kernel template, scheduled the ways below (the strategies, each registered for both host paths):

- ``native`` (default, one launch): a group of T threads per row (T · 4 ≥ F features when F
  allows float4s), 256 / T rows a block; rows above LONG_ROW edges are taken by the whole block
  of their tile, and rows above HUB_ROW (a hub that would hold one block long after the grid has
  drained) are cut into merge-path pieces of HUB_PIECE items, spread over blocks and added up by
  the last piece to finish (an integer arrival counter; the partials are added in piece order).
  Pieces are launched only for a graph that has such a row.
- ``native.warp``: row per warp: one group per row, whatever its degree.
- ``native.block``: row per block: every row by all 256 threads, one row a block.
- ``native.edge``: edge-balanced (merge path over the row pointer): every block takes EDGE_PIECE
  items of rows and edges; rows cut by a piece boundary are added by a second pass over the
  partials (neighbor_agg_combine_*), two launches.
- ``native.split``: rows up to SPLIT_ROW edges by a group, longer ones cut into pieces of
  SPLIT_PIECE items and added by the second pass: hubs split across blocks, two launches.
- ``native.inflight``: the default's schedule, its kernels compiled so that a round's row loads are all
  issued before its adds (native.cu's INFLIGHT: the sum kernel's SASS otherwise interleaves them).
- ``native.merge`` (and ``native.merge512``, ``native.merge2048``, its piece sizes): edge-balanced in one
  launch: merge-path pieces of MERGE_PIECE items (512, 2048) over all rows, the inflight kernels' load
  order; inside a piece a row of up to MERGE_LONG_ROW edges goes to one group, a longer one to the
  whole block, and a row cut by pieces is added up by the last piece to finish it (arrival counter),
  all of its groups at once. No preparation step: the pieces are found by binary search of rowptr
  inside the kernel. For R-MAT and the hub (the skewed graphs of the schedule study), where one group per row leaves one long row
  as a serial chain and two-launch merge path (``native.edge``) pays its second pass.
- ``native.coop`` (and ``native.coop64``, its MERGE_LONG_ROW doubled): native.merge's pieces with the coop
  kernels: each block first copies its piece's slice of rowptr and of col (its values times F: offsets into x)
  into shared memory, coalesced, so a row then waits only for its rows of x, and a round of 8 gathered rows is
  63 instructions in sm_90 SASS where merge's takes 230 (native.cu's COOP). For the graphs whose x stays in L2
  (R-MAT and the hub at 64 K nodes), where merge is latency-bound (ncu: 44 % of warps active, long-scoreboard
  stalls) and issue-bound. The same additions in the same order as merge, so the same bits.
- ``native.coop-f128``, ``native.coop-f32``: coop with each block taking one slice of 128 or 32 features, the
  grid slice-major, so that one slice of x is gathered at a time: at F 512 (x 128 MiB) and on the large case
  (x 512 MiB) a slice is a quarter of x, where the whole does not stay in a 50 MiB L2 (cuSPARSE, which
  walks the features in slices, led there).
- ``native.coop-3blocks``: coop's kernels at 3 blocks an SM instead of 4 (76 registers a thread, not 64), so
  that each warp issues all of a round's row loads before its first add (3 or 4 at 64 registers): fewer warps,
  each with more rows in flight. The same bits as coop.
- ``native.tuned`` (the champion): the fastest of coop, coop64, coop-f128, coop-f32, coop-3blocks, merge, merge512
  and merge2048 for each graph shape (rows, edges, features, index type), timed once on the GPU (TUNER); the
  choice is stored with each result as its tuning.
- ``native.sorted``: rows visited longest first (degree-sorted: blocks of similar rows, hubs
  started first). The reordering step (torch.argsort of the degrees, on the device) is part of
  the timed call: its kernels are in the call's kernel time and launch count.

int32 and int64 indices each have their kernels, so indices are never converted.

The kernels index x with the graph's values, so the CSR structure is checked (the spec's
validate_values, through check_inputs) before the first launch on a graph. That check reads
device memory and synchronizes, so it runs once per (rowptr, col) pair of tensors and is
remembered, with the graph's largest degree, while neither is modified in place (torch's
version counter) or resized, and x keeps its row count. Later calls on the same graph check x's
dtype, rank, device and layout only, without synchronizing, which is also what lets a launch be
captured in a CUDA graph.
"""

import functools
import weakref
from dataclasses import dataclass

import torch

from mage.backends.native import Kernel, aligned, cdiv, check_inputs, register
from mage.backends.tuning import Tuner
from mage.ops.neighbor_agg.counters import arrival_counters
from mage.ops.neighbor_agg.spec import SPEC
from mage.outputs import empty_output

THREADS = 256
LONG_ROW = 128  # rows with more edges are taken by a whole block
HUB_ROW = 8192  # the default's rows with more edges are cut into pieces
HUB_PIECE = 4096  # items (edges and row ends) of the default's pieces
EDGE_PIECE = 1024
SPLIT_ROW, SPLIT_PIECE = 128, 1024
# merge: a row above 32 edges is 4 rounds of 8 loads for one group, 1 for the whole block (8 groups at F ≥ 128,
# 32 at F 32) at the price of two barriers.
MERGE_PIECE, MERGE_LONG_ROW = 1024, 32
# The coop kernels stage a piece of at most native.cu's COOP_ITEMS items and take x's element offsets and edge
# numbers as int; beyond either they are merge's kernels.
COOP_ITEMS = 1024
COOP_MAX_INDEX = (1 << 31) - 1
NEVER = 1 << 62  # a degree no row reaches
INDEX = {torch.int32: "i32", torch.int64: "i64"}
# native.cu's kernel sets: the default's, the inflight ones (a round's row loads before its adds), the coop ones
# (inflight, reading each piece's rows and edges from the block's copy in shared memory) and coop3 (coop at 3
# blocks an SM: a whole round's loads in flight).
KERNEL_SETS = ("", "inflight_", "coop_", "coop3_")
COOP_SETS = ("coop_", "coop3_")
KERNELS = {
    (variant, index, vector, kernel_set): Kernel(
        "neighbor_agg", f"neighbor_agg_{kernel_set}{variant}_{index}{'_x4' if vector else ''}", "pppppppliiilllliii"
    )  # rowptr, col, x, out, partials, arrivals, order, n, F, T, rows_per_block, long_row, split_row, row_blocks, items,
    #    use_order, combine_here, slice_features
    for variant in ("sum", "mean")
    for index in INDEX.values()
    for vector in (True, False)
    for kernel_set in KERNEL_SETS
}
COMBINE = {
    key[:3]: Kernel("neighbor_agg", f"neighbor_agg_combine_{key[0]}_{key[1]}{'_x4' if key[2] else ''}", "pppliill")
    for key in KERNELS
}  # rowptr, partials, out, n, F, T, split_row, items


@dataclass(frozen=True)
class Schedule:
    """How one strategy maps rows to blocks (see native.cu): tiles of rows and/or merge-path pieces."""

    tiles: bool = True  # blocks of 256 / T rows (or one row, with row_per_block)
    row_per_block: bool = False
    long_row: int = LONG_ROW  # tile rows above it: the whole block
    split_row: int = NEVER  # rows above it: pieces
    piece: int = HUB_PIECE
    combine_here: bool = True  # the last piece adds a cut row's partials; else a second launch does
    sorted_rows: bool = False
    kernel_set: str = ""  # one of KERNEL_SETS
    feature_slice: int = 0  # features a block takes (slices of x gathered one after another); 0: all of them

    def __post_init__(self):
        if self.kernel_set in COOP_SETS and (self.tiles or self.split_row >= 0):
            raise ValueError("the coop kernels take every row in pieces (tiles=False, split_row=-1)")


SCHEDULES = {
    "default": Schedule(split_row=HUB_ROW),
    "warp": Schedule(long_row=NEVER),
    "block": Schedule(row_per_block=True, long_row=-1),
    # edge and split keep every row inside a piece with one group (long_row: the pieces' rule since merge).
    "edge": Schedule(tiles=False, long_row=NEVER, split_row=-1, piece=EDGE_PIECE, combine_here=False),
    "split": Schedule(long_row=NEVER, split_row=SPLIT_ROW, piece=SPLIT_PIECE, combine_here=False),
    "sorted": Schedule(sorted_rows=True),
    "inflight": Schedule(split_row=HUB_ROW, kernel_set="inflight_"),
    **{f"merge{'' if piece == MERGE_PIECE else piece}": Schedule(tiles=False, long_row=MERGE_LONG_ROW, split_row=-1,
                                                                  piece=piece, kernel_set="inflight_")
       for piece in (MERGE_PIECE, MERGE_PIECE // 2, MERGE_PIECE * 2)},
    # merge's pieces with the coop kernels: a row of up to 32 edges is its row loads for a group of 32
    # (F ≥ 128); coop64 leaves rows of up to 64 edges to one group, the whole block's barriers
    # for fewer rows.
    **{f"coop{'' if long_row == MERGE_LONG_ROW else long_row}": Schedule(tiles=False, long_row=long_row, split_row=-1,
                                                                          piece=MERGE_PIECE, kernel_set="coop_")
       for long_row in (MERGE_LONG_ROW, 2 * MERGE_LONG_ROW)},
    # coop in feature slices, slice-major: coop-f128 gathers F 512's x (128 MiB, above a 50 MiB L2) in four
    # passes of 32 MiB, coop-f32 the large case's (512 MiB) in four of 128 MiB, each a full line a row.
    **{f"coop-f{width}": Schedule(tiles=False, long_row=MERGE_LONG_ROW, split_row=-1, piece=MERGE_PIECE,
                                  kernel_set="coop_", feature_slice=width)
       for width in (128, 32)},
    # coop at 3 blocks an SM (76 registers): 24 warps, each issuing all of a round's row loads before its first add,
    # where coop's 32 warps at 64 registers put 3 or 4 of them first (sm_90 SASS).
    "coop-3blocks": Schedule(tiles=False, long_row=MERGE_LONG_ROW, split_row=-1, piece=MERGE_PIECE, kernel_set="coop3_"),
}

_VALIDATED: dict[tuple[int, int], tuple] = {}
_VALIDATED_LIMIT = 64


def _state(rowptr, col, x) -> tuple:
    return (rowptr._version, col._version, rowptr.numel(), col.numel(), x.shape[0])


def known_max_degree(rowptr, col, x) -> int | None:
    """The largest degree of this (rowptr, col) pair if it passed the full validation, unmodified since,
    for x's row count; else None."""
    seen = _VALIDATED.get((id(rowptr), id(col)))
    if seen is not None and seen[0]() is rowptr and seen[1]() is col and seen[2] == _state(rowptr, col, x):
        return seen[3]
    return None


def remember_graph(rowptr, col, x) -> int:
    """Remember a validated graph with its largest degree (one synchronization), which it returns."""
    if len(_VALIDATED) >= _VALIDATED_LIMIT:
        _VALIDATED.clear()
    max_degree = int(rowptr.diff().max().item()) if rowptr.numel() > 1 else 0
    _VALIDATED[(id(rowptr), id(col))] = (weakref.ref(rowptr), weakref.ref(col), _state(rowptr, col, x), max_degree)
    return max_degree


def neighbor_agg(host, rowptr, col, x, variant, schedule: Schedule = SCHEDULES["default"]):
    ready = (
        host.holds(rowptr) and host.holds(col) and host.holds(x) and x.dtype == torch.float32 and x.dim() == 2
        and rowptr.get_device() == col.get_device() == x.get_device()
        and rowptr.is_contiguous() and col.is_contiguous() and x.is_contiguous()
    )
    max_degree = known_max_degree(rowptr, col, x) if ready else None
    if max_degree is None:
        check_inputs(host, SPEC, rowptr=rowptr, col=col, x=x)
        max_degree = remember_graph(rowptr, col, x)
    n, features = rowptr.numel() - 1, x.shape[1]
    out = empty_output((n, features), like=x)
    if out.numel() == 0:
        return out
    vector = features % 4 == 0 and aligned(x, out)
    kernel_set = schedule.kernel_set
    if kernel_set in COOP_SETS and (max(x.numel(), col.numel()) > COOP_MAX_INDEX or schedule.piece > COOP_ITEMS):
        kernel_set = "inflight_"  # merge's kernels, the same schedule
    # Features a block takes: a slice (a multiple of 4, so float4s stay whole) with the coop kernels, else all.
    width = min(features, schedule.feature_slice or features) if kernel_set in COOP_SETS else features
    per_row = min(32, 1 << (cdiv(width, 4 if vector else 1) - 1).bit_length())
    key = (variant, INDEX[rowptr.dtype], vector)
    rows_per_block = 1 if schedule.row_per_block else THREADS // per_row
    row_blocks = cdiv(n, rows_per_block) if schedule.tiles else 0
    pieces = cdiv(n + col.numel(), schedule.piece) if max_degree > schedule.split_row else 0
    slices = cdiv(features, width)
    partials = out.new_empty((max(pieces, 1), 2, features))
    arrivals = arrival_counters(x.device, pieces * slices) if pieces and schedule.combine_here else rowptr
    # Rows longest first; a stable sort, so equal degrees keep row order and the visit is fixed.
    order = torch.argsort(rowptr.diff(), descending=True, stable=True).to(rowptr.dtype) if schedule.sorted_rows else rowptr
    host.launch(KERNELS[(*key, kernel_set)], ((row_blocks + pieces) * slices, 1, 1), (THREADS, 1, 1), rowptr, col, x, out,
                partials, arrivals, order, n, features, per_row, rows_per_block, schedule.long_row, schedule.split_row,
                row_blocks, schedule.piece, int(schedule.sorted_rows), int(schedule.combine_here), width)
    if pieces and not schedule.combine_here:
        host.launch(COMBINE[key], (cdiv(n, THREADS // per_row), 1, 1), (THREADS, 1, 1), rowptr, partials, out, n,
                    features, per_row, schedule.split_row, schedule.piece)
    return out


for _strategy, _schedule in SCHEDULES.items():
    register("neighbor_agg", variants=("sum", "mean"), strategy=_strategy)(
        functools.partial(neighbor_agg, schedule=_schedule)
    )

# native.tuned: the one-launch merge-path schedules are one design with three knobs (the piece size, the
# longest row a group takes, the feature slice), and which setting wins depends on the graph: measured on
# the H200, a slice of 128 is 1.3× faster on the hub at F 512 and 1.07× slower on R-MAT at the same F, pieces
# of 2048 win at F 32 and lose 1.2× at F 128. Each graph shape gets the fastest, recorded with its results.
TUNER = Tuner("neighbor_agg native", {name: SCHEDULES[name] for name in
                                      ("coop", "coop64", "coop-f128", "coop-f32", "coop-3blocks", "merge", "merge512",
                                       "merge2048")})


@register("neighbor_agg", variants=("sum", "mean"), strategy="tuned")
def tuned_neighbor_agg(host, rowptr, col, x, variant):
    features = x.shape[-1] if x.dim() == 2 else 0
    key = (variant, rowptr.numel(), col.numel(), features, rowptr.dtype, x.device)
    schedule = TUNER.choose(key, lambda schedule: neighbor_agg(host, rowptr, col, x, variant, schedule), x.device,
                            # a slice as wide as x is coop's schedule again
                            allowed=lambda schedule: not schedule.feature_slice or schedule.feature_slice < features)
    return neighbor_agg(host, rowptr, col, x, variant, schedule)
