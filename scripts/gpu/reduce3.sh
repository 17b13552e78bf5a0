# Issue 19 at 4099 columns, and the pipe's grid from the driver, on the H200. The native slice strategy of
# layernorm and softmax (the cluster kernel with one CTA: a scalar head and tail around a float4 body, the
# row in one block's registers, read once, whatever its alignment) against the kernels of run 69; the pipe
# asks cuOccupancyMaxActiveClusters for its grid. Sourced by
# scripts/h200.sh after its setup (repo root as cwd, PYTHONPATH set, $out, $db, mage(), step_budget/step_run);
# not executable by itself. Writes only under $out/reduce3/. 250 s in all: warm-up 40, GPU tests 60 + 30, the
# reduction study 90, ncu 30 (each cut to what is left). Logs one a step, exit codes in steps.log.
step_budget 250
cases="scripts/gpu/run_cases.py"

# 1. Compile (NVRTC: both ops' sources) and call every slice and pipe kernel through both hosts, each plan at
#    its widest row, so that no later limit is spent compiling.
step_run warm 40 python3 -c '
import torch
from mage import registry
from mage.backends import rows
from mage.spec import Case
for op in ("layernorm", "softmax"):
    spec = registry.get_op(op)
    for impl in registry.implementations(op):
        if impl.family not in ("native", "native-py") or impl.precision != "ieee":
            continue
        if impl.strategy == "slice":
            widths = [4 * threads * chunks + 3 for threads, chunks in rows.SLICE_PLANS]
        elif impl.strategy == "pipe":
            widths = [4 * k * threads * chunks for k, threads, chunks, _ in rows.PIPE_PLANS]
        else:
            continue
        for cols in widths:
            impl.fn(*spec.make_inputs(Case(op, "warm", "seed", {"rows": 3, "cols": cols}), 1, "cuda"))
            torch.cuda.synchronize()
            print(impl.name, cols, "columns: called", flush=True)
'

# 2. GPU tests: the slice strategy (contract with normal, heavy and large-mean inputs at each plan's edges, both
#    hosts, the same bits across hosts, x off a 16-byte boundary) beside the cluster kernels; the pipe's grid
#    against the driver's count through both hosts, its contract and repeats.
step_run gpu-tests 60 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_reduce_wide_gpu.py \
    tests/test_reduce_pipe_gpu.py
# Both hosts' launch path (the shared-memory opt-in now one function in each) for every native kernel.
step_run gpu-tests-native 30 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_native_gpu.py

# 3. The reduction study at widths >= 1024, 4099 first, both ops, warm L2 (256 MB a case), as in run 69:
#    native.slice, native's default, native.pipe (its grid now the driver's count), native.cluster,
#    triton.registers and eager. Copy floor at 537 MB a case and 4,156 GB/s: 129 us; 0.9 of it is 143 us.
step_run reduction 90 python3 "$cases" "$db" '{
  "what": "reduction study at widths >= 1024: native.slice (one CTA a row, any alignment) and the pipe grid from cuOccupancyMaxActiveClusters",
  "suites": ["reduction"], "ops": ["layernorm", "softmax"], "caches": ["warm"],
  "cases": ["16373x4099-study", "1024x65536-study", "1024x65537-study", "256x262144-study", "4096x16384-study",
            "16384x4096-study", "65536x1024-study"],
  "impls": ["native.slice", "native/affine/ieee", "native/rows/ieee", "native.pipe", "native.cluster", "triton.registers",
            "eager/affine/ieee", "eager/rows/ieee"],
  "budget": 0.05, "min_samples": 10,
  "hypothesis": "At 4099 columns the rows start on every 4-byte boundary, so the default native kernels read them in scalars: LayerNorm looped three times (151 us, 0.85 of the copy rate; 71 % of DRAM peak, latency-bound), softmax with a 1024-thread block sized for 16384 (316 us); the K = 2 cluster kernel pays a cluster barrier a row (membar stalls 4.7 a issue) and 46 % of warps active. One block of 256 threads a row holding a scalar head and tail around an aligned float4 body in registers (the cluster kernel with K = 1, no cluster barrier) reads each row once in 16-byte loads, as the float4 block kernel does at 4096 (0.98), so native.slice reaches 0.9 of the copy rate (143 us) for both ops and beats the cluster and default kernels there; at 4096 it runs within 5 % of the float4 block kernel.",
  "predict": ["layernorm/native.slice@16373x4099-study:kernel<143",
              "softmax/native.slice@16373x4099-study:kernel<143",
              "layernorm/native.slice@16373x4099-study:kernel<native.cluster",
              "softmax/native.slice@16373x4099-study:kernel<native.cluster",
              "layernorm/native.slice@16373x4099-study:kernel<native/affine/ieee",
              "softmax/native.slice@16373x4099-study:kernel<native/rows/ieee",
              "layernorm/native.slice@16384x4096-study:kernel<1.05*native/affine/ieee"]
}'

# 4. ncu of the slice kernels at 4099 (one warmed call each): DRAM throughput and bytes, registers, warps
#    active, and the stall reasons, beside the K = 2 cluster kernels.
stalls=smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,$stalls
step_run ncu-slice 30 ncu --clock-control none --profile-from-start off --csv --metrics "$metrics" \
    --log-file "$out/reduce3/ncu-slice.csv" python3 scripts/gpu/ncu_calls.py \
    "layernorm,native.slice/affine/ieee,16373x4099-study" "softmax,native.slice/rows/ieee,16373x4099-study" \
    "layernorm,native.cluster/affine/ieee,16373x4099-study" "softmax,native.cluster/rows/ieee,16373x4099-study"
