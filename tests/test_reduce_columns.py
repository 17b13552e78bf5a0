"""The native columns strategy of LayerNorm (a cooperative grid of one CTA an SM, each owning the same columns of every
row, its weight and bias read once into shared memory, rows' statistics combined across the grid in global memory)
without a GPU: NVRTC compiles its kernels for sm_90 within 64 registers (1024 threads, one CTA an SM) without a spill,
the slices by bulk copies and the output in 16-byte stores; the plan fits shared memory at every study width; the
launcher's geometry, workspace and refusals. The CPU emulation runs a grid of one CTA (its blocks run one after
another, so one is resident at a time): every row's alignment, groups that wrap the stages and the exchange's slots, a
partial last group, 16-bit rows, and the workspace left valid call after call. The exchange between CTAs runs on the
GPU only (tests/test_reduce_columns_gpu.py)."""

from __future__ import annotations

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
from native_emu import EmuHost
from test_reduce_wide import HOPPER, ext  # noqa: F401 (ext: the NVRTC fixture)

SOURCES = {"ieee": "native.cu", "bf16": SIXTEEN_BIT_SOURCE, "fp16": SIXTEEN_BIT_SOURCE}
DTYPES = {"ieee": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
H200_SMS = 132


@pytest.mark.parametrize("precision", ["ieee", "bf16"])
def test_every_columns_kernel_fits_one_cta_an_sm_without_a_spill(ext, precision):
    compiled = resources(ext.compile_to_cubin(native.source("layernorm", SOURCES[precision]), HOPPER, name="columns.cu"))
    kernels = [k for p, k in layernorm_native.COLUMNS.items() if SOURCES[p] == SOURCES[precision]]
    for kernel in kernels:
        used = compiled[kernel.name]
        print(kernel.name, used)
        assert kernel.cooperative and kernel.signature == "pppplifpii"
        assert used["registers"] * rows.COLUMNS_THREADS <= 65536, f"{kernel.name}: not one CTA of 1024 threads an SM"
        assert used["frame"] == 0, f"{kernel.name} spills {used['frame']} bytes a thread"


@pytest.mark.parametrize("precision", ["ieee", "bf16", "fp16"])
def test_the_slices_are_bulk_copies_and_the_output_16_byte_stores(precision, tmp_path):
    """sm_90 SASS: the TMA unit's bulk copy (UBLKCP) brings the slices, no thread loads x 16 bytes at a time, and the
    row is written in 16-byte stores; the grid's exchange is one atomic add a group and acquire loads of its count."""
    cuobjdump = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    if preload_nvrtc() is None or not cuobjdump.exists():
        pytest.skip("needs libnvrtc and Triton's cuobjdump")
    cubin = tmp_path / "layernorm.cubin"
    cubin.write_bytes(native.cubin("layernorm", HOPPER, SOURCES[precision]))
    name = layernorm_native.COLUMNS[precision].name
    sass = subprocess.run([str(cuobjdump), "-sass", "-fun", name, str(cubin)], capture_output=True, text=True,
                          check=True).stdout
    assert "UBLKCP.S.G" in sass, f"{name}: no bulk copy"
    assert not re.search(r"LDG\.E\.128", sass), f"{name}: a thread loads x"
    assert "STG.E.128" in sass, f"{name}: no 16-byte store"
    assert re.search(r"ATOMG\.E\.ADD|RED\.E\.ADD", sass), f"{name}: no atomic arrival"


# (columns, elements a chunk): the study's widths past a block, and the widest a 132-CTA grid takes.
WIDTHS = [(16384, 4), (65536, 4), (65537, 4), (262144, 4), (65536, 8), (262144, 8), (800000, 4)]


@pytest.mark.parametrize("cols, elements", WIDTHS, ids=[f"{c}x{e}" for c, e in WIDTHS])
def test_the_plan_fits_shared_memory_and_gives_each_row_of_a_group_its_threads(cols, elements):
    per_chunks, group_rows, shared = rows.columns_plan(1 << 20, cols, elements, H200_SMS, 227 * 1024)
    print(cols, elements, per_chunks, group_rows, shared)
    assert per_chunks * elements * H200_SMS >= cols > (per_chunks - 1) * elements * H200_SMS
    assert 1 <= group_rows <= rows.MAX_GROUP_ROWS
    assert shared + rows.COLUMNS_STATIC_SHARED <= 227 * 1024
    stage = 16 * (per_chunks + 1) * group_rows
    assert shared == 8 * per_chunks * elements + rows.COLUMNS_STAGES * stage
    if group_rows < rows.MAX_GROUP_ROWS:  # one row more a group would not fit
        assert shared + rows.COLUMNS_STAGES * 16 * (per_chunks + 1) + rows.COLUMNS_STATIC_SHARED > 227 * 1024
    assert rows.columns_plan(3, cols, elements, H200_SMS, 227 * 1024)[1] <= 3


def test_rows_too_wide_or_too_narrow_or_off_a_16_byte_boundary_are_refused_with_the_reason():
    with pytest.raises(InputError, match="too wide for the columns strategy"):
        rows.columns_plan(8, 4 << 20, 4, H200_SMS, 227 * 1024)
    assert "at least 16384 columns" in rows.columns_takes({"cols": 16383})
    assert rows.columns_takes({"cols": 16384}) is None
    host = EmuHost()
    storage = torch.randn(3 * 16384 + 1)
    x = storage[1:].view(3, 16384)
    with pytest.raises(InputError, match="16-byte boundary"):
        layernorm_native.layernorm_columns(host, x, torch.randn(16384), torch.randn(16384))


class RecordingEmuHost(EmuHost):
    """EmuHost that records each launch's shared bytes and the kernel."""

    def launch(self, kernel, grid, block, *args, shared=0):
        self.shared = shared
        self.kernel = kernel
        super().launch(kernel, grid, block, *args, shared=shared)


def _reference(x, weight, bias):
    return torch.nn.functional.layer_norm(x.double(), (x.shape[1],), weight.double(), bias.double(), eps=EPS)


@pytest.mark.parametrize("precision", ["ieee", "bf16", "fp16"])
def test_emulated_rows_at_every_alignment_over_groups_that_wrap_the_stages_and_slots(precision):
    """16387 columns: consecutive rows start 3 elements further on, so the slices' first chunks hold 0 to 7 elements of
    the row before; 5 groups (the last partial) wrap the 4 stages and the 4 exchange slots; a large mean."""
    host = RecordingEmuHost()
    torch.manual_seed(1)
    cols = 16387
    group_rows = rows.columns_plan(1 << 20, cols, 16 // DTYPES[precision].itemsize, 1, host.block_shared_bytes)[1]
    rows_ = 4 * group_rows + group_rows // 2
    x = (torch.randn(rows_, cols) * 3 + 1e3).to(DTYPES[precision])
    weight, bias = torch.randn(cols).to(DTYPES[precision]), torch.randn(cols).to(DTYPES[precision])
    exchange = rows.grid_exchange(x.device, 1)
    arrivals = int(exchange[:rows.GRID_EXCHANGE_BYTES].view(torch.int64).sum())
    out = layernorm_native.layernorm_columns(host, x, weight, bias, precision)
    _, _, shared = rows.columns_plan(rows_, cols, 16 // x.element_size(), 1, host.block_shared_bytes)
    assert (host.shared, host.kernel) == (shared, layernorm_native.COLUMNS[precision])
    ref = _reference(x, weight, bias)
    error = ((out.double() - ref).norm() / ref.norm()).item()
    eager = torch.nn.functional.layer_norm(x.float(), (cols,), weight.float(), bias.float(), eps=EPS).to(x.dtype)
    eager_error = ((eager.double() - ref).norm() / ref.norm()).item()
    print(precision, error, eager_error)
    assert error <= 1.5 * eager_error  # eager in float32, rounded once to the row's type
    # The CTA counted itself in once a group, and a repeat on the workspace it left gives the same bits.
    groups = 5
    assert int(exchange[:rows.GRID_EXCHANGE_BYTES].view(torch.int64).sum()) == arrivals + groups
    assert torch.equal(out, layernorm_native.layernorm_columns(host, x, weight, bias, precision))
    assert int(exchange[:rows.GRID_EXCHANGE_BYTES].view(torch.int64).sum()) == arrivals + 2 * groups


def test_emulated_rows_fewer_than_a_group_and_a_group_of_one():
    host = EmuHost()
    torch.manual_seed(2)
    for rows_, cols in ((1, 16384), (2, 20001)):
        x, weight, bias = torch.randn(rows_, cols) + 5, torch.randn(cols), torch.randn(cols)
        out = layernorm_native.layernorm_columns(host, x, weight, bias)
        ref = _reference(x, weight, bias)
        assert ((out.double() - ref).norm() / ref.norm()).item() < 1e-6


def test_the_columns_strategy_is_registered_as_a_study_for_both_hosts():
    impls = [i for i in registry.implementations("layernorm") if i.strategy == "columns"]
    assert {(i.family, i.precision) for i in impls} == {(f, p) for f in ("native", "native-py")
                                                         for p in ("ieee", "bf16", "fp16")}
