# triangle (issue 16, tf32 target): triton.cblock, the channel-blocked one-launch kernel, against eager,
# native and triton.split; ncu of it at B1 N512 C128. Sourced by scripts/h200.sh after its setup (repo
# root as cwd, PYTHONPATH set, $out, $db, mage()); not executable by itself. Writes only under
# $out/tri-cblock/; every step is bounded so that the whole fragment ends within 170 s, and none stops
# the others.
cb=$out/tri-cblock
mkdir -p "$cb"
cb_start=$SECONDS
# Seconds a step may take: its own cap, or what is left of the 170 s (less 6 s for the last steps), if less.
cb_cap() {
    local left=$((164 - (SECONDS - cb_start)))
    if [ "$left" -lt 1 ]; then left=1; fi
    if [ "$1" -lt "$left" ]; then echo "$1"; else echo "$left"; fi
}
cb_step() { echo "== $(date -u +%T) +$((SECONDS - cb_start))s: $*" | tee -a "$cb/steps.log"; }

# 1. GPU tests (full log): tf32's contract at the seed and large cases with the whole autotune list (which
#    compiles every fp32 config into Triton's cache for the run, and prints the config each case chose),
#    each product alone on ragged shapes at tf32 and bf16, the other precisions at the seed case.
cb_step "gpu tests"
timeout -k 2 "$(cb_cap 55)" python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_triangle_cblock_gpu.py \
    > "$cb/gpu-tests.log" 2>&1 || echo "gpu tests: exit $?" | tee -a "$cb/steps.log"

# 2. The run, in the spec's case order: seed, large, then the sweep (the layout cases, which only eager
#    takes, then N 768 and N 1024 before N 256 and B2 N384); warm and cold L2, single path, in-process. tf32 both variants for triton.cblock, eager and
#    triton.split; ieee and bf16 of triton.cblock outgoing, with eager's and native's. Stopped by SIGTERM
#    at its cap, it keeps its finished cases (marked incomplete).
cb_step "run"
timeout -k 5 -s TERM "$(cb_cap 72)" python3 -m mage run --db "$db" --suite seed --suite large --suite sweep --op triangle \
    --impl triton.cblock/outgoing/tf32 --impl triton.cblock/incoming/tf32 --impl eager/outgoing/tf32 \
    --impl eager/incoming/tf32 --impl triton.split/outgoing --impl triton.split/incoming \
    --impl triton.cblock/outgoing/ieee --impl eager/outgoing/ieee --impl native/outgoing/ieee \
    --impl triton.cblock/outgoing/bf16 --impl eager/outgoing/bf16 \
    --path single --cold --budget 0.05 --min-samples 10 --no-isolate \
    --hypothesis "A program that owns 8 fp32 (or 16 16-bit) channels of a 64 x 32-64 (i, j) tile reads whole 32-byte sectors of the channel-last tensors and reuses each loaded element across a tile row, so one launch can beat eager's permute-bmm-permute, whose permuted copies cost more than its bmm. The autotuner chooses between a batched 3-D dot (mma.sync) and eight 2-D dots (wgmma, serialized per channel); the unpipelined batched configs avoid the unswizzled cp.async buffer. Expected: tf32 well under triton.split's 960 us at N 512; the 270 us target needs L2 to feed about 8 TB/s at 64 x 64 x 8 tiles, so it may be missed." \
    --predict "triangle/triton.cblock/outgoing/tf32@B1-N512-C128[single/cold]:kernel<270" \
    --predict "triangle/triton.cblock/outgoing/tf32@B1-N512-C128[single/cold]:kernel<=0.35*eager/outgoing/tf32" \
    --predict "triangle/triton.cblock/incoming/tf32@B1-N512-C128[single/cold]:kernel<=0.35*eager/incoming/tf32" \
    --predict "triangle/triton.cblock/outgoing/tf32@B1-N512-C128[single/cold]:kernel<triton.split/outgoing/tf32" \
    --predict "triangle/triton.cblock/outgoing/tf32@B1-N768-C128[single/cold]:kernel<eager/outgoing/tf32" \
    --predict "triangle/triton.cblock/outgoing/tf32@B1-N1024-C128[single/cold]:kernel<eager/outgoing/tf32" \
    --predict "triangle/triton.cblock/outgoing/tf32@B1-N128-C64[single/cold]:kernel<eager/outgoing/tf32" \
    --predict "triangle/triton.cblock/outgoing/ieee@B1-N512-C128[single/cold]:kernel<1000" \
    --predict "triangle/triton.cblock/outgoing/bf16@B1-N512-C128[single/cold]:kernel<eager/outgoing/bf16" \
    > "$cb/run.log" 2>&1 || echo "run: exit $?" | tee -a "$cb/steps.log"

cb_run=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM runs").fetchone()[0])' "$db" 2>> "$cb/steps.log")
echo "run id: $cb_run" | tee -a "$cb/steps.log"
# The config each autotuned triton.cblock result launched with (the store's tuning column).
[ -z "$cb_run" ] || python3 - "$db" "$cb_run" > "$cb/tuning.txt" 2>&1 <<'EOF' || true
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for row in db.execute("""SELECT i.name, c.name, r.cache, r.kernel_us, r.tuning FROM results r
                         JOIN cases c ON c.id = r.case_id JOIN implementations i ON i.id = r.impl_id
                         WHERE r.run_id = ? AND i.name LIKE 'triton.cblock/%' ORDER BY c.name, i.name""",
                      (int(sys.argv[2]),)):
    print(*row, sep=" | ")
EOF
cat "$cb/tuning.txt" 2>/dev/null | tee -a "$cb/steps.log" || true

# 3. ncu of triton.cblock tf32 outgoing at B1 N512 C128: DRAM throughput and bytes, L2 hit rate, the tensor
#    pipe (the names this ncu knows: Hopper's wgmma counts as gmma, mma.sync as hmma; an unknown name
#    fails the whole capture), shared-memory bank conflicts, registers, warps active, and the stall
#    reasons (WarpStateStats). The autotuning happens in the warm-up calls, outside the profiled range.
cb_step "ncu"
cb_known=$(timeout -k 1 8 ncu --query-metrics 2>> "$cb/steps.log" | awk '{print $1}')
cb_tensor=$(printf '%s\n' "$cb_known" |
    grep -E '^sm__(pipe_tensor_op_(hmma|gmma)_cycles_active|inst_executed_pipe_tensor_op_(hmma|gmma))$' |
    sed -E 's/_cycles_active$/_cycles_active.avg.pct_of_peak_sustained_active/; /cycles_active/!s/$/.sum/' | paste -sd, -)
cb_banks=$(printf '%s\n' "$cb_known" |
    grep -E '^l1tex__data_(bank_conflicts_pipe_lsu_mem_shared_op_(ld|st)|pipe_lsu_wavefronts_mem_shared_op_(ld|st))$' |
    sed 's/$/.sum/' | paste -sd, -)
echo "tensor-pipe metrics: ${cb_tensor:-none found}; shared-memory metrics: ${cb_banks:-none found}" | tee -a "$cb/steps.log"
cb_metrics="dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_sector_hit_rate.pct"
cb_metrics="$cb_metrics,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active"
timeout -k 2 "$(cb_cap 30)" ncu --clock-control none --profile-from-start off --kernel-name regex:_triangle_cblock \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
    --metrics "$cb_metrics${cb_tensor:+,$cb_tensor}${cb_banks:+,$cb_banks}" \
    python3 scripts/profile_one.py triangle triton.cblock/outgoing/tf32 B1-N512-C128 \
    > "$cb/ncu-B1-N512-C128-outgoing-tf32.txt" 2>&1 || echo "ncu: exit $?" | tee -a "$cb/steps.log"

python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db" || true
[ -z "$cb_run" ] || timeout -k 1 3 python3 -m mage export "$cb_run" --json --db "$db" > "$cb/rows.json" 2>> "$cb/steps.log" || true
cb_step "done"
