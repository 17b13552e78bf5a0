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
- ``slice`` (native): a block a row holding it in registers whatever its alignment (a scalar head and tail
  around a 16-byte-aligned float4 body): the cluster kernel with one CTA, for rows the float4 kernels refuse.
- ``cluster`` (native): a Hopper thread-block cluster a row, each CTA holding a slice in registers; the
  CTAs' statistics are combined through distributed shared memory: one read, for rows wider than a block.
- ``pipe`` (native): the cluster made persistent: clusters fill the SMs once and walk rows, each CTA's
  slice of the next row copying into shared memory while it reduces and writes the current one.
- ``resident`` (native LayerNorm): the pipe with each CTA's weight and bias held in shared memory for the
  kernel's life, read once a call instead of from L2 for every row.
- ``pair`` (native LayerNorm): a cluster holding two rows, each CTA the same columns of both, so that one cluster
  barrier serves both rows and weight and bias are read once for the two.
- ``columns`` (native LayerNorm): a grid of one CTA an SM, each owning the same columns of every row, its weight
  and bias read once into shared memory; rows' statistics combined across the grid in global memory.
"""

from __future__ import annotations

import math
from typing import Callable

import torch

from mage.errors import InputError
from mage.outputs import empty_output
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


def width_takes(strategy: str, low: int, high: int, held_in: str, wider: str) -> Callable[[dict], str | None]:
    """A strategy's ``takes`` for rows of ``low`` to ``high`` columns: a narrower row fits one warp's
    registers; a wider one would not fit ``held_in`` (``wider``: what happens to it, and who takes it)."""

    def takes(params: dict) -> str | None:
        cols = params["cols"]
        if cols < low:
            return (f"the {strategy} strategy holds rows of {low} to {high} columns; {cols} fit one warp's registers "
                    f"(the warp strategies take them)")
        if cols > high:
            return f"the {strategy} strategy holds rows of at most {high} columns in {held_in}; {cols} {wider}"
        return None

    return takes


def smallest_plan(strategy: str, plans: tuple, chunks: Callable[[tuple], int], cols: int, widest: int,
                  elements: int = 4) -> tuple:
    """The first of ``plans`` (narrowest first) whose 16-byte ``chunks`` hold a row's body: at most
    cols // elements chunks (4 floats, or 8 16-bit elements, a chunk), whatever its alignment (row_slice), for a
    width the strategy's takes accepts."""
    for plan in plans:
        if chunks(plan) >= cols // elements:
            return plan
    raise ValueError(f"no {strategy} plan holds {cols} columns (at most {widest})")


def chunk_elements(x: torch.Tensor) -> int:
    """Elements of ``x`` in a 16-byte chunk: 4 floats, 8 bf16 or fp16."""
    return 16 // x.element_size()


def rows_output(takes: Callable[[dict], str | None], x: torch.Tensor) -> torch.Tensor:
    """The output of a row-strategy call on a rows × cols ``x``, once ``takes`` accepts the width."""
    require_width(takes, x.shape[1])
    return empty_output(tuple(x.shape), like=x)


# The cluster strategy's kernels, (CTAs a cluster K, threads a CTA, float4 chunks a thread), narrowest rows
# first: each plan holds K × threads × chunks float4s of a row in registers. One cluster a row keeps no
# shared memory beyond its partials, so the plans reach 262144 columns only through registers: 512 threads
# with 16 floats each leave a CTA ~40 registers a thread, so several CTAs can share an SM and one's loads
# overlap another's cluster barrier. Up to 65539 columns a row takes 4 CTAs of 32 floats a thread (64
# registers, two CTAs an SM), not 8 of 16: each thread's share of the reductions, the barrier and the slice
# arithmetic is then paid for twice the elements, which took an H100's LayerNorm at 1024×65536 from 246.8 to
# 215.9 µs and softmax from 202.6 to 192.8 (scripts/cluster_plan_probe.py). For 262144 columns a cluster of 8
# (the largest portable size) takes all of an SM's registers (1024 × 64): one CTA an SM. Sixteen CTAs of 512
# threads (two an SM, sm_90's non-portable cluster size, which both hosts opt a kernel in to) were slower on an
# H200: LayerNorm 272.4 against 237.5 µs, softmax 202.0 against 190.0 at 256×262144 (the probe), because the
# driver fits only 14 such clusters at once (224 of the 264 CTA slots; ncu: 41 % of DRAM's peak). (Shared memory
# past 48 KB a CTA is the smem and pipe strategies': both launchers opt a kernel in to up to 227 KB of dynamic
# shared memory.)
CLUSTER_PLANS = ((2, 128, 4), (2, 256, 4), (2, 512, 4), (4, 512, 4), (4, 512, 8), (8, 1024, 4), (8, 1024, 8))
# Narrower rows fit one warp's registers (the warp strategies), where a cluster barrier a row costs more
# than the row; from 1024 on the study measures where the cluster overtakes the one-block kernels.
CLUSTER_MIN_COLS = 1024
# A row's head and tail (up to 3 floats each side of its 16-byte-aligned body) are held besides the chunks.
CLUSTER_MAX_COLS = 4 * max(k * threads * chunks for k, threads, chunks in CLUSTER_PLANS) + 3


cluster_takes = width_takes("cluster", CLUSTER_MIN_COLS, CLUSTER_MAX_COLS, "a cluster's registers",
                            "would spill: the split and online strategies take them")


def require_width(takes: Callable[[dict], str | None], cols: int) -> None:
    """Raise InputError with a strategy's ``takes`` reason for a width it cannot hold."""
    if reason := takes({"cols": cols}):
        raise InputError(reason)


# A 16-bit row's cluster and slice plans: its chunks held as loaded (4 registers for 8 elements, widened at
# each use), 8 a thread, so that a plan of 512 threads leaves two CTAs an SM (≤ 64 registers a thread) with
# twice the elements a thread of the float32 plans: fewer threads a row, each thread's share of the
# reductions and the barrier paid once for 64 elements. They hold the same widths as the float32 plans.
SIXTEEN_BIT_CLUSTER_PLANS = ((2, 64, 8), (2, 128, 8), (2, 256, 8), (2, 512, 8), (4, 512, 8), (8, 512, 8))
SIXTEEN_BIT_SLICE_PLANS = ((128, 8), (256, 8))


def cluster_plan(cols: int, elements: int = 4, plans: tuple = CLUSTER_PLANS) -> tuple[int, int, int]:
    return smallest_plan("cluster", plans, lambda plan: plan[0] * plan[1] * plan[2], cols, CLUSTER_MAX_COLS,
                         elements)


def launch_cluster(host, kernels: dict, x: torch.Tensor, arguments: Callable[[torch.Tensor], tuple]) -> torch.Tensor:
    """A cluster strategy's call on a rows × cols ``x``: the plan for its width among those of ``kernels`` (plan ->
    kernel, narrowest first), one cluster of plan[0] CTAs a row, the kernel of that plan launched with
    ``arguments(out)``; the output (empty: no launch)."""
    rows, cols = x.shape
    out = rows_output(cluster_takes, x)
    if out.numel() == 0:
        return out
    plan = cluster_plan(cols, chunk_elements(x), tuple(kernels))
    ctas, threads, _ = plan
    host.launch(kernels[plan], (rows * ctas, 1, 1), (threads, 1, 1), *arguments(out))
    return out


# The slice strategy's kernels (the cluster kernels with K = 1: a block a row, row_slice's scalar head and tail
# around a float4 body in its registers, no cluster barrier): (THREADS, V float4 chunks a thread), narrowest
# rows first. The default native kernels read a row that is not a multiple of 4 wide, or starts off a 16-byte
# boundary, in scalars (LayerNorm's looped kernel three times); this one reads it once, in 16-byte loads.
SLICE_PLANS = ((256, 4), (512, 4), (1024, 4))
SLICE_MIN_COLS = CLUSTER_MIN_COLS
SLICE_MAX_COLS = 4 * max(threads * chunks for threads, chunks in SLICE_PLANS) + 3


slice_takes = width_takes("slice", SLICE_MIN_COLS, SLICE_MAX_COLS, "one block's registers",
                          "would spill: the cluster strategy takes them")


def slice_plan(cols: int, elements: int = 4, plans: tuple = SLICE_PLANS) -> tuple[int, int]:
    return smallest_plan("slice", plans, lambda plan: plan[0] * plan[1], cols, SLICE_MAX_COLS, elements)


def launch_slice(host, kernels: dict, x: torch.Tensor, arguments: Callable[[torch.Tensor], tuple]) -> torch.Tensor:
    """A slice strategy's call on a rows × cols ``x``: the plan for its width among those of ``kernels`` (plan ->
    kernel, narrowest first), a block a row, the kernel of that plan launched with ``arguments(out)``; the
    output (empty: no launch)."""
    rows, cols = x.shape
    out = rows_output(slice_takes, x)
    if out.numel() == 0:
        return out
    threads, _ = plan = slice_plan(cols, chunk_elements(x), tuple(kernels))
    host.launch(kernels[plan], (rows, 1, 1), (threads, 1, 1), *arguments(out))
    return out


# The width-chosen kernels (each op's default strategy, its champion at float32) hold a row in one warp's or one block's
# registers. A row they would read in scalars or more than once (LayerNorm's looped kernel reads it three times,
# softmax's online kernel twice) they hand on to the strategy that reads it once in 16-byte loads, measured the
# faster at its width (results/README.md, the wide-rows study, cold L2, kernel µs): the slice to 16387 columns
# (16373×4099 on an H100: LayerNorm 181.7 against the looped kernel's 213.0, softmax 179.7 against 282.7; 4096×16384
# bf16 on an H200: 74.7 against 116.1 and 67.6 against 108.0), the cluster beyond (256×262144 on an H200: 214.6
# against 336.8, 183.0 against 349.4). At 1024 columns a warp's registers hold the row (178.7 against the slice's
# 231.4), and float32 LayerNorm rows in 16-byte vectors to 16384 columns stay in its block kernel (156.3 against
# 166.3). Rows wider than a cluster holds, or a device without clusters, keep the looped and online kernels.
HANDED_ON = {"slice": launch_slice, "cluster": launch_cluster}


def handed_on(host, x: torch.Tensor, held_in_a_block: bool) -> str | None:
    """The strategy of HANDED_ON ("slice" or "cluster") to which the width-chosen kernels hand a row of ``x``, or
    None where they keep it: up to SLICE_MIN_COLS, where a block's register kernel holds it (``held_in_a_block``),
    and past what a cluster holds or where ``host``'s device runs no clusters."""
    cols = x.shape[1]
    if cols <= SLICE_MIN_COLS or held_in_a_block:
        return None
    if cols <= SLICE_MAX_COLS:
        return "slice"
    if cols <= CLUSTER_MAX_COLS and host.has_clusters(x.device):
        return "cluster"
    return None


# The smem strategy's kernels, (K CTAs a cluster, threads a CTA), narrowest rows first: each CTA holds its slice of
# the row (at most SMEM_CHUNKS 16-byte chunks, 128 KB) in shared memory, filled by one bulk copy, and its threads
# walk it, 8 chunks a thread at the widest (native_cluster.cuh: bulk_copy_to_shared). A 128 KB slice leaves room
# for one CTA an SM, so the CTA is as wide as a block may be: with 256 threads ncu counted half the register-held
# cluster's instructions but 2 warps a scheduler, one issued every 10 cycles (18 cycles between a warp's
# instructions), 0.47 of DRAM's peak and 338 µs against the cluster's 252 (LayerNorm 256 × 262144, H100). The
# widths the cluster strategy takes, with the shared memory it launches asking for its slice's bytes alone.
SMEM_PLANS = ((2, 1024), (4, 1024), (8, 1024))
SMEM_CHUNKS = 8192
SMEM_MAX_COLS = 4 * SMEM_CHUNKS * max(k for k, _ in SMEM_PLANS) + 3


smem_takes = width_takes("smem", CLUSTER_MIN_COLS, SMEM_MAX_COLS, "8 CTAs' shared memory",
                         "would not fit: the split and online strategies take them")


def smem_plan(cols: int, elements: int = 4, plans: tuple = SMEM_PLANS) -> tuple[int, int]:
    return smallest_plan("smem", plans, lambda plan: plan[0] * SMEM_CHUNKS, cols, SMEM_MAX_COLS, elements)


def launch_smem(host, kernels: dict, x: torch.Tensor, arguments: Callable[[torch.Tensor], tuple]) -> torch.Tensor:
    """An smem strategy's call on a rows × cols ``x``: the plan for its width among those of ``kernels``, one
    cluster of plan[0] CTAs a row, each with the shared memory its share of the row's body needs."""
    rows, cols = x.shape
    out = rows_output(smem_takes, x)
    if out.numel() == 0:
        return out
    elements = chunk_elements(x)
    ctas, threads = plan = smem_plan(cols, elements, tuple(kernels))
    host.launch(kernels[plan], (rows * ctas, 1, 1), (threads, 1, 1), *arguments(out),
                shared=16 * slice_chunks(cols, elements, ctas))
    return out


# The deep strategy's kernels (LayerNorm and softmax, native_cluster.cuh's FLOAT_DEEP_PLANS and
# SIXTEEN_BIT_DEEP_PLANS), (K CTAs a cluster, threads a CTA, 16-byte chunks a thread in registers), narrowest rows
# first: each CTA holds threads × chunks of its slice in registers and up to as many again in shared memory (64 KB
# at 512 threads, two CTAs an SM; 128 KB at 1024, one), so a cluster of K holds 2 · K · threads · chunks: 262144
# float32 columns in 8 CTAs of 512 threads, 65536 in 2 (on an H100 4 % to 8 % faster than 1024-thread CTAs, one an SM,
# at both: native_cluster.cuh); 262144 16-bit columns in 2 CTAs of 1024 (their chunks held as loaded, 4 registers each).
DEEP_PLANS = ((1, 512, 8), (2, 512, 8), (4, 512, 8), (8, 512, 8))
SIXTEEN_BIT_DEEP_PLANS = ((1, 1024, 8), (2, 1024, 8))
DEEP_MIN_COLS = 16384
DEEP_MAX_COLS = 4 * max(2 * k * threads * chunks for k, threads, chunks in DEEP_PLANS) + 3


deep_takes = width_takes("deep", DEEP_MIN_COLS, DEEP_MAX_COLS, "a cluster's registers and shared memory",
                         "would not fit: the split and online strategies take them")


def deep_plan(cols: int, elements: int = 4, plans: tuple = DEEP_PLANS) -> tuple[int, int, int]:
    return smallest_plan("deep", plans, lambda plan: 2 * plan[0] * plan[1] * plan[2], cols, DEEP_MAX_COLS, elements)


def launch_deep(host, kernels: dict, x: torch.Tensor, arguments: Callable[[torch.Tensor], tuple]) -> torch.Tensor:
    """A deep strategy's call on a rows × cols ``x``: the plan for its width among those of ``kernels``, one cluster
    of plan[0] CTAs a row, each with the shared memory for the chunks of its slice past its registers (none where
    the registers hold the slice)."""
    rows, cols = x.shape
    out = rows_output(deep_takes, x)
    if out.numel() == 0:
        return out
    elements = chunk_elements(x)
    ctas, threads, chunks = plan = deep_plan(cols, elements, tuple(kernels))
    staged = max(0, slice_chunks(cols, elements, ctas) - threads * chunks)
    host.launch(kernels[plan], (rows * ctas, 1, 1), (threads, 1, 1), *arguments(out), shared=16 * staged)
    return out


# The pipe strategy's kernels (native_cluster.cuh's PIPE_PLANS), (K, threads, 16-byte chunks a thread, CTAs an
# SM), narrowest rows first: a CTA holds its slice of one row in registers as the cluster strategy's plans do
# (32 floats or 64 16-bit elements a thread at most, 64 registers) and the next row's slice in shared memory, one
# bulk copy, so each SM has its CTAs' slices of the next rows in flight while it reduces and writes: 64 KB at
# the narrowest plans, 128 KB from 16384 float32 columns on, past the ~40 KB an SM that keeps HBM busy at ~1 µs of
# latency and ~30 GB/s an SM. Each plan's CTAs an SM all fit at once (2048 threads, 65536 registers and 228 KB of
# shared memory an SM: __launch_bounds__(threads, CTAs)). 262144 float32 columns take 8 CTAs of 1024 threads, one
# an SM; 16-bit rows reach it with 8 CTAs of 512, two an SM.
PIPE_PLANS = ((2, 128, 4, 8), (2, 512, 4, 2), (4, 512, 8, 2), (8, 1024, 8, 1))
SIXTEEN_BIT_PIPE_PLANS = ((2, 128, 8, 8), (2, 512, 8, 2), (4, 512, 8, 2), (8, 512, 8, 2))
PIPE_MIN_COLS = CLUSTER_MIN_COLS
PIPE_MAX_COLS = 4 * max(k * threads * chunks for k, threads, chunks, _ in PIPE_PLANS) + 3
pipe_takes = width_takes("pipe", PIPE_MIN_COLS, PIPE_MAX_COLS, "8 CTAs' registers",
                         "would not fit: the split and online strategies take them")


def pipe_plan(cols: int, elements: int = 4, plans: tuple = PIPE_PLANS) -> tuple[int, int, int, int]:
    return smallest_plan("pipe", plans, lambda plan: plan[0] * plan[1] * plan[2], cols, PIPE_MAX_COLS, elements)


def slice_chunks(cols: int, elements: int, ctas: int) -> int:
    """The most 16-byte body chunks row_slice deals one of ``ctas`` CTAs of a row ``cols`` wide, whatever its
    alignment (native_cluster.cuh)."""
    return -(-(cols // elements) // ctas)


def launch_pipe(host, kernels: dict, x: torch.Tensor, arguments: Callable[[torch.Tensor], tuple]) -> torch.Tensor:
    """A pipe strategy's call on a rows × cols ``x``: the plan for its width among those of ``kernels`` (plan ->
    kernel), as many clusters as the device holds at once (launch_persistent), with its slice's bytes of dynamic
    shared memory; the output (empty: no launch)."""
    rows, cols = x.shape
    out = rows_output(pipe_takes, x)
    if out.numel() == 0:
        return out
    elements = chunk_elements(x)
    plan = pipe_plan(cols, elements, tuple(kernels))
    launch_persistent(host, kernels[plan], plan, x, out, arguments, 16 * slice_chunks(cols, elements, plan[0]))
    return out


def launch_persistent(host, kernel, plan: tuple, x: torch.Tensor, out: torch.Tensor,
                      arguments: Callable[[torch.Tensor], tuple], shared: int) -> None:
    """``kernel`` of ``plan`` (K, threads, …) on as many clusters as the device holds at once with ``shared`` bytes of
    dynamic shared memory a CTA (the host asks the driver; no more than rows), launched with ``arguments(out)``.
    Clusters wider than a TPC's two CTAs are placed within one GPC, and a device's GPCs may differ in SMs, so a count
    from the SM total can ask for more clusters than fit (results/README.md): the last would run after the others."""
    k, threads = plan[0], plan[1]
    resident = host.max_active_clusters(kernel, x.device, k, (threads, 1, 1), shared)
    if resident < 1:
        raise InputError(f"{kernel.name}: no cluster of {k} CTAs of {threads} threads and {shared} bytes of shared "
                         f"memory fits on {x.device} at once")
    host.launch(kernel, (min(x.shape[0], resident) * k, 1, 1), (threads, 1, 1), *arguments(out), shared=shared)


# The resident strategy's kernels (LayerNorm, native.cu's RESIDENT_PLANS), (K, threads, 16-byte chunks a thread, CTAs
# an SM), narrowest rows first: the pipe with each CTA's weight and bias held in shared memory for the kernel's life,
# read once a call, where the pipe reads them from L2 for every row (as many bytes again as the row's own). One CTA of
# 512 threads an SM holds 8 chunks a thread of the current row in registers, and in shared memory the next row's
# slice (64 KB) and a window of weight and bias (window_capacity elements each, about 128 KB), so a CTA holds 16384
# float32 columns or 32768 16-bit ones, half the pipe's widest: 262144 float32 columns take 16 CTAs a cluster, sm_90's
# non-portable size. From 16384 columns: narrower rows are one block's (the registers and slice strategies). It is
# slower than the one-row cluster at every width measured (results/README.md): with one CTA an SM, 16 warps, nothing
# else runs while a row is reduced and its cluster waits, and 16-CTA clusters fit 112 of 132 SMs.
RESIDENT_PLANS = ((1, 512, 8, 1), (2, 512, 8, 1), (4, 512, 8, 1), (8, 512, 8, 1), (16, 512, 8, 1))
SIXTEEN_BIT_RESIDENT_PLANS = ((1, 512, 8, 1), (2, 512, 8, 1), (4, 512, 8, 1), (8, 512, 8, 1))
RESIDENT_MIN_COLS = 16384
RESIDENT_MAX_COLS = 4 * max(k * threads * chunks for k, threads, chunks, _ in RESIDENT_PLANS) + 3
resident_takes = width_takes("resident", RESIDENT_MIN_COLS, RESIDENT_MAX_COLS, "16 CTAs' shared memory",
                             "would not fit: the split and online strategies take them")


def resident_plan(cols: int, elements: int = 4, plans: tuple = RESIDENT_PLANS) -> tuple[int, int, int, int]:
    return smallest_plan("resident", plans, lambda plan: plan[0] * plan[1] * plan[2], cols, RESIDENT_MAX_COLS,
                         elements)


def window_capacity(elements: int, ranks: int, chunks: int) -> int:
    """native_cluster.cuh's WINDOW_CAPACITY: the elements of weight (and again of bias) a CTA of ``ranks`` holding at
    most ``chunks`` 16-byte chunks of a row may need in some row, whatever the row's alignment."""
    return elements * (chunks + ranks + 1)


def resident_shared_bytes(plan: tuple, element_bytes: int) -> int:
    """A resident plan's dynamic shared memory a CTA: the next row's THREADS · V chunks, then its window of weight and
    of bias."""
    k, threads, chunks, _ = plan
    return 16 * threads * chunks + 2 * element_bytes * window_capacity(16 // element_bytes, k, threads * chunks)


def launch_resident(host, kernels: dict, x: torch.Tensor, arguments: Callable[[torch.Tensor], tuple]) -> torch.Tensor:
    """A resident strategy's call on a rows × cols ``x``: the plan for its width among those of ``kernels``, as many
    clusters as the device holds at once (launch_persistent) with the plan's shared memory; the output (empty: no
    launch)."""
    rows, cols = x.shape
    out = rows_output(resident_takes, x)
    if out.numel() == 0:
        return out
    plan = resident_plan(cols, chunk_elements(x), tuple(kernels))
    launch_persistent(host, kernels[plan], plan, x, out, arguments, resident_shared_bytes(plan, x.element_size()))
    return out


# The pair strategy's kernels (LayerNorm, native.cu's PAIR_PLANS), (K, threads, 16-byte chunks a thread of each row),
# narrowest rows first: a cluster a pair of rows, one CTA of 1024 threads an SM holding 4 chunks a thread of each row
# in registers, so that each chunk of weight and bias is read from L2 once for two rows, where the cluster strategy
# reads them for every row (1.40 GB of L2 traffic against the resident kernel's 0.88 at 256×262144 float32 on an H100,
# the cluster's long-scoreboard stalls 17.3 a warp instruction). From 16384 columns: narrower rows are one block's (the
# registers and slice strategies). 262144 columns take 16 CTAs a cluster, sm_90's non-portable size: a 16-bit row's
# thread holds 2 chunks of each row (4 spilled at 64 registers). It is slower than the one-row cluster from 65536
# columns (results/README.md): each thread's share of the reductions and the barrier is paid for half the elements
# (1.6× the warp instructions at 256×262144 float32 on an H200), and 16-CTA clusters fit 112 of 132 SMs.
PAIR_PLANS = ((1, 1024, 4), (2, 1024, 4), (4, 1024, 4), (8, 1024, 4), (16, 1024, 4))
SIXTEEN_BIT_PAIR_PLANS = ((1, 1024, 2), (2, 1024, 2), (4, 1024, 2), (8, 1024, 2), (16, 1024, 2))
PAIR_MIN_COLS = 16384
PAIR_MAX_COLS = 4 * max(k * threads * chunks for k, threads, chunks in PAIR_PLANS) + 3
pair_takes = width_takes("pair", PAIR_MIN_COLS, PAIR_MAX_COLS, "16 CTAs' registers",
                         "would spill: the split and online strategies take them")


def pair_plan(cols: int, elements: int = 4, plans: tuple = PAIR_PLANS) -> tuple[int, int, int]:
    return smallest_plan("pair", plans, lambda plan: plan[0] * plan[1] * plan[2], cols, PAIR_MAX_COLS, elements)


def pair_period(cols: int, element_bytes: int) -> int:
    """native.cu's pair_period: the rows a pair's two rows are apart, the fewest whose bytes are a whole number of
    16-byte blocks (both rows then start at the same offset past a boundary)."""
    return 16 // math.gcd(cols * element_bytes, 16)


def pair_clusters(rows: int, period: int) -> int:
    """The clusters of a pair call: cluster c takes row (c // period) · 2·period + c % period and the row period
    after it (or that row alone, where none follows): a pair for every two rows, one for each row left unpaired."""
    whole, left = divmod(rows, 2 * period)
    return whole * period + min(period, left)


def launch_pair(host, kernels: dict, x: torch.Tensor, arguments: Callable[[torch.Tensor], tuple]) -> torch.Tensor:
    """A pair strategy's call on a rows × cols ``x``: the plan for its width among those of ``kernels``, a cluster of
    plan[0] CTAs for each pair of rows; the output (empty: no launch)."""
    rows, cols = x.shape
    out = rows_output(pair_takes, x)
    if out.numel() == 0:
        return out
    ctas, threads, _ = plan = pair_plan(cols, chunk_elements(x), tuple(kernels))
    clusters = pair_clusters(rows, pair_period(cols, x.element_size()))
    host.launch(kernels[plan], (clusters * ctas, 1, 1), (threads, 1, 1), *arguments(out))
    return out


# The columns strategy (LayerNorm, native.cu's layernorm_columns): a cooperative grid of one CTA an SM of
# COLUMNS_THREADS threads, CTA j owning the same run of 16-byte chunks of columns in every row, so that it reads its
# weight and bias once a call, into shared memory, where the cluster and pipe strategies read them from L2 for every
# row (as many bytes again as the row's own). Rows go in groups, a group's slices landing in one of COLUMNS_STAGES
# stages of shared memory by bulk copies, three groups ahead; each CTA publishes its partials of a group in a workspace
# in global memory (grid_exchange) and, while the grid catches up, writes the group before, whose partials it merges
# itself. From 16384 columns a CTA owns at least 31 chunks a row (132 CTAs): narrower rows are one block's (the
# registers and slice strategies).
COLUMNS_THREADS = 1024
COLUMNS_STAGES = 4
COLUMNS_MIN_COLS = 16384
GROUP_SLOTS, MAX_GROUP_ROWS, MAX_GRID_CTAS = 4, 32, 256  # native_cluster.cuh's GridExchange
GRID_EXCHANGE_BYTES = 32  # sizeof(GridExchange), before the partials: float4 [GROUP_SLOTS][MAX_GROUP_ROWS][CTAs]
COLUMNS_STATIC_SHARED = 2048  # what the kernel's static shared arrays may take, beside its dynamic buffers


def columns_takes(params: dict) -> str | None:
    if params["cols"] < COLUMNS_MIN_COLS:
        return (f"the columns strategy splits rows of at least {COLUMNS_MIN_COLS} columns across the SMs; "
                f"{params['cols']} fit one block (the registers and slice strategies take them)")
    return None


def columns_plan(rows: int, cols: int, elements: int, ctas: int, shared_bytes: int) -> tuple[int, int, int]:
    """(16-byte chunks of columns a CTA owns, rows a group, dynamic shared bytes) of the columns strategy on ``ctas``
    CTAs with ``shared_bytes`` of dynamic shared memory a CTA at most: weight and bias of its columns as float32, then
    COLUMNS_STAGES stages of a group's slices, each row's spanning one chunk more than it owns (wherever the row
    starts), as many rows a group as fit, up to MAX_GROUP_ROWS."""
    chunks = -(-cols // elements)
    per_chunks = -(-chunks // ctas)
    affine = 2 * 4 * per_chunks * elements
    stage_row = 16 * (per_chunks + 1)
    group_rows = min(MAX_GROUP_ROWS, rows, (shared_bytes - COLUMNS_STATIC_SHARED - affine) // (COLUMNS_STAGES * stage_row))
    if group_rows < 1:
        raise InputError(f"{cols} columns are too wide for the columns strategy on {ctas} CTAs: a CTA's weight, bias "
                         f"and {COLUMNS_STAGES} stages of one row's slice take more than {shared_bytes} bytes of shared "
                         f"memory")
    return per_chunks, group_rows, affine + COLUMNS_STAGES * group_rows * stage_row


_EXCHANGES: dict[tuple[str, int], torch.Tensor] = {}


def grid_exchange(device: torch.device, ctas: int) -> torch.Tensor:
    """The columns strategy's workspace for a grid of ``ctas`` CTAs on ``device``: zeroed once, then kept (a CUDA graph
    holds its address) and left valid by every call for the next (native_cluster.cuh: GridExchange). Calls on one
    device and grid size share it, so they must not overlap: one stream, as the runner measures."""
    key = (str(device), ctas)
    if key not in _EXCHANGES:
        _EXCHANGES[key] = torch.zeros(GRID_EXCHANGE_BYTES + 16 * GROUP_SLOTS * MAX_GROUP_ROWS * ctas,
                                      dtype=torch.uint8, device=device)
    return _EXCHANGES[key]


def launch_columns(host, kernel, x: torch.Tensor, arguments: Callable[[torch.Tensor], tuple]) -> torch.Tensor:
    """A columns strategy's call on a rows × cols ``x``: ``kernel`` (cooperative) on as many CTAs as the device runs at
    once, with ``arguments(out)``, the workspace, the chunks a CTA owns and the rows a group; the output (empty: no
    launch). x and the output must start on 16-byte boundaries (the slices are copied and written as 16-byte chunks
    of the whole array)."""
    rows, cols = x.shape
    out = rows_output(columns_takes, x)
    if out.numel() == 0:
        return out
    if x.data_ptr() % 16 or out.data_ptr() % 16:
        raise InputError("the columns strategy reads and writes 16-byte chunks: x must start on a 16-byte boundary")
    ctas = host.resident_ctas(x.device)
    if ctas > MAX_GRID_CTAS:
        raise InputError(f"the columns strategy merges at most {MAX_GRID_CTAS} CTAs' partials; {x.device} runs {ctas}")
    per_chunks, group_rows, shared = columns_plan(rows, cols, chunk_elements(x), ctas, host.block_shared_bytes)
    host.launch(kernel, (ctas, 1, 1), (COLUMNS_THREADS, 1, 1), *arguments(out), grid_exchange(x.device, ctas),
                per_chunks, group_rows, shared=shared)
    return out
