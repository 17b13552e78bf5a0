"""A page per study (mage.studies) in the lab notebook: its question, what it runs, the runs that answer it
with the hypotheses and predictions stated before each and their verdicts, and the latest kernel times of
its implementations on its cases, as a table and a figure on one log scale."""

from __future__ import annotations

import plotly.graph_objects as go

from mage import registry
from mage.report import html
from mage.report.html import escape
from mage.studies import Study


def study_file(name: str) -> str:
    return f"{name}.html"


def implementation_names(study: Study) -> set[str]:
    """The names of what the study runs, as the registry selects them now."""
    return {impl.name for op in study.ops for impl in registry.select(op, study.impls)}


def study_runs(study: Study, runs: list[dict], rows_of) -> list[dict]:
    """The runs of ``study``: those stored with its name, and runs stored before runs named their study that
    measured one of its cases with at least two of its implementations (``rows_of(run_id)``: a run's rows)."""
    names, cases = implementation_names(study), set(study.cases)
    found = []
    for run in runs:
        named = (run["method"].get("request") or {}).get("study")
        if named is not None:
            if named == study.name:
                found.append(run)
            continue
        measured: dict[str, set[str]] = {}
        for row in rows_of(run["id"]):
            if row["op"] in study.ops and row["case"] in cases and row["impl"] in names:
                measured.setdefault(row["case"], set()).add(row["impl"])
        if any(len(impls) >= 2 for impls in measured.values()):
            found.append(run)
    return found


def latest_times(study: Study, newest: dict[str, list[dict]]) -> dict[str, dict[tuple[str, str], dict]]:
    """Per device model, (case, implementation) → its latest passing row on the single path, in the study's
    cache state (cold where the study measures cold)."""
    names, cache = implementation_names(study), "cold" if "cold" in study.caches else "warm"
    out: dict[str, dict[tuple[str, str], dict]] = {}
    for device, rows in newest.items():
        picked = {(r["case"], r["impl"]): r for r in rows
                  if r["op"] in study.ops and r["case"] in study.cases and r["impl"] in names
                  and r["path"] == "single" and r["cache"] == cache and r["kernel_us"] is not None}
        if picked:
            out[device] = picked
    return out


def _times_table(study: Study, picked: dict[tuple[str, str], dict]) -> str:
    cases = [c for c in study.cases if any(case == c for case, _ in picked)]
    impls = sorted({impl for _, impl in picked})
    head = "".join(f"<th>{escape(case)}</th>" for case in cases)
    body = []
    for impl in impls:
        cells = []
        for case in cases:
            row = picked.get((case, impl))
            if row is None:
                cells.append("<td>—</td>")
                continue
            fastest = min(r["kernel_us"] for (c, _), r in picked.items() if c == case)
            ratio = row["kernel_us"] / fastest
            mark = ' class="num best"' if ratio == 1.0 else ' class="num"'
            cells.append(f"<td{mark}>{row['kernel_us']:,.1f} µs<br>{ratio:.2f}× · run {row['run_id']}</td>")
        body.append(f"<tr><td>{escape(impl)}</td>{''.join(cells)}</tr>")
    return (f"<table><thead><tr><th>implementation</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")


def _times_figure(study: Study, picked: dict[tuple[str, str], dict], element: str) -> str:
    """Kernel time per case, a bar per implementation, on one log axis (equal heights mean equal ratios)."""
    cases = [c for c in study.cases if any(case == c for case, _ in picked)]
    figure = go.Figure([go.Bar(name=impl, x=cases, y=[picked[(case, impl)]["kernel_us"] if (case, impl) in picked
                                                      else None for case in cases])
                        for impl in sorted({impl for _, impl in picked})])
    figure.update_layout(template="plotly_white", barmode="group", height=420, margin={"t": 20},
                         legend={"orientation": "h"},
                         yaxis={"type": "log", "title": {"text": "kernel time (µs), log scale"}})
    return html.figure_html(figure, element)


def study_body(store, study: Study, runs: list[dict], newest: dict[str, list[dict]], run_href) -> str:
    """The study page's body (the site wraps it in its page)."""
    definition = (f"<p><b>Ops:</b> {escape(', '.join(study.ops))}. <b>Cases</b>, in the order they run: "
                  f"{escape(', '.join(study.cases))}. <b>Implementations:</b> {escape(', '.join(study.impls))}. "
                  f"<b>L2:</b> {escape(', '.join(study.caches))}; <b>paths:</b> {escape(', '.join(study.paths))}. "
                  f"Run it with <code>mage study {escape(study.name)}</code>"
                  + (f" (about {study.seconds} s on an H200)." if study.seconds else ".") + "</p>")
    nxt = ""
    if study.hypothesis or study.predict:
        nxt = ("<h2>The next run's hypothesis</h2><p class=\"note\">Stated before the run that will test it: a claim, "
               "not a finding.</p>" + (f"<p>{escape(' '.join(study.hypothesis.split()))}</p>" if study.hypothesis else "")
               + ("<ul>" + "".join(f"<li><code>{escape(p)}</code></li>" for p in study.predict) + "</ul>"
                  if study.predict else ""))
    times = latest_times(study, newest)
    measured = "".join(
        f"<h3>{escape(device)}</h3>{_times_table(study, picked)}{_times_figure(study, picked, f'times-{i}')}"
        for i, (device, picked) in enumerate(times.items())) or "<p>No passing measurement of this study's cases yet.</p>"
    stated = "".join(f'<h3><a href="{run_href(run["id"])}">run {run["id"]}</a> · {escape(run["started_at"])}</h3>{text}'
                     for run in reversed(runs) if (text := html.experiment_html(store, run, note=False)))
    run_list = ", ".join(f'<a href="{run_href(run["id"])}">{run["id"]}</a>' for run in runs) or "none yet"
    return (f"<p>{escape(' '.join(study.question.split()))}</p>{definition}"
            f"<h2>What was measured</h2><p class=\"note\">Kernel time on the single path, {escape(study.caches[-1])} L2, "
            "the latest passing result of each implementation (its run named); the fastest of each case is 1.00×."
            "</p>" + measured
            + f"<h2>Runs of this study</h2><p>{run_list}</p>"
            + (f"<h2>Hypotheses and their verdicts</h2><p class=\"note\">Each hypothesis was stated before its run; "
               "the verdicts are its predictions judged against that run's own results (mage.experiments).</p>"
               f"{stated}" if stated else "")
            + nxt)
