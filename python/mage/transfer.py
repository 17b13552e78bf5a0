"""Whole runs as JSON documents, to move them between stores (the GPU machine's into a local one).

A document holds one run or several:

    {"format": "mage-runs", "version": 1, "runs": [RUN, …]}
    RUN = {"run": {fingerprint, started_at, finished_at, status, clock, suite, command, pid, env, env_end,
                   method, ceilings, hypothesis, source_id},
           "predictions": [text, …],
           "cases": [{op, name, suite, params, seed}, …],
           "implementations": [{op, name, backend, variant, precision, family, strategy, baseline}, …],
           "results": [{op, case, impl, <Store's result fields>, created_at,
                        "samples": {"round": [...], "value_us": [...]}}, …],
           "context_results": [{<mage.store.BlockResult's fields>}, …],
           "context_shares": [{<mage.store.BlockOpShare's fields>}, …]}

The two context lists are empty for a run that is not a context run, and absent from documents
written before store schema 11 (read as empty).

Importing merges: a run whose fingerprint the store already holds is skipped, so importing a file
twice, or a run back into the store it came from, changes nothing. A document is checked whole
first (mage.documents: every field, every reference), then all its new runs are written in one
transaction: a document is stored entirely or not at all. A document written before implementations
had a family (store schema 9) is read as the store's migration reads old rows: its backends map to
family and strategy and its implementations are renamed to match. A file ending in .gz is read and
written gzip-compressed (the samples dominate a document and gzip shrinks it about threefold: Parquet
would save little and add a dependency).
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import zlib
from pathlib import Path

from mage import atomic, documents, identity
from mage.errors import MageError
from mage.store import (BLOCK_RESULT_FIELDS, BLOCK_SHARE_FIELDS, RESULT_FIELDS, Store, insert_context, insert_samples,
                        run_fingerprint)

# Larger than any run's document (samples are packed); a gzip of whitespace that expands past it is refused
# before it fills memory.
MAX_DOCUMENT_BYTES = 256 << 20

FORMAT, VERSION = "mage-runs", 1
IMPLEMENTATION_FIELDS = ("op", "name", "backend", "variant", "precision", "family", "strategy")
RUN_FIELDS = ("fingerprint", "started_at", "finished_at", "status", "clock", "suite", "command", "pid", "env",
              "env_end", "method", "ceilings", "hypothesis")


def export_run(store: Store, run_id: int) -> dict:
    """One run as a self-contained dict: run, predictions, cases, implementations, results with samples."""
    run = store.run(run_id)
    if run["status"] == "running":
        raise MageError(f"run {run_id} is still running; export it once it has ended")
    document = {"run": {key: run.get(key) for key in RUN_FIELDS} | {"source_id": run_id},
                "predictions": store.predictions(run_id)}
    document["cases"] = [
        {"op": r["op"], "name": r["name"], "suite": r["suite"], "params": json.loads(r["params_json"]),
         "seed": r["seed"], "stats": json.loads(r["stats_json"] or "null")}
        for r in store.db.execute("SELECT * FROM cases WHERE run_id = ? ORDER BY id", (run_id,))]
    document["implementations"] = [
        {key: r[key] for key in IMPLEMENTATION_FIELDS} | {"baseline": bool(r["baseline"])}
        for r in store.db.execute("SELECT * FROM implementations WHERE run_id = ? ORDER BY id", (run_id,))]
    results = store.db.execute(
        f"""SELECT res.id, c.op, c.name AS "case", i.name AS impl, res.created_at,
                   {', '.join('res.' + f for f in RESULT_FIELDS)}
            FROM results res JOIN cases c ON c.id = res.case_id JOIN implementations i ON i.id = res.impl_id
            WHERE res.run_id = ? ORDER BY res.id""", (run_id,)).fetchall()
    document["results"] = []
    for r in results:
        samples = store.samples(r["id"])
        document["results"].append(
            {key: r[key] for key in ("op", "case", "impl", "created_at", *RESULT_FIELDS)}
            | {"samples": {"round": [s[0] for s in samples], "value_us": [s[1] for s in samples]}})
    document["context_results"] = [dataclasses.asdict(r) for r in store.context_results(run_id)]
    document["context_shares"] = [dataclasses.asdict(s) for s in store.context_shares(run_id)]
    return document


def export_runs(store: Store, run_ids: list[int]) -> dict:
    return {"format": FORMAT, "version": VERSION, "runs": [export_run(store, run_id) for run_id in run_ids]}


def write(document: dict, path: Path) -> None:
    """Write ``document`` to ``path`` whole or not at all (mage.atomic); gzip-compressed if it ends in .gz."""
    data = json.dumps(document, separators=(",", ":")).encode()
    with atomic.replacing(path, binary=True) as out:
        if path.suffix == ".gz":
            with gzip.GzipFile(filename=path.name, mode="wb", fileobj=out) as compressed:
                compressed.write(data)
        else:
            out.write(data)


def read(path: Path) -> dict:
    """The document in ``path``, checked whole (mage.documents); one MageError naming the file otherwise."""
    try:
        with (gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")) as source:
            data = source.read(MAX_DOCUMENT_BYTES + 1)
        if len(data) > MAX_DOCUMENT_BYTES:
            raise MageError(f"{path} holds more than {MAX_DOCUMENT_BYTES >> 20} MiB of JSON"
                            f"{' once decompressed' * (path.suffix == '.gz')}: not a Mage run document")
        document = json.loads(data.decode("utf-8"))
        json.dumps(document, ensure_ascii=False).encode("utf-8")  # a lone surrogate (\ud800) SQLite cannot store
    except UnicodeEncodeError as error:
        raise MageError(f"{path} holds text that is not Unicode ({error.object[error.start:error.end]!a} is a lone "
                        "surrogate); nothing of it was stored") from None
    except OSError as error:
        raise MageError(f"cannot read {path}: {error.strerror or error}") from None
    except (ValueError, EOFError, zlib.error, RecursionError) as error:  # not JSON, cut short, nested too deep
        raise MageError(f"{path} is not a Mage run document (JSON): {_first_line(error)}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise MageError(f"{path} is not a Mage run document: expected \"format\": \"{FORMAT}\" "
                        "(write one with mage export RUN --run-json)")
    if document.get("version") != VERSION:
        raise MageError(f"{path} is a version {document.get('version')} run document; this Mage reads "
                        f"version {VERSION}")
    try:
        documents.validate(document)
    except documents.DocumentError as error:
        raise MageError(f"{path}: {error}; nothing of it was stored") from None
    return document


def _first_line(error: BaseException) -> str:
    return (str(error) or type(error).__name__).splitlines()[0]


def fingerprint_of(run: dict) -> str:
    """The run's fingerprint; a document without one gets the one its source store would have given it."""
    return run.get("fingerprint") or run_fingerprint(run["started_at"], run.get("env") or {}, run["command"],
                                                     run.get("pid"), f"id{run.get('source_id')}")


def import_runs(store: Store, document: dict) -> list[tuple[int | None, int, bool]]:
    """Merge every run of ``document``, checked first (mage.documents), in one transaction: all its new runs
    are stored or none. (source id, local id, whether it was new) per run."""
    documents.validate(document)
    out = []
    # BEGIN IMMEDIATE: no other import can store a fingerprint between this one's check and its insert.
    with store.transaction(immediate=True):
        for entry in document["runs"]:
            run = entry["run"]
            fingerprint = fingerprint_of(run)
            existing = store.run_by_fingerprint(fingerprint)  # also a run given twice in this document
            if existing is None:
                out.append((run.get("source_id"), _insert_run(store.db, entry, fingerprint), True))
            else:
                out.append((run.get("source_id"), existing, False))
    return out


def _insert_run(db, entry: dict, fingerprint: str) -> int:
    """Insert one checked run, inside the caller's transaction."""
    run = entry["run"]
    run_id = db.execute(
        "INSERT INTO runs (started_at, finished_at, status, clock, suite, command, pid, env_json, env_end_json,"
        " method_json, ceilings_json, fingerprint, hypothesis) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (run["started_at"], run.get("finished_at") or run["started_at"],
         # A run still 'running' in its source is finished here: nothing will ever end it in this store.
         "incomplete" if run["status"] == "running" else run["status"], run["clock"], run["suite"],
         run["command"], run.get("pid"), json.dumps(run.get("env") or {}), json.dumps(run.get("env_end") or {}),
         json.dumps(run.get("method") or {}), json.dumps(run.get("ceilings") or {}), fingerprint,
         run.get("hypothesis")),
    ).lastrowid
    db.executemany("INSERT INTO predictions (run_id, position, text) VALUES (?, ?, ?)",
                   [(run_id, i, text) for i, text in enumerate(entry.get("predictions") or [])])
    cases, impls = {}, {}
    for case in entry["cases"]:
        cases[case["op"], case["name"]] = db.execute(
            "INSERT INTO cases (run_id, op, name, suite, params_json, seed, stats_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (run_id, case["op"], case["name"], case["suite"], json.dumps(case["params"]), case["seed"],
             None if case.get("stats") is None else json.dumps(case["stats"])),
        ).lastrowid
    for impl in entry["implementations"]:
        impl = _with_identity(impl)
        impls[impl["op"], impl["name"]] = impls[impl["op"], impl["stored_as"]] = db.execute(
            "INSERT INTO implementations (run_id, op, name, backend, variant, precision, family, strategy,"
            " baseline) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, impl["op"], impl["name"], impl["backend"], impl["variant"], impl["precision"],
             impl["family"], impl["strategy"], int(impl["baseline"])),
        ).lastrowid
    for result in entry["results"]:
        result_id = db.execute(
            f"INSERT INTO results (run_id, case_id, impl_id, {', '.join(RESULT_FIELDS)}, created_at)"
            f" VALUES (?, ?, ?, {', '.join('?' * len(RESULT_FIELDS))}, ?)",
            (run_id, cases[result["op"], result["case"]], impls[result["op"], result["impl"]],
             *(result.get(f) for f in RESULT_FIELDS), result.get("created_at") or run["started_at"]),
        ).lastrowid
        samples = result.get("samples") or {"round": [], "value_us": []}
        insert_samples(db, result_id, zip(samples["round"], samples["value_us"]))
    insert_context(db, run_id, [tuple(r.get(f) for f in BLOCK_RESULT_FIELDS) for r in entry.get("context_results", [])],
                   [tuple(s.get(f) for f in BLOCK_SHARE_FIELDS) for s in entry.get("context_shares", [])])
    return run_id


def _with_identity(impl: dict) -> dict:
    """``impl`` with family, strategy and baseline, derived as the store's migration does for a
    document from before schema 9; ``stored_as`` is the name its results refer to it by."""
    if "family" in impl:
        return impl | {"stored_as": impl["name"]}
    family, strategy, name = identity.from_legacy(impl["backend"], impl["name"])
    return impl | {"family": family, "strategy": strategy, "baseline": family == "eager", "name": name,
                   "backend": identity.backend_of(family, strategy), "stored_as": impl["name"]}
