"""Call span (GUIDE §1): CUDA events right before and after the call, event-synchronized each sample.

Samples are taken in rounds; the implementations' order is rotated between rounds so that clock
and thermal drift fall on all of them alike. The whiskers are the min and max of the round means,
not a confidence interval.

Launch paths, each timed at this boundary:
- single: one warmed call per span
- batch:  B calls back to back in one span; per call = span / B
- graph:  B calls captured into one CUDA graph and replayed; per call = span / B
"""

from __future__ import annotations

import contextlib
import statistics
from dataclasses import dataclass, field
from typing import Callable, ContextManager

import torch

from mage.measure.device import Timer
from mage.measure.method import Method


@dataclass
class Contender:
    """One implementation, prepared on one case: a zero-argument call and the mode it runs under."""

    key: str
    call: Callable[[], object]
    mode: Callable[[], ContextManager] = contextlib.nullcontext


@dataclass
class SpanStats:
    samples: list[tuple[int, float]] = field(default_factory=list)  # (round, µs per call)
    calls_per_sample: int = 1

    def _values(self) -> list[float]:
        return [v for _, v in self.samples]

    @property
    def mean_us(self) -> float:
        return statistics.fmean(self._values())

    @property
    def median_us(self) -> float:
        return statistics.median(self._values())

    def round_means(self) -> list[float]:
        rounds = sorted({r for r, _ in self.samples})
        return [statistics.fmean(v for r, v in self.samples if r == k) for k in rounds]


def rotation(count: int, rounds: int) -> list[list[int]]:
    """The order of ``count`` implementations in each round: round r starts at implementation r."""
    return [[(r + i) % count for i in range(count)] for r in range(rounds)]


def graph_replay(call: Callable[[], object], repeats: int) -> Callable[[], None]:
    """Capture ``repeats`` calls into one CUDA graph; returns its replay."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up off the capture stream, as CUDA graphs require
        for _ in range(2):
            call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(repeats):
            call()
    torch.cuda.synchronize()
    return graph.replay


def sampler(path: str, call: Callable[[], object], timer: Timer, method: Method) -> tuple[Callable[[], object], int]:
    """The region one span sample times for ``path``, and how many calls it holds."""
    if path == "single":
        return call, 1
    if path == "batch":

        def batch():
            for _ in range(method.batch):
                call()

        return batch, method.batch
    if path == "graph":
        if not timer.is_cuda:
            raise RuntimeError("CUDA graphs need a CUDA device")
        return graph_replay(call, method.batch), method.batch
    raise ValueError(f"unknown path {path!r}")


def measure(
    contenders: list[Contender],
    path: str,
    timer: Timer,
    method: Method,
    flush: Callable[[], None] | None = None,
    on_sample: Callable[[], None] | None = None,
    window: Callable[[str], ContextManager] = lambda key: contextlib.nullcontext(),
) -> tuple[dict[str, SpanStats], dict[str, str]]:
    """Span samples per contender key, and the reason for each contender whose path could not run.

    ``window(key)`` is entered around each contender's block of samples in a round (the clock watch).
    """
    regions, failures, stats = {}, {}, {}
    for contender in contenders:
        try:
            with contender.mode():
                region, calls = sampler(path, contender.call, timer, method)
                probe_us = timer.span_us(region)
        except Exception as error:  # one contender's failure must not stop the others
            failures[contender.key] = f"{type(error).__name__}: {error}"
            continue
        stats[contender.key] = SpanStats(calls_per_sample=calls)
        regions[contender.key] = (region, calls, method.samples_within_budget(method.span_samples, probe_us * 1e-6))
    ready = [c for c in contenders if c.key in regions]
    for round_index, order in enumerate(rotation(len(ready), method.rounds)):
        for position in order:
            contender = ready[position]
            region, calls, samples = regions[contender.key]
            per_round = max(1, samples // method.rounds)
            with contender.mode(), window(contender.key):
                for _ in range(per_round):
                    if flush is not None:
                        flush()
                    stats[contender.key].samples.append((round_index, timer.span_us(region) / calls))
                    if on_sample:
                        on_sample()
    return stats, failures
