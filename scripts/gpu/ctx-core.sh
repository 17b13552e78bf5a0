# ctx-core (issue #15 §1–3): Mage custom ops and model blocks on the H200. Sourced by scripts/h200.sh after
# its setup, from the repository root, with PYTHONPATH, $out (results folder), $db (the store) and mage().
# Budget: 200 s in all (85 s of GPU tests, 65 s of blocks without compile, 45 s of whole-block compiles);
# every step is bounded by timeout and none stops the others. Full logs under $out/ctx-core/.
ctx_out="$out/ctx-core"
mkdir -p "$ctx_out"

# 1. The GPU tests first: opcheck per op and GPU implementation, graph capture, fullgraph compile, attribution.
timeout -s TERM 85 python3 -m pytest -m gpu -v -rA -p no:cacheprovider tests/test_context_gpu.py \
    > "$ctx_out/gpu-tests.log" 2>&1
echo "ctx-core gpu tests: exit $? (124: timed out)" | tee -a "$ctx_out/gpu-tests.log"

# 2. Every block at ieee and tf32: isolated ops, each faster implementation swapped alone, the best together.
#    A timeout's SIGTERM stores the run as incomplete with every block it finished.
timeout -s TERM 65 python3 -m mage context --precision ieee --precision tf32 --no-compile --budget 0.05 \
    --db "$db" > "$ctx_out/context-blocks.log" 2>&1
echo "ctx-core context (all blocks, no compile): exit $? (124 or 143: timed out)" | tee -a "$ctx_out/context-blocks.log"

# 3. Whole-block torch.compile (default mode, torch's ops and Mage's) where the targets are: GNN, triangle N768.
timeout -s TERM 45 python3 -m mage context --block gnn/powerlaw --block trimul/outgoing-768 --precision ieee \
    --compile default --budget 0.05 --db "$db" > "$ctx_out/context-compile.log" 2>&1
echo "ctx-core context (compile): exit $? (124 or 143: timed out)" | tee -a "$ctx_out/context-compile.log"
true
