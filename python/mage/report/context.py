"""A context run's model blocks in numbers and words (mage.store.BlockResult, BlockOpShare), from the store alone.

For every block, precision and launch path, each assignment is read against the block's eager assignment
of the same run and path:
- the time saved: eager span − this span (median of one block call), as a share of the eager span, beside
  the share Amdahl predicted, 1 − 1/predicted_speedup (the eager capture's fractions, the isolated speedups);
- the difference, measured speedup ÷ predicted − 1, is beyond the noise when it exceeds
  NOISE_SIGMAS × √(rse_eager² + rse_this²), the spans' relative standard errors combined (no rse: not judged);
- where it is beyond the noise, which measured quantities differ, each stated with its numbers and
  nothing inferred: the launches per block call, the kernel time outside the swapped call sites (same
  capture, its sites' kernel times taken off), a swapped site's kernel time inside the block against the
  same implementation alone at the site's shapes, and the block's kernel-time ratio against its span ratio.
A fused implementation of the block (mage.context.fusion) has no per-op prediction: it is read against the best
per-op assignment of the same run and path, that assignment's Amdahl prediction beside, which says what fusion
bought beyond what swapping one op at a time reaches.
Kernel times differing by less than KERNEL_NOISE are not named (the convention of mage.report.findings).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mage.amdahl import Share
from mage.report.findings import KERNEL_NOISE, Section
from mage.report.format import us
from mage.store import BlockOpShare, BlockResult, read_kernel_times

NOISE_SIGMAS = 2.0  # two standard errors of the ratio of two span means
DIRECT = "direct"  # the kind of the best assignment called without torch.library (mage.context.measure)
CONTROL = "control"  # the direct assignment measured again as its own contender: an A/A difference
FUSED = "fused"  # a fused implementation of the block (mage.context.fusion)


@dataclass(frozen=True)
class Reading:
    """One assignment of one block on one path, read against the block's eager assignment on that path."""

    result: BlockResult
    eager: BlockResult | None

    @property
    def saved_us(self) -> float | None:
        if not self._timed():
            return None
        return self.eager.span_median_us - self.result.span_median_us

    @property
    def saved_share(self) -> float | None:
        saved = self.saved_us
        return None if saved is None else saved / self.eager.span_median_us

    @property
    def predicted_share(self) -> float | None:
        predicted = self.result.predicted_speedup
        return None if not predicted else 1 - 1 / predicted

    @property
    def difference(self) -> float | None:
        """Measured speedup over predicted, minus one (none for the eager assignment, the reference)."""
        measured, predicted = self.result.measured_speedup, self.result.predicted_speedup
        return None if not measured or not predicted or self.result.kind == "eager" else measured / predicted - 1

    @property
    def noise(self) -> float | None:
        if (not self._timed() or self.result.kind == "eager" or self.eager.span_rse is None
                or self.result.span_rse is None):
            return None
        return NOISE_SIGMAS * math.hypot(self.eager.span_rse, self.result.span_rse)

    @property
    def beyond_noise(self) -> bool:
        return self.difference is not None and self.noise is not None and abs(self.difference) > self.noise

    def _timed(self) -> bool:
        return (self.eager is not None and self.result.status == self.eager.status == "pass"
                and bool(self.eager.span_median_us) and self.result.span_median_us is not None)


def readings(results: list[BlockResult]) -> list[Reading]:
    """Every block result beside the eager assignment of its block, precision and path, in stored order."""
    eager = {(r.block, r.precision, r.path): r for r in results if r.kind == "eager"}
    return [Reading(r, eager.get((r.block, r.precision, r.path))) for r in results]


def blocks(results: list[BlockResult]) -> list[tuple[str, str]]:
    """(block, precision) in the order the run stored them."""
    return list(dict.fromkeys((r.block, r.precision) for r in results))


def percent(share: float | None, sign: str = "") -> str:
    """A share as '3.4 %' ('+3.4 %' with sign '+', '±0.6 %' with sign '±'); '—' where there is none."""
    if share is None:
        return "—"
    return f"±{100 * share:.1f} %" if sign == "±" else f"{100 * share:{sign}.1f} %"


def ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.3g}×"


def _us_in_words(value: float) -> str:
    """Microseconds in a sentence: whole from 10 µs up."""
    return f"{value:,.0f} µs" if abs(value) >= 10 else f"{value:.1f} µs"


def assigned(assignment: str) -> dict[str, str]:
    """op → implementation of a canonical assignment ("layernorm=native,bias_gelu=triton", or the same
    called directly: "direct(layernorm=native)", or again: "control(…)"); {} for the eager and whole-block
    compile assignments."""
    for kind in (DIRECT, CONTROL):
        if assignment.startswith(f"{kind}(") and assignment.endswith(")"):
            assignment = assignment[len(kind) + 1:-1]
    return dict(part.split("=", 1) for part in assignment.split(",") if "=" in part)


def custom_op_cost(results: list[BlockResult]) -> list[str]:
    """Per block, precision and path: the best assignment through torch.library against the same
    implementations called directly, the difference judged against the two spans' noise or, where it is
    larger, against the A/A difference: the same direct call measured again as a contender of its own
    (on the graph path each contender is a graph of its own, with its own memory, so two measurements
    of identical kernels can differ by more than one measurement's spread)."""
    by_key = {(r.block, r.precision, r.path, r.kind): r for r in results if r.status == "pass"}
    out = []
    for (block, precision, path, kind), direct in by_key.items():
        library = by_key.get((block, precision, path, "best"))
        if kind != DIRECT or library is None or not direct.span_median_us or not library.span_median_us:
            continue
        cost = library.span_median_us - direct.span_median_us
        through, called = _us_in_words(library.span_median_us), _us_in_words(direct.span_median_us)
        text = (f"{block} ({precision}), {path} path: through torch.library {through}, called directly {called}: "
                f"the custom ops {'add' if cost >= 0 else 'save'} {_us_in_words(abs(cost))} "
                f"({percent(cost / direct.span_median_us, '+')})")
        noise = Reading(library, direct).noise  # the direct call is the reference here, as eager is elsewhere
        if noise is None:
            out.append(text + " (no span noise stored to judge it).")
            continue
        bound, yardstick = noise, "the noise"
        control = by_key.get((block, precision, path, CONTROL))
        if control is not None and control.span_median_us:
            again = abs(control.span_median_us / direct.span_median_us - 1)
            if again > noise:
                bound, yardstick = again, "what the same direct call differs by measured again"
        within = abs(library.span_median_us / direct.span_median_us - 1) <= bound
        out.append(text + f", {'within' if within else 'beyond'} {yardstick} ({percent(bound, '±')}).")
    return out


# Tables


def prediction_rows(results: list[BlockResult]) -> list[list]:
    """Predicted against measured speedup per block, precision, path and assignment, with the difference."""
    out = []
    for reading in readings(results):
        r = reading.result
        difference = percent(reading.difference, "+")
        if reading.beyond_noise:
            difference += " (beyond noise)"
        out.append([r.block, r.precision, r.path, r.assignment, r.kind,
                    r.status if r.status == "pass" else r.status.upper(), us(r.span_median_us),
                    "—" if r.launches is None else f"{r.launches:g}", ratio(r.measured_speedup),
                    ratio(r.predicted_speedup), difference, percent(reading.noise, "±")])
    return out


PREDICTION_COLUMNS = ["block", "precision", "path", "assignment", "kind", "status", "span median µs", "launches",
                      "measured speedup", "Amdahl predicted", "difference", "noise"]


def site_times(results: list[BlockResult], shares: list[BlockOpShare], block: str, precision: str
               ) -> tuple[list[str], list[tuple[str, list[float | None], float | None]]]:
    """The block's kernel time by op call site per assignment, single path: (sites, [(assignment, µs per site,
    µs outside every site)]); the rest is the block's other kernels (torch's Linear, residual adds)."""
    mine = [s for s in shares if (s.block, s.precision) == (block, precision)]
    sites = list(dict.fromkeys(s.site for s in mine))
    out = []
    for r in results:
        if (r.block, r.precision, r.path) != (block, precision, "single") or r.status != "pass":
            continue
        if r.kind == CONTROL:
            continue  # the A/A control repeats the direct bar
        at = {s.site: s.kernel_us for s in mine if s.assignment == r.assignment}
        per_site = [at.get(site) for site in sites]
        known = [v for v in per_site if v is not None]
        rest = None if r.kernel_us is None else max(r.kernel_us - sum(known), 0.0)
        out.append((r.assignment, per_site, rest))
    return sites, out


# Sentences


def _action(result: BlockResult) -> str:
    if result.kind == "compile":
        return f"compiling the whole block ({result.assignment})"
    if result.kind == FUSED:
        rest = " and ".join(f"{op} to {impl}" for op, impl in assigned(result.assignment).items())
        return f"running {result.assignment.split(',')[0]}" + (f" (its other call sites swapping {rest})" if rest else "")
    swaps = " and ".join(f"{op} to {impl}" for op, impl in assigned(result.assignment).items())
    if result.kind == DIRECT:
        return f"swapping {swaps}, each called directly rather than through torch.library,"
    if result.kind == CONTROL:
        return f"swapping {swaps}, called directly once more (the A/A control),"
    return f"swapping {swaps}"


def _not_measured(result: BlockResult) -> str:
    return f"{'FAILED' if result.status == 'fail' else 'was skipped'}: {result.reason or 'no reason stored'}"


def sentence(reading: Reading, shares: list[BlockOpShare]) -> str:
    """One assignment of a block in words, from the stored numbers only."""
    r = reading.result
    where = f"{r.path} path: "
    if r.status != "pass":
        return where + f"{r.assignment} {_not_measured(r)}."
    if reading.saved_us is None:
        return where + f"{_action(r)}: no eager span on this path to measure it against."
    saved, eager = reading.saved_us, reading.eager.span_median_us
    verb = f"saves {_us_in_words(saved)} of" if saved >= 0 else f"adds {_us_in_words(-saved)} to"
    text = f"{_action(r)} {verb} {_us_in_words(eager)} ({percent(reading.saved_share)})"
    if reading.predicted_share is None:
        text += {"compile": "; no Amdahl prediction is stored for a whole-block compile",
                 FUSED: "; a fused implementation has no per-op prediction (see what fusion bought)"}.get(
                     r.kind, no_prediction(reading, shares))
        return where + text + "."
    text += f"; Amdahl predicted {percent(reading.predicted_share)}"
    if reading.noise is None:
        return where + text + " (no span noise stored to judge the difference)."
    if not reading.beyond_noise:
        return where + text + f", within the noise ({percent(reading.noise, '±')})."
    differences = why(reading, shares)
    return where + text + (f". They differ by {percent(reading.difference, '+')}, beyond the noise "
                           f"({percent(reading.noise, '±')}); "
                           "measured: " + ("; ".join(differences) if differences else
                                           "no stored quantity of this block differs beyond its noise") + ".")


def no_prediction(reading: Reading, shares: list[BlockOpShare]) -> str:
    """Why a per-op assignment has no Amdahl prediction, from the eager capture's stored sites."""
    eager = reading.eager
    eager_capture = (eager.block, eager.precision, eager.assignment)
    attributed = sum(s.kernel_us for s in shares
                     if (s.block, s.precision, s.assignment) == eager_capture and s.kernel_us)
    if eager.kernel_us and attributed > eager.kernel_us:
        return (f"; no Amdahl prediction: the eager capture gave its call sites {us(attributed)} µs of kernel time, "
                f"more than the block's {us(eager.kernel_us)} µs of device work, so its fractions are not a share")
    return "; no Amdahl prediction: an op's isolated time or the eager capture is missing"


def why(reading: Reading, shares: list[BlockOpShare]) -> list[str]:
    """The measured quantities that differ between an assignment and eager, each with its numbers."""
    r, eager = reading.result, reading.eager
    out = []
    if r.launches is not None and eager.launches is not None and abs(r.launches - eager.launches) >= 0.5:
        out.append(f"launches per block call went from {eager.launches:g} to {r.launches:g} on the {r.path} path")
    def sites(assignment: str) -> dict[str, BlockOpShare]:
        return {s.site: s for s in shares if (s.block, s.precision, s.assignment) == (r.block, r.precision, assignment)}

    mine, base = sites(r.assignment), sites(eager.assignment)
    swapped = [site for site, s in mine.items() if site in base and s.impl != base[site].impl]
    if r.kernel_us and eager.kernel_us and swapped and all(
            mine[site].kernel_us is not None and base[site].kernel_us is not None for site in swapped):
        outside = r.kernel_us - sum(mine[site].kernel_us for site in swapped)
        outside_eager = eager.kernel_us - sum(base[site].kernel_us for site in swapped)
        if outside_eager > 0 and abs(outside / outside_eager - 1) >= KERNEL_NOISE:
            out.append(f"kernel time outside the swapped call site{'s' * (len(swapped) > 1)} went from "
                       f"{us(outside_eager)} to {us(outside)} µs ({outside / outside_eager - 1:+.1%})")
    # Amdahl takes each site's speedup from isolated times: a site slower or faster inside the block than
    # alone, before the swap (eager's call) or after it, moves the measured speedup away from the prediction.
    for share in [base[site] for site in swapped] + [mine[site] for site in swapped]:
        if share.kernel_us and share.isolated_us and abs(share.kernel_us / share.isolated_us - 1) >= KERNEL_NOISE:
            out.append(f"{share.impl} at {share.site} took {us(share.kernel_us)} µs of kernel time inside the block "
                       f"against {us(share.isolated_us)} µs alone at the same shapes")
    if r.kernel_us and eager.kernel_us and r.measured_speedup:
        kernel_ratio = eager.kernel_us / r.kernel_us
        if abs(kernel_ratio / r.measured_speedup - 1) > max(reading.noise or 0, KERNEL_NOISE):
            out.append(f"the block's kernel time is {ratio(kernel_ratio)} shorter while its span is "
                       f"{ratio(r.measured_speedup)} shorter on the {r.path} path")
    return out


def fusion_gain(results: list[BlockResult]) -> list[str]:
    """Per fused implementation, block, precision and path: its span against the best per-op assignment's (with
    that assignment's Amdahl prediction over eager), the difference judged against the two spans' noise."""
    best = {(r.block, r.precision, r.path): r for r in results if r.kind == "best" and r.status == "pass"}
    out = []
    for r in results:
        if r.kind != FUSED or r.status != "pass" or not r.span_median_us:
            continue
        where = f"{r.block} ({r.precision}), {r.path} path: {r.assignment} {_us_in_words(r.span_median_us)}"
        per_op = best.get((r.block, r.precision, r.path))
        if per_op is None or not per_op.span_median_us:
            out.append(where + ", with no per-op assignment faster than eager to set it beside"
                       + (f" ({ratio(r.measured_speedup)} over eager)." if r.measured_speedup else "."))
            continue
        gain = per_op.span_median_us / r.span_median_us
        text = (f"{where} against the best per-op assignment ({per_op.assignment}) "
                f"{_us_in_words(per_op.span_median_us)}, which Amdahl predicted at {ratio(per_op.predicted_speedup)} "
                f"over eager and measured {ratio(per_op.measured_speedup)}: fusion is {ratio(gain)} "
                f"{'faster' if gain >= 1 else 'slower'}")
        noise = Reading(r, per_op).noise
        if noise is None:
            out.append(text + " (no span noise stored to judge it).")
            continue
        out.append(text + f", {'within' if abs(gain - 1) <= noise else 'beyond'} the noise ({percent(noise, '±')}).")
    return out


def fused_kernels(results: list[BlockResult]) -> list[str]:
    """Per block and precision, each fused implementation's kernels with their µs a block call, largest first: where
    one fused implementation's time goes against another's, kernel by kernel (the capture is the same on every
    path, so one row each)."""
    out = []
    for block, precision in blocks(results):
        for r in results:
            if ((r.block, r.precision, r.kind, r.path) != (block, precision, FUSED, "graph") or r.status != "pass"
                    or not r.kernel_times):
                continue
            kernels = ", ".join(f"{name} {us(time)}" for name, time in read_kernel_times(r.kernel_times))
            out.append(f"{block} ({precision}), {r.assignment}, {us(r.kernel_us)} µs of kernels a call: {kernels}.")
    return out


def findings(results: list[BlockResult], shares: list[BlockOpShare]) -> list[Section]:
    """One section per block and precision: a sentence per assignment and path other than eager."""
    out = []
    for block, precision in blocks(results):
        sentences = [sentence(reading, shares) for reading in readings(results)
                     if (reading.result.block, reading.result.precision) == (block, precision)
                     and reading.result.kind != "eager"]
        eager = [r for r in results if (r.block, r.precision, r.kind) == (block, precision, "eager")]
        sentences += [f"{r.path} path: the eager assignment {_not_measured(r)}; nothing on this path is measured "
                      "against it." for r in eager if r.status != "pass"]
        out.append(Section(f"{block} ({precision})", sentences))
    if cost := custom_op_cost(results):
        out.append(Section("What the custom ops cost (the best assignment through torch.library against the "
                           "same implementations called directly)", cost))
    if gain := fusion_gain(results):
        out.append(Section("What fusion bought (each fused implementation against the best per-op assignment)", gain))
    if kernels := fused_kernels(results):
        out.append(Section("Where each fused implementation's kernel time goes (µs a block call)", kernels))
    return out


def as_text(sections: list[Section]) -> str:
    return "\n".join(f"{s.title}\n" + "\n".join(f"- {line}" for line in s.sentences) for s in sections)


def op_shares(store) -> dict[str, list[Share]]:
    """Each op's share of the kernel time of the eager model blocks it runs in, from the newest context run of each
    block and precision (its call sites summed): the measured fractions Amdahl's law is applied at, largest first."""
    newest: dict[tuple[str, str], dict[str, float]] = {}
    context_runs = [run for run in store.runs() if run["block_count"]]
    for run in sorted(context_runs, key=lambda run: (run["started_at"], run["id"]), reverse=True):
        found: dict[tuple[str, str], dict[str, float]] = {}
        for share in store.context_shares(run["id"]):
            if share.assignment == "eager" and share.fraction is not None:
                sites = found.setdefault((share.block, share.precision), {})
                sites[share.op] = sites.get(share.op, 0.0) + share.fraction
        for key, fractions in found.items():
            newest.setdefault(key, fractions)
    out: dict[str, list[Share]] = {}
    for (block, precision), fractions in newest.items():
        for op, fraction in fractions.items():
            out.setdefault(op, []).append(Share(min(fraction, 1.0), f"the eager {block} block at {precision}", True,
                                                precision))
    return {op: sorted(shares, key=lambda s: -s.fraction) for op, shares in out.items()}


def amdahl_shares(store, fraction: float | None) -> dict[str, list[Share]]:
    """The shares Amdahl's law is applied at: a fraction the reader gave, for every op of the store; without one,
    the shares measured inside model blocks."""
    if fraction is None:
        return op_shares(store)
    ops = {op for run in store.runs() for op in store.ops(run["id"])}
    return {op: [Share(fraction, "a request", False)] for op in ops}
