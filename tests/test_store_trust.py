"""The store never loses or garbles an answer: read-only commands, faults of the file, schema versions."""

import hashlib
import os
import random
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mage import cli
from mage.errors import StoreError
from mage.store import SCHEMA_VERSION, Result, Store, decode_values, pack_samples, unpack_samples

from test_transfer import V1_RUNS, store_run

COMMITTED = Path(__file__).resolve().parents[1] / "results" / "h200" / "mage.db"
READ_ONLY_COMMANDS = [["runs"], ["show", "1"], ["export", "1", "--json"], ["export", "--run-json", "--all"],
                      ["report", "1"], ["compare", "1", "2"], ["history"], ["best"]]


def mage_here(monkeypatch, capsys, *args):
    """The mage command in this process: (exit code, stdout, stderr with rich's line wrapping undone)."""
    monkeypatch.setattr(sys, "argv", ["mage", *args])
    monkeypatch.setenv("COLUMNS", "10000")  # rich wraps long paths otherwise
    try:
        cli.main()
        code = 0
    except SystemExit as exit:
        code = exit.code
    captured = capsys.readouterr()
    return code, captured.out, " ".join(captured.err.split())


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("command", READ_ONLY_COMMANDS, ids=lambda c: " ".join(c))
def test_a_read_only_command_never_creates_a_store(command, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, _, err = mage_here(monkeypatch, capsys, *command, "--db", "mistyped.db")
    assert code == 2 and "no store at mistyped.db" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("damage, problem", [
    (lambda path: path.write_bytes(os.urandom(4096)), "not an SQLite database"),
    (lambda path: path.write_bytes(path.read_bytes()[:len(path.read_bytes()) // 2]), "damaged or truncated"),
    (lambda path: (path.unlink(), path.mkdir()), "is a directory"),
], ids=["not-sqlite", "truncated", "directory"])
def test_a_broken_store_file_is_one_line_naming_it(damage, problem, tmp_path, monkeypatch, capsys):
    path = tmp_path / "mage.db"
    store = Store(path)
    for _ in range(30):  # enough pages that half the file cuts tables short
        store_run(store)
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    damage(path)
    for read_only in (True, False):
        with pytest.raises(StoreError, match=problem) as refused:
            Store(path, read_only=read_only)
        assert str(path) in str(refused.value)
    code, _, err = mage_here(monkeypatch, capsys, "runs", "--db", str(path))
    assert code == 2 and problem in err and "Traceback" not in err


def test_a_writable_store_in_a_missing_folder_is_refused(tmp_path):
    with pytest.raises(StoreError, match="the folder .*nowhere does not exist"):
        Store(tmp_path / "nowhere" / "mage.db")


# What schema 6 stores lacked: the columns added by schemas 7 to 10.
SINCE_SCHEMA_6 = {"runs": ("owner_host", "claimed_at", "heartbeat_at"),
                  "results": ("span_rse", "noisy", "memory_floor_us", "compute_floor_us", "gpu_index", "gpu_uuid"),
                  "implementations": ("family", "strategy", "baseline"), "cases": ("stats_json",)}
TABLES_SINCE_SCHEMA_10 = ("block_results", "block_shares")


def row_samples_copy(path: Path, version: int = 13) -> None:
    """The committed H200 store as stores before schema 14 held its samples: a row a sample."""
    shutil.copy(COMMITTED, path)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE samples (result_id INTEGER NOT NULL REFERENCES results(id), round INTEGER NOT NULL,"
               " value_us REAL NOT NULL)")
    db.execute("CREATE INDEX samples_by_result ON samples(result_id)")
    for result_id, rounds, values, codec in db.execute(
            "SELECT result_id, rounds, values_us, values_codec FROM result_samples ORDER BY result_id").fetchall():
        db.executemany("INSERT INTO samples VALUES (?, ?, ?)",
                       [(result_id, *sample) for sample in unpack_samples(rounds, decode_values(values, codec))])
    db.execute("DROP TABLE result_samples")
    db.execute(f"PRAGMA user_version = {version}")
    db.commit()
    db.close()


def older_copy(path: Path, version: int, columns: dict) -> None:
    """The committed H200 store as an older one held it: ``columns`` and the later tables dropped."""
    row_samples_copy(path, version)
    db = sqlite3.connect(path)
    for table in TABLES_SINCE_SCHEMA_10:
        db.execute(f"DROP TABLE IF EXISTS {table}")
    for table, dropped in columns.items():
        for column in dropped:
            db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    db.execute(f"PRAGMA user_version = {version}")
    db.commit()
    db.close()


def schema_6_copy(path: Path) -> None:
    """The committed H200 store as a schema 6 store held it: the later columns dropped, its old names back."""
    older_copy(path, 6, SINCE_SCHEMA_6)
    db = sqlite3.connect(path)
    db.execute("UPDATE implementations SET name = replace(replace(name, 'triton.split/', 'triton-split/'),"
               " 'cubecl/', 'rust-cubecl/'), backend = replace(replace(backend, 'triton.split', 'triton-split'),"
               " 'cubecl', 'rust-cubecl')")
    db.commit()
    db.close()


def test_reading_an_older_store_neither_migrates_nor_writes_it(tmp_path):
    path = tmp_path / "mage.db"
    schema_6_copy(path)
    before = digest(path)
    store = Store(path, read_only=True)
    runs = store.runs()
    assert len(runs) > 1 and {run["status"] for run in runs} == {"complete", "incomplete"}
    assert runs[0]["owner_host"] is None  # a column added since reads as NULL
    # The identity schema 9 gives old rows is read, not stored: family, strategy, baseline and the new name.
    implementations = {(row["name"], row["family"], row["strategy"], row["baseline"])
                       for row in store.db.execute("SELECT * FROM implementations")}
    assert ("triton.split/outgoing/tf32", "triton", "split", 0) in implementations
    assert ("cubecl/affine/ieee", "cubecl", "default", 0) in implementations
    assert ("eager/affine/ieee", "eager", "default", 1) in implementations
    # The last timed row: a context run has block rows only, and a refused row has no samples.
    timed = [row for run in runs for row in store.rows(run["id"]) if row["status"] == "pass"]
    assert store.samples(timed[-1]["result_id"])
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        store.db.execute("UPDATE main.runs SET suite = 'x'")
    store.close()
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA user_version").fetchone()[0] == 6 < SCHEMA_VERSION
    assert "owner_host" not in {row[1] for row in check.execute("PRAGMA table_info(runs)")}
    check.close()
    assert digest(path) == before


def test_migrating_row_samples_packs_each_result_in_order_and_drops_the_rows(tmp_path):
    path = tmp_path / "mage.db"
    row_samples_copy(path)
    rows = sqlite3.connect(path)
    before = {}
    for result_id, round_, value in rows.execute("SELECT * FROM samples ORDER BY rowid"):
        before.setdefault(result_id, []).append((round_, value))
    rows.close()
    old = Store(path, read_only=True)  # read where they are, without migrating
    assert all(old.samples(result_id) == taken for result_id, taken in before.items())
    old.close()
    store = Store(path)
    assert len(before) > 1000 and all(store.samples(result_id) == taken for result_id, taken in before.items())
    tables = {row[0] for row in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "samples" not in tables and store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_migrating_to_compressed_samples_keeps_every_value_bit_for_bit(tmp_path):
    path = tmp_path / "mage.db"
    shutil.copy(COMMITTED, path)
    db = sqlite3.connect(path)  # the committed store as schema 14 held it: the values as they are
    raw = {result_id: decode_values(values, codec) for result_id, values, codec in
           db.execute("SELECT result_id, values_us, values_codec FROM result_samples").fetchall()}
    db.executemany("UPDATE result_samples SET values_us = ? WHERE result_id = ?", [(v, k) for k, v in raw.items()])
    db.execute("ALTER TABLE result_samples DROP COLUMN values_codec")
    db.execute("PRAGMA user_version = 14")
    db.commit()
    db.close()
    old = Store(path, read_only=True)
    taken = {result_id: old.samples(result_id) for result_id in raw}
    old.close()
    store = Store(path)
    assert len(raw) > 1000 and all(store.samples(result_id) == taken[result_id] for result_id in raw)
    codecs = [tuple(row) for row in store.db.execute("SELECT DISTINCT values_codec FROM result_samples")]
    packed = store.db.execute("SELECT sum(length(values_us)) FROM result_samples").fetchone()[0]
    assert codecs == [("zlib",)] and packed < 0.6 * sum(map(len, raw.values()))
    some = next(iter(raw))
    store.db.execute("UPDATE result_samples SET values_us = x'00ff' WHERE result_id = ?", (some,))
    with pytest.raises(StoreError, match="cannot be decompressed .* it is damaged"):
        store.samples(some)
    store.db.execute("UPDATE result_samples SET values_codec = 'lz4' WHERE result_id = ?", (some,))
    with pytest.raises(StoreError, match="in 'lz4', which this Mage cannot read"):
        store.samples(some)


def test_packed_samples_keep_rounds_values_and_order():
    taken = [(0, 1.5), (0, 2.25), (1, 3.0), (0, 4.0), (7, 1e-300), (7, 5e3)]
    assert unpack_samples(*pack_samples(taken)) == taken
    assert unpack_samples(*pack_samples([])) == []
    rounds, values = pack_samples(taken)
    with pytest.raises(StoreError, match="4 sample rounds for 6 values: it is damaged"):
        unpack_samples(rounds[:-8], values)


def test_a_version_1_store_reads_without_its_later_tables(tmp_path):
    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    old.execute(V1_RUNS)
    old.execute("INSERT INTO runs (started_at, status, clock, suite, command, env_json, method_json, ceilings_json)"
                " VALUES ('2026-11-29T21:57:46+00:00', 'complete', 'gpu', 'seed', 'mage run', '{}', '{}', '{}')")
    old.execute("PRAGMA user_version=1")
    old.commit()
    old.close()
    store = Store(path, read_only=True)
    assert [run["suite"] for run in store.runs()] == ["seed"]
    assert store.predictions(1) == [] and store.run(1)["hypothesis"] is None


@pytest.mark.parametrize("read_only", [True, False])
def test_a_store_of_a_newer_schema_is_refused_and_left_untouched(read_only, tmp_path):
    path = tmp_path / "mage.db"
    newer = sqlite3.connect(path)
    newer.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, gadget TEXT)")
    newer.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    newer.commit()
    newer.close()
    before = digest(path)
    with pytest.raises(StoreError, match=f"schema {SCHEMA_VERSION + 1} store, newer than schema {SCHEMA_VERSION}"):
        Store(path, read_only=read_only)
    assert digest(path) == before


def test_a_full_disk_is_one_error_naming_the_store_and_stores_nothing(tmp_path):
    path = tmp_path / "mage.db"
    store = Store(path)
    run = store_run(store)
    count = store.db.execute("SELECT COUNT(*) FROM result_samples").fetchone()[0]
    store.db.execute("PRAGMA max_page_count = %d" % store.db.execute("PRAGMA page_count").fetchone()[0])
    case_id, impl_id = store.db.execute("SELECT case_id, impl_id FROM results LIMIT 1").fetchone()
    store.db.execute("UPDATE runs SET status = 'running', finished_at = NULL")  # as while it runs
    store.db.commit()
    with pytest.raises(StoreError, match=f"cannot write {path}: the disk is full"):
        noise = random.Random(0)  # values that do not compress away (samples are stored compressed)
        store.add_result(run, case_id, impl_id, Result("single", "warm", "pass"),
                         [(0, noise.random()) for _ in range(100_000)])
    assert store.db.execute("SELECT COUNT(*) FROM result_samples").fetchone()[0] == count


def _unshare_available() -> bool:
    return shutil.which("unshare") is not None and subprocess.run(
        ["unshare", "-m", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _unshare_available(), reason="needs a private mount namespace (unshare -m) for a read-only mount")
def test_a_store_on_a_read_only_mount_is_read_and_refused_for_writing(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    store = Store(folder / "mage.db")
    store_run(store)
    store.close()  # the last connection checkpoints the WAL and removes it
    assert sorted(p.name for p in folder.iterdir()) == ["mage.db"]
    mage = f"{shlex.quote(sys.executable)} -m mage"
    script = (f"mount --bind -o ro {folder} {folder} && cd {tmp_path} && "
              f"{mage} runs --db {folder}/mage.db && {mage} export 1 --json --db {folder}/mage.db > rows.json;"
              f" echo read=$?; {mage} run --op layernorm --impl eager --db {folder}/mage.db; echo run=$?")
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=300,
                          env=os.environ | {"COLUMNS": "200"})
    assert "read=0" in done.stdout, done.stdout + done.stderr
    assert "layernorm" in (tmp_path / "rows.json").read_text()
    assert "run=2" in done.stdout and "cannot be written (read-only)" in " ".join(done.stderr.split())
    assert "Traceback" not in done.stderr


def test_a_damaged_page_is_named_when_read_and_refused_before_a_run_starts(tmp_path, monkeypatch, capsys):
    path = tmp_path / "mage.db"
    store = Store(path)
    for _ in range(30):
        store_run(store)
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = store.db.execute("PRAGMA page_size").fetchone()[0]
    root = store.db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'results'").fetchone()[0]
    store.close()
    data = bytearray(path.read_bytes())
    data[(root - 1) * page_size] = 0xFF  # no b-tree page type: the results table is damaged, the rest is whole
    path.write_bytes(bytes(data))
    code, _, err = mage_here(monkeypatch, capsys, "show", "1", "--db", str(path))
    assert code == 2 and str(path) in err and "damaged" in err and "Traceback" not in err
    with pytest.raises(StoreError, match="damaged") as refused:
        Store(path)  # mage run and mage import: nothing is begun inside it
    assert "\n" not in str(refused.value)  # one line, though SQLite's own report of the damage has several
    assert path.read_bytes() == bytes(data)


@pytest.mark.parametrize("stored, problem", [("{not json", "is not valid JSON"), ("[]", "is not a JSON object (a list)"),
                                             ("null", "is not a JSON object (a NoneType)"),
                                             ('"x"', "is not a JSON object (a str)")])
def test_a_run_with_an_environment_that_is_not_json_is_one_line(tmp_path, monkeypatch, capsys, stored, problem):
    path = tmp_path / "mage.db"
    store = Store(path)
    store_run(store)
    store.db.execute("UPDATE runs SET env_json = ?", (stored,))
    store.db.commit()
    store.close()
    for command in (["runs"], ["show", "1"]):
        code, _, err = mage_here(monkeypatch, capsys, *command, "--db", str(path))
        assert code == 2 and f"{path}: run 1's env_json {problem}" in err and "Traceback" not in err


@pytest.mark.parametrize("make, problem", [
    (lambda path: os.mkfifo(path), "not a regular file"),
    (lambda path: (path.with_name("b").symlink_to(path), path.symlink_to(path.with_name("b"))), "cannot open"),
], ids=["fifo", "symlink-loop"])
def test_a_store_path_that_is_no_file_is_refused_without_blocking(make, problem, tmp_path, monkeypatch, capsys):
    path = tmp_path / "mage.db"
    make(path)
    for command in (["runs"], ["run", "--op", "softmax", "--impl", "eager"]):
        code, _, err = mage_here(monkeypatch, capsys, *command, "--db", str(path))
        assert code == 2 and problem in err and "Traceback" not in err


def test_a_device_is_refused_as_a_store(tmp_path, monkeypatch, capsys):
    code, _, err = mage_here(monkeypatch, capsys, "runs", "--db", "/dev/null")
    assert code == 2 and "/dev/null is not a regular file" in err
    with pytest.raises(StoreError, match="not a regular file"):
        Store("/dev/null")
    assert not Path("/dev/null-journal").exists() and not Path("/dev/null-wal").exists()
