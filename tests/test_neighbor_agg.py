"""neighbor_agg's graphs, degree statistics and schedules without a GPU: the generators' degree
distributions and determinism, the statistics by hand, the schedule suite, the statistics stored
with each case (and a store from before them migrated), shown beside the results, every
native schedule bit-identical from call to call under the CPU emulation (coop with merge's bits), and
the mean kernels' sm_90 SASS without a reciprocal subroutine."""

from __future__ import annotations

import functools
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import triton

from mage import cli, identity, registry
from mage.backends import native
from mage.backends.cuda_libs import preload_nvrtc
from mage.backends.triton import INTERPRETED
from mage.ops.neighbor_agg import counters, graphs
from mage.registry import Implementation
from mage.spec import Case, draw, generator
from mage.store import SCHEMA, SCHEMA_VERSION, Result, Store
from cubin_info import resources
from native_emu import EmuHost, compiler
from tiers import slow_for_studies

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import sass_loads_before_add  # noqa: E402

SPEC = registry.get_op("neighbor_agg")


def degrees(rowptr: torch.Tensor) -> np.ndarray:
    return np.diff(rowptr.numpy())


# ---------------------------------------------------------------- generators


GENERATORS = {
    "uniform": lambda seed: graphs.uniform(2048, 8, seed),
    "powerlaw": lambda seed: graphs.powerlaw(2048, 16384, seed),
    "rmat": lambda seed: graphs.rmat(11, 8, seed),
    "hub": lambda seed: graphs.hub(2048, 16384, seed),
}


@pytest.mark.parametrize("kind", GENERATORS)
def test_a_seed_gives_one_graph_and_another_seed_another(kind):
    rowptr, col = GENERATORS[kind](5)
    again, col_again = GENERATORS[kind](5)
    other, col_other = GENERATORS[kind](6)
    assert torch.equal(rowptr, again) and torch.equal(col, col_again)
    assert not (torch.equal(rowptr, other) and torch.equal(col, col_other))
    assert rowptr[0] == 0 and rowptr[-1] == col.numel() and (rowptr.diff() >= 0).all()
    d = degrees(rowptr)
    assert d[0] == 0 and d[-1] == 0  # the forced empty rows at both ends
    for row in np.flatnonzero(d > 1)[:50]:
        assert (col[rowptr[row]: rowptr[row + 1]].diff() >= 0).all()  # columns sorted within a row


def test_the_hub_holds_its_share_of_the_edges_and_the_rest_spread_evenly():
    rowptr, col = graphs.hub(4096, 40000, seed=3, share=0.1)
    d = degrees(rowptr)
    assert col.numel() == 40000
    assert d.max() == 4000 and (d == 4000).sum() == 1
    rest = np.delete(d, d.argmax())
    rest = rest[rest > 0]
    assert rest.max() < 40  # Poisson around 36000 / 4090 ≈ 8.8
    assert abs(rest.mean() - 36000 / 4090) < 0.3


def test_a_hub_share_outside_zero_to_one_is_refused():
    with pytest.raises(Exception, match=r"hub's share of the edges must lie in \(0, 1\), got 1.5"):
        graphs.hub(64, 100, seed=1, share=1.5)


def test_a_smaller_power_law_exponent_gives_a_more_skewed_graph():
    steep = graphs.degree_stats(graphs.powerlaw(1 << 14, 1 << 18, seed=4, exponent=2.6)[0])
    flat = graphs.degree_stats(graphs.powerlaw(1 << 14, 1 << 18, seed=4, exponent=1.8)[0])
    assert steep["edges"] == flat["edges"] == 1 << 18
    assert flat["gini"] > steep["gini"] + 0.1 and flat["cv"] > steep["cv"]
    assert flat["max_degree"] <= 512 and steep["max_degree"] <= 512  # the structural cutoff √edges


def test_rmat_is_skewed_and_uniform_is_not():
    rmat = graphs.degree_stats(graphs.rmat(12, 16, seed=2)[0])
    uniform = graphs.degree_stats(graphs.uniform(4096, 16, seed=2)[0])
    assert rmat["gini"] > 0.4 and rmat["max_degree"] > 10 * rmat["mean_degree"]
    # Uniform rows all have degree 16 but for the forced empty ones.
    assert uniform["max_degree"] == 16 and uniform["gini"] < 0.01


# ---------------------------------------------------------------- degree statistics


def test_degree_stats_by_hand():
    stats = graphs.degree_stats(torch.tensor([0, 0, 2, 4, 8]))  # degrees 0, 2, 2, 4
    assert stats == {"rows": 4, "edges": 8, "empty_rows": 1, "max_degree": 4, "mean_degree": 2.0,
                     "cv": pytest.approx(2 ** 0.5 / 2), "gini": pytest.approx(0.375)}
    one_row_holds_all = graphs.degree_stats(torch.tensor([0, 0, 0, 0, 12]))
    assert one_row_holds_all["gini"] == pytest.approx(0.75)  # (n - 1) / n, the most a graph of 4 rows reaches
    assert graphs.degree_stats(torch.tensor([0, 0, 0]))["gini"] == 0.0  # no edges


def test_the_schedule_suite_spans_five_graphs_at_three_widths_with_their_stats():
    cases = [c for c in SPEC.cases() if c.suite == "schedule" and c.params["index"] == "int32"]
    assert len(cases) == 15
    assert {c.params["features"] for c in cases} == {32, 128, 512}
    assert {(c.params["graph"], c.params.get("exponent")) for c in cases} == {
        ("uniform", None), ("powerlaw", 2.1), ("powerlaw", 1.8), ("rmat", None), ("hub", None)}
    hub = next(c for c in cases if c.params["graph"] == "hub")
    stats = SPEC.case_stats(hub)
    assert stats["max_degree"] == round(0.1 * stats["edges"]) and stats["edges"] == 1 << 20
    assert SPEC.case_stats(hub) is stats  # computed once per graph
    # The three widths of a graph share its graph, hence its statistics.
    widths = [c for c in cases if c.params["graph"] == "hub"]
    assert all(SPEC.case_stats(c) == stats for c in widths)


def test_the_target_graphs_run_with_both_index_dtypes_on_one_graph_and_x():
    """The schedule study's targets name int32 and int64: uniform, R-MAT and the hub at F 32, 128 and 512 in the schedule
    suite, and the large power-law case, each with the other dtype's twin (same parameters, same seed: same graph and x)."""
    by_name = {c.name: c for c in SPEC.cases()}
    twins = {f"{graph}-64k-F{features}-i64": f"{graph}-64k-F{features}"
             for graph in ("uniform", "rmat", "hub") for features in (32, 128, 512)}
    twins["powerlaw-1M-16M-F128-i32"] = "powerlaw-1M-16M-F128"
    for name, twin in twins.items():
        case, other = by_name[name], by_name[twin]
        assert case.suite == other.suite and case.seed == other.seed
        assert {case.params["index"], other.params["index"]} == {"int32", "int64"}
        assert {k: v for k, v in case.params.items() if k != "index"} == {k: v for k, v in other.params.items() if k != "index"}
    rowptr, col, x = SPEC.make_inputs(by_name["hub-64k-F128-i64"], 3, "cpu")
    rowptr32, col32, x32 = SPEC.make_inputs(by_name["hub-64k-F128"], 3, "cpu")
    assert rowptr.dtype == col.dtype == torch.int64 and rowptr32.dtype == col32.dtype == torch.int32
    assert torch.equal(rowptr, rowptr32.long()) and torch.equal(col, col32.long()) and torch.equal(x, x32)


# ---------------------------------------------------------------- the store


CASE = Case("neighbor_agg", "hub-test", "schedule", {"graph": "hub", "nodes": 256, "edges": 4096, "share": 0.1,
                                                       "features": 12, "index": "int64"}, seed=9)


def _store_one_result(store: Store) -> int:
    run = store.begin_run(clock="gpu", suite="schedule", command="mage run", env={}, method={}, ceilings={})
    case_id = store.case_id(run, CASE, stats=SPEC.case_stats(CASE))
    impl_id = store.impl_id(run, Implementation("neighbor_agg", "native", "sum", "ieee", fn=None))
    store.add_result(run, case_id, impl_id, Result("single", "cold", "pass", contract="pass", kernel_us=12.0), [])
    store.end_run(run, "complete", {})
    return run


def test_the_stats_are_stored_with_the_case_and_shown_beside_its_results(tmp_path, monkeypatch, capsys):
    store = Store(tmp_path / "mage.db")
    run = _store_one_result(store)
    [row] = store.rows(run)
    assert row["case_stats"] and '"max_degree": 410' in row["case_stats"]
    store.close()
    monkeypatch.setattr(sys, "argv", ["mage", "show", str(run), "--db", str(tmp_path / "mage.db")])
    monkeypatch.setattr(cli.console, "width", 400)  # the console took its width when mage.cli was imported
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code in (0, None)
    shown = capsys.readouterr().out
    assert "degree max 410" in shown and "mean 16.0 · CV" in shown and "Gini" in shown
    monkeypatch.setattr(sys, "argv", ["mage", "report", str(run), "--db", str(tmp_path / "mage.db"),
                                      "--out", str(tmp_path / "report")])
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code in (0, None)
    assert "degree max 410\nmean 16.0" in (tmp_path / "report" / "report.html").read_text()


def test_a_case_stored_without_stats_gains_them_once(tmp_path):
    store = Store(tmp_path / "mage.db")
    run = store.begin_run(clock="gpu", suite="schedule", command="mage run", env={}, method={}, ceilings={})
    first = store.case_id(run, CASE)
    assert store.case_id(run, CASE, stats={"max_degree": 1}) == first
    assert store.case_id(run, CASE, stats={"max_degree": 2}) == first  # the first stats stay
    assert store.db.execute("SELECT stats_json FROM cases").fetchone()[0] == '{"max_degree": 1}'


def test_a_schema_10_store_gains_the_case_stats_column(tmp_path):
    path = tmp_path / "v10.db"
    old = sqlite3.connect(path)
    old.executescript("\n".join(line for line in SCHEMA.splitlines() if "stats_json" not in line))
    old.execute("PRAGMA user_version=10")
    old.commit()
    old.close()
    read = Store(path, read_only=True)  # read as it is: the column reads as NULL, nothing is written
    assert read.db.execute("SELECT stats_json FROM cases").fetchall() == []
    read.close()
    assert "stats_json" not in {row[1] for row in sqlite3.connect(path).execute("PRAGMA table_info(cases)")}
    store = Store(path)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 16
    assert "stats_json" in {row[1] for row in store.db.execute("PRAGMA table_info(cases)")}
    run = _store_one_result(store)
    assert store.rows(run)[0]["case_stats"]


# ---------------------------------------------------------------- schedules


def test_every_schedule_is_registered_as_a_strategy_of_both_host_paths():
    names = {i.name for i in registry.implementations("neighbor_agg")}
    schedules = {strategy for op, strategy in native.LAUNCHERS if op == "neighbor_agg"}
    assert "default" in schedules and len(schedules) > 1
    for strategy in schedules:
        for family in ("native", "native-py"):
            backend = identity.backend_of(family, strategy)
            assert {f"{backend}/sum/ieee", f"{backend}/mean/ieee"} <= names


@pytest.mark.skipif(compiler() is None, reason="the CPU emulation needs g++ or clang++")
@pytest.mark.parametrize("strategy", [pytest.param(s, marks=slow_for_studies("neighbor_agg", "native", s))
                                      for s in sorted(s for op, s in native.LAUNCHERS if op == "neighbor_agg")])
def test_every_native_schedule_gives_the_same_bits_twice(strategy):
    """A hub above the default's HUB_ROW (its pieces), the split schedule's cut rows, empty rows."""
    # Half the edges in the hub: above HUB_ROW with a fifth of the edges the emulation would otherwise run.
    case = Case("neighbor_agg", "hub", "seed", {"graph": "hub", "nodes": 1024, "edges": 18000, "share": 0.5,
                                                 "features": 12, "index": "int32"}, seed=4)
    rowptr, col, x = SPEC.make_inputs(case, 4, "cpu", "heavy")
    assert int(rowptr.diff().max()) > native_module().HUB_ROW
    for variant in ("sum", "mean"):
        fn = functools.partial(native.LAUNCHERS[("neighbor_agg", strategy)], EmuHost(), variant=variant)
        out = fn(rowptr, col, x)
        assert torch.equal(out, fn(rowptr, col, x))
        ref = SPEC.reference((rowptr, col, x.double()), variant)
        assert ((out.double() - ref).norm() / ref.norm()).item() < 1e-5  # the IEEE contract's ceiling


@pytest.mark.skipif(compiler() is None, reason="the CPU emulation needs g++ or clang++")
def test_the_inflight_kernels_add_in_the_defaults_order_to_the_same_bits():
    """They differ from the default's kernels only in when the loads are issued, never in what is added
    in which order: float4 and scalar rows, both index types, the hub's pieces."""
    for params in ({"graph": "hub", "nodes": 1024, "edges": 90000, "share": 0.1, "features": 12, "index": "int64"},
                   {"graph": "rmat", "nodes": 512, "scale": 9, "edge_factor": 8, "features": 7, "index": "int32"}):
        rowptr, col, x = SPEC.make_inputs(Case("neighbor_agg", "g", "seed", params, seed=6), 6, "cpu", "heavy")
        for variant in ("sum", "mean"):
            default, inflight = (functools.partial(native.LAUNCHERS[("neighbor_agg", strategy)], EmuHost(), variant=variant)
                                 for strategy in ("default", "inflight"))
            assert torch.equal(default(rowptr, col, x), inflight(rowptr, col, x))


@pytest.mark.skipif(compiler() is None, reason="the CPU emulation needs g++ or clang++")
@pytest.mark.parametrize("index", [torch.int32, torch.int64])
def test_merge_takes_every_row_in_one_launch_of_pieces_and_leaves_its_counters_zeroed(index):
    """Rows of 40 and 300 edges inside one piece (the whole block's), a hub cut into ~80 pieces of 512 items
    (more than the 64 groups of F 12, so some group adds two of its partials), empty rows at both ends."""
    module = native_module()
    degrees = torch.tensor([0, 3, 300, 0, 40, 1, 40_000, 2, 0] + [5] * 50 + [0])
    rowptr = torch.cat([torch.zeros(1, dtype=torch.int64), degrees.cumsum(0)]).to(index)
    gen = torch.Generator().manual_seed(11)
    col = torch.randint(0, 700, (int(rowptr[-1]),), generator=gen).to(index)
    x = draw((700, 12), generator(11), "heavy")
    host = EmuHost()
    for variant in ("sum", "mean"):
        fn = functools.partial(native.LAUNCHERS[("neighbor_agg", "merge512")], host, variant=variant)
        out = fn(rowptr, col, x)
        assert torch.equal(out, fn(rowptr, col, x))
        ref = SPEC.reference((rowptr, col, x.double()), variant)
        assert ((out.double() - ref).norm() / ref.norm()).item() < 1e-5
        assert torch.equal(out[degrees == 0], torch.zeros(int((degrees == 0).sum()), 12))
    pieces = -(-(len(degrees) + int(rowptr[-1])) // (module.MERGE_PIECE // 2))
    assert [grid[0] for _, grid, _ in host.launches] == [pieces] * 4  # pieces only, no row tiles, no second pass
    assert counters.all_zero()


@pytest.mark.skipif(compiler() is None, reason="the CPU emulation needs g++ or clang++")
@pytest.mark.parametrize("strategy", ["default", "merge", "coop", "tuned"])
def test_the_mean_is_the_sum_times_one_reciprocal_of_the_degree(strategy):
    """One IEEE reciprocal a row, then a multiply per feature (not a division per feature): bit for bit."""
    rowptr, col, x = SPEC.make_inputs(Case("neighbor_agg", "p", "seed", SPEC.test_params[1], seed=8), 8, "cpu", "heavy")
    sum_, mean = (native.LAUNCHERS[("neighbor_agg", strategy)](EmuHost(), rowptr, col, x, variant=variant)
                  for variant in ("sum", "mean"))
    scale = torch.where(rowptr.diff() > 0, 1.0 / rowptr.diff().clamp(min=1).float(), 1.0).unsqueeze(1)
    assert torch.equal(mean, sum_ * scale)


COOP_GRAPHS = (  # F 36: groups of 16 lanes; F 7 (scalar): 8; a hub of 2,000 edges cut into pieces of 1,024 items
    {"graph": "hub", "nodes": 1024, "edges": 20000, "share": 0.1, "features": 36, "index": "int64"},
    {"graph": "rmat", "nodes": 512, "scale": 9, "edge_factor": 8, "features": 7, "index": "int32"},
    {"graph": "hub", "nodes": 1024, "edges": 20000, "share": 0.1, "features": 12, "index": "int32"},  # groups of 4
)


@pytest.mark.skipif(compiler() is None, reason="the CPU emulation needs g++ or clang++")
@pytest.mark.parametrize("params", COOP_GRAPHS, ids=lambda p: f"{p['graph']}-F{p['features']}-{p['index']}")
def test_coop_adds_what_merge_adds_in_merges_order_from_the_staged_piece(params):
    """The coop kernels change where a piece's rows and edges are read from (the block's copy in shared memory),
    never which rows are added in which order: merge's bits, for sum and mean, on a hub (cut rows, long rows by
    the block) and R-MAT, int64 and int32, groups of 16, 8 and 4 lanes, coop-3blocks's launch bounds too; one
    launch of merge's pieces, counters left zero."""
    rowptr, col, x = SPEC.make_inputs(Case("neighbor_agg", "g", "seed", params, seed=6), 6, "cpu", "heavy")
    host = EmuHost()
    for variant in ("sum", "mean"):
        merge, coop, coop3 = (native.LAUNCHERS[("neighbor_agg", strategy)](host, rowptr, col, x, variant=variant)
                              for strategy in ("merge", "coop", "coop-3blocks"))
        assert torch.equal(coop, merge) and torch.equal(coop3, merge)
    names = [name for name, _, _ in host.launches]
    suffix = f"{params['index'].replace('int', 'i')}{'_x4' if params['features'] % 4 == 0 else ''}"
    assert names[1::3] == [f"neighbor_agg_coop_{v}_{suffix}" for v in ("sum", "mean")]
    assert names[2::3] == [f"neighbor_agg_coop3_{v}_{suffix}" for v in ("sum", "mean")]
    assert len({grid for _, grid, _ in host.launches}) == 1  # the same pieces as merge
    assert counters.all_zero()


@pytest.mark.skipif(compiler() is None, reason="the CPU emulation needs g++ or clang++")
@pytest.mark.parametrize("index", [torch.int32, torch.int64])
def test_coop_stages_pieces_without_edges_and_rows_cut_at_either_end(index):
    """Pieces of nothing but empty rows (more of them than a piece has items), a hub cut over many pieces that
    starts and ends inside one, rows of 40 and 300 edges (the whole block's) beside rows of one, a row ending on
    a piece's boundary: merge's bits and the contract, for coop and coop64, empty rows zero."""
    degrees = torch.tensor([0] * 2500 + [3, 300, 0, 40, 1, 5_000, 2] + [0] * 1200 + [1] * 700 + [40])
    rowptr = torch.cat([torch.zeros(1, dtype=torch.int64), degrees.cumsum(0)]).to(index)
    gen = torch.Generator().manual_seed(12)
    col = torch.randint(0, 900, (int(rowptr[-1]),), generator=gen).to(index)
    x = draw((900, 36), generator(12), "heavy")
    pieces = native_module().MERGE_PIECE
    assert ((torch.arange(len(degrees)) + rowptr[1:]) % pieces == pieces - 1).any()  # a row's end item closes a piece
    for variant in ("sum", "mean"):
        merge = native.LAUNCHERS[("neighbor_agg", "merge")](EmuHost(), rowptr, col, x, variant=variant)
        ref = SPEC.reference((rowptr, col, x.double()), variant)
        for strategy in ("coop", "coop64"):
            out = native.LAUNCHERS[("neighbor_agg", strategy)](EmuHost(), rowptr, col, x, variant=variant)
            assert ((out.double() - ref).norm() / ref.norm()).item() < 1e-5
            assert torch.equal(out[degrees == 0], torch.zeros(int((degrees == 0).sum()), 36))
        assert torch.equal(native.LAUNCHERS[("neighbor_agg", "coop")](EmuHost(), rowptr, col, x, variant=variant), merge)
    assert counters.all_zero()


def test_coop_pieces_fit_the_kernels_staging_and_coop_schedules_take_every_row_in_pieces():
    """native.py's COOP_ITEMS is native.cu's (the shared-memory copy of a piece), every coop schedule's pieces fit
    it, and a coop schedule with row tiles or rows left to them is refused where it is written."""
    module = native_module()
    source = (Path(module.__file__).parent / "native.cu").read_text()
    assert f"#define COOP_ITEMS {module.COOP_ITEMS}\n" in source
    coop = [s for s in module.SCHEDULES.values() if s.kernel_set in module.COOP_SETS]
    assert coop and all(s.piece <= module.COOP_ITEMS for s in coop)
    for wrong in ({"tiles": True}, {"tiles": False, "split_row": 8}):
        with pytest.raises(ValueError, match="coop kernels take every row in pieces"):
            module.Schedule(kernel_set="coop_", **wrong)


@pytest.mark.skipif(compiler() is None, reason="the CPU emulation needs g++ or clang++")
def test_coop_in_feature_slices_takes_each_slice_of_x_in_its_own_copy_of_the_pieces():
    """coop-f32 at F 72: slices of 32, 32 and 8 features, each a copy of the pieces (slice-major) with its own
    arrival counters for the cut hub; correct, the same bits twice, counters zero. coop-f128 at F 72 is coop."""
    module = native_module()
    params = {"graph": "hub", "nodes": 512, "edges": 6000, "share": 0.2, "features": 72, "index": "int64"}
    rowptr, col, x = SPEC.make_inputs(Case("neighbor_agg", "g", "seed", params, seed=8), 8, "cpu", "heavy")
    pieces = -(-(512 + 6000) // module.MERGE_PIECE)
    for variant in ("sum", "mean"):
        host = EmuHost()
        fn = functools.partial(native.LAUNCHERS[("neighbor_agg", "coop-f32")], host, variant=variant)
        out = fn(rowptr, col, x)
        assert torch.equal(out, fn(rowptr, col, x))
        ref = SPEC.reference((rowptr, col, x.double()), variant)
        assert ((out.double() - ref).norm() / ref.norm()).item() < 1e-5
        assert [grid[0] for _, grid, _ in host.launches] == [3 * pieces] * 2
        assert counters.all_zero()
        whole = native.LAUNCHERS[("neighbor_agg", "coop-f128")](EmuHost(), rowptr, col, x, variant=variant)
        assert torch.equal(whole, native.LAUNCHERS[("neighbor_agg", "coop")](EmuHost(), rowptr, col, x, variant=variant))


@pytest.mark.skipif(compiler() is None, reason="the CPU emulation needs g++ or clang++")
@pytest.mark.parametrize("beyond", ["x", "col", "piece"])
def test_coop_takes_merges_kernels_beyond_int_offsets_or_its_staging(monkeypatch, beyond):
    """The coop kernels take x's element offsets and edge numbers as int and stage pieces of at most COOP_ITEMS
    items; with x's elements or the edges above COOP_MAX_INDEX, or pieces above COOP_ITEMS, the launcher takes
    merge's kernels, merge's bits."""
    module = native_module()
    rowptr, col, x = SPEC.make_inputs(Case("neighbor_agg", "g", "seed", SPEC.test_params[0], seed=2), 2, "cpu")
    if beyond == "piece":
        monkeypatch.setattr(module, "COOP_ITEMS", module.MERGE_PIECE - 1)
    else:
        monkeypatch.setattr(module, "COOP_MAX_INDEX", {"x": x, "col": col}[beyond].numel() - 1)
    host = EmuHost()
    out = native.LAUNCHERS[("neighbor_agg", "coop")](host, rowptr, col, x, variant="sum")
    assert host.launches[0][0] == "neighbor_agg_inflight_sum_i32_x4"
    assert torch.equal(out, native.LAUNCHERS[("neighbor_agg", "merge")](EmuHost(), rowptr, col, x, variant="sum"))


def test_the_mean_kernels_call_no_reciprocal_subroutine(tmp_path):
    """rcp.rn.f32 (1.0f / d) branches to a called slow-path subroutine, which the mean kernels carried in every
    row's path; reciprocal_of_count is its fast path alone. Every mean kernel calls what its sum kernel does
    (the 64-bit divisions of the piece arithmetic), no more, in the sm_90 SASS."""
    cuobjdump = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    if preload_nvrtc() is None or not cuobjdump.exists():
        pytest.skip("needs libnvrtc and Triton's cuobjdump")
    cubin = tmp_path / "neighbor_agg.cubin"
    cubin.write_bytes(native.cubin("neighbor_agg", 90))

    def calls(kernel: str) -> int:
        sass = subprocess.run([str(cuobjdump), "-sass", "-fun", kernel, str(cubin)], capture_output=True, text=True,
                              check=True).stdout
        assert "Function : " + kernel in sass
        return sass.count("CALL.REL")

    for mean in (k.name for k in native_module().KERNELS.values() if "_mean_" in k.name):
        assert calls(mean) == calls(mean.replace("_mean_", "_sum_")), mean


def test_the_coop_kernels_gather_a_round_in_few_instructions_without_local_memory(tmp_path):
    """The coop kernels' point, in their sm_90 SASS: every innermost loop that gathers a round of 8 float4 rows is
    at most 80 instructions (an LDS, an IMAD.WIDE and an LDG an edge, 32 FADDs; merge's take over 200), coop3's
    issue all 8 row loads before their first add, and no coop kernel spills to local memory. Every float4 kernel stores its rows as STG.E.128 (a plain float4 store
    was split into four scalar ones on some paths): one scalar store is left, the arrival counter's reset."""
    if preload_nvrtc() is None or not sass_loads_before_add.CUOBJDUMP.exists():
        pytest.skip("needs libnvrtc and Triton's cuobjdump")
    cubin = tmp_path / "neighbor_agg.cubin"
    cubin.write_bytes(native.cubin("neighbor_agg", 90))
    used = resources(cubin.read_bytes())
    coop = sorted(k.name for k in native_module().KERNELS.values() if "_coop" in k.name)
    for kernel in coop:
        assert used[kernel]["frame"] == 0, (kernel, used[kernel])
        if kernel.endswith("_x4"):
            loops = sass_loads_before_add.innermost_vector_loops(cubin, kernel)
            assert loops and all(length <= 80 for _, length, loads, _ in loops if loads == 8), (kernel, loops)
            if "_coop3_" in kernel:  # its registers' point: a round's 8 row loads all issued before its first add
                assert all(before == 8 for _, _, loads, before in loops if loads == 8), (kernel, loops)
    merge = sass_loads_before_add.innermost_vector_loops(cubin, "neighbor_agg_inflight_sum_i32_x4")
    assert min(length for _, length, _, _ in merge) > 200  # the bound above is not one every gather meets
    for kernel in (k.name for k in native_module().KERNELS.values() if k.name.endswith("_x4")):
        sass = subprocess.run([str(sass_loads_before_add.CUOBJDUMP), "-sass", "-fun", kernel, str(cubin)],
                              capture_output=True, text=True, check=True).stdout
        assert sass.count("STG.E ") <= 1 and "STG.E.128" in sass, kernel


def native_module():
    from mage.ops.neighbor_agg import native as module

    return module


@pytest.mark.skipif(compiler() is None, reason="the CPU emulation needs g++ or clang++")
def test_the_default_launches_pieces_only_for_a_graph_with_a_hub_and_leaves_its_counters_zeroed():
    module = native_module()
    host = EmuHost()
    fn = functools.partial(module.neighbor_agg, host, variant="sum")
    small = SPEC.make_inputs(Case("neighbor_agg", "p", "seed", SPEC.test_params[1], seed=1), 1, "cpu")
    fn(*small)
    [(_, grid, _)] = host.launches
    assert grid[0] == -(-1024 // (256 // 4))  # row tiles only: F 16 is 4 float4 lanes a row
    hub = SPEC.make_inputs(Case("neighbor_agg", "h", "seed", {"graph": "hub", "nodes": 1024, "edges": 90000,
                                                               "share": 0.1, "features": 12, "index": "int64"}, seed=2), 2, "cpu")
    fn(*hub)
    pieces = -(-(1024 + 90000) // module.HUB_PIECE)
    assert host.launches[-1][1][0] == -(-1024 // (256 // 4)) + pieces
    assert counters.all_zero()


@pytest.mark.skipif(not INTERPRETED, reason="Triton runs on the CPU only under TRITON_INTERPRET=1")
def test_the_triton_kernel_cuts_a_hub_into_pieces_and_gives_the_same_bits_twice():
    from mage.ops.neighbor_agg import triton as module

    # F 70: two feature blocks, so two counters per hub.
    case = Case("neighbor_agg", "hub", "seed", {"graph": "hub", "nodes": 512, "edges": 45000, "share": 0.2,
                                                 "features": 70, "index": "int32"}, seed=3)
    rowptr, col, x = SPEC.make_inputs(case, 3, "cpu", "heavy")
    assert int(rowptr.diff().max()) > module.HUB_ROW.value
    for variant in ("sum", "mean"):
        fn = next(i for i in registry.implementations("neighbor_agg") if i.family == "triton" and i.variant == variant).fn
        out = fn(rowptr, col, x)
        if variant == "sum":
            assert torch.equal(out, fn(rowptr, col, x))
        ref = SPEC.reference((rowptr, col, x.double()), variant)
        assert ((out.double() - ref).norm() / ref.norm()).item() < 1e-5
    assert counters.all_zero()  # left zero for the next launch
