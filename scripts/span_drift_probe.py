"""Why one process's single spans of a seed-scale call drift upward (span_context_probe: eager LayerNorm
16.5 µs, then 23, then 39 µs, with nothing changed between).

A single span is event → call → event with the GPU idle before it, so it holds the host's time to
enqueue the call as well as the kernel. This probe times the same call repeatedly in one process and,
per repetition, records beside the GPU span the host's enqueue time (perf_counter around the call),
the cgroup's CPU throttling counters and the CPU clock, so that a drift is placed on the host or the
device by measurement. On the GPU: PYTHONPATH=python python3 scripts/span_drift_probe.py [REPEATS]
"""

import json
import statistics
import sys
import time
from pathlib import Path

import torch

from mage import registry


def cgroup_throttling() -> dict:
    stat = Path("/sys/fs/cgroup/cpu.stat")
    if not stat.exists():
        return {}
    fields = dict(line.split() for line in stat.read_text().splitlines())
    return {key: int(fields[key]) for key in ("nr_periods", "nr_throttled", "throttled_usec") if key in fields}


def cpu_mhz() -> float | None:
    values = [float(line.split(":")[1]) for line in Path("/proc/cpuinfo").read_text().splitlines()
              if line.startswith("cpu MHz")]
    return statistics.median(values) if values else None


def repetition(call, samples: int = 600) -> dict:
    gpu, host = [], []
    for _ in range(samples):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        begin = time.perf_counter()
        call()
        enqueued = time.perf_counter()
        end.record()
        end.synchronize()
        gpu.append(start.elapsed_time(end) * 1e3)
        host.append((enqueued - begin) * 1e6)
    return {"span_median_us": statistics.median(gpu), "enqueue_median_us": statistics.median(host),
            "cpu_mhz": cpu_mhz(), **cgroup_throttling()}


def main(repeats: str = "8") -> None:
    registry.load()
    spec = registry.get_op("layernorm")
    case = next(c for c in spec.cases() if c.suite == "seed")
    inputs = spec.make_inputs(case, case.seed, "cuda")
    impls = {i.family: i for i in registry.implementations("layernorm") if i.family in ("eager", "triton", "native")}
    out = {"torch_threads": torch.get_num_threads(), "start": {"cpu_mhz": cpu_mhz(), **cgroup_throttling()}}
    for index in range(int(repeats)):
        out[f"repetition {index}"] = {family: repetition(lambda impl=impl: impl.fn(*inputs))
                                      for family, impl in impls.items()}
        if index == 1:  # a busy interlude, as a run's big cases give: does the drift follow load?
            x = torch.randn(8192, 8192, device="cuda")
            for _ in range(50):
                x @ x
            torch.cuda.synchronize()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main(*sys.argv[1:])
