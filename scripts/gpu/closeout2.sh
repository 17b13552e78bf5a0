# Session 27's last measurements for issue 17: what cuSPARSE does on the R-MAT graph, where every native
# schedule stays slower (runs 46, 47, 70). Sourced by scripts/h200.sh; writes only under $out/closeout2/.
step_budget 45
# ncu of cuSPARSE's kernels beside coop's on R-MAT at F 128 and F 512 (the same metrics as nbr2.sh, plus
# issue activity and L2 throughput: coop reads from L2 at a 91 % hit rate with little DRAM traffic, so the
# question is how busy each keeps the SMs and the L2, not the bytes).
metrics=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,sm__cycles_active.max,sm__cycles_active.avg,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
step_run ncu-cusparse 40 ncu --clock-control none --profile-from-start off --csv --metrics "$metrics" \
    --log-file "$out/closeout2/ncu-rmat.csv" python3 scripts/gpu/ncu_calls.py \
    neighbor_agg,cusparse/sum/ieee,rmat-64k-F128 neighbor_agg,native.coop/sum/ieee,rmat-64k-F128 \
    neighbor_agg,cusparse/sum/ieee,rmat-64k-F512 neighbor_agg,native.coop/sum/ieee,rmat-64k-F512
