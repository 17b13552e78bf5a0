"""Call one implementation on one case, for a kernel profiler to look at its warmed calls only.

    ncu --clock-control none --profile-from-start off --set full -o REPORT \\
        python3 scripts/profile_one.py OP IMPL CASE [--warmup N] [--calls N]

OP, IMPL and CASE are named as in `mage run` (`bias_gelu cubecl/erf/ieee 16384x16384`). The
inputs are the case's own (the same generator and seed a run uses) and the implementation runs in its
precision mode. Compilation, autotuning and warm-up happen in the first calls, before the profiled
range (cudaProfilerStart/Stop) opens, so `--profile-from-start off` sees the timed kind of call only.
"""

from __future__ import annotations

import argparse

import torch

from mage import registry
from mage.backends.precision import precision_mode


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("op")
    parser.add_argument("impl")
    parser.add_argument("case")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--calls", type=int, default=1)
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    registry.load()
    spec = registry.get_op(args.op)
    impl = next(i for i in registry.implementations(args.op) if i.name == args.impl)
    case = next(c for c in spec.cases() if c.name == args.case)
    inputs = spec.make_inputs_at(case, case.seed, args.device, "normal", impl.precision)  # 16-bit at bf16, fp16
    on_gpu = args.device == "cuda"
    with precision_mode(impl.precision):
        for _ in range(args.warmup):
            impl.fn(*inputs)
        if on_gpu:
            torch.cuda.synchronize()
            torch.cuda.profiler.start()
        for _ in range(args.calls):
            impl.fn(*inputs)
        if on_gpu:
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()


if __name__ == "__main__":
    main()
