"""Host time per call (GUIDE §1): what submitting one call costs the host, measured directly.

Calls are issued back to back without synchronizing, in chunks small enough that the GPU's
launch queue never fills (a full queue would make the host wait on the GPU and count kernel
time as host time). The device is synchronized between chunks, outside the timed window.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class HostTime:
    """Host time per call: the median of the chunk means, and their range (the spread it is read with)."""

    median_us: float
    min_us: float
    max_us: float


def host_time_us(call: Callable[[], object], synchronize: Callable[[], None], calls: int, chunk: int) -> HostTime:
    chunk_means = []
    for _ in range(max(1, calls // chunk)):
        synchronize()
        begin = time.perf_counter()
        for _ in range(chunk):
            call()
        chunk_means.append((time.perf_counter() - begin) * 1e6 / chunk)
    synchronize()
    return HostTime(statistics.median(chunk_means), min(chunk_means), max(chunk_means))
