# Issue 15's last rows: the R-MAT GNN layer (cut during its graph spans at 92 s last session) and the
# 7B-class MLP at ieee (nothing stored in 80 s), each in a step of its own, then the context GPU tests
# (opcheck of every op and GPU implementation, graph capture, fullgraph compile) with what is left.
# Sourced by scripts/h200.sh; every step bounded inside about 540 s; a timeout's SIGTERM keeps every
# finished block. Logs under $out/ctx-finish/.
ctx=$out/ctx-finish
ctx_start=$SECONDS
ctx_cap() {  # a step's own cap, or what is left of the 540 s, if less
    local left=$((540 - (SECONDS - ctx_start)))
    if [ "$left" -lt 1 ]; then left=1; fi
    if [ "$1" -lt "$left" ]; then echo "$1"; else echo "$left"; fi
}
ctx_step() {  # seconds, then mage context options
    local seconds; seconds=$(ctx_cap "$1"); shift
    SECONDS_BEFORE=$SECONDS
    timeout -s TERM "$seconds" python3 -m mage context --budget 0.05 --db "$db" "$@" >> "$ctx/context.log" 2>&1
    echo "context $* : exit $? after $((SECONDS - SECONDS_BEFORE)) s of $seconds (124/143: timed out, finished blocks kept)" | tee -a "$ctx/steps.log"
}
ctx_step 200 --block gnn/rmat --precision ieee --compile default
ctx_step 190 --block mlp/7b --precision ieee --no-compile
timeout -s TERM "$(ctx_cap 200)" python3 -m pytest -m gpu -q -rA -p no:cacheprovider tests/test_context_gpu.py \
    > "$ctx/gpu-tests.log" 2>&1; echo "gpu tests: exit $?" | tee -a "$ctx/steps.log"
true
