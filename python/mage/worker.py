"""One case of an isolated run, in a process of its own: ``python -m mage.worker JOB`` (mage.isolation).

JOB is JSON: the store's path, the run id, the pid of the process owning the run's claim, the case key and the names of the implementations to run.
The worker plans the case again from the request stored with the run, runs it with Runner.run_case
as a plain run does (storing its own rows, on behalf of the parent that owns the run's claim), and
reports each step on stdout, one JSON line after PROGRESS (mage.progress.Step), for the parent to follow.
"""

from __future__ import annotations

import json
import sys

from mage import resume
from mage.errors import DeviceLost
from mage.plan import plan
from mage.runner import Runner
from mage.store import Store

PROGRESS = "mage-progress: "  # marks the worker's step lines among anything a kernel prints


def main(job: dict) -> None:
    store = Store(job["db"])
    store.act_for(job["owner_pid"])  # the parent owns the run's claim; this worker stores its rows for it
    run = store.run(job["run_id"])
    request = resume.request_of(run)
    planned = next(p for p in plan(request) if p.case.key == job["case"])
    planned.impls = [impl for impl in planned.impls if impl.name in job["impls"]]
    runner = Runner(store, request, run["command"], lambda step: print(PROGRESS + step.to_json(), flush=True))
    runner.attach(run)
    try:
        runner.run_case(planned)
    except DeviceLost as lost:  # the culprit's rows are stored; the parent goes on in a fresh worker
        sys.exit(f"{lost}")


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
