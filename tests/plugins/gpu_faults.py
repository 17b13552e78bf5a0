"""Layernorm implementations that break on a GPU, for the H200 fault-injection test (tests/test_faults_gpu.py,
loaded through MAGE_PLUGINS). Each is plausible code with one defect that Mage must catch."""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from mage.outputs import empty_output
from mage.registry import implementation

FAR = tl.constexpr(1 << 40)  # elements past the end of the output: 4 TiB away, never mapped (a constexpr: Triton 3.6 reads no other globals)


@triton.jit
def _store_out_of_bounds(out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets.to(tl.int64) + FAR, 1.0, mask=offsets < n)


def _layernorm(x, weight, bias):
    return F.layer_norm(x, (x.shape[-1],), weight, bias, 1e-5)


@implementation("layernorm", family="fault-oob", variants=("affine",))
def writes_out_of_bounds(x, weight, bias):
    out = _layernorm(x, weight, bias)
    _store_out_of_bounds[(triton.cdiv(out.numel(), 1024),)](out, out.numel(), BLOCK=1024)
    return out


@implementation("layernorm", family="wrong", variants=("affine",))
def uses_the_unbiased_variance(x, weight, bias):
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=True) + 1e-5) * weight + bias


@implementation("layernorm", family="side-stream", variants=("affine",))
def finishes_on_a_side_stream(x, weight, bias):
    out = empty_output(tuple(x.shape), like=x)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(2_000_000)  # a few hundred microseconds: still running when the call returns
        out.copy_(_layernorm(x, weight, bias))
    return out


_stale = {"calls": 0, "last": None}


@implementation("layernorm", family="stale", variants=("affine",))
def stops_computing_after_a_while(x, weight, bias):
    """Right for its first calls (the contract), then returns a copy of its last output: a stale result."""
    _stale["calls"] += 1
    if _stale["calls"] <= 12 or _stale["last"] is None or _stale["last"].shape != x.shape:
        _stale["last"] = _layernorm(x, weight, bias)
    return _stale["last"].clone()


_reused = {}


@implementation("layernorm", family="aliased", variants=("affine",))
def reuses_its_output_buffer(x, weight, bias):
    out = _reused.get(tuple(x.shape))
    if out is None:
        out = _reused[tuple(x.shape)] = torch.empty_like(x)
    return out.copy_(_layernorm(x, weight, bias))
