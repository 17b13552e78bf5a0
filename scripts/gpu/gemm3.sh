# Issue #18 on the H200, third try: triton.swap (tf32 as c^T = b^T a^T in one launch) with its BLOCK_M 256
# configs dropped (runs 66-67 refused exactly the shapes where the autotuner chose them), and triton.k3 (tf32x3
# over K' = 3K) flushing every 128, 256 or 512 columns of K (triton.k3, k3chunk256, k3chunk512) against cuBLAS.
# Sourced by scripts/h200.sh after its setup (repo root as cwd, PYTHONPATH set, $out, $db, mage(),
# step_budget/step_run); not executable by itself. Writes only under $out/gemm3/. Budget 110 s: warm 34, GPU
# tests 18, 8192^3 22, the sweep 18, ncu 14, each step also bounded by what is left (step_run: logs
# $out/gemm3/NAME.log, exit codes in steps.log); none stops the others.
#
# Step times from session 26-27's call (/work/c2-results/gemm2: runs 66-68): the warm step took 31 s for 3
# kernels x 5 shapes (a new kernel's 5 configs ~4 s at its first shape, 0.6 s at each later one); here 4 kernels
# (k3 at 3 chunks: 3 specializations, and swap) x 5 shapes, ~30 s. 8192^3 with 5 implementations took 17 s (run
# 66, budget 0.1): 6 at budget 0.05, ~18 s. The sweep's 4 cases took 18 s: 3 cases here, ~15 s. ncu of 4 calls
# took 17 s: 2 calls, ~10 s. Autotune picks are cached on disk (TRITON_CACHE_AUTOTUNING), so every later step
# runs what the warm step chose, and printed with their benchmark times (TRITON_PRINT_AUTOTUNING).
step_budget 110
g3_env=(env TRITON_CACHE_AUTOTUNING=1 TRITON_PRINT_AUTOTUNING=1)
g3_new=(triton.swap/default/tf32 triton.k3/default/tf32x3 triton.k3chunk256/default/tf32x3
        triton.k3chunk512/default/tf32x3)

# 1. Compile and autotune the new kernels at every shape used below, before any time-limited test or run (the
#    first compile on a fresh machine takes 15-25 s); print the configs chosen, each with its launch. Which ptxas
#    assembles sm_90 is printed first (triton-lang/triton#11781: ptxas 12.9 and older may reuse a register-input
#    wgmma's registers too early, the suspected cause of swap's wrong BLOCK_M 256 results).
step_run warm 34 "${g3_env[@]}" python3 - "${g3_new[@]}" <<'PY'
import subprocess, sys, time

import torch
import triton

from mage import registry
from mage.backends.precision import precision_mode
from mage.backends.triton import recorded_tunings

try:
    ptxas = triton.knobs.nvidia.ptxas.path
    print("ptxas for sm_90:", ptxas, subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout, flush=True)
except Exception as error:  # the knob moved: the warm-up matters more than this line
    print("ptxas for sm_90: unknown,", error, flush=True)
registry.load()
impls = {i.name: i for i in registry.implementations("matmul")}
for m, k, n in [(8192, 8192, 8192), (4096, 4096, 4096), (2048, 2048, 2048), (1024, 32768, 1024), (1024, 8192, 1024)]:
    a, b = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
    for name in sys.argv[1:]:
        start = time.perf_counter()
        try:
            with precision_mode(impls[name].precision), recorded_tunings() as tunings:
                impls[name].fn(a, b)
                torch.cuda.synchronize()
            print(f"{m}x{k}x{n} {name}: {time.perf_counter() - start:.1f} s; chose {'; '.join(tunings)}", flush=True)
        except Exception as error:  # a kernel that does not compile here costs its own line, not the others
            print(f"{m}x{k}x{n} {name}: FAILED {type(error).__name__}: {error}", flush=True)
PY

# 2. GPU tests (full log, -s prints every error): every swap config at 2048^3 and 4096^3, the refused BLOCK_M 256
#    ones beside the kept ones (the cause, confirmed or not), then the tf32x3 errors at K 8192 (where chunk 256 is
#    modelled level with cuBLAS ieee) and 32768, normal and heavy-tailed, every chunk length beside cuBLAS ieee.
step_run gpu-tests 18 "${g3_env[@]}" python3 -m pytest -q -rA -s -p no:cacheprovider -m gpu tests/test_matmul_k3_gpu.py \
    -k "every_swap_config or deep_k"

# 3. 8192^3 into $db, warm L2: the flush study and the fixed swap against cuBLAS. 2.2x cuBLAS ieee's speed (21,504
#    us in run 66) is at most 0.4545 of its time; 0.95x cuBLAS tf32 at most 1.053 of its time.
step_run large 22 "${g3_env[@]}" python3 scripts/gpu/run_cases.py "$db" '{
  "what": "issue 18: triton.k3 flushing every 128, 256 and 512 columns of K, and triton.swap without BLOCK_M 256, at 8192^3 against cuBLAS",
  "suites": ["large"], "ops": ["matmul"], "caches": ["warm"], "cases": ["8192x8192x8192"],
  "impls": ["eager/default/ieee", "eager/default/tf32", "triton.k3/default/tf32x3", "triton.k3chunk256/default/tf32x3",
            "triton.k3chunk512/default/tf32x3", "triton.swap/default/tf32"],
  "budget": 0.05, "min_samples": 5,
  "hypothesis": "The chunk drain (a full wgmma wait and a register add every 3 x CHUNK of K) is what holds triton.k3 at a 77 % tensor pipe (10,775 us, 2.00x cuBLAS ieee): halving the drains (chunk 256) gains about half the gap to the pipe-bound 3 x tf32 time, chunk 512 a little more, reaching 2.2x cuBLAS ieee. triton.swap is right with wgmma N 128 and, without the transpose launch, within 0.95x of cuBLAS tf32.",
  "predict": ["matmul/triton.k3chunk256/default/tf32x3@8192x8192x8192:kernel<triton.k3/default/tf32x3",
              "matmul/triton.k3chunk512/default/tf32x3@8192x8192x8192:kernel<triton.k3chunk256/default/tf32x3",
              "matmul/triton.k3chunk512/default/tf32x3@8192x8192x8192:kernel<=0.4545*eager/default/ieee",
              "matmul/triton.k3chunk256/default/tf32x3@8192x8192x8192:launches<=2",
              "matmul/triton.swap/default/tf32@8192x8192x8192:kernel<=1.053*eager/default/tf32",
              "matmul/triton.swap/default/tf32@8192x8192x8192:launches<=1"]
}'

# 4. 4096^3 and 2048^3 (where swap was wrong and tf32x3 must beat cuBLAS ieee), and the deep-K case's error (the
#    worse of the normal and heavy-tailed contract draws) against cuBLAS ieee's.
step_run sweep 18 "${g3_env[@]}" python3 scripts/gpu/run_cases.py "$db" '{
  "what": "issue 18: triton.k3 at chunks 128, 256 and 512 and triton.swap at 4096^3, 2048^3 and 1024 x 32768 x 1024 against cuBLAS",
  "suites": ["sweep"], "ops": ["matmul"], "caches": ["warm"],
  "cases": ["4096x4096x4096", "2048x2048x2048", "1024x32768x1024"],
  "impls": ["eager/default/ieee", "eager/default/tf32", "triton.k3/default/tf32x3", "triton.k3chunk256/default/tf32x3",
            "triton.k3chunk512/default/tf32x3", "triton.swap/default/tf32"],
  "budget": 0.05, "min_samples": 5,
  "hypothesis": "tf32x3 over K = 3K beats cuBLAS ieee at 4096^3 and 2048^3 at every chunk length; at K 32768 the modelled errors (chunk 128: 5.0e-7, 256: 8.2e-7, 512: 1.6e-6) put 128 and 256 under cuBLAS ieee (1.6e-6) and 512 level with it. triton.swap passes its contract at 4096^3 and 2048^3.",
  "predict": ["matmul/triton.k3/default/tf32x3@4096x4096x4096:kernel<eager/default/ieee",
              "matmul/triton.k3chunk256/default/tf32x3@4096x4096x4096:kernel<triton.k3/default/tf32x3",
              "matmul/triton.k3/default/tf32x3@2048x2048x2048:kernel<eager/default/ieee",
              "matmul/triton.k3/default/tf32x3@1024x32768x1024:rel_error<=eager/default/ieee",
              "matmul/triton.k3chunk256/default/tf32x3@1024x32768x1024:rel_error<=eager/default/ieee",
              "matmul/triton.swap/default/tf32@4096x4096x4096:kernel<=1.053*eager/default/tf32",
              "matmul/triton.swap/default/tf32@2048x2048x2048:kernel<=1.053*eager/default/tf32"]
}'

# 5. ncu at 8192^3 (clocks as they run), one warmed call each: the swap and the fastest of the three k3 chunk
#    lengths in step 3's run (its split and product): tensor-pipe and SM utilisation, registers, warps active,
#    DRAM throughput, shared memory per block, shared-memory load bank conflicts.
g3_k3=$(python3 - "$db" <<'PY' 2>>"$out/gemm3/steps.log" || echo triton.k3chunk256/default/tf32x3
import sqlite3, sys

from mage.store import Store

k3 = {"triton.k3/default/tf32x3", "triton.k3chunk256/default/tf32x3", "triton.k3chunk512/default/tf32x3"}
store = Store(sys.argv[1])
for (run,) in sqlite3.connect(sys.argv[1]).execute("SELECT id FROM runs ORDER BY id DESC LIMIT 3"):
    timed = [(row["kernel_us"], row["impl"]) for row in store.rows(run) if row["impl"] in k3
             and row["case"] == "8192x8192x8192" and row["status"] == "pass" and row.get("kernel_us")]
    if timed:
        print(min(timed)[1])
        break
else:
    print("triton.k3chunk256/default/tf32x3")  # step 3 stored nothing: the middle length
PY
)
echo "ncu: the fastest k3 at 8192^3: $g3_k3" | tee -a "$out/gemm3/steps.log"
g3_metrics=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__shared_mem_per_block_dynamic,launch__grid_size,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,gpu__time_duration.sum
step_run ncu 14 "${g3_env[@]}" ncu --clock-control none --profile-from-start off --csv --metrics "$g3_metrics" \
    --log-file "$out/gemm3/ncu.csv" python3 scripts/gpu/ncu_calls.py "matmul,triton.swap/default/tf32,8192x8192x8192" \
    "matmul,$g3_k3,8192x8192x8192"
