"""The native deep strategy of LayerNorm and softmax (a CTA's slice of a row in its registers and, past them, in shared
memory by one bulk copy; float32, bf16 and fp16) without a GPU: NVRTC compiles every kernel for sm_90 within 64
registers a thread (one CTA of 1024 threads an SM, or two of 512) without a spill, to one bulk copy beside 16-byte
loads; the launcher picks the smallest cluster that holds the row and asks for the shared memory of the chunks past
the registers; the CPU emulation runs the plan of one CTA (a CTA a row: the emulation's blocks run one after another)
on rows whose slices end in the registers and run past them, at every alignment, with LayerNorm's weight and bias off
a 16-byte boundary and a large mean. Clusters of several CTAs run on the GPU only (tests/test_reduce_deep_gpu.py)."""

from __future__ import annotations

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
from test_reduce_resident import DTYPES, SOURCES, RecordingEmuHost, assert_near_eager_and_the_same_again
from test_reduce_smem import sass_of
from test_reduce_wide import HOPPER, OPS, RecordingHost, _inputs, ext  # noqa: F401 (ext: the NVRTC fixture)

DEEP = {"layernorm": layernorm_native.DEEP, "softmax": softmax_native.DEEP}
PLANS = {"ieee": rows.DEEP_PLANS, "bf16": rows.SIXTEEN_BIT_DEEP_PLANS, "fp16": rows.SIXTEEN_BIT_DEEP_PLANS}
LAUNCH = {"layernorm": layernorm_native.layernorm_deep, "softmax": softmax_native.softmax_deep}


@pytest.mark.parametrize("precision, tag", [("ieee", "f32"), ("bf16", "bf16")])
@pytest.mark.parametrize("op", OPS)
def test_every_deep_kernel_fits_its_ctas_an_sm_with_one_bulk_copy_beside_16_byte_loads(ext, op, precision, tag,
                                                                                       tmp_path):
    cubin = ext.compile_to_cubin(native.source(op, SOURCES[precision]), HOPPER, name=f"{op}-{tag}-deep.cu")
    compiled = resources(cubin)
    kernels = DEEP[op][precision]
    assert set(kernels) == set(PLANS[precision])
    for (k, threads, chunks), kernel in kernels.items():
        used = compiled[kernel.name]
        assert kernel.name == f"{op}_{tag}_deep{k}_t{threads}_v{chunks}"
        assert used["registers"] * threads * (1024 // threads) <= 65536, f"{kernel.name}: not {1024 // threads} an SM"
        assert used["frame"] == 0, f"{kernel.name} spills {used['frame']} bytes a thread"
    for kernel, sass in sass_of(cubin, kernels.values(), tmp_path):
        assert sass.count("UBLKCP") == 1, kernel.name  # the shared part's one bulk copy
        for instruction in ("LDG.E.128", "LDS.128", "STG.E.128"):  # the registers' loads, the shared part, stores
            assert instruction in sass, f"{kernel.name}: no {instruction}"


# The plans no launcher picks, which scripts/cluster_plan_probe.py sets against the launcher's: (K, threads, CTAs an
# SM they were built to share).
PROBE_PLANS = [(1, 1024, 1), (4, 1024, 1)]


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
    227 KB; the widest plans hold a row of 262144 floats or 16-bit elements."""
    for k, threads, chunks in rows.DEEP_PLANS + rows.SIXTEEN_BIT_DEEP_PLANS:
        assert 16 * threads * chunks <= 227 * 1024
    assert rows.DEEP_MAX_COLS == 262144 + 3
    assert 2 * 8 * max(k * t * v for k, t, v in rows.SIXTEEN_BIT_DEEP_PLANS) >= 262144


# (columns, elements a chunk, the plan): the study's widths from 16384, the edges between plans and the widest.
WIDTHS = [(16384, 4, (1, 512, 8)), (32768, 4, (1, 512, 8)), (32771, 4, (1, 512, 8)), (32772, 4, (2, 512, 8)),
          (65536, 4, (2, 512, 8)), (65539, 4, (2, 512, 8)), (65540, 4, (4, 512, 8)), (131075, 4, (4, 512, 8)),
          (131076, 4, (8, 512, 8)), (262144, 4, (8, 512, 8)), (rows.DEEP_MAX_COLS, 4, (8, 512, 8)),
          (65536, 8, (1, 1024, 8)), (131079, 8, (1, 1024, 8)), (131080, 8, (2, 1024, 8)),
          (rows.DEEP_MAX_COLS, 8, (2, 1024, 8))]


@pytest.mark.parametrize("cols, elements, expected", WIDTHS, ids=[f"{c}x{e}" for c, e, _ in WIDTHS])
def test_the_launcher_picks_the_smallest_plan_that_holds_the_row(cols, elements, expected):
    assert rows.deep_plan(cols, elements, PLANS["ieee" if elements == 4 else "bf16"]) == expected


# (rows, columns, precision, the shared memory a CTA asks for): none where the registers hold each CTA's slice (4096
# chunks of a 512-thread float32 CTA, 8192 of a 1024-thread 16-bit one), then the chunks past them, up to as many again.
LAUNCHES = [(3, 16384, "ieee", 0), (2, 16388, "ieee", 16), (5, 32771, "ieee", 16 * 4096), (3, 32772, "ieee", 16),
            (2, 50000, "ieee", 16 * (6250 - 4096)), (5, 65537, "ieee", 16 * 4096),
            (2, 100000, "ieee", 16 * (6250 - 4096)), (256, 262144, "ieee", 16 * 4096), (3, 65537, "bf16", 0),
            (2, 131072, "bf16", 16 * 8192), (256, 262144, "bf16", 16 * 8192)]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("rows_, cols, precision, shared", LAUNCHES, ids=[f"{r}x{c}-{p}" for r, c, p, _ in LAUNCHES])
def test_a_cluster_a_row_with_the_shared_memory_past_its_registers(op, rows_, cols, precision, shared):
    host = RecordingHost()
    inputs = [t.to(DTYPES[precision]) for t in _inputs(op, rows_, cols)]
    LAUNCH[op](host, *inputs, precision=precision)
    (name, grid, block, asked, args), = host.launches
    k, threads, chunks = rows.deep_plan(cols, 16 // inputs[0].element_size(), PLANS[precision])
    assert name == DEEP[op][precision][(k, threads, chunks)].name
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


# (precision, columns, rows): at 16387 floats the registers hold the slice; from 20001 its chunks past 16384 floats
# come from shared memory, up to the widest one CTA holds (32771, head and tail included); 16-bit rows past 65536. An
# odd width starts each row one element further on, so the head, the body's first chunk and the copy's source move
# row to row.
EMULATED = [("ieee", 16387, 5), ("ieee", 20001, 4), ("ieee", 32769, 4), ("ieee", 32771, 2), ("bf16", 80001, 3),
            ("fp16", 131079, 2)]


def _staged_bytes(cols: int, element_bytes: int) -> int:
    """The shared memory one CTA a row asks for: its slice's chunks past the 512 × 8 (float32) or 1024 × 8 (16-bit)
    its registers hold."""
    in_registers = 512 * 8 if element_bytes == 4 else 1024 * 8
    return 16 * max(0, rows.slice_chunks(cols, 16 // element_bytes, 1) - in_registers)


@pytest.mark.parametrize("precision, cols, rows_", EMULATED)
def test_emulated_layernorm_rows_in_registers_and_past_them_at_every_alignment(precision, cols, rows_):
    """Weight and bias are views one element past a 16-byte boundary (their scalar reads); a large mean. Within 1.5×
    eager's error against float64, and the same bits on a second call."""
    host = RecordingEmuHost()
    torch.manual_seed(7)
    dtype = DTYPES[precision]
    x = (torch.randn(rows_, cols) * 3 + 1e3).to(dtype)
    affine = torch.randn(2, cols + 1).to(dtype)
    weight, bias = affine[0, 1:], affine[1, 1:]
    assert weight.data_ptr() % 16 and bias.data_ptr() % 16
    out = layernorm_native.layernorm_deep(host, x, weight, bias, precision)
    plan = rows.deep_plan(cols, 16 // x.element_size(), PLANS[precision])
    assert host.recorded == (DEEP["layernorm"][precision][plan].name, (rows_, 1, 1),
                             _staged_bytes(cols, x.element_size()))
    assert_near_eager_and_the_same_again(layernorm_native.layernorm_deep, host, out, x, weight, bias, precision)


@pytest.mark.parametrize("precision, cols, rows_", EMULATED)
def test_emulated_softmax_rows_in_registers_and_past_them_at_every_alignment(precision, cols, rows_):
    """Softmax's contract (against float64 on normal, heavy-tailed and large-mean inputs); then each row's largest
    element in its shared part where it has one, so the slice's max must come from both parts: a max taken from the
    registers alone would overflow exp there. The same bits on a second call."""
    host = RecordingEmuHost()
    impl = registry.Implementation(op="softmax", family="native-emu", strategy="deep", variant="rows",
                                   precision=precision, fn=lambda x: softmax_native.softmax_deep(host, x, precision))
    result = check(impl, registry.baseline_for("softmax", "rows", precision), registry.get_op("softmax"),
                   Case("softmax", "deep", "seed", {"rows": rows_, "cols": cols}, seed=cols), "cpu", seed=cols)
    assert result.passed, result.reason
    dtype = DTYPES[precision]
    plan = rows.deep_plan(cols, 16 // dtype.itemsize, PLANS[precision])
    assert host.recorded == (DEEP["softmax"][precision][plan].name, (rows_, 1, 1), _staged_bytes(cols, dtype.itemsize))
    torch.manual_seed(8)
    x = torch.randn(rows_, cols)
    x[:, -5] = 200.0  # exp(200) overflows float32: only the row's max keeps it finite
    out = softmax_native.softmax_deep(host, x.to(dtype), precision)
    tolerance = 1e-6 if precision == "ieee" else 1e-2
    assert torch.allclose(out.double(), torch.softmax(x.to(dtype).double(), dim=1), rtol=tolerance, atol=1e-12)
    assert torch.equal(out, softmax_native.softmax_deep(host, x.to(dtype), precision))


@pytest.mark.parametrize("op", OPS)
def test_the_deep_strategy_is_registered_as_a_study_for_both_hosts_at_every_precision(op):
    impls = [i for i in registry.implementations(op) if i.strategy == "deep"]
    assert {(i.family, i.precision) for i in impls} == {(f, p) for f in ("native", "native-py")
                                                         for p in ("ieee", "bf16", "fp16")}
    study = {c.params["cols"]: c for c in registry.get_op(op).cases() if c.suite == "reduction"}
    taken = [cols for cols, case in study.items() if impls[0].case_skip_reason(case.params) is None]
    assert taken == [cols for cols in rows.REDUCTION_WIDTHS if cols >= 16384]
