"""The measurement of blocks in context (mage.context.measure) and `mage context`, on the CPU at tiny sizes:
which assignments are measured, the records they give, Amdahl's prediction from them, and the command."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import pytest
import torch

from mage import amdahl, registry
from mage.context import blocks, measure
from mage.errors import InputError, UnknownNameError
from mage.measure.method import Method
from mage.measure.device import Timer
from mage.store import Store

QUICK = Method(budget_s=0.02, min_samples=3, rounds=1, kernel_calls=3, warmup_calls=1, refresh_sets=2)


def _request(**changes) -> measure.Request:
    fields = dict(blocks=["trimul/outgoing-tiny"], precisions=["ieee"], device="cpu", method=QUICK, size="tiny",
                  compile_modes=(), fused=False)  # the fused implementations: tests/test_context_fused.py
    return measure.Request(**(fields | changes))


def _measurement(name: str, **changes) -> measure.BlockMeasurement:
    return measure.BlockMeasurement(blocks.build(name, "cpu"), "ieee", _request(blocks=[name], **changes),
                                    Timer("cpu"), lambda step: None)


def test_amdahl_of_several_ops_is_one_over_the_unchanged_rest_plus_each_op_sped_up():
    assert amdahl.combined_speedup([(0.2, 2.0)]) == pytest.approx(amdahl.overall_speedup(0.2, 2.0))
    assert amdahl.combined_speedup([(0.2, 2.0), (0.5, 5.0)]) == pytest.approx(1 / (0.3 + 0.1 + 0.1))
    assert amdahl.combined_speedup([]) == 1.0
    with pytest.raises(InputError, match="fractions must sum to at most 1"):
        amdahl.combined_speedup([(0.6, 2.0), (0.5, 2.0)])


def test_the_candidates_are_each_family_s_champion_unless_every_strategy_is_asked_for():
    default, every = _measurement("trimul/outgoing-tiny"), _measurement("trimul/outgoing-tiny", all_strategies=True)
    site = default.block.sites[0]
    champions = {impl.name for impl in registry.select(site.op, None)}
    assert set(default.candidates(site)) <= champions
    studies = set(every.candidates(site)) - champions
    assert studies and "triton.warp/affine/ieee" in studies


def test_each_faster_implementation_is_swapped_alone_and_the_fastest_per_op_together():
    measured = _measurement("trimul/outgoing-tiny", all_strategies=True)  # triton's default strategy: a study
    # Isolated times as a GPU run might find them: triton faster for the triangle, slower for layernorm.
    for site, name, us in [("layernorm#0", "eager/affine/ieee", 10.0), ("layernorm#0", "triton/affine/ieee", 20.0),
                           ("layernorm#1", "eager/affine/ieee", 10.0), ("layernorm#1", "triton/affine/ieee", 20.0),
                           ("triangle#0", "eager/outgoing/ieee", 50.0), ("triangle#0", "triton/outgoing/ieee", 25.0)]:
        measured.isolated[(site, name)] = us
    ways = {way.label: way.kind for way in measured.ways()}
    # One op swapped is also the best: measured once, and once more called directly.
    assert ways == {"eager": "eager", "triangle=triton": "best", "direct(triangle=triton)": "direct",
                    "control(triangle=triton)": "control"}
    measured.isolated[("layernorm#0", "triton/affine/ieee")] = 5.0
    measured.isolated[("layernorm#1", "triton/affine/ieee")] = 5.0
    ways = {way.label: way for way in measured.ways()}
    assert {label: way.kind for label, way in ways.items()} == {
        "eager": "eager", "layernorm=triton": "swap", "triangle=triton": "swap",
        "layernorm=triton,triangle=triton": "best", "direct(layernorm=triton,triangle=triton)": "direct",
        "control(layernorm=triton,triangle=triton)": "control"}
    direct, control = ways["direct(layernorm=triton,triangle=triton)"], ways["control(layernorm=triton,triangle=triton)"]
    assert direct.route == control.route == "direct"
    assert direct.selectors == control.selectors == ways["layernorm=triton,triangle=triton"].selectors


def test_of_a_familys_faster_strategies_the_fastest_alone_is_swapped_and_formulas_kept_to_fail_never():
    measured = _measurement("trimul/outgoing-tiny", all_strategies=True)
    layernorm = measured.candidates(measured.block.sites[0])
    assert "triton.warp/affine/ieee" in layernorm and "triton.split/affine/ieee" in layernorm
    assert "triton.naive/affine/ieee" not in layernorm  # registered to be seen failing the large-mean contract
    times = {"eager/affine/ieee": 10.0, "triton/affine/ieee": 9.0, "triton.warp/affine/ieee": 4.0,
             "triton.split/affine/ieee": 6.0, "triton.online/affine/ieee": 12.0}
    for site in ("layernorm#0", "layernorm#1"):
        measured.isolated.update({(site, name): times.get(name, 20.0) for name in layernorm + ["eager/affine/ieee"]})
    measured.isolated.update({("triangle#0", "eager/outgoing/ieee"): 50.0})
    swaps = [way.label for way in measured.ways() if way.kind in ("swap", "best")]
    assert swaps == ["layernorm=triton.warp"]


def test_compile_ways_use_torch_ops_and_the_best_assignment_and_max_autotune_is_a_cpu_skip():
    measured = _measurement("mlp/tiny", compile_modes=("default", "max-autotune"), assign={"layernorm": "triton"})
    measured.isolated.update({("layernorm#0", "eager/affine/ieee"): 1.0, ("layernorm#0", "triton/affine/ieee"): 2.0})
    ways = {way.label: way for way in measured.ways()}
    assert ways["layernorm=triton"].kind == "best"  # assigned, so measured whatever its speed
    assert ways["compile.default(torch)"].route == "direct" and ways["compile.default(torch)"].selectors == {}
    assert ways["compile.default(mage)"].selectors == {"layernorm": "triton"}
    assert "nothing to tune on the CPU" in ways["compile.max-autotune(mage)"].skip
    assert ways["compile.default(mage)"].skip is None


@pytest.fixture(scope="module")
def assigned_run():
    """One tiny triangle update at ieee: eager, and layernorm swapped to Triton (the interpreter)."""
    return next(measure.run(_request(assign={"layernorm": "triton"})))


def test_a_run_gives_one_result_per_assignment_and_path_and_one_share_per_site(assigned_run):
    results, shares = assigned_run
    assert {(r.assignment, r.kind, r.path) for r in results} == {
        ("eager", "eager", "single"), ("eager", "eager", "graph"),
        ("layernorm=triton", "best", "single"), ("layernorm=triton", "best", "graph"),
        ("direct(layernorm=triton)", "direct", "single"), ("direct(layernorm=triton)", "direct", "graph"),
        ("control(layernorm=triton)", "control", "single"), ("control(layernorm=triton)", "control", "graph")}
    single = {r.assignment: r for r in results if r.path == "single"}
    assert all(r.status == "pass" and r.rel_error < 1e-5 and r.span_median_us > 0 for r in single.values())
    # The same kernels without torch.library: the same prediction, measured against eager on its own span.
    direct = single["direct(layernorm=triton)"]
    assert direct.predicted_speedup == single["layernorm=triton"].predicted_speedup
    assert direct.measured_speedup == pytest.approx(single["eager"].span_median_us / direct.span_median_us)
    assert all(r.status == "skip" and "CUDA graph" in r.reason for r in results if r.path == "graph")
    assert single["eager"].measured_speedup == 1.0
    assert single["layernorm=triton"].measured_speedup == pytest.approx(
        single["eager"].span_median_us / single["layernorm=triton"].span_median_us)
    assert [(s.assignment, s.site, s.impl) for s in shares] == [
        ("eager", "layernorm#0", "eager/affine/ieee"), ("eager", "triangle#0", "eager/outgoing/ieee"),
        ("eager", "layernorm#1", "eager/affine/ieee"),
        ("layernorm=triton", "layernorm#0", "triton/affine/ieee"), ("layernorm=triton", "triangle#0",
                                                                    "eager/outgoing/ieee"),
        ("layernorm=triton", "layernorm#1", "triton/affine/ieee")]


def test_shares_are_fractions_of_one_capture_and_the_prediction_is_amdahl_over_the_swapped_sites(assigned_run):
    results, shares = assigned_run
    for assignment in ("eager", "layernorm=triton"):
        fractions = [s.fraction for s in shares if s.assignment == assignment]
        assert all(0 < f < 1 for f in fractions) and sum(fractions) <= 1
    eager = {s.site: s for s in shares if s.assignment == "eager"}
    swapped = [s for s in shares if s.assignment == "layernorm=triton" and s.op == "layernorm"]
    assert all(s.isolated_speedup == pytest.approx(s.baseline_isolated_us / s.isolated_us) for s in swapped)
    expected = amdahl.combined_speedup([(eager[s.site].fraction, s.isolated_speedup) for s in swapped])
    predicted = [r.predicted_speedup for r in results if r.assignment == "layernorm=triton" and r.status == "pass"]
    assert predicted == [pytest.approx(expected)]
    assert all(math.isclose(s.isolated_speedup, 1.0) for s in shares if s.assignment == "eager")


def test_a_way_that_breaks_its_contract_or_its_capture_fails_alone(monkeypatch):
    built, captured = measure.BlockMeasurement.function, measure.BlockMeasurement._capture

    def wrong_for_triton(self, way):  # layernorm=triton answers 0.1 % off
        fn = built(self, way)
        return (lambda *inputs: fn(*inputs) * 1.001) if way.label == "layernorm=triton" else fn

    monkeypatch.setattr(measure.BlockMeasurement, "function", wrong_for_triton)
    results, shares = next(measure.run(_request(assign={"layernorm": "triton"})))
    status = {(r.assignment, r.path): (r.status, r.reason or "") for r in results}
    assert status[("eager", "single")][0] == "pass"
    assert all(status[("layernorm=triton", path)][0] == "fail" and "error" in status[("layernorm=triton", path)][1]
               for path in measure.PATHS)
    assert {s.assignment for s in shares} == {"eager"}

    def refused_for_triton(self, way, call, refresh):
        if way.label == "layernorm=triton":
            raise RuntimeError("the profiler lost its events")
        return captured(self, way, call, refresh)

    monkeypatch.setattr(measure.BlockMeasurement, "function", built)
    monkeypatch.setattr(measure.BlockMeasurement, "_capture", refused_for_triton)
    results, _ = next(measure.run(_request(assign={"layernorm": "triton"})))
    failed = {r.reason for r in results if r.assignment == "layernorm=triton"}
    assert failed == {"profile: RuntimeError: the profiler lost its events"}
    assert {r.status for r in results if r.assignment == "eager" and r.path == "single"} == {"pass"}


def test_whole_block_compiles_pass_their_contract_and_are_timed():
    results, shares = next(measure.run(_request(blocks=["mlp/tiny"], compile_modes=("default",))))
    single = {r.assignment: r for r in results if r.path == "single"}
    for label in ("compile.default(torch)", "compile.default(mage)"):
        assert single[label].status == "pass" and single[label].kind == "compile", single[label].reason
        assert single[label].predicted_speedup is None and single[label].measured_speedup > 0
    attributed = {s.assignment for s in shares}
    assert {"eager", "compile.default(mage)"} <= attributed and "compile.default(torch)" not in attributed  # no Mage op


@pytest.mark.parametrize("changes, error, message", [
    ({"blocks": ["nope"]}, UnknownNameError, "unknown block 'nope' at size tiny"),
    ({"precisions": ["fp8"]}, UnknownNameError, "unknown block precision 'fp8'"),
    ({"precisions": ["tf32"]}, InputError, "tf32 is a CUDA tensor-core mode"),
    ({"assign": {"layernorm": "nope"}}, UnknownNameError, "unknown implementation 'nope'"),
    ({"compile_modes": ("fast",)}, UnknownNameError, "unknown compile mode 'fast'"),
    ({"size": "full", "blocks": ["mlp"]}, InputError, "on the CPU, measure --size tiny"),
])
def test_bad_requests_are_refused_before_anything_runs(changes, error, message):
    with pytest.raises(error, match=message):
        measure.check_request(_request(**changes))


def test_block_families_and_names_select_blocks():
    assert blocks.select(["trimul"], "full") == ["trimul/outgoing-384", "trimul/outgoing-768",
                                                  "trimul/incoming-384", "trimul/incoming-768"]
    assert blocks.select(None, "tiny") == blocks.names("tiny")
    assert blocks.select(["gnn/rmat", "gnn"]) == ["gnn/rmat", "gnn/powerlaw"]


def test_record_stores_each_block_in_a_context_run(tmp_path, monkeypatch):
    stored = []
    monkeypatch.setattr(Store, "add_context", lambda self, run_id, results, shares:
                        stored.append((run_id, results, shares)), raising=False)
    store = Store(tmp_path / "mage.db")
    run_id, results = measure.record(store, _request(blocks=["mlp/tiny", "gnn/rmat-tiny"]), "mage context")
    assert [results[0].block for _, results, _ in stored] == ["mlp/tiny", "gnn/rmat-tiny"]
    assert all(stored_id == run_id for stored_id, _, _ in stored)
    run = store.run(run_id)
    assert run["suite"] == "context" and run["status"] == "complete" and run["clock"] == "cpu"


MAGE = [sys.executable, "-c", "from mage.cli import main; main()"]


@pytest.mark.parametrize("args, message", [
    (["--size", "tiny", "--block", "nope"], "unknown block 'nope'"),
    (["--assign", "layernorm"], "--assign takes op=impl"),
])
def test_mage_context_refuses_bad_names_in_one_line_with_exit_2(tmp_path, args, message):
    result = subprocess.run([*MAGE, "context", *args], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                            env=os.environ | {"COLUMNS": "200"})
    lines = result.stderr.splitlines()
    assert result.returncode == 2 and len(lines) == 1 and message in lines[0], result.stderr
    assert not (tmp_path / "mage.db").exists()


def test_mage_context_on_the_cpu_writes_nothing_to_stderr(tmp_path):
    """The profiler's library (Kineto) logged "gpuGetDeviceCount failed" and its stages there, where only host
    ranges are profiled: noise beside Mage's own lines, which a user reads as an error."""
    result = subprocess.run([*MAGE, "context", "--size", "tiny", "--block", "mlp/tiny", "--no-compile", "--no-fused",
                             "--budget", "0.02", "--device", "cpu"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, env=os.environ | {"COLUMNS": "200"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == "", result.stderr


def test_mage_context_runs_end_to_end_on_tiny_blocks(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from mage.cli import app

    monkeypatch.setattr(Store, "add_context", lambda self, run_id, results, shares: None, raising=False)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["context", "--size", "tiny", "--block", "gnn/powerlaw-tiny", "--no-compile",
                                      "--assign", "bias_gelu=triton", "--budget", "0.05", "--db", "c.db"])
    assert result.exit_code == 0, result.output
    assert "bias_gelu=triton" in result.output and "stored as run 1 in c.db" in result.output
    # Not a terminal: each step is a line of its own with the seconds since the start, for a log to show.
    steps = [line.split("s  ", 1) for line in result.output.splitlines() if line.strip().endswith("done ieee")
             or " contract " in line]
    assert steps and all(float(seconds) >= 0 for seconds, _ in steps)
    assert steps[-1][1] == "gnn/powerlaw-tiny done ieee"


def test_an_op_alone_is_timed_with_its_output_made_contiguous_as_its_call_site_in_the_block_makes_it():
    """The block's custom op copies an output of another layout (eager triangle's einsum) to a contiguous one, and
    the site's share of the block's capture holds that copy: the isolated time, Amdahl's s, must hold it too."""
    measurement = _measurement("trimul/outgoing-tiny")
    eager = registry.baseline_for("triangle", "outgoing", "ieee")
    a, b = registry.get_op("triangle").make_inputs(measurement.block.sites[1].case(measurement.block.name), 3, "cpu")
    assert not eager.fn(a, b).is_contiguous()  # the einsum's own layout: the copy is real work here
    copies = []
    original = torch.Tensor.contiguous

    def counted(tensor, *args, **kwargs):
        copies.append(tensor.is_contiguous())
        return original(tensor, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(torch.Tensor, "contiguous", counted)
        assert measurement._isolated_us(eager, (a, b)) is not None
    assert copies and not any(copies)  # every timed call made its non-contiguous output contiguous


def test_a_bf16_block_runs_bf16_weights_and_inputs_against_the_float64_of_those_rounded_values():
    block = blocks.build("trimul/outgoing-tiny", "cpu")
    block.reference(*(t.double() for t in block.make_inputs(3, "cpu")))  # the float32 block's twin, cached
    rounded = block.at_dtype(torch.bfloat16)
    assert rounded is not block and block.proj_a.weight.dtype == torch.float32
    assert all(p.dtype == torch.bfloat16 for p in rounded.parameters())
    (z,) = block.make_inputs(3, "cpu")
    z = z.to(torch.bfloat16).double()
    # The twin is rebuilt from the rounded weights, not carried over from the float32 block.
    assert not torch.equal(rounded.reference(z), block.reference(z))
    assert torch.equal(rounded.reference(z), block.at_dtype(torch.bfloat16).reference(z))
    assert block.at_dtype(torch.float32) is block

    rows, _ = next(measure.run(_request(precisions=["bf16"])))
    eager = [row for row in rows if row.assignment == "eager" and row.path == "single"]
    assert [row.status for row in eager] == ["pass"] and eager[0].precision == "bf16"
    assert 1e-4 < eager[0].rel_error < 2e-2  # bf16's rounding, within its ceiling


def test_a_block_calling_an_op_without_bf16_is_a_skip_that_names_the_op():
    rows, shares = next(measure.run(_request(blocks=["gnn/powerlaw-tiny"], precisions=["bf16"])))
    assert shares == [] and {row.status for row in rows} == {"skip"}
    assert all("neighbor_agg declares no bf16 implementation" in row.reason for row in rows)


def test_each_device_activity_counts_once_in_the_range_whose_host_op_launched_it():
    from types import SimpleNamespace

    from mage.measure import kernel

    def event(name, id, parent=None):
        return SimpleNamespace(name=name, id=id, cpu_parent=parent)

    first = event("mage::layernorm", 1)
    launcher = event("aten::native_layer_norm", 10, first)
    # The profiler's own overhead record, nested in the op with the op's id: torch's per-op device time lets it
    # claim the op's kernels a second time.
    overhead = event("Activity Buffer Request", 10, launcher)
    between = event("aten::linear", 20)
    second = event("mage::triangle", 2)
    gemm = event("aten::mm", 30, event("aten::einsum", 31, second))
    host = [first, launcher, overhead, between, second, gemm, gemm.cpu_parent]
    work = [kernel.DeviceActivity(linked, us, "k") for linked, us in
            [(10, 40.0), (10, 10.0), (20, 100.0), (30, 5.0), (31, 2.0), (99, 7.0)]]
    timed = kernel._device_work_by_range(host, [first, second], "mage::", work)
    assert timed == [(50.0, 2), (7.0, 2)]
    assert sum(us for us, _ in timed) <= sum(a.us for a in work)


def test_cold_calls_leave_the_flush_out_by_position_in_the_time_and_in_the_kernel_shares(monkeypatch):
    """Each cold call is a flush (its one activity first) then the call's: the capture and the kernel shares count
    the calls' activities alone, whatever the flush's name; a capture whose calls launch unevenly is refused."""
    from types import SimpleNamespace

    from mage.measure import kernel

    def activity(name, us):
        return SimpleNamespace(name=name, time_range=SimpleNamespace(elapsed_us=lambda: us))

    def flush():
        pass

    timeline = [activity("fill", 500.0), activity("gemm", 10.0), activity("copy", 2.0),
                activity("fill", 500.0), activity("gemm", 14.0), activity("copy", 4.0)]
    monkeypatch.setattr(kernel, "_activities_of", lambda f: 1)
    monkeypatch.setattr(kernel, "_device_activities", lambda step, calls: timeline)
    captured = kernel.capture(lambda: None, 2, flush)
    assert (captured.kernel_us, captured.launches, captured.names) == (15.0, 2.0, ["gemm", "copy"])
    assert kernel.kernel_shares(lambda: None, 2, flush) == [("gemm", 12.0), ("copy", 3.0)]
    monkeypatch.setattr(kernel, "_device_activities", lambda step, calls: timeline[:5])
    with pytest.raises(RuntimeError, match="the launch count varies between calls"):
        kernel.kernel_shares(lambda: None, 2, flush)


def test_a_capture_s_kernels_are_summed_by_name_a_call_largest_first():
    from mage.measure import kernel
    from mage.store import kernel_times, read_kernel_times

    layer_norm = ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, false>(int, "
                  "float, float const*, float*)")
    work = [kernel.DeviceActivity(1, us, name) for us, name in
            [(40.0, "_trimul_project_kernel"), (10.0, layer_norm), (60.0, "void cueq::finish<8>(float const*)"),
             (44.0, "_trimul_project_kernel"), (12.0, layer_norm), (2.0, "Memset (Device)")]]
    kernels = kernel.by_kernel(work, calls=2)
    assert kernels == [("_trimul_project_kernel", 42.0), ("cueq::finish<8>", 30.0),
                       ("at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, false>", 11.0),
                       ("Memset", 1.0)]
    assert sum(us for _, us in kernels) == sum(a.us for a in work) / 2  # every activity counted, once
    assert read_kernel_times(kernel_times(kernels)) == kernels
    long = "void at::native::elementwise_kernel<128, 2, " + "lambda, " * 40 + ">(int)"
    assert len(kernel.kernel_label(long)) == kernel.LABEL_CHARS and kernel.kernel_label(long).endswith("…")


def test_sites_measured_past_the_whole_cost_the_prediction_not_the_run(assigned_run, monkeypatch):
    results, _ = assigned_run
    assert any(r.predicted_speedup for r in results if r.assignment == "layernorm=triton")
    monkeypatch.setattr(measure.amdahl, "combined_speedup",
                        lambda parts: (_ for _ in ()).throw(InputError("fractions must sum to at most 1, got 1.09")))
    results, _ = next(measure.run(_request(assign={"layernorm": "triton"})))
    assert {r.status for r in results if r.path == "single"} == {"pass"}
    assert all(r.predicted_speedup is None for r in results)
