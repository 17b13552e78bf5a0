# neighbor_agg (issue #17): deterministic kernels against cuSPARSE, and the scheduling study.
# Sourced by scripts/h200.sh after its setup (repo root as cwd, PYTHONPATH set, $out, $db, mage());
# not executable by itself. Writes only under $out/nbr/; every step is bounded so that the whole
# fragment ends within 240 s, and none stops the others.
nbr=$out/nbr
mkdir -p "$nbr"
nbr_start=$SECONDS
# Seconds a step may take: its own cap, or what is left of the 240 s (less 8 s for the exports), if less.
nbr_cap() {
    local left=$((232 - (SECONDS - nbr_start)))
    if [ "$left" -lt 1 ]; then left=1; fi
    if [ "$1" -lt "$left" ]; then echo "$1"; else echo "$left"; fi
}
nbr_step() { echo "== $(date -u +%T) +$((SECONDS - nbr_start))s: $*" | tee -a "$nbr/steps.log"; }

# 1. GPU tests: bit-identity and contracts of every deterministic implementation (full log).
nbr_step "gpu tests"
timeout -s TERM "$(nbr_cap 25)" python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_neighbor_agg_gpu.py \
    > "$nbr/gpu-tests.log" 2>&1 || echo "gpu tests: exit $?" | tee -a "$nbr/steps.log"

# 2. The study: every native schedule (sum; mean differs only in its last division) beside cuSPARSE on
#    the schedule suite, cold L2 (Triton, which autotunes per graph for seconds, is left to step 3).
nbr_step "schedule study"
timeout -s TERM "$(nbr_cap 90)" python3 -m mage run --db "$db" --suite schedule --op neighbor_agg \
    --impl native/sum --impl native.warp/sum --impl native.block/sum --impl native.edge/sum --impl native.split/sum \
    --impl native.sorted/sum --impl cusparse --path single --cold --budget 0.05 --min-samples 30 \
    --hypothesis "Uneven degrees decide the schedule: one owner per row is best until one row outlasts the grid (the hub), where only splitting rows over blocks (pieces, merge path) keeps every SM busy; a whole block per row wastes lanes on the median row of 5-16 edges" \
    --predict "neighbor_agg/native/sum/ieee[single/cold]:kernel<=1.0*cusparse/sum/ieee" \
    --predict "neighbor_agg/native/sum/ieee[single/cold]:launches<=1" \
    --predict "neighbor_agg/native.warp/sum/ieee@hub-64k-F128[single/cold]:kernel>2*native/sum/ieee" \
    --predict "neighbor_agg/native.edge/sum/ieee@hub-64k-F128[single/cold]:kernel<0.5*native.warp/sum/ieee" \
    --predict "neighbor_agg/native.block/sum/ieee@powerlaw2.1-64k-F128[single/cold]:kernel>1.5*native.warp/sum/ieee" \
    --predict "neighbor_agg/native.sorted/sum/ieee@uniform-64k-F128[single/cold]:kernel>native/sum/ieee" \
    --predict "neighbor_agg/native/sum/ieee@uniform-64k-F32[single/cold]:kernel<=native.warp/sum/ieee" \
    > "$nbr/study.log" 2>&1 || echo "study: exit $?" | tee -a "$nbr/steps.log"

# 3. The large power-law case beside cuSPARSE: scripts/gpu/nbr-large.sh (native, the two-pass schedules
#    and Triton in one isolated run), so it is written once.
nbr_step "large power-law case"
mkdir -p "$out/nbr-large"
source scripts/gpu/nbr-large.sh || echo "large: exit $?" | tee -a "$nbr/steps.log"

# 4. The reordering step of native.sorted alone (it is inside that strategy's timed call): argsort of the
#    degrees on the device, CUDA events around 20 warmed calls, per graph.
nbr_step "reorder cost"
timeout -s TERM "$(nbr_cap 7)" python3 - > "$nbr/reorder.txt" 2>&1 <<'EOF' || echo "reorder: exit $?" | tee -a "$nbr/steps.log"
import torch
from mage import registry
registry.load()
spec = registry.get_op("neighbor_agg")
for case in spec.cases():
    if case.suite not in ("schedule", "large") or case.params["features"] not in (128,):
        continue
    rowptr = spec.make_inputs(case, case.seed, "cuda")[0]
    reorder = lambda: torch.argsort(rowptr.diff(), descending=True, stable=True).to(rowptr.dtype)
    for _ in range(3):
        reorder()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(20):
        reorder()
    end.record()
    end.synchronize()
    print(f"{case.name}: reorder (argsort of {rowptr.numel() - 1} degrees) {start.elapsed_time(end) / 20 * 1000:.1f} us per call")
EOF

# 5. ncu: the best and the worst native schedule (sum, by kernel time in the study) on the power-law and hub
#    graphs at F 128, and native sum against native mean on the large case (the inversion of issue #17:
#    registers, occupancy, DRAM throughput and stalls side by side). One warmed call each.
nbr_step "ncu"
picks=$(python3 - "$db" <<'EOF' 2>> "$nbr/steps.log"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for case in ("powerlaw2.1-64k-F128", "hub-64k-F128"):
    rows = db.execute("""SELECT i.name, r.kernel_us FROM results r JOIN cases c ON c.id = r.case_id
                         JOIN implementations i ON i.id = r.impl_id
                         WHERE c.name = ? AND i.family = 'native' AND i.variant = 'sum' AND r.kernel_us IS NOT NULL
                           AND r.run_id = (SELECT MAX(run_id) FROM cases WHERE name = ?)
                         ORDER BY r.kernel_us""", (case, case)).fetchall()
    if rows:
        print(case, rows[0][0], "best")
        print(case, rows[-1][0], "worst")
EOF
)
echo "$picks" > "$nbr/ncu-picks.txt"
# The inversion first, then the picks, as far as the time left allows (~12 s a capture).
printf '%s\n' "powerlaw-1M-16M-F128 native/sum/ieee inversion" "powerlaw-1M-16M-F128 native/mean/ieee inversion" "$picks" |
while read -r case impl why; do
    [ -n "$case" ] || continue
    name=$(echo "$case-$impl" | tr '/.' '__')
    timeout -s TERM "$(nbr_cap 12)" ncu --clock-control none --profile-from-start off --kernel-name regex:neighbor_agg \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats \
        --section Occupancy --section SchedulerStats \
        --metrics sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
        -o "$nbr/$name" -f python3 scripts/profile_one.py neighbor_agg "$impl" "$case" > "$nbr/$name.log" 2>&1 ||
        echo "ncu $case $impl ($why): exit $?" | tee -a "$nbr/steps.log"
    if [ -f "$nbr/$name.ncu-rep" ]; then
        ncu --import "$nbr/$name.ncu-rep" --page details > "$nbr/$name.txt" 2>&1 || true
        rm -f "$nbr/$name.ncu-rep"  # the text travels back; the binary report would outgrow the store's limit
    fi
done

python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db" || true
mage export --json --db "$db" > "$nbr/rows.json" 2>> "$nbr/steps.log" || true
nbr_step "done"
