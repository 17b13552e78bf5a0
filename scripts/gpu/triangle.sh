# triangle (issue #16): triton.channel on every layout, the layout experiment, N 768 / 1024, ncu.
# Sourced by scripts/h200.sh after its setup (repo root as cwd, PYTHONPATH set, $out, $db, mage());
# not executable by itself. Writes only under $out/triangle/; every step is bounded so that the whole
# fragment ends within 150 s, and none stops the others.
tri=$out/triangle
mkdir -p "$tri"
tri_start=$SECONDS
# Seconds a step may take: its own cap, or what is left of the 150 s (less 4 s for the export), if less.
tri_cap() {
    local left=$((146 - (SECONDS - tri_start)))
    if [ "$left" -lt 1 ]; then left=1; fi
    if [ "$1" -lt "$left" ]; then echo "$1"; else echo "$left"; fi
}
tri_step() { echo "== $(date -u +%T) +$((SECONDS - tri_start))s: $*" | tee -a "$tri/steps.log"; }

# 1. GPU tests: triton.channel's contracts (tf32 rounding included) on every layout, which also fill
#    Triton's cache with the kernels the run autotunes; then native.c4's contracts on the edge shapes,
#    graph capture and streams of tests/test_native_gpu.py (full logs).
tri_step "gpu tests"
timeout -k 2 "$(tri_cap 25)" python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_triangle_gpu.py \
    > "$tri/gpu-tests.log" 2>&1 || echo "gpu tests: exit $?" | tee -a "$tri/steps.log"
timeout -k 2 "$(tri_cap 8)" python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_native_gpu.py \
    -k "triangle and c4 and not large" > "$tri/gpu-tests-native.log" 2>&1 || echo "native gpu tests: exit $?" | tee -a "$tri/steps.log"

# 2. The run: seed, large, the layout cases and N 768 / 1024 (they come first in the sweep), cold L2 and
#    warm, single path, in-process (worker start-ups would cost seconds a case); outgoing only but for
#    triton.channel tf32, whose incoming variant meets k contiguous in the other channel-first layout.
#    Stopped by SIGTERM at its cap, it keeps its finished cases (marked incomplete).
tri_step "run"
timeout -k 5 -s TERM "$(tri_cap 78)" python3 -m mage run --db "$db" --suite seed --suite large --suite sweep --op triangle \
    --impl eager/outgoing --impl native/outgoing --impl native.c4/outgoing --impl triton.split/outgoing \
    --impl triton.channel/outgoing/tf32 --impl triton.channel/incoming/tf32 --impl triton.channel/outgoing/ieee \
    --path single --cold --budget 0.05 --min-samples 10 --no-isolate \
    --hypothesis "Layout decides what the contraction can reuse. Channel-first with k contiguous makes every channel a dense K-major matrix product, so one 2-D dot per channel (triton.channel) runs as a batched matmul (wgmma on swizzled shared tiles, whole 32-byte sectors) and beats eager's permute-bmm-permute; with the row index contiguous the operands arrive M-major and cost a little more; channel-last hands each SM whole sectors for single floats (8x the bytes its dots use), so the same kernel is slowest there. The layout cases time the contraction alone: the caller's transposition is made when the inputs are drawn. Native ieee: 4 channels a block (native.c4, 256 threads) lets two blocks share an SM, so one block's barrier no longer idles it, which outweighs the half-sector rows it loads." \
    --predict "triangle/native.c4/outgoing/ieee@B1-N512-C128[single/cold]:kernel<0.85*native/outgoing/ieee" \
    --predict "triangle/triton.channel/outgoing/tf32@B1-N512-C128-channel-first[single/cold]:kernel<270" \
    --predict "triangle/triton.channel/incoming/tf32@B1-N512-C128-channel-first-transposed[single/cold]:kernel<270" \
    --predict "triangle/triton.channel/outgoing/tf32@B1-N512-C128-channel-first[single/cold]:kernel<=1.5*eager/outgoing/tf32" \
    --predict "triangle/triton.channel/outgoing/tf32@B1-N512-C128-channel-first-transposed[single/cold]:kernel<400" \
    --predict "triangle/triton.channel/outgoing/tf32@B1-N512-C128[single/cold]:kernel>600" \
    --predict "triangle/triton.channel/outgoing/ieee@B1-N512-C128-channel-first[single/cold]:kernel<1000" \
    --predict "triangle/eager/outgoing/tf32@B1-N512-C128-channel-first[single/cold]:kernel<500" \
    > "$tri/run.log" 2>&1 || echo "run: exit $?" | tee -a "$tri/steps.log"

tri_run=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM runs").fetchone()[0])' "$db" 2>> "$tri/steps.log")
echo "run id: $tri_run" | tee -a "$tri/steps.log"

# 3. ncu on the best and the worst layout of triton.channel tf32 outgoing at N 512 (by cold kernel time in
#    this run): DRAM throughput, tensor-pipe activity, L2 hit rate, registers, achieved occupancy. The
#    tensor-pipe metrics are those this ncu knows (Hopper's wgmma counts as gmma, mma.sync as hmma): a
#    name it does not know would fail the whole capture.
tri_step "ncu"
picks=$(python3 - "$db" "$tri_run" <<'EOF' 2>> "$tri/steps.log"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("""SELECT c.name, r.kernel_us FROM results r JOIN cases c ON c.id = r.case_id
                     JOIN implementations i ON i.id = r.impl_id
                     WHERE c.name LIKE 'B1-N512-C128%' AND i.name = 'triton.channel/outgoing/tf32'
                       AND r.cache = 'cold' AND r.kernel_us IS NOT NULL AND r.run_id = ?
                     ORDER BY r.kernel_us""", (int(sys.argv[2]),)).fetchall()
if rows:
    print(rows[0][0], "best")
    print(rows[-1][0], "worst")
EOF
)
echo "$picks" > "$tri/ncu-picks.txt"
tensor_metrics=$(timeout -k 1 6 ncu --query-metrics 2>> "$tri/steps.log" | awk '{print $1}' |
    grep -E '^sm__(pipe_tensor_op_(hmma|gmma)_cycles_active|inst_executed_pipe_tensor_op_(hmma|gmma)|inst_executed_pipe_tensor)$' |
    sed -E 's/_cycles_active$/_cycles_active.avg.pct_of_peak_sustained_active/; /cycles_active/!s/$/.sum/' | paste -sd, -)
echo "tensor-pipe metrics: ${tensor_metrics:-none found}" | tee -a "$tri/steps.log"
printf '%s\n' "$picks" | while read -r case why; do
    [ -n "$case" ] || continue
    timeout -k 2 "$(tri_cap 14)" ncu --clock-control none --profile-from-start off --kernel-name regex:_triangle_channel \
        --section SpeedOfLight --section LaunchStats --section Occupancy \
        --metrics "dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active${tensor_metrics:+,$tensor_metrics}" \
        python3 scripts/profile_one.py triangle triton.channel/outgoing/tf32 "$case" \
        > "$tri/ncu-$case-$why.txt" 2>&1 || echo "ncu $case ($why): exit $?" | tee -a "$tri/steps.log"
done

python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db" || true
[ -z "$tri_run" ] || timeout -k 1 3 python3 -m mage export "$tri_run" --json --db "$db" > "$tri/rows.json" 2>> "$tri/steps.log" || true
tri_step "done"
