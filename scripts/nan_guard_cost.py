"""What keeping NaN costs: the softmax and neighbor-aggregation champions whose kernels changed so that a NaN or
an infinity is never turned into a number, timed against their versions from before that change, interleaved in
one process on the same inputs (``triton.testing.do_bench``: L2 cleared before every call, median).

The earlier versions are read from a folder made on a machine with the history (their source is not kept in the
tree):

    mkdir -p .before
    git show 7ffbdc1^:python/mage/ops/softmax/triton.py > .before/softmax_triton.py
    git show 7ffbdc1^:python/mage/ops/softmax/native.cu > .before/softmax_native.cu
    git show 7ffbdc1^:python/mage/ops/neighbor_agg/triton.py > .before/neighbor_agg_triton.py
    python scripts/nan_guard_cost.py .before [--out FILE.json]

Each implementation's earlier source is executed as a module of its own, its registration made a no-op (registry.add), so that
the registry keeps only the current one. The earlier native kernel is compiled from its own text beside the
current one (same includes), under a name of its own, and removed at exit.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import types
from pathlib import Path

import torch
import triton.testing

from mage import registry
from mage.backends import native

ROUNDS = 5  # before and after alternate, so a drift of the clock touches both alike
SOFTMAX_CASES = ["1024x1024", "65536x4096", "16384x4096-study", "16373x4099-study", "4096x16384-study"]
NEIGHBOR_CASES = ["uniform-4096-d16-F64", "powerlaw-1M-16M-F128", "powerlaw-1M-16M-F128-i32"]


def earlier_module(path: Path, name: str) -> types.ModuleType:
    """Execute an earlier implementation file as module ``name`` with registration disabled."""
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    real = registry.add  # every registration ends in it, whichever helper the earlier file calls
    registry.add = lambda impl: None
    try:
        exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
    finally:
        registry.add = real
    return module


def earlier_native_softmax(path: Path):
    """The earlier native softmax, compiled from ``path``'s text placed beside the current native.cu."""
    from mage.ops.softmax import native as softmax_native

    beside = native.OPS_DIR / "softmax" / ".earlier-native.cu"
    beside.write_text(path.read_text())

    def run(x):
        rows, cols = x.shape
        kernel, grid, block = softmax_native.plan(rows, cols)
        out = torch.empty_like(x)
        native.RUST_HOST.launch(dataclasses.replace(kernel, file=beside.name), grid, block, x, out, rows, cols)
        return out

    return run, beside


def median_us(fn) -> float:
    return 1e3 * triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def compare(label: str, case: str, before, after, inputs) -> dict:
    out_before, out_after = before(*inputs), after(*inputs)
    torch.cuda.synchronize()
    difference = (out_before.double() - out_after.double()).abs().max().item()  # finite inputs: rounding at most
    times = {"before": [], "after": []}
    for _ in range(ROUNDS):
        times["before"].append(median_us(lambda: before(*inputs)))
        times["after"].append(median_us(lambda: after(*inputs)))
    b, a = statistics.median(times["before"]), statistics.median(times["after"])
    spread = max(max(v) / min(v) - 1 for v in times.values())
    row = {"implementation": label, "case": case, "before_us": b, "after_us": a, "after_over_before": a / b,
           "spread_within": spread, "largest_difference": difference, "rounds": times}
    print(f"{label:24} {case:26} before {b:10.2f} µs  after {a:10.2f} µs  after/before {a / b:.3f}"
          f"  (rounds spread {100 * spread:.1f} %)  outputs differ by {difference:.1e}", flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="the folder of earlier sources (see the module's docstring)")
    parser.add_argument("--out", type=Path, help="write the rows as JSON here")
    args = parser.parse_args()
    registry.load()
    from mage.ops.neighbor_agg import triton as neighbor_triton
    from mage.ops.softmax import native as softmax_native
    from mage.ops.softmax import triton as softmax_triton

    softmax_spec, neighbor_spec = registry.get_op("softmax"), registry.get_op("neighbor_agg")
    old_softmax = earlier_module(args.before / "softmax_triton.py", "earlier_softmax_triton")
    old_neighbor = earlier_module(args.before / "neighbor_agg_triton.py", "earlier_neighbor_agg_triton")
    old_native, beside = earlier_native_softmax(args.before / "softmax_native.cu")
    rows = []
    try:
        for name in SOFTMAX_CASES:
            case = softmax_spec.case(name)
            inputs = softmax_spec.make_inputs(case, case.seed, "cuda")
            rows.append(compare("softmax triton", name, old_softmax.softmax, softmax_triton.softmax, inputs))
            rows.append(compare("softmax native", name, old_native,
                                lambda x: softmax_native.softmax(native.RUST_HOST, x), inputs))
        for name in NEIGHBOR_CASES:
            case = neighbor_spec.case(name)
            inputs = neighbor_spec.make_inputs(case, case.seed, "cuda")
            for variant in ("sum", "mean"):
                rows.append(compare(f"neighbor_agg triton {variant}", name,
                                    lambda *i, v=variant: old_neighbor.neighbor_agg(*i, v),
                                    lambda *i, v=variant: neighbor_triton.neighbor_agg(*i, v), inputs))
    finally:
        beside.unlink(missing_ok=True)
    ratios = [r["after_over_before"] for r in rows]
    print(f"after/before over {len(rows)} pairs: median {statistics.median(ratios):.3f}, "
          f"from {min(ratios):.3f} to {max(ratios):.3f}; {torch.cuda.get_device_name()}")
    if args.out:
        args.out.write_text(json.dumps({"device": torch.cuda.get_device_name(), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
