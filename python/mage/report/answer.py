"""The answer as a terminal table: a line per op, case, variant and precision, a column per boundary
(mage.best), each cell the fastest implementation with its time and its ratios to eager, to the
fastest library implementation, to the fastest peer where that is another, and to Mage's own fastest kernel
where something else leads."""

from __future__ import annotations

from itertools import groupby

from rich.table import Table

from mage.best import BOUNDARIES, Answer, Measured
from mage.report.format import us


def _backend(measured: Measured) -> str:
    """The name's first part (family.strategy): the line already says the variant and precision."""
    return measured.impl.split("/", 1)[0]


def _ratio(answer: Answer, other: Measured | None, ratio: float | None, label: str) -> str | None:
    if other is None or other.impl == answer.fastest.impl:
        return None
    return f"≈ {label}" if answer.same_as(other) else f"{ratio:.2f}× {label}"


def cell(answer: Answer | None, provenance: bool) -> str:
    if answer is None:
        return "—"
    ratios = [_ratio(answer, answer.eager, answer.vs_eager, "eager"),
              _ratio(answer, answer.library, answer.vs_library, _backend(answer.library) if answer.library else "")]
    if answer.peer and answer.peer is not answer.library:  # the peer a user would pick, where compile or cuSPARSE led
        ratios.append(_ratio(answer, answer.peer, answer.vs_peer, _backend(answer.peer)))
    if answer.own:  # where a library or eager leads: how far behind Mage's own best is
        ratios.append(_ratio(answer, answer.own, answer.vs_own, f"Mage's {_backend(answer.own)}"))
    lines = [_backend(answer.fastest), "fails its contract" if answer.fastest.failed_contract else None,
             f"{us(answer.fastest.value)} µs", *ratios]  # a number a line: never broken
    named = {m.impl for m in (answer.eager, answer.library, answer.peer, answer.own) if m}  # said by a ratio line above
    if others := [m for m in answer.within_noise if m.impl not in named]:
        lines.append("≈ " + ", ".join(_backend(m) for m in others))
    if provenance and answer.fastest.run_id is not None:
        lines.append(f"run {answer.fastest.run_id}, {(answer.fastest.started_at or '')[:10]}")
    return "\n".join(line for line in lines if line)


class Lines(dict):
    """(device, op, case, variant, precision, cache) -> {boundary: Answer}, in that order; ``devices``, the device
    models among them (one store may hold several machines' runs)."""

    devices: set[str]


def lines(answers: list[Answer]) -> Lines:
    def key(answer: Answer):
        return answer.device, answer.op, answer.case, answer.variant, answer.precision, answer.cache

    out = Lines((line, {answer.boundary: answer for answer in group})
                for line, group in groupby(sorted(answers, key=key), key=key))
    out.devices = {answer.device for answer in answers}
    return out


def answer_table(answers: list[Answer], title: str, provenance: bool = False) -> Table:
    """One row per (device, op, case, variant, precision); ``provenance`` adds each cell's run and date."""
    table = Table(title=title, show_lines=True)
    table.add_column("op", overflow="fold")
    table.add_column("case", overflow="fold")
    for boundary in BOUNDARIES:
        table.add_column(f"fastest by {boundary}", overflow="fold")
    found = lines(answers)
    for (device, op, case, variant, precision, cache), by_boundary in found.items():
        on = f"\n{device}" if len(found.devices) > 1 else ""
        table.add_row(f"{op}\n{variant} {precision}", f"{case}\n{cache} L2{on}",
                      *(cell(by_boundary.get(boundary), provenance) for boundary in BOUNDARIES))
    return table
