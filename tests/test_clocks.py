"""The SM clock seen during each measurement: sampled per window, kept per result row."""

import itertools
from contextlib import contextmanager
import time
import types

from mage.measure.clocks import ClockWatch, reason_names
from mage.measure.method import Method
from mage.report.findings import as_text, findings
from mage.report.markdown import tables
from mage.plan import Planned, Request
from mage.runner import Runner
from mage.store import Store

GPU_IDLE, SW_POWER_CAP = 0x1, 0x4
FAKE_NVML = types.SimpleNamespace(nvmlClocksEventReasonGpuIdle=GPU_IDLE, nvmlClocksEventReasonSwPowerCap=SW_POWER_CAP,
                                  nvmlClocksEventReasonNone=0, nvmlClocksEventReasonAll=0xFF)


def fake_watch(readings, period_s=0.001):
    source = iter(readings)
    return ClockWatch(lambda: next(source), lambda mask: reason_names(FAKE_NVML, mask), period_s)


def test_reason_names_decode_single_bits_only():
    assert reason_names(FAKE_NVML, SW_POWER_CAP | GPU_IDLE) == ["GpuIdle", "SwPowerCap"]
    assert reason_names(FAKE_NVML, 0) == []


def test_a_window_samples_at_its_edges_and_in_between():
    clocks = itertools.cycle([(1980, 0), (1530, SW_POWER_CAP), (1980, GPU_IDLE)])
    watch = fake_watch(clocks)
    with watch.window("a"):
        time.sleep(0.05)  # tens of thread samples at 1 ms
    with watch.window("b"):
        pass  # no time for the thread: the two edge readings still count
    a, b = watch.range("a"), watch.range("b")
    assert (a.min_mhz, a.max_mhz) == (1530, 1980)
    assert a.events == ("SwPowerCap",) and a.slowed  # GpuIdle is a state, not a slowdown
    assert b is not None and len(watch._readings["b"]) >= 2
    assert watch.range("missing") is None


def test_windows_of_one_key_accumulate_and_ranges_join_keys():
    # A period no window lasts: each window reads its two edges only, however loaded the machine (parallel tests).
    watch = fake_watch(itertools.chain([(1900, 0), (1900, 0)], [(1500, SW_POWER_CAP)] * 2, itertools.repeat((1980, 0))),
                       period_s=600)
    with watch.window("kernel"):
        pass
    with watch.window("span"):
        pass
    assert (watch.range("kernel").min_mhz, watch.range("kernel").max_mhz) == (1900, 1900)
    joined = watch.range("kernel", "span")
    assert (joined.min_mhz, joined.max_mhz, joined.events) == (1500, 1900, ("SwPowerCap",))
    watch.clear()
    assert watch.range("kernel") is None


def test_a_failing_reader_never_stops_the_measurement():
    def read():
        raise RuntimeError("NVML_ERROR_GPU_IS_LOST")

    watch = ClockWatch(read, period_s=0.001)
    with watch.window("a"):
        time.sleep(0.01)
    assert watch.range("a") is None


def test_without_nvml_a_window_records_nothing():
    watch = ClockWatch(None)
    with watch.window("a"):
        pass
    assert watch.range("a") is None


def test_each_stored_row_carries_the_clocks_of_its_own_windows(tmp_path, layernorm):
    spec, eager, case = layernorm
    request = Request(suites=["seed"], device="cpu", paths=["single", "batch"],
                      method=Method(span_samples=3, min_samples=1, kernel_calls=2, host_calls=4, host_chunk=2,
                                    warmup_calls=1))
    runner = Runner(Store(tmp_path / "mage.db"), request, "pytest")
    runner.watch = PathAwareWatch()
    runner.run([Planned(spec, case, [eager])])
    rows = {r["path"]: r for r in Store(tmp_path / "mage.db").rows(runner.run_id)}
    assert (rows["single"]["sm_clock_min_mhz"], rows["single"]["sm_clock_max_mhz"], rows["single"]["clock_events"]) == (
        1980, 1980, None)
    assert (rows["batch"]["sm_clock_min_mhz"], rows["batch"]["clock_events"]) == (1530, "SwPowerCap")

    # What the report makes of it: the slowed result is named with its clock, path and reason.
    store = Store(tmp_path / "mage.db")
    text = as_text(findings(store.run(runner.run_id), store.rows(runner.run_id)))
    assert "NVML reported a slowdown (SwPowerCap) while measuring 1 implementation·case pair: layernorm" in text
    assert "eager down to 1,530 MHz (batch/warm; SwPowerCap)" in text
    assert "| 1,980 MHz |" in tables(store.run(runner.run_id), store.rows(runner.run_id))


class PathAwareWatch(ClockWatch):
    """Reads a power-capped clock while a batch-path window is open, the boost clock otherwise."""

    def __init__(self):
        super().__init__(self.read_for_current_path, lambda mask: reason_names(FAKE_NVML, mask), 0.001)
        self.current = None

    def read_for_current_path(self):
        return (1530, SW_POWER_CAP) if self.current[1] == "batch" else (1980, 0)

    @contextmanager
    def window(self, key):
        self.current = key
        with super().window(key):
            yield
