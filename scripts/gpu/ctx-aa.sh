# Issue 15's last rows. (1) "Custom ops cost nothing measurable": the GPT-2 MLP at tf32, whose library
# version was 2.2 % faster than the direct call on the graph path last session, again with the A/A control
# (the direct call measured again as its own contender). (2) The Pairformer update at N 384 (ieee, tf32),
# never measured. Sourced by scripts/h200.sh; bounded at about 130 s; logs under $out/ctx-aa/.
ctx=$out/ctx-aa
ctx_start=$SECONDS
ctx_step() {  # seconds, then mage context options
    local left=$((130 - (SECONDS - ctx_start))) before=$SECONDS
    [ "$left" -gt 1 ] || left=1
    [ "$1" -lt "$left" ] && left=$1
    shift
    timeout -s TERM "$left" python3 -m mage context --budget 0.05 --db "$db" "$@" >> "$ctx/context.log" 2>&1
    echo "context $* : exit $? after $((SECONDS - before)) s of $left (124/143: timed out, finished blocks kept)" | tee -a "$ctx/steps.log"
}
ctx_step 50 --block mlp/gpt2-small --precision tf32 --no-compile
ctx_step 80 --block trimul/outgoing-384 --block trimul/incoming-384 --precision tf32 --precision ieee --no-compile
true
