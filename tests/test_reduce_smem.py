"""The native smem strategy (layernorm, softmax: a cluster a row, each CTA's slice in shared memory filled by one
bulk copy) without a GPU: NVRTC compiles every smem kernel for sm_90 to a bulk copy (UBLKCP) completed on an
mbarrier (SYNCS) and 16-byte shared-memory reads, without a spill; the plan per width holds the row in at most
128 KB a CTA; the launcher's grid, block and shared memory follow the plan; the widths it refuses say why. Its
arithmetic runs on the GPU only (tests/test_reduce_wide_gpu.py): the CPU emulation cannot hold a cluster."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import triton

from mage.backends import native, rows
from mage.errors import InputError
from mage.ops.layernorm import native as layernorm_native
from mage.ops.softmax import native as softmax_native
from cubin_info import resources
from test_reduce_wide import HOPPER, OPS, RecordingHost, _inputs, ext  # noqa: F401 (ext: the NVRTC fixture)

MODULES = {"layernorm": layernorm_native, "softmax": softmax_native}
CUOBJDUMP = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
BLOCK_SHARED_MAX = 227 * 1024  # sm_90: dynamic shared memory one block may opt in to


def sass_of(cubin: bytes, kernels, tmp_path):
    """(kernel, its SASS) for each of ``kernels`` in ``cubin`` (Triton's cuobjdump; the test skips without it)."""
    if not CUOBJDUMP.exists():
        pytest.skip("needs Triton's cuobjdump for the SASS")
    path = tmp_path / "kernels.cubin"
    path.write_bytes(cubin)
    for kernel in kernels:
        yield kernel, subprocess.run([str(CUOBJDUMP), "-sass", "-fun", kernel.name, str(path)], capture_output=True,
                                     text=True, check=True).stdout


@pytest.mark.parametrize("op", OPS)
def test_every_smem_kernel_compiles_for_sm_90_to_one_bulk_copy_and_shared_reads_without_a_spill(ext, op, tmp_path):
    cubin = ext.compile_to_cubin(native.source(op), HOPPER, name=f"{op}-smem.cu")
    kernels = MODULES[op].SMEM["ieee"]
    assert set(kernels) == set(rows.SMEM_PLANS)
    used = resources(cubin)
    for (k, threads), kernel in kernels.items():
        assert kernel.name == f"{op}_f32_smem{k}_t{threads}"
        assert used[kernel.name]["frame"] == 0, (kernel.name, used[kernel.name])  # no spill
    for kernel, sass in sass_of(cubin, kernels.values(), tmp_path):
        assert sass.count("UBLKCP") == 1, kernel.name  # the slice's one bulk copy
        for instruction in ("SYNCS", "LDS.128", "STG.E.128"):
            assert instruction in sass, f"{kernel.name}: no {instruction}"


PLANS = [(1024, (2, 1024)), (4099, (2, 1024)), (65536, (2, 1024)), (65537, (2, 1024)), (131072, (4, 1024)),
         (262144, (8, 1024)), (rows.SMEM_MAX_COLS, (8, 1024))]


@pytest.mark.parametrize("cols, expected", PLANS, ids=[str(c) for c, _ in PLANS])
def test_the_launcher_picks_the_smallest_smem_plan_whose_ctas_hold_the_row(cols, expected):
    assert rows.smem_plan(cols) == expected
    k, _ = expected
    assert k * rows.SMEM_CHUNKS >= cols // 4  # the body, at most cols // 4 float4s whatever the alignment
    assert 16 * rows.SMEM_CHUNKS <= BLOCK_SHARED_MAX


def test_the_smem_strategy_takes_the_cluster_strategy_s_widths():
    assert rows.SMEM_MAX_COLS == rows.CLUSTER_MAX_COLS
    with pytest.raises(ValueError, match="no smem plan holds"):
        rows.smem_plan(rows.SMEM_MAX_COLS + 1)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("cols", [1024, 4099, 65537, 131072, 262144])
def test_a_cluster_a_row_with_the_shared_memory_of_its_slice(op, cols):
    host = RecordingHost()
    native.LAUNCHERS[(op, "smem")](host, *_inputs(op, 3, cols))
    (name, grid, block, shared, args), = host.launches
    k, threads = rows.smem_plan(cols)
    assert name == f"{op}_f32_smem{k}_t{threads}"
    assert grid == (3 * k, 1, 1) and block == (threads, 1, 1)
    per_cta = -(-(cols // 4) // k)  # row_slice deals a CTA at most ⌈chunks / K⌉ body chunks
    assert shared == 16 * per_cta <= 16 * rows.SMEM_CHUNKS
    rows_at = {"layernorm": 4, "softmax": 2}[op]
    assert args[rows_at: rows_at + 2] == (3, cols)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("cols, message", [(1000, "fit one warp's registers"), (rows.SMEM_MAX_COLS + 1, "would not fit")])
def test_widths_the_smem_strategy_cannot_take_are_refused_by_name_before_any_launch(op, cols, message):
    host = RecordingHost()
    with pytest.raises(InputError, match=message):
        native.LAUNCHERS[(op, "smem")](host, *_inputs(op, 1, cols))
    assert not host.launches
