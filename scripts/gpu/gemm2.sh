# Issue #18's GEMM targets on the H200, second try: triton.k3 / triton.k3map (tf32x3 as one tf32 GEMM over
# K' = 3K, two launches) against cuBLAS ieee (target 2.2x its speed at 8192^3, ahead at 4096^3 and 2048^3, error at
# most its own at K 8192 and 32768), and triton.swap (tf32 as c^T = b^T a^T in one launch) against cuBLAS tf32
# (target 0.95x). Sourced by scripts/h200.sh after its setup (repo root as cwd, PYTHONPATH set, $out, $db, mage(),
# step_budget/step_run); not executable by itself. Writes only under $out/gemm2/. Budget 150 s: warm 40, GPU
# tests 30, 8192^3 30, the sweep 25, ncu 30 and the session-26 kernels with the rest, each step also bounded by
# what is left (step_run: logs $out/gemm2/NAME.log, exit codes in steps.log); none stops the others.
#
# Step times, from the stored runs (results/h200/mage.db, runs 44-45) and session 26's logs: a Triton config
# compiles and benchmarks in about 0.7 s there (6 configs, 4 s), so the warm step's 3 new kernels x 5 configs,
# 2 split kernels and 5 shapes take ~25 s; the GPU tests then reuse the disk caches (~15 s); an 8192^3 case of 5
# implementations took ~10 s in run 45 (cuBLAS ieee 21 ms a call, --budget 0.1 keeps its repetitions low); the
# sweep's 4 smaller cases ~15 s; ncu ~20 s. Autotune picks are cached on disk (TRITON_CACHE_AUTOTUNING), so every
# later step runs what the warm step chose, and printed with their benchmark times (TRITON_PRINT_AUTOTUNING).
step_budget 150
g2_env=(env TRITON_CACHE_AUTOTUNING=1 TRITON_PRINT_AUTOTUNING=1)
g2_new=(triton.k3/default/tf32x3 triton.k3map/default/tf32x3 triton.swap/default/tf32)

# 1. Compile and autotune the new kernels at every shape measured below, before any time-limited test or run (the
#    first compile on a fresh machine takes 15-25 s); print the configs chosen, each with its launch.
step_run warm 40 "${g2_env[@]}" python3 - "${g2_new[@]}" <<'PY'
import sys, time

import torch

from mage import registry
from mage.backends.precision import precision_mode
from mage.backends.triton import recorded_tunings

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

# 2. GPU tests (full log, -s prints every error, launch list and config): contracts of the new implementations on
#    the TMA path, ragged tiles and the fallback; launches (k3: split + product, swap: one); the tf32x3 error at
#    K 8192 and 32768, normal and heavy-tailed, against cuBLAS ieee's.
step_run gpu-tests 30 "${g2_env[@]}" python3 -m pytest -q -rA -s -p no:cacheprovider -m gpu tests/test_matmul_k3_gpu.py

# 3. 8192^3 into $db, warm L2 (compute-bound at this size): the new implementations against cuBLAS ieee and tf32.
#    2.2x cuBLAS ieee's speed (21,440 us in run 45) is at most 0.4545 of its time; 0.95x cuBLAS tf32 is at most
#    1.053 of its time.
step_run large 30 "${g2_env[@]}" python3 scripts/gpu/run_cases.py "$db" '{
  "what": "issue 18: tf32x3 over K = 3K (triton.k3, triton.k3map) and tf32 as cT = bT aT (triton.swap) at 8192^3 against cuBLAS",
  "suites": ["large"], "ops": ["matmul"], "caches": ["warm"], "cases": ["8192x8192x8192"],
  "impls": ["eager/default/ieee", "eager/default/tf32", "triton.k3/default/tf32x3", "triton.k3map/default/tf32x3",
            "triton.swap/default/tf32"],
  "budget": 0.1, "min_samples": 6,
  "hypothesis": "tf32x3 as one tf32 GEMM over K = 3K (one async wgmma chain a K step, an RN flush every 128 columns of K) runs near 3x the TMA tf32 GEMM (2,837 us) plus a split of about 0.5 ms: 2.2x cuBLAS ieee or better; k3map, writing hi once, is faster by about 0.15 ms. tf32 with b as the wgmma register operand removes the 462 us transpose launch: 0.95x cuBLAS tf32 or better.",
  "predict": ["matmul/triton.k3/default/tf32x3@8192x8192x8192:kernel<=0.4545*eager/default/ieee",
              "matmul/triton.k3map/default/tf32x3@8192x8192x8192:kernel<=0.4545*eager/default/ieee",
              "matmul/triton.k3map/default/tf32x3@8192x8192x8192:kernel<triton.k3/default/tf32x3",
              "matmul/triton.k3/default/tf32x3@8192x8192x8192:launches<=2",
              "matmul/triton.swap/default/tf32@8192x8192x8192:kernel<=1.053*eager/default/tf32",
              "matmul/triton.swap/default/tf32@8192x8192x8192:launches<=1"]
}'

# 4. 4096^3 and 2048^3 (tf32x3 ahead of cuBLAS ieee there too), and the deep-K cases' errors (each the worse of the
#    normal and heavy-tailed contract draws) against cuBLAS ieee's.
step_run sweep 25 "${g2_env[@]}" python3 scripts/gpu/run_cases.py "$db" '{
  "what": "issue 18: triton.k3, k3map and swap at 4096^3, 2048^3 and deep K (1024 x 32768 x 1024, 1024 x 8192 x 1024) against cuBLAS",
  "suites": ["sweep"], "ops": ["matmul"], "caches": ["warm"],
  "cases": ["4096x4096x4096", "2048x2048x2048", "1024x32768x1024", "1024x8192x1024"],
  "impls": ["eager/default/ieee", "eager/default/tf32", "triton.k3/default/tf32x3", "triton.k3map/default/tf32x3",
            "triton.swap/default/tf32"],
  "budget": 0.1, "min_samples": 6,
  "hypothesis": "tf32x3 over K = 3K beats cuBLAS ieee at 4096^3 and 2048^3, and its error at K 8192 and 32768 is at most that of cuBLAS ieee (an RN flush every 128 columns: modelled 4.4e-7 and 5.0e-7 against cuBLAS 8.2e-7 and 1.6e-6).",
  "predict": ["matmul/triton.k3/default/tf32x3@4096x4096x4096:kernel<eager/default/ieee",
              "matmul/triton.k3/default/tf32x3@2048x2048x2048:kernel<eager/default/ieee",
              "matmul/triton.k3map/default/tf32x3@4096x4096x4096:kernel<eager/default/ieee",
              "matmul/triton.k3map/default/tf32x3@2048x2048x2048:kernel<eager/default/ieee",
              "matmul/triton.k3/default/tf32x3@1024x32768x1024:rel_error<=eager/default/ieee",
              "matmul/triton.k3map/default/tf32x3@1024x32768x1024:rel_error<=eager/default/ieee",
              "matmul/triton.k3/default/tf32x3@1024x8192x1024:rel_error<=eager/default/ieee",
              "matmul/triton.k3map/default/tf32x3@1024x8192x1024:rel_error<=eager/default/ieee"]
}'

# 5. ncu at 8192^3 (clocks as they run), one warmed call each: the split and product of k3 and k3map, swap, and
#    cuBLAS tf32 beside it: tensor-pipe and SM utilisation, registers, warps active, DRAM throughput, shared memory
#    per block, and shared-memory load bank conflicts (swap loads b's tile into registers for the wgmma).
g2_metrics=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__shared_mem_per_block_dynamic,launch__grid_size,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,gpu__time_duration.sum
step_run ncu 30 "${g2_env[@]}" ncu --clock-control none --profile-from-start off --csv --metrics "$g2_metrics" \
    --log-file "$out/gemm2/ncu.csv" python3 scripts/gpu/ncu_calls.py "matmul,triton.k3/default/tf32x3,8192x8192x8192" \
    "matmul,triton.k3map/default/tf32x3,8192x8192x8192" "matmul,triton.swap/default/tf32,8192x8192x8192" \
    "matmul,eager/default/tf32,8192x8192x8192"

# 6. With what is left: the current best Triton tf32x3 and tf32 (runs 44-45: triton.persistent 11,040 us, triton
#    3,495 us) at 8192^3 beside cuBLAS in one more run, so the new kernels can be read against them on one clock.
step_run old-best 30 "${g2_env[@]}" python3 scripts/gpu/run_cases.py "$db" '{
  "what": "issue 18: the session-26 best Triton tf32x3 and tf32 at 8192^3 beside cuBLAS, for the new kernels of this call",
  "suites": ["large"], "ops": ["matmul"], "caches": ["warm"], "cases": ["8192x8192x8192"],
  "impls": ["eager/default/ieee", "eager/default/tf32", "triton.persistent/default/tf32x3", "triton/default/tf32"],
  "budget": 0.1, "min_samples": 6,
  "hypothesis": "The session-26 kernels reproduce: triton.persistent tf32x3 near 11,040 us (1.94x cuBLAS ieee), triton tf32 near 3,495 us (0.86x cuBLAS tf32).",
  "predict": ["matmul/triton.persistent/default/tf32x3@8192x8192x8192:kernel>0.4545*eager/default/ieee",
              "matmul/triton/default/tf32@8192x8192x8192:kernel>1.053*eager/default/tf32"]
}'
