# Dense matmul at IEEE accuracy and at bf16/fp16 (issue #18) on the H200: sourced by scripts/h200.sh after
# its setup, from the repo root, with PYTHONPATH set, $out the results folder, $db the store to append to
# and `mage` defined. Budget 150 s in all: GPU tests 40 s, a sweep run 30 s, a large run 48 s, one ncu pass
# 28 s (each bounded by timeout: SIGTERM, then SIGKILL 2 s later). Nothing here stops the script: every
# step ends in || true. An interrupted run keeps its finished cases (marked incomplete): `mage run --resume N
# --db …` continues it in a later call. Everything is written under $out/gemm/.
gemm_out=$out/gemm
mkdir -p "$gemm_out"

# 1. GPU tests: every bf16/fp16 implementation of matmul, bias_gelu and layernorm against eager at its
#    precision; matmul's paths (TMA persistent, tile kernel); tf32x3 in one launch is one kernel; tf32x3's
#    error at K 8192 and 32768 (normal and heavy-tailed) against cuBLAS ieee's. Full log, errors printed (-s).
timeout -k 2 40 python3 -m pytest -q -rA -s -p no:cacheprovider -m gpu tests/test_matmul_gpu.py \
    > "$gemm_out/gpu-tests.log" 2>&1 || true
tail -15 "$gemm_out/gpu-tests.log" || true

# 2. Matmul runs into $db: cuBLAS (eager) at ieee, tf32, bf16 and fp16; Triton tf32, tf32x3 split beforehand
#    (three launches) and in the load path (one launch), bf16; native ieee (operands through registers, and
#    by cp.async in slices of 16 × 2 buffers or 8 × 4). The sweep holds 256³, 2048³, 4096³
#    and the deep-K error cases 1024×8192×1024 and 1024×32768×1024; the large suite 8192³ (cuBLAS ieee is
#    21 ms a call: few samples). Warm L2 only: at these sizes the products are compute-bound.
gemm_impls=(--impl eager --impl triton/default/tf32 --impl triton/default/tf32x3 --impl triton.onelaunch
            --impl triton/default/bf16 --impl native/default/ieee --impl native.cpasync16 --impl native.cpasync8x4)
gemm_flags=(--op matmul --path single --no-isolate --min-samples 6 --db "$db")
timeout -k 2 30 python3 -m mage run --suite sweep "${gemm_impls[@]}" "${gemm_flags[@]}" --budget 0.15 \
    --hypothesis "tf32x3 (three TF32 products) is faster than cuBLAS's FP32 FMA matmul at 2048³ and 4096³ at no more error, and stays at IEEE accuracy at K 8192 and 32768; bf16 and fp16 pass their contracts against cuBLAS at the same precision." \
    --predict "matmul/triton/default/tf32x3@4096x4096x4096:kernel<eager/default/ieee" \
    --predict "matmul/triton.onelaunch/default/tf32x3@4096x4096x4096:kernel<eager/default/ieee" \
    --predict "matmul/triton/default/tf32x3@2048x2048x2048:kernel<eager/default/ieee" \
    > "$gemm_out/run-sweep.log" 2>&1 || true
timeout -k 2 48 python3 -m mage run --suite large "${gemm_impls[@]}" "${gemm_flags[@]}" --budget 0.1 \
    --hypothesis "At 8192³: tf32x3 at 2.2× cuBLAS ieee's speed at no more error; Triton tf32 within 0.95× of cuBLAS tf32; native ieee within 0.9× of cuBLAS ieee; Triton bf16 within 0.9× of cuBLAS bf16." \
    --predict "matmul/triton/default/tf32x3@8192x8192x8192:kernel<=0.4545*eager/default/ieee" \
    --predict "matmul/triton.onelaunch/default/tf32x3@8192x8192x8192:kernel<=0.4545*eager/default/ieee" \
    --predict "matmul/triton/default/tf32@8192x8192x8192:kernel<=1.053*eager/default/tf32" \
    --predict "matmul/native/default/ieee@8192x8192x8192:kernel<=1.111*eager/default/ieee" \
    --predict "matmul/native.cpasync16/default/ieee@8192x8192x8192:kernel<=1.111*eager/default/ieee" \
    --predict "matmul/native.cpasync8x4/default/ieee@8192x8192x8192:kernel<=1.111*eager/default/ieee" \
    --predict "matmul/triton/default/bf16@8192x8192x8192:kernel<=1.111*eager/default/bf16" \
    > "$gemm_out/run-large.log" 2>&1 || true
grep -v "^│\|^┃\|^┏\|^┡\|^└" "$gemm_out/run-sweep.log" "$gemm_out/run-large.log" | tail -40 || true
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db" || true

# 3. ncu at 8192³ (clocks as they run): tf32x3 split beforehand (its two split kernels and the product),
#    tf32x3 in one launch, native ieee (all three strategies) and cuBLAS ieee beside them: SM and tensor-pipe utilisation, DRAM
#    throughput, registers a thread, shared memory a block, time.
timeout -k 2 28 ncu --clock-control none --profile-from-start off --csv \
    --metrics sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
    python3 - > "$gemm_out/ncu.csv" 2> "$gemm_out/ncu.log" <<'PY' || true
import torch
from mage import registry
from mage.backends.precision import precision_mode

spec = registry.get_op("matmul")
case = spec.case("8192x8192x8192")
a, b = spec.make_inputs(case, case.seed, "cuda")
impls = {i.name: i for i in registry.implementations("matmul")}
names = ["triton/default/tf32x3", "triton.onelaunch/default/tf32x3", "native/default/ieee",
         "native.cpasync16/default/ieee", "native.cpasync8x4/default/ieee", "eager/default/ieee"]
for name in names:  # compile, autotune and warm outside the profiled range
    with precision_mode(impls[name].precision):
        impls[name].fn(a, b)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
for name in names:
    with precision_mode(impls[name].precision):
        impls[name].fn(a, b)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
print("profiled in order:", names)
PY
tail -5 "$gemm_out/ncu.log" || true
