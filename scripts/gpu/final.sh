# Session 25's last call: the rows the earlier calls lost to their time limits. CubeCL's triangle at the
# large case (its launcher was fixed after the first call), and the large power-law neighbor_agg with
# native.inflight beside native and cuSPARSE (issue 17's ≤ 0.85× target), cold L2. Under 120 s.
timeout -k 2 -s TERM 40 python3 -m mage run --db "$db" --suite large --op triangle --impl cubecl --impl native/ \
    --path single --cold --budget 0.05 --min-samples 10 --no-isolate > "$out/final/triangle.log" 2>&1
echo "triangle: exit $?" | tee -a "$out/final/steps.log"
timeout -k 2 -s TERM 75 python3 -m mage run --db "$db" --suite large --op neighbor_agg --impl native/ \
    --impl native.inflight --impl cusparse --path single --cold --budget 0.05 --min-samples 10 --no-isolate \
    > "$out/final/nbr.log" 2>&1
echo "neighbor_agg: exit $?" | tee -a "$out/final/steps.log"
true
