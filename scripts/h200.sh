#!/usr/bin/env bash
# Check and time on the GPU machine in one call. Run it there from the repo root, after `make wheel` here,
# carrying dist/ (the abi3 native extension built on this machine) and .whl/ where it holds peers' wheels:
#   [MAGE_GPU_TESTS="tests/x_gpu.py …" | MAGE_GPU_TESTS=1] [MAGE_TESTS_TIMEOUT=seconds] [MAGE_TESTS_K=expression]
#   [MAGE_CHECK="--suite seed --all-strategies"] [MAGE_CHECK_TIMEOUT=seconds] [MAGE_STUDIES="schedule wide-rows"] [MAGE_STUDY_TIMEOUT=seconds]
#   [MAGE_CONTEXT="--block trimul/outgoing-384 --precision tf32"] [MAGE_CONTEXT_TIMEOUT=seconds] [MAGE_RUN_TIMEOUT=seconds]
#   [MAGE_PROBES="python3 scripts/range_capture_probe.py trimul/outgoing-768 bf16; ncu … python3 …"] [MAGE_PROBE_TIMEOUT=seconds]
#   bash scripts/h200.sh [mage run options…]
# MAGE_GPU_TESTS runs those GPU test files first (1: the trust and peer files), interrupted (SIGINT, so pytest
# still prints its summary) after MAGE_TESTS_TIMEOUT, their tests selected by MAGE_TESTS_K (pytest -k; default
# "not large", which also deselects a test whose parameters name a large case: MAGE_TESTS_K= runs every one).
# The copy of the tree here may carry the git metadata of an older checkout: set MAGE_GIT_COMMIT to the commit
# it was made from (git rev-parse HEAD where it was made), which every run then records, clean unless
# MAGE_GIT_DIRTY=1 says otherwise (the copy's own git status then says nothing). MAGE_CHECK runs mage
# check with those options, an op a process (a share of it, with every strategy: check_units.py), all at
# once (each bounded by MAGE_CHECK_TIMEOUT). MAGE_STUDIES runs each
# study (mage study NAME) in turn, each bounded by twice its stated time (or MAGE_STUDY_TIMEOUT, if shorter); MAGE_CONTEXT runs mage context
# with those options (its model blocks, fused implementations and peers included); MAGE_PROBES runs diagnostic
# commands; with studies, a check, a context or probes and no run options, no run. Each step with a *_TIMEOUT is stopped after that many seconds. A run past MAGE_RUN_TIMEOUT gets SIGTERM: its finished cases stay stored, the run incomplete.
# Results land in $OUT (or results/h200): runs are appended to a copy of the committed results/h200/mage.db,
# so every run stays beside the earlier ones. The working tree's Python runs as is; only the compiled
# extension comes from the wheel.
set -euo pipefail
out=${OUT:-results/h200}
mkdir -p "$out"
python3 -m zipfile -e dist/*.whl /tmp/wheel >/dev/null
cp /tmp/wheel/mage/_native*.so python/mage/
# Peer libraries the image lacks (Liger-Kernel, say) travel as wheels in .whl/, carried: installed beside Mage.
# A wheel or tarball too large for one call travels in parts over several calls to the same machine (`split -b
# 20M NAME.whl .whl-1/NAME.whl.part-`, the parts in folders .whl-1, .whl-2, … each carried by one call; an
# ignored folder stays on the machine between calls): the parts found are joined here, in the order of their names.
peers=
mkdir -p /tmp/joined
for first in .whl*/*.part-aa; do
    [ -e "$first" ] || continue
    name=$(basename "$first" .part-aa)
    # shellcheck disable=SC2046
    cat $(for part in .whl*/"$name".part-*; do echo "$(basename "$part") $part"; done | sort | cut -d' ' -f2) > "/tmp/joined/$name"
    # Until the last part has come, the joined file is cut short: left for a later call, not installed.
    case $name in
        *.xz) xz -t "/tmp/joined/$name" 2>/dev/null && whole=1 || whole=0 ;;
        *) python3 -m zipfile -t "/tmp/joined/$name" >/dev/null 2>&1 && whole=1 || whole=0 ;;
    esac
    [ $whole = 1 ] || { echo "$name: its parts so far do not make the whole file; left for a later call"; rm "/tmp/joined/$name"; }
done
wheels=$(ls .whl/*.whl /tmp/joined/*.whl 2>/dev/null || true)
if [ -n "$wheels" ]; then
    # shellcheck disable=SC2086
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/peers $wheels
    peers=:/tmp/peers
fi
# Wheels too large to travel as wheels (cuEquivariance's ops: 73 MB) travel unpacked and repacked as one xz
# tarball of their installed files (`tar -C site -cJf .whl/NAME.tar.xz .`), unpacked here beside the others.
for tarball in .whl/*.tar.xz /tmp/joined/*.tar.xz; do
    [ -e "$tarball" ] || continue
    mkdir -p /tmp/peers && tar -C /tmp/peers -xJf "$tarball"
    peers=:/tmp/peers
done
# QuACK's CuTe DSL finds its MLIR packages through a .pth file, which Python reads from site-packages only.
[ ! -d /tmp/peers/nvidia_cutlass_dsl/dsl_packages ] || peers=$peers:/tmp/peers/nvidia_cutlass_dsl/dsl_packages
export PYTHONPATH=$PWD/python$peers PYTHONUNBUFFERED=1 COLUMNS=220 TRITON_CACHE_DIR=${TRITON_CACHE_DIR:-/tmp/triton-cache} TRITON_INTERPRET=0
mage() { python3 -m mage "$@"; }
checkpoint() { python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db" || true; }

db=$out/mage.db
# Once per $out: a second call of this script in the same command appends to the first one's store.
if [ -f results/h200/mage.db ] && [ "$db" != results/h200/mage.db ] && [ ! -f "$db" ]; then cp results/h200/mage.db "$db"; fi
latest_run() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT coalesce(max(id), 0) FROM runs").fetchone()[0])' "$db" 2>/dev/null || echo 0; }
first_new_run=$(( $(latest_run) + 1 ))
gpu_tests=${MAGE_GPU_TESTS:-}
[ "$gpu_tests" != 1 ] || gpu_tests="tests/test_native_gpu.py tests/test_cheats_gpu.py tests/test_faults_gpu.py tests/test_peers_gpu.py"
if [ -n "$gpu_tests" ]; then
    # shellcheck disable=SC2086
    timeout -s INT -k 20 "${MAGE_TESTS_TIMEOUT:-0}" python3 -m pytest -q -rfEs -p no:cacheprovider -m gpu $gpu_tests \
        -k "${MAGE_TESTS_K-not large}" 2>&1 | tee "$out/gpu-tests.log" | tail -80 || true
fi
if [ -n "${MAGE_CHECK:-}" ]; then
    started=$SECONDS
    # Contracts are not timed, so one check per op runs at once on the one GPU: the cold compiles (Triton's,
    # inductor's autotuning) then share the host's cores instead of queueing. Options naming --op run as given.
    # Where every strategy is checked, compile.max-autotune (minutes of autotuning each contract shape) gets a
    # process of its own, so that the rest of its op is not left without verdicts behind it (check_units.py).
    # Autotuning timed by processes sharing the GPU is timed under contention: kept out of Triton's disk cache,
    # so that the runs after the check time their configs afresh and keep those.
    units=$(python3 scripts/check_units.py "$MAGE_CHECK")
    labels=
    while IFS=$'\t' read -r label only; do
        labels="$labels $label"
        # shellcheck disable=SC2086
        { TRITON_CACHE_AUTOTUNING=0 timeout -s TERM -k 5 "${MAGE_CHECK_TIMEOUT:-0}" python3 -m mage check $MAGE_CHECK $only > "$out/check-$label.log" 2>&1 \
            || echo "mage check $MAGE_CHECK ($label): exit $?" >> "$out/check-$label.log"; } &
    done <<< "$units"
    wait
    for label in $labels; do cat "$out/check-$label.log"; done > "$out/check.log"
    echo "mage check $MAGE_CHECK (a process each:$labels): $((SECONDS - started)) s wall" | tee -a "$out/check.log"
    grep -v "^│\|^┃\|^┏\|^┡\|^└\|^├" "$out/check.log" | tail -30
    echo "contracts failed: $(grep -c "^FAIL " "$out/check.log" || true)"; grep "^FAIL " "$out/check.log" | head -40 || true
fi
mage env --ceilings > "$out/env.json"
for study in ${MAGE_STUDIES:-}; do
    bound=$(python3 -c 'import sys; from mage import studies; print(2 * (studies.load(sys.argv[1]).seconds or 300))' "$study")
    # A device call's own limit may be shorter: MAGE_STUDY_TIMEOUT stops the study first, so its finished blocks
    # or cases are still exported below.
    [ -z "${MAGE_STUDY_TIMEOUT:-}" ] || [ "$MAGE_STUDY_TIMEOUT" -ge "$bound" ] || bound=$MAGE_STUDY_TIMEOUT
    started=$SECONDS
    timeout -s TERM -k 5 "$bound" python3 -m mage study "$study" --db "$db" > "$out/study-$study.log" 2>&1 \
        || echo "mage study $study: exit $?" | tee -a "$out/study-$study.log"
    echo "mage study $study: $((SECONDS - started)) s wall (bound $bound s)" | tee -a "$out/study-$study.log"
    grep -v "^│\|^┃\|^┏\|^┡\|^└\|^├" "$out/study-$study.log" | tail -40
    checkpoint
done
if [ -n "${MAGE_CONTEXT:-}" ]; then
    started=$SECONDS
    # shellcheck disable=SC2086
    timeout -s TERM -k 5 "${MAGE_CONTEXT_TIMEOUT:-0}" python3 -m mage context $MAGE_CONTEXT --db "$db" > "$out/context.log" 2>&1 \
        || echo "mage context: exit $?" | tee -a "$out/context.log"
    echo "mage context $MAGE_CONTEXT: $((SECONDS - started)) s wall" | tee -a "$out/context.log"
    grep -v "^│\|^┃\|^┏\|^┡\|^└\|^├" "$out/context.log" | tail -40
    checkpoint
fi
# MAGE_PROBES: diagnostic commands (a probe script, ncu around one), separated by ';', each run here in turn with
# this environment (the peers importable), bounded by MAGE_PROBE_TIMEOUT, its output in probes.log.
if [ -n "${MAGE_PROBES:-}" ]; then
    IFS=';' read -ra probes <<< "$MAGE_PROBES"
    for probe in "${probes[@]}"; do
        started=$SECONDS
        echo "\$ $probe" >> "$out/probes.log"
        timeout -s TERM -k 5 "${MAGE_PROBE_TIMEOUT:-300}" bash -c "$probe" >> "$out/probes.log" 2>&1 \
            || echo "exit $?" >> "$out/probes.log"
        echo "($((SECONDS - started)) s wall)" >> "$out/probes.log"
    done
    tail -60 "$out/probes.log"
fi
if [ -n "${MAGE_STUDIES:-}${MAGE_CONTEXT:-}${MAGE_CHECK:-}${MAGE_PROBES:-}" ] && [ $# = 0 ]; then skip_run=1; else skip_run=0; fi
run_started=$SECONDS
[ $skip_run = 1 ] || timeout -s TERM "${MAGE_RUN_TIMEOUT:-0}" python3 -m mage run --db "$db" "$@" 2>&1 | tee "$out/run.log" | grep -v "^│\|^┃\|^┏\|^┡\|^└" || true
[ $skip_run = 1 ] || echo "mage run $*: $((SECONDS - run_started)) s wall, process start to exit" | tee -a "$out/run.log"
# A killed run leaves its last results in the write-ahead log: fold them into the file that travels.
checkpoint
# Each run of this call alone, for mage import: the store that travels back may outgrow what the
# transfer from the GPU machine returns.
latest=$(latest_run)
for run in $(seq "$first_new_run" "$latest"); do
    mage export "$run" --run-json -o "$out/run-$run.json.gz" --db "$db" || echo "export of run $run failed"
done
