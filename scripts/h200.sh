#!/usr/bin/env bash
# Check and time on the GPU machine in one call. Run it there from the repo root,
# after `make wheel` here, carrying dist/ (the abi3 native extension built on this machine) and .whl/ where
# it holds peers' wheels:
#   [MAGE_GPU_TESTS=1] [MAGE_FRAGMENTS="a b"] [MAGE_RUN_TIMEOUT=seconds] bash scripts/h200.sh [mage run options…]
# MAGE_FRAGMENTS names studies in scripts/gpu/<name>.sh, sourced in that order before the run (each
# writes under $out/<name>/ and bounds its own time); with fragments and no run options, no run.
# A run past MAGE_RUN_TIMEOUT gets SIGTERM: its finished cases stay stored, the run marked incomplete.
# Results land in $OUT (or results/h200): the run is appended to a copy of the committed
# results/h200/mage.db, so every run stays beside the earlier ones. The working tree's Python runs
# as is; only the compiled extension comes from the wheel.
set -euo pipefail
out=${OUT:-results/h200}
mkdir -p "$out"
python3 -m zipfile -e dist/*.whl /tmp/wheel >/dev/null
cp /tmp/wheel/mage/_native*.so python/mage/
# Peer libraries the image lacks (Liger-Kernel, say) travel as wheels in .whl/, carried: installed beside Mage.
peers=
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/peers .whl/*.whl
    peers=:/tmp/peers
fi
export PYTHONPATH=$PWD/python$peers PYTHONUNBUFFERED=1 COLUMNS=220 TRITON_CACHE_DIR=${TRITON_CACHE_DIR:-/tmp/triton-cache} TRITON_INTERPRET=0
mage() { python3 -m mage "$@"; }

db=$out/mage.db
# Once per $out: a second call of this script in the same command appends to the first one's store.
if [ -f results/h200/mage.db ] && [ "$db" != results/h200/mage.db ] && [ ! -f "$db" ]; then cp results/h200/mage.db "$db"; fi
latest_run() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT coalesce(max(id), 0) FROM runs").fetchone()[0])' "$db" 2>/dev/null || echo 0; }
first_new_run=$(( $(latest_run) + 1 ))
if [ "${MAGE_GPU_TESTS:-0}" = 1 ]; then
    python3 -m pytest -q -rP -p no:cacheprovider -m gpu tests/test_native_gpu.py tests/test_cheats_gpu.py tests/test_faults_gpu.py tests/test_peers_gpu.py -k "not large" 2>&1 | tee "$out/gpu-tests.log" | tail -80 || true
fi
mage env --ceilings > "$out/env.json"
# Bounded steps for fragments: `step_budget S` at a fragment's start gives it S seconds in all; then
# `step_run NAME CAP COMMAND…` runs COMMAND for at most CAP seconds or what is left of S (SIGTERM, SIGKILL
# 2 s later), logs to $out/<fragment>/NAME.log, and records its exit code in steps.log; it never fails.
step_budget() { fragment_budget=$1; }
step_cap() {
    local left=$((fragment_budget - 4 - SECONDS))
    if [ "$left" -lt 1 ]; then left=1; fi
    if [ "$1" -lt "$left" ]; then echo "$1"; else echo "$left"; fi
}
step_run() {
    local name=$1 cap=$2 dir=$out/$fragment
    shift 2
    echo "== $(date -u +%T) +${SECONDS}s: $name" | tee -a "$dir/steps.log"
    timeout -k 2 "$(step_cap "$cap")" "$@" > "$dir/$name.log" 2>&1 || echo "$name: exit $?" | tee -a "$dir/steps.log"
    python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db" || true
}
for fragment in ${MAGE_FRAGMENTS:-}; do
    mkdir -p "$out/$fragment"
    echo "== $fragment $(date -u +%T)"
    SECONDS=0
    fragment_budget=600
    source "scripts/gpu/$fragment.sh" || echo "fragment $fragment exited $?"
    echo "== $fragment took ${SECONDS} s"
done
if [ -n "${MAGE_FRAGMENTS:-}" ] && [ $# = 0 ]; then skip_run=1; else skip_run=0; fi
run_started=$SECONDS
[ $skip_run = 1 ] || timeout -s TERM "${MAGE_RUN_TIMEOUT:-0}" python3 -m mage run --db "$db" "$@" 2>&1 | tee "$out/run.log" | grep -v "^│\|^┃\|^┏\|^┡\|^└" || true
[ $skip_run = 1 ] || echo "mage run $*: $((SECONDS - run_started)) s wall, process start to exit" | tee -a "$out/run.log"
# A killed run leaves its last results in the write-ahead log: fold them into the file that travels.
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db"
# Each run of this call alone, for mage import: the store that travels back may outgrow what the
# transfer from the GPU machine returns.
latest=$(latest_run)
for run in $(seq "$first_new_run" "$latest"); do
    mage export "$run" --run-json -o "$out/run-$run.json.gz" --db "$db" || echo "export of run $run failed"
done
