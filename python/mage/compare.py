"""Compare two stored runs: what changed in the environment, then a verdict per measurement.

Results are matched by (op, case, implementation, path, cache); each boundary gets a verdict of
``faster``, ``slower``, ``same`` or ``ambiguous`` (launches: ``fewer``, ``more`` or ``same``).
Change is always B relative to A: (B − A) / A.

Call span, decided from the raw samples (GUIDE §1: a difference smaller than the spread of repeated
measurements is noise):
- faster/slower: |change| ≥ MIN_EFFECT (2 %), and the ranges of round means of A and B do not
  overlap, and a two-sided Mann–Whitney U test on the samples gives p < ALPHA (0.01);
- same: |change| < MIN_EFFECT and the difference of the means is within the spread of round means
  (max − min) of the noisier run;
- ambiguous: anything else (a difference beyond the noise but under 2 %, or a large one the rounds
  do not separate). A result with fewer than two rounds of samples is judged as a point value.

Kernel and host time are single numbers per result (no repeated measurement is stored), so a relative
threshold stands in for the noise (RESOLUTION, the conventions of docs/METHOD.md "Within noise"): same
below 3 % (kernel) / 10 % (host), faster or slower from 6 % / 20 %, ambiguous in between.

SM clocks: when the two results' SM clocks differ by more than CLOCK_TOLERANCE (5 %), GPU times of B
are also judged scaled to A's clock (time × clock_B / clock_A, exact for clock-bound work, wrong for
memory-bound work); a verdict that changes with the scaling is reported ambiguous. A result's clock is
the middle of the range sampled while it was measured (schema 5, mage.measure.clocks) when both
results have one, else its run's (mean of the clock at start and end). Host time is not scaled.

Autotuning: when both results carry the configuration their Triton kernels were autotuned to
(schema 6) and it differs, their kernel and span verdicts say so: the change may be the
autotuner's pick rather than the code.

Model blocks (context runs, mage.store.BlockResult): each (block, precision, assignment, path) is judged
like a result at the span, kernel and launch boundaries (a block keeps no samples: its span mean is a
point value, the same 2 %/5 % resolution), then its measured speedup over its eager assignment gets
``higher``, ``lower``, ``same`` or ``ambiguous`` at that resolution. ``--op`` keeps the blocks that call
one of the ops.

Different machines: when the two runs were made on different GPUs (``env.uuid`` differs) or different
hosts (``env.hostname`` differs), the within-run spread says nothing about the spread between two
machines of the same model (silicon, clocks under load, PCIe and host CPU differ). A span or host-time
verdict of faster or slower whose |change| is under BETWEEN_MACHINES (10 %) is then reported
``ambiguous``, noted "different GPU: within between-machine spread" (or "different host: ..."), and the
header says the runs are from different machines. Kernel-time verdicts keep their rules: the kernel
boundary excludes the host and submission, and its 3 %/6 % resolution already stands in for noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy

from mage.errors import MageError
from mage.report.format import at_boundary
from mage.report.tables import Fit
from mage.store import BlockResult, RowBoundary, block_row_key

MIN_EFFECT = 0.02
ALPHA = 0.01
# (same below, faster/slower from); "same below" is docs/METHOD.md's "within noise" for these boundaries.
RESOLUTION = {"kernel": (0.03, 0.06), "host": (0.10, 0.20)}
CLOCK_TOLERANCE = 0.05
BETWEEN_MACHINES = 0.10  # span and host changes under this are not attributed across machines
IGNORED_ENV = {"method.check_seed"}  # differs by design in every run
SPEEDUP_WORDS = {"slower": "higher", "faster": "lower"}  # point_verdict's words, for a speedup rather than a time


@dataclass
class Verdict(RowBoundary):
    """B against A at one boundary of one row key; for a block (context runs) the key is block_row_key's."""

    a: float | None
    b: float | None
    change: float | None
    verdict: str
    note: str = ""


@dataclass
class Clocks:
    a_mhz: float | None
    b_mhz: float | None

    @property
    def ratio(self) -> float | None:
        """B's clock over A's."""
        if not self.a_mhz or not self.b_mhz:
            return None
        return self.b_mhz / self.a_mhz

    @property
    def differ(self) -> bool:
        return self.ratio is not None and abs(self.ratio - 1) > CLOCK_TOLERANCE

    def statement(self) -> str:
        if self.a_mhz is None and self.b_mhz is None:
            return "no SM clock recorded in either run (CPU runs or no NVML): clocks not taken into account"
        if self.ratio is None:
            return (f"SM clock recorded in one run only (A {self.a_mhz or '—'} MHz, B {self.b_mhz or '—'} MHz): "
                    "clocks not taken into account")
        text = f"SM clock A {self.a_mhz:.0f} MHz, B {self.b_mhz:.0f} MHz ({self.ratio - 1:+.1%})"
        if self.differ:
            text += (f": more than {CLOCK_TOLERANCE:.0%} apart, so GPU times of B are also judged at A's "
                     "clock (× clock B / clock A); a verdict that depends on it is ambiguous")
        else:
            text += f": within {CLOCK_TOLERANCE:.0%}, no scaling"
        return text + "; two results that both carry the clocks sampled while they were measured are judged by those"


@dataclass
class Comparison:
    run_a: dict
    run_b: dict
    env_differences: list[tuple[str, object, object]]
    clocks: Clocks
    verdicts: list[Verdict] = field(default_factory=list)
    machines: str | None = None  # "GPU" or "host" when the runs were made on different machines
    blocks: list[Verdict] = field(default_factory=list)  # of the model blocks of context runs (block_row_key)

    def machines_statement(self) -> str | None:
        if self.machines is None:
            return None
        what = {"GPU": "different GPUs (env uuid differs)", "host": "different hosts (env hostname differs)"}
        return (f"the runs are from different machines: {what[self.machines]}; span and host-time changes under "
                f"{BETWEEN_MACHINES:.0%} are ambiguous (within between-machine spread)")

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for v in self.verdicts + self.blocks:
            counts[v.verdict] = counts.get(v.verdict, 0) + 1
        return counts


# Statistics

def _ranks(values: numpy.ndarray) -> tuple[numpy.ndarray, float]:
    """Average ranks (1-based) and the tie correction Σ(t³ − t)."""
    order = numpy.argsort(values, kind="mergesort")
    ordered = values[order]
    ranks = numpy.empty(len(values))
    ties = 0.0
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and ordered[end + 1] == ordered[start]:
            end += 1
        ranks[order[start:end + 1]] = (start + end) / 2 + 1
        t = end - start + 1
        ties += t**3 - t
        start = end + 1
    return ranks, ties


def mann_whitney_p(x, y) -> float:
    """Two-sided p-value of the Mann–Whitney U test (normal approximation, tie and continuity corrected)."""
    x, y = numpy.asarray(x, dtype=float), numpy.asarray(y, dtype=float)
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        return 1.0
    n = n1 + n2
    ranks, ties = _ranks(numpy.concatenate([x, y]))
    u = ranks[:n1].sum() - n1 * (n1 + 1) / 2
    variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if variance <= 0:
        return 1.0
    z = (abs(u - n1 * n2 / 2) - 0.5) / math.sqrt(variance)
    return math.erfc(max(z, 0.0) / math.sqrt(2))


def _round_means(samples: list[tuple[int, float]], scale: float = 1.0) -> list[float]:
    rounds: dict[int, list[float]] = {}
    for r, v in samples:
        rounds.setdefault(r, []).append(v * scale)
    return [sum(v) / len(v) for _, v in sorted(rounds.items())]


def span_verdict(a: list[tuple[int, float]], b: list[tuple[int, float]], scale_b: float = 1.0) -> tuple[str, str]:
    """The verdict of B against A from their (round, µs) samples, and the reason in words."""
    means_a, means_b = _round_means(a), _round_means(b, scale_b)
    if len(means_a) < 2 or len(means_b) < 2:
        mean_a = numpy.mean([v for _, v in a])
        mean_b = numpy.mean([v for _, v in b]) * scale_b
        return point_verdict(mean_a, mean_b, (MIN_EFFECT, MIN_EFFECT * 2.5))[0], "fewer than two rounds"
    mean_a = float(numpy.mean([v for _, v in a]))
    mean_b = float(numpy.mean([v for _, v in b])) * scale_b
    delta, change = mean_b - mean_a, (mean_b - mean_a) / mean_a
    spread = max(max(means_a) - min(means_a), max(means_b) - min(means_b))
    separated = max(means_a) < min(means_b) or max(means_b) < min(means_a)
    if abs(change) >= MIN_EFFECT and separated:
        p = mann_whitney_p([v for _, v in a], [v * scale_b for _, v in b])
        if p < ALPHA:
            return ("slower" if change > 0 else "faster"), f"rounds separate, Mann–Whitney p={p:.1g}"
        return "ambiguous", f"rounds separate but Mann–Whitney p={p:.2g}"
    if abs(change) < MIN_EFFECT and abs(delta) <= spread:
        return "same", ""
    if abs(change) < MIN_EFFECT:
        return "ambiguous", f"beyond the round spread but under {MIN_EFFECT:.0%}"
    return "ambiguous", "round means overlap"


def point_verdict(a: float, b: float, resolution: tuple[float, float]) -> tuple[str, str]:
    same_below, change_from = resolution
    change = (b - a) / a if a else math.inf
    if abs(change) < same_below:
        return "same", ""
    if abs(change) >= change_from:
        return ("slower" if change > 0 else "faster"), ""
    return "ambiguous", f"between {same_below:.0%} and {change_from:.0%}"


# Runs

def _flatten(prefix: str, value, out: dict) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(f"{prefix}.{key}" if prefix else key, item, out)
    else:
        out[prefix] = value


def environment(run: dict) -> dict:
    """Everything recorded about where and how a run was made, flattened to dotted keys."""
    out: dict = {"clock": run["clock"], "suite": run["suite"]}
    _flatten("", run["env"], out)
    _flatten("", run.get("env_end") or {}, out)
    _flatten("method", run["method"], out)
    _flatten("ceilings", run["ceilings"], out)
    return out


def env_differences(run_a: dict, run_b: dict) -> list[tuple[str, object, object]]:
    a, b = environment(run_a), environment(run_b)
    return [(key, a.get(key), b.get(key)) for key in sorted(set(a) | set(b))
            if key not in IGNORED_ENV and a.get(key) != b.get(key)]


def sm_clock(run: dict) -> float | None:
    readings = [state.get("sm_clock_mhz") for state in
                (run["env"].get("gpu_state_start") or {}, (run.get("env_end") or {}).get("gpu_state_end") or {})]
    readings = [r for r in readings if r]
    return sum(readings) / len(readings) if readings else None


def different_machines(run_a: dict, run_b: dict) -> str | None:
    """"GPU" when the runs' GPU uuids differ, "host" when their hostnames do, else None.

    A value recorded in one run only is not taken as a difference (older runs may lack it)."""
    for key, word in (("uuid", "GPU"), ("hostname", "host")):
        va, vb = run_a["env"].get(key), run_b["env"].get(key)
        if va and vb and va != vb:
            return word
    return None


def _key(row: dict) -> tuple:
    return row["op"], row["case"], row["impl"], row["path"], row["cache"]


def compare(store, run_a: int, run_b: int, ops: list[str] | None = None) -> Comparison:
    a, b = store.run(run_a), store.run(run_b)
    if a["clock"] != b["clock"]:
        raise MageError(f"run {run_a} is timed on the {a['clock'].upper()} clock and run {run_b} on the "
                        f"{b['clock'].upper()} clock: their numbers cannot be compared")
    comparison = Comparison(a, b, env_differences(a, b), Clocks(sm_clock(a), sm_clock(b)),
                            machines=different_machines(a, b))
    rows_a = {_key(r): r for r in store.rows(run_a) if not ops or r["op"] in ops}
    rows_b = {_key(r): r for r in store.rows(run_b) if not ops or r["op"] in ops}
    run_scale = comparison.clocks.ratio if comparison.clocks.differ else None  # B's times at A's clock
    for key in sorted(set(rows_a) | set(rows_b)):
        a_row, b_row = rows_a.get(key), rows_b.get(key)
        comparison.verdicts.extend(_compare_rows(store, key, a_row, b_row, result_scale(a_row, b_row, run_scale),
                                                 comparison.machines))
    comparison.blocks = _compare_blocks(store, run_a, run_b, ops, run_scale, comparison.machines)
    return comparison


def _blocks(store, run_id: int, ops: list[str] | None) -> dict[tuple, BlockResult]:
    """The block results of a run by block_row_key; with ``ops``, of the blocks that call one of them."""
    calling = {s.block for s in store.context_shares(run_id) if s.op in ops} if ops else None
    return {block_row_key(r): r for r in store.context_results(run_id) if calling is None or r.block in calling}


def _block_row(result: BlockResult | None) -> dict | None:
    """A block result as _compare_rows reads a stored row: a block keeps no samples and has no host time."""
    if result is None:
        return None
    return {"status": result.status, "span_mean_us": result.span_mean_us, "kernel_us": result.kernel_us,
            "host_us": None, "launches": result.launches}


def _compare_blocks(store, run_a: int, run_b: int, ops: list[str] | None, scale: float | None,
                    machines: str | None) -> list[Verdict]:
    """Verdicts of every (block, precision, assignment, path) of two context runs: span, kernel time and launches
    as for a result, the span judged as a point value; then the block's measured speedup over its eager
    assignment, higher or lower by the span's resolution (a ratio of two spans of the same run)."""
    blocks_a, blocks_b = _blocks(store, run_a, ops), _blocks(store, run_b, ops)
    out = []
    for key in sorted(set(blocks_a) | set(blocks_b)):
        a, b = blocks_a.get(key), blocks_b.get(key)
        out += _compare_rows(store, key, _block_row(a), _block_row(b), scale, machines)
        if a and b and a.status == b.status == "pass" and a.measured_speedup and b.measured_speedup:
            word, note = point_verdict(a.measured_speedup, b.measured_speedup, (MIN_EFFECT, MIN_EFFECT * 2.5))
            out.append(Verdict(*key, "speedup", a.measured_speedup, b.measured_speedup,
                               (b.measured_speedup - a.measured_speedup) / a.measured_speedup,
                               SPEEDUP_WORDS.get(word, word), note))
    return out


def _sampled_mhz(row: dict | None) -> float | None:
    if row is None or row.get("sm_clock_min_mhz") is None or row.get("sm_clock_max_mhz") is None:
        return None
    return (row["sm_clock_min_mhz"] + row["sm_clock_max_mhz"]) / 2


def result_scale(a: dict | None, b: dict | None, run_scale: float | None) -> float | None:
    """B's clock over A's for one result, None when within CLOCK_TOLERANCE: from the clocks sampled while
    each was measured when both have them, else the runs' scale."""
    a_mhz, b_mhz = _sampled_mhz(a), _sampled_mhz(b)
    if a_mhz is None or b_mhz is None:
        return run_scale
    ratio = b_mhz / a_mhz
    return ratio if abs(ratio - 1) > CLOCK_TOLERANCE else None


def between_machines(word: str, change: float | None, machines: str | None, note: str = "") -> tuple[str, str]:
    """A span or host verdict across machines: faster/slower under BETWEEN_MACHINES becomes ambiguous."""
    if machines is None or word not in ("faster", "slower") or change is None or abs(change) >= BETWEEN_MACHINES:
        return word, note
    return "ambiguous", f"different {machines}: within between-machine spread ({word} {change:+.1%}" + (
        f"; {note})" if note else ")")


def _compare_rows(store, key, a: dict | None, b: dict | None, scale: float | None,
                  machines: str | None = None) -> list[Verdict]:
    """Verdicts of every boundary of one (op, case, impl, path, cache). ``scale``: clock scaling of B;
    ``machines``: "GPU" or "host" when the runs were made on different machines."""

    def verdict(boundary, va, vb, word, note=""):
        change = (vb - va) / va if va and vb is not None else None
        if boundary in ("span", "host"):
            word, note = between_machines(word, change, machines, note)
        if boundary in ("kernel", "span") and retuned:  # the same code may have launched other tiles
            note = (note + "; " if note else "") + "the autotuner chose another configuration"
        return Verdict(*key, boundary, va, vb, change, word, note)

    retuned = a is not None and b is not None and bool(a.get("tuning")) and bool(b.get("tuning")) and (
        a["tuning"] != b["tuning"])

    if a is None or b is None:
        return [verdict("—", None, None, "only in A" if b is None else "only in B")]
    if a["status"] != "pass" or b["status"] != "pass":
        return [verdict("—", None, None, "not comparable", f"A {a['status']}, B {b['status']}")]
    out = []
    if a["span_mean_us"] is not None and b["span_mean_us"] is not None:
        samples_a, samples_b = (store.samples(r["result_id"]) if "result_id" in r else [] for r in (a, b))
        if samples_a and samples_b:
            word, note = _scaled(lambda s: span_verdict(samples_a, samples_b, s), scale)
        else:
            word, note = _scaled(lambda s: point_verdict(a["span_mean_us"], b["span_mean_us"] * s,
                                                         (MIN_EFFECT, MIN_EFFECT * 2.5)), scale)
            note = "no samples stored" + (f"; {note}" if note else "")
        out.append(verdict("span", a["span_mean_us"], b["span_mean_us"], word, note))
    for boundary, column, scaled in (("kernel", "kernel_us", True), ("host", "host_us", False)):
        if a[column] is not None and b[column] is not None:
            word, note = _scaled(lambda s: point_verdict(a[column], b[column] * s, RESOLUTION[boundary]),
                                 scale if scaled else None)
            out.append(verdict(boundary, a[column], b[column], word, note))
    if a["launches"] is not None and b["launches"] is not None:
        difference = b["launches"] - a["launches"]
        word = "same" if abs(difference) < 0.5 else ("more" if difference > 0 else "fewer")
        out.append(verdict("launches", a["launches"], b["launches"], word))
    return out


def _scaled(judge, scale: float | None) -> tuple[str, str]:
    word, note = judge(1.0)
    if scale is None:
        return word, note
    at_clock, _ = judge(scale)
    if at_clock == word:
        return word, (note + "; " if note else "") + "holds at equal clocks"
    return "ambiguous", f"{word} as measured, {at_clock} at equal clocks"


# Rendering

STYLE = {"faster": "bold green", "slower": "bold red", "same": "dim", "ambiguous": "yellow",
         "fewer": "green", "more": "red", "higher": "bold green", "lower": "bold red",
         "not comparable": "magenta", "only in A": "cyan", "only in B": "cyan"}


def _value(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.4g}"
    return str(value)


# The verdict tables at a narrow width: the keys and the verdict kept, names broken at their separators.
VERDICTS_FIT = Fit(priority=("op", "case", "impl", "boundary", "A", "B", "change", "verdict", "path", "cache", "note"),
                   essential=("boundary", "A", "B", "change", "verdict", "path", "cache"),
                   folded={"op": 12, "case": 20, "impl": 20}, narrowed=("case", "impl"))
BLOCKS_FIT = Fit(priority=("block", "precision", "assignment", "boundary", "A", "B", "change", "verdict", "path",
                           "note"),
                 essential=("boundary", "A", "B", "change", "verdict", "path"),
                 folded={"block": 20, "assignment": 24}, narrowed=("assignment", "block"))


def render(comparison: Comparison, show_all: bool = False, width: int | None = None) -> list:
    """Rich renderables: the environment differences first, then the clocks, the verdicts, the counts; the verdict
    tables within ``width`` characters (mage.report.tables.fitted_table; every column when None)."""
    from rich.table import Table
    from rich.text import Text

    from mage.report.tables import add_literal_row, fitted_table

    a, b = comparison.run_a, comparison.run_b
    out: list = [Text.assemble((f"{label} = run {run['id']}", "bold"), f" ({run['started_at']}, {run['command']})")
                 for label, run in (("A", a), ("B", b))]
    env = Table(title="environment differences (A → B)", title_justify="left")
    for column in ("what", "A", "B"):
        env.add_column(column, overflow="fold")
    for key, va, vb in comparison.env_differences:
        change = ""
        if isinstance(va, (int, float)) and isinstance(vb, (int, float)) and not isinstance(va, bool) and va:
            change = f" ({(vb - va) / va:+.1%})"
        add_literal_row(env, key, _value(va), _value(vb) + change)
    if comparison.machines:
        out.append(Text(comparison.machines_statement(), style="bold yellow"))
    # an empty table would fold its title into its narrow columns
    out += [env if comparison.env_differences else Text("environment differences (A → B): none"),
            Text(comparison.clocks.statement())]
    for title, key_columns, verdicts, fit in (
            ("verdicts, B against A (µs per call)", ("op", "case", "impl", "path", "cache"), comparison.verdicts,
             VERDICTS_FIT),
            ("model blocks, B against A (µs per block call; speedup over the eager assignment)",
             ("block", "precision", "assignment", "path"), comparison.blocks, BLOCKS_FIT)):
        shown = [v for v in verdicts if show_all or v.verdict != "same"]
        cells = [[*(v.op, v.case, v.impl, v.path, v.cache)[:len(key_columns)], v.boundary,
                  at_boundary(v.a, v.boundary), at_boundary(v.b, v.boundary),
                  "—" if v.change is None else f"{v.change:+.1%}", Text(v.verdict, style=STYLE.get(v.verdict, "")),
                  v.note] for v in shown]
        if shown:
            out.append(fitted_table(title, [*key_columns, "boundary", "A", "B", "change", "verdict", "note"], cells,
                                    width, fit))
    counts = comparison.counts()
    summary = " · ".join(f"{n} {word}" for word, n in sorted(counts.items(), key=lambda item: -item[1]))
    hidden = "" if show_all or not counts.get("same") else " (same rows hidden; --all shows them)"
    out.append(f"{len(comparison.verdicts) + len(comparison.blocks)} verdicts: {summary or 'nothing to compare'}"
               f"{hidden}")
    return out


def as_json(comparison: Comparison) -> dict:
    return {
        "run_a": comparison.run_a["id"], "run_b": comparison.run_b["id"],
        "env_differences": [{"key": k, "a": va, "b": vb} for k, va, vb in comparison.env_differences],
        "clocks": {"a_mhz": comparison.clocks.a_mhz, "b_mhz": comparison.clocks.b_mhz,
                   "scaled": comparison.clocks.differ, "statement": comparison.clocks.statement()},
        "different_machines": comparison.machines, "machines_statement": comparison.machines_statement(),
        "verdicts": [v.__dict__ for v in comparison.verdicts],
        "blocks": [{"block": v.op, "precision": v.case, "assignment": v.impl} | {
            k: value for k, value in v.__dict__.items() if k not in ("op", "case", "impl", "cache")}
            for v in comparison.blocks],
    }
