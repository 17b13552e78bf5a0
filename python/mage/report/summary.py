"""The answer first: three or four sentences per op that a report opens with (GUIDE §1).

For each op of a run, over its cases (single path, the figure's cache state, suspect times left out):
1. the fastest implementation at kernel time and at call span, and whether the two agree;
2. the fraction of its hardware floor the fastest kernel reaches (cold L2 where measured: a warm one
   can beat a memory floor);
3. whether a launch path (batch, graph) changes which implementation is fastest;
4. Amdahl's law for the best kernel against the op's baseline, at the op's share measured inside a model
   block (or a fraction the reader gave); no sentence where neither exists.

"Fastest" is the first tier of mage.report.findings: several names joined by ≈ are within noise.
The full findings, formulation by formulation, follow in the report.
"""

from __future__ import annotations

from mage import amdahl
from mage.report.findings import (KERNEL, SPAN, baseline_row, caches_of, decisively_faster, label, measured,
                                  short_labels, tiers)
from mage.report.format import floor_fraction, us
from mage.store import StoredRow

LISTED_CASES = 3  # cases named in one sentence; the rest are counted


def _believed(rows: list[dict], **where) -> list[dict]:
    return [r for r in measured(rows, **where) if not r.get("suspect")]


def _fastest(rows: list[dict], boundary) -> list[dict]:
    """The first tier at ``boundary``: the fastest and those within noise of it."""
    grouped = tiers(rows, boundary)
    return grouped[0] if grouped else []


def _names(tier: list[dict], labels: dict[str, str]) -> str:
    return " ≈ ".join(label(r, labels) for r in tier)


def _agree(a: list[dict], b: list[dict]) -> bool:
    """Two first tiers agree when one implementation is in both: the same answer within noise."""
    return bool({r["impl"] for r in a} & {r["impl"] for r in b})


def _cases_listed(items: list[str]) -> str:
    rest = len(items) - LISTED_CASES
    return "; ".join(items[:LISTED_CASES]) + (f"; and {rest} more" if rest > 0 else "")


def _agreement(groups: dict[str, list[dict]], cache: str, labels: dict[str, str]) -> str | None:
    """Sentence 1: the fastest at kernel time and at call span, per case, and whether they agree."""
    parts, differ = [], 0
    for where, rows in groups.items():
        single = _believed(rows, path="single", cache=cache)
        kernel, span = _fastest(single, KERNEL), _fastest(single, SPAN)
        if not kernel and not span:
            continue
        if kernel and span and not _agree(kernel, span):
            differ += 1
            parts.append(f"{where}: kernel time {_names(kernel, labels)}, call span {_names(span, labels)}")
        elif len(groups) > 1:
            parts.append(f"{where}: {_names(kernel or span, labels)}")
        elif kernel and span:
            parts.append(f"kernel time and call span alike: {_names(kernel, labels)}")
        else:
            parts.append(f"{'kernel time' if kernel else 'call span'}: {_names(kernel or span, labels)}")
    if not parts:
        return None
    verdict = ("the two boundaries agree" + " in every case" * (len(parts) > 1) if not differ
               else "the two boundaries disagree" + f" in {differ} of {len(parts)} cases" * (len(parts) > 1))
    return f"Fastest ({verdict}): {_cases_listed(parts)}."


def _floor(groups: dict[str, list[dict]], labels: dict[str, str]) -> str | None:
    """Sentence 2: the best kernel's fraction of its hardware floor, per case; cold L2 where measured."""
    reached = []  # (fraction, where, row, cache)
    for where, rows in groups.items():
        caches = caches_of(rows)
        cache = "cold" if "cold" in caches else caches[0]
        timed = [r for r in _believed(rows, path="single", cache=cache) if floor_fraction(r) is not None]
        if timed:
            best = min(timed, key=lambda r: r["kernel_us"])
            reached.append((floor_fraction(best), where, best, cache))
    if not reached:
        return None
    if len(reached) == 1:
        fraction, _, best, cache = reached[0]
        return f"The fastest kernel, {label(best, labels)}, reaches {fraction:.0%} of its hardware floor ({cache} L2)."
    low, high = f"{min(f for f, *_ in reached):.0%}", f"{max(f for f, *_ in reached):.0%}"
    return (f"The fastest kernel reaches {low if low == high else f'{low}–{high}'} of its hardware floor: "
            + _cases_listed([f"{where} {label(best, labels)} {f:.0%} ({cache} L2)" for f, where, best, cache in reached])
            + ".")


def _launch_paths(groups: dict[str, list[dict]], cache: str, labels: dict[str, str]) -> str:
    """Sentence 3: does a batch or graph path put another implementation first at call span?"""
    rows = [r for group in groups.values() for r in group]
    other = [path for path in ("batch", "graph") if _believed(rows, path=path, cache=cache)]
    if not other:
        return "Only the single launch path was measured, so whether the launch path changes the answer is not known."
    changed = []
    for where, group in groups.items():
        single = _fastest(_believed(group, path="single", cache=cache), SPAN)
        for path in other:
            found = _fastest(_believed(group, path=path, cache=cache), SPAN)
            if single and found and not _agree(single, found):
                changed.append(f"{where + ' ' if len(groups) > 1 else ''}{path} path: {_names(found, labels)} "
                               f"(single: {_names(single, labels)})")
    if not changed:
        return ("The launch path does not change the answer: the fastest call span is the same on single and "
                f"{' and '.join(other)}.")
    return f"The launch path changes the answer: {_cases_listed(changed)}."


def _amdahl(groups: dict[str, list[dict]], cache: str, shares: list[amdahl.Share],
            labels: dict[str, str]) -> str | None:
    """Sentence 4: Amdahl's law for the best kernel against the baseline, in the case where it gains most, at the
    op's largest share (one at the best kernel's precision first)."""
    if not shares:
        return None
    gains = []
    for where, rows in groups.items():
        single = _believed(rows, path="single", cache=cache)
        base = baseline_row(single)
        timed = [r for r in single if r["kernel_us"] is not None]
        if base is None or base["kernel_us"] is None or not timed:
            continue
        best = min(timed, key=lambda r: r["kernel_us"])
        if decisively_faster(best, base, KERNEL):
            gains.append((base["kernel_us"] / best["kernel_us"], where, best, base))
    if not gains:
        return None
    speedup, where, best, base = max(gains, key=lambda gain: gain[0])
    share = amdahl.share_for(shares, best["precision"])
    return (f"Amdahl: {label(best, labels)}'s kernel is {speedup:.2f}× shorter than {label(base, labels)}'s "
            f"({where + ': ' if len(groups) > 1 else ''}{us(best['kernel_us'])} vs {us(base['kernel_us'])} µs); "
            + amdahl.share_clause(best["op"], share, speedup) + ".")


def op_summary(rows: list[StoredRow], cache: str, shares: list[amdahl.Share] = ()) -> list[str]:
    """The sentences of one op's rows; ``cache``: the cache state its figure shows; ``shares``: the op's shares
    of model blocks (mage.report.context.op_shares) for Amdahl's law. Implementations compete
    within a case, variant and precision (sum against sum, bf16 against bf16), as in the findings."""
    labels = short_labels(list(dict.fromkeys(r["impl"] for r in rows)))
    # Within a variant and a precision: a lower precision's shorter time is accuracy traded, not a faster kernel.
    parts = [part for part in ("variant", "precision") if len({r[part] for r in rows}) > 1]
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(" ".join([row["case"], *(row[part] for part in parts)]), []).append(row)
    if not _believed(rows, path="single"):
        return ["Nothing of this op passed its contract on the single path, so nothing here was timed."]
    sentences = [_agreement(groups, cache, labels), _floor(groups, labels), _launch_paths(groups, cache, labels),
                 _amdahl(groups, cache, list(shares), labels)]
    return [s for s in sentences if s]
