"""The static figure in the journal's layout (PNG and SVG): kernel time on top, call span below.

One column per op and case, each column on its own scale, so implementations compare within a
column and never across ops. Single path, one cache state (warm where measured); the Markdown
tables carry the same numbers.
"""

from __future__ import annotations

from pathlib import Path

from mage import atomic
from mage.report.findings import caches_of, short_labels
from mage.report.format import us
from mage.store import StoredRow

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
    paths = [out_dir / "figure.png", out_dir / "figure.svg"]
    # No date and fixed element ids: the same run draws the same bytes, so a committed figure can be checked.
    with matplotlib.rc_context({"svg.hashsalt": f"mage-run-{run['id']}"}):
        for path, metadata in zip(paths, ({"Software": None}, {"Date": None})):
            with atomic.replacing(path, binary=True) as out:
                figure.savefig(out, format=path.suffix[1:], dpi=150, metadata=metadata)
    plt.close(figure)
    return paths
