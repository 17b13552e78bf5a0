"""Layernorm implementations for the exit-code tests (tests/test_exit_codes.py, loaded through MAGE_PLUGINS):
one that gives a wrong answer, and one that sleeps so that a signal lands in the middle of a run."""

import os
import time
from pathlib import Path

import torch

from mage.registry import implementation

STARTED = "MAGE_TEST_SLEEP_STARTED"  # a file the sleeper creates when it is first called


@implementation("layernorm", family="wrong", variants=("affine",))
def wrong(x, weight, bias):
    return torch.zeros_like(x)


@implementation("layernorm", family="sleeps", variants=("affine",))
def sleeps(x, weight, bias):
    Path(os.environ[STARTED]).touch()
    time.sleep(600)
