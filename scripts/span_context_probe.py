"""What in a full run makes seed-scale single spans larger than the span probe sees (run 19 against run 6).

scripts/span_refresh_probe.py timed the pairs through mage.measure.span alone and saw run 6's spans,
so the difference lies in what the Runner adds around span.measure. This probe runs the real Runner
(into a scratch store) on one seed case, switching off one thing at a time: the NVML clock watch (a
thread per block of samples), the store's heartbeat thread, and the presence of torch.compile's
implementations (whose compile workers stay alive). Prints the single-path span median of each
implementation under each setting, so the cause is measured rather than guessed. On the GPU:
    PYTHONPATH=python python3 scripts/span_context_probe.py [OP] [IMPL …]
"""

import contextlib
import json
import sys
import tempfile
from pathlib import Path

from mage import registry
from mage.measure import clocks
from mage.plan import Request, default_device, plan
from mage.runner import Runner
from mage.store import Store


def medians(op: str, impls: list[str], *, watch: bool, heartbeat: bool) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "probe.db")
        if not heartbeat:
            store.heartbeat = lambda run_id: contextlib.nullcontext()
        request = Request(suites=["seed"], ops=[op], impls=impls, device=default_device())
        runner = Runner(store, request, "span_context_probe")
        if not watch:
            runner.watch = clocks.ClockWatch(None)
        runner.run(plan(request))
        return {row["impl"]: {"span_median_us": row["span_median_us"], "samples": row["span_samples"],
                              "kernel_us": row["kernel_us"]}
                for row in store.rows(runner.run_id) if row["status"] == "pass"}


def main(op: str = "layernorm", *impls: str) -> None:
    registry.load()
    impls = list(impls) or ["eager", "triton", "native"]
    with_compile = [*impls, "compile"]
    out = {"op": op}
    for label, selection, watch, heartbeat in (
            ("as a run", impls, True, True), ("no clock watch", impls, False, True),
            ("no heartbeat", impls, True, False), ("neither", impls, False, False),
            ("as a run, compile beside", with_compile, True, True), ("as a run again", impls, True, True)):
        out[label] = medians(op, selection, watch=watch, heartbeat=heartbeat)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main(*sys.argv[1:])
