# bf16 and fp16 native kernels (issue #18: matmul on tensor cores, bias_gelu, layernorm, triangle) on the
# H200: sourced by scripts/h200.sh after its setup, from the repo root, with PYTHONPATH set, $out the
# results folder, $db the store to append to and `mage` defined. Budget about 240 s in all: GPU tests 38 +
# 10 s (the first includes NVRTC compiling the four native16.cu sources, cached on disk for the rest),
# then lowp-run.sh's runs (190 s); each bounded by timeout (SIGTERM, then SIGKILL 2 s later). Nothing here
# stops the script. An interrupted run keeps its finished cases (marked incomplete). Written under
# $out/lowp/ and $out/lowp-run/.
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

# 2. Runs into $db: each op's bf16/fp16 implementations in a run of its own (lowp-run.sh; a run of one
#    op refuses another op's names, which is how this fragment's first version stored nothing).
source scripts/gpu/lowp-run.sh
