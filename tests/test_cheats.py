"""Implementations that cheat are caught: aliasing, re-checks during timing, suspect times."""

import io
import time

import pytest
import torch
from rich.console import Console

from cheats import deferred_output, honest_only_under_profiler, silent_while_profiled, stale_answer, warm_cache_memo
from mage import check, registry, runner, suspect
from mage.measure import ceilings
from mage.measure.method import Method
from mage.report.html import contracts_table
from mage.report.tables import failures_table, results_table
from mage.plan import Planned, Request
from mage.runner import Runner
from mage.report.format import us
from mage.spec import Case
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


def test_a_few_wrong_elements_fail_where_the_norm_wise_error_would_pass():
    """A race that corrupts a few elements of a 16-bit output: four elements of 65,536 off by twice the
    output's root mean square make a norm-wise error of 0.016, inside bf16's ceiling of 0.02; the worst
    element fails it, and without the corruption the same implementation passes."""
    spec = registry.get_op("layernorm")
    eager = registry.baseline_for("layernorm", "affine", "bf16")
    case = Case("layernorm", "256x256", "seed", {"rows": 256, "cols": 256}, seed=5)

    def racing(x, w, b):
        out = eager.fn(x, w, b)
        rms = out.float().square().mean().sqrt()
        out.view(-1)[torch.tensor([17, 4099, 30000, 65000])] += (2 * rms).to(out.dtype)
        return out

    honest = registry.Implementation(op="layernorm", family="fixture", variant="affine", precision="bf16",
                                     fn=lambda x, w, b: eager.fn(x, w, b))
    planted = registry.Implementation(op="layernorm", family="fixture", variant="affine", precision="bf16", fn=racing)
    assert check.check(honest, eager, spec, case, "cpu", seed=3).passed
    result = check.check(planted, eager, spec, case, "cpu", seed=3)
    assert not result.passed and result.rel_error < 0.02, result
    assert "a few wrong elements hide in the norm-wise error" in result.reason


def test_an_honest_implementation_is_not_called_an_alias(layernorm):
    assert _check(layernorm, layernorm[1]).passed


def test_right_while_checked_then_wrong_fails_the_recheck(tmp_path, layernorm, impl_like):
    eager, calls = layernorm[1], {"n": 0}
    checked = len(layernorm[0].distributions)  # the contract's calls, one a distribution

    def drifts(x, w, b):  # right while checked and on the timing buffers (its first call after the contract)
        calls["n"] += 1
        if calls["n"] == checked + 1:
            calls["timed"] = x.data_ptr()
        out = eager.fn(x, w, b)
        return out if calls["n"] <= checked or x.data_ptr() == calls["timed"] else out * 2

    rows = {r["backend"]: r for r in _run(tmp_path, layernorm, [impl_like(eager, drifts), eager])[1]}
    assert rows["fixture"]["status"] == "fail" and rows["fixture"]["contract"] == "fail"
    assert rows["fixture"]["reason"].startswith("failed a re-check during timing: error")
    assert rows["fixture"]["span_mean_us"] is not None  # its numbers are kept, marked failed
    assert rows["eager"]["status"] == "pass"


H200 = {"sm_count": 132, "compute_capability": "9.0", "max_sm_clock_mhz": 1980, "max_mem_clock_mhz": 3201,
        "memory_bus_width_bits": 6144}
# An H200 run's ceilings record: its peaks, and the rates measured in it (run 2 of results/h200).
H200_CEILINGS = {"copy_gbps": 4250.0, "matmul_ieee_tflops": 50.7, "matmul_tf32_tflops": 392.5} | ceilings.peaks(H200)
MATMUL_1024 = (2.0 * 1024**3, 3 * 1024 * 1024 * 4.0)  # flops, compulsory bytes


def _timed(path="single", cache="cold", kernel=None, span=None, memory=None, compute=None, bytes_=1e9,
           status="pass", launches=None, spread=0.0):
    """A passing result as the Runner stores it: span round means ``spread`` either side of the mean."""
    low, high = (None, None) if span is None else (span * (1 - spread), span * (1 + spread))
    return Result(path, cache, status, kernel_us=kernel, span_mean_us=span, span_round_min_us=low,
                  span_round_max_us=high, memory_floor_us=memory, compute_floor_us=compute,
                  floor_us=ceilings.floor_of(memory, compute), bytes=bytes_, launches=launches)


def _flag(rows, cache_bytes=1e6, clock="gpu", interpreted=frozenset()):
    suspect.flag([(name, "v", row) for name, row in rows], cache_bytes, clock, interpreted)


def test_the_h200s_peaks_come_from_its_properties():
    peaks = ceilings.peaks(H200)
    assert peaks["peak_fp32_tflops"] == pytest.approx(132 * 128 * 2 * 1.98e9 / 1e12) == pytest.approx(66.9, abs=0.05)
    assert peaks["peak_tf32_tflops"] == pytest.approx(535.3, abs=0.1)
    assert peaks["peak_bf16_tflops"] == peaks["peak_fp16_tflops"] == pytest.approx(1070.6, abs=0.1)
    assert peaks["peak_hbm_gbps"] == pytest.approx(3201e6 * 6144 * 2 / 8 / 1e9) == pytest.approx(4917, abs=1)
    assert "peak_note" not in peaks
    a100 = ceilings.peaks(H200 | {"sm_count": 108, "compute_capability": "8.0", "max_sm_clock_mhz": 1410})
    assert a100["peak_fp32_tflops"] == pytest.approx(19.5, abs=0.05)  # 64 FP32 lanes per SM, not 128
    assert a100["peak_tf32_tflops"] == pytest.approx(156, abs=0.5)


def test_an_unknown_architecture_gets_no_compute_floor_and_says_so():
    peaks = ceilings.peaks(H200 | {"compute_capability": "8.6"})
    assert not any(key.endswith("_tflops") for key in peaks) and "peak_hbm_gbps" in peaks
    assert "no compute floor: compute capability 8.6 is not in the table" in peaks["peak_note"]
    assert ceilings.hardware_floors_us(peaks, *MATMUL_1024, "ieee")[1] is None
    no_nvml = ceilings.peaks({"sm_count": 132, "compute_capability": "9.0"})
    assert no_nvml == {"peak_note": "no compute floor: NVML gave no maximum SM clock; no memory floor: NVML gave "
                                    "no maximum memory clock or bus width"}


def test_floors_come_from_the_hardware_and_the_library_rate_is_what_is_reached_in_practice():
    memory, compute = ceilings.hardware_floors_us(H200_CEILINGS, *MATMUL_1024, "ieee")
    assert compute == pytest.approx(2 * 1024**3 / 66.9e6, rel=1e-3) and memory == pytest.approx(12.58e6 / 4917e3, rel=1e-3)
    # cuBLAS at its own measured rate is at 76 % of the hardware floor, not at 100 % by definition.
    at_library_rate = ceilings.in_practice_us(H200_CEILINGS, *MATMUL_1024, "ieee")
    assert compute / at_library_rate == pytest.approx(50.7 / 66.9, rel=1e-3)
    assert ceilings.in_practice_us({}, *MATMUL_1024, "ieee") is None  # a CPU run has no ceilings


def test_tf32x3_is_floored_at_three_tf32_passes():
    """H200 run 8: a split tf32x3 matmul took 12.1 ms at 8192³; three passes at the tf32 peak take 6.2 ms."""
    flops, nbytes = 2.0 * 8192**3, 3 * 8192**2 * 4.0
    _, tf32x3 = ceilings.hardware_floors_us(H200_CEILINGS, flops, nbytes, "tf32x3")
    assert tf32x3 == pytest.approx(3 * ceilings.hardware_floors_us(H200_CEILINGS, flops, nbytes, "tf32")[1])
    assert tf32x3 == pytest.approx(6163, rel=1e-3)
    result = _timed(kernel=12058.0, compute=tf32x3)
    _flag([("triton/default/tf32x3", result)])
    assert result.suspect is None


def test_a_cached_product_is_below_the_compute_floor_in_every_cache_state():
    """A matmul that returned a cached product ran at 2.1 µs against a 42 µs compute floor
    with a warm L2. A warm cache may beat the memory floor of a small case, never its arithmetic."""
    memory, compute = ceilings.hardware_floors_us(H200_CEILINGS, *MATMUL_1024, "ieee")
    memo = {cache: _timed(cache=cache, kernel=2.1, span=24.0, memory=memory, compute=compute, bytes_=MATMUL_1024[1])
            for cache in ("warm", "cold")}
    honest = _timed(cache="warm", kernel=55.4, span=93.0, memory=memory, compute=compute, bytes_=MATMUL_1024[1])
    _flag([("memo", memo["warm"]), ("memo", memo["cold"]), ("eager", honest)], cache_bytes=60e6)
    for row in memo.values():
        assert f"kernel time 2.1 µs is below its compute floor {compute:.3g} µs" in row.suspect
    assert f"span 24 µs is below its compute floor {compute:.3g} µs" in memo["warm"].suspect
    assert honest.suspect is None


def test_a_warm_small_case_may_beat_its_memory_floor_but_not_a_cold_or_large_one():
    cold, warm_small, warm_large = (_timed(kernel=1.0, memory=2.0), _timed(cache="warm", kernel=1.0, memory=2.0, bytes_=1e3),
                                    _timed(cache="warm", kernel=1.0, memory=2.0, bytes_=1e9))
    _flag([("a", cold), ("b", warm_small), ("c", warm_large)])
    assert "below its memory floor" in cold.suspect and "below its memory floor" in warm_large.suspect
    assert warm_small.suspect is None


@pytest.mark.parametrize("fraction, flagged", [(0.96, False), (0.94, True)])
def test_the_floor_margin_is_five_percent(fraction, flagged):
    """An honest kernel never beats a hardware floor; 5 % absorbs the timers' granularity, not more."""
    result = _timed(kernel=fraction * 514.0, memory=514.0)
    _flag([("kernel", result)])
    assert (result.suspect is not None) == flagged


def test_a_graph_replay_below_its_own_kernel_time_is_suspect():
    """Honest only while profiled: 3.6 µs per call in a graph against 5.2 µs of kernel."""
    single = _timed(cache="warm", kernel=5.2, span=33.0, launches=1)
    graph, batch = _timed("graph", "warm", span=3.6, spread=0.02), _timed("batch", "cold", span=3.8, spread=0.02)
    _flag([("cheat", single), ("cheat", graph), ("cheat", batch)])
    assert "graph span 3.67 µs per call is below its own kernel time 5.2 µs" in graph.suspect
    assert "batch span 3.88 µs per call is below its own kernel time 5.2 µs" in batch.suspect
    assert single.suspect is None


def test_spans_within_noise_of_the_kernel_time_agree():
    """Graph replay approaches kernel time (H200: 5.5 against 5.2 µs); a round a little under it is noise."""
    single = _timed(cache="warm", kernel=5.2, span=33.0, launches=1)
    graph, batch = _timed("graph", "warm", span=4.9, spread=0.03), _timed("batch", "warm", span=13.9, spread=0.02)
    _flag([("eager", single), ("eager", graph), ("eager", batch)])
    assert single.suspect is graph.suspect is batch.suspect is None


def test_a_kernel_time_above_the_single_span_that_contains_it_is_suspect():
    answered_from_memory = _timed(cache="warm", kernel=55.4, span=20.0, launches=1, spread=0.05)
    honest = _timed(cache="cold", kernel=55.4, span=58.0, launches=1, spread=0.05)
    _flag([("cheat", answered_from_memory), ("eager", honest)])
    assert "kernel time 55.4 µs is above the single span 19 µs that contains it" in answered_from_memory.suspect
    assert honest.suspect is None
    # H200: the profiled calls of a tf32 matmul 8192³ held the power cap (3,121 µs), a synchronized call did not.
    capped = _timed(cache="warm", kernel=3121.0, span=2763.0, launches=1)
    capped.clock_events = "SwPowerCap"
    _flag([("eager", capped)])
    assert capped.suspect is None


def test_a_gpu_call_that_launches_nothing_is_suspect():
    silent = _timed(cache="warm", kernel=0.0, span=12.0, launches=0)
    _flag([("cheat", silent)])
    assert "it launched nothing on the GPU while profiled" in silent.suspect
    # H200: the cheat computed once after each input refresh, then answered 19 of 20 profiled calls from memory.
    mostly_silent = _timed(cache="warm", kernel=2.8, span=60.0, launches=0.05)
    _flag([("cheat", mostly_silent)])
    assert "it launched nothing on the GPU in 95% of its calls while profiled (0.05 activities a call)" \
        in mostly_silent.suspect
    honest = _timed(cache="warm", kernel=55.4, span=93.0, launches=1)
    _flag([("eager", honest)])
    assert honest.suspect is None
    on_the_cpu = _timed(cache="warm", span=12.0)  # the CPU clock has no launches to count
    _flag([("eager", on_the_cpu)], clock="cpu")
    assert on_the_cpu.suspect is None


def test_ratio_rule_compares_within_variant_path_and_cache():
    fast, slow, other_variant, other_path, failed = (
        _timed(span=1.0), _timed(span=20.0), _timed(span=100.0), _timed(path="batch", span=100.0),
        _timed(span=100.0, status="fail"))
    suspect.flag([("fast", "v", fast), ("slow", "v", slow), ("x", "w", other_variant), ("y", "v", other_path),
                  ("z", "v", failed)], 0, "gpu")
    assert "20× faster than the best other implementation (slow" in fast.suspect
    assert slow.suspect is other_variant.suspect is other_path.suspect is None


@pytest.mark.parametrize("ratio, flagged", [(9.9, False), (10.1, True)])
def test_ratio_threshold_is_ten(ratio, flagged):
    fast, slow = _timed(cache="warm", span=1.0), _timed(cache="warm", span=ratio)
    _flag([("fast", fast), ("slow", slow)])
    assert (fast.suspect is not None) == flagged


def test_the_ratio_rule_holds_on_the_gpu_clock_only_and_never_against_an_interpreter():
    """On a CPU run interpreted Triton is 30× slower than eager, which was flagged."""
    eager, interpreted = _timed(cache="warm", span=10.0), _timed(cache="warm", span=300.0)
    _flag([("eager", eager), ("triton", interpreted)], clock="cpu")
    assert eager.suspect is None
    _flag([("eager", eager), ("triton", interpreted)], interpreted=frozenset({"triton"}))
    assert eager.suspect is None
    _flag([("eager", eager), ("triton", interpreted)])  # compiled Triton on the GPU clock: a real yardstick
    assert "30× faster than the best other implementation (triton" in eager.suspect


def test_a_cpu_run_never_applies_the_ratio_rule(tmp_path, layernorm, impl_like):
    """Through the real Runner: on the CPU clock a far slower implementation (the Triton interpreter is 30×
    slower than eager there) says nothing about eager."""
    eager = layernorm[1]

    def slow(x, w, b):
        time.sleep(0.25)
        return eager.fn(x, w, b)

    _, stored = _run(tmp_path, layernorm, [eager, impl_like(eager, slow)])
    spans = {r["backend"]: r["span_mean_us"] for r in stored}
    assert spans["fixture"] > 10 * spans["eager"]  # the ratio rule would have fired
    assert all(r["suspect"] is None for r in stored)


def test_triton_under_the_interpreter_is_known_as_interpreted(layernorm):
    triton = next(i for i in registry.implementations("layernorm") if i.backend == "triton")
    assert runner._interpreted(triton) and not runner._interpreted(layernorm[1])


def test_a_cpu_run_with_peaks_stores_its_memory_and_compute_floors(tmp_path, layernorm, monkeypatch):
    """The Runner puts each result against the run's hardware floors, both kept (schema 10)."""
    monkeypatch.setattr(runner.ceilings, "measure", lambda device: H200_CEILINGS)
    spec, eager, case = layernorm
    run, stored = _run(tmp_path, layernorm, [eager])
    memory, compute = ceilings.hardware_floors_us(H200_CEILINGS, spec.flops(case, eager.variant),
                                                  spec.bytes(case, eager.variant), "ieee")
    (row,) = stored
    assert (row["memory_floor_us"], row["compute_floor_us"]) == (pytest.approx(memory), pytest.approx(compute))
    assert row["floor_us"] == pytest.approx(max(memory, compute))
    shown = _shown(results_table(run, stored))
    assert "peak_fp32_tflops" in run["ceilings"] and f"{us(row['floor_us'])} memory" in shown
    assert "in practice" in shown and us(ceilings.in_practice_us(H200_CEILINGS, row["flops"], row["bytes"], "ieee")) in shown


def _shown(*renderables) -> str:
    console = Console(width=300, file=io.StringIO())
    console.print(*renderables)
    return console.file.getvalue()


def test_a_suspect_result_is_shown_as_suspect(tmp_path):
    store = Store(tmp_path / "mage.db")
    run_id = store.begin_run(clock="gpu", suite="seed", command="pytest", env={}, method={}, ceilings=H200_CEILINGS)
    case_id = store.case_id(run_id, Case("matmul", "1024x1024x1024", "seed", {}, 1))
    impl_id = store.impl_id(run_id, registry.Implementation("matmul", "fixture", "default", "ieee", fn=None))
    memory, compute = ceilings.hardware_floors_us(H200_CEILINGS, *MATMUL_1024, "ieee")
    row = _timed(cache="warm", kernel=2.1, span=24.0, memory=memory, compute=compute, bytes_=MATMUL_1024[1])
    row.contract, row.flops = "pass", MATMUL_1024[0]
    _flag([("fixture/default/ieee", row)], cache_bytes=60e6)
    store.add_result(run_id, case_id, impl_id, row)
    run, stored = store.run(run_id), store.rows(run_id)
    shown = _shown(results_table(run, stored), failures_table(stored))
    assert "pass SUSPECT" in shown and "│ suspect │ single/warm: kernel time 2.1 µs is below its compute floor" in shown
    assert f"{us(compute)} compute" in shown
    assert '<tr class="fail"><td>matmul</td><td>1024x1024x1024</td><td>fixture/default/ieee</td><td>ieee</td>' \
        '<td>SUSPECT' in contracts_table(stored)


@pytest.mark.parametrize("cheat", [warm_cache_memo, honest_only_under_profiler, silent_while_profiled],
                         ids=lambda module: module.__name__.rsplit(".", 1)[-1])
def test_every_cheat_fixture_passes_the_contract_and_the_recheck(tmp_path, impl_like, cheat):
    """Through the real Runner on the CPU: only their measurements can give them away (tests/test_cheats_gpu.py)."""
    spec = registry.get_op("matmul")
    eager = next(i for i in registry.implementations("matmul") if i.name == "eager/default/ieee")
    case = Case("matmul", "48x40x56", "seed", {"m": 48, "k": 40, "n": 56}, seed=3)
    request = Request(suites=["seed"], paths=["single", "batch"], device="cpu", method=QUICK)
    store = Store(tmp_path / "mage.db")
    run_id = Runner(store, request, "pytest").run([Planned(spec, case, [impl_like(eager, cheat.cheat(eager.fn))])])
    assert [(r["path"], r["status"], r["contract"]) for r in store.rows(run_id)] == [
        ("single", "pass", "pass"), ("batch", "pass", "pass")]


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


def test_a_failed_recheck_leaves_a_path_the_device_cannot_run_a_skip(tmp_path, layernorm, impl_like):
    eager, calls = layernorm[1], {"n": 0}

    def wrong_once_timed(x, w, b):  # right while checked and timed, wrong at the re-check
        calls["n"] += 1
        out = eager.fn(x, w, b)
        return out * 2 if calls.get("recheck") else out

    impl = impl_like(eager, wrong_once_timed)
    real_recheck = check.recheck

    def recheck(*args, **kwargs):
        calls["recheck"] = True
        return real_recheck(*args, **kwargs)

    check.recheck, restore = recheck, check.recheck
    try:
        _, stored = _run(tmp_path, layernorm, [impl], paths=("single", "graph"))
    finally:
        check.recheck = restore
    rows = {r["path"]: r for r in stored}
    assert rows["single"]["status"] == "fail" and rows["single"]["reason"].startswith("failed a re-check")
    assert rows["graph"]["status"] == "skip" and "needs a CUDA device" in rows["graph"]["reason"]
