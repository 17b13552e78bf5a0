"""Warmed calls of chosen implementations inside one cudaProfilerStart/Stop range, for ncu.

    ncu --profile-from-start off ... python3 scripts/ncu_calls.py OP,IMPL,CASE [OP,IMPL,CASE ...]

Each implementation is called twice on its case's own inputs before the range opens (compilation,
autotuning and loading happen there), then once inside it: ncu sees one timed kind of call each. Every call runs
under its precision's mode, as in a run (eager tf32 is cuBLAS's TF32 product only so).
"""

import sys

import torch

from mage import registry
from mage.backends.precision import precision_mode

work = []
for op, name, case_name in (tuple(arg.split(",")) for arg in sys.argv[1:]):
    spec = registry.get_op(op)
    impl = next(i for i in registry.implementations(op) if i.name == name)
    case = spec.case(case_name)
    inputs = spec.make_inputs_at(case, case.seed, "cuda", "normal", impl.precision)  # 16-bit inputs at bf16, fp16
    with precision_mode(impl.precision):
        for _ in range(2):
            impl.fn(*inputs)
    work.append((impl, inputs))
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
for impl, inputs in work:
    with precision_mode(impl.precision):
        impl.fn(*inputs)
    torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
print("profiled:", [impl.name for impl, _ in work])
