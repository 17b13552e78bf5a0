"""The native pair strategy of LayerNorm (a cluster holding two rows, each CTA the same columns of both, weight and
bias read once for the two) without a GPU: NVRTC compiles every kernel for sm_90 as one CTA of 1024 threads an SM
without a spill; the launcher pairs rows that start at the same offset past a 16-byte boundary and launches a cluster
for each pair and each row left over; the CPU emulation runs the plan of one CTA (a cluster of one: the emulation's
blocks run one after another) on rows at every alignment, pairs one, four and eight rows apart, a row left without a
partner, weight and bias off a 16-byte boundary and a large mean. Clusters of several CTAs run on the GPU only
(tests/test_reduce_pair_gpu.py)."""

from __future__ import annotations

import pytest
import torch

from mage.backends import native, rows
from mage.errors import InputError
from mage.ops.layernorm import native as layernorm_native
from cubin_info import resources
from native_emu import EmuHost
from test_reduce_resident import (DTYPES, SOURCES, RecordingEmuHost, _error, assert_near_eager_and_the_same_again,
                                  assert_registered_for_both_hosts_from_16384_columns)
from test_reduce_wide import HOPPER, RecordingHost, _inputs, ext  # noqa: F401 (ext: the NVRTC fixture)

PLANS = {"ieee": rows.PAIR_PLANS, "bf16": rows.SIXTEEN_BIT_PAIR_PLANS, "fp16": rows.SIXTEEN_BIT_PAIR_PLANS}


@pytest.mark.parametrize("precision", ["ieee", "bf16"])
def test_every_pair_kernel_is_one_cta_of_1024_threads_an_sm_without_a_spill(ext, precision):
    compiled = resources(ext.compile_to_cubin(native.source("layernorm", SOURCES[precision]), HOPPER, name="pair.cu"))
    kernels = layernorm_native.PAIR[precision]
    assert set(kernels) == set(PLANS[precision])
    for (k, threads, chunks), kernel in kernels.items():
        used = compiled[kernel.name]
        print(kernel.name, used)
        assert kernel.name.endswith(f"_pair{k}_t{threads}_v{chunks}")
        assert used["registers"] * threads <= 65536, f"{kernel.name}: not one CTA an SM"
        assert used["frame"] == 0, f"{kernel.name} spills {used['frame']} bytes a thread"


@pytest.mark.parametrize("cols, element_bytes, period", [(262144, 4, 1), (65537, 4, 4), (65538, 4, 2),
                                                         (65537, 2, 8), (65540, 2, 2), (32768, 2, 1)])
def test_a_pair_s_rows_are_the_fewest_apart_that_start_at_the_same_offset(cols, element_bytes, period):
    assert rows.pair_period(cols, element_bytes) == period
    assert (period * cols * element_bytes) % 16 == 0


@pytest.mark.parametrize("rows_, period", [(1, 1), (2, 1), (7, 1), (8, 4), (9, 4), (13, 4), (3, 8), (21, 8)])
def test_the_clusters_take_every_row_once(rows_, period):
    """Cluster c's rows, as native.cu's layernorm_pair works them out: every row written by exactly one cluster, a
    pair's rows period apart, a row alone only where no row follows it at that distance."""
    written = []
    for cluster in range(rows.pair_clusters(rows_, period)):
        first = cluster // period * 2 * period + cluster % period
        second = first + period
        assert first < rows_
        written += [first, second] if second < rows_ else [first]
    assert sorted(written) == list(range(rows_))


# (columns, elements a chunk, the plan): the study's widths past a block and the limits.
WIDTHS = [(16384, 4, (1, 1024, 4)), (16387, 4, (1, 1024, 4)), (16388, 4, (2, 1024, 4)), (65536, 4, (4, 1024, 4)),
          (65537, 4, (4, 1024, 4)), (262144, 4, (16, 1024, 4)), (rows.PAIR_MAX_COLS, 4, (16, 1024, 4)),
          (16384, 8, (1, 1024, 2)), (16392, 8, (2, 1024, 2)), (65537, 8, (4, 1024, 2)), (262144, 8, (16, 1024, 2))]


@pytest.mark.parametrize("cols, elements, expected", WIDTHS, ids=[f"{c}x{e}" for c, e, _ in WIDTHS])
def test_the_launcher_picks_the_smallest_plan_that_holds_the_row(cols, elements, expected):
    plans = rows.PAIR_PLANS if elements == 4 else rows.SIXTEEN_BIT_PAIR_PLANS
    assert rows.pair_plan(cols, elements, plans) == expected


@pytest.mark.parametrize("rows_, cols", [(3, 65537), (100, 262144), (5, 16384)])
def test_a_cluster_for_each_pair_of_rows_and_each_row_left_over(rows_, cols):
    host = RecordingHost()
    layernorm_native.layernorm_pair(host, *_inputs("layernorm", rows_, cols))
    (name, grid, block, shared, args), = host.launches
    k, threads, chunks = rows.pair_plan(cols)
    assert name == f"layernorm_f32_pair{k}_t{threads}_v{chunks}"
    assert grid == (rows.pair_clusters(rows_, rows.pair_period(cols, 4)) * k, 1, 1) and block == (threads, 1, 1)
    assert args[4:6] == (rows_, cols)


def test_widths_it_cannot_take_are_refused_by_name_before_any_launch():
    host = RecordingHost()
    with pytest.raises(InputError, match="rows of 16384 to"):
        layernorm_native.layernorm_pair(host, *_inputs("layernorm", 2, 16383))
    with pytest.raises(InputError, match="would spill"):
        layernorm_native.layernorm_pair(host, *_inputs("layernorm", 1, rows.PAIR_MAX_COLS + 1))
    assert not host.launches


@pytest.mark.parametrize("precision, cols, rows_", [("ieee", 16384, 5), ("ieee", 16387, 9), ("ieee", 16386, 7),
                                                    ("bf16", 16387, 19), ("fp16", 16387, 17)])
def test_emulated_pairs_at_every_alignment_with_weight_and_bias_off_a_boundary(precision, cols, rows_):
    """Widths whose pairs are 1, 4, 2 and 8 rows apart, so that the rows start at every offset past a boundary and
    some are left without a partner; weight and bias are views one element past a 16-byte boundary (their scalar
    reads); a large mean. Within 1.5× eager's error against float64, and the same bits on a second call."""
    host = RecordingEmuHost()
    torch.manual_seed(5)
    dtype = DTYPES[precision]
    x = (torch.randn(rows_, cols) * 3 + 1e3).to(dtype)
    weight, bias = torch.randn(cols + 1).to(dtype)[1:], torch.randn(cols + 1).to(dtype)[1:]
    assert weight.data_ptr() % 16 and bias.data_ptr() % 16
    out = layernorm_native.layernorm_pair(host, x, weight, bias, precision)
    plan = rows.pair_plan(cols, 16 // x.element_size(), PLANS[precision])
    clusters = rows.pair_clusters(rows_, rows.pair_period(cols, x.element_size()))
    assert host.recorded == (layernorm_native.PAIR[precision][plan].name, (clusters, 1, 1), 0)
    assert_near_eager_and_the_same_again(layernorm_native.layernorm_pair, host, out, x, weight, bias, precision)


def test_emulated_aligned_pairs_one_row_and_an_empty_input():
    host = EmuHost()
    torch.manual_seed(6)
    for rows_ in (1, 2, 5):
        x, weight, bias = torch.randn(rows_, 16384) + 5, torch.randn(16384), torch.randn(16384)
        assert _error(layernorm_native.layernorm_pair(host, x, weight, bias), x, weight, bias) < 1e-6
    empty = layernorm_native.layernorm_pair(host, torch.randn(0, 16384), torch.randn(16384), torch.randn(16384))
    assert empty.shape == (0, 16384)


def test_the_pair_strategy_is_registered_as_a_study_for_both_hosts():
    assert_registered_for_both_hosts_from_16384_columns("pair")
