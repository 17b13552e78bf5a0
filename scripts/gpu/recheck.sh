# Session 25: the two triton.channel ragged-shape GPU tests that failed in the first call (whose log was cut
# before its summary), again with their reasons. Sourced by scripts/h200.sh; under 40 s; writes $out/recheck/.
timeout -s TERM 40 python3 -m pytest -m gpu -q -rA --tb=short -p no:cacheprovider tests/test_triangle_gpu.py \
    -k "ragged and (tf32x3-channel-first-transposed or tf32-channel-last)" > "$out/recheck/triangle-ragged.log" 2>&1
echo "recheck: exit $?" | tee -a "$out/recheck/triangle-ragged.log"
true
