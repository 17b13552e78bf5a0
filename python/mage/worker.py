"""One case of an isolated run, in a process of its own: ``python -m mage.worker JOB`` (mage.isolation).

JOB is JSON: the run as the parent read it from its store (id, command, method with the request,
ceilings), the case key and the names of the implementations to run. The worker plans the case again
from the run's request and runs it with Runner.run_case as a plain run does; what it would store it
writes on stdout instead, one JSON line per message, for the parent, the store's one writer:
each step (PROGRESS, mage.progress.Step) and each row (ROW). Needing no store, a worker can run
wherever the parent can start it: pinned to one GPU of this host, or on another machine.
"""

from __future__ import annotations

import dataclasses
import json
import sys

from mage import resume
from mage.errors import DeviceLost
from mage.plan import plan
from mage.runner import Runner
from mage.store import Result

PROGRESS = "mage-progress: "  # marks the worker's step lines among anything a kernel prints
ROW = "mage-row: "  # marks a row the parent is to store


class RowStream:
    """The part of a Store that Runner.run_case writes with, sent to the parent as ROW lines: a row names
    its case by key and its implementation by name, which the parent maps to its store's ids."""

    def __init__(self):
        self.case_stats: dict[str, dict | None] = {}  # the facts the spec computed about each case's inputs

    def case_id(self, run_id: int, case, stats: dict | None = None) -> str:
        self.case_stats[case.key] = stats
        return case.key

    def impl_id(self, run_id: int, impl) -> str:
        return impl.name

    def add_result(self, run_id: int, case_id: str, impl_id: str, result: Result, samples=()) -> None:
        message = {"case": case_id, "impl": impl_id, "result": dataclasses.asdict(result),
                   "samples": [list(sample) for sample in samples], "case_stats": self.case_stats.get(case_id)}
        print(ROW + json.dumps(message), flush=True)  # one write: a worker killed mid-line sends no row


def read_row(line: str) -> tuple[str, str, Result, list[tuple[int, float]], dict | None] | None:
    """(case key, implementation name, result, samples, the case's statistics) of a ROW line; None for a
    line cut short."""
    try:
        message = json.loads(line[len(ROW):])
        return (message["case"], message["impl"], Result(**message["result"]),
                [(int(r), float(v)) for r, v in message["samples"]], message.get("case_stats"))
    except (ValueError, KeyError, TypeError):
        return None


def main(job: dict) -> None:
    run = job["run"]
    request = resume.request_of(run)
    planned = next(p for p in plan(request) if p.case.key == job["case"])
    planned.impls = [impl for impl in planned.impls if impl.name in job["impls"]]
    runner = Runner(RowStream(), request, run["command"], lambda step: print(PROGRESS + step.to_json(), flush=True))
    runner.attach(run)
    try:
        runner.run_case(planned)
    except DeviceLost as lost:  # the culprit's row is sent; the parent goes on in a fresh worker
        sys.exit(f"{lost}")


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
