"""Every stored result of an implementation over time and commits, with its steps found.

A series is one (op, case, implementation, path, cache, boundary) on one device model (the GPU's name,
or the CPU's model for CPU runs) and one clock (GPU or CPU wall clock), across the runs of a store, in
chronological order (run start, then id): numbers of another machine or clock are never a step, so the
same result on new hardware starts a series of its own, which says so (``new_hardware``). Results that
failed or were skipped stay in the series as points without a value; step detection reads only the
measured values.

Step detection (binary segmentation with medians, robust to outliers):
1. Split the series x[0:n] where two levels fit it best: the k minimising the sum of absolute deviations
   of x[:k] from their median plus those of x[k:] from theirs (and fitting better than one level).
2. Score the split: spread = the smaller of 1.4826 × the median absolute deviation of every point from
   the median of its own side, and 1.4826 × the median |x[i+1] − x[i]| / √2 over the whole series
   (which other steps barely touch); noise = max(spread, the median half-range of the points' round
   means (span only), NOISE_FLOOR (1 %) × |median before|); score = |median after − median before| / noise.
   It is a step when score ≥ MIN_SCORE (3) and the medians differ by at least MIN_STEP (5 %).
3. Search each side of a step again, until no split qualifies.
A step where times rise is a regression (``slower``), one where they fall an improvement (``faster``).

A step is found in the numbers alone, so each says what else changed between the run of the last measured point
before it and the run of its first point (``Step.also_changed``): the physical GPU (its uuid), the driver, CUDA,
torch, Triton and Python versions, and the method settings that set how a number is measured (METHOD_KEYS).
A step beside such a change may be that change, not the code; a step at the same commit is not the code.

The model blocks of context runs (mage.store.BlockResult) are series too, beside the ops' results: the
block as the op, its precision as the case, its assignment as the implementation, cache ``—``
(mage.store.block_row_key); their span boundary is the mean span of one block call.
A step may be a single point at the end of a series: the latest run is exactly where a regression
first shows, and it stays a candidate until later runs confirm or revert it.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from mage import identity
from mage.errors import MageError
from mage.report.format import at_boundary, commit_label
from mage.store import BlockResult, RowBoundary, block_row_key

BOUNDARY_COLUMNS = {"kernel": "kernel_us", "span": "span_mean_us", "host": "host_us", "launches": "launches"}
MIN_SCORE = 3.0
MIN_STEP = 0.05
NOISE_FLOOR = 0.01
# What besides the code moves a number between two runs of one device model: the env key and its name in words,
# then the method settings that set how much is sampled and how (budget_s is the sampling budget).
ENV_KEYS = (("uuid", "GPU"), ("driver", "driver"), ("cuda", "CUDA"), ("torch", "torch"), ("triton", "Triton"),
            ("python", "Python"))
METHOD_KEYS = ("kernel_calls", "rounds", "noise_target", "min_samples", "budget_s", "wall_budget_s", "batch",
               "span_samples", "l2_flush_bytes")


@dataclass
class Point:
    run_id: int
    started_at: str
    commit: str
    status: str
    value: float | None
    low: float | None = None  # round-mean range (span)
    high: float | None = None

    @property
    def half_range(self) -> float:
        if self.low is None or self.high is None:
            return 0.0
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class Change:
    """One thing other than the code that differs between the runs either side of a step."""

    kind: str  # GPU, driver, CUDA, torch, Triton, Python or method
    name: str  # the kind, or "method batch" for a method setting
    before: str
    after: str

    def __str__(self) -> str:
        return f"{self.name} {self.before} → {self.after}"


def _shown(key: str, value) -> str:
    """A setting's value in a change: a GPU's uuid as its first 8 hex digits (GPU-1a2b3c4d-… → 1a2b3c4d)."""
    if value is None:
        return "unrecorded"
    return value.removeprefix("GPU-")[:8] if key == "uuid" else str(value)


def code_changed(before: dict, after: dict) -> bool | None:
    """Whether the code differs between two runs (stored run dicts): True for another commit, False for the same
    clean one, None for the same commit with uncommitted changes in either (they may differ)."""
    commits = [run["env"].get("git_commit") or "" for run in (before, after)]
    # A commit may be stored abbreviated: the same commit when one name begins the other.
    if not all(commits) or not (commits[0].startswith(commits[1]) or commits[1].startswith(commits[0])):
        return True
    return None if before["env"].get("git_dirty") or after["env"].get("git_dirty") else False


def what_else_changed(before: dict, after: dict) -> list[Change]:
    """What differs between two runs (stored run dicts) apart from the code: the machine, the software, the
    method settings."""
    settings = [("env", key, kind, kind) for key, kind in ENV_KEYS] + \
               [("method", key, "method", f"method {key}") for key in METHOD_KEYS]
    return [Change(kind, name, _shown(key, before[part].get(key)), _shown(key, after[part].get(key)))
            for part, key, kind, name in settings if before[part].get(key) != after[part].get(key)]


@dataclass
class Step:
    index: int  # position in the series of the first point after the step
    run_id: int
    commit: str
    before: float  # medians either side
    after: float
    score: float
    # Between the run of the last measured point before the step and this one's: whether the code changed (None:
    # the same commit, with uncommitted changes, so it may have), and what else did.
    code_changed: bool | None
    also_changed: list[Change]

    @property
    def change(self) -> float:
        return (self.after - self.before) / self.before

    @property
    def direction(self) -> str:
        return "slower" if self.after > self.before else "faster"

    @property
    def code_only(self) -> bool:
        """The commit changed and nothing else recorded did: the step is most likely the code's."""
        return self.code_changed is True and not self.also_changed

    @property
    def changed_with(self) -> str:
        """What changed with the step, in words: 'code only', or what besides the code may have made it."""
        changed = "; ".join(map(str, self.also_changed))
        nothing = "nothing else recorded changed"
        if self.code_changed is False:
            return f"same commit, so not the code; {f'changed: {changed}' if changed else nothing}"
        if self.code_changed is None:
            return ("same commit with uncommitted changes (the code may differ); "
                    + (f"also changed: {changed} (the step may be them)" if changed else nothing))
        return f"with other changes: {changed} (the step may be them, not the code)" if changed else "code only"


@dataclass
class Series(RowBoundary):
    """One row key's boundary over the runs of one device model and clock; for a block (context runs) the key
    is block_row_key's."""

    device: str
    clock: str
    points: list[Point] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    new_hardware: str | None = None  # where this series starts after the same result on another machine or clock

    @property
    def label(self) -> str:
        return f"{self.case} {self.path}/{self.cache} {self.boundary}"

    def measured(self) -> list[Point]:
        return [p for p in self.points if p.value is not None]


def detect_steps(values: list[float], half_ranges: list[float] | None = None) -> list[tuple[int, float, float, float]]:
    """Steps in ``values`` as (index of the first point after, median before, median after, score)."""
    half_ranges = half_ranges or [0.0] * len(values)
    steps: list[tuple[int, float, float, float]] = []
    # The noise of points one after another: level shifts touch few differences, so further steps elsewhere
    # in the series do not inflate it as they inflate the deviations from a two-level fit.
    differences = [abs(b - a) for a, b in zip(values, values[1:])]
    successive = 1.4826 * statistics.median(differences) / 2**0.5 if differences else 0.0

    def search(lo: int, hi: int) -> None:
        segment = values[lo:hi]
        if len(segment) < 2:
            return
        best = (_cost(segment), -1)  # the split must fit better than no split at all
        for k in range(lo + 1, hi):
            cost = _cost(values[lo:k]) + _cost(values[k:hi])
            if cost < best[0]:
                best = (cost, k)
        k = best[1]
        if k < 0:
            return
        before, after = values[lo:k], values[k:hi]
        median_before, median_after = statistics.median(before), statistics.median(after)
        deviations = [abs(v - median_before) for v in before] + [abs(v - median_after) for v in after]
        spread = min(1.4826 * statistics.median(deviations), successive)
        noise = max(spread, statistics.median(half_ranges[lo:hi]), NOISE_FLOOR * abs(median_before), 1e-12)
        score = abs(median_after - median_before) / noise
        if score >= MIN_SCORE and abs(median_after - median_before) >= MIN_STEP * abs(median_before):
            steps.append((k, median_before, median_after, score))
            search(lo, k)
            search(k, hi)

    search(0, len(values))
    return sorted(steps)


def beside_other_changes(steps: list[Step]) -> str:
    """How many of ``steps`` came with another change, and of what kind, and how many at the same commit:
    '41 with another change: GPU, method; 3 at the same commit'; '' when every one is the code's alone."""
    changed = [st for st in steps if st.also_changed]
    kinds = ", ".join(dict.fromkeys(c.kind for st in changed for c in st.also_changed))
    same = sum(st.code_changed is not True for st in steps)
    return "; ".join([f"{len(changed)} with another change: {kinds}"] * bool(changed)
                     + [f"{same} at the same commit"] * bool(same))


def device_model(env: dict) -> str:
    """The machine a run's numbers belong to: its GPU's name, or its CPU's model for a CPU run."""
    return env.get("gpu") or env.get("host_cpu") or "unrecorded device"


def _start(s: Series) -> tuple[str, int]:
    return s.points[0].started_at, s.points[0].run_id


def _block_row(result: BlockResult) -> dict:
    """A block result (context runs) as load reads a stored row, under its block_row_key: the block as the op, its
    precision as the case, its assignment as the implementation; no host time, no round means."""
    return dict(zip(("op", "case", "impl", "path", "cache"), block_row_key(result))) | {
        "status": result.status, "kernel_us": result.kernel_us, "span_mean_us": result.span_mean_us,
        "launches": result.launches, "host_us": None, "span_round_min_us": None, "span_round_max_us": None}


def _cost(values: list[float]) -> float:
    """How badly one level fits: the sum of absolute deviations from the median."""
    median = statistics.median(values)
    return sum(abs(v - median) for v in values)


def load(store, op: str | None = None, impl: str | None = None, case: str | None = None,
         path: str | None = None, cache: str | None = None, boundaries=("kernel", "span")) -> list[Series]:
    """Every matching series in ``store``, each with its steps. ``impl``: a name or a prefix ending at '/'."""
    for boundary in boundaries:
        if boundary not in BOUNDARY_COLUMNS:
            raise MageError(f"unknown boundary {boundary!r}; known: {', '.join(BOUNDARY_COLUMNS)}")
    runs = sorted(store.runs(), key=lambda run: (run["started_at"], run["id"]))
    run_of = {run["id"]: run for run in runs}
    series: dict[tuple, Series] = {}
    for run in runs:
        for row in [*store.rows(run["id"]), *map(_block_row, store.context_results(run["id"]))]:
            if op and row["op"] != op or case and row["case"] != case:
                continue
            if impl and not identity.matches(row["impl"], impl):
                continue
            if path and row["path"] != path or cache and row["cache"] != cache or not row["path"]:
                continue
            for boundary in boundaries:
                value = row[BOUNDARY_COLUMNS[boundary]]
                if row["status"] == "pass" and value is None:
                    continue  # not measured at this boundary on this path (kernel time on batch, CPU runs)
                key = (row["op"], row["case"], row["impl"], row["path"], row["cache"], boundary,
                       device_model(run["env"]), run["clock"])
                if key not in series:
                    series[key] = Series(*key)
                low = high = None
                if boundary == "span":
                    low, high = row["span_round_min_us"], row["span_round_max_us"]
                series[key].points.append(Point(run["id"], run["started_at"], commit_label(run["env"]), row["status"],
                                                value if row["status"] == "pass" else None, low, high))
    # Chronological within one result: the series of each machine in the order they started.
    out = sorted((s for s in series.values() if s.measured()),
                 key=lambda s: (s.op, s.case, s.impl, s.path, s.cache, s.boundary, _start(s)))
    for before, s in zip(out, out[1:]):
        if (before.op, before.case, before.impl, before.path, before.cache, before.boundary) == \
                (s.op, s.case, s.impl, s.path, s.cache, s.boundary):
            s.new_hardware = (f"starts on new hardware at run {s.points[0].run_id}: {s.device} ({s.clock.upper()} "
                              f"clock), after {before.device} ({before.clock.upper()} clock)")
    for s in out:
        positions = [i for i, p in enumerate(s.points) if p.value is not None]
        measured = [s.points[i] for i in positions]
        found = detect_steps([p.value for p in measured], [p.half_range for p in measured])
        s.steps = [Step(positions[k], measured[k].run_id, measured[k].commit, before, after, score,
                        code_changed(last, first), what_else_changed(last, first))
                   for k, before, after, score in found  # k ≥ 1: a step has a measured point before it
                   for last, first in [(run_of[measured[k - 1].run_id], run_of[measured[k].run_id])]]
    return out


# Rendering for the terminal

_STEP_STYLE = {"slower": "bold red", "faster": "green"}

def summary_table(series: list[Series], width: int | None = None):
    """One row per series, within ``width`` characters (every column when None): the names broken after their
    separators, the numbers and the steps kept before the device and launch path."""
    from rich.text import Text

    from mage.report.tables import Fit, fitted_table

    names = ["op", "case", "impl", "path", "cache", "boundary", "device", "runs", "first", "best", "latest", "steps"]
    fit = Fit(priority=("op", "case", "impl", "boundary", "first", "best", "latest", "steps", "path", "cache", "runs",
                        "device"),
              essential=("boundary", "first", "best", "latest", "steps"),
              folded={"op": 12, "case": 20, "impl": 20, "steps": 40}, narrowed=("case", "impl"))
    cells = []
    for s in series:
        values = [p.value for p in s.measured()]
        steps = Text("\n").join(
            ([Text(s.new_hardware, style="yellow")] if s.new_hardware else [])
            + [Text(f"run {st.run_id} ({st.commit}): {st.direction} {st.change:+.1%}", style=_STEP_STYLE[st.direction])
               + Text(f", {st.changed_with}")
               for st in s.steps])
        best = min(values)  # fewest µs, fewest launches
        cells.append([s.op, s.case, s.impl, s.path, s.cache, s.boundary, f"{s.device} ({s.clock})",
                      str(len(s.points)), at_boundary(values[0], s.boundary), at_boundary(best, s.boundary),
                      at_boundary(values[-1], s.boundary), steps or "—"])
    return fitted_table("history: one row per series (µs per call)", names, cells, width, fit)


def points_table(s: Series):
    from rich.table import Table
    from rich.text import Text

    from mage.report.tables import add_literal_row, hold_numbers

    table = Table(title=Text(f"{s.op} · {s.impl} · {s.label} · {s.device} ({s.clock})"), title_justify="left")
    for column in ("run", "started", "commit", "value", "round range", "step"):
        table.add_column(column, overflow="fold")
    step_at = {st.index: st for st in s.steps}
    for i, p in enumerate(s.points):
        step = step_at.get(i)
        marker = ""
        if step is not None:
            marker = Text(f"{'▲' if step.direction == 'slower' else '▼'} {step.direction} {step.change:+.1%}",
                          style=_STEP_STYLE[step.direction]) + Text(f"\n{step.changed_with}")
        value = at_boundary(p.value, s.boundary) if p.status == "pass" else Text(p.status, style="red")
        spread = "" if p.low is None else f"{at_boundary(p.low, s.boundary)}–{at_boundary(p.high, s.boundary)}"
        add_literal_row(table, str(p.run_id), p.started_at, p.commit, value, spread, marker)
    return hold_numbers(table, "run", "value", "round range")
