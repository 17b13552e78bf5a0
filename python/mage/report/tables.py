"""Plain tables of a stored run, for the terminal (rich) and for export."""

from __future__ import annotations

import dataclasses
import json
import re

from rich.table import Table
from rich.text import Text

from mage.measure.ceilings import in_practice_us
from mage.report import context
from mage.report.format import clock_range, commit_label, floor_fraction, floor_kind, range_of, us, with_range
from mage.store import BlockOpShare, BlockResult, StoredRow

EXPORT_FIELDS = (
    "op", "case", "suite", "impl", "backend", "family", "strategy", "baseline", "variant", "precision", "path",
    "cache", "clock", "status",
    "contract", "reason", "rel_error", "eager_error", "kernel_us", "launches", "host_us", "host_min_us",
    "host_max_us", "span_mean_us", "span_median_us", "span_round_min_us", "span_round_max_us", "span_samples",
    "calls_per_sample", "span_rse", "noisy",
    "floor_us", "memory_floor_us", "compute_floor_us", "floor_fraction", "flops", "bytes", "kernel_names", "suspect",
    "sm_clock_min_mhz", "sm_clock_max_mhz", "clock_events", "tuning",
)


def export_rows(rows: list[StoredRow]) -> list[dict]:
    """The stored results with every export field; floor_fraction = hardware floor / kernel time (empty for
    results stored before hardware floors)."""
    return [{field: row.get(field) for field in EXPORT_FIELDS} | {"floor_fraction": floor_fraction(row)}
            for row in rows]


def export_context(results: list[BlockResult], shares: list[BlockOpShare]) -> list[dict]:
    """A context run's block results as export rows, each with the op shares of its assignment (mage export
    --json lists them after the result rows)."""
    by_assignment: dict[tuple, list[dict]] = {}
    for share in shares:
        by_assignment.setdefault((share.block, share.precision, share.assignment), []).append(
            {k: v for k, v in dataclasses.asdict(share).items() if k not in ("block", "precision", "assignment")})
    return [dataclasses.asdict(r) | {"shares": by_assignment.get((r.block, r.precision, r.assignment), [])}
            for r in results]


def context_table(results: list[BlockResult], width: int | None = None) -> Table:
    """Predicted against measured speedup of every block, precision, path and assignment (mage.report.context),
    within ``width`` characters (every column when None)."""
    styles = {"FAIL": "bold red", "SKIP": "yellow"}
    cells = [[*row[:5], Text(row[5], style=styles.get(row[5], "green")), *row[6:]]
             for row in context.prediction_rows(results)]
    return fitted_table("model blocks: Amdahl predicted against measured speedup (µs per block call)",
                        context.PREDICTION_COLUMNS, cells, width, PREDICTIONS_FIT)


def add_literal_row(table: Table, *cells) -> None:
    """Add a row whose text is shown as written: text from the store or the command line is data, never
    rich markup (a stored '[/bold]' would crash the table, a '[link=…]' become a hyperlink)."""
    table.add_row(*(Text(cell) if isinstance(cell, str) else cell for cell in cells))


@dataclasses.dataclass(frozen=True)
class Fit:
    """How a table meets a narrow terminal: its columns most wanted first (those that fit are kept, in this
    order; the first three always); the essential ones, kept by narrowing the names rather than left out; the
    columns of names, folded onto more lines at most this wide rather than push a column of numbers out; and
    those of them that may narrow down to NAME_FLOOR for an essential column (an op's name, a word, never is)."""

    priority: tuple[str, ...]
    essential: tuple[str, ...]
    folded: dict
    narrowed: tuple[str, ...]


RESULTS_FIT = Fit(priority=("op", "case", "impl", "contract", "rel err", "kernel", "span mean", "launches", "path",
                            "cache", "floor/kernel", "host", "span rounds", "span median", "noise", "floor",
                            "in practice", "SM clock"),
                  essential=("contract", "rel err", "kernel", "span mean", "launches", "path", "cache"),
                  folded={"op": 12, "case": 20, "impl": 20}, narrowed=("case", "impl"))
# A model block's assignments: what was measured and predicted kept, then how it was judged.
PREDICTIONS_FIT = Fit(priority=("block", "precision", "assignment", "path", "status", "span median µs",
                                "measured speedup", "Amdahl predicted", "difference", "launches", "kind", "noise"),
                      essential=("path", "status", "span median µs", "measured speedup", "Amdahl predicted"),
                      folded={"block": 20, "assignment": 24}, narrowed=("assignment", "block"))
NAME_FLOOR = 6
FOLDED_FLOOR = 20  # the narrowest an essential column of text is folded to, rather than left out
# A piece of a name ending at a separator; a point between digits is a number's (CV 0.04), never a break.
NAME_BREAKS = re.compile(r"(?:[^/.\-_@ x]|(?<=\d)\.(?=\d))*[/.\-_@ x]?")


def results_table(run: dict, rows: list[StoredRow], width: int | None = None) -> Table:
    """Every result; ``width``: the characters it may take, the columns of lowest priority (RESULTS_FIT) left
    out (and named in its caption) until it fits, the names narrowed for the essential ones, the cache column
    only when its rows hold more than one cache state (the title names the one); None for every column. A number
    is never folded."""
    clocked = any(row.get("sm_clock_min_mhz") is not None for row in rows)  # runs before schema 5 have none
    noise = any(row.get("span_rse") is not None for row in rows)  # nor runs before schema 8 a span noise
    names = ["op", "case", "impl", "path", "cache", "contract", "rel err", "kernel", "launches", "host",
             "span mean", "span rounds", "span median", *(["noise"] * noise), "floor", "floor/kernel", "in practice",
             *(["SM clock"] * clocked)]
    cells = [_result_cells(run, stored, row, noise, clocked) for stored, row in zip(rows, export_rows(rows))]
    caches = {row["cache"] for row in rows}
    one_cache = width is not None and len(caches) == 1
    widths = _fitting([name for name in names if not (one_cache and name == "cache")], cells, width, names,
                      RESULTS_FIT)
    unit = "CPU wall clock" if run["clock"] == "cpu" else "GPU"
    left_out = [name for name in names if name not in widths and not (one_cache and name == "cache")]
    l2 = f" · {next(iter(caches))} L2" if one_cache else ""
    table = Table(title=Text(f"run {run['id']} · {run['status']} · {unit}{l2} · µs per call"), show_lines=False,
                  caption=Text(f"{len(left_out)} columns left out to fit {width} (--wide shows them): "
                               + ", ".join(left_out)) if left_out else None)
    for name, fitted in widths.items():
        table.add_column(name, overflow="fold", width=fitted)  # a fixed width: rich never narrows a number
    _add_fitted_rows(table, names, cells, widths, RESULTS_FIT)
    return table


def fitted_table(title: str, names: list[str], cells: list[list], width: int | None, fit: Fit) -> Table:
    """A table of ``cells`` (``names`` its columns) within ``width`` characters as ``fit`` says (every column
    when None): the columns left out named in its caption, names broken after their separators, a number never
    folded."""
    widths = _fitting(names, cells, width, names, fit)
    left_out = [name for name in names if name not in widths]
    table = Table(title=Text(title), title_justify="left",
                  caption=Text(f"{len(left_out)} columns left out to fit {width}: " + ", ".join(left_out))
                  if left_out else None)
    for name, fitted in widths.items():
        table.add_column(name, overflow="fold", width=fitted)
    _add_fitted_rows(table, names, cells, widths, fit)
    return table


def _add_fitted_rows(table: Table, names: list[str], cells: list[list], widths: dict, fit: Fit) -> None:
    for row in cells:
        add_literal_row(table, *(broken_name(cell, widths[name]) if name in fit.folded and widths[name] else cell
                                 for name, cell in zip(names, row) if name in widths))


def broken_name(name: str, width: int) -> str:
    """``name`` in lines of at most ``width`` characters, broken after a separator (/ . - _ @ x, not the point of
    a number) where one lets it be: eager/affine/ieee, not eager/aff|ine/ieee. A piece longer than ``width`` is
    folded where it must."""
    if not isinstance(name, str):
        return name
    lines = []
    for line in name.splitlines() or [""]:
        current = ""
        for piece in NAME_BREAKS.findall(line):
            if current and len(current) + len(piece) > width:
                lines.append(current)
                current = ""
            current += piece
        lines.append(current)
    return "\n".join(lines)


def _plain(cell) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def _plain_width(cell) -> int:
    return max((len(line) for line in _plain(cell).splitlines()), default=0)


def _fitting(names: list[str], cells: list[list], width: int | None, columns: list[str],
             fit: Fit) -> dict[str, int | None]:
    """Of ``names`` (``columns``, the cells' columns, or some of them), those kept with the width of their text:
    all, at their own width, without a ``width``; else the most wanted whose cells fit it, a column of ``fit``'s
    folded names at most its cap and its narrowed ones (the widest first, to NAME_FLOOR) to keep an essential
    column; never a column that holds nothing, such as kernel time on the CPU. A header folds at its spaces:
    "span mean" takes 4."""
    if width is None:
        return {name: None for name in names}
    index = {name: columns.index(name) for name in names}
    header = {name: max(len(name), *(len(word) for word in name.split())) if name in fit.folded
              else max(len(word) for word in name.split()) for name in names}
    natural = {name: max([header[name], *(_plain_width(row[index[name]]) for row in cells)]) for name in names}
    empty = {name for name in names if all(_plain(row[index[name]]) in ("", "—") for row in cells)}
    kept: dict[str, int] = {}
    for name in sorted(names, key=fit.priority.index):
        if name in empty:  # nothing measured there (kernel time on the CPU): named in the caption instead
            continue
        wanted = min(natural[name], fit.folded.get(name, natural[name]))
        over = 1 + sum(w + 3 for w in kept.values()) + wanted + 3 - width  # a cell's padding and border
        if name in fit.essential:
            if name in fit.folded and over > 0:  # an essential text (a history's steps) folds onto more lines first
                folded_by = min(over, max(wanted - FOLDED_FLOOR, 0))
                wanted, over = wanted - folded_by, over - folded_by
            over = _narrow_names(kept, over, fit.narrowed)
        if over <= 0 or len(kept) < 3:  # op, case and implementation always
            kept[name] = wanted
    return {name: kept[name] for name in names if name in kept}


def _narrow_names(kept: dict[str, int], over: int, narrowed: tuple[str, ...]) -> int:
    """Take up to ``over`` characters from the widest kept name columns, none below NAME_FLOOR, only if that is
    enough; what is still over (nothing narrowed then)."""
    room = sum(max(kept[name] - NAME_FLOOR, 0) for name in narrowed if name in kept)
    if over <= 0 or room < over:
        return over
    while over > 0:
        widest = max((name for name in narrowed if name in kept), key=kept.get)
        kept[widest] -= 1
        over -= 1
    return 0


def _result_cells(run: dict, stored: StoredRow, row: dict, noise: bool, clocked: bool) -> list:
    if row["status"] == "skip":
        contract = Text("skip", style="yellow")
    elif row["contract"] == "fail" or row["status"] == "fail":
        contract = Text("FAIL", style="bold red")
    else:
        contract = Text.assemble(("pass", "green"), *([" ", ("SUSPECT", "bold magenta")] * bool(row["suspect"])))
    return [
        row["op"], case_label(stored), row["impl"], row["path"], row["cache"], contract,
        "—" if row["rel_error"] is None else f"{row['rel_error']:.1e}",
        us(row["kernel_us"]), "—" if row["launches"] is None else f"{row['launches']:g}",
        with_range(row["host_us"], row["host_min_us"], row["host_max_us"]), us(row["span_mean_us"]),
        range_of(row["span_round_min_us"], row["span_round_max_us"]), us(row["span_median_us"]),
        *([_noise_cell(row)] * noise), _floor_cell(row),
        "—" if row["floor_fraction"] is None else f"{row['floor_fraction']:.0%}",
        _in_practice_cell(run["ceilings"], row),
        *([_clock_cell(row)] * clocked),
    ]


def case_label(row: StoredRow) -> str:
    """The case's name, and under it the degree skew of its graph where the case stored one."""
    stats = json.loads(row.get("case_stats") or "null")
    if not stats or "max_degree" not in stats:
        return row["case"]
    return (f"{row['case']}\ndegree max {stats['max_degree']:,}\nmean {stats['mean_degree']:.1f} · CV {stats['cv']:.2f}"
            f"\nGini {stats['gini']:.2f}")


def _noise_cell(row: dict) -> Text:
    """The span mean's relative standard error; marked noisy when sampling stopped at its cap above target."""
    if row.get("span_rse") is None:
        return Text("—")
    if row.get("noisy"):
        return Text(f"{row['span_rse']:.2%} noisy", style="bold magenta")
    return Text(f"{row['span_rse']:.2%}")


def _floor_cell(row: dict) -> str:
    """The hardware floor with the kind that sets it; a run stored before schema 10 shows its floor from the
    run's measured rates, labelled so: another measure than the hardware floor."""
    kind = floor_kind(row)
    if row["floor_us"] is None:
        return us(None)
    return us(row["floor_us"]) + (f" {kind}" if kind else " (measured rates)")


def _in_practice_cell(ceilings: dict, row: dict) -> str:
    """A passing result's time at the rates measured in the run (copy, library matmul)."""
    if row["status"] != "pass" or row["flops"] is None or row["bytes"] is None:
        return "—"
    return us(in_practice_us(ceilings, row["flops"], row["bytes"], row["precision"]))


def ceilings_line(ceilings: dict) -> str | None:
    """The device's peaks (the floors) and the rates measured in the run (reached in practice), one line."""
    if not ceilings:
        return None
    peaks = [f"{name} {ceilings[key]:,.1f} TFLOP/s" for name, key in
             (("FP32", "peak_fp32_tflops"), ("tf32", "peak_tf32_tflops"), ("bf16", "peak_bf16_tflops"),
              ("fp16", "peak_fp16_tflops")) if key in ceilings]
    if "peak_hbm_gbps" in ceilings:
        peaks.append(f"HBM {ceilings['peak_hbm_gbps']:,.0f} GB/s")
    line = ("peaks (floors): " + " · ".join(peaks) + " | ") if peaks else ""
    line += (f"reached in practice: copy {ceilings['copy_gbps']:,.0f} GB/s · matmul ieee "
             f"{ceilings['matmul_ieee_tflops']:.1f} TFLOP/s · tf32 {ceilings['matmul_tf32_tflops']:.1f} TFLOP/s")
    return line + (f" | {ceilings['peak_note']}" if ceilings.get("peak_note") else "")


def _clock_cell(row: dict) -> Text:
    return Text(clock_range(row), style="bold magenta" if row.get("clock_events") else "")


def failures_table(rows: list[StoredRow]) -> Table | None:
    """Failed and skipped rows with their reasons, timed rows whose contract failed (a library's, on non-finite
    inputs: check.timed_despite), and passing rows whose time is suspect (mage.suspect)."""
    listed = [(r, r["status"], r["reason"]) for r in rows if r["status"] in ("fail", "skip")]
    listed += [(r, "fail", r["reason"]) for r in rows
               if r["status"] == "pass" and r["contract"] == "fail"]
    listed += [(r, "suspect", f"{r['path']}/{r['cache']}: {r['suspect']}") for r in rows
               if r["status"] == "pass" and r.get("suspect")]
    if not listed:
        return None
    seen, table = set(), Table(title="failed, skipped and suspect", show_lines=False)
    for column in ("op", "case", "impl", "status", "reason"):
        table.add_column(column, overflow="fold")
    styles = {"fail": "bold red", "skip": "yellow", "suspect": "bold magenta"}
    for row, status, reason in listed:
        key = (row["op"], row["case"], row["impl"], status, reason)
        if key in seen:
            continue
        seen.add(key)
        add_literal_row(table, row["op"], row["case"], row["impl"], Text(status, style=styles[status]), reason or "")
    return table


def runs_table(runs: list[dict]) -> Table:
    table = Table(title="stored runs")
    for column in ("run", "started", "status", "clock", "suite", "device", "commit", "results"):
        table.add_column(column)
    for run in runs:
        env = run["env"]
        commit = commit_label(env, missing="")
        add_literal_row(table, str(run["id"]), run["started_at"], run["status"], run["clock"], run["suite"],
                        env.get("gpu") or env.get("host_cpu") or "", commit,
                        str(run["result_count"]) + (f" + {run['block_count']} block" if run.get("block_count") else ""))
    return table


def hold_numbers(table: Table, *names: str) -> Table:
    """Fix the columns ``names`` (of numbers) at their widest cell, so that rich narrows the other columns around
    them and never folds a number across lines; a header wider than its numbers folds at its spaces."""
    for column in table.columns:
        if column.header in names:
            words = [len(word) for word in str(column.header).split()]
            column.width = max([*words, *(_plain_width(cell) for cell in column.cells)])
    return table
