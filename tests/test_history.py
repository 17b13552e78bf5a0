"""mage history: every stored result over time, with steps found where it got faster or slower."""

import os
import re
import shutil
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


def store_series(store, kernel_by_run, *, impls=IMPLS, failed_runs=(), noise=0.01, seed=0, machines=None,
                 methods=None):
    """One run per value of ``kernel_by_run`` (kernel µs of the first implementation; the others flat at
    50 µs), each with a span a tenth above the kernel time, in chronological order, each of its own commit;
    ``machines``: the (clock, env) of each run, an H200 by default (its env may name the commit too);
    ``methods``: the method of each run, empty by default."""
    rng = numpy.random.default_rng(seed)
    runs = []
    for i, level in enumerate(kernel_by_run):
        clock, machine = (machines or [H200] * len(kernel_by_run))[i]
        run = store.begin_run(clock=clock, suite="seed", command=f"mage run {i}",
                              env={"git_commit": f"{i:07d}abc", "git_dirty": i % 2 == 1} | machine,
                              method=(methods or [{}] * len(kernel_by_run))[i], ceilings={})
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
    steps = " ".join(line.split("│")[-2].strip() for line in result.stdout.splitlines() if line.startswith("│"))
    assert "starts on new hardware at run 4: AMD EPYC (CPU clock)" in " ".join(steps.split())  # wrapped at spaces
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
    assert re.search(r"│ layernorm +│", result.stdout), result.stdout  # a name is never cut mid-word
    summary = result.stdout[:result.stdout.index("└")]
    if columns == "100":  # the step is kept, folded at its spaces, rather than left out
        assert "slower +" in summary and "steps" in summary, result.stdout


def on_gpu(uuid, **env):
    """An H200 with this uuid (and more env: driver, commit …)."""
    return "gpu", {"gpu": "NVIDIA H200", "uuid": uuid} | env


def test_a_step_names_the_gpu_and_method_setting_that_changed_with_it_and_nothing_else(store):
    first, second = "GPU-1a2b3c4d-0000-1111-2222-333344445555", "GPU-9f8e7d6c-0000-1111-2222-333344445555"
    # The driver changed too, but two runs before the step: that is not the step's.
    machines = ([on_gpu(first, driver="570")] * 2 + [on_gpu(first, driver="580")] * 2
                + [on_gpu(second, driver="580")] * 4)
    methods = [{"batch": 10, "rounds": 3}] * 4 + [{"batch": 100, "rounds": 3}] * 4
    runs = store_series(store, [100.0] * 4 + [125.0] * 4, machines=machines, methods=methods)
    (step,) = series_of(history.load(store), IMPLS[0]).steps
    assert step.run_id == runs[4]
    assert [str(change) for change in step.also_changed] == ["GPU 1a2b3c4d → 9f8e7d6c", "method batch 10 → 100"]
    assert [change.kind for change in step.also_changed] == ["GPU", "method"]
    assert step.code_changed is True and not step.code_only
    assert step.changed_with == ("with other changes: GPU 1a2b3c4d → 9f8e7d6c; method batch 10 → 100 "
                                 "(the step may be them, not the code)")
    assert history.beside_other_changes([step]) == "1 with another change: GPU, method"


def test_a_step_where_only_the_commit_changed_is_the_codes_alone(store):
    machines = [on_gpu("GPU-1a2b3c4d-0000", driver="580")] * 12
    store_series(store, [100.0] * 6 + [125.0] * 6, machines=machines, methods=[{"batch": 10}] * 12)
    (step,) = series_of(history.load(store), IMPLS[0]).steps
    assert step.also_changed == [] and step.code_changed is True
    assert step.code_only and step.changed_with == "code only"
    assert history.beside_other_changes([step]) == ""


def test_a_step_at_the_same_commit_where_only_the_gpu_changed_is_the_machine_not_the_code(store):
    same = {"git_commit": "4d5e6f7a8b9c", "git_dirty": False}
    machines = [on_gpu("GPU-1a2b3c4d-0000", **same)] * 4 + [on_gpu("GPU-9f8e7d6c-0000", **same)] * 4
    store_series(store, [100.0] * 4 + [125.0] * 4, machines=machines)
    (step,) = series_of(history.load(store), IMPLS[0]).steps
    assert step.code_changed is False and not step.code_only
    assert step.changed_with == "same commit, so not the code; changed: GPU 1a2b3c4d → 9f8e7d6c"
    assert history.beside_other_changes([step]) == "1 with another change: GPU; 1 at the same commit"


def test_the_same_commit_with_uncommitted_changes_may_be_the_code(store):
    dirty = {"git_commit": "4d5e6f7a8b9c", "git_dirty": True}
    store_series(store, [100.0] * 4 + [125.0] * 4, machines=[on_gpu("GPU-1a2b3c4d-0000", **dirty)] * 8)
    (step,) = series_of(history.load(store), IMPLS[0]).steps
    assert step.code_changed is None and not step.code_only
    assert step.changed_with.startswith("same commit with uncommitted changes (the code may differ)")


def test_the_terminal_tables_say_what_else_changed_with_a_step(store):
    from rich.console import Console

    machines = [on_gpu("GPU-1a2b3c4d-0000")] * 4 + [on_gpu("GPU-9f8e7d6c-0000")] * 4
    store_series(store, [100.0] * 4 + [125.0] * 4, machines=machines)
    kernel = series_of(history.load(store), IMPLS[0])
    console = Console(width=400, record=True)
    console.print(history.summary_table([kernel]))
    console.print(history.points_table(kernel))
    text = console.export_text()
    assert text.count("with other changes: GPU 1a2b3c4d → 9f8e7d6c") == 2  # one in each table


def store_cases(store, steps_in: int, cases: int = 10, runs: int = 6) -> None:
    """``runs`` runs of one implementation over ``cases`` cases (c00, c01, …), the first ``steps_in`` of which
    step up by a half halfway: twice as many series (kernel and span)."""
    for i in range(runs):
        run = store.begin_run(clock="gpu", suite="seed", command=f"mage run {i}",
                              env={"gpu": "NVIDIA H200", "git_commit": f"{i:07d}abc"}, method={}, ceilings={})
        store.db.execute("UPDATE runs SET started_at = ? WHERE id = ?", (f"2026-12-{i + 1:02d}T10:00:00+00:00", run))
        impl_id = store.impl_id(run, Implementation("layernorm", "triton", "affine", "ieee", fn=None))
        for c in range(cases):
            case_id = store.case_id(run, Case("layernorm", f"c{c:02d}", "seed", {}, 1))
            kernel = 10.0 * (c + 1) * (1.5 if c < steps_in and i >= runs // 2 else 1.0)
            store.add_result(run, case_id, impl_id, Result("single", "warm", "pass", contract="pass", kernel_us=kernel,
                                                           launches=1.0, span_mean_us=kernel * 1.1))
        store.end_run(run, "complete")


def test_a_chart_of_twenty_series_draws_eight_and_hides_the_rest_with_their_step_markers(store):
    from mage.report.history_html import _figure

    store_cases(store, steps_in=6)  # 12 series with a step, 8 without
    series = history.load(store)
    assert len(series) == 20
    figure = _figure("layernorm", "triton/affine/ieee", series)
    lines = [trace for trace in figure.data if trace.mode == "lines+markers"]
    visible = [trace.name for trace in lines if trace.visible is True]
    # Those with a step first, kernel before span, then by case.
    assert visible == [f"c{c:02d} single/warm kernel" for c in range(6)] + ["c00 single/warm span",
                                                                              "c01 single/warm span"]
    assert all(trace.visible == "legendonly" for trace in lines if trace.visible is not True) and len(lines) == 20
    markers = [trace for trace in figure.data if trace.mode == "markers+text"]
    assert len(markers) == 12
    group_visible = {trace.legendgroup: trace.visible for trace in lines}
    assert len(group_visible) == 20  # one legend group per series
    assert all(marker.visible == group_visible[marker.legendgroup] for marker in markers)
    assert sum(marker.visible == "legendonly" for marker in markers) == 4  # c02–c05 span: hidden with their lines
    assert "8 of 20 lines shown" in figure.layout.title.text and "12 hidden" in figure.layout.title.text


def test_a_chart_of_few_series_draws_them_all_and_says_nothing_hidden(store):
    from mage.report.history_html import _figure

    store_cases(store, steps_in=0, cases=4)
    figure = _figure("layernorm", "triton/affine/ieee", history.load(store))
    assert [trace.visible for trace in figure.data] == [True] * 8
    assert figure.layout.title.text == "layernorm · triton/affine/ieee"


def test_the_history_page_says_what_else_changed_with_each_step(store):
    from mage.report.history_html import history_page

    machines = [on_gpu("GPU-1a2b3c4d-0000")] * 4 + [on_gpu("GPU-9f8e7d6c-0000")] * 4
    store_series(store, [100.0] * 4 + [125.0] * 4, machines=machines)
    page = history_page(history.load(store))
    assert "<td>with other changes: GPU 1a2b3c4d → 9f8e7d6c (the step may be them, not the code)</td>" in page
    assert "2 steps; 2 with another change: GPU." in page
    # The step marker's hover text, as plotly's JSON escapes it.
    assert "\\u003cbr\\u003ewith other changes: GPU 1a2b3c4d \\u2192 9f8e7d6c" in page


COMMITTED_STORE = os.path.join(os.path.dirname(__file__), "..", "results", "h200", "mage.db")


def test_the_committed_neighbor_agg_history_tells_code_only_steps_from_those_with_other_changes(tmp_path):
    """Its runs used many physical GPUs and method settings: cuSPARSE, whose code never changed, showed a
    +75.6 % regression as if the code had made it."""
    from mage.report import site

    shutil.copy(COMMITTED_STORE, tmp_path / "mage.db")  # opening a store may migrate it: never the committed file
    series = history.load(Store(tmp_path / "mage.db"), op="neighbor_agg", path="single")
    regressions = [st for s in series for st in s.steps if st.direction == "slower"]
    code_only = [st for st in regressions if st.code_only]
    with_other = [st for st in regressions if st.also_changed]
    assert regressions and with_other and len(code_only) < len(regressions)
    assert any(change.kind == "GPU" for st in with_other for change in st.also_changed)
    cusparse = [st for s in series if s.impl.startswith("cusparse") for st in s.steps if st.direction == "slower"]
    assert cusparse and not any(st.code_only for st in cusparse)
    page = site.op_page("neighbor_agg", series)
    assert f"regressions (▲ slower): {len(regressions)} ({len(with_other)} with another change: " in page
    assert f"code only: {len(code_only)}</h3>" in page
    assert f"with other changes, or at the same commit: {len(regressions) - len(code_only)}</h3>" in page
