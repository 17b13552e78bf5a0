"""Amdahl's law: what a kernel speedup does to a whole request (GUIDE §1)."""

from __future__ import annotations

from mage.errors import InputError


def overall_speedup(fraction: float, speedup: float) -> float:
    """A kernel taking ``fraction`` of a request becomes ``speedup`` times faster: 1 / (1 − f + f/s)."""
    if not 0.0 <= fraction <= 1.0:
        raise InputError(f"fraction must be between 0 and 1, got {fraction}")
    if speedup <= 0:
        raise InputError(f"speedup must be positive, got {speedup}")
    return 1.0 / (1.0 - fraction + fraction / speedup)


def statement(fraction: float, speedup: float) -> str:
    overall = overall_speedup(fraction, speedup)
    return (
        f"A kernel that is {fraction:.0%} of a request and becomes {speedup:g}× faster speeds the request up "
        f"{overall:.3g}×: latency falls by {1 - 1 / overall:.1%}, assuming everything else stays the same."
    )
