# Issue 22 on one GPU: the --gpus path (a worker pinned with CUDA_VISIBLE_DEVICES, rows sent to the
# parent, NVML found by UUID) end to end, and what each stored row says about the GPU that measured it.
# Sourced by scripts/h200.sh (see there); writes under $out/cluster/.
timeout 150 python3 -m mage run --gpus all --suite seed --op layernorm --impl eager --impl native --db "$db" \
    > "$out/cluster/gpus-run.log" 2>&1 || echo "cluster: --gpus run exited $?"
python3 - "$db" > "$out/cluster/gpus-rows.txt" 2>&1 <<'PY' || true
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
run = db.execute("SELECT max(id) FROM runs").fetchone()[0]
print("run", run, db.execute("SELECT status, command FROM runs WHERE id = ?", (run,)).fetchone())
for row in db.execute("SELECT i.name, r.path, r.status, r.gpu_index, r.gpu_uuid, r.sm_clock_min_mhz, r.sm_clock_max_mhz,"
                      " r.span_median_us FROM results r JOIN implementations i ON i.id = r.impl_id WHERE r.run_id = ?",
                      (run,)):
    print(row)
PY
cat "$out/cluster/gpus-rows.txt"
