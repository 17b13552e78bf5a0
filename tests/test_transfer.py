"""Whole runs move between stores (mage export --run-json / mage import) without duplicates."""

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from mage import transfer
from mage.errors import MageError
from mage.registry import Implementation
from mage.spec import Case
from mage.store import SCHEMA_VERSION, Result, Store

MAGE = [sys.executable, "-c", "from mage.cli import main; main()"]


# A GPU run's ceilings: the rates it measured and the peaks, with the note that says which are missing.
CEILINGS = {"copy_gbps": 4200.0, "matmul_ieee_tflops": 50.7, "matmul_tf32_tflops": 392.5, "peak_fp32_tflops": 66.9,
            "peak_note": "no memory floor: NVML gave no maximum memory clock or bus width"}


def store_run(store, command="mage run", hypothesis=None, predictions=()):
    run = store.begin_run(clock="gpu", suite="seed", command=command,
                          env={"gpu": "NVIDIA H200", "uuid": "GPU-1234", "gpu_state_start": {"sm_clock_mhz": 1980}},
                          method={"rounds": 3}, ceilings=CEILINGS)
    case_id = store.case_id(run, Case("layernorm", "1024x1024", "seed", {"rows": 1024, "cols": 1024}, 7))
    for backend in ("eager", "triton"):
        impl_id = store.impl_id(run, Implementation("layernorm", backend, "affine", "ieee", fn=None))
        for path in ("single", "graph"):
            store.add_result(run, case_id, impl_id, Result(
                path, "warm", "pass", contract="pass", rel_error=1e-7, kernel_us=5.0 if path == "single" else None,
                span_mean_us=40.0, span_round_min_us=39.0, span_round_max_us=41.0, span_samples=6),
                [(r, 39.0 + r + i / 10) for r in range(3) for i in range(2)])
        store.add_result(run, case_id, impl_id, Result("batch", "warm", "skip", "no batch here"))
    store.set_experiment(run, hypothesis, list(predictions))
    store.end_run(run, "complete", {"gpu_state_end": {"sm_clock_mhz": 1975}})
    return run


def content(store, run_id):
    """Everything of a run but its local ids."""
    document = transfer.export_run(store, run_id)
    document["run"].pop("source_id")
    return document


def test_export_then_import_reproduces_the_run(tmp_path):
    source = Store(tmp_path / "gpu.db")
    run = store_run(source, hypothesis="triton fuses the passes", predictions=["layernorm/triton:kernel<6"])
    local = Store(tmp_path / "local.db")
    store_run(local, command="an earlier local run")
    [(source_id, local_id, new)] = transfer.import_runs(local, transfer.export_runs(source, [run]))
    assert (source_id, local_id, new) == (run, 2, True)
    assert content(local, local_id) == content(source, run)
    imported = local.run(local_id)
    assert imported["hypothesis"] == "triton fuses the passes"
    assert local.predictions(local_id) == ["layernorm/triton:kernel<6"]
    rows = local.rows(local_id)
    assert len(rows) == 6 and all(len(local.samples(r["result_id"])) == 6 for r in rows if r["status"] == "pass")


def test_a_case_keeps_its_statistics_through_export_and_import(tmp_path):
    # A graph's degree statistics are stored with its case by the run (OpSpec.case_stats); the committed
    # store is built by import, so a document that dropped them left every neighbor_agg case without them.
    source = Store(tmp_path / "gpu.db")
    run = store_run(source)
    stats = {"max_degree": 4096, "mean_degree": 16.0, "cv": 3.1, "gini": 0.62}
    graph = Case("neighbor_agg", "powerlaw-1M-16M-F128", "large", {"nodes": 1 << 20, "features": 128}, 3)
    source.case_id(run, graph, stats=stats)
    local = Store(tmp_path / "local.db")
    [(_, local_id, _)] = transfer.import_runs(local, transfer.export_runs(source, [run]))
    stored = dict(local.db.execute("SELECT name, stats_json FROM cases WHERE run_id = ?", (local_id,)).fetchall())
    assert json.loads(stored["powerlaw-1M-16M-F128"]) == stats
    assert stored["1024x1024"] is None  # a case without statistics stays without


def test_import_is_idempotent(tmp_path):
    source = Store(tmp_path / "gpu.db")
    runs = [store_run(source), store_run(source)]
    document = transfer.export_runs(source, runs)
    local = Store(tmp_path / "local.db")
    first = transfer.import_runs(local, document)
    assert [new for _, _, new in first] == [True, True]
    counts = [local.db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
              for t in ("runs", "cases", "implementations", "results", "result_samples", "predictions")]
    again = transfer.import_runs(local, document)
    assert [(local_id, new) for _, local_id, new in again] == [(local_id, False) for _, local_id, _ in first]
    assert counts == [local.db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                      for t in ("runs", "cases", "implementations", "results", "result_samples", "predictions")]
    # Back into the store it came from: nothing new either.
    assert [new for _, _, new in transfer.import_runs(source, document)] == [False, False]
    assert len(source.runs()) == 2


def test_two_runs_begun_in_the_same_second_by_one_process_differ(tmp_path):
    store = Store(tmp_path / "mage.db")
    a, b = store_run(store), store_run(store)
    assert store.run(a)["fingerprint"] != store.run(b)["fingerprint"]


def test_gzip_files_round_trip(tmp_path):
    source = Store(tmp_path / "gpu.db")
    run = store_run(source)
    transfer.write(transfer.export_runs(source, [run]), tmp_path / "run.json.gz")
    local = Store(tmp_path / "local.db")
    [(_, local_id, _)] = transfer.import_runs(local, transfer.read(tmp_path / "run.json.gz"))
    assert content(local, local_id) == content(source, run)


def test_a_broken_document_is_refused_and_leaves_nothing(tmp_path):
    (tmp_path / "rows.json").write_text("[]")
    with pytest.raises(MageError, match="not a Mage run document"):
        transfer.read(tmp_path / "rows.json")
    (tmp_path / "junk.json").write_text("{")
    with pytest.raises(MageError, match="not a Mage run document"):
        transfer.read(tmp_path / "junk.json")
    source = Store(tmp_path / "gpu.db")
    document = transfer.export_runs(source, [store_run(source)])
    document["runs"][0]["run"]["fingerprint"] = "new"
    document["runs"][0]["results"][-1]["impl"] = "cublas/affine/ieee"  # names no implementation of the run
    local = Store(tmp_path / "local.db")
    with pytest.raises(MageError, match=r"runs\[0\].results\[5\].impl names layernorm/cublas/affine/ieee, which is "
                                         "not among the run's implementations"):
        transfer.import_runs(local, document)
    assert local.runs() == [] and local.db.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 0


V1_RUNS = """CREATE TABLE runs (
    id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT, status TEXT NOT NULL, clock TEXT NOT NULL,
    suite TEXT NOT NULL, command TEXT NOT NULL, pid INTEGER, env_json TEXT NOT NULL, env_end_json TEXT,
    method_json TEXT NOT NULL, ceilings_json TEXT NOT NULL)"""


def test_a_version_1_store_is_upgraded_in_place(tmp_path):
    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    old.execute(V1_RUNS)
    for i in (1, 2):
        old.execute("INSERT INTO runs (started_at, finished_at, status, clock, suite, command, pid, env_json, "
                    "env_end_json, method_json, ceilings_json) VALUES ('2026-11-29T21:57:46+00:00', "
                    "'2026-11-29T21:58:47+00:00', 'complete', 'gpu', 'seed', 'mage run', 456, ?, '{}', '{}', '{}')",
                    (json.dumps({"uuid": "GPU-64ce"}),))
    old.execute("PRAGMA user_version=1")
    old.commit()
    old.close()
    store = Store(path)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 16
    fingerprints = [run["fingerprint"] for run in store.runs()]
    assert all(fingerprints) and len(set(fingerprints)) == 2  # unique even for identical rows
    assert store.predictions(1) == [] and store.run(1)["hypothesis"] is None
    store.close()
    assert [run["fingerprint"] for run in Store(path).runs()] == fingerprints  # stable, upgraded once
    # The same legacy run, upgraded in another copy of the store, is recognised on import.
    copy = tmp_path / "copy.db"
    copy.write_bytes(path.read_bytes())
    assert [new for _, _, new in transfer.import_runs(Store(copy), transfer.export_runs(Store(path), [1, 2]))] \
        == [False, False]


def test_the_export_and_import_commands(tmp_path):
    def mage(*args):
        return subprocess.run([*MAGE, *args], cwd=tmp_path, capture_output=True, text=True,
                              env=os.environ | {"COLUMNS": "200"})

    source = Store(tmp_path / "gpu.db")
    store_run(source)
    store_run(source)
    source.close()
    exported = mage("export", "--run-json", "--all", "--db", "gpu.db")
    assert exported.returncode == 0, exported.stderr
    assert [r["run"]["source_id"] for r in json.loads(exported.stdout)["runs"]] == [1, 2]
    assert mage("export", "2", "--run-json", "--db", "gpu.db", "-o", "run2.json.gz").returncode == 0
    (tmp_path / "all.json").write_text(exported.stdout)
    first = mage("import", "run2.json.gz", "--db", "local.db")
    assert first.returncode == 0 and "run 2 imported as run 1" in first.stdout
    second = mage("import", "all.json", "run2.json.gz", "--db", "local.db")
    assert "run 1 imported as run 2" in second.stdout
    assert second.stdout.count("already stored") == 2
    assert len(Store(tmp_path / "local.db").runs()) == 2
    missing = mage("import", "nope.json", "--db", "local.db")
    assert missing.returncode == 2 and "cannot read nope.json" in missing.stderr


LEGACY_NAMES = {"eager/affine/ieee": "eager/affine/ieee", "triton-split/affine/ieee": "triton.split/affine/ieee",
                "compile-default/affine/ieee": "compile/affine/ieee",
                "compile-max-autotune/affine/ieee": "compile.max-autotune/affine/ieee",
                "rust-cubecl/affine/ieee": "cubecl/affine/ieee"}
IDENTITIES = {"eager/affine/ieee": ("eager", "eager", "default", 1),
              "triton.split/affine/ieee": ("triton.split", "triton", "split", 0),
              "compile/affine/ieee": ("compile", "compile", "default", 0),
              "compile.max-autotune/affine/ieee": ("compile.max-autotune", "compile", "max-autotune", 0),
              "cubecl/affine/ieee": ("cubecl", "cubecl", "default", 0)}


def _legacy_store(path):
    """A schema-6 store of one run whose implementations carry the backend names of before schema 9."""
    store = Store(path)
    run = store_run(store)
    for legacy in LEGACY_NAMES:
        backend, variant, precision = legacy.split("/")
        store.impl_id(run, Implementation("layernorm", backend, variant, precision, fn=None))
    with store.db:
        for column in ("family", "strategy", "baseline"):
            store.db.execute(f"ALTER TABLE implementations DROP COLUMN {column}")
        store.db.execute("PRAGMA user_version=6")
    store.close()
    return run


def _identities(store, run):
    return {r["name"]: (r["backend"], r["family"], r["strategy"], r["baseline"]) for r in store.db.execute(
        "SELECT * FROM implementations WHERE run_id = ? AND name != 'triton/affine/ieee'", (run,))}


def test_a_schema_6_store_gains_family_strategy_and_baseline_under_the_new_names(tmp_path):
    run = _legacy_store(tmp_path / "old.db")
    store = Store(tmp_path / "old.db")
    assert _identities(store, run) == IDENTITIES
    assert {r["impl"]: r["baseline"] for r in store.rows(run)} == {"eager/affine/ieee": 1, "triton/affine/ieee": 0}
    store.close()
    assert _identities(Store(tmp_path / "old.db"), run) == IDENTITIES  # migrated once, stable


def test_a_document_from_before_families_imports_as_the_migration_reads_it(tmp_path):
    source = Store(tmp_path / "gpu.db")
    document = transfer.export_runs(source, [store_run(source)])
    entry = document["runs"][0]
    entry["implementations"] = [{key: impl[key] for key in ("op", "name", "backend", "variant", "precision")}
                                for impl in entry["implementations"]]
    entry["implementations"][1] |= {"name": "triton-split/affine/ieee", "backend": "triton-split"}  # as written then
    for result in entry["results"]:
        if result["impl"] == "triton/affine/ieee":
            result["impl"] = "triton-split/affine/ieee"
    local = Store(tmp_path / "local.db")
    [(_, run, new)] = transfer.import_runs(local, document)
    assert new
    rows = {r["impl"]: (r["backend"], r["family"], r["strategy"], r["baseline"]) for r in local.rows(run)}
    assert rows == {"eager/affine/ieee": ("eager", "eager", "default", 1),
                    "triton.split/affine/ieee": ("triton.split", "triton", "split", 0)}
    exported = transfer.export_run(local, run)["implementations"]
    assert [(i["name"], i["family"], i["strategy"], i["baseline"]) for i in exported] == [
        ("eager/affine/ieee", "eager", "default", True), ("triton.split/affine/ieee", "triton", "split", False)]


def test_show_and_report_read_a_run_whose_environment_and_method_say_little(tmp_path):
    """An imported run may lack readings (a GPU state without temperature, a method without its limits):
    what is there is shown, nothing crashes."""
    from test_cli import mage

    store = Store(tmp_path / "mage.db")
    run = store_run(store)
    store.close()
    shown = mage("show", str(run), "--db", "mage.db", cwd=tmp_path)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    reported = mage("report", str(run), "--db", "mage.db", "--out", "report", cwd=tmp_path)
    assert reported.returncode == 0, reported.stdout + reported.stderr
    assert "1,980 MHz at the start" in (tmp_path / "report" / "report.html").read_text()


def _document(tmp_path, change) -> dict:
    """A document of one stored run, changed by ``change(entry)`` and given a fingerprint of its own."""
    source = Store(tmp_path / "source.db")
    document = transfer.export_runs(source, [store_run(source)])
    source.close()
    document["runs"][0]["run"]["fingerprint"] = "changed"
    change(document["runs"][0])
    return document


@pytest.mark.parametrize("change, message", [
    (lambda entry: entry["results"].append(dict(entry["results"][0])), r"results\[6\] repeats layernorm/1024x1024"),
    (lambda entry: entry.__setitem__("predictions", ["nonsense"]), r"predictions\[0\]: prediction 'nonsense'"),
])
def test_a_document_that_would_garble_the_store_is_refused(tmp_path, change, message):
    local = Store(tmp_path / "local.db")
    with pytest.raises(MageError, match=message):
        transfer.import_runs(local, _document(tmp_path, change))
    assert local.runs() == []


def test_a_prediction_the_run_can_judge_is_imported(tmp_path):
    local = Store(tmp_path / "local.db")
    change = lambda entry: entry.__setitem__("predictions", ["layernorm/triton:kernel<6"])  # noqa: E731
    [(_, run, new)] = transfer.import_runs(local, _document(tmp_path, change))
    assert new and local.predictions(run) == ["layernorm/triton:kernel<6"]


def test_a_lone_surrogate_is_refused_in_one_line(tmp_path):
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps(_document(tmp_path, lambda entry: entry["run"].__setitem__("hypothesis", "\ud800"))))
    with pytest.raises(MageError, match=r"'\\ud800' is a lone surrogate"):
        transfer.read(path)


def test_a_gzip_that_expands_past_any_document_is_refused_before_it_fills_memory(tmp_path, monkeypatch):
    import gzip

    monkeypatch.setattr(transfer, "MAX_DOCUMENT_BYTES", 1 << 20)
    path = tmp_path / "bomb.json.gz"
    path.write_bytes(gzip.compress(b"{" + b" " * (2 << 20) + b"}"))
    with pytest.raises(MageError, match="more than 1 MiB of JSON once decompressed"):
        transfer.read(path)


def test_a_document_of_no_runs_says_so(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text(json.dumps({"format": transfer.FORMAT, "version": transfer.VERSION, "runs": []}))
    imported = subprocess.run([*MAGE, "import", "empty.json"], cwd=tmp_path, capture_output=True, text=True)
    assert imported.returncode == 0 and "holds no run; nothing imported" in imported.stdout
