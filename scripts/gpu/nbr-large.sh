# neighbor_agg's large power-law case (issue 17), isolated as large cases are: the deterministic kernels
# beside cuSPARSE. Sourced by scripts/h200.sh; logs under $out/nbr-large/.
timeout -s TERM 70 python3 -m mage run --db "$db" --suite large --op neighbor_agg \
    --impl native/ --impl native.edge --impl native.split --impl triton/sum --impl cusparse --path single --cold \
    --budget 0.1 --min-samples 20 \
    --hypothesis "Deterministic one-launch kernels with predicated float4 gathers reach cuSPARSE's gather rate and beyond" \
    --predict "neighbor_agg/native/sum/ieee@powerlaw-1M-16M-F128[single/cold]:kernel<=0.85*cusparse/sum/ieee" \
    --predict "neighbor_agg/native/mean/ieee@powerlaw-1M-16M-F128[single/cold]:kernel<=0.85*cusparse/sum/ieee" \
    > "$out/nbr-large/large.log" 2>&1; echo "nbr large: exit $?"
