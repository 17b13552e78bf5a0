# Wide rows (issue 19) and neighbor_agg's targets and sum/mean question (issue 17) on the H200. Sourced by
# scripts/h200.sh after its setup (repo root as cwd, PYTHONPATH set, $out, $db, mage()); not executable by
# itself. Writes only under $out/rows/. Every step is bounded by what is left of 150 s (rows_cap; caps
# 25 + 12 s of GPU tests, 50 s reduction study, 32 s neighbor_agg, 18 + 10 s ncu), and
# none stops the others: each ends in || with its exit code logged to steps.log. Full logs, not tails.
rows=$out/rows
mkdir -p "$rows"
rows_start=$SECONDS
# Seconds a step may take: its own cap, or what is left of the 150 s (less 3 s for the checkpoint), if less.
rows_cap() {
    local left=$((147 - (SECONDS - rows_start)))
    if [ "$left" -lt 1 ]; then left=1; fi
    if [ "$1" -lt "$left" ]; then echo "$1"; else echo "$left"; fi
}
rows_step() { echo "== $(date -u +%T) +$((SECONDS - rows_start))s: $*" | tee -a "$rows/steps.log"; }
rows_run() {  # rows_run NAME CAP COMMAND…: bounded (SIGTERM, SIGKILL 2 s later), exit code logged
    local name=$1 cap=$2
    shift 2
    timeout -k 2 "$(rows_cap "$cap")" "$@" > "$rows/$name.log" 2>&1 || echo "$name: exit $?" | tee -a "$rows/steps.log"
}

# A run of chosen cases (mage run has no case filter): plans the request in JSON argument 2 as `mage run`
# would, keeps the cases it names (or those at least min_cols wide, widest first), runs compile only
# at compile_cols, and stores the run into the store of argument 1 with its hypothesis and predictions
# (recorded at the first step, so that a run cut by its timeout keeps them; it stays incomplete).

# 1. GPU tests of the changed kernels (pytest -m gpu): the split and lagged Triton strategies' contracts
#    at 1000, 16384 and 65537 columns and the lagged kernel against the split with ~2,000 programs waiting
#    on each other; the native.inflight kernels against the default's bits on R-MAT and hub graphs.
rows_step "gpu tests"
rows_run gpu-tests-reduction 25 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_reduction_gpu.py \
    -k "lagged or split"
rows_run gpu-tests-nbr 12 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_neighbor_agg_gpu.py \
    -k inflight

# 2. The reduction study at widths ≥ 1024, widest first, both ops in one run, warm L2 (256 MB a case:
#    9× the L2), torch.compile's default at 262144 columns only (its compile costs seconds a shape).
#    Copy floor at 537 MB a case and 4.19 TB/s: 128 µs; 0.9 of the copy rate is 142 µs.
rows_step "reduction study"
rows_run reduction 50 python3 scripts/gpu/run_cases.py "$db" '{
  "what": "reduction study at widths >= 1024, split and lagged, torch.compile default at 262144",
  "suites": ["reduction"], "ops": ["layernorm", "softmax"], "caches": ["warm"], "min_cols": 1024, "compile_cols": 262144,
  "impls": ["triton.lagged", "triton.split", "triton.online", "triton.registers", "native", "eager", "compile/"],
  "budget": 0.1, "min_samples": 10,
  "hypothesis": "A row read once from DRAM reaches 0.9 of the copy rate at every width >= 1024: the lagged kernel (flat 16-byte-aligned tiles, statistics published per tile, each tile normalized a row behind from L2) for rows wider than registers and for ragged widths; the split (same tiles, three launches) reads x twice from DRAM, so it stays under 2/3 of the copy rate at 256 MB; both beat torch.compile at 262144 columns.",
  "predict": ["layernorm/triton.lagged@256x262144-study:kernel<142",
              "softmax/triton.lagged@256x262144-study:kernel<142",
              "layernorm/triton.lagged@1024x65537-study:kernel<142",
              "softmax/triton.lagged@1024x65537-study:kernel<142",
              "layernorm/triton.lagged@16373x4099-study:kernel<142",
              "softmax/triton.lagged@16373x4099-study:kernel<142",
              "layernorm/triton.lagged@256x262144-study:kernel<compile/affine/ieee",
              "softmax/triton.lagged@256x262144-study:kernel<compile/rows/ieee",
              "layernorm/triton.split@256x262144-study:kernel<triton.online",
              "layernorm/triton.lagged@256x262144-study:kernel<triton.split"]
}'
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db" || true

# 3. neighbor_agg, cold L2: the large power-law case, R-MAT and the hub graph (F 128 and 512) for the
#    native kernels (default and inflight), Triton and cuSPARSE, largest first.
rows_step "neighbor_agg"
rows_run nbr 32 python3 scripts/gpu/run_cases.py "$db" '{
  "what": "neighbor_agg large power-law, R-MAT and hub: native, native.inflight, triton, cusparse",
  "suites": ["large", "schedule"], "ops": ["neighbor_agg"], "caches": ["cold"],
  "cases": ["powerlaw-1M-16M-F128", "rmat-64k-F128", "hub-64k-F128", "rmat-64k-F512", "hub-64k-F512"],
  "impls": ["native/", "native.inflight", "triton/sum", "cusparse"], "budget": 0.05, "min_samples": 20,
  "hypothesis": "Issuing a round s 8 row loads before its adds (native.inflight) lifts sum to the rate of mean, whose kernel already did, and below 0.85x cuSPARSE on the power-law case; R-MAT and the hub stay bound by their schedule.",
  "predict": ["neighbor_agg/native.inflight/sum/ieee@powerlaw-1M-16M-F128[single/cold]:kernel<=0.85*cusparse/sum/ieee",
              "neighbor_agg/native.inflight/mean/ieee@powerlaw-1M-16M-F128[single/cold]:kernel<=0.85*cusparse/sum/ieee",
              "neighbor_agg/native.inflight/sum/ieee@powerlaw-1M-16M-F128[single/cold]:kernel<native/sum/ieee",
              "neighbor_agg/native.inflight/sum/ieee@rmat-64k-F128[single/cold]:kernel<=1.0*cusparse/sum/ieee",
              "neighbor_agg/native.inflight/sum/ieee@hub-64k-F128[single/cold]:kernel<=1.0*cusparse/sum/ieee"]
}'
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db" || true

# 4. ncu, one warmed call each between cudaProfilerStart/Stop: (a) the sum/mean inversion on the large
#    power-law case, native sum and mean and their inflight kernels side by side: instructions, DRAM
#    bytes, L2 hit rate, registers, warps active, and the stall reasons (long scoreboard: waiting on a
#    load); (b) the wide kernels at 262144 columns: the split's three and the lagged one.
stalls=smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
metrics=gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,$stalls
rows_step "ncu: neighbor_agg sum/mean"
rows_run ncu-nbr-inversion 18 ncu --clock-control none --profile-from-start off --csv --metrics "$metrics" \
    --log-file "$rows/ncu-nbr-inversion.csv" python3 scripts/gpu/ncu_calls.py \
    "neighbor_agg,native/sum/ieee,powerlaw-1M-16M-F128" "neighbor_agg,native/mean/ieee,powerlaw-1M-16M-F128" \
    "neighbor_agg,native.inflight/sum/ieee,powerlaw-1M-16M-F128" "neighbor_agg,native.inflight/mean/ieee,powerlaw-1M-16M-F128"
rows_step "ncu: wide rows"
rows_run ncu-wide 10 ncu --clock-control none --profile-from-start off --csv --metrics "$metrics" \
    --log-file "$rows/ncu-wide.csv" python3 scripts/gpu/ncu_calls.py \
    "layernorm,triton.split/affine/ieee,256x262144-study" "layernorm,triton.lagged/affine/ieee,256x262144-study" \
    "softmax,triton.lagged/rows/ieee,256x262144-study" "layernorm,triton.lagged/affine/ieee,16373x4099-study"

python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db" || true
rows_step "done"
