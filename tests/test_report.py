"""Reports built from a stored run: HTML, findings, static figure and Markdown tables (CPU only).

The run is written through the Store API with GPU-like numbers, so every boundary, path, cache,
a contract failure, a skip and a failed launch path are present without a GPU.
"""

import json
import os
import re
import subprocess
import sys
from html import escape
from types import SimpleNamespace

import pytest

from mage.amdahl import Share
from mage.measure.ceilings import in_practice_us
from context_records import store_context_run
from mage.report import context, figures, findings, format, html, markdown, plots, tables
from mage.report.tables import export_rows
from mage.spec import Case
from mage.store import Result, Store

BASELINE = "eager"  # the family whose implementations this pretend run marks as the baseline
CEILINGS = {"copy_gbps": 4000.0, "matmul_ieee_tflops": 50.0, "matmul_tf32_tflops": 400.0}
ROUNDS = 3
# op → (case, flops, bytes, {family: (kernel µs, launches, host µs, single span round means)})
MEASURED = {
    "layernorm": ("1024x1024", 8.4e6, 8.4e6, "affine", {
        "eager": (5.20, 1, 30.0, (41.0, 42.0, 43.0)),
        "compile": (2.90, 1, 77.0, (98.0, 99.0, 100.0)),
    }),
    "matmul": ("256x256x256", 2 * 256**3, 3 * 256 * 256 * 4, "default", {
        "eager": (10.00, 1, 20.0, (29.0, 30.0, 31.0)),
        "compile": (10.20, 1, 21.0, (29.5, 30.5, 31.5)),  # within noise of eager at both boundaries
    }),
}
FAILED = {"layernorm": ("triton", "fail", "error 3.0e-03 above the ieee ceiling 1e-05", 3e-3)}
SKIPPED = {"layernorm": ("native", "skip", "the native extension is not built on this machine", None)}
GRAPH_FAILS = ("matmul", "compile",
               "graph path: RuntimeError: operation not permitted when stream is capturing")


def _impl(op: str, family: str, variant: str) -> SimpleNamespace:
    return SimpleNamespace(op=op, name=f"{family}/{variant}/ieee", backend=family, family=family, strategy="default",
                           variant=variant, precision="ieee", baseline=family == BASELINE)


def _span_result(path: str, cache: str, round_means: tuple, calls: int, **fields) -> tuple[Result, list]:
    samples = [(r, mean + offset) for r, mean in enumerate(round_means) for offset in (-0.5, 0.0, 0.5)]
    values = [v for _, v in samples]
    result = Result(path, cache, "pass", contract="pass", span_mean_us=sum(values) / len(values),
                    span_median_us=sorted(values)[len(values) // 2], span_round_min_us=min(round_means),
                    span_round_max_us=max(round_means), span_samples=len(samples), calls_per_sample=calls, **fields)
    return result, samples


def make_run(db_path, more=None) -> tuple[Store, int]:
    """A complete two-op run on a pretend H200, with one failure, one skip and one failed graph path;
    ``more(store, run_id)`` stores more results before the run ends."""
    store = Store(db_path)
    run_id = store.begin_run(clock="gpu", suite="seed", command="mage run --suite seed --cold",
                             env={"gpu": "NVIDIA H200", "torch": "2.11.0", "git_commit": "abc123",
                                  "gpu_state_start": {"sm_clock_mhz": 1980, "max_sm_clock_mhz": 1980,
                                                      "temperature_c": 40, "throttle_reasons": []}},
                             method={"kernel_calls": 100, "span_samples": 9, "rounds": ROUNDS, "batch": 10,
                                     "paths": ["single", "batch", "graph"], "caches": ["warm", "cold"]},
                             ceilings=CEILINGS)
    for op, (case_name, flops, nbytes, variant, impls) in MEASURED.items():
        case_id = store.case_id(run_id, Case(op, case_name, "seed", {}, seed=1))
        # Stored as before schema 10, without peaks: the floor was the time at the measured ceilings.
        work = {"flops": flops, "bytes": nbytes, "floor_us": in_practice_us(CEILINGS, flops, nbytes, "ieee")}
        for backend, (kernel, launches, host, means) in impls.items():
            impl = _impl(op, backend, variant)
            impl_id = store.impl_id(run_id, impl)
            for cache, slower in (("warm", 1.0), ("cold", 1.2)):
                for path, per_call in (("single", 1.0), ("batch", 0.7), ("graph", None)):
                    if (op, backend, path) == GRAPH_FAILS[:2] + ("graph",):
                        store.add_result(run_id, case_id, impl_id, Result(path, cache, "fail", GRAPH_FAILS[2],
                                                                          "pass", 1e-7, 1e-7, **work))
                        continue
                    scaled = tuple(kernel * slower * 1.1 + i * 0.05 for i in range(ROUNDS)) if per_call is None \
                        else tuple(m * per_call for m in means)
                    extra = {"kernel_us": kernel * slower, "launches": launches, "host_us": host} \
                        if path == "single" else {}
                    result, samples = _span_result(path, cache, scaled, 1 if path == "single" else 10,
                                                   rel_error=1e-7, eager_error=1e-7, **work, **extra)
                    store.add_result(run_id, case_id, impl_id, result, samples)
        for backend, status, reason, error in [t for t in (FAILED.get(op), SKIPPED.get(op)) if t]:
            impl = _impl(op, backend, variant)
            impl_id = store.impl_id(run_id, impl)
            for cache in ("warm", "cold"):
                for path in ("single", "batch", "graph"):
                    store.add_result(run_id, case_id, impl_id, Result(
                        path, cache, status, reason, "fail" if status == "fail" else None, error, 1e-7, **work))
    if more is not None:
        more(store, run_id)
    store.end_run(run_id, "complete", {"gpu_state_end": {"sm_clock_mhz": 1980, "temperature_c": 44,
                                                         "throttle_reasons": []}})
    return store, run_id


@pytest.fixture
def stored(tmp_path):
    store, run_id = make_run(tmp_path / "mage.db")
    return tmp_path, store.run(run_id), store.rows(run_id)


def test_html_report_contains_every_op_and_implementation(stored):
    _, run, rows = stored
    page = html.build(run, rows)
    for op in {r["op"] for r in rows}:
        assert f'id="boundaries-{op}"' in page and f'id="paths-{op}"' in page
    for impl in {r["impl"] for r in rows}:
        assert f"<td>{impl}</td>" in page  # its line in the contract table
    assert "plotly.js v" in page and plots.LAZY_DRAW in page  # plotly.js itself is inline, and what draws the figures
    assert page.count("Plotly.newPlot") == 1  # each figure drawn as it nears the viewport, none at load
    assert not re.search(r"<script[^>]+src=", page)  # nothing fetched: opens offline and from file://
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))  # a figure drawn into a heading of the same id would vanish


def test_a_figure_is_a_div_of_its_height_and_json_that_cannot_close_its_script():
    import plotly.graph_objects as go

    text = "</script><script>alert('drawn')</script>"
    emitted = plots.figure_html(go.Figure(go.Bar(x=[text], y=[1]), layout={"height": 333}), "answer")
    assert emitted.startswith('<div id="answer" class="plotly-graph-div" style="height:333px; width:100%;"></div>')
    assert emitted.count("</script>") == 1 and "Plotly" not in emitted  # data that does not run
    spec = json.loads(re.fullmatch(r'.*<script type="application/json" data-figure="answer">(.*)</script>', emitted,
                                   re.S)[1])
    assert spec["data"][0]["x"] == [text] and spec["layout"]["height"] == 333 and spec["config"] == plots.PLOT_CONFIG
    unsized = plots.figure_html(go.Figure(), "unsized")  # plotly.js's own height, reserved all the same
    assert f'style="height:{plots.DEFAULT_FIGURE_HEIGHT}px;' in unsized


def test_failures_are_impossible_to_miss(stored):
    _, run, rows = stored
    page = html.build(run, rows)
    banner = page.index('class="banner fail"')
    assert banner < page.index('id="findings"')  # above everything else
    assert re.search(r'<tr class="fail"><td>layernorm</td><td>1024x1024</td><td>triton/affine/ieee</td>.*?'
                     r"error 3\.0e-03 above the ieee ceiling", page)
    assert re.search(r'<tr class="skip"><td>layernorm</td>.*?native/affine/ieee.*?not built', page)
    assert re.search(r'<tr class="fail">.*?compile/default/ieee.*?operation not permitted.*?graph/warm', page)
    assert "FAIL" in markdown.tables(run, rows)


def given(fraction: float, rows) -> dict[str, list[Share]]:
    """A fraction of a request for every op of ``rows``, as the reader's --fraction gives it."""
    return {r["op"]: [Share(fraction, "a request", False)] for r in rows}


def test_findings_cite_numbers_and_respect_noise(stored):
    _, run, rows = stored
    text = findings.as_text(findings.findings(run, rows, given(0.2, rows)))
    # The order changes: a shorter kernel with a longer span, explained by host time, not called a faster kernel.
    assert ("The order changes between kernel time and call span: compile has the shorter kernel "
            "(2.90 vs 5.20 µs) but eager the shorter span (42.00 vs 99.00 µs)") in text
    assert "a cheaper call, not a faster kernel" in text
    assert "Kernel time: compile 2.90 µs in 1 launch < eager 5.20 µs in 1 launch (1.79×)" in text
    # Within noise: 2% of kernel time and overlapping round-mean ranges are not a difference.
    assert "Kernel time: eager 10.00 µs in 1 launch ≈ compile 10.20 µs in 1 launch." in text
    assert "≈ compile 30.50 µs [29.50–31.50]" in text
    assert "No kernel is shorter than eager's (10.00 µs) beyond the 3% threshold" in text
    # Amdahl at the stated fraction, with the span caveat.
    assert ("compile's kernel is 1.79× shorter than eager's (2.90 vs 5.20 µs); at 20% of a request (a fraction "
            "given, not measured) it would make that 1.10× faster") in text
    assert "does not get this speedup" in text
    assert "triton FAILED its contract (error 3.0e-03): error 3.0e-03 above the ieee ceiling 1e-05." in text
    assert "compile FAILED, its contract passed: graph path: RuntimeError" in text
    # Stored before hardware floors: the floor of its own measured rates, said to be another measure.
    assert "Kernel time as a fraction of the floor from the rates measured in this run (stored before" in text


def test_fraction_changes_amdahl(stored):
    _, run, rows = stored
    text = findings.as_text(findings.findings(run, rows, given(0.5, rows)))
    assert "at 50% of a request" in text and "1.28×" in text  # 1 / (0.5 + 0.5 / 1.793)


def test_amdahl_needs_a_share_and_takes_a_measured_one_from_a_model_block(stored):
    _, run, rows = stored
    assert "Amdahl" not in findings.as_text(findings.findings(run, rows))  # no share: no assumed fraction
    block = {"layernorm": [Share(0.4, "the eager mlp/gpt2-small block at tf32", True, "tf32"),
                           Share(0.3, "the eager trimul/outgoing-384 block at ieee", True, "ieee")]}
    text = findings.as_text(findings.findings(run, rows, block))
    # The largest share at the best kernel's precision; 1 / (0.7 + 0.3 / 1.793) = 1.15.
    assert ("layernorm is 30% of the kernel time of the eager trimul/outgoing-384 block at ieee (measured inside "
            "the block), so that speedup, if it held at the block's shapes, would make the block 1.15× faster") in text


@pytest.mark.parametrize("a, b, same", [
    ((10.0, 9.0, 11.0), (10.5, 10.8, 12.0), True),    # ranges overlap
    ((10.0, 9.9, 10.1), (12.0, 11.9, 12.1), False),   # apart, difference beyond both spreads
    ((10.0, 8.0, 10.5), (11.5, 11.0, 12.0), True),    # apart, but the difference is within the larger spread
])
def test_span_noise_rule(a, b, same):
    row = lambda mean, low, high: {"span_mean_us": mean, "span_round_min_us": low, "span_round_max_us": high}  # noqa
    assert findings.same_span(row(*a), row(*b)) is same


def test_static_figure_and_tables_show_the_same_numbers(stored):
    tmp_path, run, rows = stored
    paths = figures.draw(run, rows, tmp_path)
    assert paths[0].read_bytes().startswith(b"\x89PNG") and b"<svg" in paths[1].read_bytes()[:400]
    text = markdown.tables(run, rows)
    kernel_table = text.split("### Kernel time")[1].split("###")[0]
    span_table = text.split("### Call span")[1].split("###")[0]
    for op, case, column in figures.columns(rows, figures.figure_cache(rows)):
        for row in column:
            assert f"| {op} {case} {row['impl'].split('/', 1)[1]} |" in kernel_table
            assert findings.us(row["kernel_us"]) in kernel_table
            assert findings.us(row["span_mean_us"]) in span_table


def test_report_and_show_commands(stored):
    tmp_path, run, _ = stored
    command = [sys.executable, "-c", "from mage.cli import main; main()"]
    env = os.environ | {"COLUMNS": "200"}
    made = subprocess.run([*command, "report", str(run["id"]), "--db", "mage.db", "--fraction", "0.3"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    assert made.returncode == 0, made.stderr
    out = tmp_path / "reports" / f"run-{run['id']}"
    assert sorted(p.name for p in out.iterdir()) == ["figure.png", "figure.svg", "report.html", "tables.md"]
    assert "at 30% of a request (a fraction given, not measured)" in (out / "report.html").read_text()
    shown = subprocess.run([*command, "show", str(run["id"]), "--db", "mage.db"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    assert shown.returncode == 0 and "The order changes between kernel time and call span" in shown.stdout
    refused = subprocess.run([*command, "report", "--db", "mage.db", "--fraction", "2"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    assert refused.returncode == 2 and "fraction must be between 0 and 1" in refused.stderr


def test_a_run_with_predictions_shows_them_with_their_outcomes(tmp_path):
    store, run_id = make_run(tmp_path / "mage.db")
    predictions = {
        "layernorm/compile:kernel<4": "held",  # 2.90 µs
        "layernorm/eager:kernel<4": "failed",  # 5.20 µs
        "matmul/compile:kernel<10.1": "unclear",  # 10.20 µs, within 3 % of the bound
        "layernorm/triton:kernel<4": "no data",  # it failed its contract
    }
    store.set_experiment(run_id, "compiling layernorm shortens its kernel", list(predictions))
    page = html.build(store.run(run_id), store.rows(run_id), store=store)
    section = page.split('<h2 id="experiment">')[1].split("<h2 ")[0]
    assert "compiling layernorm shortens its kernel" in section and 'href="#experiment"' in page
    for prediction, outcome in predictions.items():
        assert re.search(rf"<code>{re.escape(escape(prediction))}</code></td><td>.*?</td>"
                         rf'<td class="{outcome.replace(" ", "")}">{outcome}</td>', section), prediction
    assert "compile/affine/ieee @1024x1024: 2.90 µs → held" in section
    assert "1 held, 1 failed, 1 unclear, 1 no data" in section
    # A run that states neither has no such section.
    other, other_id = make_run(tmp_path / "other.db")
    assert 'id="experiment"' not in html.build(other.run(other_id), other.rows(other_id), store=other)


def test_a_store_with_two_runs_shows_a_history_chart_per_implementation(tmp_path):
    store, first = make_run(tmp_path / "mage.db")
    alone = html.build(store.run(first), store.rows(first), store=store)
    assert "no history yet" in alone and 'id="history-1"' not in alone
    _, second = make_run(tmp_path / "mage.db")
    page = html.build(store.run(second), store.rows(second), store=store)
    section = page.split('<h2 id="history">')[1].split("<h2 ")[0]
    measured = sorted({(r["op"], r["impl"]) for r in store.rows(second) if r["status"] == "pass"})
    charts = re.findall(r'id="history-(\d+)"', section)
    assert len(charts) == len(measured) == 4  # layernorm and matmul, eager and compile
    for op, impl in measured:  # the chart titles, as plotly's JSON escapes them
        assert f'"text":"{op} · {impl}"'.replace("·", "\\u00b7").replace("/", "\\u002f") in section
    assert f'<tr><td class="num">{first}</td>' in section  # the runs, this one in bold
    assert f'<tr class="this"><td class="num">{second}</td>' in section
    assert page.count("plotly.js v") == 1 and not re.search(r"<script[^>]+src=", page)
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))
    assert page == html.build(store.run(second), store.rows(second), store=store)  # deterministic


def test_a_suspect_result_is_never_the_fastest_without_saying_so(stored):
    _, run, rows = stored
    for row in rows:  # the shortest layernorm kernel, flagged as not believable
        if row["impl"] == "compile/affine/ieee" and row["status"] == "pass":
            row["suspect"] = "kernel time 2.9 µs is below its roofline floor 4 µs"
    text = findings.as_text(findings.findings(run, rows))
    assert "Kernel time: compile (suspect) 2.90 µs in 1 launch < eager 5.20 µs" in text
    assert "compile's time is SUSPECT, not to be trusted" in text
    assert "1 implementation·case pair passed with a SUSPECT time" in text
    layernorm = text.split("layernorm · 1024x1024")[1].split("matmul · ")[0]
    for sentence in layernorm.splitlines():
        if "fastest" in sentence or "compile" in sentence:
            assert "suspect" in sentence.lower(), sentence
    assert "compile's 1.79× shorter kernel" not in text  # no Amdahl speedup from a suspect time
    page = html.build(run, rows)
    assert re.search(r'<tr class="fail"><td>layernorm</td><td>1024x1024</td><td>compile/affine/ieee</td>'
                     r"<td>ieee</td><td>SUSPECT</td>", page)
    assert "compile (SUSPECT)" in page  # the figures' legend


def test_host_times_differ_only_beyond_the_noise_and_outside_each_others_range():
    from mage.report.findings import same_host

    def host(median, low=None, high=None):
        return {"host_us": median, "host_min_us": low, "host_max_us": high}

    assert same_host(host(20.0), host(21.5))  # within 10 %, no ranges stored (runs before schema 4)
    assert not same_host(host(20.0), host(30.0))
    assert same_host(host(20.0, 18.0, 27.0), host(30.0, 26.0, 33.0))  # ranges overlap: not a measured difference
    assert not same_host(host(20.0, 19.0, 21.0), host(30.0, 29.0, 31.0))


def test_a_fraction_of_the_floor_is_of_the_hardware_floor_in_every_view(stored):
    """One definition of "% of floor": a result stored before hardware floors has none, in the export, the floor
    figure and the answer; its own floor stays in the results table, labelled as the measured rates'."""
    _, run, rows = stored
    old = next(r for r in rows if r["op"] == "layernorm" and r["impl"].startswith("compile") and r["kernel_us"])
    assert old["floor_us"] and format.floor_fraction(old) is None
    assert {r["floor_fraction"] for r in export_rows(rows)} == {None}
    assert html.floor_figure(rows).data[0].x == ()
    assert tables._floor_cell(old).endswith("(measured rates)")
    modern = old | {"memory_floor_us": 3.0, "compute_floor_us": 1.0, "floor_us": 3.0}
    assert format.floor_fraction(modern) == pytest.approx(3.0 / old["kernel_us"])
    assert format.floor_fraction(modern, "span_mean_us") == pytest.approx(3.0 / old["span_mean_us"])
    assert [r["floor_fraction"] for r in export_rows([modern])] == [pytest.approx(3.0 / old["kernel_us"])]


def test_amdahl_is_applied_at_the_newest_eager_share_of_each_block(tmp_path):
    store, run_id = make_run(tmp_path / "mage.db")
    assert context.op_shares(store) == {}
    assert "Amdahl" not in html.build(store.run(run_id), store.rows(run_id), store=store)
    store_context_run(store, scale=2.0)
    store_context_run(store)
    mlp = Share(48.0 / 1150.0, "the eager mlp/gpt2-small block at ieee", True, "ieee")
    assert context.op_shares(store)["layernorm"] == [pytest.approx(mlp)]
    page = html.build(store.run(run_id), store.rows(run_id), store=store)
    assert "layernorm is 4% of the kernel time of the eager mlp/gpt2-small block at ieee (measured inside" in page
    assert context.amdahl_shares(store, 0.3)["layernorm"] == [Share(0.3, "a request", False)]
