"""Kernel time and launches per call, from a profiler capture (GUIDE §1).

N warmed calls are captured with torch.profiler (CUPTI activity records). Kernel time is the sum
of device activity durations (kernels, memsets, memcpys) divided by N: gaps between them are
excluded. Launches is the number of those activities divided by N.

For a cold-cache capture each call is preceded by an L2 flush. The flush's own activities are
removed by position: on one stream the capture is [flush, call, flush, call, …], so each of the N
equal chunks starts with the flush's activities, whose count is taken from a capture of the flush
alone.
"""

from __future__ import annotations

import functools
import os
import warnings
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile


@dataclass
class KernelCapture:
    kernel_us: float
    launches: float
    names: list[str]  # the activities of one call, in order


def _device_activities(step: Callable[[], object], calls: int) -> list:
    torch.cuda.synchronize()
    with warnings.catch_warnings():  # the profiler warns that it keeps one cycle: one cycle is all we record
        warnings.simplefilter("ignore", UserWarning)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                step()
            torch.cuda.synchronize()
        events = _device_work(prof.events())
    return sorted(events, key=lambda e: e.time_range.start)


def _device_work(events) -> list:
    """The device activities (kernels, memsets, memcpys) among a capture's events. Not a host range's
    shadow on the device timeline (a user annotation, spanning its kernels and the gaps between them):
    counted as time it would count the range's kernels twice."""
    return [e for e in events if e.device_type == DeviceType.CUDA and not e.is_user_annotation]


@functools.lru_cache(maxsize=1)  # the run's one flush; an older one is not kept alive
def _activities_of(flush: Callable[[], None]) -> int:
    """How many device activities one flush puts on the GPU: captured once per flush, not per call."""
    return len(_device_activities(flush, 1))


def _per_call(call: Callable[[], object], calls: int, flush: Callable[[], None] | None) -> list[list]:
    """The device activities of ``calls`` calls (each after ``flush``, whose own activities are left out by their
    position), by call; without a flush, all of them as one list."""
    if flush is None:
        return [_device_activities(call, calls)]
    flush_count = _activities_of(flush)

    def step():
        flush()
        call()

    events = _device_activities(step, calls)
    if len(events) % calls:
        raise RuntimeError(
            f"{len(events)} device activities over {calls} cold calls: the launch count varies between "
            "calls, so the flush cannot be separated by position"
        )
    chunk = len(events) // calls
    return [events[i * chunk + flush_count : (i + 1) * chunk] for i in range(calls)]


def kernel_shares(call: Callable[[], object], calls: int, flush: Callable[[], None]) -> list[tuple[str, float]]:
    """Each kernel's device time a call of ``call`` after ``flush`` (as capture counts it), largest first: where a
    diagnostic's time goes."""
    kept = [e for chunk in _per_call(call, calls, flush) for e in chunk]
    return by_kernel([DeviceActivity(0, e.time_range.elapsed_us(), e.name) for e in kept], calls)


def capture(call: Callable[[], object], calls: int, flush: Callable[[], None] | None = None) -> KernelCapture:
    per_call = _per_call(call, calls, flush)
    kept = [e for chunk in per_call for e in chunk]
    total_us = sum(e.time_range.elapsed_us() for e in kept)
    return KernelCapture(
        kernel_us=total_us / calls,
        launches=len(kept) / calls,
        names=[e.name for e in per_call[-1]][: max(1, round(len(kept) / calls))],
    )


@dataclass
class RangeTime:
    """One named range of a call (a custom op's dispatch, e.g. ``mage::layernorm``), per call."""

    name: str
    time_us: float  # on a GPU the kernel time of everything launched inside it; on the CPU its CPU time
    launches: float


@dataclass
class RangeCapture:
    """A capture of N calls: their time and launches per call, and the share of each range of them."""

    total_us: float  # on a GPU kernel time (as capture); on the CPU the call's CPU time
    launches: float
    ranges: list[RangeTime]  # the outermost ranges named with the prefix, in their order within a call
    kernels: list[tuple[str, float]] = field(default_factory=list)  # on a GPU: (kernel, µs a call), largest first


class DeviceActivity(NamedTuple):
    """One kernel, copy or memset of a capture: the correlation id of the host op that launched it, its time."""

    linked: int
    us: float
    name: str


CALL_RANGE = "mage.measure.call"


def capture_ranges(call: Callable[[], object], calls: int, prefix: str, on_gpu: bool) -> RangeCapture:
    """Profile ``calls`` warmed calls with their host ranges, and attribute time to the outermost ranges
    whose name starts with ``prefix``: the k-th such range of every call is one place in the call.

    On a GPU a range's kernel time is the device work launched by host ops inside it, each activity counted
    once (_device_work_by_range); the total is every device activity, as in ``capture``."""
    from torch.profiler import record_function

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if on_gpu else [])
    if on_gpu:
        torch.cuda.synchronize()
    elif not torch.cuda.is_available():
        # Kineto logs "gpuGetDeviceCount failed" and its stages to stderr on a machine without a GPU, where
        # only host ranges are asked for: noise beside Mage's own lines. Read when it first starts.
        os.environ.setdefault("KINETO_LOG_LEVEL", "5")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with profile(activities=activities) as prof:
            for _ in range(calls):
                with record_function(CALL_RANGE):
                    call()
            if on_gpu:
                torch.cuda.synchronize()
        events = sorted(prof.events(), key=lambda e: e.time_range.start)
    host = [e for e in events if e.device_type == DeviceType.CPU]
    named = [e for e in host if e.name.startswith(prefix) and not _inside(e, prefix)]
    if len(named) % calls:
        raise RuntimeError(f"{len(named)} {prefix}* ranges over {calls} calls: the calls differ")
    per_call = len(named) // calls
    kernels = []
    if on_gpu:
        work = _linked_device_work(prof)
        total, launches = sum(a.us for a in work), len(work)
        timed = _device_work_by_range(host, named, prefix, work)
        kernels = by_kernel(work, calls)
    else:
        total, launches = sum(e.cpu_time_total for e in host if e.name == CALL_RANGE), 0
        timed = [(e.cpu_time_total, 0) for e in named]
    ranges = []
    for place in range(per_call):
        at = timed[place::per_call]
        ranges.append(RangeTime(named[place].name, sum(us for us, _ in at) / calls, sum(n for _, n in at) / calls))
    return RangeCapture(total / calls, launches / calls, ranges, kernels)


def _linked_device_work(prof) -> list[DeviceActivity]:
    """A capture's device activities (no host range's shadow), from the profiler's raw records: its parsed
    device events drop the link to the launching host op."""
    return [DeviceActivity(e.linked_correlation_id(), e.duration_ns() / 1e3, e.name())
            for e in prof.profiler.kineto_results.events()
            if e.device_type() == DeviceType.CUDA and not e.is_user_annotation()]


LABEL_CHARS = 100


def kernel_label(name: str) -> str:
    """A kernel's name without ``void`` and its parameter list: ``ns::kernel<8>`` for
    ``void ns::kernel<8>(float const*, int)``; a template's arguments and ``(anonymous namespace)`` stay."""
    name = name.removeprefix("void ")
    depth = 0
    for i, char in enumerate(name):
        depth += {"<": 1, ">": -1}.get(char, 0)
        if char == "(" and depth == 0 and i and not name.startswith("(anonymous namespace)", i):
            name = name[:i]
            break
    name = name.strip()
    # torch's elementwise kernels spell out their lambdas: kept to a readable length (such kernels then share a name)
    return name if len(name) <= LABEL_CHARS else name[:LABEL_CHARS - 1] + "…"


def by_kernel(work: list[DeviceActivity], calls: int) -> list[tuple[str, float]]:
    """Each kernel's device time a call, its launches summed, largest first (names as kernel_label gives them)."""
    totals: dict[str, float] = {}
    for activity in work:
        label = kernel_label(activity.name)
        totals[label] = totals.get(label, 0.0) + activity.us / calls
    return sorted(totals.items(), key=lambda item: -item[1])


def _device_work_by_range(host: list, named: list, prefix: str, work: list[DeviceActivity]
                          ) -> list[tuple[float, int]]:
    """Each named range's device work (µs, activities): every activity counted once, in the range holding the
    host op that launched it (the activity's linked correlation id). Not the profiler's per-op device time:
    that links a host range's device shadow to it as a kernel, and lets the profiler's own overhead records,
    nested in an op with its id, claim that op's kernels again."""
    place = {id(e): i for i, e in enumerate(named)}
    range_of: dict[int, int] = {}
    for event in host:
        outermost, walk = None, event
        while walk is not None:
            if walk.name.startswith(prefix):
                outermost = walk
            walk = walk.cpu_parent
        if outermost is not None and id(outermost) in place:
            range_of[event.id] = place[id(outermost)]
    timed = [[0.0, 0] for _ in named]
    for linked, us, _ in work:
        if linked in range_of:
            timed[range_of[linked]][0] += us
            timed[range_of[linked]][1] += 1
    return [(us, n) for us, n in timed]


def _inside(event, prefix: str) -> bool:
    parent = event.cpu_parent
    while parent is not None:
        if parent.name.startswith(prefix):
            return True
        parent = parent.cpu_parent
    return False
