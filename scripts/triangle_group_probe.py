"""The L2 study of ``triton.relayout3-cublas``: its copies and product made a channel group at a time, each group's
scratch small enough for L2 to keep between the group's three launches where the group is small. For each group
size, the cold-L2 kernel time a call (as a run measures it: the profiler's device activities after an L2 flush)
and its kernels' shares, beside ``triton.relayout3`` on the same inputs. A GPU diagnostic:

    python3 scripts/triangle_group_probe.py CASE PRECISION [GROUP ...]

e.g. ``B1-N512-C128 tf32 8 16 32 64 128``. Every grouping is first checked against the float64 reference at the
precision's tolerance (the call is then timed, else reported as wrong)."""

from __future__ import annotations

import sys

import torch

from mage.backends.precision import TOLERANCE, precision_mode
from mage.measure import kernel
from mage.measure.l2 import L2Flush
from mage.ops.triangle import triton_cublas, triton_relayout
from mage.ops.triangle.spec import SPEC

CALLS = 10


def main(case_name: str, precision: str, groups: list[int]) -> None:
    case = SPEC.case(case_name)
    a, b = SPEC.make_inputs_at(case, case.seed, "cuda", "normal", precision)
    expected = SPEC.reference((a.double(), b.double()), "outgoing")
    flush = L2Flush("cuda")
    l2 = torch.cuda.get_device_properties(a.device).L2_cache_size
    print(f"{case_name} {precision} on {torch.cuda.get_device_name()}: L2 {l2 / 2**20:.0f} MiB")
    trials = [("relayout3", lambda: triton_relayout.triangle_relayout3(a, b, "outgoing", precision))]
    trials += [(f"cuBLAS, groups of {group}", lambda g=group: triton_cublas.grouped_triangle(a, b, "outgoing", g))
               for group in groups]
    for label, call in trials:
        with precision_mode(precision):
            out = call()
            error = ((out.double() - expected).norm() / expected.norm()).item()
            if not error <= TOLERANCE[precision]:
                print(f"  {label:24s} WRONG: relative error {error:.2e}")
                continue
            call()
            captured = kernel.capture(call, CALLS, flush)
            shares = ", ".join(f"{name[:40]} {us:.1f}" for name, us in kernel.kernel_shares(call, CALLS, flush)[:4])
        print(f"  {label:24s} {captured.kernel_us:8.1f} µs, {captured.launches:g} launches, error {error:.1e}: "
              f"{shares}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], [int(g) for g in sys.argv[3:]] or [8])
