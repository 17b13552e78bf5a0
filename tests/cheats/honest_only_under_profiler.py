"""Honest only while the profiler records : graph replay 3.6 µs per call against its
own 5.2 µs kernel time.

Kernel time comes from a profiler capture; the spans are timed without one. This implementation
computes while torch.profiler records and otherwise answers the buffers it has already seen (same
tensor, same version) from memory: its kernel time is honest, its spans are a copy's. Only the
boundaries' disagreement shows it. Its memory needs no synchronization, so it is captured into CUDA
graphs like any honest call.
"""

from __future__ import annotations

from typing import Callable

import torch

from ._memory import remembering


def profiling() -> bool:
    return torch._C._autograd._profiler_enabled()


def cheat(compute: Callable) -> Callable:
    remembered = remembering(compute, key=lambda t: (t.data_ptr(), tuple(t.shape), t._version))

    def call(*inputs):
        return compute(*inputs) if profiling() else remembered(*inputs)

    return call
