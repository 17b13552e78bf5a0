"""Run chosen neighbor_agg cases in the order given, one stored run (scripts/gpu/nbr-study.sh; GPU only).

`mage run` has no case filter and runs a suite in the spec's order; the study's budget fits only part of
it, so this plans the request as `mage run` would, keeps the cases that argument 2 (JSON) names, in its
order (the highest-value first), and stores the run with its hypothesis and predictions, recorded at the
first step so that a run cut by its timeout keeps them (it stays incomplete).

    python3 scripts/gpu/nbr_study_cases.py DB '{"what": …, "suites": […], "cases": […], "impls": […],
        "budget": 0.05, "min_samples": 20, "hypothesis": …, "predict": […]}'
"""

import json
import sys

from mage import experiments, registry
from mage.measure.method import Method
from mage.plan import Request, fresh_method, plan
from mage.runner import Runner
from mage.store import Store

db, job = sys.argv[1], json.loads(sys.argv[2])
request = Request(suites=job["suites"], ops=["neighbor_agg"], impls=job["impls"], paths=["single"], caches=["cold"],
                  device="cuda", method=fresh_method(Method(budget_s=job["budget"], min_samples=job["min_samples"])))
planned = {p.case.name: p for p in plan(request)}
missing = [name for name in job["cases"] if name not in planned]
if missing:
    sys.exit(f"cases not in the suites {job['suites']}: {', '.join(missing)}")
work = [planned[name] for name in job["cases"]]
print("cases:", [(p.case.name, [i.name for i in p.impls]) for p in work], flush=True)
predictions = experiments.parse_all(job["predict"], registry.ops())
experiments.validate(predictions, request)
store = Store(db)
runner = Runner(store, request, "scripts/gpu/nbr-study.sh: " + job["what"], None)
recorded = []


def on_progress(step):
    if not recorded:
        store.set_experiment(runner.run_id, job["hypothesis"], [p.text for p in predictions])
        recorded.append(runner.run_id)
    print(step, flush=True)


runner.on_progress = on_progress
run_id = runner.run(work)
for row in store.rows(run_id):
    print(row["case"], row["impl"], row["cache"], row["status"], row.get("kernel_us"), row.get("launches"),
          row.get("reason") or "", flush=True)
print("run", run_id, flush=True)
