"""The static figure in the journal's layout (PNG and SVG): kernel time on top, call span below.

One panel per op and case, each on its own scale, so implementations compare within a panel and
never across ops; a row of panels per op, wrapped, so the figure fits a screen (at most 2,400 px
wide). Single path, one cache state (warm where measured); the Markdown tables carry the same numbers.

A run measured at several precisions also gets accuracy.png/.svg (draw_accuracy): relative error against
time, one point per implementation and precision.

A context run also gets context.png/.svg (draw_context): Amdahl's predicted block speedup against the
measured one, with the y = x line, and each block's kernel time stacked by op call site per assignment.
"""

from __future__ import annotations

from pathlib import Path

from mage import atomic
from mage.report import accuracy, context
from mage.report.findings import caches_of, short_labels
from mage.report.format import us
from mage.store import BlockOpShare, BlockResult, StoredRow

FAMILY_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
HATCHES = ("", "//", "..", "xx", "\\\\", "++", "--", "||")  # strategy/variant/precision within a family's colour
DPI = 150
FORMATS = ("png", "svg")
MAX_WIDTH_IN = 16.0  # 2,400 pixels at DPI: a screen or a page, never wider
# Inches. A row: the op's name, a case title, kernel-time axes, a gap, call-span axes, room below.
LEGEND_WIDTH_IN, TITLE_IN, LEFT_IN, LEGEND_ENTRY_IN = 2.4, 0.6, 0.75, 0.14  # the legend beside; the figure's title above; y labels left
AXIS_HEIGHT_IN, AXIS_GAP_IN, ROW_HEIGHT_IN = 1.15, 0.35, 3.3
BAR_WIDTH_IN, MIN_BARS, PANEL_MARGIN_IN = 0.2, 4, 0.5  # a panel: its bars, and right of them room for the next's y ticks
UPRIGHT_VALUES = 3  # value labels stand upright over at most this many bars, else they are turned


def figure_cache(rows: list[dict]) -> str:
    caches = caches_of(rows)
    return "warm" if "warm" in caches else caches[0]


def columns(rows: list[dict], cache: str) -> list[tuple[str, str, list[dict]]]:
    """(op, case, its passing single-path rows at ``cache``) for every op and case of the run."""
    single = [r for r in rows if r["path"] == "single" and r["cache"] == cache and r["status"] == "pass"]
    keys = dict.fromkeys((r["op"], r["case"]) for r in single)
    return [(op, case, [r for r in single if (r["op"], r["case"]) == (op, case)]) for op, case in keys]


def styles(rows: list[dict]) -> dict[str, tuple[str, int]]:
    """(colour, pattern number) per implementation: colour by family, pattern by strategy/variant/precision.

    Patterns are numbered within each op, so every op's first formulation is plain. The HTML report
    uses the same, so an implementation looks alike in both."""
    seen = list(dict.fromkeys(r["family"] for r in rows))
    baselines = {r["family"] for r in rows if r["baseline"]}
    # the baseline's family first, so the colours mean the same in every run
    families = sorted(seen, key=lambda f: (f not in baselines, seen.index(f)))

    def kind(row: dict) -> str:
        return f"{row['strategy']}/{row['variant']}/{row['precision']}"

    kinds = {op: list(dict.fromkeys(kind(r) for r in rows if r["op"] == op))
             for op in dict.fromkeys(r["op"] for r in rows)}
    return {r["impl"]: (FAMILY_COLORS[families.index(r["family"]) % len(FAMILY_COLORS)],
                        kinds[r["op"]].index(kind(r))) for r in rows}


def _bars(axis, column: list[dict], field: str, style: dict, whiskers: bool) -> None:
    """One panel: a bar per implementation, coloured and hatched as in the legend, its value above it."""
    if all(r[field] is None for r in column):
        axis.text(0.5, 0.5, "not measured", ha="center", va="center", transform=axis.transAxes, fontsize=7)
        axis.set_axis_off()
        return
    values = [r[field] for r in column]
    errors = None
    if whiskers:
        errors = [[r["span_mean_us"] - r["span_round_min_us"] for r in column],
                  [r["span_round_max_us"] - r["span_mean_us"] for r in column]]
    bars = axis.bar(range(len(column)), [v or 0 for v in values], yerr=errors, capsize=2, edgecolor="white",
                    color=[style[r["impl"]][0] for r in column], error_kw={"linewidth": 0.8})
    for bar, row in zip(bars, column):
        bar.set_hatch(HATCHES[style[row["impl"]][1] % len(HATCHES)])
    upright = len(column) <= UPRIGHT_VALUES  # more upright value labels would run into each other
    axis.bar_label(bars, labels=[us(v) for v in values], fontsize=6, padding=2, rotation=0 if upright else 90)
    top = max(max(v or 0 for v in values), max((r["span_round_max_us"] for r in column), default=0) if whiskers else 0)
    axis.set_ylim(0, (top or 1) * (1.25 if upright else 1.6))  # room above the tallest bar for its value
    axis.set_xticks([])
    axis.tick_params(axis="y", labelsize=6)
    axis.spines[["top", "right"]].set_visible(False)


def _legend_labels(rows: list[dict]) -> dict[str, str]:
    """Short names of one op's implementations; a suspect time says so beside its name."""
    labels = short_labels(list(dict.fromkeys(r["impl"] for r in rows)))
    return {impl: text + (" (SUSPECT)" if any(r.get("suspect") for r in rows if r["impl"] == impl) else "")
            for impl, text in labels.items()}


def _panel_width(column: list[dict]) -> float:
    """Inches: the same width a bar in every panel, so value labels over neighbouring bars never collide."""
    return max(MIN_BARS, len(column)) * BAR_WIDTH_IN + PANEL_MARGIN_IN


def _rows_of_panels(cols: list[tuple[str, str, list[dict]]]) -> list[tuple[str, list[tuple[str, list[dict]]], bool]]:
    """(op, its panels in this row, whether the row is the op's first): every op starts a row of its own and
    wraps where the next panel would make the row wider than MAX_WIDTH_IN beside the legend."""
    lines = []
    for op in dict.fromkeys(op for op, _, _ in cols):
        panels, width = [], 0.0
        for o, case, column in cols:
            if o != op:
                continue
            if panels and width + _panel_width(column) > MAX_WIDTH_IN - LEGEND_WIDTH_IN - LEFT_IN:
                lines.append((op, panels, not any(line[0] == op for line in lines)))
                panels, width = [], 0.0
            panels.append((case, column))
            width += _panel_width(column)
        lines.append((op, panels, not any(line[0] == op for line in lines)))
    return lines


def draw(run: dict, rows: list[StoredRow], out_dir: Path, formats: tuple[str, ...] = FORMATS) -> list[Path]:
    """Write figure.png and figure.svg (``formats``) into ``out_dir``; returns their paths.

    At most MAX_WIDTH_IN × DPI pixels wide: a row of panels per op (wrapped where it would be wider),
    kernel time above call span, each panel on its own scale so a 5 µs case is as legible as a 20 ms one;
    implementations told apart by colour (family) and hatching (strategy, variant, precision), named once
    in the op's legend. Every axis is placed at computed inches, not by a layout engine: matplotlib's
    constrained layout moves them by rounding that differs between processes, and a committed figure
    must come out the same bytes every time."""
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    cache = figure_cache(rows)
    cols, style = columns(rows, cache), styles(rows)
    lines = _rows_of_panels(cols) if cols else []
    widest = max((sum(_panel_width(column) for _, column in panels) for _, panels, _ in lines),
                 default=_panel_width([]))
    legends = [list(dict.fromkeys(r["impl"] for _, column in panels for r in column)) for _, panels, _ in lines]
    heights = [max(ROW_HEIGHT_IN, 0.6 + LEGEND_ENTRY_IN * len(shown)) for shown in legends]  # a long legend fits
    width, height = LEFT_IN + widest + LEGEND_WIDTH_IN, TITLE_IN + (sum(heights) or ROW_HEIGHT_IN)
    figure = plt.figure(figsize=(width, height))
    clock = "CPU wall clock" if run["clock"] == "cpu" else run["env"].get("gpu", "GPU")
    figure.text(0.5, 1 - 0.1 / height, f"Mage run {run['id']} · {clock} · single path · {cache} L2\nkernel time "
                "above, call span below; each panel on its own scale", fontsize=9, ha="center", va="top")

    def box(left: float, top: float, w: float, h: float) -> list[float]:  # inches from the top left → figure
        return [left / width, 1 - (top + h) / height, w / width, h / height]

    for index, ((op, panels, first), shown) in enumerate(zip(lines, legends)):
        top = TITLE_IN + sum(heights[:index])
        figure.text(0.08 / width, 1 - top / height, op if first else f"{op} (continued)", fontsize=9,
                    fontweight="bold", va="top")
        left = LEFT_IN
        for position, (case, column) in enumerate(panels):
            bars = _panel_width(column) - PANEL_MARGIN_IN
            upper = figure.add_axes(box(left, top + 0.5, bars, AXIS_HEIGHT_IN))
            lower = figure.add_axes(box(left, top + 0.5 + AXIS_HEIGHT_IN + AXIS_GAP_IN, bars, AXIS_HEIGHT_IN))
            upper.set_title(case, fontsize=7)
            _bars(upper, column, "kernel_us", style, whiskers=False)
            _bars(lower, [r for r in column if r["span_mean_us"] is not None], "span_mean_us", style, whiskers=True)
            if position == 0:
                upper.set_ylabel("kernel time, µs", fontsize=7)
                lower.set_ylabel("call span, µs\n(whiskers: round means)", fontsize=7)
            left += _panel_width(column)
        labels = _legend_labels([r for r in rows if r["op"] == op])
        figure.legend(handles=[Patch(facecolor=style[impl][0], edgecolor="white", label=labels[impl],
                                     hatch=HATCHES[style[impl][1] % len(HATCHES)]) for impl in shown],
                      loc="upper left", bbox_to_anchor=((LEFT_IN + widest + 0.1) / width, 1 - (top + 0.45) / height),
                      fontsize=6, frameon=False, borderaxespad=0)
    return save(figure, run, out_dir, "figure", formats)


PRECISION_MARKERS = {"ieee": "o", "tf32x3": "D", "tf32": "s", "bf16": "^", "fp16": "v"}


def draw_accuracy(run: dict, rows: list[StoredRow], out_dir: Path, formats: tuple[str, ...] = FORMATS) -> list[Path]:
    """Write accuracy.png and accuracy.svg: per op and case measured at two precisions or more, relative error
    (log) against time (log), one point per implementation and precision (mage.report.accuracy). Their
    paths; none when no case has points to compare."""
    found = accuracy.points(rows)
    if not found:
        return []
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    style = styles(rows)
    figure, axes = plt.subplots(1, len(found), figsize=(max(5.0, 4.6 * len(found)), 4.4), squeeze=False)
    for axis, ((op, case), pts) in zip(axes[0], found.items()):
        labels = short_labels([p.impl for p in pts])
        for p in pts:
            axis.scatter(p.time_us, p.rel_error, s=36, color=style[p.impl][0], edgecolor="black", linewidth=0.4,
                         marker=PRECISION_MARKERS.get(p.precision, "o"), zorder=3)
            axis.annotate(labels[p.impl], (p.time_us, p.rel_error), textcoords="offset points", xytext=(4, 3),
                          fontsize=6)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_title(f"{op}\n{case}", fontsize=9)
        axis.set_xlabel("kernel time, µs (span where none)", fontsize=8)
        axis.tick_params(labelsize=7)
        axis.grid(True, which="major", linewidth=0.3)
        axis.spines[["top", "right"]].set_visible(False)
    axes[0][0].set_ylabel("relative error ‖out − ref‖ / ‖ref‖", fontsize=8)
    clock = "CPU wall clock" if run["clock"] == "cpu" else run["env"].get("gpu", "GPU")
    figure.suptitle(f"Mage run {run['id']} · {clock}\naccuracy against speed · single path · "
                    f"{accuracy.point_cache(rows)} L2 · lower left is better", fontsize=10)
    figure.tight_layout()
    return save(figure, run, out_dir, "accuracy", formats)


def save(figure, run: dict, out_dir: Path, name: str, formats: tuple[str, ...]) -> list[Path]:
    """Write ``name``.png and .svg (those of ``formats``) and close the figure; their paths."""
    import matplotlib
    import matplotlib.pyplot as plt

    paths = [out_dir / f"{name}.{suffix}" for suffix in formats]
    # No date and fixed element ids: the same run draws the same bytes, so a committed figure can be checked.
    # Text stays text in the SVG (smaller, searchable; its labels can be checked for overlap).
    with matplotlib.rc_context({"svg.hashsalt": f"mage-run-{run['id']}", "svg.fonttype": "none"}):
        for path in paths:
            metadata = {"png": {"Software": None}, "svg": {"Date": None}}[path.suffix[1:]]
            with atomic.replacing(path, binary=True) as out:
                figure.savefig(out, format=path.suffix[1:], dpi=DPI, metadata=metadata)
    plt.close(figure)
    return paths


def draw_context(run: dict, results: list[BlockResult], shares: list[BlockOpShare], out_dir: Path,
                 formats: tuple[str, ...] = FORMATS) -> list[Path]:
    """Write context.png and context.svg: predicted against measured block speedup (y = x drawn), then per
    block its single-path kernel time stacked by op call site for each assignment. Their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    keys = context.blocks(results)
    stacks = [context.site_times(results, shares, block, precision) for block, precision in keys]
    widths = [3.0] + [max(2.0, 0.6 * len(bars)) for _, bars in stacks]
    figure, axes = plt.subplots(1, len(widths), figsize=(min(MAX_WIDTH_IN, max(7.0, 1.2 * sum(widths) + 1.6)), 4.8), squeeze=False,
                                gridspec_kw={"width_ratios": widths})
    scatter = axes[0][0]
    for index, (block, precision) in enumerate(keys):
        points = [r for r in results if (r.block, r.precision) == (block, precision) and r.status == "pass"
                  and r.predicted_speedup and r.measured_speedup and r.kind != "eager"]
        for path, marker in (("single", "o"), ("graph", "s")):
            mine = [r for r in points if r.path == path]
            if mine:
                scatter.scatter([r.predicted_speedup for r in mine], [r.measured_speedup for r in mine], marker=marker,
                                color=FAMILY_COLORS[index % len(FAMILY_COLORS)], label=f"{block} {precision} {path}")
    drawn = [v for r in results if r.predicted_speedup and r.measured_speedup
             for v in (r.predicted_speedup, r.measured_speedup)] or [1.0]
    line = [min(drawn) * 0.9, max(drawn) * 1.1]
    scatter.plot(line, line, color="#555", linestyle="--", linewidth=1, label="y = x (Amdahl exact)")
    scatter.set_xscale("log")  # speedups from a few percent to several times
    scatter.set_yscale("log")
    for axis in (scatter.xaxis, scatter.yaxis):
        axis.set_major_locator(LogLocator(subs=(1, 2, 5)))
        axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}×"))
        axis.set_minor_formatter(NullFormatter())
    scatter.set_xlabel("Amdahl predicted speedup", fontsize=9)
    scatter.set_ylabel("measured block speedup (span)", fontsize=9)
    scatter.legend(fontsize=6, loc="upper left")
    scatter.tick_params(labelsize=7)
    for axis, (block, precision), (sites, bars) in zip(axes[0][1:], keys, stacks):
        axis.set_title(f"{block}\n{precision}", fontsize=9)
        bottoms = [0.0] * len(bars)
        for index, site in enumerate([*sites, "other kernels"]):
            heights = [(per_site[index] if index < len(sites) else rest) or 0.0 for _, per_site, rest in bars]
            axis.bar(range(len(bars)), heights, bottom=bottoms, label=site, edgecolor="white",
                     color=FAMILY_COLORS[index % len(FAMILY_COLORS)] if index < len(sites) else "#bbbbbb")
            bottoms = [b + h for b, h in zip(bottoms, heights)]
        axis.set_xticks(list(range(len(bars))), [a for a, _, _ in bars], rotation=55, ha="right", fontsize=6)
        axis.tick_params(axis="y", labelsize=7)
        axis.legend(fontsize=6)
        axis.spines[["top", "right"]].set_visible(False)
    axes[0][min(1, len(keys))].set_ylabel("block kernel time, µs (single path)", fontsize=9)
    figure.suptitle(f"Mage run {run['id']} · model blocks: Amdahl against measured, kernel time by call site",
                    fontsize=10)
    figure.tight_layout()
    return save(figure, run, out_dir, "context", formats)
