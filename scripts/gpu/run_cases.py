"""A `mage run` of chosen cases, for the GPU fragments (mage run has no case filter).

    python3 scripts/gpu/run_cases.py DB JOB_JSON

Plans the request in JOB_JSON as `mage run` would (keys: what, suites, ops, impls, caches, budget,
min_samples, hypothesis, predict; optional cases, min_cols, compile_cols), keeps the cases it names in
the order named (the highest-value first; a name no suite has is refused), or else those at least
min_cols wide, widest first, runs torch.compile only at compile_cols, and stores the run
into DB with its hypothesis and predictions, recorded at the first step so that a run cut by its timeout
keeps them (it stays incomplete). Prints each finished row.
"""

import json
import sys

from mage import experiments, registry
from mage.measure.method import Method
from mage.plan import Request, fresh_method, plan
from mage.runner import Runner
from mage.store import Store

db, job = sys.argv[1], json.loads(sys.argv[2])
request = Request(suites=job["suites"], ops=job["ops"], impls=job["impls"], paths=["single"], caches=job["caches"],
                  device="cuda", method=fresh_method(Method(budget_s=job["budget"], min_samples=job["min_samples"])))
planned_cases = plan(request)
if "cases" in job:
    # A name may belong to several ops' cases (the reduction study's shapes): each op's case runs.
    named = {p.case.name for p in planned_cases}
    if missing := [name for name in job["cases"] if name not in named]:
        sys.exit(f"cases not in the suites {job['suites']}: {', '.join(missing)}")
    work = [p for name in job["cases"] for p in planned_cases if p.case.name == name]
else:
    work = [p for p in planned_cases if p.case.params.get("cols", 0) >= job.get("min_cols", 0)]
    work.sort(key=lambda planned: -planned.case.params.get("cols", 0))  # the widest (the targets) first
for planned in work:
    cols = planned.case.params.get("cols", 0)
    planned.impls = [i for i in planned.impls if i.family != "compile" or cols == job.get("compile_cols")]
print("cases:", [(p.case.op, p.case.name, [i.name for i in p.impls]) for p in work], flush=True)
predictions = experiments.parse_all(job["predict"], registry.ops())
experiments.validate(predictions, request)
store = Store(db)
runner = Runner(store, request, "scripts/gpu/run_cases.py: " + job["what"], None)
recorded = []


def on_progress(step):
    if not recorded:
        store.set_experiment(runner.run_id, job["hypothesis"], [p.text for p in predictions])
        recorded.append(runner.run_id)
    print(step, flush=True)


runner.on_progress = on_progress
run_id = runner.run(work)
for row in store.rows(run_id):
    print(row["op"], row["case"], row["impl"], row["cache"], row["status"], row.get("kernel_us"), row.get("reason") or "",
          flush=True)
print("run", run_id, flush=True)
