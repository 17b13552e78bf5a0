"""Context runs in the store (schema 11): block results and op shares written in one transaction, read back
typed, created by the migration of an older store and read from one opened read-only."""

import dataclasses
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from context_records import GNN, MLP, context_records, store_context_run
from test_store_trust import older_copy
from mage import transfer
from mage.errors import MageError, RunClaimedError
from mage.store import (BLOCK_KINDS, BLOCK_RESULT_FIELDS, BLOCK_SHARE_FIELDS, SCHEMA_VERSION, BlockOpShare, BlockResult, Owner,
                        Store)

COMMITTED = Path(__file__).resolve().parents[1] / "results" / "h200" / "mage.db"


def test_a_context_run_reads_back_every_record_as_stored(tmp_path):
    store = Store(tmp_path / "mage.db")
    run = store_context_run(store)
    results, shares = context_records()
    assert store.context_results(run) == results
    assert store.context_shares(run) == shares
    assert {r.block for r in results} == {MLP, GNN}
    assert {r.kind for r in results} == set(BLOCK_KINDS)
    assert {r.status for r in results} == {"pass", "fail", "skip"}
    assert store.run(run)["suite"] == "context"
    assert (store.run(run)["result_count"], store.run(run)["block_count"]) == (0, len(results))


def test_the_tables_hold_every_field_of_the_records(tmp_path):
    store = Store(tmp_path / "mage.db")
    for table, fields in (("block_results", BLOCK_RESULT_FIELDS), ("block_shares", BLOCK_SHARE_FIELDS)):
        columns = [row[1] for row in store.db.execute(f"PRAGMA table_info({table})")]
        assert columns == ["id", "run_id", *fields]
    assert BLOCK_RESULT_FIELDS == tuple(f.name for f in dataclasses.fields(BlockResult))
    assert BLOCK_SHARE_FIELDS == tuple(f.name for f in dataclasses.fields(BlockOpShare))


def test_a_repeated_key_stores_nothing_of_the_call(tmp_path):
    store = Store(tmp_path / "mage.db")
    run = store.begin_run(clock="gpu", suite="context", command="mage context", env={}, method={}, ceilings={})
    results, shares = context_records()
    store.add_context(run, results, shares)
    new = dataclasses.replace(results[0], block="mlp/7b")
    with pytest.raises(sqlite3.IntegrityError):
        store.add_context(run, [new, results[0]], [])  # (block, precision, assignment, path) stored already
    with pytest.raises(sqlite3.IntegrityError):
        store.add_context(run, [], [dataclasses.replace(shares[0], block="mlp/7b"), shares[0]])
    assert len(store.context_results(run)) == len(results)
    assert "mlp/7b" not in {r.block for r in store.context_results(run)} | {s.block for s in store.context_shares(run)}


def test_a_process_that_does_not_own_the_run_stores_no_context(tmp_path):
    store = Store(tmp_path / "mage.db")
    run = store.begin_run(clock="gpu", suite="context", command="mage context", env={}, method={}, ceilings={})
    other = Store(tmp_path / "mage.db")
    other.owner = Owner(store.owner.pid + 1, "elsewhere")
    with pytest.raises(RunClaimedError):
        other.add_context(run, *context_records())
    assert store.context_results(run) == []


def schema_10_copy(db: Path) -> None:
    """The committed H200 store as schema 10 held it (before context tables, case statistics, GPU of a result)."""
    older_copy(db, 10, {"results": ("gpu_index", "gpu_uuid"), "cases": ("stats_json",)})


def test_the_committed_schema_10_store_gains_the_context_tables_when_migrated(tmp_path):
    db = tmp_path / "mage.db"
    schema_10_copy(db)
    before = sqlite3.connect(db)
    assert before.execute("PRAGMA user_version").fetchone()[0] == 10
    runs, results = (before.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("runs", "results"))
    before.close()
    store = Store(db)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 16
    assert len(store.runs()) == runs and sum(len(store.rows(r["id"])) for r in store.runs()) == results
    assert all(store.context_results(r["id"]) == [] for r in store.runs())
    run = store_context_run(store)
    assert store.context_results(run) == context_records()[0]
    store.close()
    assert Store(db).db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION  # migrating again changes nothing


def test_a_schema_15_store_s_block_results_gain_their_kernels_empty_when_migrated(tmp_path):
    db = tmp_path / "mage.db"
    store = Store(db)
    run = store_context_run(store)
    store.close()
    older = sqlite3.connect(db)
    older.execute("ALTER TABLE block_results DROP COLUMN kernel_times")
    older.execute("PRAGMA user_version = 15")
    older.commit()
    older.close()
    store = Store(db)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert [dataclasses.replace(r, kernel_times=None) for r in context_records()[0]] == store.context_results(run)


def test_an_older_store_opened_read_only_reads_no_context_and_is_left_untouched(tmp_path):
    db = tmp_path / "mage.db"
    schema_10_copy(db)
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    store = Store(db, read_only=True)
    first = store.runs()[0]["id"]
    assert store.context_results(first) == [] and store.context_shares(first) == []
    assert store.rows(first)
    store.close()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    tables = {row[0] for row in sqlite3.connect(db).execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "block_results" not in tables


# Export and import

MAGE = [sys.executable, "-c", "from mage.cli import main; main()"]


def mage(cwd, *args):
    return subprocess.run([*MAGE, *args], cwd=cwd, capture_output=True, text=True, env=os.environ | {"COLUMNS": "200"})


def test_context_runs_round_trip_through_a_document_and_a_known_one_is_skipped(tmp_path):
    source = Store(tmp_path / "gpu.db")
    run = store_context_run(source)
    transfer.write(transfer.export_runs(source, [run]), tmp_path / "run.json.gz")
    local = Store(tmp_path / "local.db")
    local.begin_run(clock="gpu", suite="seed", command="mage run", env={}, method={}, ceilings={})  # ids differ
    [(_, local_id, new)] = transfer.import_runs(local, transfer.read(tmp_path / "run.json.gz"))
    assert new and local_id != run
    assert local.context_results(local_id) == source.context_results(run)
    assert local.context_shares(local_id) == source.context_shares(run)
    [(_, again, new)] = transfer.import_runs(local, transfer.read(tmp_path / "run.json.gz"))
    assert (again, new) == (local_id, False)
    assert len(local.db.execute("SELECT * FROM block_results").fetchall()) == len(context_records()[0])


def test_a_document_without_context_lists_imports_as_before(tmp_path):
    source = Store(tmp_path / "gpu.db")
    run = store_context_run(source)
    document = transfer.export_runs(source, [run])
    for key in ("context_results", "context_shares"):
        del document["runs"][0][key]
    local = Store(tmp_path / "local.db")
    [(_, local_id, _)] = transfer.import_runs(local, document)
    assert local.context_results(local_id) == [] and local.run(local_id)["suite"] == "context"


BAD_CONTEXT = [
    (("context_results", 0, "kind"), "merged", 'runs[0].context_results[0].kind is "merged", not one of eager, swap'),
    (("context_results", 1, "path"), "batch", 'runs[0].context_results[1].path is "batch", not one of single, graph'),
    (("context_results", 0, "span_median_us"), float("nan"), "context_results[0].span_median_us is nan, not a finite"),
    (("context_results", 0, "block"), None, "runs[0].context_results[0].block is null, not a string"),
    (("context_results", 0, "fused"), 1, "runs[0].context_results[0].fused is not a field this Mage knows"),
    (("context_results", 2, "assignment"), "eager", "runs[0].context_results[2] repeats mlp/gpt2-small ieee eager single"),
    (("context_results", 12, "kernel_times"), "_mlp_fused_kernel fast | gemm 47.5",
     "runs[0].context_results[12].kernel_times: '_mlp_fused_kernel fast' is not a kernel's name and its µs a call"),
    (("context_results", 12, "kernel_times"), "_mlp_fused_kernel nan",
     "runs[0].context_results[12].kernel_times: '_mlp_fused_kernel nan' is not a kernel's name and its µs a call"),
    (("context_shares", 0, "fraction"), -0.1, "runs[0].context_shares[0].fraction is -0.1, below 0"),
    (("context_shares", 0, "assignment"), "layernorm=cubecl",
     "context_shares[0] names mlp/gpt2-small ieee layernorm=cubecl, which is not among the run's context results"),
    (("context_shares", 1, "site"), "layernorm#0", "context_shares[1] repeats mlp/gpt2-small ieee eager layernorm#0"),
    (("context_shares",), {}, "runs[0].context_shares is dict, not a list"),
]


@pytest.mark.parametrize("path, value, problem", BAD_CONTEXT, ids=[".".join(map(str, p[0])) for p in BAD_CONTEXT])
def test_a_malformed_context_record_is_refused_naming_the_field(path, value, problem, tmp_path):
    source = Store(tmp_path / "gpu.db")
    document = transfer.export_runs(source, [store_context_run(source)])
    target = document["runs"][0]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    local = Store(tmp_path / "local.db")
    with pytest.raises(MageError) as refused:
        transfer.import_runs(local, document)
    assert str(refused.value).startswith("run 1 (runs[0]): ") and problem in str(refused.value), str(refused.value)
    assert local.runs() == [] and local.db.execute("SELECT COUNT(*) FROM block_results").fetchone()[0] == 0


def test_the_export_and_import_commands_carry_context_results(tmp_path):
    source = Store(tmp_path / "gpu.db")
    run = store_context_run(source)
    source.close()
    listed = mage(tmp_path, "runs", "--db", "gpu.db")
    assert listed.returncode == 0 and f"0 + {len(context_records()[0])} block" in listed.stdout
    rows = mage(tmp_path, "export", str(run), "--json", "--db", "gpu.db")
    assert rows.returncode == 0, rows.stderr
    exported = json.loads(rows.stdout)
    assert [(r["block"], r["assignment"], r["path"]) for r in exported] == [
        (r.block, r.assignment, r.path) for r in context_records()[0]]
    best = next(r for r in exported if r["assignment"] == "layernorm=native,bias_gelu=triton")
    assert [(s["site"], s["impl"]) for s in best["shares"]] == [("layernorm#0", "native/default/ieee"),
                                                               ("bias_gelu#0", "triton/default/ieee")]
    assert mage(tmp_path, "export", str(run), "--run-json", "--db", "gpu.db", "-o", "run.json").returncode == 0
    first = mage(tmp_path, "import", "run.json", "--db", "local.db")
    assert first.returncode == 0 and f"run {run} imported as run 1" in first.stdout, first.stderr
    assert "already stored as run 1; skipped" in mage(tmp_path, "import", "run.json", "--db", "local.db").stdout
    document = json.loads((tmp_path / "run.json").read_text())
    document["runs"][0]["context_results"][0]["measured_speedup"] = "fast"
    (tmp_path / "bad.json").write_text(json.dumps(document))
    bad = mage(tmp_path, "import", "bad.json", "--db", "other.db")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "context_results[0].measured_speedup is \"fast\", not a number; nothing of it was stored" in bad.stderr
