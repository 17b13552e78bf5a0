"""Why can a graph-replayed span per call come out below the profiler's kernel time? (results/README.md)

Run 15 measured 8192³ tf32 matmul with kernel time 3,193 µs but a graph span of 3,135 µs per call,
and an ieee one with the two equal. Two candidate causes, told apart here on the same calls:
- overlap: if consecutive device activities overlap in time, their summed durations exceed the time
  the device was busy (the union of their intervals);
- clocks: if the SM clock or power state differs between the capture and the replay.
Prints one JSON object: per case, the profiler's sum of durations, the union of the intervals and
the first-start-to-last-end extent (all per call), the graph span per call, and the NVML SM clock
and power sampled every few ms during each. Needs a GPU and pynvml; run from the repository root
with PYTHONPATH=python. `results/h200/kernel-vs-span-probe.json` is its output at commit f34d118.
"""

from __future__ import annotations

import json
import threading
import time

import pynvml
import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile

from mage.measure.span import graph_replay

CALLS = 20


class Sampler:
    """SM clock (MHz), power (W) and clock-event reasons, sampled in a thread while the block runs."""

    def __init__(self, handle, period_s: float = 0.002):
        self.handle, self.period_s, self.rows = handle, period_s, []
        self._stop = threading.Event()

    def _loop(self):
        while not self._stop.is_set():
            self.rows.append((pynvml.nvmlDeviceGetClockInfo(self.handle, pynvml.NVML_CLOCK_SM),
                              pynvml.nvmlDeviceGetPowerUsage(self.handle) / 1000,
                              pynvml.nvmlDeviceGetCurrentClocksEventReasons(self.handle)))
            time.sleep(self.period_s)

    def __enter__(self):
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def summary(self) -> dict:
        clocks = [r[0] for r in self.rows]
        power = [r[1] for r in self.rows]
        reasons = 0
        for r in self.rows:
            reasons |= r[2]
        return {"samples": len(self.rows), "sm_mhz_min": min(clocks), "sm_mhz_max": max(clocks),
                "power_w_mean": round(sum(power) / len(power), 1), "power_w_max": max(power),
                "event_reasons_mask": hex(reasons)}


def union_us(intervals: list[tuple[float, float]]) -> float:
    total, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total


def profiled(call, handle) -> dict:
    torch.cuda.synchronize()
    with Sampler(handle) as sampler, profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(CALLS):
            call()
        torch.cuda.synchronize()
    events = [e for e in prof.events() if e.device_type == DeviceType.CUDA]
    intervals = [(e.time_range.start, e.time_range.end) for e in events]
    ordered = sorted(intervals)
    overlaps = sum(1 for a, b in zip(ordered, ordered[1:]) if b[0] < a[1])
    return {"sum_us": sum(b - a for a, b in intervals) / CALLS, "union_us": union_us(intervals) / CALLS,
            "extent_us": (ordered[-1][1] - ordered[0][0]) / CALLS, "activities": len(intervals),
            "overlapping_neighbours": overlaps, "names": sorted({e.name[:60] for e in events}),
            "nvml": sampler.summary()}


def graph_span(call, handle) -> dict:
    replay = graph_replay(call, CALLS)
    replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    spans = []
    with Sampler(handle) as sampler:
        for _ in range(3):
            start.record()
            replay()
            end.record()
            end.synchronize()
            spans.append(start.elapsed_time(end) * 1e3 / CALLS)
    return {"span_us": spans, "nvml": sampler.summary()}


def main():
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(8192, 8192, device="cuda", generator=gen)
    b = torch.randn(8192, 8192, device="cuda", generator=gen)
    x = torch.randn(16384, 16384, device="cuda", generator=gen)
    bias = torch.randn(16384, device="cuda", generator=gen)
    cases = {
        "matmul-8192-ieee": (False, lambda: a @ b),
        "matmul-8192-tf32": (True, lambda: a @ b),
        "bias_gelu-16384-eager": (False, lambda: torch.nn.functional.gelu(x + bias)),
    }
    out = {"gpu": torch.cuda.get_device_name(), "calls": CALLS}
    for name, (tf32, call) in cases.items():
        torch.backends.cuda.matmul.allow_tf32 = tf32
        for _ in range(5):
            call()
        # Twice, in both orders, so a drift over time shows as a difference between repeats.
        out[name] = {"profile_1": profiled(call, handle), "graph_1": graph_span(call, handle),
                     "graph_2": graph_span(call, handle), "profile_2": profiled(call, handle)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
