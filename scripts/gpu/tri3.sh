# triangle (issue 16, tf32 ≤ 270 us and ieee ≤ 1000 us at B1 N512 C128): triton.relayout3 with two-warpgroup
# GEMM configs (8 warps: 128 × 256 at BLOCK_K 16, 128 × 128 at 3–4 stages), a TMA-store channel-first
# epilogue and more relayout boxes, at tf32, tf32x3 (ieee's error), bf16 and ieee, against eager; ncu of its
# three kernels at N 512 tf32. Sourced by scripts/h200.sh after its setup (repo root as cwd, PYTHONPATH set,
# $out, $db, mage(), step_budget/step_run); not executable by itself. Writes only under $out/tri3/. 120 s in all.
step_budget 120
tri3=$out/tri3
mkdir -p "$tri3"

# 1. Compile and autotune every kernel the later steps launch at N 512 (the run's key; the other Ns tune in
#    the run from the disk cache), one process per precision in parallel so that the compiles (6 tf32 GEMM
#    configs, 8 relayout configs per dtype and stride pattern) overlap. Each prints its time and chosen configs.
tri3_warm='
import sys, time, torch
from mage import registry
from mage.ops.triangle.spec import SPEC
impls = {i.name: i for i in registry.implementations("triangle")}
for name in sys.argv[1].split(","):
    impl = impls[name]
    case = SPEC.case("B1-N512-C128")
    a, b = SPEC.make_inputs_at(case, 1, "cuda", "normal", impl.precision)
    start = time.time()
    impl.fn(a, b)
    torch.cuda.synchronize()
    print(f"{name}: {time.time() - start:.1f} s", flush=True)
'
export tri3_warm
# A cut step's SIGTERM reaches the bash below, whose trap ends its background compiles (else they would run on).
step_run warm 30 bash -c 'trap "kill \$(jobs -p) 2>/dev/null" TERM; for group in \
        triton.relayout3/outgoing/tf32 triton.relayout3/incoming/tf32 triton.relayout3/outgoing/tf32x3 \
        triton.relayout3/outgoing/bf16 triton.relayout3/outgoing/ieee; do
    TRITON_PRINT_AUTOTUNING=1 python3 -c "$tri3_warm" "$group" 2>&1 | sed "s|^|[$group] |" &
done; wait'

# 2. GPU tests (full log): relayout3's tf32 contract at the seed and large cases (full autotune lists: every
#    new config runs; each test prints its error and chosen configs) and ragged shapes (TMA stores clipped at
#    each channel's edges, a part-full channel group).
step_run gpu-tests 20 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_triangle_relayout_gpu.py -k relayout3

# 3. The run, cold L2, single path, in-process: the target case first, then N 768, N 1024, the seed and the
#    channel-first layout (no relayout in). From run 65 (13 impls, 6 cases: 55 s) ~30 s for these 8 impls,
#    with start-up; cut at its cap it keeps its finished cases (incomplete).
step_run run 45 env TRITON_PRINT_AUTOTUNING=1 python3 scripts/gpu/run_cases.py "$db" '{
  "what": "issue 16: triton.relayout3 with two-warpgroup GEMM configs and a TMA-store epilogue, at tf32, tf32x3, bf16 and ieee, against eager",
  "suites": ["large", "sweep", "seed"], "ops": ["triangle"], "caches": ["cold"],
  "cases": ["B1-N512-C128", "B1-N768-C128", "B1-N1024-C128", "B1-N128-C64", "B1-N512-C128-channel-first"],
  "impls": ["triton.relayout3/outgoing/tf32", "triton.relayout3/incoming/tf32", "triton.relayout3/outgoing/tf32x3",
            "triton.relayout3/outgoing/bf16", "triton.relayout3/outgoing/ieee", "eager/outgoing/tf32",
            "eager/outgoing/ieee", "eager/outgoing/bf16"],
  "budget": 0.05, "min_samples": 10,
  "hypothesis": "Run 65 at N 512 tf32: relayout in 141 us (75 % of DRAM peak), GEMM 153 us (one warpgroup of 4 warps chosen, tensor pipe 52 % active, one program an SM whose register-to-global epilogue stalls it), relayout out 66 us: 361 us. Two consumer warpgroups (8 warps; 128 x 128 at 3-4 stages and 128 x 256 at BLOCK_K 16 fit beside the TMA store buffers of the channel-first epilogue) and asynchronous TMA stores that overlap the next tile bring the GEMM to ~100 us (its DRAM floor: 400 MB, ~85 us); smaller relayout boxes (more programs an SM) and 256-byte channel runs bring each relayout toward 85-90 % of DRAM peak (~125 + ~60 us). Expected tf32 ~270-290 us at N 512 (3 launches), 2 launches and ~150 us on channel-first inputs; tf32x3 (three tf32 products, ieee error) ~400 us, well under 1000 and under eager ieee; bf16 under eager bf16.",
  "predict": ["triangle/triton.relayout3/outgoing/tf32@B1-N512-C128[single/cold]:kernel<=270",
              "triangle/triton.relayout3/incoming/tf32@B1-N512-C128[single/cold]:kernel<=270",
              "triangle/triton.relayout3/outgoing/tf32@B1-N512-C128[single/cold]:launches<=3",
              "triangle/triton.relayout3/outgoing/tf32x3@B1-N512-C128[single/cold]:kernel<=1000",
              "triangle/triton.relayout3/outgoing/tf32x3@B1-N512-C128[single/cold]:kernel<eager/outgoing/ieee",
              "triangle/triton.relayout3/outgoing/bf16@B1-N512-C128[single/cold]:kernel<eager/outgoing/bf16",
              "triangle/triton.relayout3/outgoing/ieee@B1-N512-C128[single/cold]:kernel<eager/outgoing/ieee",
              "triangle/triton.relayout3/outgoing/tf32@B1-N512-C128-channel-first[single/cold]:kernel<=160",
              "triangle/triton.relayout3/outgoing/tf32@B1-N512-C128-channel-first[single/cold]:launches<=2",
              "triangle/triton.relayout3/outgoing/tf32@B1-N768-C128[single/cold]:kernel<=700",
              "triangle/triton.relayout3/outgoing/tf32@B1-N1024-C128[single/cold]:kernel<=1400",
              "triangle/triton.relayout3/outgoing/tf32x3@B1-N1024-C128[single/cold]:kernel<eager/outgoing/ieee",
              "triangle/triton.relayout3/outgoing/tf32@B1-N128-C64[single/cold]:kernel<eager/outgoing/tf32"]
}'

# 4. The config every autotuned result of the run launched with (the store's tuning column), and its kernels.
step_run tuning 4 python3 -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
run = db.execute("SELECT max(id) FROM runs").fetchone()[0]
print("run", run)
for row in db.execute("""SELECT c.name, i.name, r.status, r.reason, r.kernel_us, r.launches, r.kernel_names, r.tuning
                         FROM results r JOIN cases c ON c.id = r.case_id JOIN implementations i ON i.id = r.impl_id
                         WHERE r.run_id = ? ORDER BY r.id""", (run,)):
    print(*row, sep=" | ")
' "$db"

# 5. ncu of one warmed call at B1 N512 C128 (tf32, outgoing): relayout3's relayout in, GEMM and relayout out,
#    with tri2's metrics (DRAM throughput and bytes, L2 hit rate, tensor pipe, registers, warps active) and
#    sections (stall reasons, occupancy, shared memory per block), to compare with run 65's.
tri3_metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum
tri3_metrics=$tri3_metrics,lts__t_sector_hit_rate.pct,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
tri3_metrics=$tri3_metrics,sm__inst_executed_pipe_tensor_op_gmma.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
step_run ncu 20 ncu --clock-control none --profile-from-start off --kernel-name regex:_triangle_ \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --metrics "$tri3_metrics" \
    python3 scripts/gpu/ncu_calls.py "triangle,triton.relayout3/outgoing/tf32,B1-N512-C128"
