"""The native deep strategy of LayerNorm and softmax (float32: a CTA's slice of a row in its registers and, past
them, in shared memory by one bulk copy) without a GPU: NVRTC compiles every kernel for sm_90 as one CTA of 1024
threads an SM without a spill, to one bulk copy beside 16-byte loads; the launcher picks the smallest cluster that
holds the row and asks for the shared memory of the chunks past the registers; the CPU emulation runs the plan of one
CTA (a CTA a row: the emulation's blocks run one after another) on rows whose slices end in the registers and run
past them, at every alignment, with LayerNorm's weight and bias off a 16-byte boundary and a large mean. Clusters of
several CTAs run on the GPU only (tests/test_reduce_deep_gpu.py)."""

from __future__ import annotations

import subprocess

import pytest
import torch

from mage import registry
from mage.backends import native, rows
from mage.check import check
from mage.errors import InputError
from mage.ops.layernorm import native as layernorm_native
from mage.ops.softmax import native as softmax_native
from mage.spec import Case
from cubin_info import resources
from test_reduce_resident import RecordingEmuHost, assert_near_eager_and_the_same_again
from test_reduce_smem import CUOBJDUMP
from test_reduce_wide import HOPPER, OPS, RecordingHost, _inputs, ext  # noqa: F401 (ext: the NVRTC fixture)

CHUNKS = 1024 * 8  # a 1024-thread CTA's chunks in registers, and the most it stages in shared memory
DEEP = {"layernorm": layernorm_native.DEEP["ieee"], "softmax": softmax_native.DEEP["ieee"]}
LAUNCH = {"layernorm": layernorm_native.layernorm_deep, "softmax": softmax_native.softmax_deep}


@pytest.mark.parametrize("op", OPS)
def test_every_deep_kernel_is_one_cta_an_sm_with_one_bulk_copy_beside_16_byte_loads(ext, op, tmp_path):
    cubin = ext.compile_to_cubin(native.source(op), HOPPER, name=f"{op}-deep.cu")
    compiled = resources(cubin)
    assert set(DEEP[op]) == set(rows.DEEP_PLANS)
    for (k, threads, chunks), kernel in DEEP[op].items():
        used = compiled[kernel.name]
        assert kernel.name == f"{op}_f32_deep{k}_t{threads}_v{chunks}"
        assert used["registers"] * threads <= 65536, f"{kernel.name}: not one CTA an SM"
        assert used["frame"] == 0, f"{kernel.name} spills {used['frame']} bytes a thread"
    if not CUOBJDUMP.exists():
        pytest.skip("needs Triton's cuobjdump for the SASS")
    path = tmp_path / f"{op}.cubin"
    path.write_bytes(cubin)
    for kernel in DEEP[op].values():
        sass = subprocess.run([str(CUOBJDUMP), "-sass", "-fun", kernel.name, str(path)], capture_output=True,
                              text=True, check=True).stdout
        assert sass.count("UBLKCP") == 1, kernel.name  # the shared part's one bulk copy
        for instruction in ("LDG.E.128", "LDS.128", "STG.E.128"):  # the registers' loads, the shared part, stores
            assert instruction in sass, f"{kernel.name}: no {instruction}"


# The plans no launcher picks, which scripts/cluster_plan_probe.py sets against the launcher's: (K, threads, CTAs an
# SM they were built to share).
PROBE_PLANS = [(2, 512, 2), (8, 512, 2)]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("k, threads, ctas", PROBE_PLANS, ids=[f"{k}x{t}" for k, t, _ in PROBE_PLANS])
def test_the_probe_s_deep_kernels_fit_the_ctas_an_sm_they_were_built_for(ext, op, k, threads, ctas):
    """Their threads' registers and the shared memory of as many chunks again as the registers hold (16 bytes each),
    CTAs an SM times over, within an sm_90 SM's 65536 registers and 228 KB, with no local memory."""
    compiled = resources(ext.compile_to_cubin(native.source(op), HOPPER, name=f"{op}-deep.cu"))
    used = compiled[f"{op}_f32_deep{k}_t{threads}_v8"]
    assert ctas * threads * used["registers"] <= 65536 and used["frame"] == 0, used
    assert ctas * 16 * threads * 8 <= 228 * 1024


def test_a_plan_s_shared_memory_fits_one_cta_an_sm_beside_its_registers():
    """A CTA stages as many chunks as its registers hold (16 bytes each), within what a CTA may ask of an sm_90 SM,
    227 KB; the widest plan holds a row of 262144 floats."""
    for k, threads, chunks in rows.DEEP_PLANS:
        assert 16 * threads * chunks <= 227 * 1024
    assert rows.DEEP_MAX_COLS == 262144 + 3


# (columns, the plan): the study's widths from 16384, the edges between plans and the widest.
WIDTHS = [(16384, (1, 1024, 8)), (65536, (1, 1024, 8)), (65537, (1, 1024, 8)), (65539, (1, 1024, 8)),
          (65540, (2, 1024, 8)), (131075, (2, 1024, 8)), (131076, (4, 1024, 8)), (262144, (4, 1024, 8)),
          (rows.DEEP_MAX_COLS, (4, 1024, 8))]


@pytest.mark.parametrize("cols, expected", WIDTHS, ids=[str(c) for c, _ in WIDTHS])
def test_the_launcher_picks_the_smallest_plan_that_holds_the_row(cols, expected):
    assert rows.deep_plan(cols) == expected


# (rows, columns, the shared memory a CTA asks for): none where the registers hold each CTA's slice.
LAUNCHES = [(3, 16384, 0), (3, 32768, 0), (2, 32772, 16), (5, 65537, 16 * CHUNKS), (2, 100000, 16 * (12500 - CHUNKS)),
            (256, 262144, 16 * CHUNKS)]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("rows_, cols, shared", LAUNCHES, ids=[f"{r}x{c}" for r, c, _ in LAUNCHES])
def test_a_cluster_a_row_with_the_shared_memory_past_its_registers(op, rows_, cols, shared):
    host = RecordingHost()
    LAUNCH[op](host, *_inputs(op, rows_, cols))
    (name, grid, block, asked, args), = host.launches
    k, threads, chunks = rows.deep_plan(cols)
    assert name == f"{op}_f32_deep{k}_t{threads}_v{chunks}"
    assert (grid, block, asked) == ((rows_ * k, 1, 1), (threads, 1, 1), shared)
    assert (rows_, cols) in (args[4:6], args[2:4])  # after LayerNorm's weight, bias and out; after softmax's out


@pytest.mark.parametrize("op", OPS)
def test_widths_it_cannot_take_are_refused_by_name_before_any_launch(op):
    host = RecordingHost()
    with pytest.raises(InputError, match="rows of 16384 to"):
        LAUNCH[op](host, *_inputs(op, 2, 16383))
    with pytest.raises(InputError, match="would not fit"):
        LAUNCH[op](host, *_inputs(op, 1, rows.DEEP_MAX_COLS + 1))
    assert not host.launches


def _layernorm(host, x, weight, bias, precision):
    return layernorm_native.layernorm_deep(host, x, weight, bias)  # float32 only


# (columns, rows): at 16387 the registers hold the slice; from 40001 its chunks past 32768 floats come from shared
# memory, up to the widest one CTA holds (65539, head and tail included). An odd width starts each row one element
# further on, so the head, the body's first chunk and the copy's source move row to row.
EMULATED = [(16387, 5), (40001, 4), (65537, 4), (65539, 2)]


@pytest.mark.parametrize("cols, rows_", EMULATED)
def test_emulated_layernorm_rows_in_registers_and_past_them_at_every_alignment(cols, rows_):
    """Weight and bias are views one element past a 16-byte boundary (their scalar reads); a large mean. Within 1.5×
    eager's error against float64, and the same bits on a second call."""
    host = RecordingEmuHost()
    torch.manual_seed(7)
    x = torch.randn(rows_, cols) * 3 + 1e3
    affine = torch.randn(2, cols + 1)
    weight, bias = affine[0, 1:], affine[1, 1:]
    assert weight.data_ptr() % 16 and bias.data_ptr() % 16
    out = layernorm_native.layernorm_deep(host, x, weight, bias)
    staged = max(0, rows.slice_chunks(cols, 4, 1) - 1024 * 8)
    assert host.recorded == (DEEP["layernorm"][rows.deep_plan(cols)].name, (rows_, 1, 1), 16 * staged)
    assert_near_eager_and_the_same_again(_layernorm, host, out, x, weight, bias, "ieee")


@pytest.mark.parametrize("cols, rows_", EMULATED)
def test_emulated_softmax_rows_in_registers_and_past_them_at_every_alignment(cols, rows_):
    """Softmax's contract (against float64 on normal, heavy-tailed and large-mean inputs); then each row's largest
    element in its shared part where it has one, so the slice's max must come from both parts: a max taken from the
    registers alone would overflow exp there. The same bits on a second call."""
    host = RecordingEmuHost()
    impl = registry.Implementation(op="softmax", family="native-emu", strategy="deep", variant="rows",
                                   precision="ieee", fn=lambda x: softmax_native.softmax_deep(host, x))
    result = check(impl, registry.baseline_for("softmax", "rows", "ieee"), registry.get_op("softmax"),
                   Case("softmax", "deep", "seed", {"rows": rows_, "cols": cols}, seed=cols), "cpu", seed=cols)
    assert result.passed, result.reason
    staged = max(0, rows.slice_chunks(cols, 4, 1) - 1024 * 8)
    assert host.recorded == (DEEP["softmax"][rows.deep_plan(cols)].name, (rows_, 1, 1), 16 * staged)
    torch.manual_seed(8)
    x = torch.randn(rows_, cols)
    x[:, -5] = 200.0  # exp(200) overflows float32: only the row's max keeps it finite
    out = softmax_native.softmax_deep(host, x)
    assert torch.allclose(out.double(), torch.softmax(x.double(), dim=1), rtol=1e-6, atol=1e-12)
    assert torch.equal(out, softmax_native.softmax_deep(host, x))


@pytest.mark.parametrize("op", OPS)
def test_the_deep_strategy_is_registered_as_a_float32_study_for_both_hosts(op):
    impls = [i for i in registry.implementations(op) if i.strategy == "deep"]
    assert {(i.family, i.precision) for i in impls} == {("native", "ieee"), ("native-py", "ieee")}
    study = {c.params["cols"]: c for c in registry.get_op(op).cases() if c.suite == "reduction"}
    taken = [cols for cols, case in study.items() if impls[0].case_skip_reason(case.params) is None]
    assert taken == [cols for cols in rows.REDUCTION_WIDTHS if cols >= 16384]
