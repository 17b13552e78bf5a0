# Session 27's first call: the rows issues 16, 18 and 19 name that the stored runs lack, with the code as it
# stands, and the GPU tests last session's calls cut or never re-ran after a fix. Sourced by scripts/h200.sh
# (repo root as cwd, $out, $db, mage(), step_budget/step_run); writes only under $out/closeout/.
step_budget 520
dir=$out/closeout

# 1. GPU tests not seen passing since their code changed: the cluster launch shared by LayerNorm and softmax
#    (backends/rows.launch_cluster, after run 53), neighbor_agg's bit-identity tests (cut at 20 s by the first
#    NVRTC compile), the CubeCL tf32 edge shape (the tf32 contract floor) and the 16-bit tests (the halved
#    fp16 draw). Each file's first test compiles its kernels into the disk cache the later steps reuse.
step_run gpu-reduce-wide 70 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_reduce_wide_gpu.py
step_run gpu-neighbor-agg 80 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_neighbor_agg_gpu.py
step_run gpu-cubecl-tf32 35 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_cubecl_gpu.py -k tf32
step_run gpu-lowp 45 python3 -m pytest -q -rA -p no:cacheprovider -m gpu tests/test_lowp_gpu.py

# 2. fp16 at 8192³ (issue 18): run 57 refused every fp16 row because eager's own fp16 product overflowed on
#    the heavy-tailed draw; the contract now halves a 16-bit draw until its float64 result fits.
step_run matmul-fp16 75 python3 -m mage run --suite large --op matmul --impl eager/default/fp16 \
    --impl triton/default/fp16 --impl native/default/fp16 --impl native.w8/default/fp16 --impl eager/default/bf16 \
    --path single --no-isolate --budget 0.1 --min-samples 6 --db "$db" \
    --hypothesis "With the 16-bit draw halved until its float64 result fits half of fp16's range, eager fp16 passes its own contract at 8192³ and Triton fp16 is within 0.9× of cuBLAS fp16, as bf16 is." \
    --predict "matmul/triton/default/fp16@8192x8192x8192:kernel<=1.111*eager/default/fp16"

# 3. softmax against torch.compile's default at 262144 columns (issue 19's second target): last measured in
#    run 34, before the cluster kernels; both in one run now, beside LayerNorm's.
step_run softmax-compile 70 python3 scripts/gpu/run_cases.py "$db" '{
  "what": "torch.compile default against the native cluster and the Triton split at 262144 columns, both ops",
  "suites": ["reduction"], "ops": ["softmax", "layernorm"], "caches": ["warm"],
  "cases": ["256x262144-study"],
  "impls": ["native.cluster", "triton.split", "eager/rows/ieee", "eager/affine/ieee", "compile/rows/ieee", "compile/affine/ieee"],
  "compile_cols": 262144, "budget": 0.1, "min_samples": 10,
  "hypothesis": "At 262144 columns torch.compile default reduces a row in several passes (its split reduction), so the one-read cluster kernels beat it for both ops.",
  "predict": ["softmax/native.cluster@256x262144-study:kernel<compile/rows/ieee",
              "layernorm/native.cluster@256x262144-study:kernel<compile/affine/ieee"]
}'

# 4. The layout question (issue 16), as one stored experiment (predictions name absolute bounds:
#    they compare within one case): the same contraction on channel-last,
#    channel-first (k contiguous) and channel-first-transposed inputs, for the library expression and the
#    one-2-D-dot-a-channel Triton kernel, cold L2 at B1 N512 C128.
step_run layout-study 140 python3 scripts/gpu/run_cases.py "$db" '{
  "what": "triangle layout study: channel-last against channel-first (k contiguous) and channel-first-transposed",
  "suites": ["large", "sweep"], "ops": ["triangle"], "caches": ["cold"],
  "cases": ["B1-N512-C128-channel-first", "B1-N512-C128", "B1-N512-C128-channel-first-transposed"],
  "impls": ["eager/outgoing/tf32", "eager/incoming/tf32", "eager/outgoing/ieee", "triton.channel/outgoing/tf32",
            "triton.channel/incoming/tf32", "triton.channel/outgoing/ieee"],
  "budget": 0.1, "min_samples": 6,
  "hypothesis": "The contraction is a batch of C matrix products. Channel-first with k contiguous hands every product K-major operands, so the library needs one bmm and no copies and a one-dot-a-channel kernel loads coalesced tiles; channel-last makes each product strided by C, so eager pays permute copies and the Triton kernel uncoalesced loads. Channel-first-transposed puts the contracted index outermost, which the incoming form reads K-major and the outgoing form does not.",
  "predict": ["triangle/eager/outgoing/tf32@B1-N512-C128-channel-first[single/cold]:kernel<200",
              "triangle/eager/outgoing/tf32@B1-N512-C128[single/cold]:kernel>600",
              "triangle/triton.channel/outgoing/tf32@B1-N512-C128-channel-first[single/cold]:kernel<1200",
              "triangle/triton.channel/outgoing/tf32@B1-N512-C128[single/cold]:kernel>3000",
              "triangle/eager/outgoing/ieee@B1-N512-C128-channel-first[single/cold]:kernel<1000",
              "triangle/eager/outgoing/ieee@B1-N512-C128[single/cold]:kernel>1200",
              "triangle/triton.channel/incoming/tf32@B1-N512-C128-channel-first-transposed[single/cold]:kernel<1200",
              "triangle/triton.channel/outgoing/tf32@B1-N512-C128-channel-first-transposed[single/cold]:kernel>1200"]
}'
