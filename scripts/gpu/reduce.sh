# The reduction study (issue #19) on the H200: sourced by scripts/h200.sh after its setup, from the repo
# root, with PYTHONPATH set, $out the results folder, $db the store to append to and `mage` defined.
# Budget 150 s in all: GPU tests 22 + 10 s, two study runs of 38 s, one ncu pass of 28 s (each bounded
# by timeout: SIGTERM, then SIGKILL 2 s later). Nothing here stops the script: every step ends in || true.
# An interrupted study run keeps its finished cases (marked incomplete): `mage run --resume N --db …`
# continues it in a later call. Everything is written under $out/reduce/.
reduce_out=$out/reduce
mkdir -p "$reduce_out"

# 1. GPU tests of the new kernels: the Triton strategies at widths across their limits (large-mean
#    contract included), then the native softmax kernels through both host paths. Full logs.
timeout -k 2 22 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_reduction_gpu.py \
    > "$reduce_out/gpu-tests-triton.log" 2>&1 || true
timeout -k 2 10 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_native_gpu.py -k "softmax and not large" \
    > "$reduce_out/gpu-tests-native.log" 2>&1 || true
tail -5 "$reduce_out/gpu-tests-triton.log" "$reduce_out/gpu-tests-native.log" || true

# 2. The study: every strategy at the ten widths (256 MB of input each), one op a run so that both get
#    measured inside the budget. Warm L2 only: each case's bytes are 9× the L2, so warm and cold agree
#    and the memory floor holds. Case names: ROWSxCOLS-study (mage.backends.rows).
study_impls=(--impl eager --impl native --impl triton.registers --impl triton.warp --impl triton.split
             --impl triton.online --impl triton.twopass)
study_flags=(--suite reduction --path single --no-isolate --budget 0.2 --min-samples 10 --db "$db")
# Copy floor at 537 MB a case (256 MB in, 256 MB out) and 4.25 TB/s: 126 µs; 0.9 of it is 140 µs.
timeout -k 2 90 python3 -m mage run --op layernorm "${study_impls[@]}" --impl triton.naive "${study_flags[@]}" \
    --hypothesis "LayerNorm: the best strategy changes with the row width. A warp per row wins on narrow rows (many rows, no block barrier); whole rows in registers win up to 16384 columns (one read); beyond registers, few rows leave SMs idle, so the split (a row over many programs) beats one program a row at 262144, and online Welford (two reads) beats two-pass (three). The naive E[x²]−E[x]² fails the large-mean contract and is never timed." \
    --predict "layernorm/triton.warp@1048576x64-study:kernel<triton.registers" \
    --predict "layernorm/triton.registers@16384x4096-study:kernel<=triton.online" \
    --predict "layernorm/triton.registers@16384x4096-study:kernel<140" \
    --predict "layernorm/triton.split@256x262144-study:kernel<triton.online" \
    --predict "layernorm/triton.online@256x262144-study:kernel<triton.twopass" \
    --predict "layernorm/triton.split@1048576x64-study:kernel>triton.warp" \
    > "$reduce_out/study-layernorm.log" 2>&1 || true
timeout -k 2 90 python3 -m mage run --op softmax "${study_impls[@]}" "${study_flags[@]}" \
    --hypothesis "Softmax: the same crossovers as LayerNorm. A warp per row wins on narrow rows; registers up to 16384 columns reach 0.9 of the copy rate; at 262144 columns (256 rows) the split beats one program a row, and online max-and-sum (two reads) beats two-pass (three)." \
    --predict "softmax/triton.warp@1048576x64-study:kernel<triton.registers" \
    --predict "softmax/triton.registers@16384x4096-study:kernel<140" \
    --predict "softmax/native@65536x1024-study:kernel<140" \
    --predict "softmax/triton.split@256x262144-study:kernel<triton.online" \
    --predict "softmax/triton.online@256x262144-study:kernel<triton.twopass" \
    > "$reduce_out/study-softmax.log" 2>&1 || true
grep -v "^│\|^┃\|^┏\|^┡\|^└" "$reduce_out/study-layernorm.log" "$reduce_out/study-softmax.log" | tail -40 || true
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db" || true

# 3. ncu on the kernels behind the two crossovers: at 262144 columns one program a row (online) against
#    the split's two kernels (occupancy: 256 programs for 132 SMs), at 64 columns a warp a program
#    against a multi-warp one (registers a thread, achieved occupancy, DRAM throughput).
timeout -k 2 28 ncu --clock-control none --profile-from-start off --csv \
    --metrics launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum \
    python3 - > "$reduce_out/ncu.csv" 2> "$reduce_out/ncu.log" <<'PY' || true
import torch
from mage import registry

CALLS = [("layernorm", "triton.online/affine/ieee", "256x262144-study"),
         ("layernorm", "triton.split/affine/ieee", "256x262144-study"),
         ("softmax", "triton.warp/rows/ieee", "1048576x64-study"),
         ("softmax", "triton.registers/rows/ieee", "1048576x64-study")]
work = []
for op, name, case_name in CALLS:
    spec = registry.get_op(op)
    impl = next(i for i in registry.implementations(op) if i.name == name)
    case = spec.case(case_name)
    inputs = spec.make_inputs(case, case.seed, "cuda")
    impl.fn(*inputs)  # compile and warm outside the profiled range
    work.append((impl, inputs))
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
for impl, inputs in work:
    impl.fn(*inputs)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
PY
