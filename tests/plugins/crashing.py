"""Implementations that take their process down, for the isolation tests (loaded through MAGE_PLUGINS).

Never import this in the test process itself: a "hang" among layernorm's implementations would
stall every in-process test that runs them all.
"""

import ctypes
import inspect
import os
import time

import torch

from mage.registry import implementation


@implementation("layernorm", family="crash-segv", variants=("affine",))
def segfaults(x, weight, bias):
    ctypes.string_at(0)  # reads address 0: SIGSEGV


@implementation("layernorm", family="crash-abort", variants=("affine",))
def aborts(x, weight, bias):
    os.abort()


@implementation("layernorm", family="hang", variants=("affine",))
def hangs(x, weight, bias):
    while True:
        time.sleep(60)


@implementation("layernorm", family="oom", variants=("affine",))
def runs_out_of_memory(x, weight, bias):
    raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 1 TiB (fixture)")


@implementation("layernorm", family="breaks-context", variants=("affine",))
def leaves_the_device_unusable(x, weight, bias):
    """What an illegal address does to a CUDA context, acted out on the CPU: this call fails, and from
    then on the device runs nothing (the timer's health check fails) in this process."""
    from mage.measure.device import Timer

    Timer.usable = lambda self: False
    raise RuntimeError("CUDA error: an illegal memory access was encountered (simulated)")


@implementation("layernorm", family="breaks-context-late", variants=("affine",))
def leaves_the_device_unusable_in_its_recheck(x, weight, bias):
    """Right through its contract and timing; loses the device in the re-check after timing."""
    if any(frame.function == "recheck" for frame in inspect.stack()):
        leaves_the_device_unusable(x, weight, bias)
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, 1e-5)
