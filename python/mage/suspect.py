"""Suspect results: times no honest implementation can reach (GUIDE §1, roofline and agreeing boundaries).

A passing result is flagged, with the reason stored beside it, when
- a time it measured (kernel time, span) is below FLOOR_MARGIN of a hardware floor that holds: the
  compute floor (flops at the device's peak rate) in every cache state, since no cache supplies
  arithmetic; the memory floor (compulsory bytes at the HBM peak) on a cold cache, or when the case's
  bytes cannot fit in the cache (a warm small case may legitimately beat it);
- its boundaries disagree where physics says they must agree (per implementation and case, across its
  rows; BOUNDARY_MARGIN): a batch or graph span per call below its own warm kernel time, the kernel
  time above the single span that contains it, or a GPU call that launched nothing while profiled;
- on the GPU clock, it is more than SUSPECT_RATIO× faster than the best other implementation of the
  same op, case and variant at the same path and cache state, interpreted implementations left out
  (on the CPU the clock measures Python and the interpreter, not kernels).
The kernel time is judged where it was captured (the GPU's single path), the span everywhere.
"""

from __future__ import annotations

from mage.store import Result

SUSPECT_RATIO = 10.0
# Hardware floors are bounds at the device's maximum clocks, not rates anyone reached, so an honest
# kernel sits above them (H200: cuBLAS at 77 % of the FP32 peak, the best streaming kernels at ~88 % of
# HBM). The margin only absorbs the timers' granularity on the shortest kernels and NVML's rounding of
# clocks to a MHz; anything more than 5 % below a floor is impossible.
FLOOR_MARGIN = 0.95
# Kernel time and spans are measured at different moments, whose SM clocks can differ by a few percent
# (findings.CLOCK_SPREAD); beyond that a per-call span can never be below the kernels it runs, nor a
# kernel capture above the span that contains those kernels. The spans are read at their slowest and
# fastest round means, so their own spread counts in the call's favour.
BOUNDARY_MARGIN = 0.10
BOUNDARIES = {"kernel_us": "kernel time", "span_mean_us": "span"}


def _floor_reasons(result: Result, memory_floor_holds: bool) -> list[str]:
    floors = [("compute", result.compute_floor_us),
              ("memory", result.memory_floor_us if memory_floor_holds else None)]
    return [f"{label} {getattr(result, field):.3g} µs is below its {kind} floor {floor:.3g} µs"
            + (" (arithmetic: no cache state can beat it)" if kind == "compute" else "")
            for kind, floor in floors if floor
            for field, label in BOUNDARIES.items()
            if getattr(result, field) is not None and getattr(result, field) < FLOOR_MARGIN * floor]


def _boundary_reasons(result: Result, warm_kernel_us: float | None, clock: str) -> list[str]:
    """Where ``result``'s boundaries contradict each other; ``warm_kernel_us``: its implementation's
    kernel time on a warm cache (a cold batch or graph replays warm after its first call)."""
    reasons = []
    slowest = result.span_round_max_us or result.span_mean_us
    fastest = result.span_round_min_us or result.span_mean_us
    if result.path in ("batch", "graph") and warm_kernel_us and slowest is not None \
            and slowest < (1 - BOUNDARY_MARGIN) * warm_kernel_us:
        reasons.append(f"{result.path} span {slowest:.3g} µs per call is below its own kernel time "
                       f"{warm_kernel_us:.3g} µs: the calls timed did less work than the calls profiled")
    # Back-to-back profiled calls can hold a power cap that synchronized single calls escape (H200, tf32
    # matmul 8192³: 2,763 µs at full clock, 3,121 µs capped; results/README.md): where NVML saw a slowdown
    # while this row was measured, a kernel time above the span is the clock's, not a sign of cheating.
    if result.path == "single" and result.kernel_us and fastest is not None and not result.clock_events \
            and result.kernel_us > (1 + BOUNDARY_MARGIN) * fastest:
        reasons.append(f"kernel time {result.kernel_us:.3g} µs is above the single span {fastest:.3g} µs that "
                       "contains it: the calls profiled did more work than the calls timed")
    # Every call of a GPU implementation puts work on the GPU; fewer than one activity a call means some calls
    # launched nothing (an answer handed back from memory while profiled, say).
    if clock == "gpu" and result.launches is not None and result.launches < 1:
        silent = "it launched nothing on the GPU while profiled" if result.launches == 0 else (
            f"it launched nothing on the GPU in {1 - result.launches:.0%} of its calls while profiled "
            f"({result.launches:g} activities a call)")
        reasons.append(f"{silent}, yet its output follows its inputs (it passed the contract on fresh inputs): "
                       "its work was done outside the calls measured")
    return reasons


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


def _warm_kernel_us(name: str, passing: list[tuple[str, str, Result]]) -> float | None:
    return next((r.kernel_us for other, _, r in passing
                 if other == name and (r.path, r.cache) == ("single", "warm") and r.kernel_us), None)


def flag(results: list[tuple[str, str, Result]], cache_bytes: int, clock: str,
         interpreted: frozenset[str] = frozenset()) -> None:
    """Set ``suspect`` on each passing result of one case; ``results`` are (name, variant, result),
    every row of the case; ``clock``: the run's ('gpu' or 'cpu'); ``interpreted``: names of
    implementations whose times are an interpreter's (never a yardstick for the ratio rule)."""
    passing = [(name, variant, r) for name, variant, r in results if r.status == "pass"]
    for name, variant, result in passing:
        memory_floor_holds = result.cache == "cold" or (result.bytes or 0) > cache_bytes
        reasons = _floor_reasons(result, memory_floor_holds)
        reasons += _boundary_reasons(result, _warm_kernel_us(name, passing), clock)
        if clock == "gpu":
            others = [(other_name, other) for other_name, other_variant, other in passing
                      if other_name != name and other_name not in interpreted and other_variant == variant
                      and (other.path, other.cache) == (result.path, result.cache)]
            reasons += _ratio_reasons(result, others)
        result.suspect = "; ".join(reasons) or None
