# Issue 15's "custom ops cost nothing measurable": the blocks whose library-against-direct difference on the
# graph path was beyond one span's noise last session (GPT-2 MLP tf32: library 2.2 % faster; 7B MLP tf32),
# now with the A/A control (the direct call measured again as its own contender). Sourced by
# scripts/h200.sh; bounded at about 90 s; logs under $out/ctx-aa/.
ctx=$out/ctx-aa
ctx_start=$SECONDS
for block in mlp/gpt2-small mlp/7b; do
    left=$((90 - (SECONDS - ctx_start))); [ "$left" -gt 1 ] || left=1
    SECONDS_BEFORE=$SECONDS
    timeout -s TERM "$left" python3 -m mage context --budget 0.05 --db "$db" --block "$block" --precision tf32 \
        --no-compile >> "$ctx/context.log" 2>&1
    echo "context $block tf32: exit $? after $((SECONDS - SECONDS_BEFORE)) s of $left" | tee -a "$ctx/steps.log"
done
true
