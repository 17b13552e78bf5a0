# Issue 19's wide and unaligned rows on the H200: the native cluster strategy (layernorm, softmax). Sourced
# by scripts/h200.sh after its setup (repo root as cwd, PYTHONPATH set, $out, $db, mage()); not executable
# by itself. Writes only under $out/reduce-wide/. Every step is bounded by what is left of 170 s (wide_cap;
# caps 40 s of GPU tests, 85 s of the reduction study, 35 s of ncu), and none stops the others: each ends
# in || with its exit code logged to steps.log. Full logs, not tails.
wide=$out/reduce-wide
mkdir -p "$wide"
wide_start=$SECONDS
# Seconds a step may take: its own cap, or what is left of the 170 s (less 4 s for the checkpoints), if less.
wide_cap() {
    local left=$((166 - (SECONDS - wide_start)))
    if [ "$left" -lt 1 ]; then left=1; fi
    if [ "$1" -lt "$left" ]; then echo "$1"; else echo "$left"; fi
}
wide_step() { echo "== $(date -u +%T) +$((SECONDS - wide_start))s: $*" | tee -a "$wide/steps.log"; }
wide_run() {  # wide_run NAME CAP COMMAND…: bounded (SIGTERM, SIGKILL 2 s later), exit code logged
    local name=$1 cap=$2
    shift 2
    timeout -k 2 "$(wide_cap "$cap")" "$@" > "$wide/$name.log" 2>&1 || echo "$name: exit $?" | tee -a "$wide/steps.log"
}
wide_checkpoint() {
    python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db" || true
}

# 1. GPU tests (pytest -m gpu): the cluster kernels' contracts (normal, heavy, large-mean) at 1024 to 262147
#    columns through both host paths, rows off every 16-byte boundary, an input aligned apart from its
#    output, the same bits on a repeat, across hosts and from a CUDA graph, and the study's own shapes.
#    The first calls compile every kernel (NVRTC, into the disk cache the later steps reuse).
wide_step "gpu tests"
wide_run gpu-tests 40 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_reduce_wide_gpu.py

# 2. The reduction study at widths >= 1024, widest first, both ops in one run, warm L2 (256 MB a case: 9x
#    the L2): the native strategies (default and cluster), the best Triton ones of session 25 (split and
#    online for wide rows, registers up to 16384), eager, and torch.compile's default at 262144 only.
#    Copy floor at 537 MB a case and 4.19 TB/s: 128 us; 0.9 of the copy rate is 142 us.
wide_step "reduction study"
wide_run reduction 85 python3 scripts/gpu/run_cases.py "$db" '{
  "what": "reduction study at widths >= 1024: native.cluster against native, triton split/online/registers, eager; torch.compile default at 262144",
  "suites": ["reduction"], "ops": ["layernorm", "softmax"], "caches": ["warm"], "min_cols": 1024, "compile_cols": 262144,
  "impls": ["native", "triton.split", "triton.online", "triton.registers", "eager/affine/ieee", "eager/rows/ieee",
            "compile/affine/ieee", "compile/rows/ieee"],
  "budget": 0.1, "min_samples": 10,
  "hypothesis": "A row held by a thread-block cluster (2-8 CTAs, each its slice in registers, statistics combined through distributed shared memory) is read from DRAM once, with 16-byte loads at any row alignment, so native.cluster reaches 0.9 of the copy rate at every width from 4096 to 262144, 4099 and 65537 included, where the split (two reads of x) stays near 2/3; at 262144 (8 CTAs of 1024 threads, one CTA an SM) the gap between one cluster and the next is the risk.",
  "predict": ["layernorm/native.cluster@256x262144-study:kernel<142",
              "softmax/native.cluster@256x262144-study:kernel<142",
              "layernorm/native.cluster@1024x65537-study:kernel<142",
              "softmax/native.cluster@1024x65537-study:kernel<142",
              "layernorm/native.cluster@1024x65536-study:kernel<142",
              "softmax/native.cluster@1024x65536-study:kernel<142",
              "layernorm/native.cluster@16373x4099-study:kernel<142",
              "softmax/native.cluster@16373x4099-study:kernel<142",
              "layernorm/native.cluster@4096x16384-study:kernel<142",
              "layernorm/native.cluster@256x262144-study:kernel<triton.split",
              "softmax/native.cluster@256x262144-study:kernel<triton.split",
              "layernorm/native.cluster@256x262144-study:kernel<compile/affine/ieee",
              "softmax/native.cluster@256x262144-study:kernel<compile/rows/ieee"]
}'
wide_checkpoint

# 3. ncu of the cluster kernels at 65537 (8 CTAs of 512 threads, rows off 16-byte boundaries) and 262144
#    (8 CTAs of 1024 threads), one warmed call each: DRAM throughput and bytes (one read of x: ~268 MB read
#    at 262144), warps active, registers, and the stall reasons (long scoreboard: waiting on loads; barrier
#    and membar: waiting at the cluster barrier).
wide_step "ncu: cluster kernels"
stalls=smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,$stalls
wide_run ncu-cluster 35 ncu --clock-control none --profile-from-start off --csv --metrics "$metrics" \
    --log-file "$wide/ncu-cluster.csv" python3 scripts/gpu/ncu_calls.py \
    "layernorm,native.cluster/affine/ieee,1024x65537-study" "softmax,native.cluster/rows/ieee,1024x65537-study" \
    "layernorm,native.cluster/affine/ieee,256x262144-study" "softmax,native.cluster/rows/ieee,256x262144-study"
wide_checkpoint
wide_step "done"
