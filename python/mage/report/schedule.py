"""neighbor_agg's scheduling study: time relative to cuSPARSE against degree skew, per schedule.

From a run's schedule-suite rows (cases ``GRAPH-64k-F<width>``): every passing single-path row's kernel
time ÷ cuSPARSE's on the same case and cache (cold where measured), against the coefficient of variation
(CV) of the graph's row degrees, on a log axis: unlike the Gini, which puts one hub holding a tenth of the
edges below a power law, the CV grows with the one row that outlasts the
grid. The stats are those stored with the case (OpSpec.case_stats), else recomputed from the case's seeded
graph (runs stored before the stats were). One panel per feature width, one
line per schedule (implementation, every variant); and a sentence per graph naming its fastest schedule by
kernel time at each width. cuSPARSE has a sum only, so a mean row is read against cuSPARSE's sum, as
the study's targets are.

``draw`` writes the static figure (schedule.png/.svg), nothing for a run without schedule-suite rows;
``interactive`` is the HTML report's figure of a ``study``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from mage import registry
from mage.report.figures import DPI, FAMILY_COLORS, FORMATS, MAX_WIDTH_IN, save
from mage.store import StoredRow

OP, SUITE, REFERENCE = "neighbor_agg", "schedule", "cusparse"
CASE_NAME = re.compile(r"(?P<graph>.+)-F(?P<width>\d+)")


@dataclass(frozen=True)
class Study:
    cache: str
    widths: list[int]
    graphs: list[str]  # by increasing skew
    cv: dict[str, float]  # per graph
    ratio: dict[tuple[str, str, int], float]  # (schedule, graph, width) → kernel time ÷ cuSPARSE's

    @property
    def schedules(self) -> list[str]:
        return list(dict.fromkeys(schedule for schedule, _, _ in self.ratio))

    def line(self, schedule: str, width: int) -> tuple[list[float], list[float]]:
        """(CV, ratio) of one schedule at one width, over the graphs it was measured on."""
        graphs = [g for g in self.graphs if (schedule, g, width) in self.ratio]
        return [self.cv[g] for g in graphs], [self.ratio[(schedule, g, width)] for g in graphs]

    def winners(self) -> list[str]:
        """One sentence per graph: the fastest schedule at each width by kernel time, and where cuSPARSE is
        the fastest, the best of the others beside it."""
        sentences = []
        for graph in self.graphs:
            best = {}
            for width in self.widths:
                measured = {s: r for (s, g, w), r in self.ratio.items() if g == graph and w == width}
                if measured:
                    best[width] = min(measured.items(), key=lambda item: item[1])
            said = "; ".join(f"F{w} {s} ({r:.2f}× cuSPARSE)" if r < 1.0 else f"F{w} cuSPARSE (next {s}, {r:.2f}×)"
                             for w, (s, r) in best.items())
            sentences.append(f"{graph} (degree CV {self.cv[graph]:.2f}): fastest at {said}.")
        return sentences


def study(rows: list[StoredRow]) -> Study | None:
    """The study's ratios from a run's rows; None without schedule-suite rows that cuSPARSE was measured beside."""
    rows = [r for r in rows if r["op"] == OP and r["suite"] == SUITE and r["path"] == "single"
            and r["status"] == "pass" and r["kernel_us"] and CASE_NAME.fullmatch(r["case"])]
    cache = "cold" if any(r["cache"] == "cold" for r in rows) else "warm"
    rows = [r for r in rows if r["cache"] == cache]
    reference = {r["case"]: r["kernel_us"] for r in rows if r["family"] == REFERENCE}
    ratio, cv = {}, {}
    for r in rows:
        if r["family"] == REFERENCE or r["case"] not in reference:
            continue
        found = CASE_NAME.fullmatch(r["case"])
        graph, width = found["graph"], int(found["width"])
        ratio[(r["impl"].removesuffix("/ieee"), graph, width)] = r["kernel_us"] / reference[r["case"]]
        if graph not in cv:
            cv[graph] = _cv(r)
    if not ratio:
        return None
    widths = sorted({w for _, _, w in ratio})
    return Study(cache, widths, sorted(cv, key=cv.get), cv, ratio)


def _cv(row: StoredRow) -> float:
    stats = json.loads(row["case_stats"] or "null")
    if not stats or "cv" not in stats:
        spec = registry.get_op(OP)
        [case] = [c for c in spec.cases() if c.name == row["case"]]
        stats = spec.case_stats(case)
    return stats["cv"]


def _title(found: Study) -> str:
    return f"neighbor_agg schedules: kernel time ÷ cuSPARSE against degree skew ({found.cache} L2)"


def draw(run: dict, rows: list[StoredRow], out_dir: Path, formats: tuple[str, ...] = FORMATS) -> list[Path]:
    """schedule.png/.svg: a panel per feature width, a line per schedule; [] without the study's rows."""
    found = study(rows)
    return [] if found is None else save(static(found), run, out_dir, "schedule", formats)


def static(found: Study):
    """The matplotlib figure of a study (the caller saves and closes it)."""
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    width_in = min(MAX_WIDTH_IN, 4.3 * len(found.widths) + 2.2)
    figure, axes = plt.subplots(1, len(found.widths), figsize=(width_in, 4.0), sharey=True, squeeze=False, dpi=DPI)
    for axis, width in zip(axes[0], found.widths):
        for number, schedule in enumerate(found.schedules):
            x, y = found.line(schedule, width)
            axis.plot(x, y, marker="o", label=schedule, color=FAMILY_COLORS[number % len(FAMILY_COLORS)],
                      linestyle=("-", "--", ":", "-.")[number // len(FAMILY_COLORS) % 4])
        axis.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_title(f"F {width}", fontsize=10)
        axis.set_xlabel("CV of row degrees")
    axes[0][0].set_ylabel("kernel time ÷ cuSPARSE (dashed: 1)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="center right", fontsize=8, frameon=False)
    figure.suptitle(_title(found), fontsize=11)
    figure.subplots_adjust(left=0.06, right=1.0 - 2.0 / width_in, top=0.86, bottom=0.14, wspace=0.08)
    return figure


def interactive(found: Study):
    """The report's figure (plotly): the static figure's panels and lines."""
    from plotly.subplots import make_subplots

    figure = make_subplots(rows=1, cols=len(found.widths), shared_yaxes=True,
                           subplot_titles=[f"F {w}" for w in found.widths])
    for column, width in enumerate(found.widths, start=1):
        for number, schedule in enumerate(found.schedules):
            x, y = found.line(schedule, width)
            figure.add_scatter(x=x, y=y, mode="lines+markers", name=schedule, legendgroup=schedule,
                               showlegend=column == 1, line={"color": FAMILY_COLORS[number % len(FAMILY_COLORS)]},
                               row=1, col=column)
        figure.add_hline(y=1.0, line_dash="dash", row=1, col=column)
        figure.update_xaxes(type="log", title_text="CV of row degrees", row=1, col=column)
    figure.update_yaxes(type="log")  # every panel on one scale: equal heights, equal ratios
    figure.update_yaxes(title_text="kernel time ÷ cuSPARSE", row=1, col=1)
    figure.update_layout(title=_title(found), height=520)
    return figure
