"""Layernorm implementations that fail the way only foreign code can (tests/test_exit_codes.py and
tests/test_faults_gpu.py, loaded through MAGE_PLUGINS): one exits, one raises KeyboardInterrupt, one runs out of
host memory while timed; on a GPU, one hoards device memory while timed and one asks for more than the device has."""

import sys

import torch

from mage.registry import implementation

HOARD = []  # what the hoarder keeps of each timed call: it is never given back
HOARDED_PER_CALL = 2 << 30


def _timed() -> bool:
    """Whether this call is one of span sampling's (mage.measure.span.measure), not a contract's or a profile's."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "measure" and frame.f_code.co_filename.endswith("span.py"):
            return True
        frame = frame.f_back
    return False


def _layernorm(x, weight, bias):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias)


@implementation("layernorm", family="exits", variants=("affine",))
def exits(x, weight, bias):
    sys.exit(0)


@implementation("layernorm", family="interrupts", variants=("affine",))
def interrupts(x, weight, bias):
    raise KeyboardInterrupt


@implementation("layernorm", family="hostoom", variants=("affine",))
def host_oom(x, weight, bias):
    if _timed():
        raise MemoryError("planted: no host memory left")
    return _layernorm(x, weight, bias)


@implementation("layernorm", family="hoards", variants=("affine",))
def hoards(x, weight, bias):
    out = _layernorm(x, weight, bias)
    if _timed():
        HOARD.append(torch.empty(HOARDED_PER_CALL, dtype=torch.uint8, device=x.device))
    return out


@implementation("layernorm", family="greedy", variants=("affine",))
def greedy(x, weight, bias):
    if _timed():
        torch.empty(4 * torch.cuda.get_device_properties(x.device).total_memory, dtype=torch.uint8, device=x.device)
    return _layernorm(x, weight, bias)
