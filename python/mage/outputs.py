"""Output allocation shared by every custom backend.

Custom kernels allocate their outputs here. While a contract is being checked the buffer is
filled with NaN first, so an element the kernel never writes fails the check; while timing it
is a plain ``torch.empty``.
"""

from __future__ import annotations

import contextlib
import threading

import torch

_state = threading.local()


def empty_output(shape, *, like: torch.Tensor, dtype: torch.dtype | None = None) -> torch.Tensor:
    out = torch.empty(shape, dtype=dtype or like.dtype, device=like.device)
    if getattr(_state, "poison", False):
        out.fill_(float("nan"))
    return out


@contextlib.contextmanager
def poisoned_outputs():
    previous = getattr(_state, "poison", False)
    _state.poison = True
    try:
        yield
    finally:
        _state.poison = previous
