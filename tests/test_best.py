"""The answer (mage.best): the fastest implementation at each boundary, its ratios to eager and to the fastest
library implementation, what is within the noise of it; from one run's rows and from a whole store."""

import json

from rich.console import Console

from mage import best
from mage.report.answer import answer_table

from test_store_trust import COMMITTED, mage_here


def _row(impl, path="single", cache="warm", kernel=None, span=None, case="64x64", status="pass"):
    return {"op": "layernorm", "case": case, "impl": impl, "path": path, "cache": cache, "status": status,
            "kernel_us": kernel, "span_mean_us": span}


ROWS = [
    _row("eager/affine/ieee", kernel=10.0, span=20.0),
    _row("compile/affine/ieee", kernel=8.0, span=30.0),
    _row("triton/affine/ieee", kernel=4.0, span=12.0),
    _row("native/affine/ieee", kernel=4.08, span=15.0),  # 2 % slower: the same kernel time at the resolution
    _row("triton.split/affine/ieee", kernel=1.0, span=1.0, status="fail"),  # a failing row never answers
    _row("triton/affine/ieee", path="graph", span=5.0),
    _row("eager/affine/ieee", path="graph", span=9.0),
]


def _by_boundary(answers):
    return {a.boundary: a for a in answers}


def test_the_fastest_at_each_boundary_with_its_ratios():
    answers = _by_boundary(best.from_rows(ROWS, "cpu-model", run_id=3))
    kernel, span, graph = answers["kernel"], answers["single span"], answers["graph span"]
    assert kernel.fastest.impl == "triton/affine/ieee" and kernel.fastest.run_id == 3
    assert kernel.vs_eager == 2.5 and kernel.vs_library == 2.0 and kernel.library.impl == "compile/affine/ieee"
    assert [m.impl for m in kernel.within_noise] == ["native/affine/ieee"]
    assert span.fastest.impl == "triton/affine/ieee" and span.within_noise == []
    assert graph.vs_eager == 9.0 / 5.0 and graph.library is None


def test_a_cold_measurement_answers_before_a_warm_one():
    rows = ROWS + [_row("native/affine/ieee", cache="cold", kernel=6.0),
                   _row("eager/affine/ieee", cache="cold", kernel=12.0)]
    answers = _by_boundary(best.from_rows(rows, "cpu-model"))
    assert answers["kernel"].cache == "cold" and answers["kernel"].fastest.impl == "native/affine/ieee"
    assert answers["kernel"].vs_eager == 2.0 and "single span" not in answers


def test_tf32x3_is_set_beside_eager_at_the_ieee_it_claims():
    rows = [_row("eager/affine/ieee", kernel=9.0), _row("triton/affine/tf32x3", kernel=3.0)]
    answer = best.from_rows(rows, "cpu-model")[0]
    assert answer.precision == "tf32x3" and answer.eager.impl == "eager/affine/ieee" and answer.vs_eager == 3.0


def test_the_table_keeps_the_numbers_at_100_columns():
    console = Console(width=100, record=True)
    console.print(answer_table(best.from_rows(ROWS, "cpu-model"), "answer"))
    text = console.export_text()
    for shown in ("4.00 µs", "2.50× eager", "2.00× compile", "≈ native", "12.00 µs", "1.80× eager"):
        assert shown in text, text


def test_mage_best_reads_the_committed_store(monkeypatch, capsys):
    code, out, err = mage_here(monkeypatch, capsys, "best", "--db", str(COMMITTED), "--op", "matmul",
                               "--case", "8192x8192x8192", "--json")
    assert code == 0, err
    answers = json.loads(out)
    assert {a["precision"] for a in answers} >= {"ieee", "tf32", "tf32x3"}
    tf32x3 = next(a for a in answers if a["precision"] == "tf32x3" and a["boundary"] == "kernel")
    assert tf32x3["eager"] == "eager/default/ieee" and tf32x3["vs_eager"] > 1.5 and tf32x3["run"] > 0
    code, out, _ = mage_here(monkeypatch, capsys, "best", "--db", str(COMMITTED), "--op", "softmax")
    assert code == 0 and "The best measured in" in out and "softmax" in out and "× eager" in out and "run " in out
    # Answers of one device model name it once, in the title; those of several, row by row.
    code, out, _ = mage_here(monkeypatch, capsys, "best", "--db", str(COMMITTED), "--op", "matmul", "--case",
                             "8192x8192x8192")
    assert code == 0 and "The best measured in" in out and " on NVIDIA H200" in out


def test_mage_best_says_when_nothing_matches(monkeypatch, capsys):
    code, _, err = mage_here(monkeypatch, capsys, "best", "--db", str(COMMITTED), "--case", "no-such-case")
    assert code == 2 and "no passing measurement" in err and "--case 'no-such-case'" in err


def test_an_implementation_a_ratio_already_calls_the_same_is_not_listed_again():
    rows = [_row("eager/affine/ieee", kernel=5.0), _row("compile/affine/ieee", kernel=5.05),
            _row("triton/affine/ieee", kernel=5.1)]
    console = Console(width=100, record=True)
    console.print(answer_table(best.from_rows(rows, "cpu-model"), "answer"))
    text = console.export_text()
    assert text.count("≈ compile") == 1 and text.count("triton") == 1 and "≈ Mage's triton" in text


def test_a_library_timed_despite_its_failed_contract_is_never_named_fastest_silently():
    rows = [_row("eager/affine/ieee", kernel=15.0) | {"contract": "fail"}, _row("triton/affine/ieee", kernel=12.0),
            _row("compile/affine/ieee", kernel=3.0) | {"contract": "fail"}]
    answer = best.from_rows(rows, "cpu-model")[0]
    assert answer.fastest.impl == "compile/affine/ieee" and answer.fastest.failed_contract
    assert answer.as_dict()["fastest_failed_contract"] is True
    console = Console(width=100, record=True)
    console.print(answer_table([answer], "answer"))
    assert "fails its contract" in console.export_text()
    honest = best.from_rows(rows[:2], "cpu-model")[0]
    assert honest.fastest.impl == "triton/affine/ieee" and not honest.fastest.failed_contract
