"""Amdahl's law: what a kernel speedup does to a whole request (GUIDE §1)."""

from __future__ import annotations

import math
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Share:
    """How much of a whole an op takes, and which whole: what Amdahl's law scales a kernel speedup by. A
    measured share comes from a model block's eager capture (mage context); a given one from the caller."""

    fraction: float
    whole: str  # "the eager mlp/gpt2-small block at tf32", or "a request"
    measured: bool
    precision: str | None = None  # the block's, for a measured share


def share_for(shares: list[Share], precision: str) -> Share:
    """The share to apply a kernel at ``precision`` at: the largest of a block at that precision, else the largest."""
    return max(shares, key=lambda share: (share.precision == precision, share.fraction))


def share_clause(op: str, share: Share, speedup: float) -> str:
    """What a kernel ``speedup`` of ``op`` does to the whole ``share`` is of, in words, saying where the share
    comes from; a measured share was taken at the block's shapes, not at the case's."""
    overall = overall_speedup(share.fraction, speedup)
    if share.measured:
        return (f"{op} is {share.fraction:.0%} of the kernel time of {share.whole} (measured inside the block), so "
                f"that speedup, if it held at the block's shapes, would make the block {overall:.2f}× faster "
                f"(latency −{1 - 1 / overall:.1%})")
    return (f"at {share.fraction:.0%} of {share.whole} (a fraction given, not measured) it would make that "
            f"{overall:.2f}× faster (latency −{1 - 1 / overall:.1%}), everything else unchanged")


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
