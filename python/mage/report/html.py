"""The run report: one self-contained HTML file (plotly.js inline, so it opens offline and from file://),
or a page of a site that shares one copy of plotly.js (``build(..., plotly_src=)``, mage.report.site).

Sections, top to bottom: failures (if any; skips one line per family and reason), the answer (per op the
journal's figure and three or four sentences: mage.report.summary), the findings (collapsed), the
experiment (the run's hypothesis and predictions beside their outcomes, when it states any), the model
blocks of a context run (predicted against measured speedup, kernel time by op call site, findings in
words: mage.report.context), per-op boundaries, launch paths, fractions of the roofline floor, the
roofline, the history (each implementation of the run across every run of the same clock in its store,
steps marked: mage.history), contracts, environment and method.

The experiment and the history read the store the run came from: ``build(..., store=)``.

Every figure of a report, a site page or a history page is emitted by mage.report.plots and drawn by its LAZY_DRAW
only when it comes near the viewport: a page of dozens of figures shows its first screen at once.
"""

from __future__ import annotations

import html
import json
import re

import plotly.graph_objects as go

from mage.report import accuracy, context, schedule
from mage.report.figures import FAMILY_COLORS, PRECISION_MARKERS, figure_cache, styles
from mage import history
from mage.errors import MageError
from mage.experiments import evaluate_run, evaluation_rows
from mage.report.findings import Section, caches_of, findings, short_labels, skip_lines
from mage.report.summary import op_summary
from mage.report.format import commit_label, floor_fraction, hardware_floor_us, span_timer, us, without_control
from mage.report.history_html import history_section
from mage.report.plots import figure_html, plotly_scripts
from mage.report.tables import case_label, export_rows
from mage.amdahl import Share
from mage.store import StoredRow

PATTERNS = ("", "/", ".", "x", "\\", "+", "-", "|")  # the strategy/variant/precision within one family's colour
# Button label → (row field, axis title); kernel time, launches and host time exist on the single path only.
VIEWS = {
    "kernel time": ("kernel_us", "kernel time, µs per call"),
    "call span": ("span_mean_us", "call span, µs per call (whiskers: range of round means)"),
    "launches per call": ("launches", "launches per call"),
    "host time": ("host_us", "host time, µs per call (whiskers: range of chunk means, where stored)"),
}
# A view's field → the fields of the range its whiskers show.
RANGES = {"span_mean_us": ("span_round_min_us", "span_round_max_us"), "host_us": ("host_min_us", "host_max_us")}
PATHS = {"single": "single", "batch": "batch (span ÷ B)", "graph": "graph (replay ÷ B)"}
LOG_SPREAD = 30  # an op whose cases differ by more than this factor is drawn on a log axis
EXCLUSIONS = ("Excluded from every number: compilation and autotuning (done during warm-up), host↔device "
              "transfers (inputs are on the device before timing), and process start.")

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1280px; padding: 0 24px 48px; color: #222; }
h1 { margin-bottom: 4px; } h2 { border-bottom: 1px solid #ccc; margin-top: 36px; }
.meta, .note { color: #555; } nav a { margin-right: 14px; }
.banner { background: #fde2e2; border: 2px solid #c00; color: #900; padding: 10px 14px; font-weight: 600; }
.banner.skip { background: #fff6d6; border-color: #c90; color: #750; }
.findings li { margin: 3px 0; } ul.summary { font-size: 16px; } ul.summary li { margin: 4px 0; } .findings summary { margin-top: 12px; cursor: pointer; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
@media (max-width: 700px) { body { padding: 0 8px 32px; } table { display: block; overflow-x: auto; } }
td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
tr.fail td { background: #fde2e2; color: #900; font-weight: 600; }
tr.skip td { background: #fff6d6; color: #750; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
details { margin: 10px 0; }
td.held { background: #e3f4e3; color: #175e17; font-weight: 600; }
td.failed { background: #fde2e2; color: #900; font-weight: 600; }
td.unclear { background: #fff6d6; color: #750; font-weight: 600; }
td.nodata { color: #777; }
tr.this td { font-weight: 600; }
"""


def escape(value) -> str:
    """A value as page text: a missing one shows as a dash, markup characters as entities, control characters
    dropped."""
    return html.escape("—" if value is None else without_control(str(value)))


def _table(header: list[str], body: list[list], classes: list[str] | None = None) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    lines = []
    for i, cells in enumerate(body):
        css = f' class="{classes[i]}"' if classes and classes[i] else ""
        tds = "".join(f'<td class="num">{escape(c)}</td>' if isinstance(c, (int, float)) else f"<td>{escape(c)}</td>"
                      for c in cells)
        lines.append(f"<tr{css}>{tds}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(lines)}</tbody></table>"


def _report_figure_html(figure: go.Figure, div_id: str) -> str:
    """A figure of the run report, in the report's style: a white template, room above for its title and buttons."""
    figure.update_layout(margin={"t": 100, "l": 70, "r": 20, "b": 60},
                         title={"x": 0, "xanchor": "left", "y": 0.98, "yanchor": "top"})
    return figure_html(figure, div_id, template="plotly_white")


def _markers(rows: list[dict]) -> dict[str, dict]:
    """Plotly bar markers with the static figure's colours and patterns."""
    return {impl: {"color": color, "pattern": {"shape": PATTERNS[kind % len(PATTERNS)]}}
            for impl, (color, kind) in styles(rows).items()}


def _whiskers(values: list[dict | None], field: str = "span_mean_us") -> dict:
    """Error bars from the range ``field`` was read from (RANGES); absent where a value or range is missing."""
    low, high = RANGES[field]
    present = [r if r and None not in (r[field], r[low], r[high]) else None for r in values]
    return {"type": "data", "symmetric": False, "visible": True,
            "array": [r and r[high] - r[field] for r in present],
            "arrayminus": [r and r[field] - r[low] for r in present]}


def _labels(rows: list[dict]) -> dict[str, str]:
    """Short implementation labels; one that never passed says so, where its bars would be."""
    labels = short_labels(list(dict.fromkeys(r["impl"] for r in rows)))
    for impl in labels:
        statuses = {r["status"] for r in rows if r["impl"] == impl}
        if "pass" not in statuses:
            labels[impl] += " (FAILED)" if "fail" in statuses else " (skipped)"
        elif any(r["status"] == "pass" and r.get("suspect") for r in rows if r["impl"] == impl):
            labels[impl] += " (SUSPECT)"
    return labels


def _lookup(rows: list[dict], **where) -> dict | None:
    return next((r for r in rows if all(r[k] == v for k, v in where.items())), None)


# Figures


def journal_figure(op: str, rows: list[dict]) -> go.Figure:
    """The journal's figure of one op: kernel time above, call span below, launches beside; single path, the
    static figure's cache state, on a log axis where the op's cases differ by more than LOG_SPREAD."""
    from plotly.subplots import make_subplots

    cache = figure_cache(rows)
    single = [r for r in rows if r["path"] == "single" and r["cache"] == cache and r["status"] == "pass"]
    cases = list(dict.fromkeys(r["case"] for r in single))
    labels, markers = _labels(rows), _markers(rows)
    figure = make_subplots(rows=2, cols=2, specs=[[{}, {"rowspan": 2}], [{}, None]], column_widths=[0.74, 0.26],
                           horizontal_spacing=0.08, vertical_spacing=0.12,
                           subplot_titles=("kernel time, µs per call", "launches per call",
                                           "call span, µs per call (whiskers: range of round means)"))
    for impl in dict.fromkeys(r["impl"] for r in single):
        cells = [_lookup(single, impl=impl, case=case) for case in cases]
        for field, row, col in (("kernel_us", 1, 1), ("launches", 1, 2), ("span_mean_us", 2, 1)):
            figure.add_bar(name=labels[impl], legendgroup=impl, showlegend=field == "kernel_us", x=cases,
                           y=[r and r[field] for r in cells], marker=markers[impl], row=row, col=col,
                           error_y=_whiskers(cells) if field == "span_mean_us" else None,
                           hovertemplate=f"{impl}<br>%{{x}}: %{{y:.4g}}<extra></extra>")
    for field, row in (("kernel_us", 1), ("span_mean_us", 2)):
        values = [r[field] for r in single if r[field]]
        if values and max(values) > LOG_SPREAD * min(values):
            figure.update_yaxes(type="log", row=row, col=1)
    figure.update_layout(title=f"{op}: the answer ({cache} L2, single path; each op on its own scale)",
                         barmode="group", height=560, legend_title="implementation")
    return figure


def boundaries_figure(op: str, rows: list[dict]) -> go.Figure:
    """Implementations side by side per case and cache; buttons switch the boundary."""
    single = [r for r in rows if r["path"] == "single" and r["status"] == "pass"]
    slots = list(dict.fromkeys((r["case"], r["cache"]) for r in single))
    impls = list(dict.fromkeys(r["impl"] for r in rows))
    labels, markers = _labels(rows), _markers(rows)
    cells = {impl: [_lookup(single, impl=impl, case=c, cache=k) for c, k in slots] for impl in impls}

    def ys(field: str) -> list[list]:
        return [[None if r is None else r[field] for r in cells[impl]] for impl in impls]

    figure = go.Figure()
    for impl, y in zip(impls, ys("kernel_us")):
        figure.add_bar(name=labels[impl], x=[[c for c, _ in slots], [k for _, k in slots]], y=y,
                       marker=markers[impl], hovertemplate=f"{impl}<br>%{{x}}: %{{y:.4g}}<extra></extra>")
    no_whiskers = [{"visible": False}] * len(impls)
    buttons = [{"label": label, "method": "update", "args": [
        {"y": ys(field), "error_y": [_whiskers(cells[i], field) for i in impls] if field in RANGES else no_whiskers},
        {"yaxis.title.text": title}]} for label, (field, title) in VIEWS.items()]
    figure.update_layout(
        title=f"{op}: implementations side by side (single path)", barmode="group", height=460,
        yaxis_title=VIEWS["kernel time"][1], legend_title="implementation",
        updatemenus=[{"type": "buttons", "direction": "right", "buttons": buttons, "x": 0, "xanchor": "left",
                      "y": 1.02, "yanchor": "bottom", "showactive": True, "active": 0}])
    return figure


def paths_figure(op: str, rows: list[dict]) -> go.Figure:
    """Per implementation: span per call on each launch path, and its kernel time; buttons switch the cache."""
    impls = list(dict.fromkeys(r["impl"] for r in rows))
    cases = list(dict.fromkeys(r["case"] for r in rows))
    labels, caches = _labels(rows), caches_of(rows)
    slots = [(c, i) for c in cases for i in impls if _lookup(rows, case=c, impl=i)]
    x = [[c for c, _ in slots], [labels[i].replace("/", "<br>") for _, i in slots]]
    passed = [r for r in rows if r["status"] == "pass"]

    def cells(path: str, cache: str) -> list[dict | None]:
        return [_lookup(passed, case=c, impl=i, path=path, cache=cache) for c, i in slots]

    figure = go.Figure()
    for path, name in PATHS.items():
        values = cells(path, caches[0])
        figure.add_bar(name=name, x=x, y=[r and r["span_mean_us"] for r in values], error_y=_whiskers(values))
    kernel = cells("single", caches[0])
    figure.add_scatter(name="kernel time (profiler)", x=x, y=[r and r["kernel_us"] for r in kernel], mode="markers",
                       marker={"symbol": "line-ew-open", "size": 26, "color": "#222", "line": {"width": 3}})
    buttons = []
    for cache in caches:
        per_path = [cells(path, cache) for path in PATHS]
        buttons.append({"label": f"{cache} L2", "method": "restyle", "args": [{
            "y": [[r and r["span_mean_us"] for r in v] for v in per_path]
            + [[r and r["kernel_us"] for r in cells("single", cache)]],
            "error_y": [_whiskers(v) for v in per_path] + [{"visible": False}]}]})
    figure.update_layout(
        title=f"{op}: launch paths, µs per call (compile-* implementations are the compiled path)",
        barmode="group", height=460, yaxis_title="µs per call",
        updatemenus=[{"type": "buttons", "direction": "right", "buttons": buttons, "x": 0, "xanchor": "left",
                      "y": 1.02, "yanchor": "bottom", "active": 0}])
    return figure


def floor_figure(rows: list[dict]) -> go.Figure:
    """Every result as a fraction of its roofline floor; the menu picks the boundary, path and cache."""
    single = [r for r in rows if r["path"] == "single" and r["status"] == "pass" and hardware_floor_us(r)]
    keys = list(dict.fromkeys((r["op"], r["case"], r["impl"]) for r in single))
    names = [f"{op} · {case} · {impl}" for op, case, impl in keys]
    colors = styles(rows)
    views = []
    for cache in sorted(caches_of(rows), key=lambda c: c != "cold"):  # cold first: a warm L2 can beat the floor
        views.append((f"kernel time, {cache} L2", "single", cache, "kernel_us"))
        views += [(f"{path} span per call, {cache} L2", path, cache, "span_mean_us") for path in PATHS]

    def fractions(path: str, cache: str, field: str) -> list:
        found = [_lookup(rows, op=o, case=c, impl=i, path=path, cache=cache, status="pass") for o, c, i in keys]
        return [floor_fraction(r, field) if r else None for r in found]

    first = fractions(*views[0][1:]) if views else []
    figure = go.Figure(go.Bar(y=names, x=first, orientation="h", marker_color=[colors[i][0] for *_, i in keys],
                              texttemplate="%{x:.0%}", textposition="outside",
                              hovertemplate="%{y}<br>floor ÷ measured = %{x:.1%}<extra></extra>"))
    figure.add_vline(x=1.0, line_dash="dash", annotation_text="floor")
    figure.update_layout(
        title="Fraction of the roofline floor (floor ÷ measured time; 100% = at the floor)",
        height=160 + 24 * len(names), xaxis={"tickformat": ".0%", "title": "floor ÷ measured"},
        yaxis={"autorange": "reversed"},
        updatemenus=[{"type": "dropdown", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom",
                      "buttons": [{"label": label, "method": "restyle", "args": [{"x": [fractions(p, c, f)]}]}
                                  for label, p, c, f in views]}])
    return figure


def roofline_figure(rows: list[dict], ceilings: dict) -> go.Figure:
    """Arithmetic intensity against achieved throughput at kernel time, under the device's peaks and the
    ceilings measured in the run."""
    points = [r for r in rows if r["path"] == "single" and r["status"] == "pass" and r["kernel_us"]
              and r["flops"] and r["bytes"]]
    figure = go.Figure()
    symbols = {"warm": "circle", "cold": "diamond"}
    for index, op in enumerate(dict.fromkeys(r["op"] for r in points)):
        for cache in caches_of(points):
            mine = [r for r in points if r["op"] == op and r["cache"] == cache]
            if mine:
                figure.add_scatter(
                    name=f"{op} ({cache})", legendgroup=op, mode="markers",
                    x=[r["flops"] / r["bytes"] for r in mine], y=[r["flops"] / r["kernel_us"] / 1e6 for r in mine],
                    marker={"symbol": symbols.get(cache, "circle"), "size": 10,
                            "color": FAMILY_COLORS[index % len(FAMILY_COLORS)]},
                    text=[f"{r['impl']} · {r['case']} · {us(r['kernel_us'])} µs" for r in mine],
                    hovertemplate="%{text}<br>%{x:.3g} flop/byte, %{y:.3g} TFLOP/s<extra></extra>")
    intensities = [r["flops"] / r["bytes"] for r in points]
    # The hardware peaks are the floors' roofs (solid); the rates measured in the run, reached in practice (dotted).
    roofs = [(f"peak: HBM {ceilings['peak_hbm_gbps']:,.0f} GB/s, {name} {ceilings[key]:.1f} TFLOP/s",
              ceilings["peak_hbm_gbps"], ceilings[key], "solid")
             for key, name in (("peak_fp32_tflops", "FP32"), ("peak_tf32_tflops", "TF32"))
             if key in ceilings and "peak_hbm_gbps" in ceilings]
    if ceilings.get("copy_gbps"):
        roofs += [(f"reached: copy {ceilings['copy_gbps']:,.0f} GB/s, {name} matmul {ceilings[key]:.1f} TFLOP/s",
                   ceilings["copy_gbps"], ceilings[key], "dot")
                  for key, name in (("matmul_ieee_tflops", "ieee"), ("matmul_tf32_tflops", "tf32"))]
    if roofs and intensities:
        ridges = [tflops * 1e3 / gbps for _, gbps, tflops, _ in roofs]
        xs = sorted({min(intensities) / 4, max(intensities) * 4, *ridges})  # the roofs bend at the ridges
        for name, gbps, tflops, dash in roofs:
            figure.add_scatter(name=name, mode="lines", line={"dash": dash}, x=xs,
                               y=[min(x * gbps / 1e3, tflops) for x in xs])
    figure.update_layout(title="Roofline: arithmetic intensity vs achieved throughput (kernel time)", height=520,
                         xaxis={"type": "log", "title": "arithmetic intensity, flop per compulsory byte"},
                         yaxis={"type": "log", "title": "achieved TFLOP/s"})
    return figure


# plotly's names for the static figures' precision markers (mage.report.figures.PRECISION_MARKERS).
PLOTLY_SYMBOLS = {"o": "circle", "D": "diamond", "s": "square", "^": "triangle-up", "v": "triangle-down"}


def accuracy_figures(rows: list[dict]) -> str:
    """Accuracy against speed (mage.report.accuracy): per op and case measured at two precisions or more, each
    implementation's relative error (log) against its time (log), its precision as the marker; lower left is
    better. "" where no case was measured at two precisions."""
    colors = styles(rows)
    parts = []
    for index, ((op, case), found) in enumerate(accuracy.points(rows).items()):
        figure = go.Figure()
        for point in found:
            figure.add_scatter(
                name=point.impl, x=[point.time_us], y=[max(point.rel_error, accuracy.LEAST_ERROR)], mode="markers",
                marker={"size": 11, "color": colors[point.impl][0], "line": {"width": 0.5, "color": "black"},
                        "symbol": PLOTLY_SYMBOLS[PRECISION_MARKERS.get(point.precision, "o")]},
                hovertemplate=f"{escape(point.impl)}<br>%{{x:.4g}} µs, error %{{y:.2e}}<extra></extra>")
        figure.update_layout(title=f"{op} · {case}: accuracy against speed, {accuracy.point_cache(rows)} L2", height=420,
                             xaxis={"type": "log", "title": "kernel time, µs (span where none)"},
                             yaxis={"type": "log", "title": "relative error ‖out − ref‖ / ‖ref‖"})
        parts.append(_report_figure_html(figure, f"accuracy-{index}"))
    return "".join(parts)


def prediction_figure(results: list) -> go.Figure:
    """Amdahl's predicted block speedup (x) against the measured one (y), the y = x line drawn."""
    figure = go.Figure()
    points = [r for r in results if r.status == "pass" and r.kind != "eager" and r.predicted_speedup
              and r.measured_speedup]
    for index, (block, precision) in enumerate(context.blocks(points)):
        for path, symbol in (("single", "circle"), ("graph", "square")):
            mine = [r for r in points if (r.block, r.precision, r.path) == (block, precision, path)]
            if mine:
                figure.add_scatter(name=f"{block} {precision} {path}", mode="markers",
                                   x=[r.predicted_speedup for r in mine], y=[r.measured_speedup for r in mine],
                                   text=[r.assignment for r in mine],
                                   marker={"symbol": symbol, "size": 10,
                                           "color": FAMILY_COLORS[index % len(FAMILY_COLORS)]},
                                   hovertemplate="%{text}<br>predicted %{x:.3g}×, measured %{y:.3g}×<extra></extra>")
    drawn = [v for r in points for v in (r.predicted_speedup, r.measured_speedup)] or [1.0]
    line = [min(drawn) * 0.9, max(drawn) * 1.1]
    figure.add_scatter(name="y = x (Amdahl exact)", mode="lines", x=line, y=line,
                       line={"dash": "dash", "color": "#555"})
    figure.update_layout(title="Model blocks: Amdahl predicted against measured speedup", height=480,
                         xaxis={"type": "log", "title": "Amdahl predicted speedup"},
                         yaxis={"type": "log", "title": "measured block speedup (span)"})
    return figure


def sites_figure(results: list, shares: list, block: str, precision: str) -> go.Figure:
    """One block's single-path kernel time per assignment, stacked by op call site."""
    sites, bars = context.site_times(results, shares, block, precision)
    figure = go.Figure()
    for index, site in enumerate([*sites, "other kernels"]):
        figure.add_bar(name=site, x=[a for a, _, _ in bars],
                       y=[per_site[index] if index < len(sites) else rest for _, per_site, rest in bars],
                       marker={"color": FAMILY_COLORS[index % len(FAMILY_COLORS)] if index < len(sites) else "#bbb"})
    figure.update_layout(title=f"{block} ({precision}): kernel time by op call site, single path", barmode="stack",
                         height=420, yaxis_title="block kernel time, µs")
    return figure


def context_html(results: list, shares: list) -> str:
    """The model blocks of a context run; empty when the run has none."""
    if not results:
        return ""
    charts = "".join(_report_figure_html(sites_figure(results, shares, block, precision), f"sites-{i}")
                     for i, (block, precision) in enumerate(context.blocks(results))
                     if context.site_times(results, shares, block, precision)[1])
    return ('<p class="note">Measured speedup = the eager assignment\'s span ÷ this one (median of one block call, '
            "same run and path); Amdahl predicted = 1 / (1 − Σf + Σf/s) from the eager capture's fractions f and "
            f"the isolated speedups s. A difference is beyond the noise past {context.NOISE_SIGMAS:g} standard errors "
            "of the two spans; then the measured quantities that differ are named.</p>"
            + _findings_html(context.findings(results, shares))
            + _table(context.PREDICTION_COLUMNS, context.prediction_rows(results))
            + _report_figure_html(prediction_figure(results), "predicted-measured") + charts)


def reduction_figure(rows: list[dict], ceilings: dict) -> go.Figure | None:
    """The reduction study (cases ROWSxCOLS-study): copy floor ÷ kernel time against row width, a line per
    op and implementation, with the widths where the best of them changes named; None without such cases."""
    study = [(int(found.group(1)), r) for r in rows if r["path"] == "single" and r["status"] == "pass"
             and r["kernel_us"] and (found := re.fullmatch(r"\d+x(\d+)-study", r["case"]))]
    if not study or not ceilings.get("copy_gbps"):
        return None
    cache = "cold" if any(r["cache"] == "cold" for _, r in study) else "warm"
    fraction = {(r["op"], r["impl"], cols): r["bytes"] / (ceilings["copy_gbps"] * 1e3) / r["kernel_us"]
                for cols, r in study if r["cache"] == cache}
    figure = go.Figure()
    crossovers = []
    for op in dict.fromkeys(op for op, _, _ in fraction):
        widths = sorted({cols for o, _, cols in fraction if o == op})
        for impl in dict.fromkeys(i for o, i, _ in fraction if o == op):
            mine = [cols for cols in widths if (op, impl, cols) in fraction]
            figure.add_scatter(name=f"{op} · {impl}", mode="lines+markers", x=mine,
                               y=[fraction[(op, impl, cols)] for cols in mine])
        best = [max((f, i) for (o, i, c), f in fraction.items() if o == op and c == cols)[1] for cols in widths]
        crossovers += [f"{op}: {before} → {after} between {a} and {b} columns"
                       for (a, before), (b, after) in zip(zip(widths, best), zip(widths[1:], best[1:]))
                       if before != after]
    figure.add_hline(y=1.0, line_dash="dash", annotation_text="copy floor")
    figure.update_layout(
        title="Reduction study: copy floor ÷ kernel time by row width (" + cache + " L2)<br><sub>best changes: "
              + ("; ".join(crossovers) or "never") + "</sub>",
        height=560, xaxis={"type": "log", "title": "row width (columns)"},
        yaxis={"tickformat": ".0%", "title": "fraction of the measured copy rate"})
    return figure


# Sections


def schedule_html(rows: list[dict]) -> str:
    """neighbor_agg's scheduling study (mage.report.schedule): its figure and a sentence per graph; "" without it."""
    found = schedule.study(rows)
    if found is None:
        return ""
    sentences = "".join(f"<li>{escape(sentence)}</li>" for sentence in found.winners())
    return (f'<h2 id="schedules">neighbor_agg: schedules against degree skew</h2>\n'
            f'{_report_figure_html(schedule.interactive(found), "schedule-figure")}\n<ul>{sentences}</ul>\n')


def _failure_banner(rows: list[dict]) -> str:
    """Every failure named; skips summarised, one line per family and reason."""
    parts = []
    failed = sorted({(r["op"], r["case"], r["impl"]) for r in rows if r["status"] == "fail"})
    if failed:
        listed = ", ".join(f"{op} {case} {impl}" for op, case, impl in failed)
        parts.append(f'<p class="banner fail">{len(failed)} implementation·case pair{"s" * (len(failed) != 1)} '
                     f'FAILED: {escape(listed)}. See <a href="#contracts">contracts</a>.</p>')
    skipped = skip_lines(rows)
    if skipped:
        parts.append('<p class="banner skip">' + "<br>".join(map(escape, skipped))
                     + ' (see <a href="#contracts">contracts</a>).</p>')
    return "".join(parts)


def _findings_html(sections: list[Section]) -> str:
    return "".join(f"<details open><summary><b>{escape(s.title)}</b></summary>"
                   f"<ul>{''.join(f'<li>{escape(x)}</li>' for x in s.sentences)}</ul></details>" for s in sections)


def contracts_table(rows: list[dict]) -> str:
    """One line per op, case and implementation, failures first; where a path failed, which one."""
    entries: dict[tuple, dict] = {}
    for row in rows:
        entry = entries.setdefault((row["op"], row["case"], row["impl"]), {"row": row, "status": "pass", "reasons": {}})
        if row["status"] != "pass":
            entry["status"] = "fail" if "fail" in (row["status"], entry["status"]) else "skip"
            entry["reasons"].setdefault(row["reason"] or "no reason stored", []).append(f"{row['path']}/{row['cache']}")
        elif row["contract"] == "fail":  # a library timed despite its failure on non-finite inputs
            entry["status"] = "fail"
            entry["reasons"].setdefault(row["reason"], []).append(f"{row['path']}/{row['cache']}")
        elif row.get("suspect"):
            entry["status"] = "suspect" if entry["status"] == "pass" else entry["status"]
            entry["reasons"].setdefault(f"suspect: {row['suspect']}", []).append(f"{row['path']}/{row['cache']}")
    order = {"fail": 0, "suspect": 1, "skip": 2, "pass": 3}
    ranked = sorted(entries.items(), key=lambda item: order[item[1]["status"]])
    body, classes = [], []
    for (op, case, impl), entry in ranked:
        row = entry["row"]
        reasons = "; ".join(f"{reason} ({', '.join(where)})" for reason, where in entry["reasons"].items())
        body.append([op, case, impl, row["precision"], entry["status"].upper() if entry["status"] != "pass" else "pass",
                     row["contract"] or "not checked", None if row["rel_error"] is None else f"{row['rel_error']:.2e}",
                     None if row["eager_error"] is None else f"{row['eager_error']:.2e}", reasons or ""])
        # A suspect time is shown like a failure: the row's numbers must not be trusted.
        classes.append({"pass": "", "suspect": "fail"}.get(entry["status"], entry["status"]))
    return _table(["op", "case", "implementation", "precision", "status", "contract", "rel. error",
                   "eager error", "reason / error (path/cache)"], body, classes)


def _span_sampling(method: dict) -> str:
    """How many span samples were taken: a fixed count before runs stopped on measured noise (schema 8)."""
    if "noise_target" not in method:
        return f"{method.get('span_samples', '?')} samples"
    caps = " or ".join(cap for cap in (f"{method['budget_s']:g} s of spans" if "budget_s" in method else None,
                                       f"{method['wall_budget_s']:g} s of wall time" if method.get("wall_budget_s")
                                       else None,
                                       f"{method['span_samples']} samples" if "span_samples" in method else None) if cap)
    limits = [f"at least {method['min_samples']} samples" if "min_samples" in method else None,
              f"at most {caps}" if caps else None]
    stated = ", ".join(limit for limit in limits if limit)  # an imported run may not say every one
    return (f"sampled until the mean's relative standard error was below {method['noise_target']:.2%}"
            + (f" ({stated})" if stated else ""))


def _environment_html(run: dict) -> str:
    env = {k: v for k, v in run["env"].items() if not isinstance(v, dict)}
    states = {"start": run["env"].get("gpu_state_start") or {},
              "end": (run.get("env_end") or {}).get("gpu_state_end") or {}}
    state_keys = list(dict.fromkeys(k for s in states.values() for k in s))
    method = run["method"]
    return (
        f"<p>{escape(EXCLUSIONS)}</p>"
        "<p>Boundaries, never subtracted from one another: <b>kernel time</b> = profiler capture of "
        f"{method.get('kernel_calls', '?')} warmed calls, device activity summed ÷ calls (gaps excluded); "
        f"<b>call span</b> = {span_timer(run['clock'])} timing around one call, {_span_sampling(method)} in "
        f"{'at least ' * ('noise_target' in method)}{method.get('rounds', '?')} rounds with the implementation order "
        "rotated, whiskers = range of round means "
        "(not a confidence interval); <b>launches</b> = device activities ÷ calls; <b>host time</b> = wall clock "
        f"of back-to-back unsynchronized calls in chunks of {method.get('host_chunk', '?')}. Batch and graph paths "
        f"time B = {method.get('batch', '?')} calls per span. Cold L2: a {method.get('l2_flush_bytes', 0) / 1e6:.0f} "
        "MB buffer is written before each sample, outside the timed window. See docs/METHOD.md.</p>"
        f"<p>Command: <code>{escape(run['command'])}</code></p>"
        "<h3>Peaks (the floors) and ceilings (measured in this run: reached in practice)</h3>"
        + _table(["ceiling", "value"], [[k, f"{v:,.1f}" if isinstance(v, (int, float)) else v]
                                        for k, v in run["ceilings"].items()])
        + "<h3>GPU state (NVML)</h3>"
        + _table(["", *states], [[k, *[s.get(k) for s in states.values()]] for k in state_keys])
        + "<h3>Environment</h3>" + _table(["key", "value"], [[k, v] for k, v in env.items()])
        + "<h3>Method</h3>" + _table(["parameter", "value"], [[k, json.dumps(v)] for k, v in method.items()]))


def _results_table(rows: list[dict]) -> str:
    fields = ["op", "case", "impl", "path", "cache", "status", "kernel_us", "launches", "host_us", "host_min_us",
              "host_max_us", "span_mean_us",
              "span_round_min_us", "span_round_max_us", "span_median_us", "floor_us", "memory_floor_us", "compute_floor_us", "floor_fraction",
              "sm_clock_min_mhz", "sm_clock_max_mhz", "clock_events", "tuning"]
    body = [[case_label(stored) if f == "case" else r[f] if not isinstance(r[f], float) else round(r[f], 4)
             for f in fields] + [r.get("suspect") or ""]
            for stored, r in zip(rows, export_rows(rows))]
    classes = [r["status"] if r["status"] != "pass" else ("fail" if r.get("suspect") else "") for r in rows]
    return _table(fields + ["suspect"], body, classes)


def run_linked(text: str, run_href=None) -> str:
    """``text`` escaped, each run it names ("run" and its number) a link to that run's page by
    ``run_href(id)``; without ``run_href`` (a report that opens alone, no run pages around it) only escaped."""
    if run_href is None:
        return escape(text)
    return re.sub(r"\b([Rr]uns?) (\d+)\b", lambda named: f'<a href="{run_href(int(named[2]))}">{named[0]}</a>',
                  escape(text))


def experiment_html(store, run: dict, note: bool = True, run_href=None) -> str:
    """The run's hypothesis and its predictions beside their outcomes; empty when it states neither. ``note``:
    how predictions are judged (a page that lists many runs' experiments says it once); ``run_href``: where a
    run the hypothesis names is (run_linked)."""
    try:
        hypothesis, evaluations = evaluate_run(store, run["id"])
    except MageError as error:  # a stored prediction this version cannot read: say so, do not fail the report
        return f'<p class="banner skip">The predictions stored with this run cannot be judged: {escape(error)}</p>'
    if not hypothesis and not evaluations:
        return ""
    lines = []
    for row in evaluation_rows(evaluations):
        observed = "<br>".join(escape(line) for line in row["observed"])
        outcome = row["outcome"]
        lines.append(f"<tr><td><code>{escape(row['prediction'])}</code></td><td>{observed}</td>"
                     f'<td class="{outcome.replace(" ", "")}">{escape(outcome)}</td></tr>')
    counts = {o: sum(e.outcome == o for e in evaluations) for o in ("held", "failed", "unclear", "no data")}
    summary = ", ".join(f"{n} {o}" for o, n in counts.items() if n)
    table = ("<table><thead><tr><th>prediction</th><th>observed (implementation @case: value → outcome)</th>"
             f"<th>outcome</th></tr></thead><tbody>{''.join(lines)}</tbody></table>" if lines
             else "<p>No predictions were stated.</p>")
    held, failed = counts["held"], counts["failed"]
    verdict = (" The hypothesis did not hold." if failed > held else " The hypothesis held." if held and not failed
               else "")
    return (f"<p><b>Hypothesis, stated before the run:</b> {run_linked(hypothesis, run_href) if hypothesis else 'none stated'}</p>"
            + (f"<p><b>{len(evaluations)} prediction{'s' * (len(evaluations) != 1)}: {summary}.</b>{verdict}</p>"
               if evaluations else "")
            + table
            + (JUDGED_NOTE if note else ""))


JUDGED_NOTE = ('<p class="note">Predictions are judged against their run\'s own results (mage.experiments): a span '
               "holds only when its whole range of round means lies on the predicted side; kernel and host time "
               "within their resolution (3 %, 10 %) of the bound are unclear; a failed or skipped result is no "
               "data.</p>")


class _SameClock:
    """The runs of a store timed on one clock (GPU or CPU wall clock): the history never mixes the two."""

    def __init__(self, store, clock: str):
        self.store, self.clock = store, clock

    def runs(self) -> list[dict]:
        return [r for r in self.store.runs() if r["clock"] == self.clock]

    def rows(self, run_id: int) -> list[dict]:
        return self.store.rows(run_id)

    def context_results(self, run_id: int) -> list:
        return self.store.context_results(run_id)


def history_html(store, run: dict, rows: list[dict]) -> str:
    """Each implementation of the run across every run of the same clock in the store, with its steps."""
    keys = {(r["op"], r["case"], r["impl"]) for r in rows}
    series = [s for s in history.load(_SameClock(store, run["clock"]), path="single")
              if (s.op, s.case, s.impl) in keys]
    repeated = {(s.op, s.impl) for s in series if len(s.measured()) >= 2}
    shown = [s for s in series if (s.op, s.impl) in repeated]
    runs = sorted(_SameClock(store, run["clock"]).runs(), key=lambda r: (r["started_at"], r["id"]))
    runs_table = _table(["run", "started", "status", "suite", "commit", "GPU", "GPU uuid", "host"], [
        [r["id"], r["started_at"], r["status"], r["suite"], commit_label(r["env"]),
         r["env"].get("gpu") or r["env"].get("host_cpu"), r["env"].get("uuid"), r["env"].get("hostname")]
        for r in runs], ["this" if r["id"] == run["id"] else "" for r in runs])
    only_here = sorted({(op, impl) for op, _, impl in keys} - repeated)
    note = (f"<p class=\"note\">Measured in this run only: {escape(', '.join(f'{op} {impl}' for op, impl in only_here))}."
            "</p>" if only_here and shown else "")
    charts = (history_section(shown) if shown
              else "<p>No other run in this store measured the implementations of this run: no history yet.</p>")
    return (f"<p class=\"note\">Every run of this store timed on the {'GPU' if run['clock'] != 'cpu' else 'CPU'} "
            "clock, in the order they started (this run in bold). Single path, kernel time and call span, one chart "
            "per implementation, one line per case and cache; whiskers on span points are the range of round means. "
            "A step is a shift of the median beyond 3× the series' robust noise and at least 5 % (mage.history); "
            "▲ marks a regression, ▼ an improvement. Runs on different GPUs (uuid) or hosts differ by more than "
            "their within-run spread: a step between them may be the machine, not the code "
            "(mage compare judges such pairs).</p>"
            + runs_table + note + charts)


def answer_html(rows: list[StoredRow], shares: dict[str, list[Share]]) -> str:
    """One screen per op: the journal's figure and the sentences that say what it means (mage.report.summary)."""
    parts = []
    for op in dict.fromkeys(r["op"] for r in rows):
        mine = [r for r in rows if r["op"] == op]
        sentences = "".join(f"<li>{escape(s)}</li>" for s in op_summary(mine, figure_cache(mine), shares.get(op, ())))
        parts.append(f'<section class="answer" id="answer-{escape(op)}"><h3>{escape(op)}</h3>'
                     f'<ul class="summary">{sentences}</ul>'
                     + _report_figure_html(journal_figure(op, mine), f"journal-{op}") + "</section>")
    return "".join(parts)


def history_links(rows: list[dict], history_href) -> str:
    """Where each op's history is drawn, for a page that does not draw it itself."""
    ops = list(dict.fromkeys(r["op"] for r in rows))
    return ("<p>Each op's results over every run of the store, with the steps found (improvements and regressions "
            "side by side): " + ", ".join(f'<a href="{escape(history_href(op))}">{escape(op)}</a>' for op in ops)
            + ".</p>") if ops else ""


SECTION_TITLES = {
    "answer": "The answer, op by op", "findings": "Findings", "experiment": "Experiment: hypothesis and predictions",
    "blocks": "Model blocks in context", "ops": "Per op: boundaries and launch paths",
    "floor": "Fraction of the roofline floor", "roofline": "Roofline", "accuracy": "Accuracy against speed",
    "history": "History across the runs of this store", "contracts": "Contracts",
    "environment": "Environment and method", "results": "All results"}
FLOOR_NOTE = ("Floor = the larger of compulsory bytes ÷ the HBM peak and flops ÷ the device's peak rate at the "
              "implementation's precision, the same definition in every run. Results stored before floors came from "
              "the hardware (their floors were rates measured in the run, another measure) are left out. With a warm L2 "
              "a small case can beat the memory floor: a cache artefact; nothing beats a compute floor.")
ACCURACY_NOTE = ('<p class="note">Each case measured at two precisions or more: every passing implementation\'s relative '
                 "error against the float64 reference (up) and its time (right), both logarithmic; the marker is its "
                 "precision. Lower left is better.</p>")


def build(run: dict, rows: list[StoredRow], shares: dict[str, list[Share]] | None = None, store=None,
          plotly_src: str | None = None, links: list[tuple[str, str]] = (), history_href=None, run_href=None) -> str:
    """The whole report as one HTML string. ``shares``: each op's shares for Amdahl's law (default: those measured
    inside the store's model blocks, mage.report.context.op_shares). ``store``: where the run is stored; without
    one, the experiment and history sections are left out and Amdahl's law has no measured share. For a page of
    a site (mage.report.site): ``plotly_src``, the URL of plotly.js, when the page must not carry its own copy;
    ``links``, (href, text) of the pages around it; ``history_href(op)``, the page of an op's history, linked to
    instead of drawn here; ``run_href(id)``, the page of another run its texts name."""
    experiment = experiment_html(store, run, run_href=run_href) if store is not None else ""
    if shares is None:
        shares = context.op_shares(store) if store is not None else {}
    if history_href is not None:
        past = history_links(rows, history_href)
    else:
        past = history_html(store, run, rows) if store is not None else ""
    blocks = (context_html(store.context_results(run["id"]), store.context_shares(run["id"])) if store is not None
              else "")
    ops = list(dict.fromkeys(r["op"] for r in rows))
    per_op = "".join(
        f'<h3 id="op-{op}">{escape(op)}</h3>'
        + _report_figure_html(boundaries_figure(op, [r for r in rows if r["op"] == op]), f"boundaries-{op}")
        + _report_figure_html(paths_figure(op, [r for r in rows if r["op"] == op]), f"paths-{op}") for op in ops)
    unit = "CPU wall clock" if run["clock"] == "cpu" else "GPU"
    env = run["env"]
    title = f"Mage run {run['id']}: {run['suite']} on {env.get('gpu') or env.get('host_cpu')}"
    commit = commit_label(env)
    trade = accuracy_figures(rows)
    reduction = reduction_figure(rows, run["ceilings"])
    # (anchor, name in the navigation, HTML): a section without content is left out, so that a context run's page,
    # which has model blocks and no op results, opens with its blocks rather than empty op sections.
    sections = [
        ("answer", "the answer", answer_html(rows, shares) if rows else ""),
        ("findings", "findings", '<details class="findings"><summary>Every finding, formulation by formulation'
                                 f"</summary>{_findings_html(findings(run, rows, shares))}</details>" if rows else ""),
        ("experiment", "experiment", experiment),
        ("blocks", "model blocks", blocks),
        ("ops", "ops", '<p class="note">Buttons switch the boundary. Each figure has its own scale; the boundaries come '
                       "from separate measurements and are never subtracted. Whiskers on call spans are the range of "
                       f"the round means.</p>{per_op}" if rows else ""),
        ("floor", "floor", f"<p class=\"note\">{FLOOR_NOTE}</p>" + _report_figure_html(floor_figure(rows), "floor-figure")
         if rows else ""),
        ("roofline", "roofline", _report_figure_html(roofline_figure(rows, run["ceilings"]), "roofline-figure")
         + (_report_figure_html(reduction, "reduction-figure") if reduction else "") + schedule_html(rows)
         if rows else ""),
        ("accuracy", "accuracy", ACCURACY_NOTE + trade if trade else ""),
        ("history", "history", past),
        ("contracts", "contracts", contracts_table(rows) if rows else ""),
        ("environment", "environment and method", _environment_html(run)),
        ("results", "all results", f"<details><summary>{len(rows)} rows, µs per call</summary>{_results_table(rows)}"
                                   "</details>" if rows else ""),
    ]
    sections = [(anchor, name, body) for anchor, name, body in sections if body]
    nav = " ".join(f'<a href="{escape(href)}">{escape(text)}</a>' for href, text in links) + (" | " * bool(links)) + \
        " ".join(f'<a href="#{anchor}">{name}</a>' for anchor, name, _ in sections)
    body = "\n".join(f'<h2 id="{anchor}">{SECTION_TITLES[anchor]}</h2>\n{body}' for anchor, _, body in sections)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>{STYLE}</style>
{plotly_scripts(plotly_src)}</head>
<body>
<h1>{escape(title)}</h1>
<p class="meta">{escape(run['status'])} · {unit} · started {escape(run['started_at'])} ·
torch {escape(env.get('torch'))} · commit {escape(commit)}</p>
<nav>{nav}</nav>
{_failure_banner(rows)}
{body}
</body></html>
"""
