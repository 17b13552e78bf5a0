"""Call span (GUIDE §1): CUDA events right before and after the call, event-synchronized each sample.

Samples are taken in rounds, each round a block of samples per contender; the contenders' order is
rotated between rounds so that clock and thermal drift fall on all of them alike. The whiskers are
the min and max of the round means, not a confidence interval.

Sampling stops on measured noise, as nvbench does: a contender is done once the relative standard
error of its mean (RSE) is below ``method.noise_target``, never before ``min_samples`` samples in
``rounds`` rounds (the floor), and at the latest when its samples have spent ``budget_s`` of timed
spans, or ``wall_budget_s`` of wall time where the method sets it, or number ``span_samples`` (the caps). One
capped above the target is marked noisy.

Answering from memory must not pay (GUIDE §2): before every sample, outside the timed window,
``refresh`` gives the inputs new values in place, and one timed output per block, at a random
sample, goes to the contender's ``verify``; a wrong one ends the contender as stale.

Launch paths, each timed at this boundary:
- single: one warmed call per span
- batch:  B calls back to back in one span; per call = span / B
- graph:  B calls captured into one CUDA graph and replayed; per call = span / B
"""

from __future__ import annotations

import contextlib
import math
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Callable, ContextManager

import torch

from mage import signals
from mage.errors import FOREIGN_FAULTS
from mage.measure.device import Timer
from mage.measure.method import Method


@dataclass
class Contender:
    """One implementation, prepared on one case: a zero-argument call, the mode it runs under, and
    ``verify``: why an output it returned while timed is wrong for the inputs it was given, or ''."""

    key: str
    call: Callable[[], object]
    mode: Callable[[], ContextManager] = contextlib.nullcontext
    verify: Callable[[object], str] | None = None


@dataclass
class SpanStats:
    samples: list[tuple[int, float]] = field(default_factory=list)  # (round, µs per call); grown by add()
    calls_per_sample: int = 1
    spent_s: float = 0.0  # timed span seconds of its samples, what the budget caps
    wall_s: float = 0.0  # wall seconds its samples took, refreshes, flushes and synchronizations included
    noisy: bool = False  # capped with its RSE above the noise target
    stale: str | None = None  # why a verified timed output was wrong
    _mean: float = field(default=0.0, repr=False)  # running mean and sum of squared deviations (Welford)
    _squares: float = field(default=0.0, repr=False)

    def add(self, round_index: int, span_us: float) -> None:
        """One sample: ``span_us`` for the whole region, so ``calls_per_sample`` calls."""
        value = span_us / self.calls_per_sample
        self.samples.append((round_index, value))
        self.spent_s += span_us * 1e-6
        delta = value - self._mean
        self._mean += delta / len(self.samples)
        self._squares += delta * (value - self._mean)

    @property
    def rse(self) -> float:
        """Relative standard error of the mean: sample standard deviation / √n / mean (inf below 2 samples)."""
        n = len(self.samples)
        if n < 2:
            return math.inf
        if self._squares <= 0:
            return 0.0
        return math.sqrt(self._squares / (n - 1) / n) / abs(self._mean)

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


# A contender whose samples keep more device memory than this share of the device (outputs it holds on to
# across calls) is stopped as failing before it exhausts the memory every other contender needs.
RETAINED_SHARE_LIMIT = 0.25


OUT_OF_MEMORY, HOARDING = "ran out of", "kept"  # how a failure of memory while timed begins


def exhausted_memory(reason: str) -> bool:
    """Whether a contender's failure is one of memory: timing it again would only exhaust it again."""
    return reason.startswith((OUT_OF_MEMORY, HOARDING))


def _retention(retained: int, total: int) -> str:
    """Why a contender that keeps ``retained`` bytes across its samples is stopped, or '' while within the limit."""
    if not total or retained <= RETAINED_SHARE_LIMIT * total:
        return ""
    return (f"{HOARDING} {retained / 2**30:.1f} GiB of device memory across its timed calls (more than "
            f"{RETAINED_SHARE_LIMIT:.0%} of the device): it holds on to what it returns")


def _fault(error: BaseException) -> str:
    """A sampling failure in words: running out of memory said so, whoever's allocation tripped."""
    text = f"{type(error).__name__}: {error}".splitlines()[0][:500]
    if isinstance(error, (torch.OutOfMemoryError, MemoryError)):
        where = "host" if isinstance(error, MemoryError) else "device"
        return f"{OUT_OF_MEMORY} {where} memory while timed ({text})"
    return text


def rotated(items: list, round_index: int) -> list:
    """The order of ``items`` in round ``round_index``: round r starts at item r."""
    start = round_index % len(items) if items else 0
    return items[start:] + items[:start]


def graph_replay(call: Callable[[], object], repeats: int) -> tuple[Callable[[], None], object]:
    """Capture ``repeats`` calls into one CUDA graph: its replay, and the last captured call's output
    (the graph's output buffer, which every replay writes again)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up off the capture stream, as CUDA graphs require
        for _ in range(2):
            call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with signals.uninterrupted(), torch.cuda.graph(graph):  # a signal waits for the capture to end
        for _ in range(repeats):
            out = call()
    torch.cuda.synchronize()
    return graph.replay, out


def sampler(path: str, call: Callable[[], object], timer: Timer, method: Method) -> tuple[Callable[[], object], int]:
    """The region one span sample times for ``path``, and how many calls it holds.

    The region returns the output of its last call, so that a timed output can be verified.
    """
    if path == "single":
        return call, 1
    if path == "batch":

        def batch():
            for _ in range(method.batch - 1):
                call()
            return call()

        return batch, method.batch
    if path == "graph":
        if not timer.is_cuda:
            raise RuntimeError("CUDA graphs need a CUDA device")
        replay, out = graph_replay(call, method.batch)

        def replayed():
            replay()
            return out

        return replayed, method.batch
    raise ValueError(f"unknown path {path!r}")


def _stops(stats: SpanStats, round_index: int, method: Method) -> bool:
    """Whether a contender stops sampling: past the floor, and below the noise target or at a cap; one
    that stops at a cap above the target is marked noisy."""
    if len(stats.samples) < method.min_samples or round_index + 1 < method.rounds:
        return False
    capped = (stats.spent_s >= method.budget_s or len(stats.samples) >= method.span_samples
              or method.wall_budget_s is not None and stats.wall_s >= method.wall_budget_s)
    if stats.rse <= method.noise_target:
        return True
    stats.noisy = capped
    return capped


def _verified(timer: Timer, region: Callable[[], object], verify: Callable[[object], str]) -> tuple[float, str]:
    """One timed sample whose output is kept past the window and verified: (span µs, why it is wrong or '')."""
    kept = []
    span_us = timer.span_us(lambda: kept.append(region()))
    return span_us, verify(kept.pop())


def measure(
    contenders: list[Contender],
    path: str,
    timer: Timer,
    method: Method,
    flush: Callable[[], None] | None = None,
    refresh: Callable[[], None] | None = None,
    window: Callable[[str], ContextManager] = lambda key: contextlib.nullcontext(),
    rng: random.Random | None = None,
) -> tuple[dict[str, SpanStats], dict[str, str]]:
    """Span samples per contender key, and the reason for each contender whose path could not run.

    ``window(key)`` is entered around each contender's block of samples in a round (the clock watch);
    ``rng`` picks the verified sample of each block (seeded by the caller, unknowable to the contender).
    """
    regions, failures, stats = {}, {}, {}
    for contender in contenders:
        try:
            with contender.mode():
                region, calls = sampler(path, contender.call, timer, method)
                timer.span_us(region)  # one trial: a path that cannot run fails here, before any round
        except FOREIGN_FAULTS as error:  # one contender's failure must not stop the others
            failures[contender.key] = _fault(error)
            timer.release()
            continue
        stats[contender.key] = SpanStats(calls_per_sample=calls)
        regions[contender.key] = region
    rng = rng or random.Random(0)
    block = max(1, math.ceil(method.min_samples / method.rounds))  # the floor is met after ``rounds`` rounds
    active, finished = [c for c in contenders if c.key in regions], set()
    retained = dict.fromkeys(regions, 0)  # device bytes each contender's blocks left allocated, summed
    total = timer.total_bytes()
    round_index = 0
    while active:
        for contender in rotated(active, round_index):
            region, result = regions[contender.key], stats[contender.key]
            checked = rng.randrange(block) if contender.verify else -1
            before = timer.allocated_bytes()
            try:
                with contender.mode(), window(contender.key):
                    for position in range(block):
                        started = time.perf_counter()
                        # New values first, then the flush: the copy itself warms L2, so it must come before.
                        if refresh is not None:
                            refresh()
                        if flush is not None:
                            flush()
                        if position == checked:
                            span_us, stale = _verified(timer, region, contender.verify)
                            result.stale = stale or None
                        else:
                            span_us = timer.span_us(region)
                        result.add(round_index, span_us)
                        result.wall_s += time.perf_counter() - started
                        if result.stale or _stops(result, round_index, method):
                            finished.add(contender.key)
                            break
                retained[contender.key] += timer.allocated_bytes() - before
                failure = _retention(retained[contender.key], total)
            except FOREIGN_FAULTS as error:  # its own failure, out of memory included: the others go on
                failure = _fault(error)
            if failure:
                failures[contender.key] = failure
                del stats[contender.key], regions[contender.key], region  # its graph and outputs, given back
                finished.add(contender.key)
                timer.release()
        active = [c for c in active if c.key not in finished]
        round_index += 1
    return stats, failures
