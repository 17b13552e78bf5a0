#!/usr/bin/env bash
# Check and time on the GPU machine in one call. Run through the device tool from the repo root,
# after `make wheel` here, carrying dist/ (the abi3 native extension built on this machine):
#   bash scripts/h200.sh [mage run options…]        results land in $OUT (or results/h200)
# The working tree's Python runs as is; only the compiled extension comes from the wheel.
set -euo pipefail
out=${OUT:-results/h200}
mkdir -p "$out"
python3 -m zipfile -e dist/*.whl /tmp/wheel >/dev/null
cp /tmp/wheel/mage/_native*.so python/mage/
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 COLUMNS=220 TRITON_CACHE_DIR=/tmp/triton-cache
mage() { python3 -m mage "$@"; }

mage env --ceilings > "$out/env.json"
mage run --db "$out/mage.db" "$@" 2>&1 | tee "$out/run.log"
mage export --json --db "$out/mage.db" > "$out/rows.json"
