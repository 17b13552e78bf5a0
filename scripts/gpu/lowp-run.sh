# The bf16/fp16 timings lowp.sh meant to take (issue #18): its runs named implementations of all four ops
# in one `mage run --op X`, which refuses another op's names; here each op gets its own run with its own
# eager and native 16-bit implementations (Triton's bf16/fp16 are measured in earlier runs; the triangle's
# Triton ones beside native). Large suite, warm L2, single path. Sourced by scripts/h200.sh; bounded at
# about 190 s; logs under $out/lowp-run/.
lowp_out=$out/lowp-run
mkdir -p "$lowp_out"
lowp_start=$SECONDS
lowp_names() {  # --impl NAME for each bf16/fp16 implementation of op $1 in the families that follow
    python3 - "$@" <<'PY' || true
import sys

from mage import registry

registry.load()
op, families = sys.argv[1], sys.argv[2:]
for name in sorted(i.name for i in registry.implementations(op) if i.precision in ("bf16", "fp16") and i.family in families):
    print("--impl")
    print(name)
PY
}
lowp_run() {  # op, seconds, families…
    local op=$1 cap=$2 left
    shift 2
    left=$((190 - (SECONDS - lowp_start))); [ "$left" -gt 1 ] || left=1; [ "$cap" -lt "$left" ] && left=$cap
    mapfile -t names < <(lowp_names "$op" "$@")
    echo "== $op ($left s): ${names[*]}" | tee -a "$lowp_out/steps.log"
    timeout -k 2 "$left" python3 -m mage run --suite large --op "$op" "${names[@]}" --path single --no-isolate \
        --min-samples 3 --budget 0.05 --db "$db" > "$lowp_out/run-$op.log" 2>&1
    echo "$op: exit $?" | tee -a "$lowp_out/steps.log"
}
lowp_run matmul 70 eager native
lowp_run bias_gelu 35 eager native triton
lowp_run layernorm 35 eager native triton
lowp_run triangle 45 eager native triton
grep -v "^│\|^┃\|^┏\|^┡\|^└" "$lowp_out"/run-*.log | tail -n 60 || true
true
