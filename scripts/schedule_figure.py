"""neighbor_agg's schedule figure over several runs of one store (the neighbor-aggregation study in results/README.md).

    python3 scripts/schedule_figure.py DB OUT_DIR RUN [RUN …] [--only SCHEDULE,SCHEDULE…]

Each run's ratios are taken against the cuSPARSE row of that same run (report.schedule.study), then the
runs are joined, a later run's ratio replacing an earlier one's for the same schedule, graph and width:
the schedule study was measured in pieces (a call's time limit), and no single run holds every graph.
--only keeps the named schedules (implementation names without the precision, e.g. native.merge/sum): with
every variant drawn, fifteen lines share one panel. Writes schedule.png into OUT_DIR.
"""

import sys
from pathlib import Path

from mage.report import figures, schedule
from mage.store import Store

args = sys.argv[1:]
only = None
if "--only" in args:
    at = args.index("--only")
    only, args = set(args[at + 1].split(",")), args[:at] + args[at + 2:]
db, out_dir, runs = args[0], Path(args[1]), [int(run) for run in args[2:]]
store = Store(db)
studies = [found for run in runs if (found := schedule.study(store.rows(run))) is not None]
if not studies:
    sys.exit(f"no schedule-suite rows beside cuSPARSE in runs {runs}")
if len({found.cache for found in studies}) > 1:
    sys.exit("the runs measured the study at different L2 states; name runs of one")
ratio, cv = {}, {}
for found in studies:
    ratio.update({key: value for key, value in found.ratio.items() if only is None or key[0] in only})
    cv.update(found.cv)
if not ratio:
    sys.exit(f"none of {sorted(only)} was measured in runs {runs}")
cv = {graph: value for graph, value in cv.items() if any(g == graph for _, g, _ in ratio)}
joined = schedule.Study(studies[0].cache, sorted({w for _, _, w in ratio}), sorted(cv, key=cv.get), cv, ratio)
out_dir.mkdir(parents=True, exist_ok=True)
paths = figures.save(schedule.static(joined), store.run(runs[-1]), out_dir, "schedule", ("png",))
print("\n".join(map(str, paths)))
print("\n".join(joined.winners()))
