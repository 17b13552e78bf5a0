"""A context run's model blocks in words, tables and figures (mage.report.context), in mage show and mage
report, compared between runs and followed in history; from records built as mage context stores them."""

import dataclasses
import json
import os
import subprocess
import sys

import pytest

from context_records import GNN, MLP, context_records, store_context_run, store_op_run
from mage import compare, history, transfer
from mage.report import context
from mage.store import Store

MAGE = [sys.executable, "-c", "from mage.cli import main; main()"]
BEST = "layernorm=native,bias_gelu=triton"


def mage(cwd, *args):
    return subprocess.run([*MAGE, *args], cwd=cwd, capture_output=True, text=True, env=os.environ | {"COLUMNS": "250"})


def sentences(results, shares):
    return {(s.title, line.split(":", 1)[0], line) for s in context.findings(results, shares) for line in s.sentences}


def line_of(results, shares, assignment, path, block=MLP):
    """The sentence of one assignment of a block on one path, as the block's findings hold it."""
    [reading] = [r for r in context.readings(results) if (r.result.block, r.result.assignment, r.result.path)
                 == (block, assignment, path)]
    line = context.sentence(reading, shares)
    assert line in {text for _, _, text in sentences(results, shares)}
    return line


def replace(records, match, **changes):
    return [dataclasses.replace(r, **changes) if match(r) else r for r in records]


# Words


def test_a_swap_within_noise_is_one_sentence_of_the_stored_numbers():
    results, shares = context_records()
    assert line_of(results, shares, "layernorm=native", "single") == (
        "single path: swapping layernorm to native saves 41 µs of 1,210 µs (3.4 %); Amdahl predicted 3.5 %, "
        "within the noise (±0.6 %).")


def test_beyond_the_noise_the_sentence_names_the_launches_that_changed():
    results, shares = context_records()
    line = line_of(results, shares, BEST, "graph")
    assert line.startswith("graph path: swapping layernorm to native and bias_gelu to triton saves 198 µs of 1,160 µs "
                           "(17.1 %); Amdahl predicted 13.2 %. They differ by +4.6 %, beyond the noise (±0.6 %); "
                           "measured: launches per block call went from 7 to 6 on the graph path")
    assert "the block's kernel time is 1.15× shorter while its span is 1.21× shorter on the graph path" in line


def test_kernel_time_outside_the_swapped_sites_and_a_site_slower_than_alone_are_named():
    results, shares = context_records()
    results = replace(results, lambda r: r.assignment == BEST, kernel_us=1_082.0)
    shares = replace(shares, lambda s: (s.assignment, s.site) == (BEST, "layernorm#0"), kernel_us=12.0)
    line = line_of(results, shares, BEST, "graph")
    assert "kernel time outside the swapped call sites went from 920.0 to 1,000.0 µs (+8.7%)" in line
    assert "native/default/ieee at layernorm#0 took 12.00 µs of kernel time inside the block against 8.00 µs alone" \
        in line


def test_eager_slower_inside_the_block_than_alone_is_named_as_what_amdahl_could_not_see():
    results, shares = context_records()
    eager_site = next(s for s in shares if (s.assignment, s.site) == ("eager", "bias_gelu#0"))
    shares = replace(shares, lambda s: (s.assignment, s.site) == ("eager", "bias_gelu#0"),
                     kernel_us=eager_site.isolated_us * 1.2)
    line = line_of(results, shares, BEST, "graph")
    assert (f"{eager_site.impl} at bias_gelu#0 took {eager_site.isolated_us * 1.2:,.1f} µs of kernel time inside the "
            f"block against {eager_site.isolated_us:,.1f} µs alone") in line


def test_a_difference_with_nothing_measured_to_explain_it_says_so():
    results, shares = context_records()
    results = replace(results, lambda r: r.assignment == "layernorm=native" and r.path == "single",
                      measured_speedup=1.10, span_median_us=1_100.0, kernel_us=1_110.0 * 1.036 / 1.10)
    line = line_of(results, shares, "layernorm=native", "single")
    assert "beyond the noise" in line
    results = replace(results, lambda r: r.block == MLP, launches=7.0, kernel_us=None)
    assert line_of(results, shares, "layernorm=native", "single").endswith(
        "measured: no stored quantity of this block differs beyond its noise.")


def test_without_span_noise_the_difference_is_not_judged():
    results, shares = context_records()
    results = replace(results, lambda r: r.block == MLP, span_rse=None)
    assert line_of(results, shares, "layernorm=native", "single").endswith(
        "(no span noise stored to judge the difference).")


def test_failures_skips_and_compiles_are_stated_without_a_prediction():
    results, shares = context_records()
    gnn = {line for title, _, line in sentences(results, shares) if title == f"{GNN} (tf32)"}
    assert ("single path: compile.max-autotune(mage) FAILED: contract: relative error 3.1e-02 above the tf32 ceiling "
            "2e-03.") in gnn
    assert "graph path: neighbor_agg=native was skipped: the CSR graph's host-side degree scan cannot be captured." in gnn
    assert any(line.startswith("graph path: the eager assignment was skipped") for line in gnn)
    compiled = line_of(results, shares, "compile.default(torch)", "single")
    assert compiled == ("single path: compiling the whole block (compile.default(torch)) saves 305 µs of 1,210 µs "
                        "(25.2 %); no Amdahl prediction is stored for a whole-block compile.")


def test_the_prediction_table_gives_measured_predicted_and_the_difference():
    results, _ = context_records()
    rows = {(r[0], r[2], r[3]): r for r in context.prediction_rows(results)}
    assert rows[MLP, "graph", BEST][8:] == ["1.21×", "1.15×", "+4.6 % (beyond noise)", "±0.6 %"]
    assert rows[MLP, "single", "layernorm=native"][8:] == ["1.04×", "1.04×", "-0.1 %", "±0.6 %"]
    assert rows[MLP, "single", "eager"][10:] == ["—", "—"]
    assert rows[GNN, "single", "compile.max-autotune(mage)"][5] == "FAIL"


def test_kernel_time_by_call_site_keeps_the_rest_as_other_kernels():
    results, shares = context_records()
    sites, bars = context.site_times(results, shares, MLP, "ieee")
    assert sites == ["layernorm#0", "bias_gelu#0"]
    assert bars[0] == ("eager", [48.0, 182.0], 920.0)
    assert bars[3] == (BEST, [8.0, 70.0], 920.0)
    # Called without torch.library, fused, or compiled whole: no call sites to attribute.
    assert bars[4] == (f"direct({BEST})", [None, None], 998.0)
    assert bars[5] == ("fused(triton)", [None, None], 930.0)
    assert bars[6] == ("compile.default(torch)", [None, None], 850.0)


# Through the store, a document and the commands


@pytest.fixture
def imported(tmp_path):
    """A context run exported from the GPU machine's store and imported into this one."""
    source = Store(tmp_path / "gpu.db")
    run = store_context_run(source)
    transfer.write(transfer.export_runs(source, [run]), tmp_path / "run.json.gz")
    source.close()
    assert mage(tmp_path, "import", "run.json.gz", "--db", "mage.db").returncode == 0
    return tmp_path


def test_report_of_an_imported_context_run_holds_the_section_and_its_figures(imported):
    made = mage(imported, "report", "1", "--db", "mage.db", "--out", "report")
    assert made.returncode == 0, made.stderr
    assert "report.html, context.png, context.svg, tables.md" in made.stdout
    page = (imported / "report" / "report.html").read_text()
    assert '<h2 id="blocks">Model blocks in context</h2>' in page and '<a href="#blocks">model blocks</a>' in page
    assert 'id="predicted-measured"' in page and 'id="sites-0"' in page and 'id="sites-1"' in page
    assert "y = x (Amdahl exact)" in page
    assert "swapping layernorm to native saves 41 µs of 1,210 µs (3.4 %); Amdahl predicted 3.5 %" in page
    tables = (imported / "report" / "tables.md").read_text()
    assert "## Model blocks in context" in tables
    assert f"| {MLP} | ieee | graph | {BEST} | best | pass | 962.0 | 6 | 1.21× | 1.15× | +4.6 % (beyond noise) |" \
        in tables
    assert "| eager | 48.00 | 182.0 | 920.0 | 1,150.0 |" in tables
    assert "- single path: swapping neighbor_agg to native saves 29,900 µs of 36,400 µs (82.1 %)" in tables
    svg = (imported / "report" / "context.svg").read_bytes()
    assert b"Amdahl predicted speedup" in svg and b"layernorm#0" in svg
    assert mage(imported, "report", "1", "--db", "mage.db", "--out", "again").returncode == 0
    assert (imported / "again" / "context.svg").read_bytes() == svg  # the same run draws the same bytes


def test_show_prints_the_table_and_the_sentences(imported):
    shown = mage(imported, "show", "1", "--db", "mage.db")
    assert shown.returncode == 0, shown.stderr
    assert "model blocks: Amdahl predicted against measured speedup" in shown.stdout
    assert "+4.6 % (beyond noise)" in shown.stdout
    assert "swapping layernorm to native saves 41 µs of 1,210 µs (3.4 %); Amdahl predicted 3.5 %" in shown.stdout
    assert "0 results" not in shown.stdout and "µs per call" not in shown.stdout  # no empty table of op results


@pytest.mark.parametrize("columns", ["80", "100"])
def test_show_at_a_narrow_width_folds_no_number_of_the_blocks(imported, columns):
    """At 80 columns the block, path and status columns once shrank to nothing and a span folded ("39,972." / "7"):
    now the measured columns are kept whole, the names folded at their separators, the rest named as left out."""
    shown = subprocess.run([*MAGE, "show", "1", "--db", "mage.db"], cwd=imported, capture_output=True, text=True,
                           env=os.environ | {"COLUMNS": columns})
    assert shown.returncode == 0, shown.stderr
    assert "962.0" in shown.stdout and "1,210.0" in shown.stdout  # whole, on one line
    table = shown.stdout[shown.stdout.index("model blocks: Amdahl"):shown.stdout.index("Model blocks (mage")]
    assert max(len(line) for line in table.splitlines()) <= int(columns), table
    header = " ".join(line for line in table.splitlines() if line.startswith("┃"))
    assert all(name in header for name in ("block", "path", "status", "span", "measured")), table
    assert "mlp/gpt2-" in table and "single" in table and "pass" in table, table


def test_a_run_without_context_results_shows_no_context_section(tmp_path):
    store = Store(tmp_path / "mage.db")
    store_op_run(store)
    store.close()
    shown = mage(tmp_path, "show", "1", "--db", "mage.db")
    assert shown.returncode == 0 and "model blocks" not in shown.stdout.lower()
    assert mage(tmp_path, "report", "1", "--db", "mage.db", "--out", "r").returncode == 0
    assert "Model blocks" not in (tmp_path / "r" / "report.html").read_text() + (tmp_path / "r" / "tables.md").read_text()
    assert not (tmp_path / "r" / "context.png").exists()


# Compare and history


def faster_best(store):
    """A context run whose best MLP assignment is 10 % faster on the single path than store_context_run's."""
    results, shares = context_records()
    eager = 1210.0
    results = replace(results, lambda r: (r.assignment, r.path) == (BEST, "single"), span_median_us=951.3,
                      span_mean_us=953.2, measured_speedup=eager / 951.3)
    run = store.begin_run(clock="gpu", suite="context", command="mage context", env={"gpu": "NVIDIA H200"},
                          method={}, ceilings={})
    store.add_context(run, results, shares)
    store.end_run(run, "complete")
    return run


def test_compare_gives_block_verdicts_and_the_speedup_change(tmp_path):
    store = Store(tmp_path / "mage.db")
    a, b = store_context_run(store), faster_best(store)
    comparison = compare.compare(store, a, b)
    verdicts = {(v.op, v.case, v.impl, v.path, v.boundary): v for v in comparison.blocks}
    best = verdicts[MLP, "ieee", BEST, "single", "span"]
    assert best.verdict == "faster" and best.change == pytest.approx(953.2 / (1057.0 * 1.002) - 1)
    speedup = verdicts[MLP, "ieee", BEST, "single", "speedup"]
    assert speedup.verdict == "higher" and speedup.change == pytest.approx(1057.0 / 951.3 - 1)
    assert verdicts[MLP, "ieee", "eager", "single", "speedup"].verdict == "same"
    assert verdicts[MLP, "ieee", BEST, "graph", "span"].verdict == "same"
    assert verdicts[GNN, "tf32", "compile.max-autotune(mage)", "single", "—"].verdict == "not comparable"
    assert comparison.verdicts == []  # a context run has no op results
    assert [v.op for v in compare.compare(store, a, b, ["neighbor_agg"]).blocks] == [GNN] * len(
        [v for v in comparison.blocks if v.op == GNN])
    shown = mage(tmp_path, "compare", str(a), str(b), "--db", "mage.db")
    assert shown.returncode == 0, shown.stderr
    assert "model blocks, B against A" in shown.stdout and "higher" in shown.stdout and "1.27×" in shown.stdout
    as_json = json.loads(mage(tmp_path, "compare", str(a), str(b), "--db", "mage.db", "--json").stdout)
    row = next(v for v in as_json["blocks"] if v["assignment"] == BEST and v["boundary"] == "speedup"
               and v["path"] == "single")
    assert (row["block"], row["precision"], row["verdict"]) == (MLP, "ieee", "higher") and "op" not in row


def test_compare_of_runs_without_blocks_is_as_before(tmp_path):
    store = Store(tmp_path / "mage.db")
    comparison = compare.compare(store, store_op_run(store), store_op_run(store))
    assert comparison.blocks == [] and comparison.verdicts
    assert not any("model blocks" in str(part) for part in compare.render(comparison))


def test_history_lists_blocks_beside_ops_and_keeps_a_regression_beside_an_improvement(tmp_path):
    store = Store(tmp_path / "mage.db")
    store_op_run(store)
    for mlp_scale, gnn_scale in ((1.0, 1.0), (1.0, 1.0), (1.0, 0.7), (1.3, 0.7)):
        results, shares = context_records(mlp_scale)
        results = [dataclasses.replace(r, span_mean_us=r.span_mean_us * gnn_scale) if r.block == GNN
                   and r.span_mean_us else r for r in results]
        run = store.begin_run(clock="gpu", suite="context", command="mage context",
                              env={"gpu": "NVIDIA H200", "git_commit": f"c{mlp_scale}{gnn_scale}"}, method={}, ceilings={})
        store.add_context(run, results, shares)
        store.end_run(run, "complete")
    series = history.load(store, boundaries=("span",))
    assert {s.op for s in series} == {"layernorm", MLP, GNN}
    steps = {(s.op, s.impl, s.path): [(st.run_id, st.direction) for st in s.steps] for s in series}
    assert steps[MLP, "eager", "single"] == [(5, "slower")]
    assert steps[GNN, "neighbor_agg=native", "single"] == [(4, "faster")]
    assert steps["layernorm", "eager/affine/ieee", "single"] == []
    listed = mage(tmp_path, "history", "--boundary", "span", "--db", "mage.db")
    assert listed.returncode == 0, listed.stderr
    assert "layernorm" in listed.stdout and MLP in listed.stdout and GNN in listed.stdout
    assert "slower +30.0%" in listed.stdout and "faster -30.0%" in listed.stdout


def test_the_custom_ops_cost_is_the_best_through_torch_library_against_the_same_kernels_called_directly():
    results, shares = context_records()
    [section] = [s for s in context.findings(results, shares) if s.title.startswith("What the custom ops cost")]
    assert section.sentences == [
        f"{MLP} (ieee), single path: through torch.library 1,057 µs, called directly 1,020 µs: the custom ops add "
        "37 µs (+3.6 %), beyond the noise (±0.6 %).",
        f"{MLP} (ieee), graph path: through torch.library 962 µs, called directly 961 µs: the custom ops add 1.0 µs "
        "(+0.1 %), within the noise (±0.6 %)."]
    assert line_of(results, shares, f"direct({BEST})", "graph").startswith(
        "graph path: swapping layernorm to native and bias_gelu to triton, each called directly rather than through "
        "torch.library, saves 199 µs of 1,160 µs")
    without = [r for r in results if r.kind != "direct"]
    assert not [s for s in context.findings(without, shares) if s.title.startswith("What the custom ops cost")]


def test_the_custom_ops_cost_is_judged_against_the_aa_control_where_it_differs_by_more_than_the_noise():
    results, shares = context_records()
    direct = {r.path: r for r in results if r.kind == "direct"}
    # The same direct call measured again: 0.3 % apart on the single path (inside the noise), 5 % on the graph.
    again = {"single": direct["single"].span_median_us * 1.003, "graph": direct["graph"].span_median_us * 1.05}
    results = [r for r in results if r.kind != "control"] + [
        dataclasses.replace(r, assignment=f"control({r.assignment[len('direct('):-1]})", kind="control",
                            span_median_us=again[r.path]) for r in direct.values()]
    [section] = [s for s in context.findings(results, shares) if s.title.startswith("What the custom ops cost")]
    assert section.sentences[0].endswith("beyond the noise (±0.6 %).")
    assert section.sentences[1].endswith("(+0.1 %), within what the same direct call differs by measured again (±5.0 %).")
    assert context.assigned(f"control({BEST})") == context.assigned(BEST) == {"layernorm": "native", "bias_gelu": "triton"}
    assert line_of(results, shares, f"control({BEST})", "single").startswith(
        "single path: swapping layernorm to native and bias_gelu to triton, called directly once more (the A/A control),")


def test_a_fused_implementation_is_set_beside_the_best_per_op_assignment_and_its_prediction():
    results, shares = context_records()
    [section] = [s for s in context.findings(results, shares) if s.title.startswith("What fusion bought")]
    assert section.sentences == [
        f"{MLP} (ieee), single path: fused(triton) 940 µs against the best per-op assignment ({BEST}) 1,057 µs, which "
        "Amdahl predicted at 1.15× over eager and measured 1.14×: fusion is 1.12× faster, beyond the noise (±0.6 %).",
        f"{MLP} (ieee), graph path: fused(triton) 880 µs against the best per-op assignment ({BEST}) 962 µs, which "
        "Amdahl predicted at 1.15× over eager and measured 1.21×: fusion is 1.09× faster, beyond the noise (±0.6 %)."]
    assert line_of(results, shares, "fused(triton)", "single") == (
        "single path: running fused(triton) saves 270 µs of 1,210 µs (22.3 %); a fused implementation has no per-op "
        "prediction (see what fusion bought).")
    rows = {(r[0], r[2], r[3]): r for r in context.prediction_rows(results)}
    assert rows[MLP, "single", "fused(triton)"][4] == "fused" and rows[MLP, "single", "fused(triton)"][9] == "—"
    # Without a per-op assignment faster than eager, the fused one is read against eager alone.
    alone = [r for r in results if r.kind != "best"]
    [section] = [s for s in context.findings(alone, shares) if s.title.startswith("What fusion bought")]
    assert section.sentences[0] == (f"{MLP} (ieee), single path: fused(triton) 940 µs, with no per-op assignment "
                                    "faster than eager to set it beside (1.29× over eager).")


def test_a_swap_without_a_prediction_says_why_from_the_eager_capture():
    results, shares = context_records()
    results = replace(results, lambda r: r.assignment == "layernorm=native", predicted_speedup=None)
    line = line_of(results, shares, "layernorm=native", "single")
    assert line.endswith("; no Amdahl prediction: an op's isolated time or the eager capture is missing.")
    eager = next(r for r in results if (r.block, r.assignment, r.path) == (MLP, "eager", "single"))
    shares = replace(shares, lambda s: (s.block, s.assignment, s.site) == (MLP, "eager", "layernorm#0"),
                     kernel_us=eager.kernel_us)
    line = line_of(results, shares, "layernorm=native", "single")
    assert "; no Amdahl prediction: the eager capture gave its call sites " in line
    assert f"more than the block's {eager.kernel_us:,.1f} µs of device work" in line


def test_each_fused_implementation_s_kernels_are_listed_with_their_time_largest_first():
    results, shares = context_records()
    [section] = [s for s in context.findings(results, shares) if s.title.startswith("Where each fused")]
    assert section.sentences == [
        f"{MLP} (ieee), fused(triton), 930.0 µs of kernels a call: _mlp_fused_kernel 700.0, "
        "at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, false> 182.5, "
        "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n 47.50."]
    # A run from before kernels were stored has no such section.
    older = replace(results, lambda r: r.kind == "fused", kernel_times=None)
    assert not [s for s in context.findings(older, shares) if s.title.startswith("Where each fused")]
