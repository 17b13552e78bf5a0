"""Findings in words, generated from one stored run (GUIDE §1).

Every sentence cites the numbers it rests on and claims no more than they show: a boundary is only
compared with itself, a call-span difference is never called a kernel difference, and no number of
another run is used. Two results are within noise ("≈") when
- kernel time: they differ by less than KERNEL_NOISE (no rounds, so no measured spread);
- host time: they differ by less than HOST_NOISE (the spread of its chunks is not stored);
- call span: their ranges of round means overlap, or they differ by less than the larger range.

A passing result whose ``suspect`` field is set (mage.suspect: faster than its roofline floor, or
far faster than every other implementation) keeps its place in the ladders, but its name always carries
"(suspect)", the reason is stated, and Amdahl's law is never applied to it.

The implementations that compete are those of one op, case and variant ("a formulation"); their
backends and precisions differ. The same helpers give the HTML, the figure and the tables their
grouping and labels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from mage import amdahl
from mage.measure import ceilings as ceilings_module
from mage.measure.method import CACHES
from mage.report.format import floor_kind, hardware_floor_us, us, with_range
from mage.store import StoredRow

KERNEL_NOISE = 0.03  # a stated convention, not a measured spread: docs/METHOD.md
HOST_NOISE = 0.10
CLOCK_SPREAD = 0.05  # a result sampled this far below its formulation's top SM clock is named as slowed
LISTED_PAIRS = 3  # longer lists of pairs are cut, with the count of the rest


@dataclass(frozen=True)
class Section:
    title: str
    sentences: list[str]


# Reading rows


def measured(rows: list[dict], **where) -> list[dict]:
    """The passing rows that match every ``field=value``."""
    return [r for r in rows if r["status"] == "pass" and all(r[k] == v for k, v in where.items())]


def caches_of(rows: list[dict]) -> list[str]:
    present = {r["cache"] for r in rows}
    return [c for c in CACHES if c in present]


def formulations(rows: list[dict]) -> list[tuple[str, str, str]]:
    """(op, case, variant) in the order the run measured them."""
    return list(dict.fromkeys((r["op"], r["case"], r["variant"]) for r in rows))


def _varying(names: list[str]) -> list[int]:
    """Positions of the name parts (backend/variant/precision) that differ between ``names``."""
    parts = [name.split("/") for name in names]
    width = max((len(p) for p in parts), default=0)
    return [i for i in range(width) if len({tuple(p[i:i + 1]) for p in parts}) > 1] or [0]


def short_labels(names: list[str]) -> dict[str, str]:
    """Implementation names without the parts all of them share: eager/erf/ieee → eager."""
    varying = _varying(names)
    return {name: "/".join(p for i, p in enumerate(name.split("/")) if i in varying) for name in names}


def shared_parts(names: list[str]) -> str:
    """What ``short_labels`` left out: erf/ieee."""
    varying = _varying(names)
    return "/".join(p for i, p in enumerate(names[0].split("/")) if i not in varying)


# Noise and order


def _same_relative(a: float, b: float, threshold: float) -> bool:
    return abs(a - b) <= threshold * min(a, b)


def same_span(a: dict, b: dict) -> bool:
    low_a, high_a, low_b, high_b = (a["span_round_min_us"], a["span_round_max_us"],
                                    b["span_round_min_us"], b["span_round_max_us"])
    spread = max(high_a - low_a, high_b - low_b)
    return (low_a <= high_b and low_b <= high_a) or abs(a["span_mean_us"] - b["span_mean_us"]) <= spread


@dataclass(frozen=True)
class Boundary:
    name: str
    field: str
    same: Callable[[dict, dict], bool]
    show: Callable[[dict], str]


KERNEL = Boundary("kernel time", "kernel_us",
                  lambda a, b: _same_relative(a["kernel_us"], b["kernel_us"], KERNEL_NOISE),
                  lambda r: f"{us(r['kernel_us'])} µs" + (f" in {r['launches']:g} launch{'es' * (r['launches'] != 1)}"
                                                          if r["launches"] is not None else ""))
SPAN = Boundary("call span", "span_mean_us", same_span,
                lambda r: f"{us(r['span_mean_us'])} µs [{us(r['span_round_min_us'])}–{us(r['span_round_max_us'])}]")
def same_host(a: dict, b: dict) -> bool:
    """Within the assumed noise, or (where the ranges of chunk means are stored) overlapping ranges."""
    if _same_relative(a["host_us"], b["host_us"], HOST_NOISE):
        return True
    ranges = (a["host_min_us"], a["host_max_us"], b["host_min_us"], b["host_max_us"])
    return None not in ranges and ranges[0] <= ranges[3] and ranges[2] <= ranges[1]


HOST = Boundary("host time", "host_us", same_host,
                lambda r: f"{with_range(r['host_us'], r['host_min_us'], r['host_max_us'])} µs")


def tiers(rows: list[dict], boundary: Boundary) -> list[list[dict]]:
    """Rows sorted by the boundary, grouped so each row is within noise of its tier's first row."""
    grouped: list[list[dict]] = []
    for row in sorted((r for r in rows if r[boundary.field] is not None), key=lambda r: r[boundary.field]):
        if grouped and boundary.same(grouped[-1][0], row):
            grouped[-1].append(row)
        else:
            grouped.append([row])
    return grouped


def label(row: dict, labels: dict[str, str]) -> str:
    """The row's short label, with "(suspect)" when its time is flagged as not believable."""
    return labels[row["impl"]] + (" (suspect)" if row.get("suspect") else "")


def ladder(grouped: list[list[dict]], boundary: Boundary, labels: dict[str, str]) -> str:
    """'a 2.73 µs < b 6.55 µs (2.40×)': ≈ within noise, < beyond it, ratios to the fastest."""
    fastest = grouped[0][0][boundary.field]

    def item(row: dict, first_tier: bool) -> str:
        ratio = "" if first_tier else f" ({row[boundary.field] / fastest:.2f}×)"
        return f"{label(row, labels)} {boundary.show(row)}{ratio}"

    return " < ".join(" ≈ ".join(item(r, i == 0) for r in tier) for i, tier in enumerate(grouped))


def decisively_faster(a: dict, b: dict, boundary: Boundary) -> bool:
    if a[boundary.field] is None or b[boundary.field] is None:
        return False
    return a[boundary.field] < b[boundary.field] and not boundary.same(a, b)


def reversals(rows: list[dict], first: Boundary, second: Boundary) -> list[tuple[dict, dict]]:
    """Pairs (a, b): a beyond noise faster at ``first``, b beyond noise faster at ``second``."""
    return [(a, b) for a in rows for b in rows
            if decisively_faster(a, b, first) and decisively_faster(b, a, second)]


def _listed(items: list[str]) -> str:
    rest = len(items) - LISTED_PAIRS
    return "; ".join(items[:LISTED_PAIRS]) + (f"; and {rest} more" if rest > 0 else "")


# Sentences of one formulation


def _boundary_sentences(rows: list[dict], labels: dict[str, str]) -> list[str]:
    sentences = []
    for boundary in (KERNEL, SPAN, HOST):
        grouped = tiers(rows, boundary)
        if grouped:
            sentences.append(f"{boundary.name.capitalize()}: {ladder(grouped, boundary, labels)}.")
    return sentences


def _order_sentences(single: list[dict], graph: list[dict], labels: dict[str, str]) -> list[str]:
    def name(row: dict) -> str:
        return label(row, labels)

    sentences = []
    changed = reversals(single, KERNEL, SPAN)
    if changed:
        sentences.append("The order changes between kernel time and call span: " + _listed([
            f"{name(a)} has the shorter kernel ({us(a['kernel_us'])} vs {us(b['kernel_us'])} µs) but {name(b)} "
            f"the shorter span ({us(b['span_mean_us'])} vs {us(a['span_mean_us'])} µs)" for a, b in changed]) + ".")
        sentences.append(_why_span_differs(changed, name))
        by_impl = {r["impl"]: r for r in graph}
        back = [(a, b) for a, b in changed
                if a["impl"] in by_impl and b["impl"] in by_impl
                and decisively_faster(by_impl[a["impl"]], by_impl[b["impl"]], SPAN)]
        if back:
            a, b = by_impl[back[0][0]["impl"]], by_impl[back[0][1]["impl"]]
            sentences.append(
                f"Replayed from a CUDA graph, which removes per-call submission, {name(a)} is faster again "
                f"({us(a['span_mean_us'])} vs {us(b['span_mean_us'])} µs per call)"
                + (f", as in {len(back)} of the {len(changed)} changed pairs" if len(changed) > 1 else "") + ".")
    hidden = [(a, b) for a in single for b in single
              if decisively_faster(a, b, KERNEL) and b["span_mean_us"] is not None and a["span_mean_us"] is not None
              and SPAN.same(a, b)]
    if hidden:
        sentences.append("A shorter kernel that the call span does not show (the spans are within noise): " + _listed([
            f"{name(a)} {us(a['kernel_us'])} vs {name(b)} {us(b['kernel_us'])} µs of kernel, spans "
            f"{SPAN.show(a)} ≈ {SPAN.show(b)}" for a, b in hidden]) + ".")
    kernel_host = [pair for pair in reversals(single, KERNEL, HOST) if pair not in changed]
    if kernel_host:
        sentences.append("The order changes between kernel time and host time: " + _listed([
            f"{name(a)} has the shorter kernel ({us(a['kernel_us'])} vs {us(b['kernel_us'])} µs) but {name(b)} "
            f"the shorter host time ({us(b['host_us'])} vs {us(a['host_us'])} µs)" for a, b in kernel_host])
            + "; host time orders the cost of submission alone, not of the work.")
    against_host = reversals(single, SPAN, HOST)
    if against_host:
        sentences.append("The order changes between call span and host time: " + _listed([
            f"{name(a)} has the shorter span ({us(a['span_mean_us'])} vs {us(b['span_mean_us'])} µs) but {name(b)} "
            f"the shorter host time ({us(b['host_us'])} vs {us(a['host_us'])} µs)" for a, b in against_host])
            + "; host time is taken on back-to-back calls without synchronizing, the span on one synchronized call.")
    if not changed and not hidden and len(tiers(single, KERNEL)) > 1 and tiers(single, SPAN):
        sentences.append("Kernel time and call span put the implementations in the same order.")
    return sentences


def _why_span_differs(changed: list[tuple[dict, dict]], name) -> str:
    if all(decisively_faster(b, a, HOST) for a, b in changed):
        a, b = changed[0]
        opening = "In every changed pair the" if len(changed) > 1 else "The"
        text = (f"{opening} shorter span comes with the shorter host time ({name(b)} {us(b['host_us'])} vs "
                f"{name(a)} {us(a['host_us'])} µs): the span order follows the cost of submitting the call, so "
                "the shorter span is a cheaper call, not a faster kernel.")
        if a["host_us"] > a["kernel_us"]:
            text += (f" {name(a)}'s host time alone exceeds its kernel time ({us(a['host_us'])} vs "
                     f"{us(a['kernel_us'])} µs): the call is host-bound at this size.")
        return text
    return ("Host time does not account for every changed pair; the span also holds the gaps between launches "
            "and the synchronization, which kernel time excludes, so a span difference is not a kernel difference.")


def _graph_sentence(graph: list[dict], labels: dict[str, str]) -> list[str]:
    grouped = tiers(graph, SPAN)
    if len(graph) < 2 or not grouped:
        return []
    calls = graph[0]["calls_per_sample"]
    return [f"In a CUDA graph ({calls} calls per replay, span ÷ {calls}): {ladder(grouped, SPAN, labels)}."]


def _floor_kind(row: dict, ceilings: dict) -> str:
    """What sets a result's floor, in words: the hardware peak and, beside it, the rate reached in practice."""
    kind = floor_kind(row)
    if kind is None:
        return _measured_floor_kind(row, ceilings)
    if kind == "memory":
        text = f"memory: {row['bytes'] / 1e6:.3g} MB at the HBM peak {ceilings['peak_hbm_gbps']:,.0f} GB/s"
        reached = f"copy {ceilings['copy_gbps']:,.0f} GB/s" if ceilings.get("copy_gbps") else None
    else:
        peak_key, library_key, _ = ceilings_module.rates_of(row["precision"])
        text = f"compute: {_gflop(row)} GFLOP at the {peak_key.split('_')[1].upper()} peak {ceilings[peak_key]:.1f} TFLOP/s"
        reached = f"the library's matmul {ceilings[library_key]:.1f} TFLOP/s" if ceilings.get(library_key) else None
    return text + (f"; reached in practice: {reached}" if reached else "")


def _measured_floor_kind(row: dict, ceilings: dict) -> str:
    """A floor stored before schema 10: bytes over the measured copy rate or flops over the library's rate."""
    memory_us = row["bytes"] / (ceilings["copy_gbps"] * 1e3) if ceilings.get("copy_gbps") else None
    if memory_us is not None and abs(memory_us - row["floor_us"]) <= 1e-6 * row["floor_us"]:
        return f"memory: {row['bytes'] / 1e6:.3g} MB at {ceilings['copy_gbps']:,.0f} GB/s"
    passes = ceilings_module.compute_passes(row["precision"])
    return f"compute: {_gflop(row)} GFLOP at {passes * row['flops'] / row['floor_us'] / 1e6:.1f} TFLOP/s"


def _gflop(row: dict) -> str:
    """The arithmetic a result's precision does, in GFLOP: 'passes × flops' where it takes several."""
    passes = ceilings_module.compute_passes(row["precision"])
    return f"{passes} × {row['flops'] / 1e9:.3g}" if passes > 1 else f"{row['flops'] / 1e9:.3g}"


def _floor_sentences(rows: list[dict], cache: str, ceilings: dict, labels: dict[str, str]) -> list[str]:
    """How far each kernel is from its floor; cold L2 preferred, since a warm one can beat the memory floor.
    A run stored before hardware floors keeps its floors from the rates it measured, labelled as that measure."""
    chosen = [r for r in rows if r["cache"] == cache and r["floor_us"] and r["kernel_us"]]
    if not chosen:
        return []
    floors: dict[tuple, list[dict]] = {}
    for row in chosen:
        floors.setdefault((round(row["floor_us"], 6), _floor_kind(row, ceilings)), []).append(row)
    parts = [f"floor {us(floor)} µs ({kind}): " + ", ".join(
        f"{label(r, labels)} {r['floor_us'] / r['kernel_us']:.0%}" for r in group)
        for (floor, kind), group in floors.items()]
    measure = ("its roofline floor" if all(hardware_floor_us(r) for r in chosen) else
               "the floor from the rates measured in this run (stored before floors came from the hardware: another "
               "measure than a fraction of the hardware floor)")
    sentences = [f"Kernel time as a fraction of {measure} ({cache} L2): " + "; ".join(parts) + "."]
    beyond = [r for r in rows if r["cache"] == "warm" and r["floor_us"] and r["kernel_us"]
              and r["kernel_us"] < r["floor_us"] and _floor_kind(r, ceilings).startswith("memory")]
    if beyond:
        sentences.append("With a warm L2, " + ", ".join(
            f"{label(r, labels)} reaches {r['floor_us'] / r['kernel_us']:.0%}" for r in beyond)
            + " of the memory floor: above 100% is a cache artefact, not bandwidth.")
    return sentences


def baseline_row(rows: list[dict]) -> dict | None:
    """The baseline's row among ``rows`` (its IEEE one where there are several); None without one."""
    baselines = [r for r in rows if r["baseline"]]
    return next((r for r in baselines if r["precision"] == "ieee"), baselines[0] if baselines else None)


def _amdahl_sentence(single: list[dict], shares: list[amdahl.Share], labels: dict[str, str]) -> list[str]:
    if not shares:
        return []
    base = baseline_row([r for r in single if not r.get("suspect")])
    timed = [r for r in single if r["kernel_us"] is not None and not r.get("suspect")]
    if base is None or base["kernel_us"] is None or len(timed) < 2:
        return []
    # Among kernels within noise of the fastest, the one a caller waits least for; never a suspect time.
    best = min(tiers(timed, KERNEL)[0], key=lambda r: (r["span_mean_us"] is None, r["span_mean_us"] or 0.0))
    if not decisively_faster(best, base, KERNEL):
        return [f"No kernel is shorter than {labels[base['impl']]}'s ({us(base['kernel_us'])} µs) beyond the "
                f"{KERNEL_NOISE:.0%} threshold, so Amdahl's law has no speedup to scale."]
    speedup = base["kernel_us"] / best["kernel_us"]
    share = amdahl.share_for(shares, best["precision"])
    text = (f"Amdahl: {labels[best['impl']]}'s kernel is {speedup:.2f}× shorter than {labels[base['impl']]}'s "
            f"({us(best['kernel_us'])} vs {us(base['kernel_us'])} µs); "
            + amdahl.share_clause(best["op"], share, speedup))
    if best["precision"] != base["precision"]:
        text += (f"; it computes at {best['precision']} precision (error {best['rel_error']:.1e} vs "
                 f"{base['rel_error']:.1e})")
    if decisively_faster(base, best, SPAN):
        text += (f". Its call span is longer than {labels[base['impl']]}'s ({us(best['span_mean_us'])} vs "
                 f"{us(base['span_mean_us'])} µs), so a request that pays the call span does not get this speedup")
    return [text + "."]


def _cold_sentence(rows: list[dict], labels: dict[str, str]) -> list[str]:
    warm = {r["impl"]: r for r in rows if r["cache"] == "warm" and r["kernel_us"]}
    cold = [r for r in rows if r["cache"] == "cold" and r["kernel_us"] and r["impl"] in warm]
    if not cold:
        return []
    ratios = [r["kernel_us"] / warm[r["impl"]]["kernel_us"] for r in cold]
    low, high = f"{min(ratios):.2f}", f"{max(ratios):.2f}"
    spread = f"kernel times are {low if low == high else f'{low}–{high}'}× the warm ones"
    if {r["impl"] for r in tiers(cold, KERNEL)[0]} == {r["impl"] for r in tiers(list(warm.values()), KERNEL)[0]}:
        flagged = [r for r in tiers(cold, KERNEL)[0] + tiers(list(warm.values()), KERNEL)[0] if r.get("suspect")]
        if flagged:
            names = ", ".join(dict.fromkeys(label(r, labels) for r in flagged))
            return [f"With a cold L2 the fastest kernel is the same, but its time is suspect ({names}), and {spread}."]
        return [f"With a cold L2 the fastest kernel is the same and {spread}."]
    return [f"With a cold L2 the kernel-time order changes ({ladder(tiers(cold, KERNEL), KERNEL, labels)}); {spread}."]


def _measured_clock_sentence(rows: list[dict], labels: dict[str, str]) -> list[str]:
    """Which results were measured below the formulation's top SM clock, or while NVML reported a slowdown."""
    clocked = [r for r in rows if r["status"] == "pass" and r.get("sm_clock_min_mhz") is not None]
    if not clocked:
        return []
    top = max(r["sm_clock_max_mhz"] for r in clocked)
    slowed: dict[str, list[dict]] = {}
    for row in clocked:
        if row.get("clock_events") or row["sm_clock_min_mhz"] < (1 - CLOCK_SPREAD) * top:
            slowed.setdefault(row["impl"], []).append(row)
    if not slowed:
        return []
    parts = []
    for impl, impl_rows in slowed.items():
        low = min(r["sm_clock_min_mhz"] for r in impl_rows)
        events = sorted({e for r in impl_rows for e in (r.get("clock_events") or "").split()})
        where = ", ".join(dict.fromkeys(f"{r['path']}/{r['cache']}" for r in impl_rows))
        parts.append(f"{labels[impl]} down to {low:,.0f} MHz ({where}{'; ' + ', '.join(events) if events else ''})")
    return [f"The SM clock left {top:,.0f} MHz while some results here were measured: {_listed(parts)}. Those "
            "times are partly the clock's, so a comparison with a result taken at a higher clock is not a "
            "comparison of kernels alone."]


def _failure_sentences(rows: list[dict], labels: dict[str, str]) -> list[str]:
    seen = {}
    for row in rows:
        if row["status"] in ("fail", "skip"):
            seen.setdefault((row["impl"], row["status"], row["reason"]), row)
    sentences = []
    for (impl, status, reason), row in seen.items():
        reason = reason or "no reason stored"
        if status == "skip":
            sentences.append(f"{labels[impl]} was skipped: {reason}.")
        elif row["contract"] == "pass":  # the contract held; a launch path did not run
            sentences.append(f"{labels[impl]} FAILED, its contract passed: {reason}.")
        else:
            error = f" (error {row['rel_error']:.1e})" if row["rel_error"] is not None else ""
            sentences.append(f"{labels[impl]} FAILED its contract{error}: {reason}.")
    flagged: dict[str, list[str]] = {}
    for row in rows:
        if row["status"] == "pass" and row.get("suspect"):
            flagged.setdefault(row["impl"], []).append(f"{row['path']}/{row['cache']}: {row['suspect']}")
    for impl, reasons in flagged.items():
        sentences.append(f"{labels[impl]}'s time is SUSPECT, not to be trusted ({_listed(reasons)}); it is marked "
                         "(suspect) wherever it appears below and left out of Amdahl's law.")
    return sentences


def formulation_section(rows: list[dict], op: str, case: str, variant: str, ceilings: dict,
                        shares: list[amdahl.Share] = ()) -> Section:
    mine = [r for r in rows if (r["op"], r["case"], r["variant"]) == (op, case, variant)]
    names = list(dict.fromkeys(r["impl"] for r in mine))
    labels = short_labels(names)
    caches = caches_of(mine)
    cache = "warm" if "warm" in caches else caches[0]
    single = measured(mine, path="single", cache=cache)
    graph = measured(mine, path="graph", cache=cache)
    title = f"{op} · {case} · {shared_parts(names) or variant} · {cache} L2"
    sentences = _failure_sentences(mine, labels)
    if len(single) == 1:
        sentences.append(f"Only {labels[single[0]['impl']]} was measured here.")
    sentences += _boundary_sentences(single, labels)
    sentences += _graph_sentence(graph, labels)
    sentences += _order_sentences(single, graph, labels)
    every_cache = measured(mine, path="single")
    sentences += _cold_sentence(every_cache, labels)
    sentences += _floor_sentences(every_cache, "cold" if "cold" in caches else cache, ceilings, labels)
    sentences += _amdahl_sentence(single, list(shares), labels)
    sentences += _measured_clock_sentence(mine, labels)
    return Section(title, sentences)


# The run


def _pairs(keys: list[tuple]) -> str:
    return ", ".join(" ".join(key) for key in keys)


def skip_lines(rows: list[dict]) -> list[str]:
    """Skipped implementations, one line per family and reason: 'triton: 12 skipped — reason'."""
    skipped: dict[tuple[str, str], set] = {}
    for row in rows:
        if row["status"] == "skip":
            skipped.setdefault((row["family"], row["reason"] or "no reason stored"), set()).add(
                (row["op"], row["case"], row["impl"]))
    return [f"{family}: {len(pairs)} skipped — {reason}" for (family, reason), pairs in skipped.items()]


def run_section(run: dict, rows: list[StoredRow]) -> Section:
    env, ops = run["env"], list(dict.fromkeys(r["op"] for r in rows))
    impls = {(r["op"], r["case"], r["impl"]) for r in rows}
    sentences = [f"Run {run['id']} ({run['status']}): {run['suite']} suite on {env.get('gpu') or env.get('host_cpu')}, "
                 f"started {run['started_at']}; {len(rows)} results of {len(impls)} implementation·case pairs "
                 f"over {len(ops)} ops ({', '.join(ops)})."]
    if run["clock"] == "cpu":
        sentences.append("No GPU: every number is CPU wall-clock time; kernel time and launches were not measured.")
    failed = sorted({(r["op"], r["case"], r["impl"]) for r in rows if r["status"] == "fail"})
    skipped = sorted({(r["op"], r["case"], r["impl"]) for r in rows if r["status"] == "skip"})
    if failed:
        sentences.append(f"{len(failed)} of {len(impls)} implementation·case pairs FAILED a contract or a launch "
                         f"path: {_pairs(failed)} (contract table below).")
    else:
        sentences.append(f"No implementation failed its contract or a launch path "
                         f"({len(impls) - len(skipped)} checked).")
    if skipped:
        sentences.append(f"{len(skipped)} implementation·case pair{'s' * (len(skipped) != 1)} "
                         f"{'was' if len(skipped) == 1 else 'were'} skipped: " + "; ".join(skip_lines(rows)) + ".")
    suspect = sorted({(r["op"], r["case"], r["impl"]) for r in rows if r["status"] == "pass" and r.get("suspect")})
    if suspect:
        sentences.append(f"{len(suspect)} implementation·case pair{'s' * (len(suspect) != 1)} passed with a SUSPECT "
                         f"time (mage.suspect; not to be trusted, marked (suspect) below): {_pairs(suspect)}.")
    sentences += _clock_sentences(run)
    sentences += _run_clock_sentence(rows)
    sentences.append(f"≈ marks a difference within noise (kernel time under {KERNEL_NOISE:.0%}, host time under "
                     f"{HOST_NOISE:.0%}, call span when the ranges of round means overlap or the difference is "
                     "within the larger range); < marks one beyond it; × is the ratio to the fastest.")
    return Section(f"run {run['id']}", sentences)


def _clock_sentences(run: dict) -> list[str]:
    """NVML's reading at the start and end of the run: the only clock evidence a run keeps."""
    states = [("start", run["env"].get("gpu_state_start")),
              ("end", (run.get("env_end") or {}).get("gpu_state_end"))]
    states = [(when, state) for when, state in states if state]
    if not states:
        return []
    readings = " and ".join(", ".join(part for part in (
        f"{state['sm_clock_mhz']:,} MHz" if "sm_clock_mhz" in state else None,
        f"{state['temperature_c']} °C" if "temperature_c" in state else None) if part) + f" at the {when}"
        for when, state in states)  # an imported run's state may lack a reading
    reasons = sorted({reason for _, state in states for reason in state.get("throttle_reasons", [])})
    maximum = states[0][1].get("max_sm_clock_mhz")
    return [f"SM clock {readings}" + (f" (maximum {maximum:,} MHz)" if maximum else "")
            + (f"; clock-event reasons reported: {', '.join(reasons)}." if reasons
               else "; no clock-event (throttle) reasons reported.")]


def _run_clock_sentence(rows: list[dict]) -> list[str]:
    """The SM clocks sampled during every measurement of the run (schema 5 on; none before)."""
    clocked = [r for r in rows if r.get("sm_clock_min_mhz") is not None]
    if not clocked:
        return []
    low, high = min(r["sm_clock_min_mhz"] for r in clocked), max(r["sm_clock_max_mhz"] for r in clocked)
    slowed = sorted({(r["op"], r["case"], r["impl"]) for r in clocked if r.get("clock_events")})
    events = sorted({e for r in clocked for e in (r.get("clock_events") or "").split()})
    sentence = f"During the measurements the SM clock was sampled between {low:,.0f} and {high:,.0f} MHz"
    if not slowed:
        return [sentence + "; NVML reported no slowdown while measuring."]
    return [sentence + f"; NVML reported a slowdown ({', '.join(events)}) while measuring {len(slowed)} "
            f"implementation·case pair{'s' * (len(slowed) != 1)}: {_pairs(slowed)}."]


def findings(run: dict, rows: list[StoredRow], shares: dict[str, list[amdahl.Share]] | None = None) -> list[Section]:
    """The run's summary, then one section per formulation (op, case, variant); ``shares``: each op's shares of
    model blocks for Amdahl's law (mage.report.context.op_shares), none without."""
    shares = shares or {}
    return [run_section(run, rows)] + [
        formulation_section(rows, op, case, variant, run["ceilings"], shares.get(op, ()))
        for op, case, variant in formulations(rows)]


def as_text(sections: list[Section]) -> str:
    return "\n\n".join(s.title + "\n" + "\n".join(f"- {sentence}" for sentence in s.sentences) for s in sections)
