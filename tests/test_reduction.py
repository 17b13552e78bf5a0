"""The reduction study's strategies on the CPU (Triton under TRITON_INTERPRET=1, small widths): the
split's and the lagged kernel's tiles combined across rows, forced on small rows and bit-identical twice, the streaming kernels' chunk merges, the
large-mean contract that the naive one-pass variance fails while Welford and two-pass pass, the
widths each strategy declares it cannot take, and the study's cases."""

import pytest
import torch

from mage import registry
from mage.backends import rows
from mage.check import check
from mage.errors import InputError
from mage.plan import skip_reason
from mage.spec import Case, draw, generator
from sm90_compile import needs_ptxas, run_compiled

registry.load()
OPS = ("layernorm", "softmax")


def _impl(op, backend):
    return next(i for i in registry.implementations(op) if i.backend == backend)


def _check(impl, params, seed=11):
    spec = registry.get_op(impl.op)
    return check(impl, registry.baseline_of(impl), spec, Case(impl.op, "t", "seed", params, seed=seed), "cpu", seed)


# Widths whose rows start inside a tile (a tile holding the end of one row and the start of the next),
# one a power of two that does not, and rows touching up to five tiles, the last tile of each ragged.
SPLIT_SHAPES = [(3, 33, 16), (5, 100, 32), (2, 257, 64), (4, 64, 16)]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("strategy", ["triton.split", "triton.lagged"])
@pytest.mark.parametrize("rows_, cols, split_cols", SPLIT_SHAPES, ids=["33-in-16s", "100-in-32s", "257-in-64s", "64-in-16s"])
def test_the_split_tiles_combine_across_rows_on_small_rows(op, strategy, rows_, cols, split_cols, impl_like):
    chunk, tiles, whole = rows.tile_plan(rows_, cols, split_cols)
    assert rows.tiles_a_row(cols, chunk) > 2  # every row is combined from several tiles' partials
    assert cols % chunk or (rows_ * cols) % chunk == 0  # ragged widths: tiles cross rows
    split = _impl(op, strategy)
    with_small_tiles = impl_like(split, lambda *inputs: split.fn(*inputs, split_cols=split_cols))
    result = _check(with_small_tiles, {"rows": rows_, "cols": cols})
    assert result.passed, result.reason


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("strategy", ["triton.split", "triton.lagged"])
def test_the_split_gives_the_same_bits_twice(op, strategy):
    spec = registry.get_op(op)
    inputs = spec.make_inputs(Case(op, "t", "seed", {"rows": 7, "cols": 90}), 3, "cpu")
    fn = _impl(op, strategy).fn
    first, second = fn(*inputs, split_cols=16), fn(*inputs, split_cols=16)
    assert torch.equal(first.view(torch.int32), second.view(torch.int32))


def test_the_tile_plan_cuts_the_flat_input_into_aligned_tiles_of_at_most_a_row():
    assert rows.tile_plan(16373, 4099, 4096) == (4096, 16385, 16384)  # the study's 4099: one ragged last tile
    assert rows.tile_plan(256, 262144, 4096) == (4096, 16384, 16384)  # 64 tiles a row: 16,384 programs
    assert rows.tile_plan(3, 100, 4096) == (64, 5, 4)  # never wider than a row
    assert rows.tiles_a_row(4099, 4096) == 3 and rows.tiles_a_row(262144, 4096) == 65


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("strategy", ["triton.online", "triton.twopass"])
def test_streaming_strategies_merge_chunks_across_a_row(op, strategy):
    # 300 columns are three of the interpreter's 128-column chunks, the last one ragged.
    result = _check(_impl(op, strategy), {"rows": 19, "cols": 300})
    assert result.passed, result.reason


def test_the_naive_variance_fails_the_large_mean_contract_while_welford_and_two_pass_pass():
    params = {"rows": 6, "cols": 300}
    naive = _check(_impl("layernorm", "triton.naive"), params)
    assert not naive.passed and naive.reason.startswith("large-mean inputs: error")
    for stable in ("triton.online", "triton.twopass", "triton.split", "triton.lagged", "triton"):
        result = _check(_impl("layernorm", stable), params)
        assert result.passed, (stable, result.reason)


def test_the_naive_variance_passes_where_the_mean_is_small():
    """Its failure is the cancellation, not a bug: on zero-mean rows alone it is as good as eager."""
    spec = registry.get_op("layernorm")
    x, w, b = spec.make_inputs(Case("layernorm", "t", "seed", {"rows": 6, "cols": 300}), 5, "cpu")
    out = _impl("layernorm", "triton.naive").fn(x, w, b)
    torch.testing.assert_close(out, torch.nn.functional.layer_norm(x, (300,), w, b, eps=1e-5), rtol=0, atol=1e-4)


def test_softmax_without_the_max_overflows_on_large_mean_inputs(impl_like):
    eager = registry.baseline_for("softmax", "rows", "ieee")
    unshifted = impl_like(eager, lambda x: torch.exp(x) / torch.exp(x).sum(dim=-1, keepdim=True))
    result = _check(unshifted, {"rows": 4, "cols": 64})
    assert not result.passed and result.reason.startswith("large-mean inputs") and "NaN" in result.reason


def test_large_mean_inputs_are_ten_thousand_plus_a_standard_normal():
    x = draw((200, 500), generator(1), "large-mean")
    assert abs(x.mean().item() - 1e4) < 0.01 and abs(x.std().item() - 1.0) < 0.01


@pytest.mark.parametrize("op", OPS)
def test_the_study_widths_are_cases_of_256_mb_or_more(op):
    study = [c for c in registry.get_op(op).cases() if c.suite == "reduction"]
    assert [c.params["cols"] for c in study] == list(rows.REDUCTION_WIDTHS)
    assert all(4 * c.params["rows"] * c.params["cols"] >= 256 * 2**20 for c in study)


@pytest.mark.parametrize("op", OPS)
def test_each_strategy_skips_the_widths_it_cannot_take_and_says_why(op):
    spec = registry.get_op(op)
    study = {c.params["cols"]: c for c in spec.cases() if c.suite == "reduction"}
    warp, registers = _impl(op, "triton.warp"), _impl(op, "triton.registers")
    assert skip_reason(spec, study[1024], warp, "cpu") is None
    assert "a warp keeps at most 1024 floats" in skip_reason(spec, study[4096], warp, "cpu")
    assert skip_reason(spec, study[16384], registers, "cpu") is None
    assert "would spill" in skip_reason(spec, study[65536], registers, "cpu")
    for strategy in ("triton", "triton.split", "triton.lagged", "triton.online", "triton.twopass"):
        assert _impl(op, strategy).case_skip_reason(study[262144].params) is None
    inputs = spec.make_inputs(Case(op, "t", "seed", {"rows": 1, "cols": 1100}), 1, "cpu")
    with pytest.raises(InputError, match="a warp keeps at most 1024 floats"):
        warp.fn(*inputs)


def test_softmax_native_plans_a_warp_or_the_online_kernel_by_width():
    from mage.ops.softmax.native import plan

    assert plan(1024, 1024)[0].name == "softmax_f32_warp_v32"
    assert plan(1024, 1024)[1:] == ((256, 1, 1), (128, 1, 1))
    assert plan(4, 1025)[0].name == "softmax_f32_online"
    assert plan(4, 1025, "bf16")[0].name == "softmax_bf16_online"


def test_the_study_figure_plots_fractions_of_the_copy_rate_and_names_the_crossovers():
    from mage.report.html import reduction_figure

    def row(impl, cols, kernel_us, case=None):
        return {"op": "softmax", "impl": impl, "case": case or f"{2**26 // cols}x{cols}-study", "path": "single",
                "status": "pass", "cache": "warm", "kernel_us": kernel_us, "bytes": 4.0 * 2**27}

    # At 4000 GB/s the copy floor of 512 MiB is 134 µs.
    rows = [row("triton.warp/rows/ieee", 64, 150.0), row("triton.registers/rows/ieee", 64, 200.0),
            row("triton.warp/rows/ieee", 1024, 170.0), row("triton.registers/rows/ieee", 1024, 140.0),
            row("triton.registers/rows/ieee", 4096, 137.0), row("eager/rows/ieee", 1024, 50.0, case="1024x1024")]
    figure = reduction_figure(rows, {"copy_gbps": 4000.0})
    lines = {trace.name: (list(trace.x), [round(y, 3) for y in trace.y]) for trace in figure.data}
    assert lines == {"softmax · triton.warp/rows/ieee": ([64, 1024], [0.895, 0.79]),
                     "softmax · triton.registers/rows/ieee": ([64, 1024, 4096], [0.671, 0.959, 0.98])}
    assert "softmax: triton.warp/rows/ieee → triton.registers/rows/ieee between 64 and 1024 columns" in \
        figure.layout.title.text
    assert reduction_figure([rows[-1]], {"copy_gbps": 4000.0}) is None


def test_only_the_registered_failure_of_the_naive_variance_is_forgiven():
    naive = _impl("layernorm", "triton.naive")
    assert naive.fails and not _impl("layernorm", "triton.online").fails
    assert naive.failed_as_registered("large-mean inputs: error 246 > allowed 0.00527 (…)")
    assert not naive.failed_as_registered("normal inputs: error 0.1 > allowed 1e-05 (…)")
    assert not naive.failed_as_registered("large-mean inputs: 3 of 9 output elements are NaN or Inf (unwritten or overflowed)")
    assert registry.failed_as_registered("layernorm", naive.name, "large-mean inputs: error 1 > allowed 0.001")
    assert not registry.failed_as_registered("layernorm", "triton.online/affine/ieee", "large-mean inputs: error 1")


@pytest.mark.parametrize("op", OPS)
def test_the_lagged_strategy_is_a_gpu_strategy_whose_cpu_tests_run_it_small(op):
    lagged = _impl(op, "triton.lagged")
    assert "interpreter takes minutes" in lagged.unavailable_reason("cpu")
    assert _impl(op, "triton.split").unavailable_reason("cpu") is None


_SM90_LAYERNORM_DIVISIONS = r"""
import torch
from sm90_compile import compile_for_hopper
from mage import registry
from mage.spec import input_dtype

launched = compile_for_hopper()
for impl in registry.implementations("layernorm"):
    if impl.family == "triton" and impl.case_skip_reason({"rows": 8, "cols": 4099}) is None:
        launched.clear()
        dtype = input_dtype(impl.precision)
        impl.fn(*(torch.randn(*shape).to(dtype) for shape in ((8, 4099), (4099,), (4099,))))
        print(impl.name, sum("div.rn.f32" in kernel.asm["ptx"] for kernel in launched))
"""


@needs_ptxas
def test_every_triton_layernorm_divides_its_means_with_ieee_rounding_when_compiled():
    """Triton's float32 ``/`` compiles to the approximate div.full.f32; a mean 2 ulp off fails the large-mean
    contract at 16 bits (16373×4099 bf16 on the H200). The interpreter divides exactly, so this compiles each
    strategy for sm_90 (without a GPU, in a process of its own) and reads its PTX for the rounded division."""
    done = run_compiled("-c", _SM90_LAYERNORM_DIVISIONS)
    assert done.returncode == 0, done.stderr[-3000:]
    counts = dict(line.split() for line in done.stdout.splitlines())
    assert "triton/affine/bf16" in counts and "triton.split/affine/ieee" in counts, counts
    assert all(int(count) > 0 for count in counts.values()), counts
