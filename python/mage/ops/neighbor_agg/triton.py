"""Neighbor aggregation over CSR in one launch, without floating-point atomics: each output row has one owner.

A program owns BLOCK_R consecutive rows and BLOCK_F features, in two loops:

- head: step s gathers, for all its rows at once, each row's edges s·BLOCK_E … s·BLOCK_E +
  BLOCK_E − 1 (a BLOCK_R × BLOCK_E × BLOCK_F tile of x rows; rows past their degree are masked
  and fetch nothing), for at most HEAD_STEPS steps. Most rows (median degree 5) end here.
- tail: each row longer than HEAD_STEPS · BLOCK_E then gets every lane of the program, its
  remaining edges BLOCK_R · BLOCK_E at a time, so a hub's neighbours' idle lanes do not slow it.

Both loops are ``tl.range`` loops with ``num_stages``, which Triton software-pipelines with
cp.async on Hopper (step s + 1's column indices and step s's x rows in flight together).

Long rows: the largest degree the power-law case allows is √edges = 4,096, i.e. 4096 / (BLOCK_R ·
BLOCK_E) pipelined steps for one program, against one step for the median row; the ~350 such
rows among tens of thousands of row blocks overlap with the rest of the grid instead of forming
its tail. A hub above HUB_ROW edges (the hub graph's row holds a tenth of all edges) would keep one
program busy long after the grid has drained, so it is cut into pieces: the same launch has one
program per HUB_PIECE edges of the graph (and feature block), each of which sums the part of a hub
in its edges into a partial row; the last of a hub's pieces to finish, which an int32 counter
names, adds the partials in piece order. Integer atomics order nothing in the arithmetic: whoever
is last adds the same partials in the same order. Pieces without a hub return after two binary
searches over rowptr.

NaN and infinities: sums carry them as float64 does (a row that gathers a NaN, or +inf and −inf, is NaN; one
that gathers an infinity is that infinity); masked lanes load 0.0, which adds nothing. The mean's only
guard divides by max(degree, 1), an integer: a row without edges is 0, as in eager.

A graph of one row: Triton specializes an integer argument equal to 1 into a constant, and Triton 3.6's
coalesce pass fails an assertion compiling this kernel with n_rows so specialized (PassManager::run failed).
n_rows is never specialized (do_not_specialize): it bounds masks and loops only, so nothing is lost.

Determinism: every row is summed in an order fixed by the graph and the config alone (slot by
slot over the steps, then a fixed tree over the slots), so results are bitwise reproducible
run to run. That order differs from eager's index_add; both are float32 sums.
"""

import triton
import triton.language as tl

from mage.backends.triton import pick_configs, prune_wider_than, triton_available
from mage.ops.neighbor_agg.counters import arrival_counters
from mage.ops.neighbor_agg.spec import SPEC
from mage.outputs import empty_output
from mage.registry import implementation

# Steps of the all-rows loop; a row's edges beyond HEAD_STEPS · BLOCK_E go to the one-row loop.
HEAD_STEPS = tl.constexpr(4)
# Rows above HUB_ROW edges are cut into pieces of HUB_PIECE edges, each a program of its own.
HUB_ROW = tl.constexpr(8192)
HUB_PIECE = tl.constexpr(4096)
FEATURE_BLOCK_MIN = 16  # the narrowest BLOCK_F: the counters are sized for that many feature blocks


def _neighbor_agg_configs():
    def config(r, e, f, warps, stages):
        return triton.Config({"BLOCK_R": r, "BLOCK_E": e, "BLOCK_F": f, "NUM_STAGES": stages}, num_warps=warps)

    # Tiles of 4 K floats at 4 warps, 8 K at 8 (no spills for sm_90 at F = 128); with F = 128 an
    # x row is 512 contiguous bytes, 32 lanes × 16 bytes. Few rows × many edge slots suits long
    # rows, many rows × few slots the median degree of 5. num_stages = 3 pipelines the gathers.
    full = [
        config(r, e, f, 4, s)
        for r, e in ((1, 32), (2, 16), (4, 8), (8, 4), (16, 2))
        for f in (128, 64)
        for s in (1, 3)
    ]
    full += [config(r, e, 128, 8, 3) for r, e in ((4, 16), (8, 8), (16, 4))]
    return pick_configs(full, [config(16, 8, 64, 4, 1)])


def _feature_tile_bound(args) -> int:
    """The widest useful BLOCK_F: F rounded up to a power of two, at least 16."""
    return max(FEATURE_BLOCK_MIN, triton.next_power_of_2(args["F"]))


_PRUNE_FEATURE_TILES = {"early_config_prune": prune_wider_than("BLOCK_F", _feature_tile_bound)}


@triton.jit
def _tile_of(pid, f_blocks):
    """(row block, feature block) of program ``pid``, feature blocks fastest."""
    return pid // f_blocks, pid % f_blocks


@triton.jit
def _row_of_edge(rowptr_ptr, n_rows, edge):
    """The row holding ``edge``: the last row r with rowptr[r] <= edge (empty rows before it share its offset)."""
    lo = edge * 0
    hi = lo + n_rows - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if tl.load(rowptr_ptr + mid).to(tl.int64) <= edge:
            lo = mid
        else:
            hi = mid - 1
    return lo


@triton.jit
def _hub_piece(rowptr_ptr, col_ptr, x_ptr, out_ptr, partials_ptr, arrivals_ptr, piece_program, f_blocks, n_rows,
               n_edges, F, x_stride, MEAN: tl.constexpr, LANES: tl.constexpr, BLOCK_F: tl.constexpr,
               NUM_STAGES: tl.constexpr):
    """Piece q = edges [q·HUB_PIECE, (q + 1)·HUB_PIECE), for one feature block: the part of each hub row
    in it (at most two, since a hub is longer than a piece: slot 0 the row holding the piece's first
    edge, slot 1 the one holding its last) becomes a partial sum; the last piece of a hub to arrive
    (an int32 counter, acq_rel) adds the hub's partials in piece order and stores its row."""
    piece, feat_block = piece_program // f_blocks, piece_program % f_blocks
    feats = feat_block * BLOCK_F + tl.arange(0, BLOCK_F)
    feat_ok = feats < F
    lanes = tl.arange(0, LANES).to(tl.int64)
    first_edge = piece.to(tl.int64) * HUB_PIECE
    last_edge = tl.minimum(first_edge + HUB_PIECE, n_edges) - 1
    first_row = _row_of_edge(rowptr_ptr, n_rows, first_edge)
    last_row = _row_of_edge(rowptr_ptr, n_rows, last_edge)
    for slot in tl.static_range(2):
        if slot == 0:
            row = first_row
        else:
            row = last_row
        start = tl.load(rowptr_ptr + row).to(tl.int64)
        end = tl.load(rowptr_ptr + row + 1).to(tl.int64)
        hub = end - start > HUB_ROW
        if slot == 1:
            hub = hub & (last_row != first_row)
        if hub:
            acc = tl.zeros((LANES, BLOCK_F), dtype=tl.float32)
            for e in tl.range(tl.maximum(start, first_edge), tl.minimum(end, last_edge + 1), LANES, num_stages=NUM_STAGES):
                live = e + lanes < tl.minimum(end, last_edge + 1)
                src = tl.load(col_ptr + e + lanes, mask=live, other=0).to(tl.int64)
                acc += tl.load(x_ptr + src[:, None] * x_stride + feats[None, :], mask=live[:, None] & feat_ok[None, :],
                               other=0.0)
            tl.store(partials_ptr + (piece * 2 + slot) * F + feats, tl.sum(acc, axis=0), mask=feat_ok)
            first_piece, last_piece = start // HUB_PIECE, (end - 1) // HUB_PIECE
            counter = arrivals_ptr + first_piece * f_blocks + feat_block
            tl.debug_barrier()  # every lane's partial is written before the arrival is counted
            if tl.atomic_add(counter, 1, sem="acq_rel", scope="gpu") == last_piece - first_piece:
                total = tl.zeros((BLOCK_F,), dtype=tl.float32)
                for q in range(first_piece, last_piece + 1):
                    # The hub holds piece q's first edge unless it starts inside piece q (its first piece).
                    held = tl.where(start <= q * HUB_PIECE, 0, 1)
                    total += tl.load(partials_ptr + (q * 2 + held) * F + feats, mask=feat_ok, other=0.0,
                                     cache_modifier=".cg")
                if MEAN:
                    total = total / (end - start).to(tl.float32)
                tl.store(out_ptr + row.to(tl.int64) * F + feats, total, mask=feat_ok)
                tl.atomic_xchg(counter, 0)  # left zero for the next launch


@triton.autotune(configs=_neighbor_agg_configs(), key=["n_rows", "n_edges", "F"], prune_configs_by=_PRUNE_FEATURE_TILES)
@triton.jit(do_not_specialize=["n_rows"])  # a graph of one row: see the module's docstring
def _neighbor_agg_rows_kernel(
    rowptr_ptr,  # n_rows + 1, int32 or int64
    col_ptr,  # n_edges, same dtype as rowptr
    x_ptr,  # n_src × F, row stride x_stride
    out_ptr,  # n_rows × F, contiguous
    partials_ptr,  # cdiv(n_edges, HUB_PIECE) × 2 × F: the pieces' partial sums of hub rows
    arrivals_ptr,  # int32, ≥ cdiv(n_edges, HUB_PIECE) × f_blocks, zero (and left zero)
    n_rows,
    n_edges,
    F,
    x_stride,
    MEAN: tl.constexpr,
    BLOCK_R: tl.constexpr,
    BLOCK_E: tl.constexpr,
    BLOCK_F: tl.constexpr,
    NUM_STAGES: tl.constexpr,
):
    # Feature blocks vary fastest: the programs sharing a row block read its col range together.
    f_blocks = tl.cdiv(F, BLOCK_F)
    row_programs = tl.cdiv(n_rows, BLOCK_R) * f_blocks
    if tl.program_id(0) >= row_programs:
        _hub_piece(rowptr_ptr, col_ptr, x_ptr, out_ptr, partials_ptr, arrivals_ptr, tl.program_id(0) - row_programs,
                   f_blocks, n_rows, n_edges, F, x_stride, MEAN, BLOCK_R * BLOCK_E, BLOCK_F, NUM_STAGES)
        return
    row_block, feat_block = _tile_of(tl.program_id(0), f_blocks)
    rows = row_block * BLOCK_R + tl.arange(0, BLOCK_R)
    feats = feat_block * BLOCK_F + tl.arange(0, BLOCK_F)
    start = tl.load(rowptr_ptr + rows, mask=rows < n_rows, other=0).to(tl.int64)
    end = tl.load(rowptr_ptr + rows + 1, mask=rows < n_rows, other=0).to(tl.int64)
    # Hub rows belong to the pieces: here they are rows without edges that are never stored.
    row_ok = (rows < n_rows) & (end - start <= HUB_ROW)
    end = tl.where(row_ok, end, start)
    feat_ok = feats < F
    degree = end - start
    slots = tl.arange(0, BLOCK_E).to(tl.int64)
    acc = tl.zeros((BLOCK_R, BLOCK_E, BLOCK_F), dtype=tl.float32)
    longest = tl.max(degree, axis=0)
    # Head: all rows together, edge slot by edge slot, for at most HEAD_STEPS steps.
    for step in tl.range(0, tl.minimum(longest, HEAD_STEPS * BLOCK_E), BLOCK_E, num_stages=NUM_STAGES):
        live = (step + slots)[None, :] < degree[:, None]
        edge = start[:, None] + step + slots[None, :]
        src = tl.load(col_ptr + edge, mask=live, other=0).to(tl.int64)
        acc += tl.load(
            x_ptr + src[:, :, None] * x_stride + feats[None, None, :],
            mask=live[:, :, None] & feat_ok[None, None, :],
            other=0.0,
        )
    total = tl.sum(acc, axis=1)
    # Tail, for the few rows longer than the head: one row at a time with every lane on its edges,
    # BLOCK_R · BLOCK_E of them a step, instead of BLOCK_E while its neighbours' lanes idle.
    if longest > HEAD_STEPS * BLOCK_E:
        lanes = tl.arange(0, BLOCK_R * BLOCK_E).to(tl.int64)
        which = tl.arange(0, BLOCK_R)
        for r in range(0, BLOCK_R):
            row_end = tl.sum(tl.where(which == r, end, 0), axis=0)
            row_start = tl.sum(tl.where(which == r, start, 0), axis=0) + HEAD_STEPS * BLOCK_E
            tail = tl.zeros((BLOCK_R * BLOCK_E, BLOCK_F), dtype=tl.float32)
            for first in tl.range(row_start, row_end, BLOCK_R * BLOCK_E, num_stages=NUM_STAGES):
                live = first + lanes < row_end
                src = tl.load(col_ptr + first + lanes, mask=live, other=0).to(tl.int64)
                tail += tl.load(
                    x_ptr + src[:, None] * x_stride + feats[None, :],
                    mask=live[:, None] & feat_ok[None, :],
                    other=0.0,
                )
            total = tl.where((which == r)[:, None], total + tl.sum(tail, axis=0)[None, :], total)
    if MEAN:
        total = total / tl.maximum(degree, 1).to(tl.float32)[:, None]
    out_ptrs = out_ptr + rows.to(tl.int64)[:, None] * F + feats[None, :]
    tl.store(out_ptrs, total, mask=row_ok[:, None] & feat_ok[None, :])


@implementation("neighbor_agg", family="triton", variants=("sum", "mean"), available=triton_available)
def neighbor_agg(rowptr, col, x, variant):
    SPEC.validate(rowptr, col, x)
    n_rows, F = rowptr.numel() - 1, x.shape[1]
    out = empty_output((n_rows, F), like=x)
    if out.numel() == 0:
        return out
    if col.numel() == 0:  # every row is empty (and col may have no storage to point at)
        return out.zero_()
    if x.stride(1) != 1:
        x = x.contiguous()
    pieces = triton.cdiv(col.numel(), HUB_PIECE.value)
    partials = out.new_empty((pieces, 2, F))
    arrivals = arrival_counters(x.device, pieces * triton.cdiv(F, FEATURE_BLOCK_MIN))
    grid = lambda meta: ((triton.cdiv(n_rows, meta["BLOCK_R"]) + pieces) * triton.cdiv(F, meta["BLOCK_F"]),)
    _neighbor_agg_rows_kernel[grid](
        rowptr, col, x, out, partials, arrivals, n_rows, col.numel(), F, x.stride(0), MEAN=variant == "mean"
    )
    return out
