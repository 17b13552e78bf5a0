# Issue #18's GEMM speed targets on the H200: triton.persistent (tf32, and tf32x3 in two launches) against
# cuBLAS, the old Triton tf32 and the 3-launch and one-launch tf32x3; the deep-K error of every IEEE-class
# implementation. Sourced by scripts/h200.sh after its setup, from the repo root, with PYTHONPATH set, $out
# the results folder, $db the store to append to and `mage` defined (under set -euo pipefail: every step
# ends in || true). Budget 170 s: GPU tests 35 s, the sweep run 55 s, the large run 50 s, ncu 20 s, each
# bounded by timeout (SIGTERM, then SIGKILL 2 s later: 8 s more at worst). An interrupted run keeps its
# finished cases (marked incomplete). Everything is written under $out/gemm-fast/.
# Most of the time goes to compiling autotune configs (about 40 kernels, once each: Triton's disk cache
# serves the later steps); autotune results are cached on disk too, so ncu reuses the large run's picks,
# and every pick is printed with its benchmark time (TRITON_PRINT_AUTOTUNING).
fast_out=$out/gemm-fast
mkdir -p "$fast_out"
fast_env=(env TRITON_CACHE_AUTOTUNING=1 TRITON_PRINT_AUTOTUNING=1)

# 1. GPU tests (full log, -s prints every error and launch list): contracts of triton.persistent tf32 and
#    tf32x3 on the TMA path and the fallback, two launches, tf32x3's error at K 8192 and 32768 (normal and
#    heavy-tailed) against cuBLAS ieee's, and the autotune configs chosen. They compile every config of the
#    new kernels once.
"${fast_env[@]}" timeout -k 2 35 python3 -m pytest -q -rA -s -p no:cacheprovider -m gpu tests/test_matmul_persistent_gpu.py \
    > "$fast_out/gpu-tests.log" 2>&1 || true
grep -E "passed|failed|FAIL|Error|K [0-9]+ |launches|^triton.persistent" "$fast_out/gpu-tests.log" | tail -40 || true

# 2. The sweep into $db: the deep-K cases (1024×8192×1024, 1024×32768×1024) run first, so their errors
#    (each the worst of the normal and heavy-tailed contract draws) are stored even if the step is cut;
#    then 256³, 2048³ and 4096³ for the speed against cuBLAS ieee. IEEE-class implementations, plus the
#    tf32 ones. Warm L2: at these sizes the products are compute-bound.
fast_impls=(--impl eager/default/ieee --impl eager/default/tf32 --impl triton.persistent --impl triton/default/tf32
            --impl triton/default/tf32x3)
fast_flags=(--op matmul --path single --no-isolate --min-samples 6 --db "$db")
"${fast_env[@]}" timeout -k 2 55 python3 -m mage run --suite sweep "${fast_impls[@]}" --impl triton.onelaunch \
    --impl triton/default/ieee --impl native/default/ieee \
    "${fast_flags[@]}" --budget 0.1 \
    --hypothesis "tf32x3 in two launches (triton.persistent) is at least as accurate as cuBLAS ieee at K 8192 and 32768 and faster than it at 2048³ and 4096³." \
    --predict "matmul/triton.persistent/default/tf32x3@4096x4096x4096:kernel<eager/default/ieee" \
    --predict "matmul/triton.persistent/default/tf32x3@2048x2048x2048:kernel<eager/default/ieee" \
    > "$fast_out/run-sweep.log" 2>&1 || true

# 3. 8192³ into $db (cuBLAS ieee 21 ms a call: few samples; the one-launch tf32x3, 27 ms a call in run 37,
#    is left to the sweep).
"${fast_env[@]}" timeout -k 2 50 python3 -m mage run --suite large "${fast_impls[@]}" "${fast_flags[@]}" --budget 0.1 \
    --hypothesis "At 8192³: tf32x3 in two launches at 2.2× cuBLAS ieee's speed at no more error; Triton tf32 persistent within 0.95× of cuBLAS tf32." \
    --predict "matmul/triton.persistent/default/tf32x3@8192x8192x8192:kernel<=0.4545*eager/default/ieee" \
    --predict "matmul/triton.persistent/default/tf32x3@8192x8192x8192:kernel<triton/default/tf32x3" \
    --predict "matmul/triton.persistent/default/tf32@8192x8192x8192:kernel<=1.053*eager/default/tf32" \
    > "$fast_out/run-large.log" 2>&1 || true
grep -v "^│\|^┃\|^┏\|^┡\|^└" "$fast_out/run-sweep.log" "$fast_out/run-large.log" | tail -40 || true
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db" || true
# The configs the runs chose, and every matmul row of the two runs (time, launches, error).
python3 - "$db" > "$fast_out/rows.txt" 2>&1 <<'PY' || true
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
runs = [r for (r,) in db.execute("SELECT id FROM runs ORDER BY id DESC LIMIT 2")]
for row in db.execute(
        "SELECT r.run_id, c.name, i.name, r.status, r.kernel_us, r.launches, r.rel_error, r.tuning FROM results r "
        "JOIN cases c ON c.id = r.case_id JOIN implementations i ON i.id = r.impl_id "
        f"WHERE r.run_id IN ({','.join('?' * len(runs))}) ORDER BY c.name, r.kernel_us", runs):
    print(" | ".join("" if v is None else f"{v:.4g}" if isinstance(v, float) else str(v) for v in row))
PY
cat "$fast_out/rows.txt" || true

# 4. ncu at 8192³ (clocks as they run): triton.persistent tf32 (transpose and product) and tf32x3 (split and
#    product), beside the old 3-launch tf32x3 and cuBLAS tf32: SM and tensor-pipe utilisation, registers,
#    warps active, DRAM throughput, shared memory, time.
"${fast_env[@]}" timeout -k 2 20 ncu --clock-control none --profile-from-start off --csv \
    --metrics sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
    python3 - > "$fast_out/ncu.csv" 2> "$fast_out/ncu.log" <<'PY' || true
import torch
from mage import registry
from mage.backends.precision import precision_mode
from mage.ops.matmul import triton_persistent

spec = registry.get_op("matmul")
case = spec.case("8192x8192x8192")
a, b = spec.make_inputs(case, case.seed, "cuda")
impls = {i.name: i for i in registry.implementations("matmul")}
names = ["triton.persistent/default/tf32", "triton.persistent/default/tf32x3", "triton/default/tf32x3", "eager/default/tf32"]
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
for precision, kernel in triton_persistent.TMA_KERNELS.items():
    print("chosen", precision, {key: str(config) for key, config in kernel.cache.items()})
PY
cat "$fast_out/ncu.log" || true
