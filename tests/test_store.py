"""The store keeps every finished result, through Ctrl-C and through a killed process."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest
import torch

from mage.errors import Interrupted
from mage.measure.method import Method
from mage.plan import Planned, Request
from mage.runner import Runner
from mage.store import Result, Store
from mage.report.tables import EXPORT_FIELDS, export_rows


def _runner(tmp_path, request):
    return Runner(Store(tmp_path / "mage.db"), request, "pytest")


def _planned(spec, impls, *cases):
    return [Planned(spec, case, impls) for case in cases]


def test_ctrl_c_keeps_finished_results_and_marks_the_run_incomplete(tmp_path, layernorm, impl_like):
    spec, eager, case = layernorm
    second = type(case)(case.op, "17x9", "seed", {"rows": 17, "cols": 9}, seed=3)
    calls = {"n": 0}

    def interrupted_on_second_case(x, w, b):
        if x.shape[0] == 17:
            raise Interrupted(signal.SIGINT)  # Ctrl-C, as the handler raises it
        return eager.fn(x, w, b)

    request = Request(suites=["seed"], device="cpu", method=Method(span_samples=3, min_samples=1, kernel_calls=2,
                                                                     host_calls=4, host_chunk=2, warmup_calls=1))
    runner = _runner(tmp_path, request)
    with pytest.raises(Interrupted):
        runner.run(_planned(spec, [impl_like(eager, interrupted_on_second_case)], case, second))
    store = Store(tmp_path / "mage.db")
    run = store.run(runner.run_id)
    assert run["status"] == "incomplete" and run["finished_at"] is not None
    rows = store.rows(runner.run_id)
    assert [(r["case"], r["status"]) for r in rows] == [("33x65", "pass")]
    assert len(store.samples(rows[0]["result_id"])) == 3


def test_a_killed_writer_leaves_every_finished_result(tmp_path):
    db = tmp_path / "mage.db"
    script = textwrap.dedent(f"""
        import os
        from mage.store import Result, Store
        from mage.spec import Case
        from mage import registry
        store = Store({str(db)!r})
        run = store.begin_run(clock="cpu", suite="seed", command="x", env={{}}, method={{}}, ceilings={{}})
        case = store.case_id(run, Case("layernorm", "a", "seed", {{}}, 1))
        impl = store.impl_id(run, registry.implementations("layernorm")[0])
        for i in range(3):
            store.add_result(run, case, impl, Result("single", "warm", "pass", span_mean_us=float(i)), [(0, 1.0)] * 5)
        os._exit(9)  # no cleanup, as if killed
    """)
    process = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert process.returncode == 9, process.stderr
    store = Store(db)
    (run,) = store.runs()
    assert run["status"] == "incomplete" and run["finished_at"] is None
    rows = store.rows(run["id"])
    assert [r["span_mean_us"] for r in rows] == [0.0, 1.0, 2.0]
    assert all(len(store.samples(r["result_id"])) == 5 for r in rows)


def test_a_complete_run_exports_every_field(tmp_path, layernorm):
    spec, eager, case = layernorm
    request = Request(suites=["seed"], device="cpu", paths=["single", "batch"],
                      method=Method(span_samples=6, min_samples=1, host_calls=4, host_chunk=2, warmup_calls=1))
    runner = _runner(tmp_path, request)
    run_id = runner.run(_planned(spec, [eager], case))
    store = Store(tmp_path / "mage.db")
    assert store.run(run_id)["status"] == "complete"
    rows = export_rows(store.rows(run_id))
    assert {r["path"] for r in rows} == {"single", "batch"}
    for row in rows:
        assert set(EXPORT_FIELDS) <= set(row)
        assert row["contract"] == "pass" and row["clock"] == "cpu"
        assert row["span_mean_us"] > 0 and row["span_round_min_us"] <= row["span_mean_us"] <= row["span_round_max_us"]
        assert row["flops"] == spec.flops(case, "affine")
    single = next(r for r in rows if r["path"] == "single")
    assert 0 < single["host_min_us"] <= single["host_us"] <= single["host_max_us"]  # median of chunks, their range
    assert single["kernel_us"] is None  # no profiler capture on the CPU: absent, not zero


def test_failures_and_out_of_memory_are_stored_and_the_run_goes_on(tmp_path, layernorm, impl_like):
    spec, eager, case = layernorm

    def out_of_memory(x, w, b):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 80 GiB")

    def crashes(x, w, b):
        raise RuntimeError("illegal instruction")

    impls = [impl_like(eager, out_of_memory, "oom"), impl_like(eager, crashes, "crash"), eager]
    request = Request(suites=["seed"], device="cpu", method=Method(span_samples=3, min_samples=1, host_calls=2,
                                                                     host_chunk=1, warmup_calls=1))
    run_id = _runner(tmp_path, request).run(_planned(spec, impls, case))
    by_impl = {r["backend"]: r for r in Store(tmp_path / "mage.db").rows(run_id)}
    assert by_impl["oom"]["status"] == "skip" and "out of memory" in by_impl["oom"]["reason"]
    assert by_impl["crash"]["status"] == "fail" and by_impl["crash"]["contract"] == "fail"
    assert "illegal instruction" in by_impl["crash"]["reason"]
    assert by_impl["eager"]["status"] == "pass"


def test_unknown_run_is_a_clear_error(tmp_path):
    from mage.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match="no run 42"):
        Store(tmp_path / "mage.db").run(42)


def test_rows_read_back_every_column_stored_row_declares_and_keys_name_their_parts(tmp_path, layernorm):
    from typing import get_type_hints

    from mage.store import RowKey, StoredRow

    spec, eager, case = layernorm
    store = Store(tmp_path / "mage.db")
    run = store.begin_run(clock="cpu", suite="seed", command="x", env={}, method={}, ceilings={})
    store.add_result(run, store.case_id(run, case), store.impl_id(run, eager), Result("single", "warm", "pass"))
    (row,) = store.rows(run)
    assert list(row) == list(get_type_hints(StoredRow))
    (key,) = store.stored_rows(run)
    assert key == RowKey(op="layernorm", case="33x65", impl="eager/affine/ieee", path="single", cache="warm")
    assert (key.impl, key.path) == (row["impl"], row["path"])
