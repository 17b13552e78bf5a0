"""Amdahl's law: what a kernel speedup does to a whole request (GUIDE §1)."""

from __future__ import annotations

import math
from typing import Iterable

from mage.errors import InputError

# Fractions measured from one capture may sum past 1 by rounding; more than this is a caller's error.
FRACTION_SLACK = 1e-9


def overall_speedup(fraction: float, speedup: float) -> float:
    """A kernel taking ``fraction`` of a request becomes ``speedup`` times faster: 1 / (1 − f + f/s)."""
    return combined_speedup([(fraction, speedup)])


def combined_speedup(parts: Iterable[tuple[float, float]]) -> float:
    """Several kernels, each taking fraction fᵢ of a request and becoming sᵢ times faster (the rest
    unchanged): 1 / (1 − Σfᵢ + Σfᵢ/sᵢ)."""
    parts = list(parts)
    for fraction, speedup in parts:
        if not 0.0 <= fraction <= 1.0:
            raise InputError(f"fraction must be between 0 and 1, got {fraction}")
        if speedup <= 0:
            raise InputError(f"speedup must be positive, got {speedup}")
    total = sum(fraction for fraction, _ in parts)
    if total > 1.0 + FRACTION_SLACK:
        raise InputError(f"fractions must sum to at most 1, got {total:.6g}")
    return 1.0 / (max(0.0, 1.0 - total) + sum(fraction / speedup for fraction, speedup in parts))


def statement(fraction: float, speedup: float) -> str:
    """Amdahl's law in words; a speedup below 1 is a slowdown, said as one."""
    overall = overall_speedup(fraction, speedup)
    if speedup < 1:
        slowdown = (1.0 - fraction) + fraction / speedup  # 1 / overall, without its underflow to 0
        if not math.isfinite(1 / speedup) or not math.isfinite(slowdown):
            raise InputError(f"speedup {speedup:g} is too small to say anything finite about")
        return (f"A kernel that is {fraction:.0%} of a request and becomes {1 / speedup:.3g}× slower slows the "
                f"request down {slowdown:.3g}×: it takes {slowdown:.3g} times as long, assuming everything else "
                f"stays the same.")
    return (
        f"A kernel that is {fraction:.0%} of a request and becomes {speedup:g}× faster speeds the request up "
        f"{overall:.3g}×: latency falls by {1 - 1 / overall:.1%}, assuming everything else stays the same."
    )
