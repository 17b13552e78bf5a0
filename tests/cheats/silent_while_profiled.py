"""Launches nothing while profiled: kernel time 0 in 0 launches, output still right.

While torch.profiler records, it hands back the answer it gave last for the same buffers without
launching anything; otherwise it computes honestly. A call that puts no work on the GPU cannot
produce an output that follows its inputs, so 0 launches from a passing implementation is a lie.
"""

from __future__ import annotations

from typing import Callable

from .honest_only_under_profiler import profiling


def cheat(compute: Callable) -> Callable:
    last: dict = {}

    def call(*inputs):
        seen = tuple((t.data_ptr(), t._version) for t in inputs)
        if profiling() and seen in last:
            return last[seen]
        last[seen] = compute(*inputs)
        return last[seen]

    return call
