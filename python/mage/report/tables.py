"""Plain tables of a stored run, for the terminal (rich) and for export."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from mage.report.format import clock_range, commit_label, us, with_range

EXPORT_FIELDS = (
    "op", "case", "suite", "impl", "backend", "variant", "precision", "path", "cache", "clock", "status",
    "contract", "reason", "rel_error", "eager_error", "kernel_us", "launches", "host_us", "host_min_us",
    "host_max_us", "span_mean_us", "span_median_us", "span_round_min_us", "span_round_max_us", "span_samples",
    "calls_per_sample", "span_rse", "noisy",
    "floor_us", "floor_fraction", "flops", "bytes", "kernel_names", "suspect",
    "sm_clock_min_mhz", "sm_clock_max_mhz", "clock_events", "tuning",
)


def export_rows(rows: list[dict]) -> list[dict]:
    """The stored results with every export field; floor_fraction = floor / kernel time."""
    out = []
    for row in rows:
        fraction = None
        if row.get("floor_us") and row.get("kernel_us"):
            fraction = row["floor_us"] / row["kernel_us"]
        out.append({field: row.get(field) for field in EXPORT_FIELDS} | {"floor_fraction": fraction})
    return out


def add_literal_row(table: Table, *cells) -> None:
    """Add a row whose text is shown as written: text from the store or the command line is data, never
    rich markup (a stored '[/bold]' would crash the table, a '[link=…]' become a hyperlink)."""
    table.add_row(*(Text(cell) if isinstance(cell, str) else cell for cell in cells))


def results_table(run: dict, rows: list[dict]) -> Table:
    unit = "CPU wall clock" if run["clock"] == "cpu" else "GPU"
    table = Table(title=Text(f"run {run['id']} · {run['status']} · {unit} · µs per call"), show_lines=False)
    clocked = any(row.get("sm_clock_min_mhz") is not None for row in rows)  # runs before schema 5 have none
    noise = any(row.get("span_rse") is not None for row in rows)  # nor runs before schema 8 a span noise
    for column in ("op", "case", "impl", "path", "cache", "contract", "rel err", "kernel", "launches", "host",
                   "span mean [round min–max]", "span median", *(["noise"] * noise), "floor", "floor/kernel",
                   *(["SM clock"] * clocked)):
        table.add_column(column, overflow="fold")
    for row in export_rows(rows):
        if row["status"] == "skip":
            contract = Text("skip", style="yellow")
        elif row["contract"] == "fail" or row["status"] == "fail":
            contract = Text("FAIL", style="bold red")
        else:
            contract = Text.assemble(("pass", "green"), *([" ", ("SUSPECT", "bold magenta")] * bool(row["suspect"])))
        add_literal_row(
            table, row["op"], row["case"], row["impl"], row["path"], row["cache"], contract,
            "—" if row["rel_error"] is None else f"{row['rel_error']:.1e}",
            us(row["kernel_us"]), "—" if row["launches"] is None else f"{row['launches']:g}", with_range(row["host_us"], row["host_min_us"], row["host_max_us"]),
            with_range(row["span_mean_us"], row["span_round_min_us"], row["span_round_max_us"]), us(row["span_median_us"]),
            *([_noise_cell(row)] * noise), us(row["floor_us"]),
            "—" if row["floor_fraction"] is None else f"{row['floor_fraction']:.0%}",
            *([_clock_cell(row)] * clocked),
        )
    return table


def _noise_cell(row: dict) -> Text:
    """The span mean's relative standard error; marked noisy when sampling stopped at its cap above target."""
    if row.get("span_rse") is None:
        return Text("—")
    if row.get("noisy"):
        return Text(f"{row['span_rse']:.2%} noisy", style="bold magenta")
    return Text(f"{row['span_rse']:.2%}")


def _clock_cell(row: dict) -> Text:
    return Text(clock_range(row), style="bold magenta" if row.get("clock_events") else "")


def failures_table(rows: list[dict]) -> Table | None:
    """Failed and skipped rows with their reasons, and passing rows whose time is suspect (mage.suspect)."""
    listed = [(r, r["status"], r["reason"]) for r in rows if r["status"] in ("fail", "skip")]
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
                        env.get("gpu") or env.get("host_cpu") or "", commit, str(run["result_count"]))
    return table
