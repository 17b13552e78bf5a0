"""Precisions whose inputs are not float32 (bf16, fp16): inputs rounded to the dtype before the reference,
outputs of that dtype, the precision's ceiling, the 10×-eager rule against eager at the same precision,
and the runner timing implementations of different dtypes together. On the CPU, with torch's own
formulations and deliberately imprecise fixtures."""

import math
import os
import subprocess
import sys

import pytest
import torch

from mage import check, registry
from mage.report import accuracy, figures
from mage.backends.precision import precision_mode
from mage.measure.method import Method
from mage.plan import Planned, Request
from mage.runner import Runner
from mage.spec import Case, input_dtype
from mage.store import Store

registry.load()
QUICK = Method(span_samples=6, min_samples=1, kernel_calls=2, host_calls=4, host_chunk=2, warmup_calls=2)
MATMUL = Case("matmul", "test", "seed", {"m": 33, "k": 65, "n": 17}, seed=5)
SOFTMAX_WIDE = Case("softmax", "test", "seed", {"rows": 3, "cols": 1000}, seed=5)


def _matmul_at(precision: str, fn, impl_like):
    return impl_like(registry.baseline_for("matmul", "default", precision), fn)


def test_each_precision_names_its_input_dtype():
    assert [input_dtype(p) for p in ("ieee", "tf32", "tf32x3", "bf16", "fp16")] == [
        torch.float32, torch.float32, torch.float32, torch.bfloat16, torch.float16]


def test_inputs_at_a_16_bit_precision_are_the_float32_draw_rounded_and_indices_are_kept():
    spec = registry.get_op("matmul")
    drawn = spec.make_inputs(MATMUL, 3, "cpu", "heavy")
    rounded = spec.make_inputs_at(MATMUL, 3, "cpu", "heavy", "bf16")
    assert all(r.dtype == torch.bfloat16 and torch.equal(r, d.to(torch.bfloat16)) for r, d in zip(rounded, drawn))
    assert all(torch.equal(a, b) for a, b in zip(spec.make_inputs_at(MATMUL, 3, "cpu", "heavy", "ieee"), drawn))
    agg = registry.get_op("neighbor_agg")
    case = agg.case("uniform-4096-d16-F64")
    dtypes = [t.dtype for t in agg.make_inputs_at(case, 1, "cpu", "normal", "fp16")]
    assert dtypes == [torch.int64, torch.int64, torch.float16]


def test_the_reference_is_computed_on_the_rounded_inputs(impl_like):
    """On large-mean rows bf16 holds 1e4 + N(0, 1) only to multiples of 64: a layernorm computed exactly on
    the bf16 values it is given is right only against a reference on those same values."""
    spec = registry.get_op("layernorm")
    eager = registry.baseline_for("layernorm", "affine", "bf16")
    exact = impl_like(eager, lambda *inputs: spec.reference(check.upcast(inputs), "affine").to(torch.bfloat16))
    case = Case("layernorm", "test", "seed", {"rows": 9, "cols": 257}, seed=3)
    result = check.check(exact, eager, spec, case, "cpu", seed=4)
    assert result.passed, result.reason
    assert result.rel_error < 2 ** -8  # the output's own rounding, nothing of the inputs'


def test_a_16_bit_implementation_must_return_its_dtype(impl_like):
    spec = registry.get_op("matmul")
    widened = _matmul_at("bf16", lambda a, b: a.float() @ b.float(), impl_like)
    result = check.check(widened, registry.baseline_of(widened), spec, MATMUL, "cpu", seed=1)
    assert not result.passed and "output dtype torch.float32 != torch.bfloat16" in result.reason


def test_a_16_bit_implementation_is_held_to_its_precision_s_ceiling(impl_like):
    spec = registry.get_op("matmul")
    # Rounded through float8 (3 mantissa bits, about 3 % relative) on its way out: above bf16's 2e-2.
    coarse = _matmul_at("bf16", lambda a, b: (a @ b).to(torch.float8_e4m3fn).to(torch.bfloat16), impl_like)
    result = check.check(coarse, registry.baseline_of(coarse), spec, MATMUL, "cpu", seed=1)
    assert not result.passed and "bf16 ceiling 0.02" in result.reason


def test_the_ten_times_eager_rule_compares_with_eager_at_the_same_precision(impl_like):
    spec = registry.get_op("matmul")
    eager = registry.baseline_for("matmul", "default", "fp16")
    assert eager.precision == "fp16"
    # fp16 eager's error here is about 2e-4: an error of 1e-2 is within the ceiling, not within 10× eager's.
    noisy = _matmul_at("fp16", lambda a, b: (a @ b) * (1 + 1e-2 * torch.randn(a.shape[0], b.shape[1])).half(),
                       impl_like)
    result = check.check(noisy, eager, spec, MATMUL, "cpu", seed=1)
    assert not result.passed and "fp16 ceiling 0.02" in result.reason and result.rel_error < 2e-2
    # eager bf16 itself is far from eager ieee's 1e-7 and passes: it is held to eager bf16.
    bf16 = registry.baseline_for("matmul", "default", "bf16")
    assert check.check(bf16, registry.baseline_of(bf16), spec, MATMUL, "cpu", seed=1).passed


def test_a_16_bit_draw_beyond_the_dtype_s_range_is_halved_until_its_reference_fits(monkeypatch):
    """fp16 holds at most 65,504: rows of 300s give dot products of 300 × 300 × 65 ≈ 5.9e6, which no fp16
    kernel can return. The contract halves the draw (exactly) until the float64 result fits in half the
    range, so eager fp16 passes instead of failing on an overflow that is no one's error."""
    spec = registry.get_op("matmul")
    eager = registry.baseline_for("matmul", "default", "fp16")
    drawn = spec.make_inputs_at

    def large(case, seed, device, distribution, precision):
        return tuple(t.abs() + 300 for t in drawn(case, seed, device, distribution, precision))

    monkeypatch.setattr(spec, "make_inputs_at", large)
    result = check.check(eager, eager, spec, MATMUL, "cpu", seed=1)
    assert result.passed, result.reason
    original = large(MATMUL, 1, "cpu", "normal", "fp16")
    inputs, ref = check._within_range(spec, original, "default")
    assert ref.abs().max() <= torch.finfo(torch.float16).max / 2 < 4 * ref.abs().max()  # halved, not more
    halvings = math.log2(float(original[0].max()) / float(inputs[0].max()))
    assert halvings == round(halvings) > 0  # each input scaled by the same power of two, exactly
    assert all(torch.equal(t * 2 ** round(halvings), o) for t, o in zip(inputs, original))
    # float32 draws are never scaled: their range is not what a contract at ieee checks.
    kept = spec.make_inputs_at(MATMUL, 1, "cpu", "normal", "ieee")
    assert all(torch.equal(a, b) for a, b in zip(check._within_range(spec, kept, "default")[0], kept))


def test_tf32_rounding_is_to_nearest_even_on_ten_mantissa_bits():
    x = torch.tensor([1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -11 + 2 ** -20, -(1 + 3 * 2 ** -11), 3.0])
    assert check.tf32_rounded(x).tolist() == [1.0, 1 + 4 * 2 ** -11, 1 + 2 * 2 ** -11, -(1 + 4 * 2 ** -11), 3.0]
    drawn = torch.randn(1000, dtype=torch.float64).float()
    rounded = check.tf32_rounded(drawn)
    assert torch.equal(check.tf32_rounded(rounded), rounded)  # representable: 13 low mantissa bits zero
    assert ((rounded - drawn).abs() <= drawn.abs() * 2 ** -11).all()


def test_at_tf32_a_kernel_is_held_to_ten_times_the_tf32_rounding_error_where_eager_ran_fp32(impl_like):
    """On the CPU (as cuBLAS does for some small products) eager's "tf32" matmul runs in FP32, error
    about 1e-7: a kernel that rounds its inputs to TF32 exactly, as the tensor cores do, must still pass."""
    spec = registry.get_op("matmul")
    eager = registry.baseline_for("matmul", "default", "tf32")
    assert eager.precision == "tf32"

    def tf32_product(a, b):
        return (check.tf32_rounded(a).double() @ check.tf32_rounded(b).double()).float()

    exact_tf32 = impl_like(eager, tf32_product)
    result = check.check(exact_tf32, eager, spec, MATMUL, "cpu", seed=1)
    assert result.passed, result.reason
    assert result.rel_error > 30 * result.eager_error  # beyond the old 10×-eager bound
    # The TF32 floor is tf32's alone: the same product claimed at ieee is held to 10× eager ieee and fails.
    ieee = registry.baseline_for("matmul", "default", "ieee")
    claimed = impl_like(ieee, tf32_product)
    result = check.check(claimed, ieee, spec, MATMUL, "cpu", seed=1)
    assert not result.passed and "allowed" in result.reason


def test_compulsory_bytes_narrow_with_the_input_dtype():
    spec = registry.get_op("matmul")
    case = spec.case("1024x1024x1024")
    assert spec.bytes_at(case, "default", "bf16") == spec.bytes_at(case, "default", "fp16") == 2 * 3 * 1024**2
    assert spec.bytes_at(case, "default", "tf32x3") == spec.bytes(case, "default")


def test_softmax_s_bytes_narrow_with_the_input_dtype_and_its_flops_do_not():
    spec = registry.get_op("softmax")
    case = spec.case("1024x1024")
    assert spec.bytes_at(case, "rows", "bf16") == spec.bytes_at(case, "rows", "fp16") == 2 * 2 * 1024**2
    assert spec.bytes_at(case, "rows", "ieee") == spec.bytes(case, "rows") == 4 * 2 * 1024**2
    assert spec.flops(case, "rows") == 5 * 1024**2  # the same operations on every element, whatever its width


def _softmax_summing_in(accumulator: torch.dtype, dtype: torch.dtype):
    """Softmax with exp(x − max) in float32, summed along the row in ``accumulator`` (rounded at each
    addition, as a kernel's running sum of that type is), the output in ``dtype``."""

    def softmax(x):
        wide = x.float()
        e = torch.exp(wide - wide.amax(dim=-1, keepdim=True))
        total = torch.zeros(x.shape[0], dtype=accumulator)
        for column in e.to(accumulator).unbind(dim=1):
            total = total + column
        return (e / total.float()[:, None]).to(dtype)

    return softmax


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_a_16_bit_softmax_summing_a_wide_row_in_16_bits_fails_and_in_float32_passes(precision, impl_like):
    """A thousand terms exp(x − max), mostly below 0.1, that sum to about 67: a bf16 running sum stops growing
    where half its spacing passes the terms (0.0625 from 16 on), an fp16 one rounds each term to its spacing
    (1/32 from 32, 1/16 from 64). The same sum in float32 passes."""
    eager = registry.baseline_for("softmax", "rows", precision)
    spec, dtype = registry.get_op("softmax"), input_dtype(precision)
    wide = impl_like(eager, _softmax_summing_in(torch.float32, dtype))
    assert check.check(wide, eager, spec, SOFTMAX_WIDE, "cpu", seed=1).passed
    result = check.check(impl_like(eager, _softmax_summing_in(dtype, dtype)), eager, spec, SOFTMAX_WIDE, "cpu", seed=1)
    assert not result.passed and result.reason.startswith("normal inputs: error")
    assert f"{precision} ceiling 0.02" in result.reason


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
@pytest.mark.parametrize("cols", [33, 1000])
def test_a_16_bit_softmax_four_ulps_off_fails(precision, cols, impl_like):
    """Eager's output with every finite element four units in its last place larger (its bits + 4): about 2 %
    at bf16 and 0.3 % at fp16, each above what is allowed (the ceiling, or 10× eager's error where lower)."""
    eager = registry.baseline_for("softmax", "rows", precision)

    def four_ulps_off(x):
        out = eager.fn(x)
        return torch.where(out.isfinite(), (out.view(torch.int16) + 4).view(out.dtype), out)

    case = Case("softmax", "test", "seed", {"rows": 3, "cols": cols}, seed=5)
    result = check.check(impl_like(eager, four_ulps_off), eager, registry.get_op("softmax"), case, "cpu", seed=1)
    assert not result.passed and f"{precision} ceiling 0.02" in result.reason


def test_16_bit_library_products_accumulate_in_float32_inside_the_mode_only():
    matmul = torch.backends.cuda.matmul
    before = (matmul.allow_bf16_reduced_precision_reduction, matmul.allow_fp16_reduced_precision_reduction)
    matmul.allow_bf16_reduced_precision_reduction = matmul.allow_fp16_reduced_precision_reduction = True
    try:
        with precision_mode("bf16"):
            assert not matmul.allow_bf16_reduced_precision_reduction
            assert not matmul.allow_fp16_reduced_precision_reduction
        assert matmul.allow_bf16_reduced_precision_reduction and matmul.allow_fp16_reduced_precision_reduction
    finally:
        matmul.allow_bf16_reduced_precision_reduction, matmul.allow_fp16_reduced_precision_reduction = before


def test_refreshed_16_bit_inputs_keep_their_dtype_and_change_everywhere():
    spec = registry.get_op("matmul")
    inputs = spec.make_inputs_at(MATMUL, 1, "cpu", "normal", "bf16")
    refresh = check.InputRefresh(spec, MATMUL, inputs, "cpu", seed=9, sets=2, variants=["default"])
    originals = tuple(t.clone() for t in inputs)
    refresh()
    assert all(t.dtype == torch.bfloat16 and not (t == o).any() for t, o in zip(inputs, originals))
    assert refresh.stale((inputs[0].double() @ inputs[1].double()).bfloat16(), "default", "bf16") == ""
    assert refresh.stale((originals[0] @ originals[1]), "default", "bf16").startswith("error")


@pytest.fixture(scope="module")
def three_precisions(tmp_path_factory):
    """A CPU run of bias_gelu's eager baseline at ieee, bf16 and fp16: (store path, run id, its rows)."""
    spec = registry.get_op("bias_gelu")
    case = Case("bias_gelu", "64x96", "seed", {"rows": 64, "cols": 96}, seed=2)
    impls = [registry.baseline_for("bias_gelu", "erf", p) for p in ("ieee", "bf16", "fp16")]
    request = Request(suites=["seed"], device="cpu", method=QUICK, paths=["single"])
    path = tmp_path_factory.mktemp("precisions") / "mage.db"
    store = Store(path)
    run_id = Runner(store, request, "pytest").run([Planned(spec, case, impls)])
    return path, run_id, store.rows(run_id)


def test_a_run_times_implementations_of_different_dtypes_together(three_precisions):
    rows = {row["impl"]: row for row in three_precisions[2]}
    assert {name: row["status"] for name, row in rows.items()} == {
        "eager/erf/ieee": "pass", "eager/erf/bf16": "pass", "eager/erf/fp16": "pass"}, [r["reason"] for r in rows.values()]
    assert rows["eager/erf/bf16"]["bytes"] == rows["eager/erf/fp16"]["bytes"] == rows["eager/erf/ieee"]["bytes"] / 2
    assert rows["eager/erf/ieee"]["rel_error"] < 1e-6 < 1e-4 < rows["eager/erf/fp16"]["rel_error"] < rows["eager/erf/bf16"]["rel_error"]


@pytest.mark.parametrize("op", ["matmul", "bias_gelu", "layernorm", "softmax"])
def test_the_ops_declare_bf16_and_fp16_with_eager_and_triton_at_each(op):
    spec = registry.get_op(op)
    assert {"bf16", "fp16"} <= set(spec.precisions)
    names = {impl.name for impl in registry.implementations(op)}
    for precision in ("bf16", "fp16"):
        assert {f"eager/{spec.variants[0]}/{precision}", f"triton/{spec.variants[0]}/{precision}"} <= names


def test_accuracy_points_are_one_per_implementation_of_a_case_measured_at_several_precisions(three_precisions):
    _, _, rows = three_precisions
    (key, pts), = accuracy.points(rows).items()
    assert key == ("bias_gelu", "64x96")
    assert sorted(p.precision for p in pts) == ["bf16", "fp16", "ieee"]
    assert [p.time_us for p in pts] == sorted(p.time_us for p in pts)
    assert accuracy.points([r for r in rows if r["precision"] == "ieee"]) == {}  # one precision: nothing to trade


def test_the_accuracy_figure_is_drawn_only_where_there_is_a_trade(three_precisions, tmp_path):
    path, run_id, rows = three_precisions
    run = Store(path).run(run_id)
    assert [p.name for p in figures.draw_accuracy(run, rows, tmp_path)] == ["accuracy.png", "accuracy.svg"]
    assert (tmp_path / "accuracy.png").stat().st_size > 1000
    assert figures.draw_accuracy(run, [r for r in rows if r["precision"] == "ieee"], tmp_path / "none") == []


def test_show_prints_the_accuracy_table(three_precisions):
    path, run_id, _ = three_precisions
    shown = subprocess.run([sys.executable, "-m", "mage", "show", str(run_id), "--db", str(path)], capture_output=True,
                           text=True, timeout=300, env=os.environ | {"COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    table = shown.stdout[shown.stdout.index("accuracy against speed"):]
    assert all(f"eager/erf/{p}" in table for p in ("ieee", "bf16", "fp16")) and "1.00×" in table


@pytest.mark.parametrize("columns", ["80", "100"])
def test_show_at_a_narrow_width_breaks_the_accuracy_table_s_names_at_their_separators(three_precisions, columns):
    """The accuracy table once folded names mid-word at 80 and 100 columns (eager/erf/ie|ee): now it is fitted as
    the results table is, every number and mark kept whole."""
    path, run_id, _ = three_precisions
    shown = subprocess.run([sys.executable, "-m", "mage", "show", str(run_id), "--db", str(path)], capture_output=True,
                           text=True, timeout=300, env=os.environ | {"COLUMNS": columns})
    assert shown.returncode == 0, shown.stderr
    table = shown.stdout[shown.stdout.index("accuracy against speed"):]
    table = table[:table.index("└") + 1 + table[table.index("└"):].index("\n")]
    assert max(len(line) for line in table.splitlines()) <= int(columns), table
    names = [line.split("│")[3].strip() for line in table.splitlines() if line.count("│") > 4]
    pieces = [piece for piece in names if piece]
    # Every piece of an implementation's name ends at a separator or is a whole last part of it.
    assert all(piece.endswith(("/", "."))
               or piece.split("/")[-1] in ("ieee", "bf16", "fp16", "erf", "tanh") for piece in pieces), pieces
    assert "1.00×" in table
