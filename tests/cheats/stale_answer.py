"""Answering from memory: right whenever it is checked on new tensors, and then timed
on the same buffers sample after sample, where a remembered answer would cost nothing.

- ``ByAddress`` remembers its output by the inputs' addresses (data_ptr): after the harness gives the
  timing buffers new values in place, it returns the answer for the values it saw first.
- ``ByContent`` remembers its last output by a few elements of each floating-point input: input refresh
  defeats it only if the new values differ at those elements, and then it must compute every sample.
- ``unless_profiled`` makes either honest while a profiler records, so that only the span's own
  verification can catch it.
"""

from __future__ import annotations

import torch


class ByAddress:
    def __init__(self, honest):
        self.honest, self.key, self.out = honest, None, None

    def __call__(self, *inputs):
        key = tuple(t.data_ptr() for t in inputs)
        if key != self.key:
            self.key, self.out = key, self.honest(*inputs)
        return self.out


class ByContent:
    """Counts ``computed``: the calls it could not answer from memory."""

    def __init__(self, honest, elements: int = 4):
        self.honest, self.elements = honest, elements
        self.key, self.out, self.computed = None, None, 0

    def _key(self, inputs) -> tuple:
        picked = []
        for t in inputs:
            if t.is_floating_point():
                flat = t.reshape(-1)
                picked += flat[:: max(1, flat.numel() // self.elements)][: self.elements].tolist()
        return tuple(picked)

    def __call__(self, *inputs):
        key = self._key(inputs)
        if key != self.key:
            self.key, self.out = key, self.honest(*inputs)
            self.computed += 1
        return self.out


def unless_profiled(cheat, honest):
    """``cheat``, except while a profiler records: then ``honest``."""

    def call(*inputs):
        return honest(*inputs) if torch.autograd._profiler_enabled() else cheat(*inputs)

    return call
