# bf16 and fp16 native kernels (issue #18: matmul on tensor cores, bias_gelu, layernorm, triangle) on the
# H200: sourced by scripts/h200.sh after its setup, from the repo root, with PYTHONPATH set, $out the
# results folder, $db the store to append to and `mage` defined. Budget 120 s in all: GPU tests 38 + 10 s
# (the first includes NVRTC compiling the four native16.cu sources, cached on disk for the rest), a seed
# run 18 s, large matmul runs (8192³) 24 + 10 s, a large run of the other three ops 18 s; each bounded by
# timeout (SIGTERM, then SIGKILL 2 s later). Nothing here stops the script: every step ends in || true.
# An interrupted run keeps its finished cases (marked incomplete). Everything is written under $out/lowp/.
lowp_out=$out/lowp
mkdir -p "$lowp_out"

# 1. GPU tests, full logs (-rA -s): tests/test_lowp_gpu.py (every 16-bit kernel reached by ragged shapes,
#    the tensor-core matmul's rounding exact on integer inputs, every 16-bit native implementation against
#    its contract at the seed case and the ragged shapes), then the generic native GPU tests (graphs,
#    streams, edge shapes, both host paths) for the bf16/fp16 rows only.
timeout -k 2 38 python3 -m pytest -q -rA -s -p no:cacheprovider -m gpu tests/test_lowp_gpu.py \
    > "$lowp_out/gpu-tests.log" 2>&1 || true
tail -n 25 "$lowp_out/gpu-tests.log" || true
timeout -k 2 10 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_native_gpu.py -k "(bf16 or fp16) and not large" \
    > "$lowp_out/gpu-tests-native.log" 2>&1 || true
tail -n 15 "$lowp_out/gpu-tests-native.log" || true

# 2. Runs into $db: every bf16 and fp16 implementation of the four ops in eager (cuBLAS, torch), native
#    (every strategy; the Rust host path only: native-py launches the same cubin) and Triton (whatever
#    strategies this tree registers), listed from the registry so that a name another branch renamed
#    cannot refuse the run. Warm L2, single path, few samples: the question is where each stands. At
#    8192³ Triton (whose autotuning takes seconds) gets a run of its own after eager and native.
lowp_names() {  # --impl NAME for each bf16/fp16 implementation of the four ops in the families given
    python3 - "$@" <<'PY' || true
import sys

from mage import registry

registry.load()
names = {i.name for op in ("matmul", "bias_gelu", "layernorm", "triangle") for i in registry.implementations(op)
         if i.precision in ("bf16", "fp16") and i.family in sys.argv[1:]}
for name in sorted(names):
    print("--impl")
    print(name)
PY
}
mapfile -t lowp_all < <(lowp_names eager native triton)
mapfile -t lowp_ours < <(lowp_names eager native)
mapfile -t lowp_triton < <(lowp_names triton)
echo "lowp implementations: ${lowp_all[*]}" | tee "$lowp_out/impls.txt"
lowp_flags=(--path single --no-isolate --min-samples 3 --budget 0.05 --db "$db")
timeout -k 2 18 python3 -m mage run --suite seed --op matmul --op bias_gelu --op layernorm --op triangle \
    "${lowp_all[@]}" "${lowp_flags[@]}" \
    --hypothesis "bf16/fp16 native kernels pass their contracts at the seed cases against eager at the same precision." \
    > "$lowp_out/run-seed.log" 2>&1 || true
timeout -k 2 24 python3 -m mage run --suite large --op matmul "${lowp_ours[@]}" "${lowp_flags[@]}" \
    --hypothesis "At 8192³ bf16/fp16, the mma.sync native kernel (no wgmma) reaches at least half of cuBLAS's rate." \
    --predict "matmul/native/default/bf16@8192x8192x8192:kernel<=2*eager/default/bf16" \
    --predict "matmul/native/default/fp16@8192x8192x8192:kernel<=2*eager/default/fp16" \
    > "$lowp_out/run-large-matmul.log" 2>&1 || true
[ ${#lowp_triton[@]} = 0 ] || timeout -k 2 10 python3 -m mage run --suite large --op matmul "${lowp_triton[@]}" \
    "${lowp_flags[@]}" > "$lowp_out/run-large-matmul-triton.log" 2>&1 || true
timeout -k 2 18 python3 -m mage run --suite large --op bias_gelu --op layernorm --op triangle \
    "${lowp_all[@]}" "${lowp_flags[@]}" \
    --hypothesis "bf16/fp16 bias_gelu and layernorm natively move half the bytes of float32 at the same fraction of the copy rate; triangle at bf16 is FFMA-bound like ieee." \
    > "$lowp_out/run-large.log" 2>&1 || true
grep -v "^│\|^┃\|^┏\|^┡\|^└" "$lowp_out"/run-*.log | tail -n 80 || true
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db" || true
