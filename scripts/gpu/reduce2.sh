# Issue 19's copy-rate target at wide, 16384 and unaligned rows on the H200: the native pipe strategy
# (layernorm, softmax: a persistent cluster, the next row's slice copying into shared memory while the
# current one is reduced). Sourced by scripts/h200.sh after its setup (repo root as cwd, PYTHONPATH set,
# $out, $db, mage(), step_budget/step_run); not executable by itself. Writes only under $out/reduce2/.
# 150 s in all: warm-up 35, GPU tests 40, the reduction study 60, two ncu steps 22 each (each cut to what is
# left). Full logs, one a step, exit codes in steps.log.
step_budget 150
cases="scripts/gpu/run_cases.py"

# 1. Compile (NVRTC, both ops' sources: default, cluster and pipe kernels) and load every pipe kernel through
#    both hosts, each plan once at its widest row, so that no later limit is spent compiling.
step_run warm 35 python3 -c '
import torch
from mage import registry
from mage.backends import rows
from mage.spec import Case
for op in ("layernorm", "softmax"):
    spec = registry.get_op(op)
    for impl in (i for i in registry.implementations(op) if i.strategy == "pipe"):
        for k, threads, chunks, ctas in rows.PIPE_PLANS:
            cols = 4 * k * threads * chunks
            impl.fn(*spec.make_inputs(Case(op, "warm", "seed", {"rows": 3, "cols": cols}), 1, "cuda"))
            torch.cuda.synchronize()
            print(impl.name, (k, threads, chunks, ctas), cols, "columns: called", flush=True)
'

# 2. GPU tests: the driver's count of resident clusters against the launcher's grid (every plan), the
#    contract (normal, heavy, large-mean) at 1024 to 262147 columns with every cluster walking 2-3 rows,
#    through both hosts (the > 48 KB opt-in of each); x off every 16-byte boundary; the same bits on a
#    repeat, across hosts and from a CUDA graph.
step_run gpu-tests 40 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_reduce_pipe_gpu.py

# 3. The reduction study at widths >= 1024, widest first, both ops, warm L2 (256 MB a case): native.pipe
#    against the best of run 53 at each width (native.cluster from 65536, triton.registers at 1024-16384,
#    native's default at 4096/4099), eager, and torch.compile's default for softmax at 262144. Copy floor at
#    537 MB a case and 4,156 GB/s: 129 us; 0.9 of the copy rate is 143 us.
step_run reduction 60 python3 "$cases" "$db" '{
  "what": "reduction study at widths >= 1024: native.pipe (persistent cluster, next row in flight) against native.cluster, triton.registers, native, eager; torch.compile default (softmax) at 262144",
  "suites": ["reduction"], "ops": ["layernorm", "softmax"], "caches": ["warm"], "min_cols": 1024, "compile_cols": 262144,
  "impls": ["native.pipe", "native.cluster", "native/affine/ieee", "native/rows/ieee", "triton.registers",
            "eager/affine/ieee", "eager/rows/ieee", "compile/rows/ieee"],
  "budget": 0.05, "min_samples": 10,
  "hypothesis": "The cluster kernels read x once but idle DRAM at their two barriers a row (45-58 % of DRAM peak in run 53). Clusters kept resident (grid = clusters that fit, 64-128 KB of shared memory an SM) that copy the next row slice (cp.async, 16-byte) while the current one is reduced from registers and written keep a slice a CTA in flight at all times, so native.pipe reaches 0.9 of the copy rate (143 us at 256 MB) at 65536, 65537 and 262144 for both ops and beats native.cluster there; at 16384 it lifts LayerNorm (2 CTAs an SM, weight and bias fetched while the next row loads) past triton.registers (86 registers a thread: one CTA an SM); at 4099 its unaligned heads and tails are plain loads a row ahead and cost nothing.",
  "predict": ["layernorm/native.pipe@256x262144-study:kernel<143",
              "softmax/native.pipe@256x262144-study:kernel<143",
              "layernorm/native.pipe@1024x65537-study:kernel<143",
              "softmax/native.pipe@1024x65537-study:kernel<143",
              "layernorm/native.pipe@1024x65536-study:kernel<143",
              "softmax/native.pipe@1024x65536-study:kernel<143",
              "layernorm/native.pipe@4096x16384-study:kernel<143",
              "layernorm/native.pipe@16373x4099-study:kernel<143",
              "softmax/native.pipe@16373x4099-study:kernel<143",
              "layernorm/native.pipe@256x262144-study:kernel<native.cluster",
              "softmax/native.pipe@256x262144-study:kernel<native.cluster",
              "layernorm/native.pipe@1024x65537-study:kernel<native.cluster",
              "layernorm/native.pipe@4096x16384-study:kernel<triton.registers",
              "softmax/native.pipe@256x262144-study:kernel<compile/rows/ieee"]
}'

# 4. ncu, one warmed call each: DRAM throughput and bytes (one read of x: ~268 MB at 256 MB a case), warps
#    active, registers, grid, dynamic shared memory, and the stall reasons (long scoreboard: waiting on
#    global loads; short scoreboard: on shared memory; barrier: at __syncthreads; membar and wait: at the
#    cluster barrier). First the pipe kernels at 65536 and 262144, then issue 19's 16384 and 4099
#    question: LayerNorm's best kernels there (triton.registers at 16384 beside softmax's; native's looped
#    kernel at 4099) and the pipe at both.
stalls=smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,sm__warps_active.avg.pct_of_peak_sustained_active,$stalls
step_run ncu-pipe 22 ncu --clock-control none --profile-from-start off --csv --metrics "$metrics" \
    --log-file "$out/reduce2/ncu-pipe.csv" python3 scripts/gpu/ncu_calls.py \
    "layernorm,native.pipe/affine/ieee,1024x65536-study" "softmax,native.pipe/rows/ieee,1024x65536-study" \
    "layernorm,native.pipe/affine/ieee,256x262144-study" "softmax,native.pipe/rows/ieee,256x262144-study"
step_run ncu-narrow 22 ncu --clock-control none --profile-from-start off --csv --metrics "$metrics" \
    --log-file "$out/reduce2/ncu-narrow.csv" python3 scripts/gpu/ncu_calls.py \
    "layernorm,triton.registers/affine/ieee,4096x16384-study" "softmax,triton.registers/rows/ieee,4096x16384-study" \
    "layernorm,native.pipe/affine/ieee,4096x16384-study" \
    "layernorm,native/affine/ieee,16373x4099-study" "layernorm,native.pipe/affine/ieee,16373x4099-study"
