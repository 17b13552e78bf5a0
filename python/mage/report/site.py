"""The lab notebook: a static, offline site over every run of a store (``mage site --out DIR``).

    DIR/index.html               the best measured (mage best), the studies, the runs newest first (empty
                                 ones folded), their experiments, the ops with their steps, the machines and
                                 methods they ran with
    DIR/studies/NAME.html        a study (mage.studies): its question, its runs with the hypotheses stated
                                 before each and their verdicts, the latest kernel times of its cases
    DIR/plotly.min.js            the one copy of plotly.js every page loads, by a relative path
    DIR/runs/run-N/index.html    run N's report (mage.report.html), model blocks included; its plots are
                                 interactive and each saves itself as an image, so the site keeps no static
                                 copy of them (`mage report N` writes those)
    DIR/runs/run-N/tables.md     its tables in Markdown
    DIR/ops/OP.html              every stored result of the op over the runs, the steps found
                                 (mage.history): improvements and regressions side by side

The output is a function of the store alone (no dates, no random ids, everything in the store's order), so
the same store gives a byte-identical site and a committed one can be checked by rebuilding it.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from mage import atomic, best, history, registry, studies
from mage.errors import MageError
from mage.experiments import evaluate_run
from mage.report import answer, context, html, markdown, study_pages
from mage.report.format import commit_label, first_sentence
from mage.report.history_html import MAX_SHOWN, history_section
from mage.report.plots import plotly_scripts

PLOTLY = "plotly.min.js"
# What tells one machine and software stack from another, in the index's table of environments.
ENVIRONMENT_KEYS = ("gpu", "host_cpu", "driver", "cuda", "torch", "triton", "python", "mage")
METHOD_KEYS = ("kernel_calls", "rounds", "noise_target", "min_samples", "budget_s", "batch", "span_samples")


def _page(title: str, body: str, depth: int, plots: bool) -> str:
    """A page of the site ``depth`` folders below its root: the shared style, and where it ``plots``, plotly.js by
    a relative path and the script that draws its figures."""
    root = "../" * depth
    script = plotly_scripts(f"{root}{PLOTLY}") if plots else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{html.STYLE}</style>
{script}</head>
<body>
<nav><a href="{root}index.html">all runs</a></nav>
<h1>{html.escape(title)}</h1>
{body}
</body></html>
"""


def op_file(op: str) -> str:
    """The history page of ``op``: its name where that is a safe file name, else the name made safe and a
    short digest of it after a '~', which no safe name holds, so that two names (a/b and a-b, or a-b-<digest of
    a/b>) never share a page."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", op).strip(".") or "op"
    if safe != op:
        safe += "~" + hashlib.sha256(op.encode()).hexdigest()[:8]
    return safe + ".html"


def _within(out: Path, path: Path) -> Path:
    """``path``, refused if it leads out of the site's folder ``out`` (a symlink inside it pointing elsewhere):
    the site writes only into the folder it was given."""
    if not path.resolve().is_relative_to(out.resolve()):
        raise atomic.OutputError(f"{path} leads outside {out} (to {path.resolve()}); the site is written only inside "
                          f"{out}: remove the link or give another folder")
    return path


def run_folder(run_id: int) -> str:
    return f"runs/run-{run_id}"


def _front_page_run(run_id: int) -> str:
    return f"{run_folder(run_id)}/index.html"


def _verdicts(store, run: dict) -> str:
    """'2 held, 1 failed' for the run's predictions; '' when it states none."""
    try:
        _, evaluations = evaluate_run(store, run["id"])
    except MageError:  # a stored prediction this version cannot read; its run page says why
        return "cannot be judged"
    counts = {o: sum(e.outcome == o for e in evaluations) for o in ("held", "failed", "unclear", "no data")}
    return ", ".join(f"{n} {o}" for o, n in counts.items() if n)


def _runs_table(runs: list[dict]) -> str:
    body = []
    for run in runs:
        env = run["env"]
        results = str(run["result_count"]) + (f" + {run['block_count']} block" if run.get("block_count") else "")
        body.append(
            f'<tr><td><a href="{run_folder(run["id"])}/index.html">run {run["id"]}</a></td>'
            f"<td>{html.escape(run['started_at'])}</td><td>{html.escape(run['status'])}</td><td>{html.escape(run['clock'])}</td>"
            f"<td>{html.escape(run['suite'])}</td><td>{html.escape(env.get('gpu') or env.get('host_cpu'))}</td>"
            f"<td>{html.escape(commit_label(env))}</td><td class=\"num\">{html.escape(results)}</td>"
            f"<td>{html.escape(studies.named_study(run) or '')}</td></tr>")
    return ("<table class=\"runs\"><thead><tr><th>run</th><th>started</th><th>status</th><th>clock</th><th>suite</th>"
            "<th>device</th><th>commit</th><th>results</th><th>study</th></tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def _experiments(store, runs: list[dict]) -> str:
    """Every run that states a hypothesis or predictions, newest first, a line each: the hypothesis's first
    sentence and the verdicts its own results give; the predictions one by one are on the run's page."""
    lines = []
    for run in reversed(runs):
        verdicts = _verdicts(store, run)
        if run.get("hypothesis") or verdicts:
            lines.append(f'<tr><td><a href="{run_folder(run["id"])}/index.html#experiment">run {run["id"]}</a></td>'
                         f"<td>{html.run_linked(first_sentence(run.get('hypothesis') or ''), _front_page_run)}</td>"
                         f"<td>{html.escape(verdicts or 'no prediction')}</td></tr>")
    if not lines:
        return "<p>No run of this store states a hypothesis or a prediction.</p>"
    return (html.JUDGED_NOTE + '<p class="note">A hypothesis is a claim stated before its run, not a finding: its '
            "verdicts say what the run showed. Each run's page lists its predictions one by one.</p>"
            "<table><thead><tr><th>run</th><th>hypothesis, stated before the run</th><th>predictions</th></tr></thead>"
            f"<tbody>{''.join(lines)}</tbody></table>")



def _studies_table(known: list[studies.Study], runs_of: dict[str, list[dict]]) -> str:
    body = "".join(
        f'<tr><td><a href="studies/{study_pages.study_file(s.name)}">{html.escape(s.name)}</a></td><td>{html.escape(s.headline)}</td>'
        f'<td class="num">{len(runs_of[s.name])}</td></tr>' for s in known)
    return ("<table><thead><tr><th>study</th><th>question</th><th>runs</th></tr></thead>"
            f"<tbody>{body}</tbody></table>" if body else "<p>No study is defined.</p>")


def _grouped(runs: list[dict], keys: tuple[str, ...], part: str) -> str:
    """One table line per distinct value of ``keys`` (from each run's ``part``: env or method), with its runs."""
    seen: dict[tuple, list[int]] = {}
    for run in runs:
        seen.setdefault(tuple(str(run[part].get(k, "—")) for k in keys), []).append(run["id"])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in values)
                   + f"<td>{html.escape(', '.join(map(str, ids)))}</td></tr>" for values, ids in seen.items())
    head = "".join(f"<th>{html.escape(k)}</th>" for k in keys)
    return f"<table><thead><tr>{head}<th>runs</th></tr></thead><tbody>{body}</tbody></table>"


SeriesStep = tuple[history.Series, history.Step]


def _steps_of(series: list[history.Series]) -> tuple[list[SeriesStep], list[SeriesStep]]:
    """The steps found in ``series``, each with its series: (improvements, regressions)."""
    faster, slower = [], []
    for s in series:
        for step in s.steps:
            (slower if step.direction == "slower" else faster).append((s, step))
    return faster, slower


def _step_list(steps: list[SeriesStep], changed_with: bool) -> str:
    """A step a line, its first run after linked (an op's page is one folder down from the site's root)."""
    lines = [html.escape(f"{s.impl} · {s.case} · {s.path}/{s.cache} · {s.boundary}: ")
             + f'<a href="../{run_folder(step.run_id)}/index.html">run {step.run_id}</a> '
             + html.escape(f"({step.commit}) {step.before:.3g} → {step.after:.3g} µs ({step.change:+.1%})"
                           + (f"; {step.changed_with}" if changed_with else "")) for s, step in steps]
    return "<ul>" + "".join(f"<li>{line}</li>" for line in lines) + "</ul>" if lines else "<p>none</p>"


def _side_by_side(faster: list[SeriesStep], slower: list[SeriesStep]) -> str:
    """Improvements beside regressions, each split into the steps where only the code changed and those where
    something else did too (or the commit did not), which may be that change and not the code."""
    heads, cells = [], []
    for title, steps in (("improvements (▼ faster)", faster), ("regressions (▲ slower)", slower)):
        beside = history.beside_other_changes([step for _, step in steps])
        heads.append(f"{title}: {len(steps)}" + (f" ({beside})" if beside else ""))
        code_only = [(s, step) for s, step in steps if step.code_only]
        others = [(s, step) for s, step in steps if not step.code_only]
        cells.append(f"<h3>code only: {len(code_only)}</h3>{_step_list(code_only, False)}"
                     f"<h3>with other changes, or at the same commit: {len(others)}</h3>{_step_list(others, True)}")
    return ("<table class=\"steps\"><thead><tr>" + "".join(f"<th>{html.escape(head)}</th>" for head in heads)
            + "</tr></thead><tbody><tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr></tbody></table>")


def op_page(op: str, series: list[history.Series]) -> str:
    """Every series of ``op`` over the runs, one chart per implementation, the steps side by side."""
    faster, slower = _steps_of(series)
    body = ('<p class="note">Single path, in the order the runs started; one chart per implementation, one line per '
            "case, cache and boundary (and machine, where they differ); whiskers on span points are the range of round "
            "means. A step is a shift of the median beyond 3× the series' robust noise and at least 5 % "
            "(mage.history). Runs on different machines differ by more than their within-run spread: a step "
            "between them may be the machine, not the code. So each step says what else changed between the runs "
            "either side of it: the GPU (its uuid), driver, CUDA, torch, Triton and Python versions, the method "
            "settings; only the steps listed as code only changed nothing but the commit. A chart draws at most "
            f"{MAX_SHOWN} lines at first (those with a step first); its legend shows the others.</p>"
            f"<h2>Steps</h2>{_side_by_side(faster, slower)}<h2>Series</h2>"
            + (history_section(series) if series
               else "<p>No result of this op passed on the single path in any run: nothing to draw.</p>"))
    return _page(f"Mage history: {op}", body, depth=1, plots=True)


ANSWER_SUITES = ("seed", "large")  # the index answers on these; each study's cases are on its page


def _answer_cases() -> set[tuple[str, str]]:
    return {(op, case.name) for op, spec in registry.ops().items() for case in spec.cases()
            if case.suite in ANSWER_SUITES}


def _best_table(store) -> str:
    """mage best's answer as a table: per op, case (of the seed and large suites), variant and precision, the
    fastest at each boundary."""
    cases = _answer_cases()
    lines = answer.lines([a for a in best.latest(store) if (a.op, a.case) in cases])
    if not lines:
        return "<p>No passing measurement of the seed or large cases in this store.</p>"
    head = "".join(f"<th>fastest by {html.escape(boundary)}</th>" for boundary in best.BOUNDARIES)
    body = "".join(
        f"<tr><td>{html.escape(f'{op} {variant} {precision}')}</td><td>{html.escape(f'{case} · {cache} L2')}"
        f"{html.escape(f' · {device}') if len(lines.devices) > 1 else ''}</td>"
        + "".join("<td>" + "<br>".join(html.run_linked(line, _front_page_run)
                                       for line in answer.cell(by_boundary.get(b), True).splitlines()) + "</td>"
                  for b in best.BOUNDARIES) + "</tr>"
        for (device, op, case, variant, precision, cache), by_boundary in lines.items())
    return (f"<table><thead><tr><th>op</th><th>case</th>{head}</tr></thead><tbody>{body}</tbody></table>"
            '<p class="note">The latest passing measurement of each implementation (mage best) on the seed '
            "(launch-bound) and large cases: each cell the fastest at its boundary, with its ratios to eager and to "
            "the fastest library or peer implementation, those within the noise of it (≈), and the run it comes "
            "from. The studies' cases are on their pages; <code>mage best</code> lists every case.</p>")


# Hides the rows of the runs tables that do not contain the text typed in the filter box.
RUN_FILTER = """<p><input type="search" id="run-filter" placeholder="filter runs: a suite, study, device, commit, date…"
size="48" oninput="const words = this.value.toLowerCase(); document.querySelectorAll('table.runs tbody tr').forEach(
row => row.hidden = !row.textContent.toLowerCase().includes(words))"></p>"""


def _runs_newest_first(runs: list[dict]) -> str:
    """The runs newest first, with a filter box; those that stored no result (stopped before their first) folded
    away below. A run's hypothesis and verdicts are in the experiments table."""
    shown = [run for run in reversed(runs) if run["result_count"] or run.get("block_count")]
    empty = [run for run in reversed(runs) if not (run["result_count"] or run.get("block_count"))]
    folded = (f"<details><summary>{len(empty)} run{'s' * (len(empty) != 1)} that stored no result</summary>"
              f"{_runs_table(empty)}</details>" if empty else "")
    return RUN_FILTER + _runs_table(shown) + folded


def index_page(store, runs: list[dict], ops: dict[str, list[history.Series]],
               known: list[studies.Study] = (), runs_of: dict[str, list[dict]] | None = None) -> str:
    op_lines = "".join(
        f'<tr><td><a href="ops/{op_file(op)}">{html.escape(op)}</a></td><td class="num">{len(series)}</td>'
        f'<td class="num">{len(faster)}</td><td class="num">{len(slower)}</td></tr>'
        for op, series in ops.items() for faster, slower in [_steps_of(series)])
    body = (f'<p class="meta">{len(runs)} runs. Each run\'s page is its report: the answer first, then findings, '
            "experiment, model blocks, boundaries, launch paths, floors, history, contracts, environment and "
            "method. Numbers always name their boundary; boundaries are never subtracted.</p>"
            '<nav><a href="#best">the best measured</a> <a href="#studies">studies</a> <a href="#runs">runs</a> '
            '<a href="#experiments">experiments</a> <a href="#ops">ops</a> '
            '<a href="#environments">environments and methods</a></nav>'
            f'<h2 id="best">The best measured</h2>{_best_table(store)}'
            f'<h2 id="studies">Studies</h2>{_studies_table(list(known), runs_of or {})}'
            f'<h2 id="runs">Runs, newest first</h2>{_runs_newest_first(runs)}'
            f'<h2 id="experiments">Experiments: hypotheses stated before their runs, and the verdicts</h2>'
            f'{_experiments(store, runs)}'
            '<h2 id="ops">Ops: history with steps found</h2>'
            "<table><thead><tr><th>op or model block</th><th>series</th><th>improvements</th><th>regressions</th>"
            f"</tr></thead><tbody>{op_lines}</tbody></table>"
            '<h2 id="environments">Environments and methods</h2>'
            f"<h3>Machines and software</h3>{_grouped(runs, ENVIRONMENT_KEYS, 'env')}"
            f"<h3>Method parameters</h3>{_grouped(runs, METHOD_KEYS, 'method')}"
            '<p class="note">Every parameter of a run\'s environment and method is on its page.</p>')
    return _page("Mage lab notebook", body, depth=0, plots=False)


def build(store, out: Path, fraction: float | None = None) -> list[Path]:
    """Write the site of every run in ``store`` into ``out``; the files written. Amdahl's law is applied at the
    shares measured inside model blocks, or at ``fraction`` of a request where one is given."""
    from plotly.offline import get_plotlyjs

    out = atomic.output_folder(out)
    runs = sorted(store.runs(), key=lambda run: run["id"])
    written = [_within(out, out / PLOTLY)]
    atomic.write_text(written[0], get_plotlyjs())
    linked, rows_of = set(), {}
    amdahl_shares = context.amdahl_shares(store, fraction)
    for run in runs:
        folder = atomic.output_folder(_within(out, out / run_folder(run["id"])))
        stored, rows = store.run(run["id"]), store.rows(run["id"])
        rows_of[run["id"]] = rows
        linked |= {r["op"] for r in rows}
        blocks, block_shares = store.context_results(run["id"]), store.context_shares(run["id"])
        links = [("../../index.html", "all runs"), ("tables.md", "tables")]
        page = html.build(stored, rows, amdahl_shares, store=store, plotly_src=f"../../{PLOTLY}", links=links,
                          history_href=lambda op: f"../../ops/{op_file(op)}",
                          run_href=lambda other: f"../run-{other}/index.html")
        atomic.write_text(_within(out, folder / "index.html"), page)
        atomic.write_text(_within(out, folder / "tables.md"), markdown.tables(stored, rows, blocks, block_shares))
        written += [folder / "index.html", folder / "tables.md"]
    ops: dict[str, list[history.Series]] = {op: [] for op in sorted(linked)}  # a page for every op a run links to
    for s in history.load(store, path="single"):
        ops.setdefault(s.op, []).append(s)
    atomic.output_folder(_within(out, out / "ops"))
    for op, series in ops.items():
        atomic.write_text(_within(out, out / "ops" / op_file(op)), op_page(op, series))
        written.append(out / "ops" / op_file(op))
    known = studies.every()
    newest = best.newest_rows(store)
    runs_of = {study.name: study_pages.study_runs(study, runs, rows_of.__getitem__, store.context_results)
               for study in known}
    atomic.output_folder(_within(out, out / "studies"))
    for study in known:
        body = study_pages.study_body(store, study, runs_of[study.name], newest,
                                      run_href=lambda run_id: f"../{run_folder(run_id)}/index.html")
        atomic.write_text(_within(out, out / "studies" / study_pages.study_file(study.name)),
                          _page(f"Mage study: {study.name}", body, depth=1, plots=True))
        written.append(out / "studies" / study_pages.study_file(study.name))
    atomic.write_text(_within(out, out / "index.html"), index_page(store, runs, ops, known, runs_of))
    return [*written, out / "index.html"]
