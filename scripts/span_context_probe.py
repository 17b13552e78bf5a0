"""What in a full run makes seed-scale single spans larger than the span probe sees
(the run-19 document, results/h200/studies/method-checks/run-19-seed.json.gz, against run 6 of results/h200/mage.db).

scripts/span_refresh_probe.py timed the pairs through mage.measure.span alone and saw run 6's spans,
so the difference lies in what the Runner adds around span.measure. This probe runs the real Runner
(into a scratch store) on one seed case, switching off one thing at a time: the NVML clock watch (a
thread per block of samples), the store's heartbeat thread, and the presence of torch.compile's
implementations (whose compile workers stay alive); and, without the Runner, span.measure alone before
and after the profiler's first capture in the process (mage.measure.kernel, which the Runner runs
before any span). Prints the single-path span median of each
implementation under each setting, so the cause is measured rather than guessed. On the GPU:
    PYTHONPATH=python python3 scripts/span_context_probe.py [OP] [IMPL …]
"""

import contextlib
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

import torch

from mage import check, registry
from mage.measure import clocks, kernel, span
from mage.measure.device import Timer
from mage.measure.method import Method
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


def span_alone(op: str, impls: list[str]) -> dict:
    """span.measure of the seed case's implementations, as scripts/span_refresh_probe.py times them."""
    spec = registry.get_op(op)
    chosen = [i for i in registry.implementations(op) if i.family in impls and i.strategy == "default"
              and i.precision == "ieee"]
    case = next(c for c in spec.cases() if c.suite == "seed")
    inputs = spec.make_inputs(case, case.seed, "cuda")
    refresh = check.InputRefresh(spec, case, inputs, "cuda", 7, 3, [i.variant for i in chosen])
    method = dataclasses.replace(Method(), min_samples=900, span_samples=900, noise_target=1e-9)
    contenders = [span.Contender(i.name, lambda i=i: i.fn(*inputs)) for i in chosen]
    for contender in contenders:
        for _ in range(20):
            contender.call()
    stats, _ = span.measure(contenders, "single", Timer("cuda"), method, refresh=refresh)
    torch.cuda.synchronize()
    return {key: {"span_median_us": s.median_us, "samples": len(s.samples)} for key, s in stats.items()}


def profiled(op: str, impls: list[str]) -> None:
    spec = registry.get_op(op)
    case = next(c for c in spec.cases() if c.suite == "seed")
    inputs = spec.make_inputs(case, case.seed, "cuda")
    for impl in registry.implementations(op):
        if impl.family in impls:
            kernel.capture(lambda: impl.fn(*inputs), 10)


def main(op: str = "layernorm", *impls: str) -> None:
    registry.load()
    impls = list(impls) or ["eager", "triton", "native"]
    with_compile = [*impls, "compile"]
    out = {"op": op, "span.measure alone, no profiler yet": span_alone(op, impls)}
    profiled(op, impls)
    out["span.measure alone, after one profiler capture"] = span_alone(op, impls)
    for label, selection, watch, heartbeat in (
            ("as a run", impls, True, True), ("no clock watch", impls, False, True),
            ("no heartbeat", impls, True, False), ("neither", impls, False, False),
            ("as a run, compile beside", with_compile, True, True), ("as a run again", impls, True, True)):
        out[label] = medians(op, selection, watch=watch, heartbeat=heartbeat)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main(*sys.argv[1:])
