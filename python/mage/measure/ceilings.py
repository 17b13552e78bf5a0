"""Device ceilings measured in the same run, and each case's roofline floor (GUIDE §1).

- copy bandwidth: a large device-to-device copy, counting bytes read plus bytes written
- matmul rate: the library's 8192³ float32 product, once with IEEE and once with TF32
"""

from __future__ import annotations

import statistics

import torch

from mage.measure.device import Timer

COPY_BYTES = 1 << 30
MATMUL_SIZE = 8192
# Implementations declare these precisions; each is held to the library rate of the arithmetic it
# does, that many times over: tf32x3 is three tf32 products (its floor is not the FMA rate's).
RATE_OF_PRECISION = {"ieee": ("matmul_ieee_tflops", 1), "tf32": ("matmul_tf32_tflops", 1),
                     "tf32x3": ("matmul_tf32_tflops", 3)}


def compute_passes(precision: str) -> int:
    """How many products at its rate a precision's arithmetic takes per product asked for."""
    return RATE_OF_PRECISION.get(precision, RATE_OF_PRECISION["ieee"])[1]


def _median_us(timer: Timer, region, repeats: int) -> float:
    region()
    return statistics.median(timer.span_us(region) for _ in range(repeats))


def measure(device: str) -> dict:
    """Measured ceilings: {'copy_gbps', 'matmul_ieee_tflops', 'matmul_tf32_tflops'}; empty on the CPU."""
    if device != "cuda":
        return {}
    from mage.backends.precision import precision_mode  # here, not above: reports import this module, never backends

    timer = Timer(device)
    source = torch.rand(COPY_BYTES // 4, device=device)
    target = torch.empty_like(source)
    copy_us = _median_us(timer, lambda: target.copy_(source), 20)
    del source, target
    a = torch.randn(MATMUL_SIZE, MATMUL_SIZE, device=device)
    b = torch.randn(MATMUL_SIZE, MATMUL_SIZE, device=device)
    flops = 2.0 * MATMUL_SIZE**3
    rates = {}
    for precision in ("ieee", "tf32"):
        with precision_mode(precision):
            rates[precision] = flops / _median_us(timer, lambda: a @ b, 5) / 1e6
    return {
        "copy_gbps": 2 * COPY_BYTES / copy_us / 1e3,
        "matmul_ieee_tflops": rates["ieee"],
        "matmul_tf32_tflops": rates["tf32"],
    }


def floor_us(ceilings: dict, flops: float, bytes_moved: float, precision: str) -> float | None:
    """The larger of bytes over copy bandwidth and flops over the library rate of ``precision``'s
    arithmetic (three tf32 passes for tf32x3); None without ceilings."""
    if not ceilings:
        return None
    memory_us = bytes_moved / (ceilings["copy_gbps"] * 1e3)
    key, passes = RATE_OF_PRECISION.get(precision, RATE_OF_PRECISION["ieee"])
    rate = ceilings.get(key)
    compute_us = passes * flops / (rate * 1e6) if rate else 0.0
    return max(memory_us, compute_us)
