"""Arrival counters for the hub pieces of the native and Triton kernels.

A hub row cut into pieces is added up by the last of its pieces to finish, which an int32 counter
per hub names. Counters are kept per device and zero between launches: the last arrival of every
hub resets its counter, so no call pays for a memset. Kernels on one stream run one after
another, so the native and Triton kernels share one buffer.
"""

from __future__ import annotations

import torch

_COUNTERS: dict[torch.device, torch.Tensor] = {}


def arrival_counters(device: torch.device, count: int) -> torch.Tensor:
    """At least ``count`` zeroed int32 counters on ``device``."""
    counters = _COUNTERS.get(device)
    if counters is None or counters.numel() < count:
        counters = _COUNTERS[device] = torch.zeros(max(count, 1), dtype=torch.int32, device=device)
    return counters


def all_zero() -> bool:
    """Whether every counter is zero (what each launch must leave behind)."""
    return not any(counters.any() for counters in _COUNTERS.values())
