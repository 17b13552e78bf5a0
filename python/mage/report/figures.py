"""The static figure in the journal's layout (PNG and SVG): kernel time on top, call span below.

One column per op and case, each column on its own scale, so implementations compare within a
column and never across ops. Single path, one cache state (warm where measured); the Markdown
tables carry the same numbers.

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
    if all(r[field] is None for r in column):
        axis.text(0.5, 0.5, "not measured", ha="center", va="center", transform=axis.transAxes, fontsize=8)
        axis.set_axis_off()
        return
    labels = short_labels([r["impl"] for r in column])
    values = [r[field] for r in column]
    errors = None
    if whiskers:
        errors = [[r["span_mean_us"] - r["span_round_min_us"] for r in column],
                  [r["span_round_max_us"] - r["span_mean_us"] for r in column]]
    positions = range(len(column))
    bars = axis.bar(positions, [v or 0 for v in values], yerr=errors, capsize=3, edgecolor="white",
                    color=[style[r["impl"]][0] for r in column])
    for bar, row in zip(bars, column):
        bar.set_hatch(HATCHES[style[row["impl"]][1] % len(HATCHES)])
    crowded = len(column) > 4  # upright value labels would overlap
    axis.bar_label(bars, labels=[us(v) for v in values], fontsize=6 if crowded else 7, padding=2,
                   rotation=90 if crowded else 0)
    axis.set_xticks(list(positions), [labels[r["impl"]] for r in column], rotation=55, ha="right", fontsize=7)
    axis.tick_params(axis="y", labelsize=7)
    axis.margins(y=0.18)
    axis.spines[["top", "right"]].set_visible(False)


def draw(run: dict, rows: list[StoredRow], out_dir: Path) -> list[Path]:
    """Write figure.png and figure.svg into ``out_dir``; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    cache = figure_cache(rows)
    cols, style = columns(rows, cache), styles(rows)
    widths = [max(2, len(column)) for *_, column in cols] or [2]  # a bar's width is alike in every column
    figure, axes = plt.subplots(2, len(widths), figsize=(max(7.0, 0.75 * sum(widths) + 1.6), 6.6), squeeze=False,
                                gridspec_kw={"width_ratios": widths})
    for index, (op, case, column) in enumerate(cols):
        top, bottom = axes[0][index], axes[1][index]
        top.set_title(f"{op}\n{case}", fontsize=9)
        _bars(top, column, "kernel_us", style, whiskers=False)
        _bars(bottom, [r for r in column if r["span_mean_us"] is not None], "span_mean_us", style, whiskers=True)
    axes[0][0].set_ylabel("kernel time, µs", fontsize=9)
    axes[1][0].set_ylabel("call span, µs\n(whiskers: round means)", fontsize=9)
    clock = "CPU wall clock" if run["clock"] == "cpu" else run["env"].get("gpu", "GPU")
    figure.suptitle(f"Mage run {run['id']} · {clock} · single path · {cache} L2 · each column on its own scale",
                    fontsize=10)
    figure.tight_layout()
    return _save(figure, run, out_dir, "figure")


PRECISION_MARKERS = {"ieee": "o", "tf32x3": "D", "tf32": "s", "bf16": "^", "fp16": "v"}


def draw_accuracy(run: dict, rows: list[StoredRow], out_dir: Path) -> list[Path]:
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
    return _save(figure, run, out_dir, "accuracy")


def _save(figure, run: dict, out_dir: Path, name: str) -> list[Path]:
    """Write ``name``.png and .svg and close the figure; their paths."""
    import matplotlib
    import matplotlib.pyplot as plt

    paths = [out_dir / f"{name}.png", out_dir / f"{name}.svg"]
    # No date and fixed element ids: the same run draws the same bytes, so a committed figure can be checked.
    with matplotlib.rc_context({"svg.hashsalt": f"mage-run-{run['id']}"}):
        for path, metadata in zip(paths, ({"Software": None}, {"Date": None})):
            with atomic.replacing(path, binary=True) as out:
                figure.savefig(out, format=path.suffix[1:], dpi=150, metadata=metadata)
    plt.close(figure)
    return paths


def draw_context(run: dict, results: list[BlockResult], shares: list[BlockOpShare], out_dir: Path) -> list[Path]:
    """Write context.png and context.svg: predicted against measured block speedup (y = x drawn), then per
    block its single-path kernel time stacked by op call site for each assignment. Their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    keys = context.blocks(results)
    stacks = [context.site_times(results, shares, block, precision) for block, precision in keys]
    widths = [3.0] + [max(2.0, 0.6 * len(bars)) for _, bars in stacks]
    figure, axes = plt.subplots(1, len(widths), figsize=(max(7.0, 1.2 * sum(widths) + 1.6), 4.8), squeeze=False,
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
    return _save(figure, run, out_dir, "context")
