# triangle (issue 16, tf32 and ieee targets): triton.relayout (a K-major relayout launch and a persistent TMA
# GEMM whose epilogue writes channel-last: 2 launches) and triton.relayout3 (the GEMM writes channel-first
# and a third launch copies it back), against eager, triton.split and native; the layout study (the
# channel-first cases, where K-major inputs skip the relayout); ncu of the relayout and GEMM kernels at
# B1 N512 C128. Sourced by scripts/h200.sh after its setup (repo root as cwd, PYTHONPATH set, $out, $db,
# mage(), step_budget/step_run); not executable by itself. Writes only under $out/tri2/. 150 s in all.
step_budget 150
tri2=$out/tri2
mkdir -p "$tri2"

# 1. Compile (and autotune at N 128) every kernel the later steps launch, one process per group in
#    parallel so that the ~40 Triton compiles (GEMM configs per precision and epilogue, relayout configs per
#    dtype and stride pattern; triton.split's 8 configs) overlap; they land in $TRITON_CACHE_DIR, which the
#    tests and the run reuse. Each call prints its time and the configs chosen.
tri2_warm='
import sys, time, torch
from mage import registry
from mage.ops.triangle.spec import LAYOUTS, SPEC
from mage.spec import Case
impls = {i.name: i for i in registry.implementations("triangle")}
for name in sys.argv[1].split(","):
    impl = impls[name]
    for layout in LAYOUTS:
        case = Case("triangle", "warm", "seed", {"batch": 1, "n": 128, "c": 64, "layout": layout}, seed=1)
        if impl.case_skip_reason(case.params):
            continue
        a, b = SPEC.make_inputs_at(case, 1, "cuda", "normal", impl.precision)
        start = time.time()
        impl.fn(a, b)
        torch.cuda.synchronize()
        print(f"{name} {layout}: {time.time() - start:.1f} s", flush=True)
'
export tri2_warm
# A cut step's SIGTERM reaches the bash below, whose trap ends its background compiles (else they would run on).
step_run warm 30 bash -c 'trap "kill \$(jobs -p) 2>/dev/null" TERM; for group in \
        triton.relayout/outgoing/tf32,triton.relayout/incoming/tf32 \
        triton.relayout3/outgoing/tf32,triton.relayout3/incoming/tf32 \
        triton.relayout/outgoing/tf32x3,triton.relayout/outgoing/ieee \
        triton.relayout/outgoing/bf16,triton.relayout/outgoing/fp16,triton.relayout3/outgoing/bf16 \
        triton.split/outgoing/tf32; do
    TRITON_PRINT_AUTOTUNING=1 python3 -c "$tri2_warm" "$group" 2>&1 | sed "s|^|[$group] |" &
done; wait'

# 2. GPU tests (full log): tf32's contract at the seed and large cases (full autotune lists; each prints its
#    error and chosen configs), the other precisions at the seed case, the channel-first layouts, ragged
#    shapes with one config.
step_run gpu-tests 25 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_triangle_relayout_gpu.py

# 3. The run, cold L2, single path, in-process, cases by value: the large case, its two channel-first
#    layouts (the layout study), the seed, then N 768 and N 1024 (cut first if time runs out). From the
#    stored runs (54, 30): ~0.4 s a row at N 512, ~0.6 at N 768, ~15 s of start-up; autotuning adds ~0.1 s
#    a config and key (20 ms benches). Stopped at its cap, it keeps its finished cases (incomplete).
step_run run 65 env TRITON_PRINT_AUTOTUNING=1 python3 scripts/gpu/run_cases.py "$db" '{
  "what": "issue 16: triton.relayout (2 launches) and relayout3 (3 launches) against eager, triton.split and native; the layout study",
  "suites": ["large", "sweep", "seed"], "ops": ["triangle"], "caches": ["cold"],
  "cases": ["B1-N512-C128", "B1-N512-C128-channel-first", "B1-N512-C128-channel-first-transposed", "B1-N128-C64",
            "B1-N768-C128", "B1-N1024-C128"],
  "impls": ["triton.relayout/outgoing/tf32", "triton.relayout/incoming/tf32", "triton.relayout3/outgoing/tf32",
            "triton.relayout3/incoming/tf32", "triton.relayout/outgoing/tf32x3", "triton.relayout/outgoing/ieee",
            "triton.relayout/outgoing/bf16", "eager/outgoing/tf32", "eager/incoming/tf32", "eager/outgoing/ieee",
            "eager/outgoing/bf16", "triton.split/outgoing/tf32", "native/outgoing/ieee"],
  "budget": 0.05, "min_samples": 10,
  "hypothesis": "Eager channel-last tf32 is 773 us at N 512 of which its bmm is 130: the layout, not the product, costs. One copy of a and b into K-major B*C x N x N matrices (a tiled transpose, 512 MB of traffic, ~130 us at 4 TB/s) lets a persistent TMA/wgmma GEMM run the product as cuBLAS does (~130-170 us); its epilogue writes channel-last with 4-byte stores merged in L2 by the 8 channels in flight (relayout), or channel-first plus a copy back (relayout3, +65 us). Expected tf32 270-350 us, under 0.35x eager near the edge; tf32x3 (three tf32 products, ieee error) under 1000 us; ieee through Triton FMA dots slower than eager ieee. Layouts: channel-first with k contiguous skips the copy (1 launch, the GEMM alone, near the 130 us of eager); with the row contiguous the copy is a per-channel transpose, still well under channel-last eager.",
  "predict": ["triangle/triton.relayout/outgoing/tf32@B1-N512-C128[single/cold]:kernel<270",
              "triangle/triton.relayout/outgoing/tf32@B1-N512-C128[single/cold]:kernel<=0.35*eager/outgoing/tf32",
              "triangle/triton.relayout/incoming/tf32@B1-N512-C128[single/cold]:kernel<=0.35*eager/incoming/tf32",
              "triangle/triton.relayout3/outgoing/tf32@B1-N512-C128[single/cold]:kernel<=0.35*eager/outgoing/tf32",
              "triangle/triton.relayout/outgoing/tf32@B1-N512-C128[single/cold]:kernel<triton.split/outgoing/tf32",
              "triangle/triton.relayout/outgoing/tf32@B1-N512-C128[single/cold]:launches<=2",
              "triangle/triton.relayout3/outgoing/tf32@B1-N512-C128[single/cold]:launches<=3",
              "triangle/triton.relayout/outgoing/tf32x3@B1-N512-C128[single/cold]:kernel<1000",
              "triangle/triton.relayout/outgoing/tf32x3@B1-N512-C128[single/cold]:kernel<=0.75*eager/outgoing/ieee",
              "triangle/triton.relayout/outgoing/ieee@B1-N512-C128[single/cold]:kernel>eager/outgoing/ieee",
              "triangle/triton.relayout/outgoing/bf16@B1-N512-C128[single/cold]:kernel<eager/outgoing/bf16",
              "triangle/triton.relayout/outgoing/tf32@B1-N512-C128-channel-first[single/cold]:launches<=1",
              "triangle/triton.relayout/outgoing/tf32@B1-N512-C128-channel-first[single/cold]:kernel<200",
              "triangle/triton.relayout/outgoing/tf32@B1-N512-C128-channel-first[single/cold]:kernel<=1.5*eager/outgoing/tf32",
              "triangle/triton.relayout/incoming/tf32@B1-N512-C128-channel-first-transposed[single/cold]:launches<=1",
              "triangle/triton.relayout/incoming/tf32@B1-N512-C128-channel-first[single/cold]:launches>=2",
              "triangle/triton.relayout/incoming/tf32@B1-N512-C128-channel-first[single/cold]:kernel<350",
              "triangle/triton.relayout/outgoing/tf32@B1-N512-C128-channel-first-transposed[single/cold]:kernel<350",
              "triangle/eager/outgoing/tf32@B1-N512-C128-channel-first[single/cold]:kernel<200",
              "triangle/eager/outgoing/tf32@B1-N512-C128-channel-first-transposed[single/cold]:kernel<250",
              "triangle/triton.relayout/outgoing/tf32@B1-N128-C64[single/cold]:kernel<eager/outgoing/tf32",
              "triangle/triton.relayout/outgoing/tf32@B1-N768-C128[single/cold]:kernel<eager/outgoing/tf32",
              "triangle/triton.relayout/outgoing/tf32@B1-N1024-C128[single/cold]:kernel<eager/outgoing/tf32"]
}'

# 4. The config every autotuned result of the run launched with (the store's tuning column), and its kernels.
step_run tuning 4 python3 -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
run = db.execute("SELECT max(id) FROM runs").fetchone()[0]
print("run", run)
for row in db.execute("""SELECT c.name, i.name, r.status, r.kernel_us, r.launches, r.kernel_names, r.tuning
                         FROM results r JOIN cases c ON c.id = r.case_id JOIN implementations i ON i.id = r.impl_id
                         WHERE r.run_id = ? ORDER BY r.id""", (run,)):
    print(*row, sep=" | ")
' "$db"

# 5. ncu of one warmed call each at B1 N512 C128 (tf32, outgoing): relayout (its relayout and GEMM kernels),
#    relayout3 (its three), and relayout on channel-first (the GEMM alone). DRAM throughput and bytes, L2
#    hit rate, the tensor pipe (wgmma counts as gmma), registers, warps active, stall reasons.
tri2_metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum
tri2_metrics=$tri2_metrics,lts__t_sector_hit_rate.pct,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
tri2_metrics=$tri2_metrics,sm__inst_executed_pipe_tensor_op_gmma.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
step_run ncu 20 ncu --clock-control none --profile-from-start off --kernel-name regex:_triangle_ \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --metrics "$tri2_metrics" \
    python3 scripts/gpu/ncu_calls.py "triangle,triton.relayout/outgoing/tf32,B1-N512-C128" \
    "triangle,triton.relayout3/outgoing/tf32,B1-N512-C128" "triangle,triton.relayout/outgoing/tf32,B1-N512-C128-channel-first"
