"""The lab notebook (mage site): every run, experiment and op of a store as a static offline site.

Built in a temporary folder from a small store (two op runs, one with predictions, and a context run),
and from the committed H200 store (results/h200/mage.db: the site is built from it, not committed).
Every page must load in headless Chromium with no console error, every relative
link must resolve, and a view button must change the values plotted. The Chromium tests are skipped
only where Chromium is not installed (Debian: apt-get install -y chromium).
"""

import dataclasses
import datetime
import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from filelock import FileLock

from context_records import ENV, METHOD, store_context_run
from mage.registry import Implementation
from mage import studies
from mage.report import site, study_pages
from mage.spec import Case
from mage.store import Result
from test_report import make_run
from mage.report.plots import LAZY_DRAW
from test_report_browser import CHROMIUM, HEIGHT, WIDTH, DevTools, _click_and_read, _plotted

COMMITTED_STORE = Path(__file__).resolve().parents[1] / "results" / "h200" / "mage.db"
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")


def _small_store(path):
    store, first = make_run(path)
    make_run(path)  # a second run of the same results: a history to draw
    store.set_experiment(first, "compile has the shorter kernel", ["layernorm/compile:kernel<4",
                                                                   "layernorm/eager:kernel<4"])
    store_context_run(store)
    _store_precision_run(store)
    return store


# The 8192³ matmul at three precisions, warm (implementation: kernel µs, error against float64): tf32 is
# faster than ieee, so a page that ranked across precisions would not show ieee's fastest at 1.00×.
PRECISION_ROWS = {("eager", "ieee"): (21_500.0, 1.6e-6), ("eager", "tf32"): (3_000.0, 2.9e-4),
                  ("triton", "tf32"): (3_400.0, 7.9e-4), ("eager", "bf16"): (1_600.0, 1.7e-3)}


def _store_precision_run(store) -> int:
    run = store.begin_run(clock="gpu", suite="large", command="mage run", env=ENV, method=METHOD, ceilings={})
    case_id = store.case_id(run, Case("matmul", "8192x8192x8192", "large", {"m": 8192, "n": 8192, "k": 8192}, 7))
    for (family, precision), (kernel_us, error) in PRECISION_ROWS.items():
        impl_id = store.impl_id(run, Implementation("matmul", family, "default", precision, fn=None))
        store.add_result(run, case_id, impl_id, Result(
            "single", "warm", "pass", contract="pass", rel_error=error, kernel_us=kernel_us, launches=1.0,
            span_mean_us=kernel_us, span_median_us=kernel_us, span_round_min_us=kernel_us,
            span_round_max_us=kernel_us, span_samples=6), [(0, kernel_us)])
    store.end_run(run, "complete", {})
    return run


@pytest.fixture(scope="session")
def committed_site(tmp_path_factory):
    """The site of the committed store, built once for every test worker (xdist workers share the folder
    above their own temporary ones; the first to take the lock builds it)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    out = shared / "committed-site"
    with FileLock(str(shared / "committed-site.lock")):
        if not (out / "index.html").is_file():
            db = shared / "committed.db"
            shutil.copy(COMMITTED_STORE, db)  # opening a store may migrate it: never the committed file
            made = subprocess.run([sys.executable, "-m", "mage", "site", "--db", str(db), "--out", str(out)],
                                  capture_output=True, text=True, timeout=900)
            assert made.returncode == 0, made.stderr
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("site")
    store = _small_store(folder / "mage.db")
    site.build(store, folder / "site")
    return store, folder / "site"


def _pages(root: Path) -> list[Path]:
    return sorted(root.rglob("*.html"))


def _links(page: Path) -> list[str]:
    return re.findall(r'(?:href|src)="([^"]+)"', page.read_text(encoding="utf-8"))


def _unresolved(root: Path) -> list[str]:
    """Every relative link of every page that names no file, or an anchor no element of its page has."""
    missing = []
    for page in _pages(root):
        for link in _links(page):
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//"):
                missing.append(f"{page.relative_to(root)}: {link} leaves the site")
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.is_file():
                missing.append(f"{page.relative_to(root)}: {link}")
            elif parts.fragment and target.suffix == ".html" and \
                    f'id="{parts.fragment}"' not in target.read_text(encoding="utf-8"):
                missing.append(f"{page.relative_to(root)}: {link} (no such anchor)")
    return missing


def test_the_site_holds_every_run_op_and_experiment(built):
    store, root = built
    runs = [run["id"] for run in store.runs()]
    index = (root / "index.html").read_text(encoding="utf-8")
    for run_id in runs:
        assert f'href="runs/run-{run_id}/index.html"' in index
        assert (root / f"runs/run-{run_id}/index.html").is_file()
    assert "compile has the shorter kernel" in index and "1 held, 1 failed" in index  # the verdicts
    # The plots are the page's own (interactive); a static copy would only double the committed site.
    assert not list(root.glob("runs/*/figure.svg")) and not list(root.glob("runs/*/context.svg"))
    run_page = (root / "runs/run-1/index.html").read_text(encoding="utf-8")
    assert '<script type="application/json" data-figure="boundaries-layernorm">{' in run_page and LAZY_DRAW in run_page
    assert 'id="blocks"' in (root / "runs/run-3/index.html").read_text(encoding="utf-8")  # the context section
    for op in ("layernorm", "matmul"):
        assert f'href="ops/{op}.html"' in index and (root / f"ops/{op}.html").is_file()
    history = (root / "ops/layernorm.html").read_text(encoding="utf-8")
    assert "improvements (▼ faster)" in history and "regressions (▲ slower)" in history


def test_every_study_has_a_page_the_index_links_and_it_states_its_question(built):
    _, root = built
    index = (root / "index.html").read_text(encoding="utf-8")
    assert index.index('id="best"') < index.index('id="studies"') < index.index('id="runs"')
    for study in studies.every():
        assert f'href="studies/{study.name}.html"' in index
        page = (root / f"studies/{study.name}.html").read_text(encoding="utf-8")
        assert html.escape(" ".join(study.question.split())) in page and f"mage study {study.name}" in page
        if study.hypothesis:  # a hypothesis is shown as stated before its run, never as a finding
            assert "Stated before the run that will test it: a claim, not a finding." in page


def test_a_study_page_says_what_the_runs_showed_before_what_was_measured(built):
    _, root = built
    for study in studies.every():
        page = (root / f"studies/{study.name}.html").read_text(encoding="utf-8")
        assert page.index(html.escape(" ".join(study.question.split()))) < page.index("<h2>What the runs showed</h2>") \
            < page.index(html.escape(" ".join(study.conclusion.split()))) < page.index("<h2>What was measured</h2>")
    # When it was written, and which of the page's runs came after it.
    study = studies.load("lower-precision")
    note = f"Written on {study.concluded} from the runs of this study stored by then."
    # The small store's runs start today: after a conclusion of an earlier day, the note goes on to say so (below).
    assert f'<p class="note">{note}' in (root / "studies/lower-precision.html").read_text(encoding="utf-8")
    runs = [run for run in built[0].runs() if run["suite"] == "large"]
    earlier = dataclasses.replace(study, concluded=datetime.date(2026, 1, 1))
    assert ("Written on 2026-01-01 from the runs of this study stored by then. 1 of the runs listed below started "
            "after it, so it may not hold for it.") in study_pages.study_body(built[0], earlier, runs, {}, run_href=str)


def test_a_study_without_a_conclusion_says_so_and_a_conclusion_is_escaped():
    study = studies.load("wide-rows")
    body = study_pages.study_body(None, dataclasses.replace(study, conclusion=None), [], {}, run_href=str)
    assert "<h2>What the runs showed</h2><p>No conclusion written yet: the measurements below are all there is.</p>" \
        in body
    body = study_pages.study_body(None, dataclasses.replace(study, conclusion="x < y & z"), [], {}, run_href=str)
    assert "<p>x &lt; y &amp; z</p>" in body


def test_a_study_across_precisions_reads_each_time_within_its_precision_and_says_what_each_buys(built):
    _, root = built
    page = (root / "studies/lower-precision.html").read_text(encoding="utf-8")
    assert "<th>precision</th>" in page and "What each precision buys" in page
    # ieee's fastest is 1.00× beside a faster tf32: a ratio is taken within a precision only.
    assert "21,500.0 µs<br>1.00×<br>error 1.6e-06" in page and "3,400.0 µs<br>1.13×<br>error 7.9e-04" in page
    # tf32 against ieee's fastest: 0.14× the time at 181× the error, named as a change of precision.
    assert '<td class="num">0.14×</td><td class="num">2.9e-04</td><td class="num">181×</td>' in page
    assert "The precision changed" in page
    assert 'href="../runs/run-4/index.html"' in page


def test_a_study_of_model_blocks_sets_measured_beside_predicted_and_names_what_beat_the_best(built):
    _, root = built
    page = html.unescape((root / "studies/model-context.html").read_text(encoding="utf-8"))
    for header in ("best per-op assignment", "measured", "Amdahl predicted", "fastest measured (kind)"):
        assert f"<th>{header}</th>" in page
    # The MLP at ieee, single path (eager 1,210 µs): the best per-op assignment 1.14×, Amdahl 1.15×, and
    # compiling the whole block (905 µs) the fastest.
    assert ('<td>layernorm=native,bias_gelu=triton</td><td class="num">1.14×</td><td class="num">1.15×</td>'
            '<td>compile.default(torch) (compile)</td><td class="num">1.34×</td>') in page
    assert "Faster than the assignment marked best:" in page
    assert ("mlp/gpt2-small (ieee), single path: compiling the whole block, compile.default(torch), takes 905.0 µs, "
            "faster than the best per-op assignment (layernorm=native,bias_gelu=triton, 1,057.0 µs)") in page
    assert "mlp/gpt2-small (ieee), graph path: its fused implementation, fused(triton), takes 880.0 µs" in page
    assert "gnn/powerlaw</td><td>tf32" in page  # the layer's latest run, though it has no row marked best
    assert 'href="../runs/run-3/index.html">run 3</a>' in page


def test_the_front_pages_answer_is_mage_bests_on_the_seed_and_large_cases(committed_site):
    from mage import best
    from mage.store import Store

    index = (committed_site / "index.html").read_text(encoding="utf-8")
    table = index[index.index('id="best"'):index.index('id="studies"')]
    answer_cases = site._answer_cases()
    store = Store(COMMITTED_STORE, read_only=True)
    try:
        expected = [a for a in best.latest(store) if a.boundary == "kernel" and (a.op, a.case) in answer_cases]
    finally:
        store.close()
    # With runs of several device models, each case names its device after its cache.
    rows = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*?) · [a-z]+ L2(?: · [^<]*)?</td><td>([^<]*)<br>", table)
    assert len(rows) == len(expected) > 5
    for answer in expected:
        assert (f"{answer.op} {answer.variant} {answer.precision}", answer.case, answer.fastest.impl.split("/")[0]) in rows


def test_no_page_speaks_of_work_items_or_sessions(committed_site):
    words = re.compile(r"\bissue\s*#?\d+|#\d{2}\b|\bsessions?[- ]\d+", re.I)
    for page in _pages(committed_site):
        text = re.sub(r"<script>.*?</script>", "", page.read_text(encoding="utf-8"), flags=re.S)
        assert not words.search(text), f"{page.relative_to(committed_site)}: {words.search(text)[0]}"


def _unlinked_run_numbers(page: Path, root: Path) -> list[str]:
    """The run numbers a page's text names outside a link to the run: a run page naming itself and a command
    quoted as it was typed (<code>) aside."""
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"<script\b.*?</script>|<title>.*?</title>|<a\b[^>]*>.*?</a>|<code>.*?</code>", "", text, flags=re.S)
    if (own := re.fullmatch(r"runs/run-(\d+)/index.html", page.relative_to(root).as_posix())) is not None:
        text = re.sub(rf"\b[Rr]un {own[1]}\b", "", text)
    return re.findall(r"\b[Rr]uns? \d+", text)


def test_a_run_number_on_a_page_is_a_link_to_the_run(built, committed_site):
    for root in (built[1], committed_site):
        found = {str(page.relative_to(root)): named for page in _pages(root)
                 if (named := _unlinked_run_numbers(page, root))}
        assert found == {}


def test_one_copy_of_plotly_for_the_whole_site(built):
    _, root = built
    assert (root / site.PLOTLY).read_text(encoding="utf-8").startswith("/**")
    for page in _pages(root):
        text = page.read_text(encoding="utf-8")
        assert "plotly.js v" not in text, f"{page} carries its own plotly.js"
        depth = len(page.relative_to(root).parts) - 1
        if "data-figure=" in text:  # figures, drawn by the one script as they near the viewport
            assert f'<script src="{"../" * depth}{site.PLOTLY}"></script><script>{LAZY_DRAW}</script>' in text
            assert text.count("Plotly.newPlot") == 1, f"{page} draws a figure outside the script that draws them"


def test_every_relative_link_resolves(built):
    _, root = built
    assert _unresolved(root) == []


def test_the_same_store_gives_a_byte_identical_site(built, tmp_path):
    store, root = built
    site.build(store, tmp_path / "again")
    first = {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    again = {p.relative_to(tmp_path / "again"): p.read_bytes() for p in (tmp_path / "again").rglob("*") if p.is_file()}
    assert first.keys() == again.keys()
    assert [name for name in first if first[name] != again[name]] == []


def test_the_site_command_refuses_a_missing_or_empty_store(tmp_path):
    command = [sys.executable, "-m", "mage", "site", "--out", str(tmp_path / "out")]
    missing = subprocess.run([*command, "--db", str(tmp_path / "none.db")], capture_output=True, text=True,
                             timeout=120)
    assert missing.returncode == 2 and "no store at" in missing.stderr and "Traceback" not in missing.stderr
    from mage.store import Store

    Store(tmp_path / "empty.db").close()
    empty = subprocess.run([*command, "--db", str(tmp_path / "empty.db")], capture_output=True, text=True,
                           timeout=120)
    assert empty.returncode == 2 and "holds no run" in empty.stderr


def test_the_committed_stores_site_links_resolve(committed_site):
    assert _unresolved(committed_site) == []


# In Chromium


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    devtools = DevTools(tmp_path_factory.mktemp("profile"))
    try:
        for domain in ("Runtime", "Log", "Page", "Network"):
            devtools.call(f"{domain}.enable")
        devtools.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT, deviceScaleFactor=1, mobile=False)
        yield devtools
    finally:
        devtools.close()


def _errors(events: list) -> list:
    return [e for e in events if e.get("method") == "Runtime.exceptionThrown"
            or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] in ("error", "assert"))
            or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")]


def _load(browser, page: Path) -> list:
    """Open ``page``; the errors it logged and the URLs it fetched outside the site's files."""
    browser.events.clear()
    browser.call("Page.navigate", url=page.as_uri())
    browser.wait_for_event("Page.loadEventFired")
    browser.draw_every_figure()
    fetched = [e["params"]["request"]["url"] for e in browser.events if e.get("method") == "Network.requestWillBeSent"]
    return _errors(browser.events) + [url for url in fetched if not url.startswith(("file:", "data:"))]


@needs_chromium
def test_every_page_of_a_built_site_loads_without_error(built, browser):
    _, root = built
    problems = {str(page.relative_to(root)): found for page in _pages(root) if (found := _load(browser, page))}
    assert problems == {}
    assert browser.evaluate("typeof Plotly") == "object"  # plotly.js came from the shared copy


@needs_chromium
def test_the_view_buttons_of_a_site_page_change_the_plotted_values(built, browser):
    store, root = built
    assert _load(browser, root / "runs/run-1/index.html") == []
    kernel = _plotted(browser, "boundaries-layernorm")
    span = _click_and_read(browser, "boundaries-layernorm", "call span", kernel)
    assert span != kernel
    single = [r for r in store.rows(1) if r["op"] == "layernorm" and r["path"] == "single" and r["status"] == "pass"]
    assert sorted(v for trace in span for v in trace if v is not None) == sorted(
        round(r["span_mean_us"], 6) for r in single)


def _page_kinds(root: Path) -> list[Path]:
    """The index, every op page, and the newest run page of each kind: the newest run, the newest with model
    blocks and the newest with an experiment (the sections the site's code writes only for some runs)."""
    runs = sorted((page for page in _pages(root) if page.parts[-3:-2] == ("runs",)),
                  key=lambda page: int(page.parent.name.rpartition("-")[2]))
    kinds = {runs[-1], *(next(page for page in reversed(runs) if f'id="{section}' in page.read_text(encoding="utf-8"))
                         for section in ("blocks", "experiment"))}
    return [page for page in _pages(root) if "runs" not in page.relative_to(root).parts] + sorted(kinds)


@needs_chromium
@pytest.mark.parametrize("every_run", [pytest.param(True, marks=pytest.mark.slow), False],
                         ids=["every page", "a page of each kind"])
def test_the_pages_of_the_committed_stores_site_load_without_error(committed_site, browser, every_run):
    """Every page in the slow tier; in the fast one, a page of each kind (every run's page is one kind)."""
    pages = _pages(committed_site) if every_run else _page_kinds(committed_site)
    problems = {str(page.relative_to(committed_site)): found for page in pages if (found := _load(browser, page))}
    assert problems == {}


def test_names_that_would_share_a_page_get_one_each():
    digest_of_a_slash_b = site.op_file("a/b").removesuffix(".html")[-8:]
    # a safe name spelled like another name's page (a-b-<its digest>) once overwrote that page
    names = ["a/b", "a-b", "a b", "layernorm", "mlp/gpt2-small", "..", ".", f"a-b-{digest_of_a_slash_b}"]
    files = [site.op_file(name) for name in names]
    assert len(set(files)) == len(names)
    assert site.op_file("layernorm") == "layernorm.html"  # a safe name is its own page
    assert all("/" not in name and not name.startswith(".") for name in files)


@pytest.mark.parametrize("linked", ["runs", "ops"])
def test_a_symlink_inside_the_folder_that_leads_outside_is_refused(tmp_path, linked):
    from mage.errors import MageError
    from mage.store import Store

    _small_store(tmp_path / "mage.db")
    out, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / linked).symlink_to(elsewhere)
    with pytest.raises(MageError, match=f"{linked}.* leads outside .*site"):
        site.build(Store(tmp_path / "mage.db", read_only=True), out)
    assert list(elsewhere.iterdir()) == []


@needs_chromium
def test_the_front_pages_filter_shows_only_the_runs_it_matches(built, browser):
    store, root = built
    assert not _load(browser, root / "index.html")
    visible = "[...document.querySelectorAll('table.runs tbody tr')].filter(row => !row.hidden).length"

    def filter_by(text: str) -> int:
        browser.evaluate(f"(box => {{ box.value = {text!r}; box.dispatchEvent(new Event('input')); }})"
                         "(document.getElementById('run-filter'))")
        return browser.evaluate(visible)

    assert browser.evaluate(visible) == len(store.runs())
    assert filter_by("CONTEXT") == sum(run["suite"] == "context" for run in store.runs()) == 1
    assert filter_by("") == len(store.runs())


def test_a_run_across_precisions_draws_accuracy_against_speed_in_its_page(built):
    store, root = built
    [run] = [run for run in store.runs() if run["suite"] == "large"]
    page = (root / f"runs/run-{run['id']}/index.html").read_text(encoding="utf-8")
    spec = re.search(r'<script type="application/json" data-figure="accuracy-0">(.*?)</script>', page, re.S)
    figure = json.loads(spec[1])
    assert {trace["name"] for trace in figure["data"]} == {f"{family}/default/{precision}"
                                                           for family, precision in PRECISION_ROWS}
    assert {trace["x"][0] for trace in figure["data"]} == {kernel for kernel, _ in PRECISION_ROWS.values()}
    assert figure["layout"]["xaxis"]["type"] == figure["layout"]["yaxis"]["type"] == "log"
    assert figure["layout"]["template"]["layout"]["plot_bgcolor"] == "white"  # the report's template, set once
    assert not list(root.rglob("*.svg"))  # the page draws it: no static copy to build
