# Issue 15's measurement on the H200, the blocks that carry its targets first: the GNN layer (≥ 5× best
# against eager), then the MLPs and whole-block compiles (default and max-autotune); every measured block
# also times its best assignment called directly, without torch.library (what the custom ops cost).
# The Pairformer update at N 768 (≥ 1.3×) is ctx-trimul.sh, run once the new triangle kernels are in.
# Sourced by scripts/h200.sh; every step bounded; a timeout's SIGTERM keeps every finished block.
# Logs under $out/ctx-run/. Budget about 420 s.
ctx=$out/ctx-run
timeout -s TERM 100 python3 -m pytest -m gpu -q -rA -p no:cacheprovider tests/test_context_gpu.py \
    > "$ctx/gpu-tests.log" 2>&1; echo "gpu tests: exit $?" | tee -a "$ctx/steps.log"
ctx_step() {  # seconds, then mage context options
    local seconds=$1; shift
    SECONDS=0
    timeout -s TERM "$seconds" python3 -m mage context --budget 0.05 --db "$db" "$@" >> "$ctx/context.log" 2>&1
    echo "context $* : exit $? after ${SECONDS} s (124/143: timed out, finished blocks kept)" | tee -a "$ctx/steps.log"
}
ctx_step 150 --block gnn/powerlaw --block gnn/rmat --precision ieee --precision tf32 --compile default
ctx_step 80 --block mlp/7b --precision ieee --precision tf32 --no-compile
ctx_step 90 --block mlp/gpt2-small --precision tf32 --compile default --compile max-autotune
true
