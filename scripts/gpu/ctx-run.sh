# Issue 15's measurement on the H200, the blocks that carry its targets first: the GNN layer (≥ 5× best
# against eager), the Pairformer update at N 768 (≥ 1.3×, ieee and tf32), then the MLPs. Sourced by
# scripts/h200.sh; every step bounded; a timeout's SIGTERM keeps every finished block. Logs under
# $out/ctx-run/. The GPU test of the profiler's attribution runs first (kernel time without host ranges).
ctx=$out/ctx-run
timeout -s TERM 40 python3 -m pytest -m gpu -q -rA -p no:cacheprovider tests/test_context_gpu.py \
    -k "attributes or end_to_end" > "$ctx/gpu-tests.log" 2>&1; echo "gpu tests: exit $?" | tee -a "$ctx/steps.log"
ctx_step() {  # seconds, then mage context options
    local seconds=$1; shift
    timeout -s TERM "$seconds" python3 -m mage context --budget 0.05 --db "$db" "$@" >> "$ctx/context.log" 2>&1
    echo "context $* : exit $? (124/143: timed out, finished blocks kept)" | tee -a "$ctx/steps.log"
}
ctx_step 90 --block gnn/powerlaw --block gnn/rmat --precision ieee --no-compile
ctx_step 120 --block trimul/outgoing-768 --block trimul/incoming-768 --precision ieee --precision tf32 --no-compile
ctx_step 70 --block mlp/gpt2-small --block mlp/7b --precision ieee --precision tf32 --no-compile
ctx_step 50 --block gnn/powerlaw --precision ieee --compile default
true
