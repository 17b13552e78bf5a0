# Issue 15's "custom ops cost nothing measurable": the GPT-2 MLP at tf32, whose library version was 2.2 %
# faster than the direct call on the graph path last session, again with the A/A control (the direct call
# measured again as its own contender); CTX_ARGS gives other `mage context` options instead (run 56: the
# Pairformer update at N 384, `--block trimul/outgoing-384 --block trimul/incoming-384 --precision tf32
# --precision ieee --no-compile`). Sourced by scripts/h200.sh; bounded at CTX_SECONDS (default 50); logs
# under $out/ctx-aa/.
ctx=$out/ctx-aa
ctx_budget=${CTX_SECONDS:-50}
ctx_start=$SECONDS
ctx_step() {  # seconds, then mage context options
    local left=$((ctx_budget - (SECONDS - ctx_start))) before=$SECONDS
    [ "$left" -gt 1 ] || left=1
    [ "$1" -lt "$left" ] && left=$1
    shift
    timeout -s TERM "$left" python3 -m mage context --budget 0.05 --db "$db" "$@" >> "$ctx/context.log" 2>&1
    echo "context $* : exit $? after $((SECONDS - before)) s of $left (124/143: timed out, finished blocks kept)" | tee -a "$ctx/steps.log"
}
# shellcheck disable=SC2086  # CTX_ARGS is a list of options
ctx_step "$ctx_budget" ${CTX_ARGS:---block mlp/gpt2-small --precision tf32 --no-compile}
true
