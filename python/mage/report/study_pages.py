"""A page per study (mage.studies) in the lab notebook: its question, what it runs, its conclusion (what the
runs showed, written by hand), the runs that answer it with the hypotheses and predictions stated before each
and their verdicts, and the latest kernel times of its implementations on its cases, as a table and a figure
on one log scale, per cache state it measures. Where its implementations span several precisions, each time is
read against the fastest of its own precision, and a table says what each precision buys in time and costs in
error against ieee's fastest. A study of model blocks shows instead, from the latest context run of each block
and precision, the measured speedup of the best per-op assignment beside Amdahl's prediction and the fastest
way measured, saying where a whole-block compile or a fused implementation beats that best assignment."""

from __future__ import annotations

import plotly.graph_objects as go

from mage import registry, studies
from mage.history import device_model
from mage.report import context, html, plots
from mage.report.format import us
from mage.report.html import escape
from mage.studies import Study


def study_file(name: str) -> str:
    return f"{name}.html"


def implementation_names(study: Study) -> set[str]:
    """The names of what the study runs, as the registry selects them now."""
    return {impl.name for op in study.ops for impl in registry.select(op, study.impls)}


def study_blocks(study: Study) -> list[str]:
    """The names of the model blocks a study of model blocks measures."""
    from mage.context import blocks

    return blocks.select(study.context.blocks, study.context.size)


def study_runs(study: Study, runs: list[dict], rows_of, blocks_of) -> list[dict]:
    """The runs of ``study``: those stored with its name, and runs stored before runs named their study that
    measured one of its cases with at least two of its implementations (``rows_of(run_id)``: a run's rows) or,
    for a study of model blocks, one of its blocks at one of its precisions (``blocks_of(run_id)``: a run's
    block results)."""
    wanted = set(_block_keys(study)) if study.context is not None else set()
    found = []
    for run in runs:
        named = studies.named_study(run)
        if named is not None:
            if named == study.name:
                found.append(run)
        elif study.context is not None:
            if any((r.block, r.precision) in wanted for r in blocks_of(run["id"])):
                found.append(run)
        elif _measured_together(study, rows_of(run["id"])):
            found.append(run)
    return found


def _block_keys(study: Study) -> list[tuple[str, str]]:
    """(block, precision) of a study of model blocks, in its order."""
    return [(block, precision) for block in study_blocks(study) for precision in study.context.precisions]


def _measured_together(study: Study, rows: list[dict]) -> bool:
    names, cases = implementation_names(study), set(study.cases)
    measured: dict[str, set[str]] = {}
    for row in rows:
        if row["op"] in study.ops and row["case"] in cases and row["impl"] in names:
            measured.setdefault(row["case"], set()).add(row["impl"])
    return any(len(impls) >= 2 for impls in measured.values())


def latest_times(study: Study, newest: dict[str, list[dict]]) -> dict[tuple[str, str], dict[tuple[str, str], dict]]:
    """Per device model and cache state the study measures, (case, implementation) → its latest passing row
    on the single path."""
    names = implementation_names(study)
    out: dict[tuple[str, str], dict[tuple[str, str], dict]] = {}
    for device, rows in newest.items():
        for cache in study.caches:
            picked = {(r["case"], r["impl"]): r for r in rows
                      if r["op"] in study.ops and r["case"] in study.cases and r["impl"] in names
                      and r["path"] == "single" and r["cache"] == cache and r["kernel_us"] is not None}
            if picked:
                out[(device, cache)] = picked
    return out


def precision_order(study: Study) -> list[str]:
    """The precisions its ops declare, in their specs' order (ieee first)."""
    return list(dict.fromkeys(p for op in study.ops for p in registry.get_op(op).precisions))


def _error(row: dict) -> str:
    return "—" if row["rel_error"] is None else f"{row['rel_error']:.1e}"


def _times(value: float | None) -> str:
    """A ratio: two decimals below 10, whole above (an error 181× another's)."""
    if value is None:
        return "—"
    return f"{value:,.0f}×" if value >= 10 else f"{value:.2f}×"


def _times_table(study: Study, picked: dict[tuple[str, str], dict], run_href) -> str:
    """Kernel time per implementation and case, each against the case's fastest; with several precisions,
    against the fastest of its own precision, its precision and error beside."""
    cases = [c for c in study.cases if any(case == c for case, _ in picked)]
    precision_of = {impl: row["precision"] for (_, impl), row in picked.items()}
    several = len(set(precision_of.values())) > 1
    order = precision_order(study)
    impls = sorted(precision_of, key=lambda impl: (order.index(precision_of[impl]), impl) if several else impl)
    head = "".join(f"<th>{escape(case)}</th>" for case in cases)
    body = []
    for impl in impls:
        cells = []
        for case in cases:
            row = picked.get((case, impl))
            if row is None:
                cells.append("<td>—</td>")
                continue
            fastest = min(r["kernel_us"] for (c, other), r in picked.items()
                          if c == case and (not several or precision_of[other] == precision_of[impl]))
            ratio = row["kernel_us"] / fastest
            mark = ' class="num best"' if ratio == 1.0 else ' class="num"'
            error = f"<br>error {_error(row)}" if several else ""
            cells.append(f"<td{mark}>{row['kernel_us']:,.1f} µs<br>{ratio:.2f}×{error} · "
                         f'<a href="{run_href(row["run_id"])}">run {row["run_id"]}</a></td>')
        precision = f"<td>{escape(precision_of[impl])}</td>" if several else ""
        body.append(f"<tr><td>{escape(impl)}</td>{precision}{''.join(cells)}</tr>")
    precision_head = "<th>precision</th>" if several else ""
    return (f"<table><thead><tr><th>implementation</th>{precision_head}{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def _precision_table(study: Study, picked: dict[tuple[str, str], dict]) -> str:
    """Per case and precision, its fastest implementation against the case's fastest ieee one: what the
    precision buys in time and costs in error; empty where only one precision was measured."""
    if len({row["precision"] for row in picked.values()}) < 2:
        return ""
    body = []
    for case in [c for c in study.cases if any(case == c for case, _ in picked)]:
        fastest: dict[str, dict] = {}
        for row in sorted((row for (c, _), row in picked.items() if c == case), key=lambda row: -row["kernel_us"]):
            fastest[row["precision"]] = row  # the shortest time of each precision is written last
        ieee = fastest.get("ieee")
        for precision in [p for p in precision_order(study) if p in fastest]:
            row = fastest[precision]
            time = None if ieee is None else row["kernel_us"] / ieee["kernel_us"]
            error = (None if ieee is None or not ieee["rel_error"] or row["rel_error"] is None
                     else row["rel_error"] / ieee["rel_error"])
            body.append(f"<tr><td>{escape(case)}</td><td>{escape(precision)}</td><td>{escape(row['impl'])}</td>"
                        f'<td class="num">{row["kernel_us"]:,.1f}</td><td class="num">{_times(time)}</td>'
                        f'<td class="num">{_error(row)}</td><td class="num">{_times(error)}</td></tr>')
    return ("<p class=\"note\">What each precision buys: its fastest implementation per case against the case's "
            "fastest ieee one. The precision changed, so a shorter time is accuracy traded for speed, not a faster "
            "kernel of the same computation; the error is against the float64 reference.</p>"
            "<table><thead><tr><th>case</th><th>precision</th><th>fastest</th><th>kernel µs</th>"
            "<th>time ÷ ieee's fastest</th><th>error</th><th>error ÷ ieee's fastest</th></tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def _times_figure(study: Study, picked: dict[tuple[str, str], dict], element: str) -> str:
    """Kernel time per case, a bar per implementation, on one log axis (equal heights mean equal ratios)."""
    cases = [c for c in study.cases if any(case == c for case, _ in picked)]
    figure = go.Figure([go.Bar(name=impl, x=cases, y=[picked[(case, impl)]["kernel_us"] if (case, impl) in picked
                                                      else None for case in cases])
                        for impl in sorted({impl for _, impl in picked})])
    figure.update_layout(barmode="group", height=420, margin={"t": 20},
                         legend={"orientation": "h"},
                         yaxis={"type": "log", "title": {"text": "kernel time (µs), log scale"}})
    return plots.figure_html(figure, element, template="plotly_white")


def latest_blocks(study: Study, runs: list[dict], blocks_of) -> dict[str, list[tuple[dict, list]]]:
    """Per device model, each block and precision of a study of model blocks with its results in the latest
    of ``runs`` that passed on it: [(run, its results of that block and precision)], in the study's order."""
    wanted = _block_keys(study)
    latest: dict[tuple[str, tuple[str, str]], tuple[dict, list]] = {}
    for run in sorted(runs, key=lambda run: (run["started_at"], run["id"])):
        results = blocks_of(run["id"])
        for key in wanted:
            mine = [r for r in results if (r.block, r.precision) == key]
            if any(r.status == "pass" for r in mine):
                latest[(device_model(run["env"]), key)] = (run, mine)
    devices = dict.fromkeys(device for device, _ in latest)
    return {device: [latest[(device, key)] for key in wanted if (device, key) in latest] for device in devices}


def _blocks_table(measured: list[tuple[dict, list]], run_href) -> tuple[str, list[str]]:
    """Per block, precision and path: eager's span, the best per-op assignment's measured speedup beside
    Amdahl's, and the fastest way measured; with a sentence for each whole-block compile or fused
    implementation faster than that best assignment."""
    body, beaten = [], []
    for run, results in measured:
        for path in dict.fromkeys(r.path for r in results):
            timed = [r for r in results if r.path == path and r.status == "pass" and r.span_median_us]
            eager = next((r for r in timed if r.kind == "eager"), None)
            best = next((r for r in timed if r.kind == "best"), None)
            # The A/A control repeats the direct call: a second measurement, not another way to run the block.
            fastest = min((r for r in timed if r.kind != context.CONTROL), key=lambda r: r.span_median_us,
                          default=None)
            if eager is None or fastest is None:
                continue
            block = f"{escape(eager.block)}</td><td>{escape(eager.precision)}</td><td>{escape(path)}"
            best_cells = (f"<td>{escape(best.assignment)}</td><td class=\"num\">{_times(best.measured_speedup)}</td>"
                          f"<td class=\"num\">{_times(best.predicted_speedup)}</td>" if best is not None
                          else '<td colspan="3">no assignment marked best</td>')
            body.append(f"<tr><td>{block}</td><td class=\"num\">{us(eager.span_median_us)}</td>{best_cells}"
                        f"<td>{escape(fastest.assignment)} ({escape(fastest.kind)})</td>"
                        f"<td class=\"num\">{_times(fastest.measured_speedup)}</td>"
                        f'<td><a href="{run_href(run["id"])}">run {run["id"]}</a></td></tr>')
            if best is None:
                continue
            for r in timed:
                if r.kind in ("compile", context.FUSED) and r.span_median_us < best.span_median_us:
                    noise = context.Reading(r, best).noise
                    within = noise is not None and abs(r.span_median_us / best.span_median_us - 1) <= noise
                    judged = "" if noise is None else f", {'within' if within else 'beyond'} the noise " \
                                                      f"(±{100 * noise:.2g} %)"
                    way = "compiling the whole block" if r.kind == "compile" else "its fused implementation"
                    beaten.append(f"{r.block} ({r.precision}), {path} path: {way}, {r.assignment}, takes "
                                  f"{us(r.span_median_us)} µs, faster than the best per-op assignment "
                                  f"({best.assignment}, {us(best.span_median_us)} µs): "
                                  f"{_times(r.measured_speedup)} against {_times(best.measured_speedup)} over eager"
                                  f"{judged}.")
    table = ("<table><thead><tr><th>block</th><th>precision</th><th>path</th><th>eager span µs</th>"
             "<th>best per-op assignment</th><th>measured</th><th>Amdahl predicted</th><th>fastest measured (kind)</th>"
             f"<th>its speedup</th><th>run</th></tr></thead><tbody>{''.join(body)}</tbody></table>")
    return table, beaten


def _blocks_measured(store, study: Study, runs: list[dict], run_href) -> str:
    sections = []
    for device, measured in latest_blocks(study, runs, store.context_results).items():
        table, beaten = _blocks_table(measured, run_href)
        sections.append(f"<h3>{escape(device)}</h3>{table}" + (
            "<p><b>Faster than the assignment marked best:</b></p><ul>"
            + "".join(f"<li>{escape(line)}</li>" for line in beaten) + "</ul>" if beaten else ""))
    note = ("<p class=\"note\">The latest context run of each block and precision (linked): the median span of one "
            "block call, each speedup against eager's span on the same path. The best per-op assignment is the fastest "
            "implementation of each op swapped in together; Amdahl predicts its speedup from the ops' measured "
            "fractions of eager's kernel time and their isolated speedups. It is the best of the per-op assignments, "
            "not necessarily the fastest way to run the block: that is the fastest measured, which may be a "
            "whole-block compile or a fused implementation.</p>")
    return note + ("".join(sections) or "<p>No passing measurement of this study's blocks yet.</p>")


def _ops_measured(study: Study, newest: dict[str, list[dict]], run_href) -> str:
    several = len({impl.precision for op in study.ops for impl in registry.select(op, study.impls)}) > 1
    within = (" at its precision (a ratio is never taken across precisions; the error is against the float64 "
              "reference)" if several else "")
    measured = "".join(
        f"<h3>{escape(device)}, {escape(cache)} L2</h3>{_times_table(study, picked, run_href)}{_precision_table(study, picked)}"
        f"{_times_figure(study, picked, f'times-{i}')}"
        for i, ((device, cache), picked) in enumerate(latest_times(study, newest).items()))
    return (f"<p class=\"note\">Kernel time on the single path, the latest passing result of each implementation "
            f"(its run named); the fastest of each case{within} is 1.00×.</p>"
            + (measured or "<p>No passing measurement of this study's cases yet.</p>"))


def _definition(study: Study) -> str:
    if study.context is not None:
        part = study.context
        what = (f"<b>Model blocks</b> ({escape(part.size)} size): {escape(', '.join(study_blocks(study)))}. "
                f"<b>Precisions:</b> {escape(', '.join(part.precisions))}. <b>Assignments:</b> "
                + (escape(", ".join(f"{op}={impl}" for op, impl in part.assign.items())) + ", alone and together"
                   if part.assign else "each implementation faster than eager alone, the fastest per op together")
                + f". <b>Whole-block compiles:</b> {escape(', '.join(part.compile_modes) or 'none')}. "
                f"<b>Fused implementations:</b> {'measured' if part.fused else 'left out'}. ")
    else:
        what = (f"<b>Ops:</b> {escape(', '.join(study.ops))}. <b>Cases</b>, in the order they run: "
                f"{escape(', '.join(study.cases))}. <b>Implementations:</b> {escape(', '.join(study.impls))}. "
                f"<b>L2:</b> {escape(', '.join(study.caches))}; <b>paths:</b> {escape(', '.join(study.paths))}. ")
    return (f"<p>{what}Run it with <code>mage study {escape(study.name)}</code>"
            + (f" (about {study.seconds} s on an H200)." if study.seconds else ".") + "</p>")


def _conclusion(study: Study, runs: list[dict]) -> str:
    """The study's conclusion, with when it was written and which of the page's runs came after it (the conclusion
    may not hold for them)."""
    if not study.conclusion:
        shown = "<p>No conclusion written yet: the measurements below are all there is.</p>"
    else:
        source = f"Written on {study.concluded} from the runs of this study stored by then."
        later = [run for run in runs if run["started_at"][:10] > str(study.concluded)]
        if later:
            source += (f" {len(later)} of the runs listed below started after it, so it may not hold for "
                       f"{'them' if len(later) > 1 else 'it'}.")
        shown = f"<p class=\"note\">{escape(source)}</p><p>{escape(' '.join(study.conclusion.split()))}</p>"
    return f"<h2>What the runs showed</h2>{shown}"


def study_body(store, study: Study, runs: list[dict], newest: dict[str, list[dict]], run_href) -> str:
    """The study page's body (the site wraps it in its page)."""
    nxt = ""
    if study.hypothesis or study.predict:
        nxt = ("<h2>The next run's hypothesis</h2><p class=\"note\">Stated before the run that will test it: a claim, "
               "not a finding.</p>" + (f"<p>{escape(' '.join(study.hypothesis.split()))}</p>" if study.hypothesis else "")
               + ("<ul>" + "".join(f"<li><code>{escape(p)}</code></li>" for p in study.predict) + "</ul>"
                  if study.predict else ""))
    measured = (_blocks_measured(store, study, runs, run_href) if study.context is not None
                else _ops_measured(study, newest, run_href))
    stated = "".join(f'<h3><a href="{run_href(run["id"])}">run {run["id"]}</a> · {escape(run["started_at"])}</h3>{text}'
                     for run in reversed(runs) if (text := html.experiment_html(store, run, note=False, run_href=run_href)))
    run_list = ", ".join(f'<a href="{run_href(run["id"])}">{run["id"]}</a>' for run in runs) or "none yet"
    return (f"<p>{escape(' '.join(study.question.split()))}</p>{_definition(study)}{_conclusion(study, runs)}"
            f"<h2>What was measured</h2>{measured}"
            + f"<h2>Runs of this study</h2><p>{run_list}</p>"
            + (f"<h2>Hypotheses and their verdicts</h2><p class=\"note\">Each hypothesis was stated before its run; "
               "the verdicts are its predictions judged against that run's own results (mage.experiments).</p>"
               f"{stated}" if stated else "")
            + nxt)
