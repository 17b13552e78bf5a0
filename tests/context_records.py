"""A context run as mage context stores it (mage.store.BlockResult, BlockOpShare), with H200-like numbers.

Two blocks at two precisions' worth of assignments: the GPT-2 small MLP (eager, LayerNorm swapped to
native, bias+GELU swapped to Triton, the best of both, a fused implementation, whole-block compile) and the power-law GNN layer
(eager, neighbor_agg swapped to native, a compile that failed its contract and a graph path skipped),
each on the single and graph paths; the MLP's best also called directly, without torch.library.
"""

import dataclasses

from mage.registry import Implementation
from mage.spec import Case
from mage.store import BlockOpShare, BlockResult, Result

MLP, GNN = "mlp/gpt2-small", "gnn/powerlaw"
MLP_SITES = {"layernorm#0": "layernorm", "bias_gelu#0": "bias_gelu"}
# The eager capture of the MLP: LayerNorm 48 µs and bias+GELU 182 µs of 1,150 µs of kernels, 7 launches.
MLP_EAGER = {"layernorm#0": 48.0, "bias_gelu#0": 182.0}
ISOLATED = {("layernorm", "eager"): 48.0, ("layernorm", "native"): 8.0,
            ("bias_gelu", "eager"): 182.0, ("bias_gelu", "triton"): 70.0,
            ("neighbor_agg", "eager"): 32_749.0, ("neighbor_agg", "native"): 2_888.0}


# The fused MLP's kernels a call, as a capture stores them (mage.store.kernel_times): names may hold spaces.
FUSED_KERNELS = ("_mlp_fused_kernel 700.0 | at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, "
                 "float, false> 182.5 | sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n 47.5")


def amdahl(fractions_and_speedups):
    return 1 / (1 - sum(f for f, _ in fractions_and_speedups) + sum(f / s for f, s in fractions_and_speedups))


def _shares(block, precision, assignment, sites, chosen, block_kernel_us, site_us):
    out = []
    for site, op in sites.items():
        impl = chosen.get(op, "eager")
        alone, baseline = ISOLATED[op, impl], ISOLATED[op, "eager"]
        out.append(BlockOpShare(block, precision, assignment, site, op, "default", f"{impl}/default/{precision}",
                                kernel_us=site_us[site], fraction=site_us[site] / block_kernel_us,
                                isolated_us=alone, baseline_isolated_us=baseline, isolated_speedup=baseline / alone))
    return out


def mlp_records(scale: float = 1.0):
    """The MLP block: ``scale`` multiplies every span (a slower or faster run of the same block). Triton's
    bias+GELU is one kernel where eager launches two."""
    results, shares = [], []
    eager_kernel = 1150.0
    eager_span = {"single": 1210.0 * scale, "graph": 1160.0 * scale}
    assignments = [  # assignment, kind, chosen implementations, block kernel µs, site kernel µs
        ("eager", "eager", {}, eager_kernel, MLP_EAGER),
        ("layernorm=native", "swap", {"layernorm": "native"}, 1110.0, {"layernorm#0": 8.0, "bias_gelu#0": 182.0}),
        ("bias_gelu=triton", "swap", {"bias_gelu": "triton"}, 1038.0, {"layernorm#0": 48.0, "bias_gelu#0": 70.0}),
        ("layernorm=native,bias_gelu=triton", "best", {"layernorm": "native", "bias_gelu": "triton"}, 998.0,
         {"layernorm#0": 8.0, "bias_gelu#0": 70.0}),
    ]
    measured_span = {"layernorm=native": {"single": 1169.0, "graph": 1121.0},
                     "bias_gelu=triton": {"single": 1098.0, "graph": 1049.0},
                     "layernorm=native,bias_gelu=triton": {"single": 1057.0, "graph": 962.0}}
    for assignment, kind, chosen, kernel_us, site_us in assignments:
        site_shares = _shares(MLP, "ieee", assignment, MLP_SITES, chosen, kernel_us, site_us)
        shares += site_shares
        eager_fractions = {site: us / eager_kernel for site, us in MLP_EAGER.items()}
        predicted = amdahl([(eager_fractions[s.site], s.isolated_speedup) for s in site_shares
                            if s.isolated_speedup != 1.0]) if chosen else 1.0
        for path in ("single", "graph"):
            span = eager_span[path] if kind == "eager" else measured_span[assignment][path] * scale
            launches = 6.0 if "bias_gelu" in chosen else 7.0
            results.append(BlockResult(MLP, "ieee", assignment, kind, path, "pass", rel_error=2.1e-7,
                                       span_median_us=span, span_mean_us=span * 1.002, span_rse=0.002,
                                       span_samples=300, kernel_us=kernel_us, launches=launches,
                                       predicted_speedup=predicted, measured_speedup=eager_span[path] / span))
    best = [r for r in results if r.kind == "best"]  # again, its implementations called without torch.library
    direct_span = {"single": 1020.0 * scale, "graph": 961.0 * scale}
    results += [dataclasses.replace(r, assignment=f"direct({r.assignment})", kind="direct",
                                    span_median_us=direct_span[r.path], span_mean_us=direct_span[r.path] * 1.002,
                                    measured_speedup=eager_span[r.path] / direct_span[r.path]) for r in best]
    again = {"single": 1021.0 * scale, "graph": 961.5 * scale}  # the A/A control: the direct call measured again
    results += [dataclasses.replace(r, assignment=f"control({r.assignment})", kind="control",
                                    span_median_us=again[r.path], span_mean_us=again[r.path] * 1.002,
                                    measured_speedup=eager_span[r.path] / again[r.path]) for r in best]
    fused = {"single": 940.0 * scale, "graph": 880.0 * scale}  # one kernel for both ops: no per-op prediction
    results += [BlockResult(MLP, "ieee", "fused(triton)", "fused", path, "pass", rel_error=2.4e-7,
                            span_median_us=fused[path], span_mean_us=fused[path] * 1.002, span_rse=0.002,
                            span_samples=300, kernel_us=930.0, launches=5.0,
                            measured_speedup=eager_span[path] / fused[path], kernel_times=FUSED_KERNELS)
                for path in ("single", "graph")]
    compiled = {"single": 905.0 * scale, "graph": 870.0 * scale}
    for path in ("single", "graph"):
        results.append(BlockResult(MLP, "ieee", "compile.default(torch)", "compile", path, "pass", rel_error=3e-7,
                                   span_median_us=compiled[path], span_mean_us=compiled[path], span_rse=0.003,
                                   span_samples=300, kernel_us=850.0, launches=5.0,
                                   measured_speedup=eager_span[path] / compiled[path]))
    return results, shares


def gnn_records():
    """The GNN layer: eager neighbor_agg dominates; its compile fails its contract, its graph path is skipped."""
    results, shares = [], []
    sites = {"neighbor_agg#0": "neighbor_agg", "bias_gelu#0": "bias_gelu"}
    for assignment, kind, chosen, kernel_us, site_us in (
            ("eager", "eager", {}, 36_100.0, {"neighbor_agg#0": 32_749.0, "bias_gelu#0": 1_290.0}),
            ("neighbor_agg=native", "swap", {"neighbor_agg": "native"}, 6_250.0,
             {"neighbor_agg#0": 2_900.0, "bias_gelu#0": 1_290.0})):
        site_shares = _shares(GNN, "tf32", assignment, sites, chosen, kernel_us, site_us)
        shares += site_shares
        predicted = amdahl([(32_749.0 / 36_100.0, 32_749.0 / 2_888.0)]) if chosen else 1.0
        span = 36_400.0 if kind == "eager" else 6_500.0
        results.append(BlockResult(GNN, "tf32", assignment, kind, "single", "pass", rel_error=4e-4,
                                   span_median_us=span, span_mean_us=span, span_rse=0.004, span_samples=40,
                                   kernel_us=kernel_us, launches=9.0, predicted_speedup=predicted,
                                   measured_speedup=36_400.0 / span))
        results.append(BlockResult(GNN, "tf32", assignment, kind, "graph", "skip",
                                   reason="the CSR graph's host-side degree scan cannot be captured"))
    results.append(BlockResult(GNN, "tf32", "compile.max-autotune(mage)", "compile", "single", "fail",
                               reason="contract: relative error 3.1e-02 above the tf32 ceiling 2e-03", rel_error=0.031))
    return results, shares


def context_records(scale: float = 1.0):
    mlp, mlp_shares = mlp_records(scale)
    gnn, gnn_shares = gnn_records()
    return mlp + gnn, mlp_shares + gnn_shares


METHOD = {"kernel_calls": 100, "span_samples": 300, "rounds": 3, "min_samples": 30, "batch": 10, "host_calls": 200,
          "host_chunk": 20, "warmup_calls": 10, "budget_s": 0.5, "noise_target": 0.005, "check_seed": 1624951234,
          "l2_flush_bytes": 125829120}


def gpu_state(temperature_c: int) -> dict:
    """What NVML records of the H200 at a run's start or end (mage.measure.env.gpu_state)."""
    return {"sm_clock_mhz": 1980, "mem_clock_mhz": 3201, "max_sm_clock_mhz": 1980, "temperature_c": temperature_c,
            "power_limit_w": 700.0, "throttle_reasons": []}


ENV = {"device": "cuda", "torch": "2.11.0+cu130", "gpu": "NVIDIA H200", "uuid": "GPU-1234", "hostname": "vm",
       "git_commit": "abc1234def", "git_dirty": False, "gpu_state_start": gpu_state(44)}


def store_context_run(store, scale: float = 1.0, command="mage context") -> int:
    """A complete context run in ``store``; its id."""
    run = store.begin_run(clock="gpu", suite="context", command=command, env=ENV, method=METHOD, ceilings={})
    store.add_context(run, *context_records(scale))
    store.end_run(run, "complete", {"gpu_state_end": gpu_state(47)})
    return run


def store_op_run(store) -> int:
    """A complete run of op results only (layernorm, eager and Triton, single path): no context results."""
    run = store.begin_run(clock="gpu", suite="seed", command="mage run", env=ENV, method=METHOD, ceilings={})
    case_id = store.case_id(run, Case("layernorm", "1024x1024", "seed", {"rows": 1024, "cols": 1024}, 7))
    for family, kernel_us in (("eager", 5.2), ("triton", 2.9)):
        impl_id = store.impl_id(run, Implementation("layernorm", family, "affine", "ieee", fn=None))
        store.add_result(run, case_id, impl_id, Result(
            "single", "warm", "pass", contract="pass", rel_error=1e-7, kernel_us=kernel_us, launches=1.0,
            span_mean_us=33.0, span_median_us=33.0, span_round_min_us=32.5, span_round_max_us=33.5, span_samples=6),
            [(r, 32.5 + r / 2 + i / 10) for r in range(3) for i in range(2)])
    store.end_run(run, "complete", {"gpu_state_end": gpu_state(47)})
    return run
