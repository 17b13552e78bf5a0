"""Which orientation of the fused update's triangle GEMM cuBLAS runs fastest, alone and inside the update. The
projection writes a′ and b′ K-major ([C, N, rows], k contiguous); the product t′[c] = a′[c] · b′[c]ᵀ can be asked of
cuBLAS as written, or as its transpose b′[c] · a′[c]ᵀ, which the output kernel reads with its tiles along i
(``pairformer_update(..., transposed_product=True)``). Both are the same sums; cuBLAS's heuristics may pick other
kernels for them. A GPU diagnostic:

    python3 scripts/gemm_orientation_probe.py [N ...] [PRECISION ...]

For each N (default 384 and 768) and precision (C 128; default bf16 and tf32): each orientation's GEMM alone, its
kernel time a call (the profiler's device activities after an L2 flush, as a run measures it), its kernels, and the
largest difference between the two products; then the trimul blocks at N (outgoing and incoming) through
``triton.pairformer-cublas``'s kernels both ways, each output checked against the other, kernel by kernel.
"""

from __future__ import annotations

import functools
import sys

import torch

from mage.backends.precision import precision_mode
from mage.context import blocks
from mage.context.fused import trimul_triton
from mage.measure import kernel
from mage.measure.l2 import L2Flush
from mage.ops.triangle import triton_relayout

CHANNELS = 128
CALLS = 10
DTYPES = {"bf16": torch.bfloat16, "tf32": torch.float32}


def report(label: str, call, flush) -> None:
    """One line: the call's kernel time a call and its largest kernels."""
    captured = kernel.capture(call, CALLS, flush)
    shares = ", ".join(f"{name[:60]} {us:.1f}" for name, us in kernel.kernel_shares(call, CALLS, flush)[:4])
    print(f"  {label:28s} {captured.kernel_us:8.1f} µs: {shares}", flush=True)


def compare(title: str, trials: dict, precision: str, flush) -> None:
    """Both orientations' outputs against each other, then each one's kernel time, under ``precision``'s mode."""
    with precision_mode(precision):
        first, second = (call() for call in trials.values())
        difference = (first.float() - second.float()).abs().max().item()
        print(f"{title}: largest difference between the two {difference:.2e}")
        for label, call in trials.items():
            report(label, call, flush)


def gemms(N: int, precision: str, flush) -> None:
    rows = triton_relayout.aligned(N)
    a_k, b_k = (torch.randn((CHANNELS, N, rows), dtype=DTYPES[precision], device="cuda") for _ in range(2))
    a, b = a_k[..., :N], b_k[..., :N]
    trials = {"a′·b′ᵀ (as written)": lambda: torch.bmm(a, b.mT),
              "(b′·a′ᵀ)ᵀ (transposed)": lambda: torch.bmm(b, a.mT).mT}
    compare(f"GEMM N {N} C {CHANNELS} {precision}", trials, precision, flush)


def updates(N: int, precision: str, flush) -> None:
    for variant in ("outgoing", "incoming"):
        block, (z,) = blocks.build_as_timed(f"trimul/{variant}-{N}", precision, "cuda")
        resident = precision == "bf16"
        trials = {f"update, {'transposed' if flag else 'as written'}": functools.partial(
            trimul_triton.pairformer_update, block, z, variant, precision, resident_projection=resident,
            contraction="cublas", transposed_product=flag) for flag in (False, True)}
        compare(f"trimul/{variant}-{N} {precision}", trials, precision, flush)


def main(sizes: list[int], precisions: list[str]) -> None:
    flush = L2Flush("cuda")
    print(f"on {torch.cuda.get_device_name()}")
    for N in sizes:
        for precision in precisions:
            gemms(N, precision, flush)
            updates(N, precision, flush)


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:] if arg.isdigit()] or [384, 768],
         [arg for arg in sys.argv[1:] if not arg.isdigit()] or list(DTYPES))
