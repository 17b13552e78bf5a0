"""The history page: one chart per implementation, every series of it over the runs, steps marked.

Self-contained (plotly.js inlined once). ``history_section`` gives the charts alone, for a report that
embeds them in a page of its own (it must then load plotly.js and the script that draws the charts itself).
"""

from __future__ import annotations

import html
from itertools import groupby

from mage.history import BOUNDARY_COLUMNS, Series, beside_other_changes
from mage.report.plots import figure_html, plotly_scripts

SLOWER, FASTER = "#d62728", "#2ca02c"
MAX_SHOWN = 8  # lines of one chart drawn at load; more are not readable, the rest wait in the legend


def shown_first(series: list[Series]) -> list[Series]:
    """``series`` in the order their lines are shown (the first MAX_SHOWN at load): those with a step first, then
    kernel time before call span (BOUNDARY_COLUMNS' order), then in the order given (load's: by case)."""
    boundaries = list(BOUNDARY_COLUMNS)
    return sorted(series, key=lambda s: (not s.steps, boundaries.index(s.boundary)))


def _figure(op: str, impl: str, series: list[Series]):
    import plotly.graph_objects as go

    figure = go.Figure()
    runs = sorted({(p.started_at, p.run_id, p.commit) for s in series for p in s.points})
    order = [f"run {run_id}<br>{commit}" for _, run_id, commit in runs]
    machines = {(s.device, s.clock) for s in series}
    for number, s in enumerate(shown_first(series)):
        # A series and its step markers form one legend group: clicking its legend entry shows or hides them all.
        shown = dict(legendgroup=f"series-{number}", visible=True if number < MAX_SHOWN else "legendonly")
        name = s.label + (f" · {s.device}" if len(machines) > 1 else "")  # one line per machine
        measured = [p for p in s.points if p.value is not None]
        x = [f"run {p.run_id}<br>{p.commit}" for p in measured]
        error = None
        if any(p.low is not None for p in measured):
            error = dict(type="data", symmetric=False,
                         array=[(p.high - p.value) if p.high is not None else 0 for p in measured],
                         arrayminus=[(p.value - p.low) if p.low is not None else 0 for p in measured])
        figure.add_trace(go.Scatter(
            x=x, y=[p.value for p in measured], mode="lines+markers", name=name, error_y=error,
            customdata=[[p.started_at, p.run_id] for p in measured],
            hovertemplate="%{y:.3g} µs<br>%{customdata[0]}<extra>" + html.escape(name) + "</extra>", **shown))
        for step in s.steps:
            point = s.points[step.index]
            color = SLOWER if step.direction == "slower" else FASTER
            figure.add_trace(go.Scatter(
                x=[f"run {point.run_id}<br>{point.commit}"], y=[point.value], mode="markers+text",
                marker=dict(symbol="triangle-up" if step.direction == "slower" else "triangle-down", size=16,
                            color=color, line=dict(width=1, color="black")),
                text=[f"{step.direction} {step.change:+.0%}"], textposition="top center",
                textfont=dict(color=color), showlegend=False,
                hovertemplate=f"step: {html.escape(s.label)} {step.direction} {step.change:+.1%} "
                              f"({step.before:.3g} → {step.after:.3g} µs, score {step.score:.1f})"
                              f"<br>{html.escape(step.changed_with)}<extra></extra>", **shown))
    regressions = [st for s in series for st in s.steps if st.direction == "slower"]
    title = f"{op} · {impl}"
    if regressions:
        title += f" · {len(regressions)} regression{'s' * (len(regressions) != 1)}"
    notes = []  # plotly's subtitle lines, under the title
    if beside := beside_other_changes(regressions):
        notes.append(f"of the regressions, {beside} (a step beside another change may be that change, not the code)")
    if len(series) > MAX_SHOWN:
        notes.append(f"{MAX_SHOWN} of {len(series)} lines shown (those with a step first, then kernel before span, "
                     f"then by case); {len(series) - MAX_SHOWN} hidden: click a legend entry to show one")
    figure.update_layout(title="<br>".join([title, *(f"<sub>{html.escape(note)}</sub>" for note in notes)]),
                         yaxis_title="µs per call (log)", yaxis_type="log", height=420 + 20 * len(notes),
                         xaxis=dict(type="category", categoryorder="array", categoryarray=order),
                         legend=dict(font=dict(size=10)),
                         margin=dict(l=60, r=20, t=60 + 20 * len(notes), b=60))
    return figure


def history_section(series: list[Series]) -> str:
    """HTML of one chart per (op, implementation), drawn as it nears the viewport (mage.report.plots.figure_html):
    the page loads plotly.js and the script that draws them (mage.report.plots.plotly_scripts). The charts' div
    ids are ``history-1``, ``-2``, … (deterministic output, as a committed report needs)."""
    ordered = sorted(series, key=lambda s: (s.op, s.impl))
    groups = groupby(ordered, key=lambda s: (s.op, s.impl))
    return "\n".join(figure_html(_figure(op, impl, list(group)), f"history-{number}")
                     for number, ((op, impl), group) in enumerate(groups, 1))


def history_page(series: list[Series], title: str = "Mage history") -> str:
    steps = [(s, st) for s in series for st in s.steps]
    rows = "".join(
        f"<tr class='{st.direction}'><td>{html.escape(s.op)}</td><td>{html.escape(s.impl)}</td>"
        f"<td>{html.escape(s.label)}</td><td>run {st.run_id}</td><td>{html.escape(st.commit)}</td>"
        f"<td>{st.before:.3g} → {st.after:.3g}</td><td>{st.direction} {st.change:+.1%}</td>"
        f"<td>{html.escape(st.changed_with)}</td></tr>"
        for s, st in steps)
    beside = beside_other_changes([st for _, st in steps])
    table = ((f"<p>{len(steps)} steps; {html.escape(beside)}. A step beside a change of GPU, software or method "
              "may be that change, not the code.</p>" if beside else "")
             + "<table><tr><th>op</th><th>implementation</th><th>series</th><th>first run after</th><th>commit</th>"
             f"<th>median µs before → after</th><th>step</th><th>what else changed</th></tr>{rows}</table>" if steps
             else "<p>No steps found.</p>")
    charts = history_section(series) if series else "<p>No stored results match.</p>"
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:system-ui,sans-serif;margin:2em}} table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:2px 8px}} tr.slower td{{color:{SLOWER}}} tr.faster td{{color:{FASTER}}}</style>
{plotly_scripts() if series else ""}</head><body>
<h1>{html.escape(title)}</h1>
<p>Every stored result, in the order the runs started. Whiskers on span points are the min and max of the
round means. A step is a shift of the median beyond 3× the series' robust noise and at least 5 %
(mage.history); ▲ marks a regression, ▼ an improvement. Each step says what else changed between the runs
either side of it: the GPU (its uuid), driver, CUDA, torch, Triton and Python versions, the method settings.
A chart draws at most {MAX_SHOWN} lines at first; the legend shows the others.</p>
<h2>Steps</h2>
{table}
<h2>Series, one chart per implementation</h2>
{charts}
</body></html>
"""
