"""Knobs chosen per shape, and the record of what each call ran with.

Triton's autotuner chooses its kernels' configs; ``Tuner`` does the same for a launcher whose
candidates differ only by a knob (a piece size, a row threshold, a feature slice): on its first call
for a shape key it times every candidate with Triton's ``do_bench`` (L2 cleared before each call, the
median), keeps the fastest for that key, and every call records the choice, so a stored result says
which configuration it measured. Where no GPU times the candidates (the CPU emulation, a CUDA graph
being captured) the first candidate runs, unrecorded as a choice of speed.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Generic, Hashable, Iterator, TypeVar

import torch
from triton.runtime.autotuner import Autotuner

Config = TypeVar("Config")

_RECORDERS: list[list[str]] = []
TUNE_WARMUP_MS, TUNE_REP_MS = 5, 20  # do_bench's budget a candidate: a few dozen calls of the seed cases


def record(text: str) -> None:
    for seen in _RECORDERS:
        seen.append(text)


@contextmanager
def recorded_tunings() -> Iterator[list[str]]:
    """The configuration every tuned kernel launched with inside the block, as 'kernel: config', in launch
    order: Triton's autotuned kernels (Autotuner.run wrapped for the block only) and every Tuner's."""
    seen: list[str] = []
    original = Autotuner.run

    def run(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        seen.append(f"{self.base_fn.__name__}: {self.best_config}")
        return result

    Autotuner.run = run
    _RECORDERS.append(seen)
    try:
        yield seen
    finally:
        Autotuner.run = original
        _RECORDERS.remove(seen)


class Tuner(Generic[Config]):
    """The fastest of ``candidates`` (name → config) for each shape key, timed once on the GPU."""

    def __init__(self, name: str, candidates: dict[str, Config]):
        self.name, self.candidates = name, candidates
        self.chosen: dict[Hashable, str] = {}

    def choose(self, key: Hashable, run: Callable[[Config], object], device: torch.device,
               allowed: Callable[[Config], bool] = lambda config: True) -> Config:
        """The config to run for ``key``: ``run(config)`` launches one call of it (timed here only on a miss)."""
        names = [name for name, config in self.candidates.items() if allowed(config)]
        if key not in self.chosen:
            if device.type != "cuda" or torch.cuda.is_current_stream_capturing():
                record(f"{self.name}: {names[0]} (untimed: no GPU to time the candidates)")
                return self.candidates[names[0]]
            from triton.testing import do_bench

            times = {name: do_bench(lambda: run(self.candidates[name]), warmup=TUNE_WARMUP_MS, rep=TUNE_REP_MS)
                     for name in names}
            self.chosen[key] = min(names, key=times.__getitem__)
        record(f"{self.name}: {self.chosen[key]}")
        return self.candidates[self.chosen[key]]
