"""SQLite store of runs, cases, implementations, results and raw samples.

Every result is written with its samples in one transaction, so a crash or Ctrl-C leaves every
finished result stored. A run is 'running' until it ends; one that ends by interruption is marked
'incomplete', and one whose process died keeps no finish time and reads as incomplete too.

One live process owns a running run: its claim (pid, host, since, heartbeat) is taken inside a
BEGIN IMMEDIATE transaction, refreshed by a thread while the run goes and checked in the same
transaction as every result it stores. A claim is taken over once its process is gone: on the same
host when the pid is not alive, anywhere when its heartbeat is older than CLAIM_TIMEOUT_S.

``Store(path, read_only=True)`` (the commands that only read) never creates, migrates or writes a
store: it opens SQLite read-only, and reads an older schema as the current one through TEMP views
that add the missing columns as NULL. A store of a newer schema than this Mage knows is refused.
Every fault of the file (a directory, not SQLite, truncated, read-only, full) is a StoreError naming it.
"""

from __future__ import annotations

import array
import contextlib
import hashlib
import json
import math
import os
import re
import socket
import sqlite3
import stat
import sys
import time
import zlib
from dataclasses import astuple, dataclass, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, NamedTuple, TypedDict

from mage import identity
from mage.background import while_running
from mage.errors import RunClaimedError, StoreError, UnknownNameError

SCHEMA_VERSION = 16  # 2: runs.fingerprint, runs.hypothesis, predictions; 3: results.suspect; 4: host range;
# 5: clocks during measurement; 6: autotuned configurations; 7: run claims;
# 8: span noise; 9: implementation identity; 10: hardware memory and compute floors;
# 11: model blocks in context, block_results and block_shares; 12: case statistics; 13: the GPU of each
# result; 14: a result's samples packed in one row; 15: their values compressed; 16: a block's kernels by time
# (_migrate)
CLAIM_TIMEOUT_S = 120.0  # a claim whose heartbeat is older than this is taken over, from any host
HEARTBEAT_S = 15.0  # how often a running run refreshes its claim
HOST = socket.gethostname()

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
    hypothesis TEXT,                      -- what the run was made to test (mage run --hypothesis)
    owner_host TEXT,                      -- the claim of a running run: pid above, this host,
    claimed_at TEXT,                      -- since when,
    heartbeat_at TEXT                     -- and when its owner last showed it was alive
);
CREATE TABLE IF NOT EXISTS cases (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    op TEXT NOT NULL,
    name TEXT NOT NULL,
    suite TEXT NOT NULL,
    params_json TEXT NOT NULL,
    seed INTEGER NOT NULL,
    stats_json TEXT,                      -- facts about the case's inputs (a graph's degree skew), or NULL
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
    floor_us REAL,                        -- the larger of the two below (before schema 10: from measured ceilings)
    memory_floor_us REAL,                 -- compulsory bytes at the HBM peak (mage.measure.ceilings)
    compute_floor_us REAL,                -- the precision's flops at the device's peak rate; NULL before schema 10
    suspect TEXT,                         -- why a passing result's time is not believable (mage.suspect)
    sm_clock_min_mhz REAL,                -- SM clock range while its GPU times were measured (mage.measure.clocks);
    sm_clock_max_mhz REAL,                -- NULL without NVML and for results stored before schema 5
    clock_events TEXT,                    -- NVML slowdown reasons seen meanwhile, space-separated
    tuning TEXT,                          -- the configuration each autotuned Triton kernel of a call launched with
    span_rse REAL,                        -- relative standard error of the span mean reached (mage.measure.span)
    noisy INTEGER,                        -- 1: sampling hit its cap with span_rse above the run's noise target
    gpu_index INTEGER,                    -- the host's GPU that measured it, as nvidia-smi numbers them, and
    gpu_uuid TEXT,                        -- its UUID; NULL on the CPU and for results stored before schema 13
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS result_samples (   -- a result's raw spans, in the order they were taken
    result_id INTEGER PRIMARY KEY REFERENCES results(id),
    rounds BLOB NOT NULL,                 -- (round, count) pairs, int32 little-endian: rounds run in order
    values_us BLOB NOT NULL,              -- float64 little-endian, one per sample, compressed as values_codec says
    values_codec TEXT                     -- 'zlib', or NULL: stored as they are (before schema 15)
);
CREATE TABLE IF NOT EXISTS predictions (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    position INTEGER NOT NULL,
    text TEXT NOT NULL,                   -- as written (mage run --predict); evaluated on reading
    UNIQUE (run_id, position)
);
CREATE TABLE IF NOT EXISTS block_results (     -- one BlockResult: a model block under one assignment, one path
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    block TEXT NOT NULL,
    precision TEXT NOT NULL,
    assignment TEXT NOT NULL,
    kind TEXT NOT NULL,                   -- eager | swap | best | direct | control | fused | compile
    path TEXT NOT NULL,                   -- single | graph
    status TEXT NOT NULL,                 -- pass | fail | skip
    reason TEXT,
    rel_error REAL,
    span_median_us REAL,
    span_mean_us REAL,
    span_rse REAL,
    span_samples INTEGER,
    kernel_us REAL,
    launches REAL,
    predicted_speedup REAL,
    measured_speedup REAL,
    kernel_times TEXT,                    -- "kernel µs | …", a block call's kernels by time (kernel_times)
    UNIQUE (run_id, block, precision, assignment, path)
);
CREATE TABLE IF NOT EXISTS block_shares (      -- one BlockOpShare: an op call site of a block under one assignment
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    block TEXT NOT NULL,
    precision TEXT NOT NULL,
    assignment TEXT NOT NULL,
    site TEXT NOT NULL,
    op TEXT NOT NULL,
    variant TEXT NOT NULL,
    impl TEXT NOT NULL,
    kernel_us REAL,
    fraction REAL,
    isolated_us REAL,
    baseline_isolated_us REAL,
    isolated_speedup REAL,
    UNIQUE (run_id, block, precision, assignment, site)
);
CREATE INDEX IF NOT EXISTS results_by_run ON results(run_id);
"""

RESULT_FIELDS = (
    "path", "cache", "status", "reason", "contract", "rel_error", "eager_error", "flops", "bytes",
    "kernel_us", "launches", "kernel_names", "host_us", "host_min_us", "host_max_us", "span_mean_us", "span_median_us",
    "span_round_min_us", "span_round_max_us", "span_samples", "calls_per_sample", "floor_us", "memory_floor_us",
    "compute_floor_us", "suspect", "sm_clock_min_mhz", "sm_clock_max_mhz", "clock_events", "tuning", "span_rse", "noisy",
    "gpu_index", "gpu_uuid",
)


# Columns added since schema 1: _migrate adds them to an older store, a read-only open reads them as NULL.
ADDED_COLUMNS = {
    "runs": (("fingerprint", "TEXT"), ("hypothesis", "TEXT"), ("owner_host", "TEXT"), ("claimed_at", "TEXT"),
             ("heartbeat_at", "TEXT")),
    "results": (("suspect", "TEXT"), ("host_min_us", "REAL"), ("host_max_us", "REAL"), ("sm_clock_min_mhz", "REAL"),
                ("sm_clock_max_mhz", "REAL"), ("clock_events", "TEXT"), ("tuning", "TEXT"), ("span_rse", "REAL"),
                ("noisy", "INTEGER"), ("memory_floor_us", "REAL"), ("compute_floor_us", "REAL"),
                ("gpu_index", "INTEGER"), ("gpu_uuid", "TEXT")),
    "cases": (("stats_json", "TEXT"),),
    "block_results": (("kernel_times", "TEXT"),),
    "result_samples": (("values_codec", "TEXT"),),
}
# Timed spans are float64 with noisy low bits: zlib keeps them exactly in half the bytes, most of a store's size.
SAMPLES_CODEC = "zlib"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Owner:
    """The process a running run belongs to."""

    pid: int
    host: str = HOST


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
    memory_floor_us: float | None = None
    compute_floor_us: float | None = None
    suspect: str | None = None
    sm_clock_min_mhz: float | None = None
    sm_clock_max_mhz: float | None = None
    clock_events: str | None = None
    tuning: str | None = None
    span_rse: float | None = None
    noisy: bool | None = None
    gpu_index: int | None = None
    gpu_uuid: str | None = None


# Why a block result is measured: the eager reference, one op swapped, the best per op together, the best
# called without torch.library (and again, as an A/A control), a fused implementation of the block
# (mage.context.fusion), a whole-block torch.compile.
CONTEXT_SUITE = "context"  # the suite of a run of mage context: model blocks, not op cases
BLOCK_KINDS = ("eager", "swap", "best", "direct", "control", "fused", "compile")


@dataclass
class BlockResult:
    """One model block (mage.context) under one assignment of implementations, on one launch path."""

    block: str                  # e.g. "mlp/gpt2-small", "trimul/outgoing-768", "gnn/powerlaw"
    precision: str              # ieee | tf32 | bf16: the mode torch's Linear and every Mage op of the block run in
    assignment: str             # canonical: "eager", "layernorm=native,bias_gelu=triton" (ops in block order),
                                # the best called directly: "direct(layernorm=native)", or a whole-block compile:
                                # "compile.default(torch)", "compile.max-autotune(mage)", or a fused implementation
                                # of the block: "fused(cuequivariance)"
    kind: str                   # why it is measured: one of BLOCK_KINDS
    path: str                   # single | graph
    status: str                 # pass | fail | skip
    reason: str | None = None
    rel_error: float | None = None          # the block's contract against its float64 reference
    span_median_us: float | None = None     # one block call at the span boundary (mage.measure.span)
    span_mean_us: float | None = None
    span_rse: float | None = None
    span_samples: int | None = None
    kernel_us: float | None = None          # summed kernel time per block call (profiler)
    launches: float | None = None           # kernel launches per block call (a graph replay counts its kernels)
    predicted_speedup: float | None = None  # Amdahl, 1 / (1 − Σf + Σf/s), from the eager capture's f and isolated s
    measured_speedup: float | None = None   # the eager assignment's span over this one (same block, precision, path)
    kernel_times: str | None = None         # its kernels, µs a block call each, largest first (kernel_times)


@dataclass
class BlockOpShare:
    """One op call site of a block under one assignment: its share of the block's kernel time, and the
    isolated speedup of the implementation it ran, measured at the site's own shapes in the same run."""

    block: str
    precision: str
    assignment: str
    site: str                   # the call site within the block, e.g. "layernorm#0", "triangle#0"
    op: str
    variant: str
    impl: str                   # full implementation name (mage.identity)
    kernel_us: float | None = None          # kernel time the site took inside the block capture
    fraction: float | None = None           # kernel_us over the block's kernel time, same capture
    isolated_us: float | None = None        # impl alone at the site's shapes (kernel time)
    baseline_isolated_us: float | None = None   # the op's baseline alone at the same shapes
    isolated_speedup: float | None = None   # baseline_isolated_us / isolated_us


def kernel_times(kernels: list[tuple[str, float]]) -> str:
    """A capture's kernels as BlockResult stores them: "name µs | name µs", largest first."""
    return " | ".join(f"{name} {us:.1f}" for name, us in kernels)


def read_kernel_times(text: str | None) -> list[tuple[str, float]]:
    """kernel_times read back: [(name, µs a call)] (a name may hold spaces; its time is the last word). ValueError
    names a part that is not a name and a finite, non-negative time (a run document's is checked on import)."""
    if text is None:
        return []
    out = []
    for part in text.split(" | "):
        name, _, us = part.rpartition(" ")
        try:
            time = float(us)
        except ValueError:
            time = math.nan
        if not name or not math.isfinite(time) or time < 0:
            raise ValueError(f"{part!r} is not a kernel's name and its µs a call")
        out.append((name, time))
    return out


# What a run dict counts: its results, and its block results when it is a context run.
RUN_COUNTS = ("(SELECT COUNT(*) FROM results WHERE run_id = r.id) AS result_count,"
              " (SELECT COUNT(*) FROM block_results WHERE run_id = r.id) AS block_count")
# The columns of block_results and block_shares, in the order of the records' fields.
BLOCK_RESULT_FIELDS = tuple(f.name for f in fields(BlockResult))
BLOCK_SHARE_FIELDS = tuple(f.name for f in fields(BlockOpShare))


class RowKey(NamedTuple):
    """What identifies one stored row of a run: one implementation on one case, path and cache state."""

    op: str
    case: str
    impl: str
    path: str
    cache: str


def block_row_key(result: BlockResult) -> RowKey:
    """A block result in the terms of a stored row, so that compare and history line blocks up as they line
    up results: the block as the op, its precision as the case, its assignment as the implementation, and no
    cache state (a block runs on whatever its ops leave in L2)."""
    return RowKey(result.block, result.precision, result.assignment, result.path, "—")


@dataclass
class RowBoundary:
    """One boundary of one row key: what a verdict (mage.compare) or a series (mage.history) is about."""

    op: str
    case: str
    impl: str
    path: str
    cache: str
    boundary: str


class StoredRow(TypedDict):
    """One row as Store.rows() reads it back: the result's columns (as in Result; ``noisy`` as 0/1) with
    its op, case and implementation. Columns added since a store's schema read as None."""

    result_id: int
    op: str
    case: str
    suite: str
    case_stats: str | None  # JSON of the case's stats (OpSpec.case_stats)
    impl: str
    backend: str
    variant: str
    precision: str
    family: str
    strategy: str
    baseline: int
    clock: str
    path: str
    cache: str
    status: str
    reason: str | None
    contract: str | None
    rel_error: float | None
    eager_error: float | None
    flops: float | None
    bytes: float | None
    kernel_us: float | None
    launches: float | None
    kernel_names: str | None
    host_us: float | None
    host_min_us: float | None
    host_max_us: float | None
    span_mean_us: float | None
    span_median_us: float | None
    span_round_min_us: float | None
    span_round_max_us: float | None
    span_samples: int | None
    calls_per_sample: int | None
    floor_us: float | None
    memory_floor_us: float | None
    compute_floor_us: float | None
    suspect: str | None
    sm_clock_min_mhz: float | None
    sm_clock_max_mhz: float | None
    clock_events: str | None
    tuning: str | None
    span_rse: float | None
    noisy: int | None
    gpu_index: int | None
    gpu_uuid: str | None


class Store:
    def __init__(self, path: str | os.PathLike, *, read_only: bool = False):
        self.path = Path(path)
        self.read_only = read_only
        self.owner = Owner(os.getpid())
        self.db = _connect(self.path, read_only)
        self.db.row_factory = sqlite3.Row
        try:
            with self._faults("read"):
                version = self.db.execute("PRAGMA user_version").fetchone()[0]
                tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path} is a schema {version} store, newer than schema {SCHEMA_VERSION} that this "
                                 "Mage knows; it is left untouched: use a newer Mage")
            # A read-only open of a store from before schema 14 reads its samples a row each, where they are.
            self._row_per_sample = read_only and "samples" in tables
            if read_only:
                if "runs" not in tables:
                    raise StoreError(f"{self.path} is not a Mage store (it has no runs table)")
                with self._faults("read"):
                    _read_as_current(self.db)
            else:
                with self._faults("write"):
                    self.db.execute("PRAGMA journal_mode=WAL")
                    self.db.execute("PRAGMA foreign_keys=ON")
                    _refuse_damaged(self.db, self.path)
                    with self.db:
                        self.db.executescript(SCHEMA)
                    _migrate(self.db)
        except BaseException:
            self.db.close()
            raise

    def close(self) -> None:
        self.db.close()

    @contextlib.contextmanager
    def _faults(self, doing: str):
        """A fault of the file (damaged, full, read-only) as one StoreError naming it; constraint violations pass."""
        try:
            yield
        except sqlite3.IntegrityError:
            raise
        except sqlite3.DatabaseError as error:
            raise StoreError(f"cannot {doing} {self.path}: {explain_fault(error)}") from None

    @contextlib.contextmanager
    def transaction(self, immediate: bool = False):
        """One write transaction (BEGIN IMMEDIATE takes the write lock at once, for read-then-write)."""
        with self._faults("write"), self.db:
            if immediate:
                self.db.execute("BEGIN IMMEDIATE")
            yield

    # Claims

    def claim_run(self, run_id: int) -> None:
        """Make this process the owner of an interrupted run (mage run --resume); refuse a live claim."""
        with self.transaction(immediate=True):
            row = self.db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise UnknownNameError(f"no run {run_id} in {self.path}")
            if row["status"] == "complete":
                raise StoreError(f"run {run_id} is complete; only an incomplete run can be resumed")
            if claim_is_live(row) and Owner(row["pid"], row["owner_host"]) != self.owner:
                raise RunClaimedError(f"run {run_id} is being run by {describe_claim(row)}; it is not resumed twice")
            now = _now()
            self.db.execute("UPDATE runs SET status = 'running', finished_at = NULL, pid = ?, owner_host = ?,"
                            " claimed_at = ?, heartbeat_at = ? WHERE id = ?",
                            (self.owner.pid, self.owner.host, now, now, run_id))

    def _keep_claim(self, run_id: int) -> None:
        """Inside a write transaction: refresh the heartbeat, or refuse if this process no longer owns the run."""
        updated = self.db.execute(
            "UPDATE runs SET heartbeat_at = ? WHERE id = ? AND status = 'running' AND pid = ? AND owner_host = ?",
            (_now(), run_id, self.owner.pid, self.owner.host)).rowcount
        if not updated:
            row = self.db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
            holder = describe_claim(row) if row is not None and claim_is_live(row) else "no live process"
            raise RunClaimedError(f"run {run_id} is not owned by this process (process {self.owner.pid} on "
                                  f"{self.owner.host}) but by {holder}; nothing more is stored")

    @contextlib.contextmanager
    def heartbeat(self, run_id: int):
        """Refresh the claim of ``run_id`` every HEARTBEAT_S seconds while the block runs (own thread, own
        connection), so a long case never looks abandoned."""
        def beat(stop) -> None:
            db = sqlite3.connect(self.path, timeout=30)
            try:
                while not stop.wait(HEARTBEAT_S):
                    with contextlib.suppress(sqlite3.Error), db:  # a fault shows where results are stored
                        db.execute("UPDATE runs SET heartbeat_at = ? WHERE id = ? AND status = 'running' AND pid = ?"
                                   " AND owner_host = ?", (_now(), run_id, self.owner.pid, self.owner.host))
            finally:
                db.close()

        with while_running(beat, f"mage-heartbeat-{run_id}"):
            yield

    # Writing a run

    def begin_run(self, *, clock: str, suite: str, command: str, env: dict, method: dict, ceilings: dict) -> int:
        started, pid = _now(), self.owner.pid
        with self.transaction():
            cursor = self.db.execute(
                "INSERT INTO runs (started_at, status, clock, suite, command, pid, env_json, method_json, ceilings_json,"
                " fingerprint, owner_host, claimed_at, heartbeat_at) VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (started, clock, suite, command, pid, json.dumps(env), json.dumps(method), json.dumps(ceilings),
                 run_fingerprint(started, env, command, pid, time.time_ns()), self.owner.host, started, started),
            )
        return cursor.lastrowid

    def set_experiment(self, run_id: int, hypothesis: str | None, predictions: Iterable[str]) -> None:
        """Store what ``run_id`` was made to test: a hypothesis and predictions (mage.experiments syntax)."""
        with self.transaction():
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
        """End the run this process owns; a run another process has taken over is left to it."""
        with self.transaction():
            self.db.execute(
                "UPDATE runs SET status = ?, finished_at = ?, env_end_json = ? WHERE id = ? AND pid = ? AND owner_host = ?",
                (status, _now(), json.dumps(env_end or {}), run_id, self.owner.pid, self.owner.host),
            )

    def add_context(self, run_id: int, results: list[BlockResult], shares: list[BlockOpShare]) -> None:
        """Store a context run's block results and op shares in one transaction, if this process still owns
        the run; a (block, precision, assignment, path) or (…, site) stored twice is an IntegrityError."""
        with self.transaction():
            self._keep_claim(run_id)
            insert_context(self.db, run_id, [astuple(r) for r in results], [astuple(s) for s in shares])

    def stored_rows(self, run_id: int) -> set[RowKey]:
        """The key of every result stored for ``run_id``."""
        return {RowKey(*row) for row in self.db.execute(
            """SELECT c.op, c.name, i.name, res.path, res.cache FROM results res
               JOIN cases c ON c.id = res.case_id JOIN implementations i ON i.id = res.impl_id
               WHERE res.run_id = ?""", (run_id,))}

    def delete_case_results(self, run_id: int, case_id: int) -> None:
        """Remove every result of one case of a run, with its samples, in one transaction."""
        with self.transaction():
            self._keep_claim(run_id)
            self.db.execute("DELETE FROM result_samples WHERE result_id IN"
                            " (SELECT id FROM results WHERE run_id = ? AND case_id = ?)", (run_id, case_id))
            self.db.execute("DELETE FROM results WHERE run_id = ? AND case_id = ?", (run_id, case_id))

    def case_id(self, run_id: int, case, stats: dict | None = None) -> int:
        """The case's id in the run, stored on first use; ``stats`` fills in a stored case that has none."""
        with self.transaction():
            self.db.execute(
                "INSERT OR IGNORE INTO cases (run_id, op, name, suite, params_json, seed) VALUES (?, ?, ?, ?, ?, ?)",
                (run_id, case.op, case.name, case.suite, json.dumps(case.params), case.seed),
            )
            if stats is not None:
                self.db.execute(
                    "UPDATE cases SET stats_json = ? WHERE run_id = ? AND op = ? AND name = ? AND stats_json IS NULL",
                    (json.dumps(stats), run_id, case.op, case.name),
                )
        return self.db.execute(
            "SELECT id FROM cases WHERE run_id = ? AND op = ? AND name = ?", (run_id, case.op, case.name)
        ).fetchone()[0]

    def impl_id(self, run_id: int, impl) -> int:
        with self.transaction():
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
        """Store one result and its raw samples atomically, if this process still owns the run."""
        values = [getattr(result, f) for f in RESULT_FIELDS]
        with self.transaction():
            self._keep_claim(run_id)
            cursor = self.db.execute(
                f"INSERT INTO results (run_id, case_id, impl_id, {', '.join(RESULT_FIELDS)}, created_at)"
                f" VALUES (?, ?, ?, {', '.join('?' * len(RESULT_FIELDS))}, ?)",
                (run_id, case_id, impl_id, *values, _now()),
            )
            insert_samples(self.db, cursor.lastrowid, samples)
        return cursor.lastrowid

    # Reading

    def runs(self) -> list[dict]:
        rows = self.db.execute(f"SELECT r.*, {RUN_COUNTS} FROM runs r ORDER BY id").fetchall()
        return [self._run_dict(row) for row in rows]

    def run(self, run_id: int) -> dict:
        row = self.db.execute(f"SELECT r.*, {RUN_COUNTS} FROM runs r WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise UnknownNameError(f"no run {run_id} in {self.path}")
        return self._run_dict(row)

    def latest_run_id(self) -> int:
        row = self.db.execute("SELECT MAX(id) FROM runs").fetchone()
        if row[0] is None:
            raise UnknownNameError(f"no runs stored in {self.path}")
        return row[0]

    def _run_dict(self, row: sqlite3.Row) -> dict:
        run = dict(row)
        for key in ("env_json", "env_end_json", "method_json", "ceilings_json"):
            try:
                value = json.loads(run.pop(key) or "{}")
            except (json.JSONDecodeError, TypeError) as error:  # edited or damaged outside Mage
                raise StoreError(f"{self.path}: run {run['id']}'s {key} is not valid JSON ({error})") from None
            if not isinstance(value, dict):  # valid JSON, but not the object Mage wrote
                raise StoreError(f"{self.path}: run {run['id']}'s {key} is not a JSON object "
                                 f"(a {type(value).__name__})")
            run[key.removesuffix("_json")] = value
        if run["status"] == "running" and not claim_is_live(row):
            run["status"] = "incomplete"  # its process died without marking it
        return run

    def rows(self, run_id: int) -> list[StoredRow]:
        """Results of a run, flattened with their op, case and implementation: the export format."""
        self.run(run_id)
        rows = self.db.execute(
            f"""SELECT res.id AS result_id, c.op, c.name AS "case", c.suite, c.stats_json AS case_stats,
                       i.name AS impl, i.backend, i.variant,
                       i.precision, i.family, i.strategy, i.baseline, runs.clock, {', '.join('res.' + f for f in RESULT_FIELDS)}
                FROM results res JOIN cases c ON c.id = res.case_id JOIN implementations i ON i.id = res.impl_id
                JOIN runs ON runs.id = res.run_id
                WHERE res.run_id = ? ORDER BY res.id""",
            (run_id,),
        ).fetchall()
        return [dict(row) for row in rows]

    def context_results(self, run_id: int) -> list[BlockResult]:
        """The block results of a run, in the order they were stored (none for a run that is not a context run)."""
        return [BlockResult(*row) for row in self.db.execute(
            f"SELECT {', '.join(BLOCK_RESULT_FIELDS)} FROM block_results WHERE run_id = ? ORDER BY id", (run_id,))]

    def context_shares(self, run_id: int) -> list[BlockOpShare]:
        """The op shares of a run's blocks, in the order they were stored."""
        return [BlockOpShare(*row) for row in self.db.execute(
            f"SELECT {', '.join(BLOCK_SHARE_FIELDS)} FROM block_shares WHERE run_id = ? ORDER BY id", (run_id,))]

    def ops(self, run_id: int) -> list[str]:
        """The ops a run measured (or meant to: every case it stored, with or without results)."""
        return [row[0] for row in self.db.execute(
            "SELECT DISTINCT op FROM cases WHERE run_id = ? ORDER BY op", (run_id,))]

    def samples(self, result_id: int) -> list[tuple[int, float]]:
        """A result's raw samples as (round, value_us), in the order they were taken."""
        if self._row_per_sample:
            return [tuple(r) for r in self.db.execute(
                "SELECT round, value_us FROM main.samples WHERE result_id = ? ORDER BY rowid", (result_id,))]
        row = self.db.execute("SELECT rounds, values_us, values_codec FROM result_samples WHERE result_id = ?",
                              (result_id,)).fetchone()
        return unpack_samples(row[0], decode_values(row[1], row[2])) if row else []


def pack_samples(samples: Iterable[tuple[int, float]]) -> tuple[bytes, bytes]:
    """(round, count) runs and the values of a result's samples, as two little-endian blobs.

    One row of two blobs a result, where a row a sample cost the store about 30 bytes a sample
    with its index: most of a store's size."""
    runs, values = array.array("i"), array.array("d")
    for round_, value in samples:
        if runs and runs[-2] == round_:
            runs[-1] += 1
        else:
            runs.extend((round_, 1))
        values.append(value)
    if sys.byteorder != "little":
        runs.byteswap()
        values.byteswap()
    return runs.tobytes(), values.tobytes()


def unpack_samples(rounds: bytes, values_us: bytes) -> list[tuple[int, float]]:
    runs, values = array.array("i", rounds), array.array("d", values_us)
    if sys.byteorder != "little":
        runs.byteswap()
        values.byteswap()
    each_round = [round_ for round_, count in zip(runs[::2], runs[1::2]) for _ in range(count)]
    if len(each_round) != len(values):
        raise StoreError(f"a stored result has {len(each_round)} sample rounds for {len(values)} values: it is damaged")
    return list(zip(each_round, values))


def encode_values(values: bytes) -> bytes:
    return zlib.compress(values, 9)


def decode_values(blob: bytes, codec: str | None) -> bytes:
    """A result's packed values as stored under ``codec`` (NULL: as they are)."""
    if codec is None:
        return blob
    if codec != SAMPLES_CODEC:
        raise StoreError(f"a stored result's samples are in {codec!r}, which this Mage cannot read")
    try:
        return zlib.decompress(blob)
    except zlib.error as error:
        raise StoreError(f"a stored result's samples cannot be decompressed ({error}): it is damaged") from None


def insert_samples(db: sqlite3.Connection, result_id: int, samples: Iterable[tuple[int, float]]) -> None:
    samples = list(samples)
    if samples:
        rounds, values = pack_samples(samples)
        db.execute("INSERT INTO result_samples (result_id, rounds, values_us, values_codec) VALUES (?, ?, ?, ?)",
                   (result_id, rounds, encode_values(values), SAMPLES_CODEC))


def run_fingerprint(started_at: str, env: dict, command: str, pid, salt) -> str:
    """A run's identity across stores: when, where (GPU UUID, else hostname), what, which process.

    New runs are salted with the nanosecond clock at their start, so two runs begun in the same second
    by one process differ; runs stored before schema version 2 are salted with their id in that store.
    """
    where = env.get("uuid") or env.get("hostname") or ""
    text = "|".join(str(part) for part in (started_at, where, command, pid, salt))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def insert_context(db: sqlite3.Connection, run_id: int, results: list[tuple], shares: list[tuple]) -> None:
    """Insert block results and op shares (values in BLOCK_RESULT_FIELDS / BLOCK_SHARE_FIELDS order) inside the
    caller's transaction: Store.add_context and an import (mage.transfer) write them the same way."""
    for table, columns, values in (("block_results", BLOCK_RESULT_FIELDS, results),
                                   ("block_shares", BLOCK_SHARE_FIELDS, shares)):
        db.executemany(f"INSERT INTO {table} (run_id, {', '.join(columns)})"
                       f" VALUES (?, {', '.join('?' * len(columns))})", [(run_id, *row) for row in values])


def claim_is_live(run) -> bool:
    """Whether a run row is held by a live process: running, unfinished, its heartbeat recent, and, on
    this host, its pid alive (a run stored before claims has only its pid)."""
    if run["status"] != "running" or run["finished_at"] is not None:
        return False
    heartbeat = run["heartbeat_at"]
    if heartbeat is not None and time.time() - datetime.fromisoformat(heartbeat).timestamp() > CLAIM_TIMEOUT_S:
        return False
    if run["owner_host"] in (None, HOST):
        return _alive(run["pid"])
    return heartbeat is not None  # another host's process cannot be seen: only its heartbeat


def describe_claim(run) -> str:
    """Who holds a run, in words: 'process 123 on host h since … (heartbeat …)'."""
    return (f"process {run['pid']} on {run['owner_host'] or HOST} since {run['claimed_at'] or run['started_at']}"
            f" (last heartbeat {run['heartbeat_at'] or 'never'})")


def _connect(path: Path, read_only: bool) -> sqlite3.Connection:
    """Open SQLite on ``path``; every reason it cannot be, as one StoreError naming the file."""
    try:
        path.resolve(strict=False)
        mode = path.stat().st_mode if path.exists() else None
    except (OSError, RuntimeError) as error:  # a symlink loop: RuntimeError before Python 3.13
        raise StoreError(f"cannot open {path}: {getattr(error, 'strerror', None) or error}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise StoreError(f"{path} is a directory, not a Mage store")
    if mode is not None and not stat.S_ISREG(mode):  # SQLite would block on a FIFO, write beside /dev/null
        raise StoreError(f"{path} is not a regular file (a device, FIFO or socket), not a Mage store")
    if read_only:
        if not path.exists():
            raise StoreError(f"no store at {path}")
        target = f"{path.resolve().as_uri()}?mode=ro"
        wal = path.with_name(path.name + "-wal")
        if not os.access(path.resolve().parent, os.W_OK) and not (wal.exists() and wal.stat().st_size):
            # A read-only mount: SQLite cannot create the WAL index a read-only open of a WAL store needs,
            # and nothing can write the store there, so it is read as immutable.
            target += "&immutable=1"
    else:
        folder = path.resolve().parent
        if not folder.is_dir():
            raise StoreError(f"cannot create a store at {path}: the folder {folder} does not exist")
        if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise StoreError(f"{path} cannot be written (read-only); mage run and mage import need a writable "
                             "store, the commands that only read can read it where it is")
        target = path.resolve().as_uri()
    try:
        # Threads may share it (an isolated run's GPU slots): each use is under its owner's lock.
        return sqlite3.connect(target, uri=True, timeout=30, check_same_thread=False)
    except sqlite3.Error as error:
        raise StoreError(f"cannot open {path}: {explain_fault(error)}") from None


def _refuse_damaged(db: sqlite3.Connection, path: Path) -> None:
    """Refuse to write into a store whose pages are damaged: a run started there could not be stored whole."""
    problems = [" ".join(row[0].split()) for row in db.execute("PRAGMA quick_check(3)")]  # SQLite's have newlines
    if problems != ["ok"]:
        raise StoreError(f"{path} is damaged ({'; '.join(problems)}); nothing is written to it. Keep a copy, then "
                         f"recover what it holds with: sqlite3 {path} .recover | sqlite3 recovered.db")


def explain_fault(error: sqlite3.Error) -> str:
    text = str(error)
    known = {"file is not a database": "it is not an SQLite database",
             "database disk image is malformed": "it is damaged or truncated",
             "database or disk is full": "the disk is full",
             "attempt to write a readonly database": "it is read-only"}
    return known.get(text, text)


def _read_as_current(db: sqlite3.Connection) -> None:
    """Let a read-only connection read an older store as the current schema, writing nothing to it: a
    TEMP view (the temp schema lives with the connection, and unqualified names find it first) adds
    each missing column as NULL, and a TEMP table stands in for a table created since."""
    for table, added in ADDED_COLUMNS.items():
        present = {row[1] for row in db.execute(f"PRAGMA main.table_info({table})")}
        missing = [name for name, _ in added if name not in present]
        if present and missing:
            db.execute(f"CREATE TEMP VIEW {table} AS SELECT *, {', '.join(f'NULL AS {name}' for name in missing)}"
                       f" FROM main.{table}")
    if "family" not in {row[1] for row in db.execute("PRAGMA main.table_info(implementations)")}:
        _read_identity(db)
    tables = {row[0] for row in db.execute("SELECT name FROM main.sqlite_master WHERE type = 'table'")}
    for statement in re.finditer(r"CREATE TABLE IF NOT EXISTS (\w+) \(.*?\n\);", SCHEMA, re.S):
        if statement[1] not in tables:
            db.execute(statement[0].replace("CREATE TABLE", "CREATE TEMP TABLE", 1))


def _read_identity(db: sqlite3.Connection) -> None:
    """Implementations of a store from before schema 9, read with the identity _add_identity would give them."""
    db.create_function("legacy_identity", 3, lambda backend, name, part: identity.from_legacy(backend, name)[part],
                       deterministic=True)
    db.execute("CREATE TEMP VIEW implementations AS SELECT id, run_id, op,"
               " legacy_identity(backend, name, 2) AS name, variant, precision,"
               " legacy_identity(backend, name, 0) AS family, legacy_identity(backend, name, 1) AS strategy,"
               " backend = 'eager' AS baseline,"
               " CASE WHEN legacy_identity(backend, name, 1) = 'default' THEN legacy_identity(backend, name, 0)"
               " ELSE legacy_identity(backend, name, 0) || '.' || legacy_identity(backend, name, 1) END AS backend"
               " FROM main.implementations")


def _migrate(db: sqlite3.Connection) -> None:
    """Upgrade a store to SCHEMA_VERSION in one transaction; PRAGMA user_version records the version.

    1 → 2: runs gain ``fingerprint`` (backfilled, unique) and ``hypothesis``; the ``predictions``
    table is created by SCHEMA itself.
    2 → 3: results gain ``suspect`` (NULL for results stored before suspects were flagged).
    3 → 4: results gain ``host_min_us`` and ``host_max_us`` (NULL for results stored before).
    4 → 5: results gain ``sm_clock_min_mhz``, ``sm_clock_max_mhz`` and ``clock_events`` (NULL before).
    5 → 6: results gain ``tuning`` (NULL before, and for implementations that autotune nothing).
    6 → 7: runs gain the claim ``owner_host``, ``claimed_at`` and ``heartbeat_at`` (NULL before: such a
    run's claim is its pid alone).
    7 → 8: results gain ``span_rse`` and ``noisy`` (NULL before, and for results without spans).
    8 → 9: implementations gain ``family``, ``strategy`` and ``baseline``. Old backends map to a family
    and strategy (mage.identity.LEGACY_BACKENDS: triton-split → triton.split, compile-default →
    compile, compile-max-autotune → compile.max-autotune, rust-cubecl → cubecl; any other backend is
    its own family with the default strategy), and their names are renamed to match
    (``triton-split/outgoing/tf32`` → ``triton.split/outgoing/tf32``), so history and compare line up
    old and new runs. Eager rows were the baseline of every op then: they get baseline 1.
    9 → 10: results gain ``memory_floor_us`` and ``compute_floor_us``, the floors at the device's peaks (NULL before).
    10 → 11: the ``block_results`` and ``block_shares`` tables of context runs, created by SCHEMA (empty before).
    11 → 12: cases gain ``stats_json``, the spec's facts about the case's inputs (OpSpec.case_stats; NULL before).
    12 → 13: results gain ``gpu_index`` and ``gpu_uuid``, the GPU that measured each (NULL before).
    13 → 14: the ``samples`` table (a row a sample) becomes ``result_samples`` (a row a result, its rounds
    and values packed: pack_samples), in the same order; the old table is dropped.
    14 → 15: result_samples gain ``values_codec``; the values stored as they were are compressed (SAMPLES_CODEC),
    bit for bit the same once read.
    15 → 16: block_results gain ``kernel_times``, a block call's kernels by time (NULL before).
    """
    if db.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        for table, added in ADDED_COLUMNS.items():
            columns = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            for name, kind in added:
                if name not in columns:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
        legacy = db.execute("SELECT id, started_at, command, pid, env_json FROM runs WHERE fingerprint IS NULL")
        for run_id, started_at, command, pid, env_json in legacy.fetchall():
            fingerprint = run_fingerprint(started_at, json.loads(env_json or "{}"), command, pid, f"id{run_id}")
            db.execute("UPDATE runs SET fingerprint = ? WHERE id = ?", (fingerprint, run_id))
        db.execute("CREATE UNIQUE INDEX IF NOT EXISTS runs_by_fingerprint ON runs(fingerprint)")
        if "family" not in {row[1] for row in db.execute("PRAGMA table_info(implementations)")}:
            _add_identity(db)
        if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'samples'").fetchone():
            _pack_row_samples(db)
        _compress_samples(db)
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


def _compress_samples(db: sqlite3.Connection) -> None:
    """Schema 15's compressed values, from the values stored as they are (see _migrate)."""
    stored = db.execute("SELECT result_id, values_us FROM result_samples WHERE values_codec IS NULL").fetchall()
    db.executemany("UPDATE result_samples SET values_us = ?, values_codec = ? WHERE result_id = ?",
                   [(encode_values(values), SAMPLES_CODEC, result_id) for result_id, values in stored])


def _pack_row_samples(db: sqlite3.Connection) -> None:
    """Schema 14's packed samples, from the row-a-sample table of before (see _migrate)."""
    result_id, taken = None, []
    for row_result, round_, value in db.execute("SELECT result_id, round, value_us FROM samples"
                                                " ORDER BY result_id, rowid").fetchall():
        if row_result != result_id and taken:
            insert_samples(db, result_id, taken)
            taken = []
        result_id = row_result
        taken.append((round_, value))
    insert_samples(db, result_id, taken)
    db.execute("DROP TABLE samples")


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
