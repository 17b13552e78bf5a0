"""Context runs in the store (schema 11): block results and op shares written in one transaction, read back
typed, created by the migration of an older store and read from one opened read-only."""

import dataclasses
import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from context_records import GNN, MLP, context_records, store_context_run
from mage.errors import RunClaimedError
from mage.store import (BLOCK_RESULT_FIELDS, BLOCK_SHARE_FIELDS, SCHEMA_VERSION, BlockOpShare, BlockResult, Owner,
                        Store)

COMMITTED = Path(__file__).resolve().parents[1] / "results" / "h200" / "mage.db"


def test_a_context_run_reads_back_every_record_as_stored(tmp_path):
    store = Store(tmp_path / "mage.db")
    run = store_context_run(store)
    results, shares = context_records()
    assert store.context_results(run) == results
    assert store.context_shares(run) == shares
    assert {r.block for r in results} == {MLP, GNN}
    assert {r.kind for r in results} == {"eager", "swap", "best", "compile"}
    assert {r.status for r in results} == {"pass", "fail", "skip"}
    assert store.run(run)["suite"] == "context"


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


def test_the_committed_schema_10_store_gains_the_context_tables_when_migrated(tmp_path):
    db = tmp_path / "mage.db"
    shutil.copy(COMMITTED, db)
    before = sqlite3.connect(db)
    assert before.execute("PRAGMA user_version").fetchone()[0] == 10
    runs, results = (before.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("runs", "results"))
    before.close()
    store = Store(db)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 11
    assert len(store.runs()) == runs and sum(len(store.rows(r["id"])) for r in store.runs()) == results
    assert all(store.context_results(r["id"]) == [] for r in store.runs())
    run = store_context_run(store)
    assert store.context_results(run) == context_records()[0]
    store.close()
    assert Store(db).db.execute("PRAGMA user_version").fetchone()[0] == 11  # migrating again changes nothing


def test_an_older_store_opened_read_only_reads_no_context_and_is_left_untouched(tmp_path):
    db = tmp_path / "mage.db"
    shutil.copy(COMMITTED, db)
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    store = Store(db, read_only=True)
    first = store.runs()[0]["id"]
    assert store.context_results(first) == [] and store.context_shares(first) == []
    assert store.rows(first)
    store.close()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    tables = {row[0] for row in sqlite3.connect(db).execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "block_results" not in tables
