"""The native pipe strategy (layernorm, softmax: a persistent cluster that walks rows, the next row's slice
copying into shared memory by one bulk copy while the current one is reduced from registers) without a GPU:
NVRTC compiles every pipe kernel, float32 and 16-bit, for sm_90 within the registers its plan's CTAs an SM leave,
without a spill, and with the next row's body in one bulk copy (no per-thread global load of it); the plan per
width (K, threads, chunks a thread, CTAs an SM) fits an SM's shared memory and threads, the launcher's grid is
the driver's count of clusters that fit at once (a multiple of K, never more clusters than rows) with the
slice's shared bytes, and the widths it refuses say why. Its arithmetic runs on the GPU only
(tests/test_reduce_pipe_gpu.py): the CPU emulation runs blocks one after another, and a cluster's CTAs must be
resident together.

Also LayerNorm's 16384 columns: Triton's registers kernels compile for sm_90 to two programs an SM."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import triton

from mage import registry
from mage.backends import native, rows
from mage.backends.cuda_libs import preload_nvrtc
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


# What cuOccupancyMaxActiveClusters answers for each plan (tests/test_reduce_pipe_gpu.py prints it) on the H200
# and on an H100 alike (both 132 SMs): their GPCs are not all 16 SMs, so clusters of 4 or 8 CTAs fit fewer times
# than 132 SMs would suggest. The 16-bit plans share counts with the float32 plans of their K, threads and CTAs
# an SM. (8, 1024, 8, 1) fits half of (8, 512, 4, 2)'s 30, as 16 CTAs one an SM fitted half of 16 two an SM:
# ncu counted its grid on an H100 at 120 CTAs.
H200_CLUSTERS = {(2, 128, 4, 8): 528, (2, 512, 4, 2): 132, (4, 512, 8, 2): 62, (8, 1024, 8, 1): 15,
                 (2, 128, 8, 8): 528, (2, 512, 8, 2): 132, (8, 512, 8, 2): 30}
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
    """A thread holds one row's chunks, as the cluster kernels do: the next row is in shared memory."""
    compiled = resources(ext.compile_to_cubin(native.source(op, SOURCES[precision]), HOPPER, name=f"{op}-pipe.cu"))
    for (_, threads, chunks, ctas), kernel in MODULES[op].PIPE[precision].items():
        used = compiled[kernel.name]
        print(kernel.name, used)
        assert used["registers"] * threads * ctas <= 65536, f"{kernel.name}: fewer than {ctas} CTAs an SM"
        assert used["frame"] == 0, f"{kernel.name} spills {used['frame']} bytes a thread"


@pytest.mark.parametrize("precision", ["ieee", "bf16"])
@pytest.mark.parametrize("op", OPS)
def test_the_next_row_is_one_bulk_copy_and_the_row_is_written_in_16_byte_stores(op, precision, tmp_path):
    """sm_90 SASS of every pipe kernel: the TMA unit's bulk copy (UBLKCP) brings the next row's body, so no thread
    loads x 16 bytes at a time (LayerNorm's 16-byte loads are of weight and bias, read-only); the row is written
    in 16-byte stores, which a plain float4 store in the row loop had lost to four scalar ones."""
    cuobjdump = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    if preload_nvrtc() is None or not cuobjdump.exists():
        pytest.skip("needs libnvrtc and Triton's cuobjdump")
    cubin = tmp_path / f"{op}.cubin"
    cubin.write_bytes(native.cubin(op, HOPPER, SOURCES[precision]))
    for kernel in MODULES[op].PIPE[precision].values():
        sass = subprocess.run([str(cuobjdump), "-sass", "-fun", kernel.name, str(cubin)], capture_output=True,
                              text=True, check=True).stdout
        assert "UBLKCP.S.G" in sass, f"{kernel.name}: no bulk copy"
        assert not re.search(r"LDG\.E\.128(?!\.CONSTANT)", sass), f"{kernel.name}: a thread loads x"
        assert "STG.E.128" in sass, f"{kernel.name}: no 16-byte store"


# (columns, 16-byte chunks' elements, the plan) at the study's widths and the limits, float32 and 16-bit.
PLANS = [
    (1024, 4, (2, 128, 4, 8)), (4096, 4, (2, 128, 4, 8)), (4099, 4, (2, 128, 4, 8)), (16384, 4, (2, 512, 4, 2)),
    (16388, 4, (4, 512, 8, 2)), (65536, 4, (4, 512, 8, 2)), (65537, 4, (4, 512, 8, 2)),
    (262144, 4, (8, 1024, 8, 1)), (rows.PIPE_MAX_COLS, 4, (8, 1024, 8, 1)),
    (8192, 8, (2, 128, 8, 8)), (65536, 8, (2, 512, 8, 2)), (65537, 8, (2, 512, 8, 2)), (262144, 8, (8, 512, 8, 2)),
]


@pytest.mark.parametrize("cols, elements, expected", PLANS, ids=[f"{c}x{e}" for c, e, _ in PLANS])
def test_the_launcher_picks_the_smallest_pipe_plan_that_holds_the_row(cols, elements, expected):
    plans = rows.PIPE_PLANS if elements == 4 else rows.SIXTEEN_BIT_PIPE_PLANS
    plan = rows.pipe_plan(cols, elements, plans)
    assert plan == expected
    k, threads, chunks, _ = plan
    assert k * threads * chunks >= cols // elements  # the body's 16-byte chunks, whatever the alignment
    assert rows.slice_chunks(cols, elements, k) <= threads * chunks  # a CTA's share: its registers, its buffer
    smaller = plans[: plans.index(plan)]
    assert all(k * t * v < cols // elements for k, t, v, _ in smaller)


@pytest.mark.parametrize("plan", sorted(set(rows.PIPE_PLANS) | set(rows.SIXTEEN_BIT_PIPE_PLANS)),
                         ids=lambda p: "k{}_t{}_v{}_c{}".format(*p))
def test_every_plan_fits_an_sm_with_64_kb_or_more_in_flight(plan):
    k, threads, chunks, ctas = plan
    shared = 16 * threads * chunks  # the widest slice the plan holds: its next row's buffer
    assert shared <= BLOCK_SHARED_MAX
    assert ctas * (shared + RESERVED) <= SM_SHARED  # all its CTAs resident at once: shared memory
    assert threads * ctas <= 2048  # threads
    assert 4 * chunks <= 65536 // (threads * ctas) // 2  # one row's chunks: half the registers a thread or less
    assert ctas * shared >= 64 * 1024  # bytes of the next rows in flight an SM while the current ones reduce
    assert k in (2, 4, 8)  # portable cluster sizes


def test_the_plans_grow_with_the_row_and_end_where_the_cluster_plans_end():
    capacities = [k * t * v for k, t, v, _ in rows.PIPE_PLANS]
    assert capacities == sorted(capacities) and len(set(capacities)) == len(capacities)
    assert rows.PIPE_MAX_COLS == 4 * capacities[-1] + 3 == rows.CLUSTER_MAX_COLS
    with pytest.raises(ValueError, match="no pipe plan holds"):
        rows.pipe_plan(rows.PIPE_MAX_COLS + 1)


# (rows, columns, the bytes of a CTA's widest slice: 16 a body chunk, a row's chunks (columns // 4) over K CTAs).
GRIDS = [(1000, 4099, 16 * 1024 // 2), (3, 16384, 16 * 4096 // 2), (100, 65537, 16 * 16384 // 4),
         (40, 262144, 16 * 65536 // 8)]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("rows_, cols, shared_bytes", GRIDS, ids=[f"{r}x{c}" for r, c, _ in GRIDS])
def test_the_grid_is_the_drivers_count_of_clusters_or_one_a_row_with_the_slices_shared_memory(op, rows_, cols,
                                                                                              shared_bytes):
    host = SmsHost()
    native.LAUNCHERS[(op, "pipe")](host, *_inputs(op, rows_, cols))
    native.LAUNCHERS[(op, "pipe")](host, *_inputs(op, rows_, cols))
    (name, grid, block, shared, args), again = host.launches
    plan = rows.pipe_plan(cols)
    k, threads, chunks, _ = plan
    assert name == f"{op}_f32_pipe{k}_t{threads}_v{chunks}"
    # The driver is asked once, for the plan's cluster, block and shared memory; the grid is its answer.
    assert host.asked == [(name, k, (threads, 1, 1), shared_bytes)] and again[1] == grid
    clusters = min(rows_, H200_CLUSTERS[plan])
    assert grid == (clusters * k, 1, 1) and grid[0] % k == 0  # compile-time cluster dims: a multiple of K
    assert block == (threads, 1, 1)
    assert shared == shared_bytes
    rows_at = {"layernorm": 4, "softmax": 2}[op]
    assert args[rows_at: rows_at + 2] == (rows_, cols)


@pytest.mark.parametrize("op", OPS)
def test_a_plan_of_which_no_cluster_fits_is_refused_by_name_before_any_launch(op):
    host = SmsHost(counts=dict.fromkeys(rows.PIPE_PLANS, 0))
    with pytest.raises(InputError, match="no cluster of 8 CTAs of 1024 threads and 131072 bytes"):
        native.LAUNCHERS[(op, "pipe")](host, *_inputs(op, 3, 262144))
    assert not host.launches


def test_the_widest_rows_ask_for_more_than_48_kb_of_shared_memory():
    """262144 columns: each of 8 CTAs holds 32768 floats of the next row, 128 KB, which both hosts opt the kernel
    in to."""
    host = SmsHost()
    native.LAUNCHERS[("layernorm", "pipe")](host, *_inputs("layernorm", 20, 262144))
    native.LAUNCHERS[("softmax", "pipe")](host, *_inputs("softmax", 20, 262144))
    assert [launch[3] for launch in host.launches] == [128 * 1024] * 2
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
