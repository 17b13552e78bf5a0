"""Markdown tables of a run, ready to paste: one row per op, case and formulation, one column per backend.

They hold the static figure's numbers (single path, its cache state) and, beside them, the launch
paths, host time, fractions of the floor and every failure. A context run's model blocks follow: predicted
against measured speedup per assignment, kernel time by op call site, and the findings in words
(mage.report.context).
"""

from __future__ import annotations

import html
from typing import Callable

from mage.measure.ceilings import in_practice_us
from mage.report import context
from mage.report.findings import HOST_NOISE, KERNEL_NOISE, caches_of
from mage.report.format import clock_range, commit_label, floor_fraction, span_timer, us, with_range
from mage.report.figures import figure_cache
from mage.report.tables import ceilings_line
from mage.store import BlockOpShare, BlockResult, StoredRow

PATHS = {"batch": "back to back", "graph": "replayed from one CUDA graph"}


def _escaped(text: str) -> str:
    """Stored text as Markdown: HTML (<, >, &) escaped so a renderer shows it as written, table pipes
    escaped so it stays in its cell, on one line."""
    return html.escape(text, quote=False).replace("|", "\\|").replace("\n", " ")


def _formulation(row: dict) -> str:
    """The row label: op, case, and the implementation name without its backend."""
    return f"{row['op']} {row['case']} {row['impl'].split('/', 1)[-1]}"


def _table(rows: list[dict], cell: Callable[[dict], str]) -> str:
    backends = list(dict.fromkeys(r["backend"] for r in rows))
    keys = list(dict.fromkeys(_formulation(r) for r in rows))
    found = {(_formulation(r), r["backend"]): r for r in rows}
    lines = ["| Operation | " + " | ".join(map(_escaped, backends)) + " |", "|---|" + "---|" * len(backends)]
    for key in keys:
        cells = [_escaped(cell(found[key, b])) if (key, b) in found else "—" for b in backends]
        lines.append(f"| {_escaped(key)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _span(row: dict) -> str:
    return with_range(row["span_mean_us"], row["span_round_min_us"], row["span_round_max_us"])


def _floor_fraction(row: dict) -> str:
    fraction = floor_fraction(row)
    return "—" if fraction is None else f"{fraction:.0%}"


def _floor_note(ceilings: dict) -> str:
    if "peak_hbm_gbps" not in ceilings and "peak_fp32_tflops" not in ceilings:  # a run stored before peaks
        return ("Stored before floors came from the hardware: this run's floors were its measured copy bandwidth and "
                "library matmul rate, another measure, so no fraction of the hardware floor is given.")
    return ("Floor, from the hardware: compulsory bytes ÷ the HBM peak, or flops ÷ the device's peak rate at the "
            f"precision, whichever is larger. {ceilings_line(ceilings)}.")


def _plain_table(header: list[str], body: list[list[str]]) -> str:
    """A Markdown table of ``header`` and ``body``, every cell escaped."""
    lines = ["| " + " | ".join(map(_escaped, header)) + " |", "|---" * len(header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(_escaped(str(cell)) for cell in cells) + " |" for cells in body])


def _failures(rows: list[dict]) -> str:
    bad = list(dict.fromkeys((r["op"], r["case"], r["impl"], r["status"], r["path"], r["cache"], r["reason"] or "")
                             for r in rows if r["status"] != "pass"))
    if not bad:
        return "Every implementation passed its contract and ran on every path."
    return _plain_table(["op", "case", "implementation", "status", "path/cache", "reason"],
                        [[op, case, impl, f"**{status.upper()}**", f"{path}/{cache}", reason]
                         for op, case, impl, status, path, cache, reason in bad])


def context_section(results: list[BlockResult], shares: list[BlockOpShare]) -> str:
    """The model blocks of a context run: predictions against measurements, kernel time by call site, findings."""
    parts = ["## Model blocks in context",
             "Measured speedup = the eager assignment's span ÷ this one (median of one block call, same run and "
             "path); Amdahl predicted = 1 / (1 − Σf + Σf/s) from the eager capture's fractions f and the isolated "
             f"speedups s. The difference is beyond the noise past {context.NOISE_SIGMAS:g} standard errors of the "
             "two spans.",
             _plain_table(context.PREDICTION_COLUMNS, context.prediction_rows(results))]
    for block, precision in context.blocks(results):
        sites, bars = context.site_times(results, shares, block, precision)
        if bars:
            parts += [f"### {_escaped(f'{block} ({precision})')}: kernel time by op call site (µs, single path)",
                      _plain_table(["assignment", *sites, "other kernels", "block kernel time"],
                                   [[assignment, *map(us, per_site), us(rest),
                                     us(None if rest is None else rest + sum(v or 0 for v in per_site))]
                                    for assignment, per_site, rest in bars])]
    for section in context.findings(results, shares):
        parts += [f"### {_escaped(section.title)}", "\n".join(f"- {_escaped(line)}" for line in section.sentences)]
    return "\n\n".join(parts)


def tables(run: dict, rows: list[StoredRow], results: list[BlockResult] = (), shares: list[BlockOpShare] = ()) -> str:
    """The Markdown of a run; ``results`` and ``shares``: its model blocks, when it is a context run."""
    cache = figure_cache(rows) if rows else None
    caches = caches_of(rows)
    floor_cache = "cold" if "cold" in caches else cache

    def at(path: str, where: str) -> list[dict]:
        return [r for r in rows if r["path"] == path and r["cache"] == where and r["status"] == "pass"]

    unit = "CPU wall clock" if run["clock"] == "cpu" else "GPU"
    env = run["env"]
    sections = [
        (f"Kernel time (µs per call), single path, {cache} L2",
         "Profiler capture of warmed calls; device activity summed ÷ calls, gaps between launches excluded. "
         f"Differences under {KERNEL_NOISE:.0%} are within noise.", at("single", cache), lambda r: us(r["kernel_us"])),
        (f"Call span (µs per call), single path, {cache} L2",
         f"Mean of the {span_timer(run['clock'])} spans [range of the round means, not a confidence interval]. "
         "A span includes host submission; it is not a kernel time.", at("single", cache), _span),
        ("Launches per call", "Device activities (kernels, memsets, memcpys) in the capture ÷ calls.",
         at("single", cache), lambda r: "—" if r["launches"] is None else f"{r['launches']:g}"),
        ("Host time (µs per call)", f"Wall clock of back-to-back unsynchronized calls ÷ calls, median of chunks "
         f"[range of the chunk means, where stored]. Differences under {HOST_NOISE:.0%} are within noise.",
         at("single", cache), lambda r: with_range(r["host_us"], r["host_min_us"], r["host_max_us"])),
        *[(f"{path.capitalize()} path (µs per call), {cache} L2",
           f"Span of B calls {how} ÷ B [range of round means].", at(path, cache), _span)
          for path, how in PATHS.items()],
        (f"SM clock while measured, single path, {cache} L2",
         "Lowest and highest NVML SM clock sampled during the kernel capture and the spans, with the slowdown "
         "reasons NVML reported meanwhile. Times taken at a lower clock are partly the clock's.",
         [r for r in at("single", cache) if r.get("sm_clock_min_mhz") is not None], clock_range),
        ("Autotuned configurations", "The configuration each autotuned Triton kernel launched with in the timed "
         "calls (Triton's Config text).", [r for r in at("single", cache) if r.get("tuning")],
         lambda r: r["tuning"]),
        (f"Fraction of the roofline floor (floor ÷ kernel time), {floor_cache} L2", _floor_note(run["ceilings"]),
         at("single", floor_cache), _floor_fraction),
        ("Reached in practice (µs per call)", "The larger of compulsory bytes ÷ the copy bandwidth and flops ÷ the "
         "library's matmul rate at the precision, both measured in this run: what is reached in practice, beside "
         "the floor.", at("single", floor_cache),
         lambda r: us(in_practice_us(run["ceilings"], r["flops"], r["bytes"], r["precision"]))),
    ]
    parts = [_escaped(f"## Mage run {run['id']}: {run['suite']} on {env.get('gpu') or env.get('host_cpu')} ({unit})"),
             _escaped(f"torch {env.get('torch')}, commit {commit_label(env)}, started {run['started_at']}. ")
             + "Compilation, transfers and process start are excluded. Rows compare within themselves; numbers are "
             "never subtracted across boundaries."]
    for title, note, chosen, cell in sections:
        if chosen:
            parts += [f"### {_escaped(title)}", note, _table(chosen, cell)]
    if rows:
        parts += ["### Contracts and failures", _failures(rows)]
    if results:
        parts.append(context_section(results, shares))
    return "\n\n".join(parts) + "\n"
