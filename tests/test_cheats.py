"""Implementations that cheat are caught: aliasing, re-checks during timing, suspect times."""

import dataclasses
import io

import pytest
from cheats import deferred_output, stale_answer
from rich.console import Console

from mage import check, suspect
from mage.measure.method import Method
from mage.report.html import contracts_table
from mage.report.tables import failures_table, results_table
from mage.runner import Planned, Request, Runner
from mage.spec import DISTRIBUTIONS
from mage.store import Result, Store

QUICK = Method(span_samples=6, min_samples=1, kernel_calls=2, host_calls=4, host_chunk=2, warmup_calls=2)


def _check(layernorm, impl):
    spec, eager, case = layernorm
    return check.check(impl, eager, spec, case, "cpu", seed=11)


def _run(tmp_path, layernorm, impls, case=None, method=QUICK, paths=("single",)):
    spec, _, default_case = layernorm
    request = Request(suites=["seed"], device="cpu", method=method, paths=list(paths))
    store = Store(tmp_path / "mage.db")
    run_id = Runner(store, request, "pytest").run([Planned(spec, case or default_case, impls)])
    return store.run(run_id), store.rows(run_id)


def test_returning_an_input_fails(layernorm, impl_like):
    result = _check(layernorm, impl_like(layernorm[1], lambda x, w, b: x))
    assert not result.passed and "shares memory with its input #0" in result.reason


def test_returning_a_view_of_an_input_fails(layernorm, impl_like):
    result = _check(layernorm, impl_like(layernorm[1], lambda x, w, b: x.view(-1).view(x.shape)))
    assert not result.passed and "input #0" in result.reason


def test_returning_the_same_tensor_every_call_fails(layernorm, impl_like):
    eager, cache = layernorm[1], []

    def cached(x, w, b):
        if not cache:
            cache.append(eager.fn(x, w, b))
        return cache[0]

    result = _check(layernorm, impl_like(eager, cached))
    assert not result.passed and "output of the previous call" in result.reason


def test_an_honest_implementation_is_not_called_an_alias(layernorm):
    assert _check(layernorm, layernorm[1]).passed


def test_right_while_checked_then_wrong_fails_the_recheck(tmp_path, layernorm, impl_like):
    eager, calls = layernorm[1], {"n": 0}

    def drifts(x, w, b):  # right while checked and on the timing buffers (its first call after the contract)
        calls["n"] += 1
        if calls["n"] == len(DISTRIBUTIONS) + 1:
            calls["timed"] = x.data_ptr()
        out = eager.fn(x, w, b)
        return out if calls["n"] <= len(DISTRIBUTIONS) or x.data_ptr() == calls["timed"] else out * 2

    rows = {r["backend"]: r for r in _run(tmp_path, layernorm, [impl_like(eager, drifts), eager])[1]}
    assert rows["fixture"]["status"] == "fail" and rows["fixture"]["contract"] == "fail"
    assert rows["fixture"]["reason"].startswith("failed a re-check during timing: error")
    assert rows["fixture"]["span_mean_us"] is not None  # its numbers are kept, marked failed
    assert rows["eager"]["status"] == "pass"


def test_memoizing_on_its_inputs_is_flagged_suspect(tmp_path, layernorm, impl_like):
    spec, eager, case = layernorm
    big = type(case)(case.op, "512x2048", "seed", {"rows": 512, "cols": 2048}, seed=5)
    memo = {}

    def memoized(x, w, b):  # honest on fresh inputs (so it passes every check), instant on the timed ones
        # Keyed on content and remembering every answer: the timing inputs' few refreshed sets recur, so
        # input refresh cannot catch it (its answers are right); the ratio rule must.
        key = tuple(x[0, :4].tolist())
        if key not in memo:
            memo[key] = eager.fn(x, w, b)
        return memo[key]

    # Enough samples that its first answer for each set weighs little in its mean.
    many = dataclasses.replace(QUICK, span_samples=120, min_samples=120)
    run, stored = _run(tmp_path, layernorm, [impl_like(eager, memoized), eager], big, many)
    rows = {r["backend"]: r for r in stored}
    assert rows["fixture"]["status"] == "pass"
    assert "faster than the best other implementation (eager/" in rows["fixture"]["suspect"]
    assert rows["eager"]["suspect"] is None
    console = Console(width=300, file=io.StringIO())
    console.print(results_table(run, stored), failures_table(stored))
    shown = console.file.getvalue()
    assert "pass SUSPECT" in shown and "│ suspect │ single/warm: span" in shown
    assert '<tr class="fail"><td>layernorm</td><td>512x2048</td><td>fixture/affine/ieee</td><td>ieee</td><td>SUSPECT' \
        in contracts_table(stored)


def _timed(path="single", cache="cold", kernel=None, span=None, floor=None, bytes_=1e9, status="pass"):
    return Result(path, cache, status, kernel_us=kernel, span_mean_us=span, floor_us=floor, bytes=bytes_)


def test_below_the_floor_is_suspect_only_where_the_floor_holds():
    cold, warm_small, warm_large = (_timed(kernel=1.0, floor=2.0), _timed(cache="warm", kernel=1.0, floor=2.0, bytes_=1e3),
                                    _timed(cache="warm", kernel=1.0, floor=2.0, bytes_=1e9))
    suspect.flag([("a", "v", cold), ("b", "v", warm_small), ("c", "v", warm_large)], cache_bytes=1e6)
    assert "below its roofline floor" in cold.suspect and "below its roofline floor" in warm_large.suspect
    assert warm_small.suspect is None


def test_ratio_rule_compares_within_variant_path_and_cache():
    fast, slow, other_variant, other_path, failed = (
        _timed(span=1.0), _timed(span=20.0), _timed(span=100.0), _timed(path="batch", span=100.0),
        _timed(span=100.0, status="fail"))
    suspect.flag([("fast", "v", fast), ("slow", "v", slow), ("x", "w", other_variant), ("y", "v", other_path),
                  ("z", "v", failed)], cache_bytes=0)
    assert "20× faster than the best other implementation (slow" in fast.suspect
    assert slow.suspect is other_variant.suspect is other_path.suspect is None


@pytest.mark.parametrize("ratio, flagged", [(9.9, False), (10.1, True)])
def test_ratio_threshold_is_ten(ratio, flagged):
    fast, slow = _timed(cache="warm", span=1.0), _timed(cache="warm", span=ratio)
    suspect.flag([("fast", "v", fast), ("slow", "v", slow)], cache_bytes=0)
    assert (fast.suspect is not None) == flagged


def test_a_few_percent_under_the_copy_rate_floor_is_not_suspect():
    """Read-heavy kernels beat the 50/50 copy rate a little (H200: 505 µs against a 514 µs floor)."""
    near, far = _timed(kernel=505.0, floor=514.0), _timed(kernel=400.0, floor=514.0)
    suspect.flag([("near", "v", near), ("far", "v", far)], cache_bytes=1e6)
    assert near.suspect is None
    assert "below its roofline floor" in far.suspect


def test_tf32x3_is_floored_at_three_tf32_products_not_at_the_fma_rate():
    """H200 run 8: a split tf32x3 matmul took 12.1 ms at 8192³, under the 21.7 ms FMA-rate floor it
    was first held to, and was flagged suspect; three tf32 products at 392 TFLOP/s take 8.4 ms."""
    from mage.measure.ceilings import floor_us

    ceilings = {"copy_gbps": 4160.0, "matmul_ieee_tflops": 50.7, "matmul_tf32_tflops": 392.5}
    flops = 2.0 * 8192**3
    assert floor_us(ceilings, flops, 0, "tf32x3") == pytest.approx(3 * floor_us(ceilings, flops, 0, "tf32"))
    assert floor_us(ceilings, flops, 0, "tf32x3") == pytest.approx(8404, rel=1e-3)
    result = _timed(kernel=12058.0, floor=floor_us(ceilings, flops, 3 * 8192**2 * 4, "tf32x3"))
    suspect.flag([("triton/default/tf32x3", "default", result)], cache_bytes=1e6)
    assert result.suspect is None


@pytest.mark.parametrize("path", ["single", "batch"])
def test_answering_from_memory_by_address_fails_as_stale(tmp_path, layernorm, impl_like, path):
    eager = layernorm[1]
    _, stored = _run(tmp_path, layernorm, [impl_like(eager, stale_answer.ByAddress(eager.fn)), eager], paths=[path])
    rows = {r["backend"]: r for r in stored}
    assert rows["fixture"]["status"] == "fail" and rows["fixture"]["contract"] == "fail"
    assert rows["fixture"]["reason"].startswith(f"returned a stale result during timing on the {path} path (warm L2): "
                                                "error ")
    assert rows["eager"]["status"] == "pass" and rows["eager"]["span_rse"] is not None


def test_a_stale_answer_on_one_path_fails_every_row_of_the_implementation(tmp_path, layernorm, impl_like):
    eager = layernorm[1]
    _, stored = _run(tmp_path, layernorm, [impl_like(eager, stale_answer.ByAddress(eager.fn))], paths=["single", "batch"])
    assert [(r["path"], r["status"]) for r in stored] == [("single", "fail"), ("batch", "fail")]
    assert {r["reason"] for r in stored} == {stored[0]["reason"]} and "single path" in stored[0]["reason"]


def test_answering_from_memory_by_content_must_compute_every_timed_sample(tmp_path, layernorm, impl_like):
    """Each refresh changes the elements it keys on, so every timed sample is a call it must compute."""
    eager = layernorm[1]
    cheat = stale_answer.ByContent(eager.fn)
    _, stored = _run(tmp_path, layernorm, [impl_like(eager, cheat)])
    assert stored[0]["status"] == "pass"
    # Besides the timed samples: two contract calls, the first warm-up call and the re-check.
    assert cheat.computed >= stored[0]["span_samples"] + 4


def test_a_tensor_subclass_output_fails_before_it_is_timed(tmp_path, layernorm, impl_like):
    eager = layernorm[1]
    _, stored = _run(tmp_path, layernorm, [impl_like(eager, deferred_output.as_subclass(eager.fn))])
    assert stored[0]["status"] == "fail" and stored[0]["span_mean_us"] is None
    assert "a subclass of torch.Tensor" in stored[0]["reason"]
