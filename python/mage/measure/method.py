"""The method's parameters, stored with every run so any number can be reproduced."""

from __future__ import annotations

from dataclasses import asdict, dataclass

PATHS = ("single", "batch", "graph")
CACHES = ("warm", "cold")
# The seed suite's default caps on one measurement, for a run of that suite alone (--budget replaces both): Mage's
# main job answers in minutes; a result they cap above the noise target is marked noisy. Its spans are tens of µs
# and each sample costs about 0.3 ms more in refreshed inputs, events and synchronization (results/README.md), so
# its cap is on wall time as well as on span time.
SEED_BUDGET_S = 0.05
SEED_WALL_BUDGET_S = 0.05


@dataclass(frozen=True)
class Method:
    kernel_calls: int = 100  # calls captured by the profiler
    span_samples: int = 10_000  # most span samples per implementation and path, across all rounds
    rounds: int = 3  # at least this many rounds, implementation order rotated between rounds
    min_samples: int = 30  # floor: sampling never stops below it, whatever the noise or the budget
    noise_target: float = 0.005  # span sampling stops once the relative standard error of the mean is below it
    batch: int = 10  # calls per span on the batch and graph paths
    host_calls: int = 200  # back-to-back calls timed on the host
    host_chunk: int = 20  # calls between synchronizations, so the GPU queue never fills
    warmup_calls: int = 10
    budget_s: float = 2.0  # time one measurement may take: the cap on noise-driven span sampling
    # The cap on a measurement's wall time, its samples' refreshes, flushes and synchronizations included (None:
    # spans alone are capped, by budget_s).
    wall_budget_s: float | None = None
    refresh_sets: int = 3  # input sets copied into the timing buffers between samples (check.InputRefresh)
    check_seed: int = 1_000_003  # contracts draw fresh inputs from seeds derived from this
    # On the CPU, an implementation whose floor of samples alone would take longer than this is skipped after its
    # contract (fp16 matmul on a CPU without fp16 arithmetic takes seconds a call).
    cpu_floor_limit_s: float = 10.0

    def as_dict(self) -> dict:
        return asdict(self)

    def samples_within_budget(self, wanted: int, seconds_per_sample: float) -> int:
        """``wanted``, reduced so the measurement fits the budget, never below ``min_samples``."""
        if seconds_per_sample <= 0:
            return wanted
        affordable = int(self.budget_s / seconds_per_sample)
        return max(min(wanted, affordable), min(self.min_samples, wanted))
