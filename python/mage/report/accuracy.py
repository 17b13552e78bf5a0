"""Accuracy against speed: for each op and case measured at more than one precision, every passing
implementation as one point (its time, its relative error), so what a lower precision buys and costs is
seen at a glance. The time is the single path's kernel time (the call span where no kernel time was
captured, as on the CPU), at one cache state (cold where measured: matmul's large cases are compute-bound
either way, and a cold time is the one a throughput is read from); the error is its contract's worst."""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text

from mage.report.format import us
from mage.store import StoredRow


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


def accuracy_table(rows: list[StoredRow]) -> Table | None:
    """The points as a compact table, each time also as a speed against the case's eager ieee and each
    error as a multiple of eager ieee's (at most 1.00×: as accurate as the library's FP32 product, the
    claim of an IEEE-class kernel); None when no op and case of the run was measured at two precisions."""
    found = points(rows)
    if not found:
        return None
    table = Table(title=Text(f"accuracy against speed · single path · {point_cache(rows)} L2 · fastest first"))
    for column in ("op", "case", "impl", "rel err", "err × eager ieee", "µs", "× eager ieee"):
        table.add_column(column, overflow="fold")
    for (op, case), pts in found.items():
        reference = next((p for p in pts if p.baseline and p.precision == "ieee"), None)
        for p in pts:
            speed = "—" if reference is None else f"{reference.time_us / p.time_us:.2f}×"
            error = "—" if reference is None or not reference.rel_error else f"{p.rel_error / reference.rel_error:.2f}×"
            table.add_row(Text(op), Text(case), Text(p.impl), f"{p.rel_error:.1e}", error, us(p.time_us), speed)
    return table
