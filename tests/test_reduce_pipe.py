"""The native pipe strategy (layernorm, softmax: a persistent cluster that walks rows, the next row's slice
loading into registers while the current one is reduced; LayerNorm's CTAs hold their columns of weight and bias
in dynamic shared memory) without a GPU: NVRTC compiles every pipe kernel, float32 and 16-bit, for sm_90 within
the registers its plan's CTAs an SM leave and without a spill in the row loop, the plan per width (K, threads,
chunks a thread, CTAs an SM) fits an SM's shared memory and threads, the launcher's grid is the driver's count of
clusters that fit at once (a multiple of K, never more clusters than rows) with the op's shared bytes, and the
widths it refuses say why. Its arithmetic runs on the GPU only (tests/test_reduce_pipe_gpu.py): the CPU emulation runs
blocks one after another, and a cluster's CTAs must be resident together.

Also LayerNorm's 16384 columns: Triton's registers kernels compile for sm_90 to two programs an SM."""

from __future__ import annotations

import json

import pytest

from mage import registry
from mage.backends import native, rows
from mage.backends.native import SIXTEEN_BIT_SOURCE
from mage.errors import InputError
from mage.ops.layernorm import native as layernorm_native
from mage.ops.softmax import native as softmax_native
from cubin_info import resources
from sm90_compile import needs_ptxas, run_compiled
from test_reduce_wide import HOPPER, OPS, RecordingHost, _inputs, ext  # noqa: F401 (ext: the NVRTC fixture)

MODULES = {"layernorm": layernorm_native, "softmax": softmax_native}
# sm_90: 227 KB of shared memory for one block, 228 KB an SM with 1 KB reserved a block; 2048 threads and
# 65536 registers an SM.
BLOCK_SHARED_MAX, SM_SHARED, RESERVED = 227 * 1024, 228 * 1024, 1024


# What cuOccupancyMaxActiveClusters answered for each plan (tests/test_reduce_pipe_gpu.py prints it), on the H200
# and on an H100 alike (both 132 SMs): their GPCs are not all 16 SMs, so clusters of 4 to 16 CTAs fit fewer times
# than 132 SMs would suggest. The count of 16 CTAs one an SM, 7, was asked of an H100 only.
H200_CLUSTERS = {(2, 128, 4, 8): 528, (2, 512, 4, 2): 132, (4, 512, 4, 2): 62, (8, 512, 4, 2): 30,
                 (16, 512, 4, 2): 14, (16, 512, 8, 1): 7}
# Dynamic shared memory a CTA: LayerNorm's columns of weight and bias; softmax holds nothing there.
SHARED = {"layernorm": rows.pipe_affine_bytes, "softmax": lambda plan: 0}
SOURCES = {"ieee": "native.cu", "bf16": SIXTEEN_BIT_SOURCE, "fp16": SIXTEEN_BIT_SOURCE}
TAGS = {"ieee": "f32", "bf16": "bf16", "fp16": "f16"}


class SmsHost(RecordingHost):
    """RecordingHost whose driver answers the H200's count of each plan's clusters that fit at once (the pipe's
    grid follows it), and records what it was asked."""

    def __init__(self, counts: dict | None = None):
        super().__init__()
        self.counts = H200_CLUSTERS if counts is None else counts
        self.asked = []

    def _query_clusters(self, kernel, device, cluster, block, shared):
        self.asked.append((kernel.name, cluster, block, shared))
        plan = next(plan for kernels in MODULES[kernel.op].PIPE.values() for plan, pipe in kernels.items()
                    if pipe == kernel)
        return self.counts[plan]


@pytest.mark.parametrize("precision", ["ieee", "bf16"])
@pytest.mark.parametrize("op", OPS)
def test_every_pipe_kernel_compiles_for_sm_90(ext, op, precision):
    cubin = ext.compile_to_cubin(native.source(op, SOURCES[precision]), HOPPER, name=f"{op}-pipe.cu")
    kernels = MODULES[op].PIPE[precision]
    assert set(kernels) == set(rows.PIPE_PLANS if precision == "ieee" else rows.SIXTEEN_BIT_PIPE_PLANS)
    for (k, threads, chunks, _), kernel in kernels.items():
        assert kernel.name == f"{op}_{TAGS[precision]}_pipe{k}_t{threads}_v{chunks}"
        assert kernel.name.encode() + b"\0" in cubin, f"{kernel.name} is not in the cubin"


@pytest.mark.parametrize("precision", ["ieee", "bf16"])
@pytest.mark.parametrize("op", OPS)
def test_every_pipe_kernel_fits_its_plans_ctas_an_sm_in_registers_without_a_spill(ext, op, precision):
    """A thread holds two rows' chunks. Float32 LayerNorm at 4 chunks keeps one word (a per-CTA value, stored
    before the row loop) in local memory: the only spill allowed."""
    compiled = resources(ext.compile_to_cubin(native.source(op, SOURCES[precision]), HOPPER, name=f"{op}-pipe.cu"))
    for (_, threads, chunks, ctas), kernel in MODULES[op].PIPE[precision].items():
        used = compiled[kernel.name]
        print(kernel.name, used)
        assert used["registers"] * threads * ctas <= 65536, f"{kernel.name}: fewer than {ctas} CTAs an SM"
        allowed = 8 if (op, precision, chunks) == ("layernorm", "ieee", 4) else 0
        assert used["frame"] <= allowed, f"{kernel.name} spills {used['frame']} bytes a thread"


# (columns, 16-byte chunks' elements, the plan) at the study's widths and the limits, float32 and 16-bit.
PLANS = [
    (1024, 4, (2, 128, 4, 8)), (4096, 4, (2, 128, 4, 8)), (4099, 4, (2, 128, 4, 8)), (16384, 4, (2, 512, 4, 2)),
    (16388, 4, (4, 512, 4, 2)), (65536, 4, (8, 512, 4, 2)), (65537, 4, (8, 512, 4, 2)),
    (262144, 4, (16, 512, 8, 1)), (rows.PIPE_MAX_COLS, 4, (16, 512, 8, 1)),
    (8192, 8, (2, 128, 4, 8)), (65536, 8, (4, 512, 4, 2)), (65537, 8, (4, 512, 4, 2)), (262144, 8, (16, 512, 4, 2)),
]


@pytest.mark.parametrize("cols, elements, expected", PLANS, ids=[f"{c}x{e}" for c, e, _ in PLANS])
def test_the_launcher_picks_the_smallest_pipe_plan_that_holds_the_row(cols, elements, expected):
    plan = rows.pipe_plan(cols, elements)
    assert plan == expected
    k, threads, chunks, _ = plan
    assert k * threads * chunks >= cols // elements  # the body's 16-byte chunks, whatever the alignment
    smaller = rows.PIPE_PLANS[: rows.PIPE_PLANS.index(plan)]
    assert all(k * t * v < cols // elements for k, t, v, _ in smaller)


@pytest.mark.parametrize("plan", rows.PIPE_PLANS, ids=lambda p: "k{}_t{}_v{}_c{}".format(*p))
def test_every_plan_fits_an_sm_with_40_kb_or_more_in_flight(plan):
    k, threads, chunks, ctas = plan
    shared = rows.pipe_affine_bytes(plan)
    assert shared == 2 * 16 * (threads * chunks + k) <= BLOCK_SHARED_MAX
    assert ctas * (shared + RESERVED) <= SM_SHARED  # all its CTAs resident at once: shared memory
    assert threads * ctas <= 2048  # threads
    assert 2 * 4 * chunks <= 65536 // (threads * ctas) // 2  # two rows' chunks: half the registers a thread or less
    assert ctas * threads * chunks * 16 >= 40 * 1024  # bytes of the next rows in flight an SM while the current reduce
    assert k in (2, 4, 8, 16)  # 16: sm_90's non-portable size, which both hosts opt a kernel in to


def _columns_touched(cols: int, rank: int, ranks: int, elements: int, head: int) -> tuple[int, int]:
    """The columns [low, high) of weight and bias that CTA ``rank`` reads on a row whose first 16-byte boundary is
    ``head`` elements in, as row_slice deals a row (native_cluster.cuh): its run of body chunks, the head's scalars
    on rank 0 and the tail's on the last rank."""
    chunks = (cols - head) // elements
    per = -(-chunks // ranks)
    first = min(rank * per, chunks)
    end = min(first + per, chunks)
    low = 0 if rank == 0 else head + elements * first
    high = cols if rank == ranks - 1 else head + elements * end
    return low, high


@pytest.mark.parametrize("elements", [4, 8], ids=["float32", "16-bit"])
def test_layernorms_shared_memory_holds_every_column_a_cta_reads_whatever_the_rows_alignment(elements):
    """A LayerNorm pipe CTA copies the columns its slices read on any row (every head a row may start with) into
    pipe_affine_bytes of shared memory, from a whole chunk: at every plan's widest row and narrowest, and widths
    between, the span fits; a row's head moves the cut between ranks by up to a chunk a rank."""
    plans = rows.PIPE_PLANS if elements == 4 else rows.SIXTEEN_BIT_PIPE_PLANS
    widths = {rows.PIPE_MIN_COLS, rows.PIPE_MAX_COLS, 4099, 65537, 262144}
    for k, threads, chunks, _ in plans:
        widest = min(elements * k * threads * chunks + elements - 1, rows.PIPE_MAX_COLS)
        widths |= {widest, widest - 1, widest - elements - 3, widest // 2 + 1}
    for cols in sorted(widths):
        plan = rows.pipe_plan(cols, elements, plans)
        k, threads, chunks, _ = plan
        capacity = rows.pipe_affine_bytes(plan) // 2 // 16 * elements  # elements of weight (and of bias) a CTA
        for rank in range(k):
            spans = [_columns_touched(cols, rank, k, elements, head) for head in range(elements)]
            base = min(low for low, _ in spans) // elements * elements
            assert max(high for _, high in spans) - base <= capacity, (cols, plan, rank)


def test_the_plans_grow_with_the_row_and_end_where_the_cluster_plans_end():
    capacities = [k * t * v for k, t, v, _ in rows.PIPE_PLANS]
    assert capacities == sorted(capacities) and len(set(capacities)) == len(capacities)
    assert rows.PIPE_MAX_COLS == 4 * capacities[-1] + 3 == rows.CLUSTER_MAX_COLS
    with pytest.raises(ValueError, match="no pipe plan holds"):
        rows.pipe_plan(rows.PIPE_MAX_COLS + 1)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("rows_, cols", [(1000, 4099), (3, 16384), (100, 65537), (40, 262144)])
def test_the_grid_is_the_drivers_count_of_clusters_or_one_a_row_with_the_plans_shared_memory(op, rows_, cols):
    host = SmsHost()
    native.LAUNCHERS[(op, "pipe")](host, *_inputs(op, rows_, cols))
    native.LAUNCHERS[(op, "pipe")](host, *_inputs(op, rows_, cols))
    (name, grid, block, shared, args), again = host.launches
    plan = rows.pipe_plan(cols)
    k, threads, chunks, _ = plan
    assert name == f"{op}_f32_pipe{k}_t{threads}_v{chunks}"
    # The driver is asked once, for the plan's cluster, block and shared memory; the grid is its answer.
    assert host.asked == [(name, k, (threads, 1, 1), SHARED[op](plan))] and again[1] == grid
    clusters = min(rows_, H200_CLUSTERS[plan])
    assert grid == (clusters * k, 1, 1) and grid[0] % k == 0  # compile-time cluster dims: a multiple of K
    assert block == (threads, 1, 1)
    assert shared == SHARED[op](plan)
    rows_at = {"layernorm": 4, "softmax": 2}[op]
    assert args[rows_at: rows_at + 2] == (rows_, cols)


@pytest.mark.parametrize("op", OPS)
def test_a_plan_of_which_no_cluster_fits_is_refused_by_name_before_any_launch(op):
    host = SmsHost(counts=dict.fromkeys(rows.PIPE_PLANS, 0))
    shared = SHARED[op]((16, 512, 8, 1))
    with pytest.raises(InputError, match=f"no cluster of 16 CTAs of 512 threads and {shared} bytes"):
        native.LAUNCHERS[(op, "pipe")](host, *_inputs(op, 3, 262144))
    assert not host.launches


def test_layernorm_asks_for_more_than_48_kb_of_shared_memory_at_the_widest_rows_and_softmax_for_none():
    """262144 columns: each of 16 CTAs holds 16384 columns of weight and of bias, 128 KB and its margin, which both
    hosts opt the kernel in to."""
    host = SmsHost()
    native.LAUNCHERS[("layernorm", "pipe")](host, *_inputs("layernorm", 20, 262144))
    native.LAUNCHERS[("softmax", "pipe")](host, *_inputs("softmax", 20, 262144))
    assert [launch[3] for launch in host.launches] == [2 * 16 * (4096 + 16), 0]
    assert host.launches[0][3] > native.DEFAULT_DYNAMIC_SHARED_BYTES


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("cols, message", [(1000, "fit one warp's registers"),
                                           (rows.PIPE_MAX_COLS + 1, "would not fit")])
def test_widths_the_pipe_cannot_take_are_refused_by_name_before_any_launch(op, cols, message):
    host = SmsHost()
    with pytest.raises(InputError, match=message):
        native.LAUNCHERS[(op, "pipe")](host, *_inputs(op, 1, cols))
    assert not host.launches


@pytest.mark.parametrize("op", OPS)
def test_the_reduction_suite_measures_the_pipe_at_every_width_from_1024(op):
    spec = registry.get_op(op)
    study = {c.params["cols"]: c for c in spec.cases() if c.suite == "reduction"}
    for family in ("native", "native-py"):
        impl = next(i for i in registry.implementations(op) if i.family == family and i.strategy == "pipe")
        taken = [cols for cols, case in study.items() if impl.case_skip_reason(case.params) is None]
        assert taken == [cols for cols in rows.REDUCTION_WIDTHS if cols >= 1024]
        assert "fit one warp's registers" in impl.case_skip_reason(study[1000].params)


# ---------------------------------------------------------------- 16384 columns: two programs an SM

_SM90_REGISTERS = r"""
import json
from cubin_info import resources
from sm90_compile import compile_for_hopper
from mage import registry
from mage.spec import Case

launched = compile_for_hopper()
for op in ("layernorm", "softmax"):
    spec = registry.get_op(op)
    for impl in registry.implementations(op):
        if impl.backend == "triton.registers":
            launched.clear()
            impl.fn(*spec.make_inputs(Case(op, "sm90", "seed", {"rows": 2, "cols": 16384}, seed=1), 1, "cpu"))
            for kernel in launched:
                print(json.dumps([impl.name, kernel.metadata.num_warps, resources(kernel.asm["cubin"])[kernel.name]]))
"""


@needs_ptxas
def test_the_registers_kernels_hold_a_16384_column_row_with_two_programs_an_sm():
    """Uncapped, LayerNorm's row kernel took 86 registers a thread at 16 warps (one program an SM) where
    softmax's took 64 (two); the geometry's cap gives both two programs an SM, with no spill."""
    done = run_compiled("-c", _SM90_REGISTERS)
    assert done.returncode == 0, done.stderr[-3000:]
    compiled = [json.loads(line) for line in done.stdout.splitlines()]
    assert {name for name, _, _ in compiled} == {i.name for op in OPS for i in registry.implementations(op)
                                                 if i.backend == "triton.registers"}
    for name, warps, used in compiled:
        print(name, warps, used)
        assert warps == 16
        assert used["registers"] * 32 * warps * 2 <= 65536, f"{name}: one program an SM"
        assert used["frame"] == 0, f"{name} spills {used['frame']} bytes a thread"
