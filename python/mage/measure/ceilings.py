"""The device's peaks, the ceilings measured in the same run, and each case's floors (GUIDE §1).

Floors come from the hardware, derived from the device's properties (mage.measure.env):
- FP32 FMA rate = SMs × FP32 lanes per SM × 2 × maximum SM clock
- dense tensor-core rates (tf32, bf16, fp16) = SMs × flop per SM per clock × maximum SM clock
- HBM bandwidth = maximum memory clock × memory bus width × 2 (double data rate) ÷ 8
A floor is a bound no honest kernel can beat: a memory floor (compulsory bytes at the HBM rate) and a
compute floor (the precision's flops at its peak rate), kept apart because a warm cache can beat the
first and never the second (mage.suspect).

What is reached in practice is measured in the same run and shown beside the floor, never used as it
(a library's own rate as the floor would put that library at 100 % by definition):
- copy bandwidth: a large device-to-device copy, counting bytes read plus bytes written
- matmul rate: the library's 8192³ float32 product, once with IEEE and once with TF32
"""

from __future__ import annotations

import statistics

import torch

from mage.measure import env
from mage.measure.device import Timer

COPY_BYTES = 1 << 30
MATMUL_SIZE = 8192

# Dense flop per SM per clock (an FMA counts two) by compute capability, from NVIDIA's whitepapers:
# - sm_80, A100 (108 SMs at 1410 MHz): 19.5 TFLOP/s FP32, 156 TF32, 312 BF16/FP16
# - sm_89, Ada; the RTX 4090's column (128 SMs at 2520 MHz): 82.6 FP32, 82.6 TF32, 330.3 FP16 with FP16
#   accumulate (the fastest mode, so the floor stays a bound for every Ada part and accumulator)
# - sm_90, H100 (132 SMs): 66.9 FP32 at 1980 MHz; 494.7 TF32 and 989.4 BF16/FP16 at 1830 MHz
# Another architecture gets no compute floor rather than a wrong one (its ceilings record says so).
FP32_LANES_PER_SM = {"8.0": 64, "8.9": 128, "9.0": 128}
TENSOR_FLOP_PER_SM_PER_CLOCK = {
    "8.0": {"tf32": 1024, "bf16": 2048, "fp16": 2048},
    "8.9": {"tf32": 256, "bf16": 1024, "fp16": 1024},
    "9.0": {"tf32": 2048, "bf16": 4096, "fp16": 4096},
}
# Each declared precision's arithmetic: the peak and the measured library rate it runs at, and how many
# products at that rate one product asked for takes (tf32x3 is three tf32 passes).
RATES_OF_PRECISION = {
    "ieee": ("peak_fp32_tflops", "matmul_ieee_tflops", 1),
    "tf32": ("peak_tf32_tflops", "matmul_tf32_tflops", 1),
    "tf32x3": ("peak_tf32_tflops", "matmul_tf32_tflops", 3),
    "bf16": ("peak_bf16_tflops", None, 1),
    "fp16": ("peak_fp16_tflops", None, 1),
}


def compute_passes(precision: str) -> int:
    """How many products at its rate a precision's arithmetic takes per product asked for."""
    return rates_of(precision)[2]


def rates_of(precision: str) -> tuple[str, str | None, int]:
    """(peak key, measured library rate key or None, passes) of a precision's arithmetic; ieee's for others."""
    return RATES_OF_PRECISION.get(precision, RATES_OF_PRECISION["ieee"])


def peaks(properties: dict) -> dict:
    """The device's peak rates from its properties; a ``peak_note`` says which could not be derived."""
    out, missing = {}, []
    sm_clock, capability = properties.get("max_sm_clock_mhz"), properties.get("compute_capability")
    if sm_clock and capability in FP32_LANES_PER_SM:
        per_clock = {"fp32": 2 * FP32_LANES_PER_SM[capability], **TENSOR_FLOP_PER_SM_PER_CLOCK[capability]}
        for kind, flop in per_clock.items():
            out[f"peak_{kind}_tflops"] = properties["sm_count"] * flop * sm_clock * 1e6 / 1e12
    elif sm_clock:
        missing.append(f"no compute floor: compute capability {capability} is not in the table of rates per SM "
                       f"({', '.join('sm_' + c.replace('.', '') for c in FP32_LANES_PER_SM)})")
    else:
        missing.append("no compute floor: NVML gave no maximum SM clock")
    mem_clock, bus_bits = properties.get("max_mem_clock_mhz"), properties.get("memory_bus_width_bits")
    if mem_clock and bus_bits:
        out["peak_hbm_gbps"] = mem_clock * 1e6 * bus_bits * 2 / 8 / 1e9
    else:
        missing.append("no memory floor: NVML gave no maximum memory clock or bus width")
    return out | ({"peak_note": "; ".join(missing)} if missing else {})


def _median_us(timer: Timer, region, repeats: int) -> float:
    region()
    return statistics.median(timer.span_us(region) for _ in range(repeats))


def measure(device: str) -> dict:
    """The device's properties and peaks, and the measured ceilings ('copy_gbps', 'matmul_ieee_tflops',
    'matmul_tf32_tflops'); empty on the CPU."""
    if device != "cuda":
        return {}
    from mage.backends.precision import precision_mode  # here, not above: reports import this module, never backends

    properties = env.device_properties()
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
    } | {key: value for key, value in properties.items() if key != "compute_capability"} | peaks(properties)


def _time_us(flops: float, bytes_moved: float, precision: str, gbps: float | None, tflops_key: str | None,
             ceilings: dict) -> tuple[float | None, float | None]:
    """(bytes at ``gbps``, the precision's flops at ``ceilings[tflops_key]``); None where a rate, or the row's
    bytes or flops (a row imported without them), is absent."""
    memory_us = bytes_moved / (gbps * 1e3) if gbps and bytes_moved is not None else None
    rate = ceilings.get(tflops_key) if tflops_key else None
    compute_us = compute_passes(precision) * flops / (rate * 1e6) if rate and flops is not None else None
    return memory_us, compute_us


def hardware_floors_us(ceilings: dict, flops: float, bytes_moved: float, precision: str) -> tuple[float | None, float | None]:
    """(memory floor, compute floor) in µs at the device's peaks; None where the run has no such peak
    (the CPU, no NVML, an architecture outside the table, a run stored before peaks were recorded)."""
    return _time_us(flops, bytes_moved, precision, ceilings.get("peak_hbm_gbps"), rates_of(precision)[0], ceilings)


def in_practice_us(ceilings: dict, flops: float, bytes_moved: float, precision: str) -> float | None:
    """The larger of bytes at the measured copy rate and flops at the measured library rate of the
    precision: what is reached in practice, shown beside the floor; None without measured ceilings."""
    times = [t for t in _time_us(flops, bytes_moved, precision, ceilings.get("copy_gbps"), rates_of(precision)[1],
                                 ceilings) if t is not None]
    return max(times) if times else None


def floor_of(memory_us: float | None, compute_us: float | None) -> float | None:
    """The roofline floor: the larger of the two floors that exist."""
    present = [t for t in (memory_us, compute_us) if t is not None]
    return max(present) if present else None
