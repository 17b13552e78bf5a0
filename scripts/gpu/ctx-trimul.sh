# Issue 15's Pairformer target (best against eager ≥ 1.3× at N 768, ieee and tf32) with the one-launch
# triangle kernels of issue 16, then the blocks the first call of session 25 did not finish (the R-MAT
# GNN layer, the 7B-class MLP). Sourced by scripts/h200.sh; every step bounded; a timeout's SIGTERM keeps
# every finished block. Logs under $out/ctx-trimul/. Budget about 400 s.
ctx=$out/ctx-trimul
timeout -s TERM 60 python3 -m pytest -m gpu -q -rA -p no:cacheprovider tests/test_context_gpu.py \
    -k "triangle or end_to_end or attributes" > "$ctx/gpu-tests.log" 2>&1; echo "gpu tests: exit $?" | tee -a "$ctx/steps.log"
ctx_step() {  # seconds, then mage context options
    local seconds=$1; shift
    SECONDS=0
    timeout -s TERM "$seconds" python3 -m mage context --budget 0.05 --db "$db" "$@" >> "$ctx/context.log" 2>&1
    echo "context $* : exit $? after ${SECONDS} s (124/143: timed out, finished blocks kept)" | tee -a "$ctx/steps.log"
}
ctx_step 200 --block trimul/outgoing-768 --block trimul/incoming-768 --precision tf32 --precision ieee --compile default
ctx_step 90 --block gnn/rmat --precision ieee --compile default
ctx_step 60 --block mlp/7b --precision tf32 --no-compile
true
