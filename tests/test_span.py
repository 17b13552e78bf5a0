"""The span boundary's round and rotation logic, and the other boundaries on the CPU."""

import time

from mage.measure import host, span
from mage.measure.device import Timer
from mage.measure.method import Method


def test_rotation_starts_each_round_one_implementation_later():
    assert span.rotation(3, 3) == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    assert span.rotation(2, 3) == [[0, 1], [1, 0], [0, 1]]


def test_rounds_interleave_implementations_in_rotated_order():
    calls = []
    contenders = [span.Contender(name, (lambda n=name: calls.append(n))) for name in "abc"]
    method = Method(span_samples=6, rounds=3, min_samples=1)
    stats, failures = span.measure(contenders, "single", Timer("cpu"), method)
    assert not failures
    timed = calls[3:]  # the first call of each is the probe that sizes its sample count
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
