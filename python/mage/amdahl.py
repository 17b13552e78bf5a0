"""Amdahl's law: what a kernel speedup does to a whole request (GUIDE §1)."""

from __future__ import annotations

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
    overall = overall_speedup(fraction, speedup)
    return (
        f"A kernel that is {fraction:.0%} of a request and becomes {speedup:g}× faster speeds the request up "
        f"{overall:.3g}×: latency falls by {1 - 1 / overall:.1%}, assuming everything else stays the same."
    )
