"""The span boundary's round and rotation logic, and the other boundaries on the CPU."""

import statistics
import time

import pytest

from mage.measure import host, span
from mage.measure.device import Timer
from mage.measure.method import Method


def test_rotation_starts_each_round_one_implementation_later():
    assert [span.rotated([0, 1, 2], r) for r in range(3)] == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    assert [span.rotated([0, 1], r) for r in range(3)] == [[0, 1], [1, 0], [0, 1]]


def test_rounds_interleave_implementations_in_rotated_order():
    calls = []
    contenders = [span.Contender(name, (lambda n=name: calls.append(n))) for name in "abc"]
    method = Method(span_samples=6, rounds=3, min_samples=6)  # blocks of two; the count cap ends round 3
    stats, failures = span.measure(contenders, "single", Timer("cpu"), method)
    assert not failures
    timed = calls[3:]  # the first call of each is the trial that shows its path runs
    blocks = [timed[i : i + 2] for i in range(0, len(timed), 2)]
    assert [b[0] for b in blocks] == list("abc" "bca" "cab")
    assert all(len(set(b)) == 1 for b in blocks)
    assert {r for r, _ in stats["a"].samples} == {0, 1, 2}
    assert len(stats["a"].round_means()) == 3


def test_batch_path_divides_by_calls_per_span():
    contender = span.Contender("sleep", lambda: time.sleep(0.001))
    stats, _ = span.measure([contender], "batch", Timer("cpu"), Method(span_samples=3, rounds=3, batch=5, min_samples=1))
    result = stats["sleep"]
    assert result.calls_per_sample == 5
    assert 900 < result.median_us < 5000  # one sleep per call, not five


def test_a_failing_contender_is_reported_and_the_others_still_run():
    def broken():
        raise RuntimeError("kernel exploded")

    contenders = [span.Contender("ok", lambda: None), span.Contender("broken", broken)]
    stats, failures = span.measure(contenders, "single", Timer("cpu"), Method(span_samples=3, rounds=3, min_samples=1))
    assert "kernel exploded" in failures["broken"]
    assert len(stats["ok"].samples) == 3


def test_graph_path_needs_cuda():
    _, failures = span.measure([span.Contender("x", lambda: None)], "graph", Timer("cpu"), Method(span_samples=3))
    assert "CUDA" in failures["x"]


def test_time_budget_limits_samples_but_keeps_the_floor():
    method = Method(budget_s=1.0, min_samples=30)
    assert method.samples_within_budget(300, 0.001) == 300
    assert method.samples_within_budget(300, 0.1) == 30
    assert method.samples_within_budget(300, 0.01) == 100


def test_host_time_measures_the_call_itself():
    synchronized = []
    result = host.host_time_us(lambda: time.sleep(0.0005), lambda: synchronized.append(1), calls=20, chunk=5)
    assert 400 < result.min_us <= result.median_us <= result.max_us < 5000
    assert len(synchronized) == 5  # between chunks and once at the end, never inside one


class FakeTimer(Timer):
    """A CPU timer whose spans are scripted: each contender's call sets the span its sample reports."""

    def __init__(self):
        super().__init__("cpu")
        self.next_us = 0.0

    def span_us(self, region):
        region()
        return self.next_us

    def scripted(self, *spans_us: float):
        """A call whose samples take ``spans_us`` in turn (the trial takes the first)."""
        position = iter(range(10**9))
        return lambda: setattr(self, "next_us", spans_us[next(position) % len(spans_us)])


def test_sampling_stops_at_the_noise_target_or_the_budget_whichever_first():
    timer = FakeTimer()
    steady = span.Contender("steady", timer.scripted(100.0, 101.0))  # RSE 0.1 % at 30 samples
    noisy = span.Contender("noisy", timer.scripted(50.0, 150.0))  # RSE ≈ 50 % / √n: 0.5 % only at 10⁴ samples
    method = Method(min_samples=30, rounds=3, noise_target=0.005, budget_s=0.01005, span_samples=10_000)
    stats, _ = span.measure([steady, noisy], "single", timer, method)
    assert len(stats["steady"].samples) == 30  # the floor: below target long before it, yet it samples on
    assert stats["steady"].rse < 0.005 and not stats["steady"].noisy
    assert len(stats["noisy"].samples) == 101  # the budget: 100 samples spend 10 ms, the 101st crosses 10.05
    assert 0.01005 <= stats["noisy"].spent_s <= 0.01005 + 150e-6
    assert stats["noisy"].rse > 0.005 and stats["noisy"].noisy
    assert {r for r, _ in stats["noisy"].samples} == set(range(11))  # rounds of 10 go on until the cap


def test_the_floor_holds_at_a_zero_budget_and_the_sample_cap_holds_without_one():
    timer = FakeTimer()
    floor = Method(min_samples=6, rounds=3, budget_s=0.0)
    stats, _ = span.measure([span.Contender("x", timer.scripted(10.0, 30.0))], "single", timer, floor)
    assert len(stats["x"].samples) == 6 and stats["x"].noisy
    capped = Method(min_samples=6, rounds=3, budget_s=1e9, span_samples=50)
    stats, _ = span.measure([span.Contender("x", timer.scripted(10.0, 30.0))], "single", timer, capped)
    assert len(stats["x"].samples) == 50 and stats["x"].noisy


def test_a_wall_budget_caps_samples_whose_refresh_costs_more_than_their_spans():
    timer = FakeTimer()
    slow_refresh = lambda: time.sleep(0.002)  # noqa: E731 - 2 ms of wall time a sample around a 10 µs span
    noisy = span.Contender("x", timer.scripted(5.0, 15.0))
    capped = Method(min_samples=30, rounds=3, budget_s=1e9, span_samples=10_000, wall_budget_s=0.1)
    stats, _ = span.measure([noisy], "single", timer, capped, refresh=slow_refresh)
    assert 30 <= len(stats["x"].samples) <= 60 and stats["x"].noisy  # about 50 samples fill 0.1 s
    assert 0.1 <= stats["x"].wall_s and stats["x"].spent_s < 0.001
    floor = Method(min_samples=30, rounds=3, budget_s=1e9, span_samples=10_000, wall_budget_s=1e-6)
    stats, _ = span.measure([noisy], "single", timer, floor, refresh=slow_refresh)
    assert len(stats["x"].samples) == 30  # the floor holds whatever the wall budget


def test_no_spread_stops_at_the_floor_and_the_rounds():
    timer = FakeTimer()
    stats, _ = span.measure([span.Contender("x", timer.scripted(5.0))], "single", timer,
                            Method(min_samples=1, rounds=3, span_samples=10_000))
    assert stats["x"].samples == [(0, 5.0), (1, 5.0), (2, 5.0)] and stats["x"].rse == 0.0


def test_relative_standard_error_is_the_standard_error_over_the_mean():
    stats = span.SpanStats(calls_per_sample=2)
    for value in (2.0, 4.0, 6.0):  # per call: 1, 2, 3
        stats.add(0, value)
    assert stats.rse == pytest.approx(statistics.stdev([1, 2, 3]) / 3**0.5 / 2)
    assert stats.spent_s == pytest.approx(12e-6)


def test_inputs_are_refreshed_before_the_flush_of_every_sample_and_outputs_verified():
    events, given = [], {"set": 0}

    def refresh():
        given["set"] += 1
        events.append("refresh")

    def honest():
        events.append("call")
        return given["set"]

    def remembers():  # the answer for the values it saw first
        events.append("call")
        return 0

    def verify(out):
        return "" if out == given["set"] else f"answer for set {out}, given set {given['set']}"

    contenders = [span.Contender("honest", honest, verify=verify), span.Contender("remembers", remembers, verify=verify)]
    method = Method(min_samples=6, rounds=3, span_samples=6)
    stats, _ = span.measure(contenders, "single", Timer("cpu"), method, flush=lambda: events.append("flush"),
                            refresh=refresh)
    timed = events[2:]  # after each contender's trial call
    assert timed[:3] == ["refresh", "flush", "call"] and timed.count("refresh") == timed.count("call")
    assert stats["honest"].stale is None and len(stats["honest"].samples) == 6
    assert stats["remembers"].stale.startswith("answer for set 0, given set")
    assert len(stats["remembers"].samples) <= 2  # it stops at the first verified sample of its first block


def test_the_batch_path_verifies_the_last_call_of_the_batch():
    outputs = iter(range(10**9))
    seen = []
    contender = span.Contender("x", lambda: next(outputs), verify=lambda out: seen.append(out) or "")
    span.measure([contender], "batch", Timer("cpu"), Method(min_samples=3, rounds=3, span_samples=3, batch=4),
                 refresh=lambda: None)
    assert len(seen) == 3 and all(out % 4 == 3 for out in seen)  # calls 4k..4k+3 make one sample (a trial first)


class _CountingTimer(Timer):
    """A CPU timer that reports the bytes the hoarder of a test keeps as allocated device memory."""

    def __init__(self, hoard: list, total: int):
        super().__init__("cpu")
        self.hoard, self.total = hoard, total

    def allocated_bytes(self) -> int:
        return sum(self.hoard)

    def total_bytes(self) -> int:
        return self.total


def test_a_contender_that_exhausts_memory_while_timed_fails_alone():
    hoard, calls = [], {"honest": 0, "hoards": 0, "greedy": 0}

    def call(name):
        calls[name] += 1
        if name == "hoards" and calls[name] > 1:  # after its trial call: every timed call keeps 10 bytes
            hoard.append(10)
        if name == "greedy" and calls[name] > 1:
            raise MemoryError("no host memory left")

    contenders = [span.Contender(name, lambda name=name: call(name)) for name in calls]
    stats, failures = span.measure(contenders, "single", _CountingTimer(hoard, total=100),
                                   Method(span_samples=90, rounds=3, min_samples=90, budget_s=60))
    assert set(stats) == {"honest"} and len(stats["honest"].samples) == 90
    assert failures["hoards"].startswith("kept 0.0 GiB of device memory across its timed calls (more than 25%")
    assert span.exhausted_memory(failures["hoards"]) and sum(hoard) <= 2 * 30 * 10  # stopped after a block or two
    assert failures["greedy"] == "ran out of host memory while timed (MemoryError: no host memory left)"
