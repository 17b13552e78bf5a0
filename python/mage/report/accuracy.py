"""Accuracy against speed: for each op and case measured at more than one precision, every passing
implementation as one point (its time, its relative error), so what a lower precision buys and costs is
seen at a glance. The time is the single path's kernel time (the call span where no kernel time was
captured, as on the CPU), at one cache state (cold where measured: matmul's large cases are compute-bound
either way, and a cold time is the one a throughput is read from); the error is its contract's worst.
``mage show`` prints the points as a table and, per op and case, as a text scatter of the same plane the
report's figure draws (error up, time right, both logarithmic), each point the mark the table gives it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rich.table import Table
from rich.text import Text

from mage.report.format import us
from mage.report.tables import Fit, fitted_table
from mage.store import StoredRow


MARKS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
SCATTER_WIDTH, SCATTER_HEIGHT = 56, 10
LEAST_ERROR = 1e-16  # an exact result is drawn at float64's rounding, where log10 is defined


@dataclass(frozen=True)
class Point:
    impl: str
    precision: str
    baseline: bool
    time_us: float
    rel_error: float


def point_cache(rows: list[StoredRow]) -> str:
    caches = {r["cache"] for r in rows}
    return "cold" if "cold" in caches else "warm"


def points(rows: list[StoredRow]) -> dict[tuple[str, str], list[Point]]:
    """{(op, case): its points, fastest first} for every op and case with passing rows at two precisions or more."""
    cache = point_cache(rows)
    found: dict[tuple[str, str], list[Point]] = {}
    for r in rows:
        time_us = r["kernel_us"] if r["kernel_us"] is not None else r["span_mean_us"]
        measured = time_us is not None and r["rel_error"] is not None
        if (r["path"], r["cache"], r["status"]) != ("single", cache, "pass") or not measured:
            continue
        found.setdefault((r["op"], r["case"]), []).append(
            Point(r["impl"], r["precision"], bool(r["baseline"]), time_us, r["rel_error"]))
    return {key: sorted(pts, key=lambda p: p.time_us) for key, pts in found.items()
            if len({p.precision for p in pts}) > 1}


COLUMNS = ("op", "case", "impl", "rel err", "err × eager ieee", "µs", "× eager ieee", "mark")
# At a narrow width the numbers and the mark stay whole and the names fold after their separators; at a wide
# one a name of the longest kind (triton.k3chunk512/default/tf32x3) keeps one line.
ACCURACY_FIT = Fit(priority=COLUMNS, essential=COLUMNS[3:], folded={"op": 12, "case": 24, "impl": 36},
                   narrowed=("case", "impl"))


def accuracy_table(rows: list[StoredRow], width: int | None = None) -> Table | None:
    """The points as a compact table, each time also as a speed against the case's eager ieee and each
    error as a multiple of eager ieee's (at most 1.00×: as accurate as the library's FP32 product, the
    claim of an IEEE-class kernel), within ``width`` characters (every column when None); None when no op
    and case of the run was measured at two precisions."""
    found = points(rows)
    if not found:
        return None
    cells = []
    for (op, case), pts in found.items():
        reference = next((p for p in pts if p.baseline and p.precision == "ieee"), None)
        for mark, p in zip(MARKS, pts):
            speed = "—" if reference is None else f"{reference.time_us / p.time_us:.2f}×"
            error = "—" if reference is None or not reference.rel_error else f"{p.rel_error / reference.rel_error:.2f}×"
            cells.append([op, case, p.impl, f"{p.rel_error:.1e}", error, us(p.time_us), speed, mark])
    return fitted_table(f"accuracy against speed · single path · {point_cache(rows)} L2 · fastest first",
                        list(COLUMNS), cells, width, ACCURACY_FIT)


def _cell(value: float, low: float, high: float, cells: int) -> int:
    """Which of ``cells`` equal steps of log10 between low and high ``value`` falls in (all in one when low = high)."""
    span = math.log10(high) - math.log10(low)
    return 0 if span <= 0 else round((math.log10(value) - math.log10(low)) / span * (cells - 1))


def scatter(pts: list[Point], width: int = SCATTER_WIDTH, height: int = SCATTER_HEIGHT) -> list[str]:
    """The points as text: relative error (log) rising upward against time (log) to the right, each point its
    mark (MARKS in the order given, as in the table), '*' where two fall in one cell; the axes end at the least
    and greatest error and time, labelled there."""
    errors = [max(p.rel_error, LEAST_ERROR) for p in pts]
    times = [p.time_us for p in pts]
    grid = [[" "] * width for _ in range(height)]
    for mark, error, time_us in zip(MARKS, errors, times):
        row = height - 1 - _cell(error, min(errors), max(errors), height)
        col = _cell(time_us, min(times), max(times), width)
        grid[row][col] = mark if grid[row][col] == " " else "*"
    top, bottom = f"{max(errors):.1e}", f"{min(errors):.1e}"
    margin = max(len(top), len(bottom))
    lines = []
    for row, cells in enumerate(grid):
        label = top if row == 0 else bottom if row == height - 1 else ""
        lines.append(f"{label:>{margin}} {'┤' if label else '│'}{''.join(cells).rstrip()}")
    lines.append(" " * margin + " └" + "─" * width)
    left, right = f"{us(min(times))} µs", f"{us(max(times))} µs"
    lines.append(" " * (margin + 2) + left + right.rjust(width - len(left)))
    return lines


def scatters(rows: list[StoredRow]) -> list[Text]:
    """One scatter per op and case measured at two precisions or more, titled, in the table's order."""
    title = "{} {}: relative error (log) against time (log), marks as in the table"
    return [Text("\n".join([title.format(op, case), *scatter(pts)])) for (op, case), pts in points(rows).items()]
