"""Whole runs as JSON documents, to move them between stores (the GPU machine's into a local one).

A document holds one run or several:

    {"format": "mage-runs", "version": 1, "runs": [RUN, …]}
    RUN = {"run": {fingerprint, started_at, finished_at, status, clock, suite, command, pid, env, env_end,
                   method, ceilings, hypothesis, source_id},
           "predictions": [text, …],
           "cases": [{op, name, suite, params, seed}, …],
           "implementations": [{op, name, backend, variant, precision, family, strategy, baseline}, …],
           "results": [{op, case, impl, <Store's result fields>, created_at,
                        "samples": {"round": [...], "value_us": [...]}}, …]}

Importing merges: a run whose fingerprint the store already holds is skipped, so importing a file
twice, or a run back into the store it came from, changes nothing. A document written before
implementations had a family (store schema 9) is read as the store's migration reads old rows:
its backends map to family and strategy and its implementations are renamed to match. Each run is written in one
transaction. A file ending in .gz is read and written gzip-compressed (the samples dominate a document
and gzip shrinks it about threefold: Parquet would save little and add a dependency).
"""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

from mage import identity
from mage.errors import MageError
from mage.store import RESULT_FIELDS, Store, run_fingerprint

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
         "seed": r["seed"]}
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
    return document


def export_runs(store: Store, run_ids: list[int]) -> dict:
    return {"format": FORMAT, "version": VERSION, "runs": [export_run(store, run_id) for run_id in run_ids]}


def write(document: dict, path: Path) -> None:
    text = json.dumps(document, separators=(",", ":"))
    if path.suffix == ".gz":
        with gzip.open(path, "wt", encoding="utf-8") as out:
            out.write(text)
    else:
        path.write_text(text)


def read(path: Path) -> dict:
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8") as source:
                document = json.load(source)
        else:
            document = json.loads(path.read_text())
    except OSError as error:
        raise MageError(f"cannot read {path}: {error}") from None
    except (ValueError, EOFError) as error:
        raise MageError(f"{path} is not a Mage run document (JSON): {error}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise MageError(f"{path} is not a Mage run document: expected \"format\": \"{FORMAT}\" "
                        "(write one with mage export RUN --run-json)")
    if document.get("version") != VERSION:
        raise MageError(f"{path} is a version {document.get('version')} run document; this Mage reads "
                        f"version {VERSION}")
    return document


def fingerprint_of(run: dict) -> str:
    """The run's fingerprint; a document without one gets the one its source store would have given it."""
    return run.get("fingerprint") or run_fingerprint(run["started_at"], run.get("env") or {}, run["command"],
                                                     run.get("pid"), f"id{run.get('source_id')}")


def import_runs(store: Store, document: dict) -> list[tuple[int | None, int, bool]]:
    """Merge every run of ``document``: (source id, local id, whether it was new) per run."""
    out = []
    for entry in document.get("runs", []):
        try:
            out.append(_import_run(store, entry))
        except (KeyError, TypeError, sqlite3.IntegrityError) as error:
            source = (entry.get("run") or {}).get("source_id") if isinstance(entry, dict) else None
            raise MageError(f"run {source} of the document is malformed ({type(error).__name__}: {error}); "
                            "nothing of it was stored") from None
    return out


def _import_run(store: Store, entry: dict) -> tuple[int | None, int, bool]:
    run = entry["run"]
    fingerprint = fingerprint_of(run)
    existing = store.run_by_fingerprint(fingerprint)
    if existing is not None:
        return run.get("source_id"), existing, False
    try:
        return run.get("source_id"), _insert_run(store.db, entry, fingerprint), True
    except sqlite3.IntegrityError:
        existing = store.run_by_fingerprint(fingerprint)  # another import of it won the race
        if existing is None:
            raise
        return run.get("source_id"), existing, False


def _insert_run(db: sqlite3.Connection, entry: dict, fingerprint: str) -> int:
    run = entry["run"]
    with db:  # one transaction: a run arrives whole or not at all
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
                "INSERT INTO cases (run_id, op, name, suite, params_json, seed) VALUES (?, ?, ?, ?, ?, ?)",
                (run_id, case["op"], case["name"], case["suite"], json.dumps(case["params"]), case["seed"]),
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
            if len(samples["round"]) != len(samples["value_us"]):
                raise KeyError(f"samples of result {result['op']}/{result['case']}/{result['impl']} have "
                               f"{len(samples['round'])} rounds for {len(samples['value_us'])} values")
            db.executemany("INSERT INTO samples (result_id, round, value_us) VALUES (?, ?, ?)",
                           [(result_id, r, v) for r, v in zip(samples["round"], samples["value_us"])])
    return run_id


def _with_identity(impl: dict) -> dict:
    """``impl`` with family, strategy and baseline, derived as the store's migration does for a
    document from before schema 9; ``stored_as`` is the name its results refer to it by."""
    if "family" in impl:
        return impl | {"stored_as": impl["name"]}
    family, strategy, name = identity.from_legacy(impl["backend"], impl["name"])
    return impl | {"family": family, "strategy": strategy, "baseline": family == "eager", "name": name,
                   "backend": identity.backend_of(family, strategy), "stored_as": impl["name"]}
