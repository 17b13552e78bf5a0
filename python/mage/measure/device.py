"""Timing primitives for the device the run is on: CUDA events on a GPU, the wall clock on the CPU."""

from __future__ import annotations

import gc
import time
from typing import Callable

import torch


class Timer:
    """Times host code that enqueues device work; returns microseconds of the enclosed region."""

    def __init__(self, device: str):
        self.device = device
        self.is_cuda = device == "cuda"

    @property
    def clock(self) -> str:
        """The clock behind every number this timer gives: 'gpu' (CUDA events) or 'cpu' (wall clock)."""
        return "gpu" if self.is_cuda else "cpu"

    def synchronize(self) -> None:
        if self.is_cuda:
            torch.cuda.synchronize()

    def usable(self) -> bool:
        """Whether the device still runs work: after an illegal address or a trap, a CUDA context
        fails every later call, a bare synchronize included."""
        try:
            self.synchronize()
        except Exception:  # noqa: BLE001 - any failure here means the context is gone
            return False
        return True

    def allocated_bytes(self) -> int:
        """Device memory held by live tensors now (0 on the CPU, where nothing measures it)."""
        return torch.cuda.memory_allocated() if self.is_cuda else 0

    def total_bytes(self) -> int:
        return torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory if self.is_cuda else 0

    def release(self) -> None:
        """Give back what nothing refers to any more: unreachable objects, then the allocator's cached blocks."""
        gc.collect()
        if self.is_cuda and self.usable():
            torch.cuda.empty_cache()

    def span_us(self, region: Callable[[], object]) -> float:
        if self.is_cuda:
            stream = torch.cuda.current_stream()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record(stream)
            region()
            end.record(stream)
            end.synchronize()
            return start.elapsed_time(end) * 1e3
        begin = time.perf_counter()
        region()
        return (time.perf_counter() - begin) * 1e6
