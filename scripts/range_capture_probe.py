"""Where a model block's kernel time goes, range by range: for each outermost mage:: range of an eager block
call, its device work as Mage counts it (each activity once, in the range whose host op launched it) beside the
profiler's device_time_total (which also counts the device shadows of host ranges and the kernels its own
overhead records claim), its kernels by name, and the host events the profiler recorded that are not ops; then
each fused implementation of the block at that precision, kernel by kernel (as a context run stores them).
A GPU diagnostic for Amdahl's fractions and for where a fused block's time goes:
    python3 scripts/range_capture_probe.py trimul/outgoing-768 tf32 [calls]"""

from __future__ import annotations

import collections
import sys

import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile, record_function

from mage.context import blocks, fusion, library
from mage.backends.precision import precision_mode
from mage.context.measure import RANGE_PREFIX
from mage.measure import kernel

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # the CPU runs it for its form alone: no device work
CALLS = int(sys.argv[3]) if len(sys.argv) > 3 else 30  # the context captures tens of calls


def main(block_name: str, precision: str) -> None:
    library.define_all()
    block, inputs = blocks.build_as_timed(block_name, precision, DEVICE)
    prof = profiled(block, inputs, precision)
    events = list(prof.events())
    device = [e for e in events if e.device_type == DeviceType.CUDA]
    shadows = collections.Counter(e.name for e in device if e.is_user_annotation)
    work = kernel._linked_device_work(prof)
    host = [e for e in events if e.device_type == DeviceType.CPU]
    non_ops = collections.Counter(e.name for e in host if not e.name.startswith(("aten::", "cuda", "cu", "mage")))
    print(f"{block_name} at {precision}: {sum(a.us for a in work) / CALLS:.1f} µs of device work a call in "
          f"{len(work) / CALLS:g} activities; device shadows of host ranges: {dict(shadows)}; other host events: "
          f"{dict(non_ops.most_common(8))}")
    named = [e for e in host if e.name.startswith(RANGE_PREFIX) and not kernel._inside(e, RANGE_PREFIX)]
    timed = kernel._device_work_by_range(host, named, RANGE_PREFIX, work)
    per_call = len(named) // CALLS
    for place in range(per_call):
        at = named[place::per_call]
        counted = sum(us for us, _ in timed[place::per_call]) / CALLS
        linked = sum(e.device_time_total for e in at) / CALLS
        kinds = collections.Counter()
        for e in at:
            for k in launched(e):
                kinds[k.name[:90]] += k.duration / CALLS
        print(f"  {at[0].name}#{place}: {counted:.1f} µs counted, {linked:.1f} µs device_time_total")
        for name, us in kinds.most_common(6):
            print(f"      {us:9.1f} µs  {name}")
    for impl in fusion.implementations(block.family, precision):
        if reason := impl.skip_reason(block, DEVICE):
            print(f"{impl.label}: skipped, {reason}")
            continue
        # As a context run stores them (BlockResult.kernel_times).
        kernels = kernel.by_kernel(kernel._linked_device_work(profiled(lambda *z: impl.fn(block, *z), inputs,
                                                                        precision)), CALLS)
        print(f"{impl.label}: {sum(us for _, us in kernels):.1f} µs of device work a call")
        for name, us in kernels[:8]:
            print(f"      {us:9.1f} µs  {name}")


def launched(event):
    """The profiler's kernels of ``event`` and its children, as its per-op device time counts them."""
    yield from event.kernels
    for child in event.cpu_children:
        yield from launched(child)


def synchronize() -> None:
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def profiled(call, inputs: tuple, precision: str):
    """CALLS warmed calls of ``call`` under the block's precision, each in the call range, profiled."""
    with precision_mode(precision), library.use(precision):
        for _ in range(3):
            call(*inputs)
        synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(CALLS):
                with record_function(kernel.CALL_RANGE):
                    call(*inputs)
            synchronize()
    return prof


if __name__ == "__main__":
    main(*sys.argv[1:3])
