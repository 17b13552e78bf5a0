# neighbor_agg's remaining targets and scheduling study (issue 17) on the H200: native.merge (one-launch
# merge path, long rows by the block, block-wide row search), the mean by one reciprocal a row. Sourced by
# scripts/h200.sh after its setup (repo root as cwd, PYTHONPATH set, $out, $db, mage()); not executable by
# itself. Writes only under $out/nbr-study/. Every step is bounded by what is left of 170 s (study_cap; caps
# 20 + 10 s GPU tests, 45 + 22 s schedule suite, 12 s Triton, 28 s large case, 22 s ncu), and none stops the
# others: each ends in || with its exit code logged to steps.log. Full logs, not tails.
study=$out/nbr-study
mkdir -p "$study"
study_start=$SECONDS
# Seconds a step may take: its own cap, or what is left of the 170 s (less 3 s for the checkpoint), if less.
study_cap() {
    local left=$((167 - (SECONDS - study_start)))
    if [ "$left" -lt 1 ]; then left=1; fi
    if [ "$1" -lt "$left" ]; then echo "$1"; else echo "$left"; fi
}
study_step() { echo "== $(date -u +%T) +$((SECONDS - study_start))s: $*" | tee -a "$study/steps.log"; }
study_run() {  # study_run NAME CAP COMMAND…: bounded (SIGTERM, SIGKILL 2 s later), exit code logged
    local name=$1 cap=$2
    shift 2
    timeout -k 2 "$(study_cap "$cap")" "$@" > "$study/$name.log" 2>&1 || echo "$name: exit $?" | tee -a "$study/steps.log"
}
study_checkpoint() { python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db" || true; }
cases="scripts/gpu/run_cases.py"

# 1. GPU tests first: native.merge's bits twice at every piece size and its mean against the sum times one
#    reciprocal (R-MAT, hub, uniform, the 400 K-edge int64 hub), then the contracts and bit-identity of every
#    deterministic implementation on the schedule graphs (the rest of the file, as far as the cap lets it).
study_step "gpu tests"
study_run gpu-tests-merge 20 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_neighbor_agg_gpu.py -k merge
study_run gpu-tests-rest 10 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_neighbor_agg_gpu.py -k "not merge"

# 2. The schedule suite, cold L2, where native lost (R-MAT, hub, power-law at F 128/512) first, then the rest;
#    two processes, so a kernel that breaks the CUDA context costs only its own part.
impls='["native.merge", "native.merge512", "native.merge2048", "native/", "native.inflight", "native.edge/sum", "cusparse"]'
hypothesis="Merge path in one launch (native.merge: every block the same number of rows plus edges, a long row inside a piece by the whole block, a hub's pieces combined by all groups of the last) is within cuSPARSE's time on R-MAT and the hub, where one owner per row leaves a long row as a serial chain, and as fast as the default on the uniform graph; the mean, scaled by one reciprocal a row, costs what the sum does."
study_step "schedule suite: R-MAT, hub, power-law at F 128/512"
study_run schedule-skewed 45 python3 "$cases" "$db" "{
  \"what\": \"schedule suite, skewed graphs at F 128/512: native.merge (3 piece sizes), native, inflight, edge, cusparse\",
  \"suites\": [\"schedule\"], \"ops\": [\"neighbor_agg\"], \"caches\": [\"cold\"], \"impls\": $impls, \"budget\": 0.05, \"min_samples\": 20,
  \"cases\": [\"rmat-64k-F128\", \"hub-64k-F128\", \"rmat-64k-F512\", \"hub-64k-F512\", \"uniform-64k-F128\",
            \"powerlaw2.1-64k-F128\", \"powerlaw1.8-64k-F128\", \"powerlaw2.1-64k-F512\"],
  \"hypothesis\": \"$hypothesis\",
  \"predict\": [\"neighbor_agg/native.merge/sum/ieee@rmat-64k-F128[single/cold]:kernel<=1.0*cusparse/sum/ieee\",
              \"neighbor_agg/native.merge/mean/ieee@rmat-64k-F128[single/cold]:kernel<=1.0*cusparse/sum/ieee\",
              \"neighbor_agg/native.merge/sum/ieee@hub-64k-F128[single/cold]:kernel<=1.0*cusparse/sum/ieee\",
              \"neighbor_agg/native.merge/mean/ieee@hub-64k-F128[single/cold]:kernel<=1.0*cusparse/sum/ieee\",
              \"neighbor_agg/native.merge/sum/ieee@rmat-64k-F512[single/cold]:kernel<=1.0*cusparse/sum/ieee\",
              \"neighbor_agg/native.merge/sum/ieee@hub-64k-F512[single/cold]:kernel<=1.0*cusparse/sum/ieee\",
              \"neighbor_agg/native.merge/sum/ieee@rmat-64k-F128[single/cold]:kernel<native.edge/sum/ieee\",
              \"neighbor_agg/native.merge/sum/ieee@uniform-64k-F128[single/cold]:kernel<=1.0*cusparse/sum/ieee\",
              \"neighbor_agg/native.merge/sum/ieee@powerlaw2.1-64k-F128[single/cold]:kernel<=1.0*cusparse/sum/ieee\"]
}"
study_checkpoint
study_step "schedule suite: the other cases"
study_run schedule-rest 22 python3 "$cases" "$db" "{
  \"what\": \"schedule suite, the other cases: native.merge (3 piece sizes), native, inflight, edge, cusparse\",
  \"suites\": [\"schedule\"], \"ops\": [\"neighbor_agg\"], \"caches\": [\"cold\"], \"impls\": $impls, \"budget\": 0.05, \"min_samples\": 20,
  \"cases\": [\"rmat-64k-F32\", \"hub-64k-F32\", \"uniform-64k-F32\", \"uniform-64k-F512\", \"powerlaw1.8-64k-F512\",
            \"powerlaw2.1-64k-F32\", \"powerlaw1.8-64k-F32\"],
  \"hypothesis\": \"$hypothesis\",
  \"predict\": [\"neighbor_agg/native.merge/sum/ieee@rmat-64k-F32[single/cold]:kernel<=1.0*cusparse/sum/ieee\",
              \"neighbor_agg/native.merge/sum/ieee@hub-64k-F32[single/cold]:kernel<=1.0*cusparse/sum/ieee\",
              \"neighbor_agg/native.merge/sum/ieee@uniform-64k-F32[single/cold]:kernel<=1.0*cusparse/sum/ieee\"]
}"
study_checkpoint

# 3. Triton (which autotunes per graph, seconds each) on R-MAT and the hub at F 128 beside cuSPARSE.
study_step "schedule suite: triton"
study_run schedule-triton 12 python3 "$cases" "$db" "{
  \"what\": \"schedule suite: triton on R-MAT and the hub at F 128 beside cusparse\",
  \"suites\": [\"schedule\"], \"ops\": [\"neighbor_agg\"], \"caches\": [\"cold\"], \"impls\": [\"triton\", \"cusparse\"], \"budget\": 0.05, \"min_samples\": 20,
  \"cases\": [\"rmat-64k-F128\", \"hub-64k-F128\"],
  \"hypothesis\": \"Triton's row-per-program kernel with hub pieces stays above cuSPARSE on R-MAT and the hub at F 128.\",
  \"predict\": [\"neighbor_agg/triton/sum/ieee@rmat-64k-F128[single/cold]:kernel>1.0*cusparse/sum/ieee\"]
}"
study_checkpoint

# 4. The large power-law case (1 M nodes, 16.8 M edges, F 128, int64), sum and mean: the inflight default,
#    native.merge and cuSPARSE. Targets: sum and mean ≤ 0.85× cuSPARSE.
study_step "large power-law case"
study_run large 28 python3 "$cases" "$db" "{
  \"what\": \"large power-law sum and mean: native.inflight, native.merge, cusparse\",
  \"suites\": [\"large\"], \"ops\": [\"neighbor_agg\"], \"caches\": [\"cold\"], \"impls\": [\"native.inflight\", \"native.merge\", \"cusparse\"], \"budget\": 0.05, \"min_samples\": 20,
  \"cases\": [\"powerlaw-1M-16M-F128\"],
  \"hypothesis\": \"The mean kernel, scaled by one reciprocal a row instead of a division per feature, runs at the inflight sum's rate, so both reach 0.85x cuSPARSE on the large power-law case.\",
  \"predict\": [\"neighbor_agg/native.inflight/mean/ieee@powerlaw-1M-16M-F128[single/cold]:kernel<=0.85*cusparse/sum/ieee\",
              \"neighbor_agg/native.inflight/sum/ieee@powerlaw-1M-16M-F128[single/cold]:kernel<=0.85*cusparse/sum/ieee\",
              \"neighbor_agg/native.merge/mean/ieee@powerlaw-1M-16M-F128[single/cold]:kernel<=0.85*cusparse/sum/ieee\",
              \"neighbor_agg/native.merge/sum/ieee@powerlaw-1M-16M-F128[single/cold]:kernel<=0.85*cusparse/sum/ieee\"]
}"
study_checkpoint

# 5. ncu, one warmed call each between cudaProfilerStart/Stop: native.merge against native.edge and the default
#    on R-MAT and the hub at F 128: DRAM bytes, L2 hit rate, long-scoreboard stall (waiting on a load) and the
#    busiest SM's active cycles against the average (load imbalance across SMs).
metrics=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,sm__cycles_active.max,sm__cycles_active.avg,launch__registers_per_thread,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active
study_step "ncu: native.merge on R-MAT and the hub"
study_run ncu-merge 22 ncu --clock-control none --profile-from-start off --csv --metrics "$metrics" \
    --log-file "$study/ncu-merge.csv" python3 scripts/gpu/ncu_calls.py \
    neighbor_agg,{native.merge,native.edge,native}/sum/ieee,rmat-64k-F128 \
    neighbor_agg,{native.merge,native.edge,native}/sum/ieee,hub-64k-F128

study_checkpoint
study_step "done"
