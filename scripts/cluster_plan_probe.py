"""Which cluster plan holds a float32 row best, each plan (K CTAs, threads a CTA, float4 chunks a thread) timed
on the same inputs. By default the plans at about 65536 columns: (8, 512, 4: 16 elements, about 40 registers,
three CTAs an SM), the plan the launcher picked before, against half the CTAs with twice the elements a thread
(4, 512, 8: 32 elements, 64 registers, two CTAs an SM), which mage.backends.rows.CLUSTER_PLANS now holds there:
ncu had counted five times QuACK's instructions in LayerNorm's 8-CTA kernel, each thread's share of the
reductions, the barrier and the slice arithmetic paid for 16 elements. At 262144 columns, (8, 1024, 8) (one
CTA an SM, the largest portable cluster) against (16, 512, 8) (two CTAs an SM). With ``--strategy deep``, the deep
strategy's plans (a CTA's slice in registers and as many chunks again in shared memory): two 512-thread CTAs an SM,
the launcher's, against one of 1024 threads (native_cluster.cuh's FLOAT_DEEP_PLANS).

    PYTHONPATH=python python scripts/cluster_plan_probe.py [--strategy deep] [--plan 8x1024x8 --plan 16x512x8]
        [--case 256x262144-study] [--out FILE.json]

LayerNorm's and softmax's cluster (or deep) kernels of each plan, launched through the strategy's launcher, on each
case's own inputs, with the driver's count of the plan's clusters that fit the device at once; each output checked
against float64 first (its norm-wise error printed), then timed with ``triton.testing.do_bench`` (L2 cleared before
every call, median), the plans alternating over rounds.
"""

from __future__ import annotations

import argparse
import json
import statistics

import torch
import triton.testing

from mage import registry
from mage.check import upcast
from mage.backends import native
from mage.backends.rows import launch_cluster, launch_deep, slice_chunks
from mage.ops.layernorm import native as layernorm_native
from mage.ops.softmax import native as softmax_native

PLANS = ["8x512x4", "4x512x8"]
CASES = ["1024x65536-study", "1024x65537-study"]
ROUNDS = 5


LAUNCHERS = {"cluster": launch_cluster, "deep": launch_deep}


def calls(op: str, inputs: tuple, plans: list[tuple[int, int, int]], strategy: str = "cluster") -> dict:
    """plan -> (a call of op's ``strategy`` kernel of that plan on inputs, the kernel)."""
    host = native.HOSTS[0]
    launch = LAUNCHERS[strategy]
    if op == "layernorm":
        x, weight, bias = inputs
        rows, cols = x.shape
        kernels = {plan: layernorm_native._kernel(f"layernorm_f32_{strategy}" + "{}_t{}_v{}".format(*plan))
                   for plan in plans}
        arguments = lambda out: (x, weight, bias, out, rows, cols, layernorm_native.EPS)  # noqa: E731
    else:
        (x,) = inputs
        rows, cols = x.shape
        kernels = {plan: native.Kernel("softmax", f"softmax_f32_{strategy}" + "{}_t{}_v{}".format(*plan),
                                       softmax_native.SIGNATURE) for plan in plans}
        arguments = lambda out: (x, out, rows, cols)  # noqa: E731
    return {plan: ((lambda kernel=kernel, plan=plan: launch(host, {plan: kernel}, x, arguments)), kernel)
            for plan, kernel in kernels.items()}


def clusters_at_once(kernel, plan: tuple[int, int, int], cols: int, strategy: str) -> int:
    """The driver's count of ``plan``'s clusters that fit the device at once, with the shared memory its launcher
    asks for at ``cols`` float32 columns (the deep strategy's chunks past the registers; the cluster's none)."""
    k, threads, chunks = plan
    shared = 16 * max(0, slice_chunks(cols, 4, k) - threads * chunks) if strategy == "deep" else 0
    return native.HOSTS[0].max_active_clusters(kernel, torch.device("cuda", 0), k, (threads, 1, 1), shared)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strategy", choices=sorted(LAUNCHERS), default="cluster", help="whose kernels")
    parser.add_argument("--plan", action="append", help=f"a plan KxTHREADSxCHUNKS (default {' '.join(PLANS)})")
    parser.add_argument("--case", action="append", help=f"a case of both ops (default {' '.join(CASES)})")
    parser.add_argument("--out", help="write the timings here as JSON")
    args = parser.parse_args()
    plans = [tuple(int(n) for n in plan.split("x")) for plan in args.plan or PLANS]
    registry.load()
    results = []
    for op in ("layernorm", "softmax"):
        spec = registry.get_op(op)
        for case_name in args.case or CASES:
            case = spec.case(case_name)
            inputs = spec.make_inputs_at(case, case.seed, "cuda", "normal", "ieee")
            reference = spec.reference(upcast(inputs), "affine" if op == "layernorm" else "rows")
            plan_calls = calls(op, inputs, plans, args.strategy)
            fits = {}
            for plan, (call, kernel) in plan_calls.items():
                error = float((call().double() - reference).norm() / reference.norm())
                fits[plan] = clusters_at_once(kernel, plan, inputs[0].shape[1], args.strategy)
                print(f"{op} {case_name} plan {plan}: error {error:.3g}, {fits[plan]} clusters fit at once")
            times = {plan: [] for plan in plan_calls}
            for _ in range(ROUNDS):
                for plan, (call, _) in plan_calls.items():
                    times[plan].append(triton.testing.do_bench(call, return_mode="median") * 1e3)
            for plan, samples in times.items():
                median = statistics.median(samples)
                results.append({"op": op, "case": case_name, "strategy": args.strategy, "plan": plan, "us": median,
                                "clusters_at_once": fits[plan], "rounds": samples})
                print(f"{op} {case_name} plan {plan}: {median:.1f} µs (rounds {min(samples):.1f}–{max(samples):.1f})")
    device = torch.cuda.get_device_name()
    print(f"on {device}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"device": device, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
