"""The native resident strategy of LayerNorm (the pipe with each CTA's weight and bias held in shared memory for the
kernel's life) without a GPU: NVRTC compiles every kernel for sm_90 as one CTA of 512 threads an SM without a spill,
the next row by a bulk copy, weight and bias read from shared memory (no 16-byte global load at all) and the row
written in 16-byte stores; the window of weight and bias a CTA holds (column_window, compiled from the kernels' own
header) covers every column row_slice gives it at every row alignment, rank and cluster size, within the capacity the
launcher allocates; the plans fit an SM's shared memory; the launcher's geometry and refusals. The CPU emulation runs
the plan of one CTA (a cluster of one: the emulation's blocks run one after another): rows at every alignment,
weight and bias off a 16-byte boundary, 16-bit rows on the shifted reads, a large mean. Clusters of several CTAs run on
the GPU only (tests/test_reduce_resident_gpu.py)."""

from __future__ import annotations

import ctypes
import re
import subprocess
from pathlib import Path

import pytest
import torch
import triton

from mage import registry
from mage.backends import native, rows
from mage.backends.cuda_libs import preload_nvrtc
from mage.backends.native import SIXTEEN_BIT_SOURCE
from mage.errors import InputError
from mage.ops.layernorm import native as layernorm_native
from mage.ops.layernorm.spec import EPS
from cubin_info import resources
from native_emu import HEADER, EmuHost, compiler, shared_library
from test_reduce_columns import _reference
from test_reduce_pipe import BLOCK_SHARED_MAX, SmsHost
from test_reduce_wide import HOPPER, _inputs, ext  # noqa: F401 (ext: the NVRTC fixture)

SOURCES = {"ieee": "native.cu", "bf16": SIXTEEN_BIT_SOURCE, "fp16": SIXTEEN_BIT_SOURCE}
DTYPES = {"ieee": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
PLANS = {"ieee": rows.RESIDENT_PLANS, "bf16": rows.SIXTEEN_BIT_RESIDENT_PLANS, "fp16": rows.SIXTEEN_BIT_RESIDENT_PLANS}
# The kernels' static shared memory beside the dynamic: the reduction's scratch, the published moments, the barrier.
STATIC_SHARED = 4 * 512 // 32 + 4 * 6 + 8


@pytest.mark.parametrize("precision", ["ieee", "bf16"])
def test_every_resident_kernel_is_one_cta_an_sm_without_a_spill(ext, precision):
    compiled = resources(ext.compile_to_cubin(native.source("layernorm", SOURCES[precision]), HOPPER,
                                              name="resident.cu"))
    kernels = layernorm_native.RESIDENT[precision]
    assert set(kernels) == set(PLANS[precision])
    for (k, threads, chunks, ctas), kernel in kernels.items():
        used = compiled[kernel.name]
        print(kernel.name, used)
        assert kernel.name.endswith(f"_resident{k}_t{threads}_v{chunks}")
        assert used["registers"] * threads * ctas <= 65536, f"{kernel.name}: fewer than {ctas} CTAs an SM"
        assert used["frame"] == 0, f"{kernel.name} spills {used['frame']} bytes a thread"


@pytest.mark.parametrize("precision", ["ieee", "bf16"])
def test_weight_and_bias_come_from_shared_memory_and_the_row_from_a_bulk_copy(precision, tmp_path):
    """sm_90 SASS of every resident kernel: the bulk copy (UBLKCP) brings the next row, 16-byte shared loads (LDS.128)
    read weight and bias in the row loop, and no thread makes a 16-byte global load (the pipe's weight and bias reads,
    LDG.E.128.CONSTANT, are gone); the row is written in 16-byte stores."""
    cuobjdump = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    if preload_nvrtc() is None or not cuobjdump.exists():
        pytest.skip("needs libnvrtc and Triton's cuobjdump")
    cubin = tmp_path / "layernorm.cubin"
    cubin.write_bytes(native.cubin("layernorm", HOPPER, SOURCES[precision]))
    for kernel in layernorm_native.RESIDENT[precision].values():
        sass = subprocess.run([str(cuobjdump), "-sass", "-fun", kernel.name, str(cubin)], capture_output=True,
                              text=True, check=True).stdout
        assert "UBLKCP.S.G" in sass, f"{kernel.name}: no bulk copy"
        assert "LDS.128" in sass, f"{kernel.name}: weight and bias are not read from shared memory 16 bytes at a time"
        assert not re.search(r"LDG\.E\.128", sass), f"{kernel.name}: a 16-byte global load"
        assert "STG.E.128" in sass, f"{kernel.name}: no 16-byte store"


# The kernels' own column_window and row_slice, compiled for the CPU: for each row alignment (head), rank and thread,
# the columns of the CTA's body chunks and of its edge scalar must lie in its window, the window must start on a chunk
# and fit the capacity, and the CTA's chunks its THREADS · V.
_WINDOW_CHECK = r"""
#include "{header}"
#include "{rows_header}"

template <typename T>
long long window_misses(int cols, int ranks, int chunks, int capacity) {{
    constexpr int E = CHUNK_ELEMENTS<T>;
    long long missed = 0;
    for (int head = 0; head < E; ++head) {{
        // A row whose first 16-byte boundary is `head` elements in.
        const T* row = reinterpret_cast<const T*>(static_cast<unsigned long long>(4096 + 16 - head * sizeof(T)));
        for (int rank = 0; rank < ranks; ++rank) {{
            const ColumnWindow w = column_window<T>(cols, rank, ranks);
            if (w.lo % E != 0 || w.lo < 0 || w.hi > cols || w.hi - w.lo > capacity) ++missed;
            for (unsigned t = 0; t < 2 * E; ++t) {{
                emu::thread_idx.x = t;
                const RowSlice s = row_slice(row, cols, rank, ranks);
                if (s.head != (head < cols ? head : cols)) ++missed;
                if (s.end - s.first > chunks) ++missed;
                if (s.end > s.first && (s.head + E * s.first < w.lo || s.head + E * s.end > w.hi)) ++missed;
                if (s.edge >= 0 && (s.edge < w.lo || s.edge >= w.hi)) ++missed;
            }}
        }}
    }}
    return missed;
}}

extern "C" long long window_misses_f32(int cols, int ranks, int chunks, int capacity) {{
    return window_misses<float>(cols, ranks, chunks, capacity);
}}
extern "C" long long window_misses_16(int cols, int ranks, int chunks, int capacity) {{
    return window_misses<bf16>(cols, ranks, chunks, capacity);
}}
template <typename T>
int window_capacity(int ranks) {{
    switch (ranks) {{
        case 1: return WINDOW_CAPACITY<T, 1, 4096>;
        case 2: return WINDOW_CAPACITY<T, 2, 4096>;
        case 4: return WINDOW_CAPACITY<T, 4, 4096>;
        case 8: return WINDOW_CAPACITY<T, 8, 4096>;
        case 16: return WINDOW_CAPACITY<T, 16, 4096>;
    }}
    return -1;
}}

extern "C" int window_capacity_f32(int ranks) {{ return window_capacity<float>(ranks); }}
extern "C" int window_capacity_16(int ranks) {{ return window_capacity<bf16>(ranks); }}
"""


@pytest.fixture(scope="module")
def window_check():
    if compiler() is None:
        pytest.skip("needs a C++ compiler")
    rows_header = native.OPS_DIR.parent / "backends" / "native_cluster.cuh"
    unit = _WINDOW_CHECK.format(header=HEADER, rows_header=rows_header)
    library = shared_library("resident-window", unit, native.source("layernorm"))
    for name in ("window_misses_f32", "window_misses_16"):
        getattr(library, name).restype = ctypes.c_longlong
        getattr(library, name).argtypes = [ctypes.c_int] * 4
    return library


@pytest.mark.parametrize("precision", ["ieee", "bf16"])
def test_each_ctas_window_holds_every_column_it_is_given_in_any_row(window_check, precision):
    """Every plan at the narrowest and widest rows it takes and widths between, including every remainder of a chunk
    and rows whose chunks do not divide among the CTAs."""
    elements = 16 // DTYPES[precision].itemsize
    suffix = "f32" if precision == "ieee" else "16"
    misses = getattr(window_check, f"window_misses_{suffix}")
    capacity_of = getattr(window_check, f"window_capacity_{suffix}")
    plans = PLANS[precision]
    for index, (k, threads, chunks, _) in enumerate(plans):
        capacity = rows.window_capacity(elements, k, threads * chunks)
        assert capacity_of(k) == capacity  # the launcher allocates what the kernel indexes
        narrowest = max(rows.RESIDENT_MIN_COLS, elements * (plans[index - 1][0] * threads * chunks + 1)
                        if index else 0)
        widest = elements * k * threads * chunks + elements - 1
        widths = {narrowest, widest, (narrowest + widest) // 2} | {widest - r for r in range(2 * elements)}
        for cols in sorted(widths):
            if rows.resident_plan(cols, elements, plans) == (k, threads, chunks, 1):
                assert misses(cols, k, threads * chunks, capacity) == 0, (k, cols)


@pytest.mark.parametrize("plan", sorted(set(rows.RESIDENT_PLANS) | set(rows.SIXTEEN_BIT_RESIDENT_PLANS)),
                         ids=lambda p: "k{}_t{}_v{}_c{}".format(*p))
@pytest.mark.parametrize("element_bytes", [4, 2])
def test_every_plan_fits_one_cta_an_sm_with_its_window(plan, element_bytes):
    shared = rows.resident_shared_bytes(plan, element_bytes)
    assert shared + STATIC_SHARED <= BLOCK_SHARED_MAX
    k, threads, chunks, ctas = plan
    assert ctas == 1 and threads * chunks == 4096  # 16384 float32 or 32768 16-bit columns a CTA
    assert k in (1, 2, 4, 8, 16)


# (columns, elements a chunk, the plan): the study's widths past a block, the limits, and a 16-bit row past K = 1.
WIDTHS = [(16384, 4, (1, 512, 8, 1)), (16387, 4, (1, 512, 8, 1)), (16388, 4, (2, 512, 8, 1)),
          (65536, 4, (4, 512, 8, 1)), (65537, 4, (4, 512, 8, 1)), (262144, 4, (16, 512, 8, 1)),
          (rows.RESIDENT_MAX_COLS, 4, (16, 512, 8, 1)), (32768, 8, (1, 512, 8, 1)), (65537, 8, (2, 512, 8, 1)),
          (262144, 8, (8, 512, 8, 1))]


@pytest.mark.parametrize("cols, elements, expected", WIDTHS, ids=[f"{c}x{e}" for c, e, _ in WIDTHS])
def test_the_launcher_picks_the_smallest_plan_that_holds_the_row(cols, elements, expected):
    plans = rows.RESIDENT_PLANS if elements == 4 else rows.SIXTEEN_BIT_RESIDENT_PLANS
    assert rows.resident_plan(cols, elements, plans) == expected


class ResidentSmsHost(SmsHost):
    """SmsHost answering every resident plan with the same count of clusters."""

    def _query_clusters(self, kernel, device, cluster, block, shared):
        self.asked.append((kernel.name, cluster, block, shared))
        return self.counts


@pytest.mark.parametrize("rows_, cols", [(3, 65537), (100, 262144)])
def test_the_grid_is_the_drivers_count_of_clusters_with_the_plans_shared_memory(rows_, cols):
    host = ResidentSmsHost(counts=7)
    layernorm_native.layernorm_resident(host, *_inputs("layernorm", rows_, cols))
    (name, grid, block, shared, args), = host.launches
    plan = rows.resident_plan(cols)
    k = plan[0]
    assert name == "layernorm_f32_resident{}_t{}_v{}".format(*plan[:3])
    assert host.asked == [(name, k, (512, 1, 1), rows.resident_shared_bytes(plan, 4))]
    assert grid == (min(rows_, 7) * k, 1, 1) and block == (512, 1, 1)
    assert shared == rows.resident_shared_bytes(plan, 4) > native.DEFAULT_DYNAMIC_SHARED_BYTES
    assert args[4:6] == (rows_, cols)


def test_widths_and_devices_it_cannot_take_are_refused_by_name_before_any_launch():
    host = ResidentSmsHost(counts=0)
    with pytest.raises(InputError, match="no cluster of 16 CTAs of 512 threads"):
        layernorm_native.layernorm_resident(host, *_inputs("layernorm", 2, 262144))
    with pytest.raises(InputError, match="rows of 16384 to"):
        layernorm_native.layernorm_resident(host, *_inputs("layernorm", 2, 16383))
    with pytest.raises(InputError, match="would not fit"):
        layernorm_native.layernorm_resident(host, *_inputs("layernorm", 1, rows.RESIDENT_MAX_COLS + 1))
    assert not host.launches


class RecordingEmuHost(EmuHost):
    def launch(self, kernel, grid, block, *args, shared=0):
        self.recorded = (kernel.name, grid, shared)
        super().launch(kernel, grid, block, *args, shared=shared)


def _error(out, x, weight, bias):
    ref = _reference(x, weight, bias)
    return ((out.double() - ref).norm() / ref.norm()).item()


def _eager_error(x, weight, bias):
    eager = torch.nn.functional.layer_norm(x.float(), (x.shape[1],), weight.float(), bias.float(), eps=EPS)
    return _error(eager.to(x.dtype), x, weight, bias)


@pytest.mark.parametrize("precision, cols", [("ieee", 16387), ("bf16", 32771), ("fp16", 32771)])
def test_emulated_rows_at_every_alignment_with_weight_and_bias_off_a_boundary(precision, cols):
    """An odd width: consecutive rows start one element further on, so each row's head and the shift of its weight
    and bias reads change row to row (the 16-bit rows' shifted loads from shared memory); weight and bias are views
    starting one element past a 16-byte boundary, so the window is filled from unaligned columns; a large mean; more
    rows than the one resident CTA, so it walks them all, the copies alternating phases."""
    host = RecordingEmuHost()
    torch.manual_seed(3)
    dtype = DTYPES[precision]
    x = (torch.randn(9, cols) * 3 + 1e3).to(dtype)
    affine = torch.randn(2, cols + 1).to(dtype)
    weight, bias = affine[0, 1:], affine[1, 1:]
    assert weight.data_ptr() % 16 and bias.data_ptr() % 16
    out = layernorm_native.layernorm_resident(host, x, weight, bias, precision)
    plan = rows.resident_plan(cols, 16 // x.element_size(), PLANS[precision])
    assert host.recorded == (layernorm_native.RESIDENT[precision][plan].name, (1, 1, 1),
                             rows.resident_shared_bytes(plan, x.element_size()))
    assert_near_eager_and_the_same_again(layernorm_native.layernorm_resident, host, out, x, weight, bias, precision)


def assert_near_eager_and_the_same_again(launch, host, out, x, weight, bias, precision: str) -> None:
    """``out`` (``launch``'s LayerNorm of x through ``host``) within 1.5× eager's error against float64, and the same
    bits from a second call."""
    error, eager_error = _error(out, x, weight, bias), _eager_error(x, weight, bias)
    print(precision, x.shape[1], error, eager_error)
    assert error <= 1.5 * eager_error
    assert torch.equal(out, launch(host, x, weight, bias, precision))


def test_emulated_aligned_rows_one_row_and_an_empty_input():
    host = EmuHost()
    torch.manual_seed(4)
    for rows_ in (1, 4):
        x, weight, bias = torch.randn(rows_, 16384) + 5, torch.randn(16384), torch.randn(16384)
        assert _error(layernorm_native.layernorm_resident(host, x, weight, bias), x, weight, bias) < 1e-6
    empty = layernorm_native.layernorm_resident(host, torch.randn(0, 16384), torch.randn(16384), torch.randn(16384))
    assert empty.shape == (0, 16384)


def assert_registered_for_both_hosts_from_16384_columns(strategy: str) -> None:
    """LayerNorm's native ``strategy`` at every precision through both hosts, taking the study's widths from 16384."""
    impls = [i for i in registry.implementations("layernorm") if i.strategy == strategy]
    assert {(i.family, i.precision) for i in impls} == {(f, p) for f in ("native", "native-py")
                                                         for p in ("ieee", "bf16", "fp16")}
    study = {c.params["cols"]: c for c in registry.get_op("layernorm").cases() if c.suite == "reduction"}
    taken = [cols for cols, case in study.items() if impls[0].case_skip_reason(case.params) is None]
    assert taken == [cols for cols in rows.REDUCTION_WIDTHS if cols >= 16384]


def test_the_resident_strategy_is_registered_as_a_study_for_both_hosts():
    assert_registered_for_both_hosts_from_16384_columns("resident")
