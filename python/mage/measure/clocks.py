"""The SM clock while each measurement runs, sampled from NVML in a background thread.

The run's environment holds the clock at its start and end only. Within a run a GPU can leave its
boost clock for seconds: sustained large TF32 matmul reaches the software power cap and slows its
kernel time with the clock (measured in results/README.md, kernel-vs-span probe). So every kernel capture and every span block records the range of SM clocks seen while
it ran and the clock-event reasons NVML gave, and each result carries them.

Samples are taken at the start and end of each window and every ``period_s`` between; NVML is
called without the GIL, so the thread costs the timed calls little. Host time is not watched: it is
a host-side measurement.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator

from mage.background import while_running

Reading = tuple[int, int]  # (SM clock in MHz, NVML clock-event reasons bitmask)

# Reasons that lower the clock under load. GpuIdle and the application-clock settings describe
# the idle state or a configuration, not a slowdown during work.
SLOWDOWNS = ("SwPowerCap", "HwSlowdown", "SwThermalSlowdown", "HwThermalSlowdown", "HwPowerBrakeSlowdown",
             "SyncBoost", "DisplayClockSetting")


@dataclass(frozen=True)
class ClockRange:
    min_mhz: int
    max_mhz: int
    events: tuple[str, ...]  # slowdown reasons seen in any sample, sorted

    @property
    def slowed(self) -> bool:
        return bool(self.events)


class ClockWatch:
    """Collects readings per measurement key; ``read`` returns one Reading, ``names`` decodes a mask."""

    def __init__(self, read: Callable[[], Reading] | None, names: Callable[[int], list[str]] = lambda _: [],
                 period_s: float = 0.01):
        self.read, self.names, self.period_s = read, names, period_s
        self._readings: dict[object, list[Reading]] = {}

    @contextmanager
    def window(self, key) -> Iterator[None]:
        """Sample while the block runs, adding to what ``key`` already holds."""
        if self.read is None:
            yield
            return
        readings = self._readings.setdefault(key, [])

        def record() -> bool:
            try:
                readings.append(self.read())
                return True
            except Exception:  # NVML gone (a lost device, a driver reset): the measurement must go on
                return False

        def sample(stop):
            while not stop.wait(self.period_s) and record():
                pass

        record()
        try:
            with while_running(sample, "mage-clock-watch"):
                yield
        finally:
            record()

    def clear(self) -> None:
        self._readings.clear()

    def range(self, *keys) -> ClockRange | None:
        """The clocks seen over every window of ``keys``; None when nothing was sampled."""
        readings = [r for key in keys for r in self._readings.get(key, ())]
        if not readings:
            return None
        mask = 0
        for _, reasons in readings:
            mask |= reasons
        events = tuple(sorted(name for name in self.names(mask) if name in SLOWDOWNS))
        return ClockRange(min(mhz for mhz, _ in readings), max(mhz for mhz, _ in readings), events)


def nvml_handle(pynvml, device_index: int):
    """NVML's handle of torch's CUDA device ``device_index``. By UUID: NVML numbers every GPU of the host,
    while CUDA numbers only those CUDA_VISIBLE_DEVICES shows (a worker pinned to GPU 3 sees it as 0)."""
    import torch

    return pynvml.nvmlDeviceGetHandleByUUID(f"GPU-{torch.cuda.get_device_properties(device_index).uuid}")


def nvml_watch(device_index: int, period_s: float = 0.01) -> ClockWatch:
    """A watch on one GPU through NVML; one that records nothing where NVML is missing."""
    try:
        import pynvml

        pynvml.nvmlInit()
        handle = nvml_handle(pynvml, device_index)
    except Exception:  # no driver or no NVML library: results then carry no clock range
        return ClockWatch(None)

    def read() -> Reading:
        return (pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
                pynvml.nvmlDeviceGetCurrentClocksEventReasons(handle))

    return ClockWatch(read, lambda mask: reason_names(pynvml, mask), period_s)


def reason_names(pynvml, mask: int) -> list[str]:
    """NVML's clock-event reason names set in ``mask``, without the 'nvmlClocksEventReason' prefix."""
    # Single-bit reasons only: 'All' and 'None' are masks, not reasons.
    reasons = {n.removeprefix("nvmlClocksEventReason"): getattr(pynvml, n) for n in dir(pynvml)
               if n.startswith("nvmlClocksEventReason") and isinstance(getattr(pynvml, n), int)}
    return sorted(name for name, bit in reasons.items() if bit and bit & (bit - 1) == 0 and mask & bit)
