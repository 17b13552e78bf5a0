"""SQLite store of runs, cases, implementations, results and raw samples.

Every result is written with its samples in one transaction, so a crash or Ctrl-C leaves every
finished result stored. A run is 'running' until it ends; one that ends by interruption is marked
'incomplete', and one whose process died keeps no finish time and reads as incomplete too.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from mage import identity
from mage.errors import UnknownNameError

SCHEMA_VERSION = 9  # 2: runs.fingerprint, runs.hypothesis, predictions; 3: results.suspect; 4: host range;
# 5: clocks during measurement; 6: autotuned configurations; 9: implementation family, strategy, baseline (_migrate)

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,                 -- running | complete | incomplete
    clock TEXT NOT NULL,                  -- gpu | cpu: the clock behind every number of the run
    suite TEXT NOT NULL,
    command TEXT NOT NULL,
    pid INTEGER,
    env_json TEXT NOT NULL,
    env_end_json TEXT,
    method_json TEXT NOT NULL,
    ceilings_json TEXT NOT NULL,
    fingerprint TEXT,                     -- identifies the run across stores (import skips a known one)
    hypothesis TEXT                       -- what the run was made to test (mage run --hypothesis)
);
CREATE TABLE IF NOT EXISTS cases (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    op TEXT NOT NULL,
    name TEXT NOT NULL,
    suite TEXT NOT NULL,
    params_json TEXT NOT NULL,
    seed INTEGER NOT NULL,
    UNIQUE (run_id, op, name)
);
CREATE TABLE IF NOT EXISTS implementations (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    op TEXT NOT NULL,
    name TEXT NOT NULL,
    backend TEXT NOT NULL,                -- the name's first part: family, or family.strategy (mage.identity)
    variant TEXT NOT NULL,
    precision TEXT NOT NULL,
    family TEXT NOT NULL,                 -- the technology: eager, compile, triton, native, cubecl, …
    strategy TEXT NOT NULL,               -- one kernel design within the family: default, split, …
    baseline INTEGER NOT NULL,            -- 1 for the op's baseline (the reference of its contracts)
    UNIQUE (run_id, op, name)
);
CREATE TABLE IF NOT EXISTS results (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    case_id INTEGER NOT NULL REFERENCES cases(id),
    impl_id INTEGER NOT NULL REFERENCES implementations(id),
    path TEXT NOT NULL,
    cache TEXT NOT NULL,
    status TEXT NOT NULL,                 -- pass | fail | skip
    reason TEXT,
    contract TEXT,                        -- pass | fail | NULL when never checked
    rel_error REAL,
    eager_error REAL,
    flops REAL,
    bytes REAL,
    kernel_us REAL,
    launches REAL,
    kernel_names TEXT,
    host_us REAL,                         -- median of the chunk means (mage.measure.host)
    host_min_us REAL,                     -- their range; NULL for results stored before schema 4
    host_max_us REAL,
    span_mean_us REAL,
    span_median_us REAL,
    span_round_min_us REAL,
    span_round_max_us REAL,
    span_samples INTEGER,
    calls_per_sample INTEGER,
    floor_us REAL,
    suspect TEXT,                         -- why a passing result's time is not believable (mage.suspect)
    sm_clock_min_mhz REAL,                -- SM clock range while its GPU times were measured (mage.measure.clocks);
    sm_clock_max_mhz REAL,                -- NULL without NVML and for results stored before schema 5
    clock_events TEXT,                    -- NVML slowdown reasons seen meanwhile, space-separated
    tuning TEXT,                          -- the configuration each autotuned Triton kernel of a call launched with
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS samples (
    result_id INTEGER NOT NULL REFERENCES results(id),
    round INTEGER NOT NULL,
    value_us REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS predictions (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    position INTEGER NOT NULL,
    text TEXT NOT NULL,                   -- as written (mage run --predict); evaluated on reading
    UNIQUE (run_id, position)
);
CREATE INDEX IF NOT EXISTS samples_by_result ON samples(result_id);
CREATE INDEX IF NOT EXISTS results_by_run ON results(run_id);
"""

RESULT_FIELDS = (
    "path", "cache", "status", "reason", "contract", "rel_error", "eager_error", "flops", "bytes",
    "kernel_us", "launches", "kernel_names", "host_us", "host_min_us", "host_max_us", "span_mean_us", "span_median_us",
    "span_round_min_us", "span_round_max_us", "span_samples", "calls_per_sample", "floor_us", "suspect",
    "sm_clock_min_mhz", "sm_clock_max_mhz", "clock_events", "tuning",
)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class Result:
    """One implementation on one case, one path and one cache state."""

    path: str
    cache: str
    status: str
    reason: str | None = None
    contract: str | None = None
    rel_error: float | None = None
    eager_error: float | None = None
    flops: float | None = None
    bytes: float | None = None
    kernel_us: float | None = None
    launches: float | None = None
    kernel_names: str | None = None
    host_us: float | None = None
    host_min_us: float | None = None
    host_max_us: float | None = None
    span_mean_us: float | None = None
    span_median_us: float | None = None
    span_round_min_us: float | None = None
    span_round_max_us: float | None = None
    span_samples: int | None = None
    calls_per_sample: int | None = None
    floor_us: float | None = None
    suspect: str | None = None
    sm_clock_min_mhz: float | None = None
    sm_clock_max_mhz: float | None = None
    clock_events: str | None = None
    tuning: str | None = None


class Store:
    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.db = sqlite3.connect(self.path, timeout=30)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        with self.db:
            self.db.executescript(SCHEMA)
        _migrate(self.db)

    def close(self) -> None:
        self.db.close()

    # Writing a run

    def begin_run(self, *, clock: str, suite: str, command: str, env: dict, method: dict, ceilings: dict) -> int:
        started, pid = _now(), os.getpid()
        with self.db:
            cursor = self.db.execute(
                "INSERT INTO runs (started_at, status, clock, suite, command, pid, env_json, method_json, ceilings_json,"
                " fingerprint) VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)",
                (started, clock, suite, command, pid, json.dumps(env), json.dumps(method), json.dumps(ceilings),
                 run_fingerprint(started, env, command, pid, time.time_ns())),
            )
        return cursor.lastrowid

    def set_experiment(self, run_id: int, hypothesis: str | None, predictions: Iterable[str]) -> None:
        """Store what ``run_id`` was made to test: a hypothesis and predictions (mage.experiments syntax)."""
        with self.db:
            self.db.execute("UPDATE runs SET hypothesis = ? WHERE id = ?", (hypothesis, run_id))
            self.db.execute("DELETE FROM predictions WHERE run_id = ?", (run_id,))
            self.db.executemany("INSERT INTO predictions (run_id, position, text) VALUES (?, ?, ?)",
                                [(run_id, i, text) for i, text in enumerate(predictions)])

    def predictions(self, run_id: int) -> list[str]:
        return [row[0] for row in self.db.execute(
            "SELECT text FROM predictions WHERE run_id = ? ORDER BY position", (run_id,))]

    def run_by_fingerprint(self, fingerprint: str) -> int | None:
        row = self.db.execute("SELECT id FROM runs WHERE fingerprint = ?", (fingerprint,)).fetchone()
        return None if row is None else row[0]

    def end_run(self, run_id: int, status: str, env_end: dict | None = None) -> None:
        with self.db:
            self.db.execute(
                "UPDATE runs SET status = ?, finished_at = ?, env_end_json = ? WHERE id = ?",
                (status, _now(), json.dumps(env_end or {}), run_id),
            )

    def reopen_run(self, run_id: int) -> None:
        """Mark an interrupted run as running again, in this process (mage run --resume)."""
        with self.db:
            self.db.execute("UPDATE runs SET status = 'running', finished_at = NULL, pid = ? WHERE id = ?",
                            (os.getpid(), run_id))

    def stored_rows(self, run_id: int) -> set[tuple[str, str, str, str, str]]:
        """(op, case, implementation, path, cache) of every result stored for ``run_id``."""
        return {tuple(row) for row in self.db.execute(
            """SELECT c.op, c.name, i.name, res.path, res.cache FROM results res
               JOIN cases c ON c.id = res.case_id JOIN implementations i ON i.id = res.impl_id
               WHERE res.run_id = ?""", (run_id,))}

    def delete_case_results(self, run_id: int, case_id: int) -> None:
        """Remove every result of one case of a run, with its samples, in one transaction."""
        with self.db:
            self.db.execute("DELETE FROM samples WHERE result_id IN"
                            " (SELECT id FROM results WHERE run_id = ? AND case_id = ?)", (run_id, case_id))
            self.db.execute("DELETE FROM results WHERE run_id = ? AND case_id = ?", (run_id, case_id))

    def case_id(self, run_id: int, case) -> int:
        with self.db:
            self.db.execute(
                "INSERT OR IGNORE INTO cases (run_id, op, name, suite, params_json, seed) VALUES (?, ?, ?, ?, ?, ?)",
                (run_id, case.op, case.name, case.suite, json.dumps(case.params), case.seed),
            )
        return self.db.execute(
            "SELECT id FROM cases WHERE run_id = ? AND op = ? AND name = ?", (run_id, case.op, case.name)
        ).fetchone()[0]

    def impl_id(self, run_id: int, impl) -> int:
        with self.db:
            self.db.execute(
                "INSERT OR IGNORE INTO implementations"
                " (run_id, op, name, backend, variant, precision, family, strategy, baseline)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, impl.op, impl.name, impl.backend, impl.variant, impl.precision, impl.family,
                 impl.strategy, int(impl.baseline)),
            )
        return self.db.execute(
            "SELECT id FROM implementations WHERE run_id = ? AND op = ? AND name = ?", (run_id, impl.op, impl.name)
        ).fetchone()[0]

    def add_result(self, run_id: int, case_id: int, impl_id: int, result: Result,
                   samples: Iterable[tuple[int, float]] = ()) -> int:
        """Store one result and its raw samples atomically."""
        values = [getattr(result, f) for f in RESULT_FIELDS]
        with self.db:
            cursor = self.db.execute(
                f"INSERT INTO results (run_id, case_id, impl_id, {', '.join(RESULT_FIELDS)}, created_at)"
                f" VALUES (?, ?, ?, {', '.join('?' * len(RESULT_FIELDS))}, ?)",
                (run_id, case_id, impl_id, *values, _now()),
            )
            self.db.executemany(
                "INSERT INTO samples (result_id, round, value_us) VALUES (?, ?, ?)",
                [(cursor.lastrowid, r, v) for r, v in samples],
            )
        return cursor.lastrowid

    # Reading

    def runs(self) -> list[dict]:
        rows = self.db.execute(
            "SELECT r.*, (SELECT COUNT(*) FROM results WHERE run_id = r.id) AS result_count FROM runs r ORDER BY id"
        ).fetchall()
        return [self._run_dict(row) for row in rows]

    def run(self, run_id: int) -> dict:
        row = self.db.execute(
            "SELECT r.*, (SELECT COUNT(*) FROM results WHERE run_id = r.id) AS result_count FROM runs r WHERE id = ?",
            (run_id,),
        ).fetchone()
        if row is None:
            raise UnknownNameError(f"no run {run_id} in {self.path}")
        return self._run_dict(row)

    def latest_run_id(self) -> int:
        row = self.db.execute("SELECT MAX(id) FROM runs").fetchone()
        if row[0] is None:
            raise UnknownNameError(f"no runs stored in {self.path}")
        return row[0]

    @staticmethod
    def _run_dict(row: sqlite3.Row) -> dict:
        run = dict(row)
        for key in ("env_json", "env_end_json", "method_json", "ceilings_json"):
            run[key.removesuffix("_json")] = json.loads(run.pop(key) or "{}")
        if run["status"] == "running" and run["finished_at"] is None and not _alive(run["pid"]):
            run["status"] = "incomplete"  # its process died without marking it
        return run

    def rows(self, run_id: int) -> list[dict]:
        """Results of a run, flattened with their op, case and implementation: the export format."""
        self.run(run_id)
        rows = self.db.execute(
            f"""SELECT res.id AS result_id, c.op, c.name AS "case", c.suite, i.name AS impl, i.backend, i.variant,
                       i.precision, i.family, i.strategy, i.baseline, runs.clock, {', '.join('res.' + f for f in RESULT_FIELDS)}
                FROM results res JOIN cases c ON c.id = res.case_id JOIN implementations i ON i.id = res.impl_id
                JOIN runs ON runs.id = res.run_id
                WHERE res.run_id = ? ORDER BY res.id""",
            (run_id,),
        ).fetchall()
        return [dict(row) for row in rows]

    def ops(self, run_id: int) -> list[str]:
        """The ops a run measured (or meant to: every case it stored, with or without results)."""
        return [row[0] for row in self.db.execute(
            "SELECT DISTINCT op FROM cases WHERE run_id = ? ORDER BY op", (run_id,))]

    def samples(self, result_id: int) -> list[tuple[int, float]]:
        return [tuple(r) for r in self.db.execute(
            "SELECT round, value_us FROM samples WHERE result_id = ? ORDER BY rowid", (result_id,)
        )]


def run_fingerprint(started_at: str, env: dict, command: str, pid, salt) -> str:
    """A run's identity across stores: when, where (GPU UUID, else hostname), what, which process.

    New runs are salted with the nanosecond clock at their start, so two runs begun in the same second
    by one process differ; runs stored before schema version 2 are salted with their id in that store.
    """
    where = env.get("uuid") or env.get("hostname") or ""
    text = "|".join(str(part) for part in (started_at, where, command, pid, salt))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _migrate(db: sqlite3.Connection) -> None:
    """Upgrade a store to SCHEMA_VERSION in one transaction; PRAGMA user_version records the version.

    1 → 2: runs gain ``fingerprint`` (backfilled, unique) and ``hypothesis``; the ``predictions``
    table is created by SCHEMA itself.
    2 → 3: results gain ``suspect`` (NULL for results stored before suspects were flagged).
    3 → 4: results gain ``host_min_us`` and ``host_max_us`` (NULL for results stored before).
    4 → 5: results gain ``sm_clock_min_mhz``, ``sm_clock_max_mhz`` and ``clock_events`` (NULL before).
    5 → 6: results gain ``tuning`` (NULL before, and for implementations that autotune nothing).
    8 → 9: implementations gain ``family``, ``strategy`` and ``baseline``. Old backends map to a family
    and strategy (mage.identity.LEGACY_BACKENDS: triton-split → triton.split, compile-default →
    compile, compile-max-autotune → compile.max-autotune, rust-cubecl → cubecl; any other backend is
    its own family with the default strategy), and their names are renamed to match
    (``triton-split/outgoing/tf32`` → ``triton.split/outgoing/tf32``), so history and compare line up
    old and new runs. Eager rows were the baseline of every op then: they get baseline 1.
    """
    if db.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        columns = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
        for name in ("fingerprint", "hypothesis"):
            if name not in columns:
                db.execute(f"ALTER TABLE runs ADD COLUMN {name} TEXT")
        legacy = db.execute("SELECT id, started_at, command, pid, env_json FROM runs WHERE fingerprint IS NULL")
        for run_id, started_at, command, pid, env_json in legacy.fetchall():
            fingerprint = run_fingerprint(started_at, json.loads(env_json or "{}"), command, pid, f"id{run_id}")
            db.execute("UPDATE runs SET fingerprint = ? WHERE id = ?", (fingerprint, run_id))
        db.execute("CREATE UNIQUE INDEX IF NOT EXISTS runs_by_fingerprint ON runs(fingerprint)")
        result_columns = {row[1] for row in db.execute("PRAGMA table_info(results)")}
        for name, kind in (("suspect", "TEXT"), ("host_min_us", "REAL"), ("host_max_us", "REAL"),
                           ("sm_clock_min_mhz", "REAL"), ("sm_clock_max_mhz", "REAL"), ("clock_events", "TEXT"),
                           ("tuning", "TEXT")):
            if name not in result_columns:
                db.execute(f"ALTER TABLE results ADD COLUMN {name} {kind}")
        if "family" not in {row[1] for row in db.execute("PRAGMA table_info(implementations)")}:
            _add_identity(db)
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _add_identity(db: sqlite3.Connection) -> None:
    """Schema 9's implementation columns, filled in from the backend names of before (see _migrate)."""
    for name, kind in (("family", "TEXT NOT NULL DEFAULT ''"), ("strategy", "TEXT NOT NULL DEFAULT 'default'"),
                       ("baseline", "INTEGER NOT NULL DEFAULT 0")):
        db.execute(f"ALTER TABLE implementations ADD COLUMN {name} {kind}")
    for impl_id, backend, name in db.execute("SELECT id, backend, name FROM implementations").fetchall():
        family, strategy, renamed = identity.from_legacy(backend, name)
        db.execute("UPDATE implementations SET family = ?, strategy = ?, baseline = ?, name = ?, backend = ?"
                   " WHERE id = ?", (family, strategy, int(family == "eager"), renamed,
                                     identity.backend_of(family, strategy), impl_id))


def _alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
