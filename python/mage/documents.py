"""What a run document (mage.transfer) must hold, checked field by field before anything is written.

Every field is checked: its type, finite numbers (never NaN or infinity) and non-negative ones where
they measure something, known values of status, clock, contract, path and cache, integer ranges that
SQLite can hold, and, for the free-form JSON objects (env, env_end, method, ceilings, a case's
params), a bounded nesting depth and size. References must resolve: each result names a case and an
implementation of its own run. A field this Mage does not know is refused rather than dropped.
The result fields and their types come from mage.store.Result, so a column added there is checked too;
a context run's block results and op shares (optional: documents from before schema 11 have none) are
checked from mage.store.BlockResult and BlockOpShare the same way, each key given once and each share
naming a block result of its run.
A problem is one DocumentError naming the run, the field path and what is wrong, e.g.
``run N (runs[0]): runs[0].results[12].samples.value_us[3] is NaN, not a finite number``, N the run's id in its source.
"""

from __future__ import annotations

import dataclasses
import json
import math
from datetime import datetime

from mage import experiments
from mage.errors import MageError
from mage.measure.method import CACHES, PATHS
from mage.store import BLOCK_KINDS, BlockOpShare, BlockResult, Result, read_kernel_times

IDENTITY_FIELDS = ("family", "strategy", "baseline")  # an implementation's identity (store schema 9)
MEASURED_CEILINGS = ("copy_gbps", "matmul_ieee_tflops", "matmul_tf32_tflops")  # mage.measure.ceilings.measure
MAX_DEPTH = 8  # nesting of env, method, ceilings and params
MAX_JSON_CHARS = 1_000_000  # each of those, serialized
MAX_TEXT_CHARS = 100_000
MAX_INTEGER = 2**63 - 1  # SQLite's INTEGER
RUN_STATUSES = ("running", "complete", "incomplete")
CLOCKS = ("gpu", "cpu")
STATUSES = ("pass", "fail", "skip")
RESULT_CHOICES = {"path": PATHS, "cache": CACHES, "status": STATUSES, "contract": ("pass", "fail")}
BLOCK_CHOICES = {"path": ("single", "graph"), "status": STATUSES, "kind": BLOCK_KINDS}


class DocumentError(MageError):
    """A run document does not hold what mage export --run-json writes."""


def validate(document) -> None:
    """Check a whole document, ``{"format", "version", "runs": [...]}``; a DocumentError at the first problem."""
    _object(document, "the document", {"format", "version", "runs"})
    for index, entry in enumerate(_list(document.get("runs"), "runs")):
        where = f"runs[{index}]"
        try:
            _run_entry(entry, where)
        except DocumentError as error:
            run = entry.get("run") if isinstance(entry, dict) else None
            source = run.get("source_id") if isinstance(run, dict) else None
            name = f"run {source} ({where})" if isinstance(source, int) else where
            raise DocumentError(f"{name}: {error}") from None


def _run_entry(entry, where: str) -> None:
    _object(entry, where, {"run", "predictions", "cases", "implementations", "results", "context_results",
                           "context_shares"})
    run = _object(entry.get("run"), f"{where}.run", {"fingerprint", "started_at", "finished_at", "status", "clock",
                                                     "suite", "command", "pid", "env", "env_end", "method",
                                                     "ceilings", "hypothesis", "source_id"})
    at = f"{where}.run"
    _text(run.get("fingerprint"), f"{at}.fingerprint", optional=True)
    _timestamp(run.get("started_at"), f"{at}.started_at")
    _timestamp(run.get("finished_at"), f"{at}.finished_at", optional=True)
    _choice(run.get("status"), f"{at}.status", RUN_STATUSES)
    _choice(run.get("clock"), f"{at}.clock", CLOCKS)
    for key in ("suite", "command"):
        _text(run.get(key), f"{at}.{key}")
    _text(run.get("hypothesis"), f"{at}.hypothesis", optional=True)
    _integer(run.get("pid"), f"{at}.pid", optional=True)
    _integer(run.get("source_id"), f"{at}.source_id", optional=True)
    for key in ("env", "env_end", "method"):
        _json_object(run.get(key), f"{at}.{key}", optional=key != "env")
    ceilings = _json_object(run.get("ceilings"), f"{at}.ceilings", optional=True) or {}
    for key in MEASURED_CEILINGS if ceilings else ():  # a GPU run's ceilings hold every rate it measured
        if key not in ceilings:
            raise DocumentError(f"{at}.ceilings has no {key}")
    for key, value in ceilings.items():  # reports compute with them: numbers, and the peaks' one note
        if key == "peak_note":
            _text(value, f"{at}.ceilings.{key}")
        else:
            _number(value, f"{at}.ceilings.{key}", optional=True)
    cases = _named_entries(entry, where, "cases", {"op", "name", "suite", "params", "seed", "stats"})
    request = (run.get("method") or {}).get("request") or {}
    ops = {op for op, _ in cases} | set(request.get("ops") or ()) if isinstance(request, dict) else set()
    for i, text in enumerate(_list(entry.get("predictions", []), f"{where}.predictions")):
        try:  # mage show judges them: one it cannot read would stop it
            experiments.parse(_text(text, f"{where}.predictions[{i}]"), ops)
        except experiments.PredictionError as error:
            raise DocumentError(f"{where}.predictions[{i}]: {error}") from None
    for i, case in enumerate(entry["cases"]):
        _text(case.get("suite"), f"{where}.cases[{i}].suite")
        _json_object(case.get("params"), f"{where}.cases[{i}].params")
        _json_object(case.get("stats"), f"{where}.cases[{i}].stats", optional=True)  # none before schema 12
        _integer(case.get("seed"), f"{where}.cases[{i}].seed")
    impls = _named_entries(entry, where, "implementations", {"op", "name", "backend", "variant", "precision",
                                                             *IDENTITY_FIELDS})
    for i, impl in enumerate(entry["implementations"]):
        at = f"{where}.implementations[{i}]"
        for key in ("backend", "variant", "precision"):
            _text(impl.get(key), f"{at}.{key}")
        # Documents written before schema 9 have none of the identity fields; later ones have all three.
        if any(key in impl for key in IDENTITY_FIELDS):
            _text(impl.get("family"), f"{at}.family")
            _text(impl.get("strategy"), f"{at}.strategy")
            if not isinstance(impl.get("baseline"), bool):
                raise DocumentError(f"{at}.baseline is {_describe(impl.get('baseline'))}, not true or false")
    measured = set()
    for i, result in enumerate(_list(entry.get("results"), f"{where}.results")):
        _result(result, f"{where}.results[{i}]", cases, impls)
        key = tuple(result.get(name) for name in ("op", "case", "impl", "path", "cache"))
        if key in measured:  # one measurement of each, as a run stores them
            raise DocumentError(f"{where}.results[{i}] repeats {'/'.join(map(str, key))}")
        measured.add(key)
    _context(entry, where)


def _named_entries(entry: dict, where: str, key: str, fields: set) -> set:
    """The (op, name) of every case or implementation of a run, each given once."""
    names = set()
    for i, item in enumerate(_list(entry.get(key), f"{where}.{key}")):
        at = f"{where}.{key}[{i}]"
        _object(item, at, fields)
        name = (_text(item.get("op"), f"{at}.op"), _text(item.get("name"), f"{at}.name"))
        if name in names:
            raise DocumentError(f"{at} repeats {'/'.join(name)}")
        names.add(name)
    return names


def _field_types(record: type) -> dict[str, tuple[type, bool]]:
    """(type, whether it may be null) of every field of a stored record (mage.store.Result, BlockResult, …)."""
    types = {"float": float, "int": int, "str": str, "bool": bool}
    return {f.name: (types[f.type.split("|")[0].strip()], "None" in f.type) for f in dataclasses.fields(record)}


RESULT_TYPES = _field_types(Result)
BLOCK_RESULT_TYPES = _field_types(BlockResult)
BLOCK_SHARE_TYPES = _field_types(BlockOpShare)


def _result(result, at: str, cases: set, impls: set) -> None:
    _object(result, at, {"op", "case", "impl", "created_at", "samples", *RESULT_TYPES})
    op = _text(result.get("op"), f"{at}.op")
    if (op, _text(result.get("case"), f"{at}.case")) not in cases:
        raise DocumentError(f"{at}.case names {op}/{result['case']}, which is not among the run's cases")
    if (op, _text(result.get("impl"), f"{at}.impl")) not in impls:
        raise DocumentError(f"{at}.impl names {op}/{result['impl']}, which is not among the run's implementations")
    _timestamp(result.get("created_at"), f"{at}.created_at", optional=True)
    _fields(result, at, RESULT_TYPES, RESULT_CHOICES)
    samples = result.get("samples")
    if samples is None:
        return
    _object(samples, f"{at}.samples", {"round", "value_us"})
    rounds = _list(samples.get("round"), f"{at}.samples.round")
    values = _list(samples.get("value_us"), f"{at}.samples.value_us")
    if len(rounds) != len(values):
        raise DocumentError(f"{at}.samples has {len(rounds)} rounds for {len(values)} values")
    for i, (round_, value) in enumerate(zip(rounds, values)):
        _integer(round_, f"{at}.samples.round[{i}]", high=2**31 - 1)
        _number(value, f"{at}.samples.value_us[{i}]", minimum=0)


def _fields(record: dict, at: str, types: dict[str, tuple[type, bool]], choices: dict[str, tuple]) -> None:
    """Every field of a stored record by its type: known values, finite non-negative numbers, integer ranges."""
    for name, (kind, optional) in types.items():
        value, where = record.get(name), f"{at}.{name}"
        if name in choices:
            _choice(value, where, choices[name], optional)
        elif kind is float:
            _number(value, where, optional, minimum=0)
        elif kind is int:
            _integer(value, where, optional)
        elif kind is bool:  # stored as SQLite's 0 or 1
            _integer(value, where, optional, high=1)
        else:
            _text(value, where, optional)


def _context(entry: dict, where: str) -> None:
    """A context run's block results and op shares: each key once, each share of a stored block result."""
    assignments = set()
    for key, types, choices, last in (("context_results", BLOCK_RESULT_TYPES, BLOCK_CHOICES, "path"),
                                      ("context_shares", BLOCK_SHARE_TYPES, {}, "site")):
        seen = set()
        for i, record in enumerate(_list(entry.get(key, []), f"{where}.{key}")):
            at = f"{where}.{key}[{i}]"
            _object(record, at, set(types))
            _fields(record, at, types, choices)
            if record.get("kernel_times") is not None:
                try:
                    read_kernel_times(record["kernel_times"])
                except ValueError as error:
                    raise DocumentError(f"{at}.kernel_times: {error}") from None
            name = (record["block"], record["precision"], record["assignment"], record[last])
            if name in seen:
                raise DocumentError(f"{at} repeats {' '.join(name)}")
            seen.add(name)
            if key == "context_results":
                assignments.add(name[:3])
            elif name[:3] not in assignments:
                raise DocumentError(f"{at} names {' '.join(name[:3])}, which is not among the run's context results")


# One field each


def _describe(value) -> str:
    text = json.dumps(value, allow_nan=True) if not isinstance(value, (dict, list)) else type(value).__name__
    return text if len(text) <= 40 else text[:40] + "…"


def _object(value, at: str, fields: set | None = None) -> dict:
    if not isinstance(value, dict):
        raise DocumentError(f"{at} is {_describe(value)}, not an object")
    unknown = sorted(set(value) - fields) if fields is not None else []
    if unknown:
        raise DocumentError(f"{at}.{unknown[0]} is not a field this Mage knows")
    return value


def _list(value, at: str) -> list:
    if not isinstance(value, list):
        raise DocumentError(f"{at} is {_describe(value)}, not a list")
    return value


def _text(value, at: str, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise DocumentError(f"{at} is {_describe(value)}, not a string")
    if len(value) > MAX_TEXT_CHARS:
        raise DocumentError(f"{at} is {len(value):,} characters long, more than {MAX_TEXT_CHARS:,}")
    return value


def _choice(value, at: str, choices: tuple, optional: bool = False) -> None:
    if value is None and optional:
        return
    if value not in choices:
        raise DocumentError(f"{at} is {_describe(value)}, not one of {', '.join(choices)}")


def _timestamp(value, at: str, optional: bool = False) -> None:
    if _text(value, at, optional) is None:
        return
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise DocumentError(f"{at} is {_describe(value)}, not an ISO 8601 time") from None


def _number(value, at: str, optional: bool = False, minimum: float | None = None) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DocumentError(f"{at} is {_describe(value)}, not a number")
    if not math.isfinite(value):
        raise DocumentError(f"{at} is {value}, not a finite number")
    if minimum is not None and value < minimum:
        raise DocumentError(f"{at} is {value}, below {minimum}")


def _integer(value, at: str, optional: bool = False, high: int = MAX_INTEGER) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise DocumentError(f"{at} is {_describe(value)}, not an integer")
    if not 0 <= value <= high:
        raise DocumentError(f"{at} is {value}, outside 0 to {high}")


def _json_object(value, at: str, optional: bool = False) -> dict | None:
    """A free-form object: bounded depth and size, finite numbers throughout."""
    if value is None and optional:
        return None
    _object(value, at)

    def walk(item, where: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise DocumentError(f"{where} is nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            for key, inner in item.items():
                walk(inner, f"{where}.{key}", depth + 1)
        elif isinstance(item, list):
            for i, inner in enumerate(item):
                walk(inner, f"{where}[{i}]", depth + 1)
        elif isinstance(item, float) and not math.isfinite(item):
            raise DocumentError(f"{where} is {item}, not a finite number")

    walk(value, at, 1)
    size = len(json.dumps(value))
    if size > MAX_JSON_CHARS:
        raise DocumentError(f"{at} is {size:,} characters of JSON, more than {MAX_JSON_CHARS:,}")
    return value
