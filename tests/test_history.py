"""mage history: every stored result over time, with steps found where it got faster or slower."""

import os
import re
import subprocess
import sys

import numpy
import pytest

from mage import history
from mage.registry import Implementation
from mage.spec import Case
from mage.store import Result, Store

IMPLS = ("triton/affine/ieee", "eager/affine/ieee")


H200 = ("gpu", {"gpu": "NVIDIA H200"})


def store_series(store, kernel_by_run, *, impls=IMPLS, failed_runs=(), noise=0.01, seed=0, machines=None):
    """One run per value of ``kernel_by_run`` (kernel µs of the first implementation; the others flat at
    50 µs), each with a span a tenth above the kernel time, in chronological order; ``machines``: the
    (clock, env) of each run, an H200 by default."""
    rng = numpy.random.default_rng(seed)
    runs = []
    for i, level in enumerate(kernel_by_run):
        clock, machine = (machines or [H200] * len(kernel_by_run))[i]
        run = store.begin_run(clock=clock, suite="seed", command=f"mage run {i}",
                              env={"git_commit": f"{i:07d}abc", "git_dirty": i % 2 == 1} | machine, method={},
                              ceilings={})
        store.db.execute("UPDATE runs SET started_at = ? WHERE id = ?", (f"2026-12-{i + 1:02d}T10:00:00+00:00", run))
        store.db.commit()
        case_id = store.case_id(run, Case("layernorm", "1024x1024", "seed", {}, 1))
        for name in impls:
            backend, variant, precision = name.split("/")
            impl_id = store.impl_id(run, Implementation("layernorm", backend, variant, precision, fn=None))
            kernel = (level if name == impls[0] else 50.0) * (1 + rng.normal(0, noise))
            if name == impls[0] and i in failed_runs:
                store.add_result(run, case_id, impl_id, Result("single", "warm", "fail", "broke", "fail"))
                continue
            span = kernel * 1.1
            store.add_result(run, case_id, impl_id, Result(
                "single", "warm", "pass", contract="pass", kernel_us=kernel, launches=1.0, host_us=9.0,
                span_mean_us=span, span_median_us=span, span_round_min_us=span * 0.995,
                span_round_max_us=span * 1.005, span_samples=3), [(r, span) for r in range(3)])
        store.end_run(run, "complete")
        runs.append(run)
    return runs


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "mage.db")


def series_of(all_series, impl, boundary="kernel"):
    return next(s for s in all_series if s.impl == impl and s.boundary == boundary)


def test_a_planted_step_in_a_stored_series_is_found(store):
    runs = store_series(store, [100.0] * 6 + [125.0] * 6)
    found = history.load(store, op="layernorm")
    kernel = series_of(found, IMPLS[0])
    assert [p.run_id for p in kernel.points] == runs
    (step,) = kernel.steps
    assert step.run_id == runs[6] and step.index == 6 and step.direction == "slower"
    assert step.change == pytest.approx(0.25, abs=0.03)
    assert step.commit == "0000006abc"
    (span_step,) = series_of(found, IMPLS[0], "span").steps
    assert span_step.run_id == runs[6]
    assert series_of(found, IMPLS[1]).steps == []  # the flat implementation has none


def test_a_noisy_flat_series_has_no_step(store):
    store_series(store, [100.0] * 15, noise=0.015, seed=3)
    assert all(not s.steps for s in history.load(store))


def test_an_improvement_then_a_regression_are_both_found_and_stay_in_the_history(store):
    runs = store_series(store, [100.0] * 5 + [70.0] * 5 + [90.0] * 5)
    kernel = series_of(history.load(store, impl="triton"), IMPLS[0])
    assert [(s.run_id, s.direction) for s in kernel.steps] == [(runs[5], "faster"), (runs[10], "slower")]
    assert len(kernel.points) == 15  # nothing dropped: the regression is in the series


def test_a_regression_in_the_latest_run_is_a_step(store):
    runs = store_series(store, [100.0] * 8 + [120.0])
    (step,) = series_of(history.load(store), IMPLS[0]).steps
    assert step.run_id == runs[-1] and step.direction == "slower"


def test_failed_results_stay_as_points_and_do_not_make_steps(store):
    runs = store_series(store, [100.0] * 8, failed_runs=(3,))
    kernel = series_of(history.load(store), IMPLS[0])
    assert [p.status for p in kernel.points].count("fail") == 1 and kernel.points[3].value is None
    assert kernel.points[3].run_id == runs[3] and kernel.steps == []


def test_another_machine_or_clock_starts_a_series_of_its_own(store):
    """An imported H200 run and a CPU run once made one series with a "+681.8 % slower" step."""
    cpu = ("cpu", {"host_cpu": "AMD EPYC 7R13"})
    runs = store_series(store, [100.0] * 4 + [781.8] * 4, machines=[H200] * 4 + [cpu] * 4)
    on_h200, on_cpu = [s for s in history.load(store) if s.impl == IMPLS[0] and s.boundary == "kernel"]
    assert (on_h200.device, on_h200.clock, [p.run_id for p in on_h200.points]) == ("NVIDIA H200", "gpu", runs[:4])
    assert (on_cpu.device, on_cpu.clock, [p.run_id for p in on_cpu.points]) == ("AMD EPYC 7R13", "cpu", runs[4:])
    assert on_h200.steps == on_cpu.steps == []
    assert on_h200.new_hardware is None
    assert on_cpu.new_hardware == (f"starts on new hardware at run {runs[4]}: AMD EPYC 7R13 (CPU clock), after "
                                   "NVIDIA H200 (GPU clock)")
    other_gpu = ("gpu", {"gpu": "NVIDIA A100-SXM4-80GB"})
    store_series(store, [30.0] * 2, machines=[other_gpu] * 2)
    devices = [s.device for s in history.load(store, boundaries=("kernel",)) if s.impl == IMPLS[0]]
    assert devices == ["NVIDIA H200", "NVIDIA A100-SXM4-80GB", "AMD EPYC 7R13"]  # in the order they started


def test_the_history_command_says_where_a_series_starts_on_new_hardware(tmp_path):
    store = Store(tmp_path / "mage.db")
    store_series(store, [100.0] * 3 + [781.8] * 3, machines=[H200] * 3 + [("cpu", {"host_cpu": "AMD EPYC"})] * 3)
    store.close()
    result = subprocess.run([sys.executable, "-c", "from mage.cli import main; main()", "history", "--impl", "triton"],
                            cwd=tmp_path, capture_output=True, text=True, env=os.environ | {"COLUMNS": "320"})
    assert result.returncode == 0, result.stderr
    assert "starts on new hardware at run 4: AMD EPYC (CPU clock)" in result.stdout
    assert "NVIDIA H200 (gpu)" in result.stdout and "AMD EPYC (cpu)" in result.stdout  # the device column
    assert "4 series, 0 steps" in result.stdout  # no "+681.8 % slower" step between the machines


def test_detect_steps_directly():
    ((index, before, after, score),) = history.detect_steps([10.0, 10.1, 9.9, 10.0, 20.0, 20.1, 19.9])
    assert (index, before, after) == (4, 10.0, 20.0) and score > 50
    assert history.detect_steps([10.0, 10.2, 10.1, 10.3]) == []  # under 5 %
    assert history.detect_steps([10.0]) == [] and history.detect_steps([]) == []
    # A step inside the round-mean spread of every point is noise.
    assert history.detect_steps([10.0] * 4 + [11.0] * 4, [1.0] * 8) == []


def test_filters(store):
    store_series(store, [100.0] * 3)
    assert {s.impl for s in history.load(store, impl="eager")} == {"eager/affine/ieee"}
    assert {s.boundary for s in history.load(store, boundaries=("host",))} == {"host"}
    assert history.load(store, case="nope") == []
    with pytest.raises(Exception, match="unknown boundary"):
        history.load(store, boundaries=("wall",))


def test_history_page_has_one_chart_per_implementation_with_steps_marked(store):
    from mage.report.history_html import history_page

    store_series(store, [100.0] * 6 + [125.0] * 6)
    page = history_page(history.load(store))
    assert page.count('class="plotly-graph-div"') == len(IMPLS)
    assert re.search(r"slower \+2\d%", page) and "2 regressions" in page
    assert '<script src="http' not in page and len(page) > 1_000_000  # plotly.js inlined: self-contained


def test_the_history_command(tmp_path):
    store = Store(tmp_path / "mage.db")
    store_series(store, [100.0] * 6 + [125.0] * 6)
    store.close()
    command = [sys.executable, "-c", "from mage.cli import main; main()", "history", "--op", "layernorm",
               "--impl", "triton", "--html", "history.html"]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=os.environ | {"COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    assert "▲ slower +2" in result.stdout and "2 steps: 2 slower" in result.stdout
    assert "0000006abc" in result.stdout  # the commit where it changed
    assert (tmp_path / "history.html").stat().st_size > 1_000_000
    nothing = subprocess.run(command[:3] + ["history", "--op", "matmul"], cwd=tmp_path, capture_output=True, text=True)
    assert nothing.returncode == 2 and "no stored result matches" in nothing.stderr


def test_a_family_selects_every_strategy_of_it_as_run_does(store):
    run = store.begin_run(clock="gpu", suite="seed", command="mage run", env={"gpu": "NVIDIA H200"}, method={},
                          ceilings={})
    case_id = store.case_id(run, Case("layernorm", "1024x1024", "seed", {}, 1))
    for strategy in ("default", "persistent"):
        impl_id = store.impl_id(run, Implementation("layernorm", "triton", "affine", "ieee", fn=None,
                                                    strategy=strategy))
        store.add_result(run, case_id, impl_id, Result("single", "warm", "pass", contract="pass", kernel_us=3.0))
    store.end_run(run, "complete")
    found = {s.impl for s in history.load(store, None, "triton", None, None, None, ["kernel"])}
    assert found == {"triton/affine/ieee", "triton.persistent/affine/ieee"}


@pytest.mark.parametrize("columns", ["80", "100"])
def test_the_history_at_a_narrow_width_folds_no_number(tmp_path, columns):
    store = Store(tmp_path / "mage.db")
    store_series(store, [4400.0] * 3 + [7000.0] * 3)
    store.close()
    result = subprocess.run([sys.executable, "-m", "mage", "history", "--op", "layernorm"], cwd=tmp_path,
                            capture_output=True, text=True, env=os.environ | {"COLUMNS": columns})
    assert result.returncode == 0, result.stderr
    assert re.search(r"│ \d,\d{3}\.\d +│", result.stdout)  # a time in thousands of µs, whole in its cell
    assert not re.search(r"\d,\d{0,3} +│", result.stdout)  # never cut after its comma or before its decimal
