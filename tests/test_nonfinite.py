"""The non-finite contract: NaN, +inf and −inf in every input, compared position by position with float64.

Every op's spec draws it as one more distribution (spec.NONFINITE), so the generated contract tests of every
implementation (tests/test_implementations.py, the emulated native and CubeCL kernels) run it too; here are
its verdict, its inputs, what it catches, and the rule that times a library that fails it anyway.

The limit of the tools: Triton 3.6's interpreter keeps a NaN through ``tl.maximum`` where compiled kernels
drop it, so a guard such as ``tl.maximum(total, 1e-38)`` would swallow a NaN on the GPU and pass every CPU
test. The conftest makes the interpreter drop it as compiled kernels do (tests/interpreted_nan.py); the first
test below proves it does, and the GPU tier (tests/test_nonfinite_gpu.py) runs the contract compiled.
"""

import copy

import pytest
import torch
import triton
import triton.language as tl

from cheats import nan_to_number
from mage import check, identity, registry
from mage.check import NAMED_POSITIONS, TIMED_DESPITE
from mage.measure.method import Method
from mage.plan import Planned, Request
from mage.registry import Implementation
from mage.report.tables import failures_table
from mage.runner import Runner
from mage.spec import NONFINITE, Case
from mage.store import Store
from native_emu import EmuHost
from test_cubecl_emu import CubeclEmuHost
from test_cubecl_emu import _emulated as cubecl_emulated
from test_implementations import _runnable, _small_case
from test_native import _emulated as native_emulated
from test_native import needs_compiler
from sm90_compile import needs_ptxas, run_compiled

registry.load()
QUICK = Method(span_samples=6, min_samples=1, kernel_calls=2, host_calls=4, host_chunk=2, warmup_calls=2)


def _nonfinite_only(spec):
    """``spec`` with the non-finite distribution alone: one checked call instead of one a distribution."""
    only = copy.copy(spec)
    only.distributions = (NONFINITE,)
    return only


@triton.jit
def _maximum_kernel(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.maximum(tl.load(a_ptr + i), tl.load(b_ptr + i)))


def test_the_interpreter_drops_nan_in_maximum_as_compiled_kernels_do():
    a = torch.tensor([float("nan"), 1.0, float("nan"), -2.0])
    b = torch.tensor([1.0, float("nan"), float("nan"), -3.0])
    out = torch.empty(4)
    _maximum_kernel[(1,)](a, b, out, N=4)
    assert out[:2].tolist() == [1.0, 1.0] and out[2].isnan() and out[3] == -2.0


def test_every_op_draws_nan_and_both_infinities_into_every_floating_input():
    for op, spec in sorted(registry.ops().items()):
        assert NONFINITE in spec.distributions, op
        inputs = spec.make_inputs(Case(op, "t", "seed", spec.test_params[0], seed=3), 3, "cpu", NONFINITE)
        for index, t in enumerate(t for t in inputs if t.is_floating_point()):
            assert t.isnan().any() and t.isposinf().any() and t.isneginf().any(), f"{op} input #{index}"


def test_softmax_draws_a_masked_row_and_a_row_masked_but_for_one_element():
    spec = registry.get_op("softmax")
    (x,) = spec.make_inputs(Case("softmax", "t", "seed", {"rows": 7, "cols": 33}, seed=3), 3, "cpu", NONFINITE)
    ref = spec.reference((x.double(),), "rows")
    masked = x.isneginf().all(dim=1)
    one_left = x.isneginf().sum(dim=1) == x.shape[1] - 1
    assert masked.sum() == 1 and ref[masked].isnan().all()  # float64's 0 / 0
    assert one_left.sum() == 1 and (ref[one_left].sum() == 1) and (ref[one_left] == 1).sum() == 1


def test_neighbor_agg_draws_a_neighbor_whose_features_are_all_infinite():
    spec = registry.get_op("neighbor_agg")
    _, _, x = spec.make_inputs(Case("neighbor_agg", "t", "seed", spec.test_params[0], seed=3), 3, "cpu", NONFINITE)
    assert x.isposinf().all(dim=1).any()


def test_turning_nan_into_numbers_passes_every_finite_distribution_and_fails_the_nonfinite_one(layernorm, impl_like):
    spec, eager, case = layernorm
    numbers_only = impl_like(eager, nan_to_number.cheat(eager.fn))
    finite_only = copy.copy(spec)
    finite_only.distributions = tuple(d for d in spec.distributions if d != NONFINITE)
    assert check.check(numbers_only, eager, finite_only, case, "cpu", seed=5).passed
    result = check.check(numbers_only, eager, spec, case, "cpu", seed=5)
    assert not result.passed and result.failed_on == NONFINITE
    assert result.reason.startswith("nonfinite inputs: ") and "NaN or infinite elements are not the same" in result.reason
    assert result.rel_error is not None  # the finite distributions' error is still reported


def test_the_verdict_names_a_few_of_the_positions_it_got_wrong(layernorm, impl_like):
    spec, eager, case = layernorm
    result = check.check(impl_like(eager, nan_to_number.cheat(eager.fn)), eager, _nonfinite_only(spec), case, "cpu", 5)
    named = result.reason.split(": ", 2)[2]
    assert named.count("(reference nan)") + named.count("(reference inf)") + named.count("(reference -inf)") \
        == NAMED_POSITIONS
    assert named.endswith(" …")


def test_an_infinity_of_the_other_sign_fails_and_the_same_one_passes(layernorm, impl_like):
    spec, eager, case = layernorm

    def flips_infinities(*inputs):
        out = eager.fn(*inputs)
        return torch.where(out.isinf(), -out, out)

    only = _nonfinite_only(spec)
    assert check.check(eager, eager, only, case, "cpu", seed=5).passed
    result = check.check(impl_like(eager, flips_infinities), eager, only, case, "cpu", seed=5)
    assert not result.passed and "(reference inf)" in result.reason or "(reference -inf)" in result.reason


def test_a_nan_where_the_reference_is_finite_still_fails_as_unwritten(layernorm, impl_like):
    spec, eager, case = layernorm

    def poisons_one(*inputs):
        out = eager.fn(*inputs)
        finite = torch.isfinite(out).nonzero()[0]
        out[tuple(finite)] = float("nan")
        return out

    result = check.check(impl_like(eager, poisons_one), eager, _nonfinite_only(spec), case, "cpu", seed=5)
    assert not result.passed and "1 of" in result.reason and "NaN or Inf (unwritten or overflowed)" in result.reason


# One implementation of each op and family that runs here (the champion at ieee, else its first precision):
# each, made to turn NaN into numbers, fails. Libraries are left to the runner's test below.
PLANTED = {}
for _impl in (i for op in sorted(registry.ops()) for i in registry.implementations(op)):
    if not _impl.baseline and _impl.family not in identity.LIBRARY_FAMILIES and _impl.champion:
        PLANTED.setdefault((_impl.op, _impl.family), _impl)


@pytest.mark.parametrize("impl", list(PLANTED.values()), ids=lambda impl: f"{impl.op}:{impl.name}")
def test_each_family_made_to_turn_nan_into_numbers_fails_the_contract(impl, impl_like):
    spec = _runnable(impl)
    planted = impl_like(impl, nan_to_number.cheat(impl.fn), family=impl.family)
    result = check.check(planted, registry.baseline_of(impl), _nonfinite_only(spec), _small_case(spec, impl), "cpu", 5)
    assert not result.passed and result.failed_on == NONFINITE, result.reason


EMULATED = {"native": lambda: native_emulated("softmax", "rows", EmuHost()),
            "cubecl": lambda: cubecl_emulated("softmax", "default", "rows", CubeclEmuHost())}


@needs_compiler
@pytest.mark.parametrize("family", EMULATED)
def test_the_emulated_kernels_pass_and_made_to_turn_nan_into_numbers_fail(family):
    """The native and CubeCL families run on the CPU only under the emulation (their registered hosts need CUDA)."""
    spec, eager = _nonfinite_only(registry.get_op("softmax")), registry.baseline_for("softmax", "rows", "ieee")
    kernel = EMULATED[family]()
    planted = Implementation(op="softmax", family=family, variant="rows", precision="ieee",
                             fn=nan_to_number.cheat(kernel.fn))
    case = Case("softmax", "emulated", "seed", {"rows": 5, "cols": 37}, seed=100)
    assert check.check(kernel, eager, spec, case, "cpu", seed=5).passed
    result = check.check(planted, eager, spec, case, "cpu", seed=5)
    assert not result.passed and result.failed_on == NONFINITE, result.reason


@triton.jit
def _guarded_softmax_kernel(x_ptr, out_ptr, cols, BLOCK_C: tl.constexpr):
    # The guards softmax's Triton kernels had: they keep rows past the end finite, and swallow a NaN.
    c = tl.arange(0, BLOCK_C)
    x = tl.load(x_ptr + tl.program_id(0) * cols + c, mask=c < cols, other=-float("inf"))
    e = tl.exp(x - tl.maximum(tl.max(x, axis=0), -3.0e38))
    tl.store(out_ptr + tl.program_id(0) * cols + c, e / tl.maximum(tl.sum(e, axis=0), 1e-38), mask=c < cols)


def _guarded_softmax(x):
    out = torch.empty_like(x)
    _guarded_softmax_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK_C=triton.next_power_of_2(x.shape[1]))
    return out


def test_a_triton_softmax_whose_guards_swallow_nan_fails_the_contract_and_the_fixed_kernels_pass():
    spec = registry.get_op("softmax")
    eager = registry.baseline_for("softmax", "rows", "ieee")
    case = Case("softmax", "t", "seed", {"rows": 7, "cols": 33}, seed=3)
    guarded = Implementation(op="softmax", family="triton", strategy="guarded", variant="rows", precision="ieee",
                             fn=_guarded_softmax)
    result = check.check(guarded, eager, _nonfinite_only(spec), case, "cpu", seed=5)
    assert not result.passed and "(reference nan)" in result.reason
    for impl in (i for i in registry.implementations("softmax") if i.family == "triton"):
        result = check.check(impl, registry.baseline_of(impl), _nonfinite_only(spec), case, "cpu", seed=5)
        assert result.passed, f"{impl.name}: {result.reason}"


def _run(tmp_path, layernorm, impls):
    spec, _, case = layernorm
    store = Store(tmp_path / "mage.db")
    run_id = Runner(store, Request(suites=["seed"], device="cpu", method=QUICK, paths=["single"]), "pytest").run(
        [Planned(spec, case, impls)])
    return {row["backend"]: row for row in store.rows(run_id)}, store.rows(run_id)


def test_a_library_failing_only_the_nonfinite_contract_is_timed_with_its_failure_and_mage_s_own_is_not(
        tmp_path, layernorm, impl_like):
    eager = layernorm[1]
    library = impl_like(eager, nan_to_number.cheat(eager.fn), family=identity.LIBRARY_FAMILIES[0])
    own = impl_like(eager, nan_to_number.cheat(eager.fn), family="fixture")
    rows, stored = _run(tmp_path, layernorm, [library, own, eager])
    timed = rows[identity.LIBRARY_FAMILIES[0]]
    assert timed["status"] == "pass" and timed["contract"] == "fail" and timed["span_mean_us"] is not None
    assert timed["reason"].startswith(f"{TIMED_DESPITE}: nonfinite inputs: ")
    assert rows["fixture"]["status"] == "fail" and rows["fixture"]["span_mean_us"] is None
    assert rows["fixture"]["reason"].startswith("nonfinite inputs: ")
    assert rows["eager"]["status"] == "pass" and rows["eager"]["contract"] == "pass" and rows["eager"]["reason"] is None
    listed = {(row.plain, status.plain) for row, status in zip(failures_table(stored).columns[2].cells,
                                                                 failures_table(stored).columns[3].cells)}
    assert {(library.name, "fail"), (own.name, "fail")} <= listed


def test_a_library_failing_a_finite_distribution_is_not_timed(tmp_path, layernorm, impl_like):
    eager = layernorm[1]
    library = impl_like(eager, lambda *inputs: eager.fn(*inputs) * 2, family=identity.LIBRARY_FAMILIES[0])
    rows, _ = _run(tmp_path, layernorm, [library])
    row = rows[identity.LIBRARY_FAMILIES[0]]
    assert row["status"] == "fail" and row["span_mean_us"] is None and row["reason"].startswith("normal inputs")


# Graphs at the edge: one node with a self-edge, one node with two, no edges at all, every edge into one node.
DEGENERATE_GRAPHS = {
    "one node, a self-edge": ([0, 1], [0], 4),
    "one node, two self-edges": ([0, 2], [0, 0], 4),
    "no edges": ([0, 0, 0, 0], [], 3),
    "every edge into one node": ([0, 0, 0, 5], [0, 1, 2, 1, 0], 1),
}


@pytest.mark.parametrize("variant", ("sum", "mean"))
@pytest.mark.parametrize("graph", DEGENERATE_GRAPHS, ids=str)
def test_neighbor_agg_answers_degenerate_graphs(graph, variant):
    rowptr, col, features = DEGENERATE_GRAPHS[graph]
    inputs = (torch.tensor(rowptr), torch.tensor(col, dtype=torch.int64), torch.randn(len(rowptr) - 1, features))
    ref = registry.get_op("neighbor_agg").reference(check.upcast(inputs), variant)
    for impl in registry.implementations("neighbor_agg"):
        if impl.variant == variant and impl.precision == "ieee" and not impl.unavailable_reason("cpu"):
            out = impl.fn(*inputs)
            assert torch.allclose(out.double(), ref, atol=1e-6), impl.name


_SM90_ONE_ROW = r"""
import torch
from sm90_compile import compile_for_hopper
from mage import registry

launched = compile_for_hopper()
for impl in registry.implementations("neighbor_agg"):
    if impl.family == "triton":
        launched.clear()
        impl.fn(torch.tensor([0, 1]), torch.tensor([0]), torch.randn(1, 4))
        print(impl.name, len(launched))
"""


@needs_ptxas
def test_neighbor_agg_triton_compiles_for_a_graph_of_one_row():
    """n_rows = 1 specialized into a constant made Triton's coalesce pass fail (PassManager::run failed); the
    interpreter never compiles, so this compiles for sm_90 (without a GPU, in a process of its own)."""
    done = run_compiled("-c", _SM90_ONE_ROW)
    assert done.returncode == 0, done.stderr[-3000:]
    assert sorted(done.stdout.split()) == sorted(
        [*(i.name for i in registry.implementations("neighbor_agg") if i.family == "triton"), "1", "1"])


def test_a_split_precision_product_may_give_nan_for_an_infinity_and_nothing_else():
    """tf32x3's three products cannot keep an infinity (an infinite part times an exact part's small part 0):
    NaN stands where float64 is infinite at that precision only; a finite number there, or a NaN turned
    into a number, fails at every precision."""
    from mage.check import _nonfinite_mismatch

    ref = torch.tensor([float("inf"), float("-inf"), float("nan"), 1.0], dtype=torch.float64)
    nan_for_infinities = torch.tensor([float("nan"), float("nan"), float("nan"), 1.0])
    assert _nonfinite_mismatch(nan_for_infinities, ref, "tf32x3") == ""
    assert "2 of the reference's 3 NaN or infinite elements" in _nonfinite_mismatch(nan_for_infinities, ref, "ieee")
    assert "2 of the reference's 3" in _nonfinite_mismatch(nan_for_infinities, ref, "tf32")
    for wrong in ([3e38, float("nan"), float("nan"), 1.0], [float("inf"), float("-inf"), 0.0, 1.0]):
        assert _nonfinite_mismatch(torch.tensor(wrong), ref, "tf32x3")
