"""Experiments: a hypothesis and predictions stored with a run, judged against its results."""

import os
import subprocess
import sys

import pytest

from mage import experiments
from mage.experiments import PredictionError, evaluate, parse
from mage.plan import Request

OPS = {"layernorm", "matmul"}
MAGE = [sys.executable, "-c", "from mage.cli import main; main()"]


@pytest.mark.parametrize("text, expected", [
    ("layernorm/triton:kernel<600",
     dict(op="layernorm", impl="triton", case=None, path="single", cache="warm", boundary="kernel", comparator="<",
          value=600.0)),
    ("triton/layernorm:kernel_us<600", dict(op="layernorm", impl="triton", boundary="kernel", value=600.0)),
    ("layernorm/triton/affine/ieee@1024x1024[graph]:span <= 7.5",
     dict(impl="triton/affine/ieee", case="1024x1024", path="graph", cache="warm", boundary="span",
          comparator="<=", value=7.5)),
    ("layernorm/triton[single/cold]:span<0.8*eager",
     dict(path="single", cache="cold", value=None, factor=0.8, reference="eager")),
    ("matmul/triton/default/tf32:launches<=1", dict(op="matmul", boundary="launches", value=1.0)),
    ("matmul/triton:kernel<2ms", dict(value=2000.0)),
    ("layernorm/eager:rel_error<1e-5", dict(boundary="rel_error", value=1e-5)),
    ("layernorm/triton:host>=eager/affine/ieee", dict(comparator=">=", reference="eager/affine/ieee", factor=1.0)),
])
def test_parse(text, expected):
    prediction = parse(text, OPS)
    for key, value in expected.items():
        assert getattr(prediction, key) == value, key


@pytest.mark.parametrize("text, message", [
    ("layernorm/triton kernel<600", "expected OP/IMPL:BOUNDARY<BOUND"),
    ("layernorm:kernel<600", "name the op and the implementation"),
    ("softmax/triton:kernel<600", "no op named in 'softmax/triton'"),
    ("layernorm/triton:wall<600", "unknown boundary 'wall'"),
    ("layernorm/triton:kernel=600", "cannot read 'kernel=600'"),
    ("layernorm/triton:kernel<fast!", "neither a number nor [FACTOR*]IMPL"),
    ("layernorm/triton:launches<2ms", "launches is not a time"),
    ("layernorm/triton@a b:kernel<1", "cannot read 'layernorm/triton@a b'"),
])
def test_syntax_errors_are_clear(text, message):
    with pytest.raises(PredictionError) as error:
        parse(text, OPS)
    assert message in str(error.value)


def test_an_error_quotes_a_long_prediction_only_as_far_as_needed_to_find_it():
    with pytest.raises(PredictionError) as error:
        parse("layernorm/triton kernel<600" + "x" * 100_000, OPS)
    assert "expected OP/IMPL:BOUNDARY<BOUND" in str(error.value) and len(str(error.value)) < 300
    assert "'layernorm/triton kernel<600xx" in str(error.value) and "…'" in str(error.value)


def request(**overrides):
    fields = dict(suites=["seed"], ops=["layernorm"], impls=["eager", "triton"], paths=["single"],
                  caches=["warm"], device="cpu") | overrides
    return Request(**fields)


@pytest.mark.parametrize("text, overrides, message", [
    ("matmul/eager:kernel<1", {}, "which this run does not measure"),
    ("layernorm/native:kernel<1", {}, "no implementation of layernorm in this run matches 'native'"),
    ("layernorm/triton:kernel<0.5*compile", {}, "matches none"),
    ("layernorm/triton@65536x4096:kernel<1", {}, "no case '65536x4096' in the suites run"),
    ("layernorm/triton[graph]:span<1", {}, "path 'graph' is not measured"),
    ("layernorm/triton[single/cold]:span<1", {}, "add --cold"),
    ("layernorm/triton[graph]:kernel<1", {"paths": ["single", "graph"]}, "single path only"),
])
def test_predictions_the_run_cannot_judge_are_refused_before_it_starts(text, overrides, message):
    with pytest.raises(PredictionError, match=message.replace("[", r"\[")):
        experiments.validate([parse(text, OPS)], request(**overrides))


def test_a_prediction_the_run_can_judge_passes_validation():
    # eager/affine/ieee, not eager: layernorm has an eager baseline per precision (ieee, bf16, fp16).
    experiments.validate([parse("layernorm/triton@65536x4096[graph/cold]:span<0.5*eager/affine/ieee", OPS)],
                         request(suites=["large"], paths=["single", "graph"], caches=["warm", "cold"]))


def row(impl, case="1024x1024", path="single", status="pass", **values):
    base = dict(op="layernorm", case=case, impl=impl, path=path, cache="warm", status=status, kernel_us=None,
                host_us=None, launches=None, rel_error=None, span_mean_us=None, span_median_us=None,
                span_round_min_us=None, span_round_max_us=None)
    return base | values


ROWS = [
    row("triton/affine/ieee", kernel_us=3.0, launches=1.0, span_mean_us=30.0, span_round_min_us=29.0,
        span_round_max_us=31.0),
    row("eager/affine/ieee", kernel_us=5.0, launches=1.0, span_mean_us=40.0, span_round_min_us=39.0,
        span_round_max_us=41.0),
    row("triton/affine/ieee", case="4096x1024", kernel_us=9.0, span_mean_us=50.0, span_round_min_us=49.0,
        span_round_max_us=51.0),
    row("native/affine/ieee", status="fail"),
]


@pytest.mark.parametrize("text, outcome", [
    ("layernorm/triton@1024x1024:kernel<4", "held"),
    ("layernorm/triton:kernel<4", "failed"),  # 4096x1024 took 9 µs
    ("layernorm/triton:kernel<10", "held"),  # every case
    ("layernorm/triton@1024x1024:kernel<3.05", "unclear"),  # within kernel time's 3 % resolution
    ("layernorm/triton@1024x1024:span<32", "held"),
    ("layernorm/triton@1024x1024:span<30", "unclear"),  # inside the range of round means
    ("layernorm/triton@1024x1024:span>32", "failed"),
    ("layernorm/triton@1024x1024:span<0.8*eager", "held"),  # 29–31 against 31.2–32.8
    ("layernorm/triton@1024x1024:span<0.76*eager", "unclear"),  # 29–31 against 29.64–31.16
    ("layernorm/triton@1024x1024:span<0.9*eager", "held"),
    ("layernorm/triton@1024x1024:launches<=1", "held"),
    ("layernorm/native:kernel<1", "no data"),  # failed its contract
    ("layernorm/triton@16384x1024:kernel<1", "no data"),  # not in the run
    ("layernorm/triton:launches<=1", "unclear"),  # held where measured, no launches for 4096x1024
])
def test_outcomes(text, outcome):
    assert evaluate(parse(text, OPS), ROWS).outcome == outcome


def test_judgements_say_what_was_observed():
    evaluation = evaluate(parse("layernorm/triton:span<0.9*eager", OPS), ROWS)
    first, second = evaluation.judgements
    assert first.observed == "30.00 µs [29.00–31.00] vs 0.9×eager 36.00 µs [35.10–36.90]"
    assert first.outcome == "held"
    assert second.outcome == "no data" and "no eager to compare with" in second.observed
    (table_row,) = experiments.evaluation_rows([evaluation])
    assert table_row["prediction"] == "layernorm/triton:span<0.9*eager" and table_row["outcome"] == "unclear"


def test_run_show_and_export_carry_the_experiment(tmp_path):
    def mage(*args):
        return subprocess.run([*MAGE, *args], cwd=tmp_path, capture_output=True, text=True, timeout=900,
                              env=os.environ | {"COLUMNS": "250"})

    ran = mage("run", "--op", "layernorm", "--impl", "eager", "--path", "single",
               "--hypothesis", "eager layernorm is host-bound at seed scale",
               "--predict", "layernorm/eager@1024x1024:span<1e9", "--predict", "layernorm/eager:host>1e9",
               "--predict", "layernorm/eager:kernel<5")
    assert ran.returncode == 0, ran.stderr
    for output in (ran.stdout, mage("show", "1").stdout):
        assert "hypothesis: eager layernorm is host-bound at seed scale" in output
        lines = {line.split("│")[1].strip(): line for line in output.splitlines() if line.count("│") >= 3}
        assert "held" in lines["layernorm/eager@1024x1024:span<1e9"]
        assert "failed" in lines["layernorm/eager:host>1e9"]
        assert "no data" in lines["layernorm/eager:kernel<5"]  # no kernel time on the CPU
    exported = mage("export", "1", "--run-json")
    assert '"predictions":["layernorm/eager@1024x1024:span<1e9"' in exported.stdout


def test_a_bad_prediction_stops_the_run_before_it_starts(tmp_path):
    result = subprocess.run([*MAGE, "run", "--op", "layernorm", "--impl", "eager", "--predict",
                             "layernorm/triton:kernel<5"], cwd=tmp_path, capture_output=True, text=True,
                            env=os.environ | {"COLUMNS": "250"})
    assert result.returncode == 2 and "no implementation of layernorm in this run matches 'triton'" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "mage.db").exists()


def test_a_prediction_on_an_op_the_interrupted_run_never_reached_is_no_data(tmp_path):
    from mage.store import Store

    store = Store(tmp_path / "mage.db")
    run = store.begin_run(clock="gpu", suite="seed", command="mage run", env={}, ceilings={},
                          method={"request": {"ops": ["layernorm", "matmul"]}})
    store.set_experiment(run, "matmul is fast", ["matmul/eager:kernel<60"])
    store.end_run(run, "incomplete")  # stopped before its first case was stored
    _, (evaluation,) = experiments.evaluate_run(store, run)
    assert evaluation.outcome == "no data"
