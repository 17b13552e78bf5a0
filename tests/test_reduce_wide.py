"""The native cluster strategy for wide rows (layernorm, softmax) without a GPU: NVRTC compiles every
cluster kernel for sm_90, the launcher's choice of cluster size and geometry per width, the widths it
refuses and why, and the cut of a row into a scalar head, a float4 body dealt out to the cluster's CTAs
and a scalar tail (native_cluster.cuh's row_slice, compiled for the CPU) at every 4-byte alignment. The
same for the slice strategy (the cluster kernel with one CTA), whose arithmetic the emulation runs too
(tests/test_native.py).
The kernels' arithmetic runs on the GPU only (tests/test_reduce_wide_gpu.py): the CPU emulation runs
blocks one after another, and a cluster's CTAs must be resident together."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest
import torch

from mage import registry
from mage.backends import native, rows
from mage.backends.cuda_libs import preload_nvrtc
from mage.backends.native import Host
from mage.errors import InputError
from mage.ops.layernorm import native as layernorm_native
from mage.ops.softmax import native as softmax_native
from mage.spec import Case
from cubin_info import resources
from native_emu import HEADER, compiler, shared_library

registry.load()
OPS = ("layernorm", "softmax")
MODULES = {"layernorm": layernorm_native, "softmax": softmax_native}
HOPPER = 90


@pytest.fixture(scope="module")
def ext(tmp_path_factory):
    if preload_nvrtc() is None:
        pytest.skip("no libnvrtc here (install nvidia-cuda-nvrtc)")
    return native.extension()


@pytest.mark.parametrize("op", OPS)
def test_every_cluster_kernel_compiles_for_sm_90(ext, op):
    cubin = ext.compile_to_cubin(native.source(op), HOPPER, name=f"{op}-cluster.cu")
    kernels = MODULES[op].CLUSTER
    kernels = kernels.get("ieee", kernels)  # softmax's by precision (its 16-bit ones: tests/test_lowp_native.py)
    assert set(kernels) == set(rows.CLUSTER_PLANS)
    assert {k for k, _, _ in kernels} == {2, 4, 8}  # every cluster size the launcher may pick
    for (k, threads, chunks), kernel in kernels.items():
        assert kernel.name == f"{op}_f32_cluster{k}_t{threads}_v{chunks}"
        assert kernel.name.encode() + b"\0" in cubin, f"{kernel.name} is not in the cubin"


# The plans no launcher picks, which scripts/cluster_plan_probe.py sets against the launcher's: (K, threads, CTAs an
# SM they were built to share), at 65536 columns and at 262144.
PROBE_PLANS = [(2, 1024, 1), (8, 256, 4), (16, 512, 2)]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("k, threads, ctas", PROBE_PLANS, ids=[f"{k}x{t}" for k, t, _ in PROBE_PLANS])
def test_the_probe_s_cluster_kernels_fit_the_ctas_an_sm_they_were_built_for(ext, op, k, threads, ctas):
    """A probe plan tests what it was built for only if its threads of 32 floats take that share of an SM's 65536
    registers with no local memory: the 16-CTA plan two CTAs an SM (the 8-CTA plan's 1024 threads leave one), the
    8-CTA plan of 256 threads four. Softmax's combine of 16 partials once held them all and spilled under that
    bound."""
    used = resources(ext.compile_to_cubin(native.source(op), HOPPER, name=f"{op}-cluster.cu"))
    kernel = used[f"{op}_f32_cluster{k}_t{threads}_v8"]
    assert ctas * threads * kernel["registers"] <= 65536 and kernel["frame"] == 0, kernel


# (columns, the plan: CTAs a cluster, threads a CTA, float4 chunks a thread) at the study's widths.
PLANS = [
    (1024, (2, 128, 4)), (4096, (2, 128, 4)), (4099, (2, 128, 4)), (16384, (2, 512, 4)),
    (65536, (4, 512, 8)), (65537, (4, 512, 8)), (262144, (8, 1024, 8)), (rows.CLUSTER_MAX_COLS, (8, 1024, 8)),
]


@pytest.mark.parametrize("cols, expected", PLANS, ids=[str(c) for c, _ in PLANS])
def test_the_launcher_picks_the_smallest_cluster_plan_that_holds_the_row(cols, expected):
    plan = rows.cluster_plan(cols)
    assert plan == expected
    k, threads, chunks = plan
    assert k * threads * chunks >= cols // 4  # the body, at most cols // 4 float4s whatever the alignment
    smaller = rows.CLUSTER_PLANS[: rows.CLUSTER_PLANS.index(plan)]
    assert all(k * t * v < cols // 4 for k, t, v in smaller)
    assert threads <= 1024 and k in (2, 4, 8)


def test_the_plans_grow_with_the_row_and_end_at_the_widest_a_cluster_holds():
    capacities = [k * t * v for k, t, v in rows.CLUSTER_PLANS]
    assert capacities == sorted(capacities) and len(set(capacities)) == len(capacities)
    assert rows.CLUSTER_MAX_COLS == 4 * capacities[-1] + 3
    with pytest.raises(ValueError, match="no cluster plan holds"):
        rows.cluster_plan(rows.CLUSTER_MAX_COLS + 1)


class RecordingHost(Host):
    """Takes CPU tensors and records each launch instead of running it (the geometry is what is tested)."""

    family = "recording"
    device_type = "cpu"

    def __init__(self, clusters: bool = True):
        self.launches = []
        self.clusters = clusters

    def holds(self, t) -> bool:
        return isinstance(t, torch.Tensor) and t.device.type == "cpu"

    def has_clusters(self, device) -> bool:
        return self.clusters

    def launch(self, kernel, grid, block, *args, shared=0):
        self.launches.append((kernel.name, grid, block, shared, args))


def _inputs(op, rows_, cols):
    return registry.get_op(op).make_inputs(Case(op, "t", "seed", {"rows": rows_, "cols": cols}), 1, "cpu")


def _default_kernel(op: str, precision: str, cols: int, clusters: bool) -> str:
    """The kernel each op's default strategy launches on 2 rows of ``cols`` (aligned, fresh inputs)."""
    host = RecordingHost(clusters)
    spec = registry.get_op(op)
    inputs = spec.make_inputs_at(Case(op, "t", "seed", {"rows": 2, "cols": cols}), 1, "cpu", "normal", precision)
    native.LAUNCHERS[(op, "default")](host, *inputs, precision=precision)
    (name, *_), = host.launches
    return name


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("precision", ["ieee", "bf16"])
@pytest.mark.parametrize("clusters", [True, False], ids=["clusters", "no-clusters"])
def test_the_default_hands_rows_past_a_warp_to_the_slice_and_then_the_cluster_kernels(op, precision, clusters):
    """A warp's registers to 1024 columns; float32 LayerNorm's block kernels for 16-byte rows to 16384; the slice to
    16387 columns, the cluster beyond on a device that runs clusters; the looped or online kernel past them."""
    tag = {"ieee": "f32", "bf16": "bf16"}[precision]
    past_a_cluster = {"layernorm": "looped", "softmax": "online"}[op]
    block_held = op == "layernorm" and precision == "ieee"
    expected = {
        1024: "warp",
        1025: "slice",
        4096: "block" if block_held else "slice",
        4099: "slice",
        16384: "block" if block_held else "slice",
        rows.SLICE_MAX_COLS: "slice",
        rows.SLICE_MAX_COLS + 1: "cluster" if clusters else past_a_cluster,
        rows.CLUSTER_MAX_COLS: "cluster" if clusters else past_a_cluster,
        rows.CLUSTER_MAX_COLS + 1: past_a_cluster,
    }
    chosen = {cols: _default_kernel(op, precision, cols, clusters) for cols in expected}
    assert all(chosen[cols].startswith(f"{op}_{tag}_{kind}") for cols, kind in expected.items()), chosen


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("cols", [4099, 65537, 262144])
def test_a_cluster_a_row_grid_of_rows_times_k_ctas(op, cols):
    host = RecordingHost()
    launcher = native.LAUNCHERS[(op, "cluster")]
    launcher(host, *_inputs(op, 3, cols))
    (name, grid, block, shared, args), = host.launches
    k, threads, chunks = rows.cluster_plan(cols)
    assert name == f"{op}_f32_cluster{k}_t{threads}_v{chunks}"
    assert grid == (3 * k, 1, 1) and grid[0] % k == 0  # compile-time cluster dims: the grid a multiple of K
    assert block == (threads, 1, 1) and shared == 0  # the row lives in registers, not in dynamic shared memory
    rows_at = {"layernorm": 4, "softmax": 2}[op]  # (x, weight, bias, out, rows, cols, eps) or (x, out, rows, cols)
    assert args[rows_at: rows_at + 2] == (3, cols)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("cols, message", [(1000, "fit one warp's registers"), (rows.CLUSTER_MAX_COLS + 1, "would spill")])
def test_widths_the_cluster_cannot_take_are_refused_by_name_before_any_launch(op, cols, message):
    host = RecordingHost()
    with pytest.raises(InputError, match=message):
        native.LAUNCHERS[(op, "cluster")](host, *_inputs(op, 1, cols))
    assert not host.launches


@pytest.mark.parametrize("op", OPS)
def test_the_reduction_suite_measures_the_cluster_at_every_width_from_1024(op):
    spec = registry.get_op(op)
    study = {c.params["cols"]: c for c in spec.cases() if c.suite == "reduction"}
    impl = next(i for i in registry.implementations(op) if i.backend == "native.cluster")
    taken = [cols for cols, case in study.items() if impl.case_skip_reason(case.params) is None]
    assert taken == [cols for cols in rows.REDUCTION_WIDTHS if cols >= 1024]
    assert "fit one warp's registers" in impl.case_skip_reason(study[1000].params)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("cols", [1024, 4099, 8195, 16384, rows.SLICE_MAX_COLS])
def test_the_slice_strategy_launches_a_block_a_row_of_its_plan(op, cols):
    host = RecordingHost()
    native.LAUNCHERS[(op, "slice")](host, *_inputs(op, 3, cols))
    (name, grid, block, shared, args), = host.launches
    threads, chunks = rows.slice_plan(cols)
    assert 4 * threads * chunks >= cols - 3  # the body (at most cols // 4 chunks) fits the registers
    assert name == f"{op}_f32_slice_t{threads}_v{chunks}"
    assert (grid, block, shared) == ((3, 1, 1), (threads, 1, 1), 0)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("cols, message", [(1000, "fit one warp's registers"),
                                           (rows.SLICE_MAX_COLS + 1, "would spill")])
def test_widths_the_slice_cannot_take_are_refused_by_name_before_any_launch(op, cols, message):
    host = RecordingHost()
    with pytest.raises(InputError, match=message):
        native.LAUNCHERS[(op, "slice")](host, *_inputs(op, 1, cols))
    assert not host.launches


@pytest.mark.parametrize("op", OPS)
def test_the_reduction_suite_measures_the_slice_from_1024_to_16384(op):
    study = {c.params["cols"]: c for c in registry.get_op(op).cases() if c.suite == "reduction"}
    impl = next(i for i in registry.implementations(op) if i.backend == "native.slice")
    taken = [cols for cols, case in study.items() if impl.case_skip_reason(case.params) is None]
    assert taken == [1024, 4096, 4099, 16384]


# ---------------------------------------------------------------- row_slice, compiled for the CPU

HARNESS = r"""
#include "{header}"
#include "{cluster}"
// The slice of a row of floats (or of 16-bit elements: slice16) starting at byte address `row` that thread `t`
// of CTA `rank` holds.
template <typename T>
void cut(unsigned long long row, int cols, unsigned rank, unsigned ranks, unsigned t, int* out) {{
    emu::thread_idx = dim3{{t, 0, 0}};
    const RowSlice s = row_slice(reinterpret_cast<const T*>(row), cols, rank, ranks);
    out[0] = s.head; out[1] = s.first; out[2] = s.end; out[3] = s.edge; out[4] = s.count;
}}
extern "C" void slice(unsigned long long row, int cols, unsigned rank, unsigned ranks, unsigned t, int* out) {{
    cut<float>(row, cols, rank, ranks, t, out);
}}
extern "C" void slice16(unsigned long long row, int cols, unsigned rank, unsigned ranks, unsigned t, int* out) {{
    cut<unsigned short>(row, cols, rank, ranks, t, out);
}}
"""


@pytest.fixture(scope="module")
def row_slice():
    if compiler() is None:
        pytest.skip("needs g++ or clang++")
    cluster = Path(native.__file__).with_name("native_cluster.cuh")
    unit = HARNESS.format(header=HEADER, cluster=cluster)
    lib = shared_library("row-slice", unit, cluster.read_text(), flags=())
    for function in (lib.slice, lib.slice16):
        function.argtypes = [ctypes.c_uint64, ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                             ctypes.POINTER(ctypes.c_int)]

    def call(address, cols, rank, ranks, thread, element_bytes=4):
        out = (ctypes.c_int * 5)()
        (lib.slice if element_bytes == 4 else lib.slice16)(address, cols, rank, ranks, thread, out)
        return tuple(out)

    return call


# (strategy, width): the cluster's K CTAs, and the slice strategy's one CTA holding both head and tail.
CUTS = [("cluster", cols) for cols in (1024, 4099, 16384, 65537, rows.CLUSTER_MAX_COLS)] + [
    ("slice", cols) for cols in (1024, 1030, 4099, 8195, rows.SLICE_MAX_COLS)]


def _plan(strategy: str, cols: int, elements: int = 4) -> tuple[int, int, int]:
    """(CTAs a row, threads, 16-byte chunks a thread) of the strategy's plan for ``cols`` of ``elements`` a chunk:
    a 16-bit row's plans its own."""
    if strategy == "cluster":
        return rows.cluster_plan(cols, elements, rows.SIXTEEN_BIT_CLUSTER_PLANS if elements == 8 else rows.CLUSTER_PLANS)
    return (1, *rows.slice_plan(cols, elements, rows.SIXTEEN_BIT_SLICE_PLANS if elements == 8 else rows.SLICE_PLANS))


# Element sizes and where a row may start past a 16-byte boundary: floats at every 4 bytes, 16-bit elements
# (softmax's bf16 and fp16 cluster and slice kernels) at every 2.
ALIGNMENTS = [(4, offset) for offset in range(4)] + [(2, offset) for offset in range(8)]


@pytest.mark.parametrize("strategy, cols", CUTS, ids=[f"{s}-{c}" for s, c in CUTS])
@pytest.mark.parametrize("element_bytes, offset", ALIGNMENTS, ids=[f"{b}B-elements-{b * o}B-past-16"
                                                                   for b, o in ALIGNMENTS])
def test_a_row_at_any_alignment_is_cut_into_head_aligned_body_and_tail_covering_each_column_once(
    row_slice, strategy, cols, element_bytes, offset
):
    elements = 16 // element_bytes
    k, threads, chunks = _plan(strategy, cols, elements)
    address = 1 << 20 | element_bytes * offset  # a row starting `offset` elements past a 16-byte boundary
    covered = torch.zeros(cols, dtype=torch.int32)
    for rank in range(k):
        head, first, end, _, count = row_slice(address, cols, rank, k, 0, element_bytes)
        assert head == (elements - offset) % elements  # the body starts on the first 16-byte boundary
        assert (address + element_bytes * head) % 16 == 0
        assert 0 < end - first <= threads * chunks  # every CTA holds part of the body, within its registers
        covered[head + elements * first: head + elements * end] += 1
        edges = []
        for t in range(threads):
            edge = row_slice(address, cols, rank, k, t, element_bytes)[3]
            if edge >= 0:
                edges.append(edge)
                covered[edge] += 1
        assert count == elements * (end - first) + len(edges)
        if rank == 0:
            assert sorted(edges)[:head] == list(range(head))  # rank 0's first threads hold the head
        assert len(edges) <= (head if rank == 0 else 0) + (elements - 1 if rank == k - 1 else 0)
        assert len(edges) == len(set(edges))  # no thread holds two scalars: one CTA's head and tail apart
    assert torch.equal(covered, torch.ones(cols, dtype=torch.int32))
