# GPU checks of the dedup branch (issue #14: duplicated kernel code made to live once), sourced by
# scripts/h200.sh after its setup (repo root as cwd, PYTHONPATH set, $out, $db, the mage function).
# Budget: 60 s. The native kernels of matmul, triangle and bias_gelu now share device helpers
# (backends/native_tiles.cuh); they must compute the same and run as fast as in the committed runs.
#   1. the native GPU tests of those three ops, large cases included: they are the only GPU check
#      of the 128 × 128 matmul and 64-tile triangle kernels, which the seed cases do not launch;
#   2. a seed run of them (eager, native, native-py; single path; small budget) into $db, then
#      `mage compare` of its kernel times against committed run 6 (seed, every implementation)
#      and run 18 (seed + large: triangle and bias_gelu), whose native kernels are the code
#      before the clean-up.
# The Triton kernels of these ops compile to the same sm_90 PTX as before (checked on the CPU), so
# they are not re-measured here: their autotuning alone would take the whole budget.
dedup_out=$out/dedup
mkdir -p "$dedup_out"

dedup_rc=0
echo "== dedup: native GPU tests (matmul, triangle, bias_gelu) ==" | tee "$dedup_out/gpu-tests.log"
timeout -s TERM 24 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_native_gpu.py \
    -k "matmul or triangle or bias_gelu" 2>&1 | tee -a "$dedup_out/gpu-tests.log" || dedup_rc=$?
echo "pytest exit status: $dedup_rc (124: stopped at its 24 s limit)" | tee -a "$dedup_out/gpu-tests.log"

dedup_rc=0
echo "== dedup: seed run ==" | tee "$dedup_out/run.log"
timeout -s TERM 22 python3 -m mage run --db "$db" --suite seed --op matmul --op triangle --op bias_gelu \
    --impl eager --impl native --impl native-py --path single --budget 0.2 --no-isolate \
    --hypothesis "dedup: native kernels of matmul, triangle and bias_gelu with shared device helpers run as fast as before" \
    2>&1 | tee -a "$dedup_out/run.log" || dedup_rc=$?
echo "mage run exit status: $dedup_rc (124: stopped at its 22 s limit, the run stored as incomplete)" | tee -a "$dedup_out/run.log"

dedup_run=$(python3 -c 'import sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM runs WHERE hypothesis LIKE ?", ("dedup:%",)).fetchone()
print(row[0] or "")' "$db" 2>>"$dedup_out/run.log" || true)
echo "dedup run id: ${dedup_run:-none found}" | tee -a "$dedup_out/run.log"
if [ -n "$dedup_run" ]; then
    for dedup_base in 6 18; do
        echo "== dedup: mage compare $dedup_base $dedup_run ==" | tee "$dedup_out/compare-$dedup_base.log"
        timeout 6 python3 -m mage compare "$dedup_base" "$dedup_run" --db "$db" --op matmul --op triangle --op bias_gelu \
            --all 2>&1 | tee -a "$dedup_out/compare-$dedup_base.log" || true
    done
fi
