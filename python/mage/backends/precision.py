"""Precision modes applied around an implementation's checks and timings (never inside the call)."""

from __future__ import annotations

import contextlib

import torch

# Ceilings on ‖out − ref‖ / ‖ref‖ per declared precision (GUIDE §2).
TOLERANCE = {"ieee": 1e-5, "tf32x3": 1e-5, "tf32": 2e-3, "bf16": 2e-2, "fp16": 2e-2}


@contextlib.contextmanager
def precision_mode(precision: str):
    """Let torch's library matmuls use TF32 only for implementations that declare it, and keep their
    bf16/fp16 products accumulating in float32 (cuBLAS may otherwise reduce split-K partials in the
    16-bit type, which is not the precision declared)."""
    matmul = torch.backends.cuda.matmul
    previous = (matmul.allow_tf32, torch.backends.cudnn.allow_tf32, matmul.allow_bf16_reduced_precision_reduction,
                matmul.allow_fp16_reduced_precision_reduction)
    allow = precision == "tf32"
    matmul.allow_tf32 = allow
    torch.backends.cudnn.allow_tf32 = allow
    matmul.allow_bf16_reduced_precision_reduction = False
    matmul.allow_fp16_reduced_precision_reduction = False
    try:
        yield
    finally:
        (matmul.allow_tf32, torch.backends.cudnn.allow_tf32, matmul.allow_bf16_reduced_precision_reduction,
         matmul.allow_fp16_reduced_precision_reduction) = previous


def cuda_only(precision: str):
    """Availability rule: TF32 exists only on CUDA devices."""

    def available(device: str) -> str | None:
        if precision == "tf32" and device != "cuda":
            return "tf32 is a CUDA tensor-core mode; on the CPU it would silently run as ieee"
        return None

    return available
