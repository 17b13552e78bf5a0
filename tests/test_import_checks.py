"""mage import checks every field of a document before writing, and stores a document whole or not at all."""

import copy
import gzip
import json
import os

import pytest

from mage import transfer
from mage.errors import MageError
from mage.store import Store

from test_store_trust import mage_here
from test_transfer import store_run


@pytest.fixture
def document(tmp_path):
    source = Store(tmp_path / "gpu.db")
    return transfer.export_runs(source, [store_run(source), store_run(source)])


def counts(store):
    return [store.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table in ("runs", "cases", "implementations", "results", "result_samples", "predictions")]


def _set(document, path, value):
    *parents, last = path
    target = document
    for key in parents:
        target = target[key]
    target[last] = value


BAD_FIELDS = [
    (("runs", 0, "run", "env"), "H200", 'runs[0].run.env is "H200", not an object'),
    (("runs", 0, "results", 1, "samples", "value_us", 3), float("nan"),
     "runs[0].results[1].samples.value_us[3] is nan, not a finite number"),
    (("runs", 0, "results", 0, "kernel_us"), float("inf"), "runs[0].results[0].kernel_us is inf, not a finite"),
    (("runs", 0, "results", 0, "span_mean_us"), "40", 'runs[0].results[0].span_mean_us is "40", not a number'),
    (("runs", 0, "results", 0, "status"), "great", 'runs[0].results[0].status is "great", not one of pass, fail, skip'),
    (("runs", 0, "results", 0, "path"), "warp", "runs[0].results[0].path is \"warp\", not one of single, batch, graph"),
    (("runs", 0, "results", 0, "cache"), None, "runs[0].results[0].cache is null, not one of warm, cold"),
    (("runs", 0, "results", 0, "span_samples"), True, "runs[0].results[0].span_samples is true, not an integer"),
    (("runs", 0, "results", 0, "samples", "round", 0), -1, "runs[0].results[0].samples.round[0] is -1, outside"),
    (("runs", 0, "results", 0, "case"), "2048x2048", "runs[0].results[0].case names layernorm/2048x2048"),
    (("runs", 0, "results", 0, "colour"), "red", "runs[0].results[0].colour is not a field this Mage knows"),
    (("runs", 0, "run", "status"), "paused", 'runs[0].run.status is "paused", not one of running'),
    (("runs", 0, "run", "clock"), "tpu", 'runs[0].run.clock is "tpu", not one of gpu, cpu'),
    (("runs", 0, "run", "pid"), 2**64, "runs[0].run.pid is 18446744073709551616, outside 0 to"),
    (("runs", 0, "run", "started_at"), "yesterday", 'runs[0].run.started_at is "yesterday", not an ISO 8601 time'),
    (("runs", 0, "run", "ceilings", "copy_gbps"), "fast", 'runs[0].run.ceilings.copy_gbps is "fast", not a number'),
    (("runs", 0, "run", "ceilings"), {"copy_gbps": 4200.0}, "runs[0].run.ceilings has no matmul_ieee_tflops"),
    (("runs", 0, "run", "ceilings", "peak_note"), 3, "runs[0].run.ceilings.peak_note is 3, not a string"),
    (("runs", 0, "run", "method"), {"a": [[[[[[[[[1]]]]]]]]]}, "runs[0].run.method.a[0][0][0][0][0][0][0] is nested"),
    (("runs", 0, "run", "env", "notes"), "x" * 1_000_001, "runs[0].run.env is 1,000,099 characters of JSON, more than 1,000,000"),
    (("runs", 0, "cases", 0, "seed"), 1.5, "runs[0].cases[0].seed is 1.5, not an integer"),
    (("runs", 0, "predictions"), "kernel<6", 'runs[0].predictions is "kernel<6", not a list'),
    (("runs", 0, "implementations", 0, "baseline"), "yes", 'runs[0].implementations[0].baseline is "yes", not true'),
    (("runs", 0, "implementations", 0, "family"), None, "runs[0].implementations[0].family is null, not a string"),
    (("runs", 0, "implementations", 1), {"op": "layernorm", "name": "eager/affine/ieee", "backend": "eager",
                                         "variant": "affine", "precision": "ieee"}, "repeats layernorm/eager"),
]


@pytest.mark.parametrize("path, value, problem", BAD_FIELDS, ids=[".".join(map(str, f[0][2:])) for f in BAD_FIELDS])
def test_a_bad_field_is_refused_naming_run_field_and_problem(path, value, problem, document, tmp_path):
    bad = copy.deepcopy(document)
    _set(bad, path, value)
    local = Store(tmp_path / "local.db")
    with pytest.raises(MageError) as refused:
        transfer.import_runs(local, bad)
    assert str(refused.value).startswith("run 1 (runs[0]): ") and problem in str(refused.value), str(refused.value)
    assert counts(local) == [0] * 6


def test_an_exported_document_passes_every_check(document, tmp_path):
    local = Store(tmp_path / "local.db")
    assert [new for _, _, new in transfer.import_runs(local, document)] == [True, True]


def test_a_document_is_stored_whole_or_not_at_all(document, tmp_path, monkeypatch):
    local = Store(tmp_path / "local.db")
    bad = copy.deepcopy(document)
    bad["runs"][1]["results"][0]["rel_error"] = -1.0  # the second run is bad: the first is not stored either
    with pytest.raises(MageError, match=r"run 2 \(runs\[1\]\): runs\[1\].results\[0\].rel_error is -1.0, below 0"):
        transfer.import_runs(local, bad)
    assert counts(local) == [0] * 6
    inserted = []

    def fails_on_the_second_run(db, entry, fingerprint):  # a write that fails midway (a full disk)
        if inserted:
            raise OSError("No space left on device")
        inserted.append(real_insert(db, entry, fingerprint))
        return inserted[-1]

    real_insert = transfer._insert_run
    monkeypatch.setattr(transfer, "_insert_run", fails_on_the_second_run)
    with pytest.raises(OSError):
        transfer.import_runs(local, document)
    assert inserted and counts(local) == [0] * 6


@pytest.mark.parametrize("name, content", [
    ("random.json", os.urandom(2000)),
    ("random.json.gz", os.urandom(2000)),
    ("truncated.json.gz", gzip.compress(b'{"format": "mage-runs", "version": 1, "runs": []}' * 200)[:60]),
    ("list.json", b"[1, 2, 3]"),
    ("deep.json", b"[" * 100_000 + b"]" * 100_000),
    ("runs-not-a-list.json", json.dumps({"format": "mage-runs", "version": 1, "runs": {"a": 1}}).encode()),
    ("run-not-an-object.json", json.dumps({"format": "mage-runs", "version": 1, "runs": [{"run": "x"}]}).encode()),
], ids=lambda value: value if isinstance(value, str) else "")
def test_a_garbage_file_is_one_line_and_nothing_is_stored(name, content, tmp_path, monkeypatch, capsys):
    (tmp_path / name).write_bytes(content)
    good = tmp_path / "good.json"
    source = Store(tmp_path / "gpu.db")
    transfer.write(transfer.export_runs(source, [store_run(source)]), good)
    code, out, err = mage_here(monkeypatch, capsys, "import", str(good), str(tmp_path / name), "--db",
                               str(tmp_path / "local.db"))
    assert code == 2 and str(tmp_path / name) in err and "Traceback" not in err, err
    assert "imported" not in out  # the good file before it was not stored either: every file is checked first
    assert counts(Store(tmp_path / "local.db")) == [0] * 6
