"""Suspect results: times no honest implementation can reach (GUIDE §1, roofline).

A passing result is flagged, with the reason stored beside it, when at a boundary it measured
- it is faster than 90 % of its roofline floor (FLOOR_MARGIN), where the floor holds: on a cold cache, or when the case's
  compulsory bytes cannot fit in the cache (a warm small case may legitimately beat the DRAM floor);
- it is more than SUSPECT_RATIO× faster than the best other implementation of the same op, case
  and variant at the same path and cache state.
The kernel time is judged where it was captured (the GPU's single path), the span everywhere.
"""

from __future__ import annotations

from mage.store import Result

SUSPECT_RATIO = 10.0
# The memory floor divides by the measured copy rate, a 50/50 read/write stream; read-heavy kernels beat
# it by a few percent on the H200 (bias_gelu 16384², 505 µs against a 514 µs floor, run 2 of
# results/h200). Only a result clearly below the floor is impossible.
FLOOR_MARGIN = 0.9
BOUNDARIES = {"kernel_us": "kernel time", "span_mean_us": "span"}


def _floor_reasons(result: Result, floor_holds: bool) -> list[str]:
    if not (floor_holds and result.floor_us):
        return []
    return [f"{label} {getattr(result, field):.3g} µs is below its roofline floor {result.floor_us:.3g} µs"
            for field, label in BOUNDARIES.items()
            if getattr(result, field) is not None and getattr(result, field) < FLOOR_MARGIN * result.floor_us]


def _ratio_reasons(result: Result, others: list[tuple[str, Result]]) -> list[str]:
    reasons = []
    for field, label in BOUNDARIES.items():
        mine = getattr(result, field)
        timed = [(getattr(other, field), name) for name, other in others if getattr(other, field) is not None]
        if mine is None or not timed:
            continue
        best, best_name = min(timed)
        if mine * SUSPECT_RATIO < best:
            reasons.append(f"{label} {mine:.3g} µs is {best / mine:.0f}× faster than the best other "
                           f"implementation ({best_name}, {best:.3g} µs)")
    return reasons


def flag(results: list[tuple[str, str, Result]], cache_bytes: int) -> None:
    """Set ``suspect`` on each passing result of one case; ``results`` are (name, variant, result)."""
    passing = [(name, variant, r) for name, variant, r in results if r.status == "pass"]
    for name, variant, result in passing:
        others = [(other_name, other) for other_name, other_variant, other in passing
                  if other_name != name and other_variant == variant
                  and (other.path, other.cache) == (result.path, result.cache)]
        floor_holds = result.cache == "cold" or (result.bytes or 0) > cache_bytes
        reasons = _floor_reasons(result, floor_holds) + _ratio_reasons(result, others)
        result.suspect = "; ".join(reasons) or None
