"""Span sampling stops on measured noise: the target is a run option stored with the method, the noise reached is
stored per result and shown, and a result capped above the target is marked noisy."""

import io
import json
import os
import subprocess
import sys

import pytest
from rich.console import Console

from mage.report.tables import results_table
from mage.store import Store

MAGE = [sys.executable, "-c", "from mage.cli import main; main()"]


def mage(*args, cwd):
    return subprocess.run([*MAGE, *args], cwd=cwd, capture_output=True, text=True, timeout=900,
                          env=os.environ | {"COLUMNS": "250"})


def test_the_noise_target_is_stored_with_the_method_and_the_noise_reached_is_shown(tmp_path):
    # A budget of a nanosecond caps sampling at the floor, so a target no CPU clock meets marks the result noisy.
    result = mage("run", "--op", "layernorm", "--impl", "eager", "--budget", "1e-9", "--min-samples", "3",
                  "--noise-target", "0.0000001", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert Store(tmp_path / "mage.db").run(1)["method"]["noise_target"] == 1e-7
    rows = json.loads(mage("export", "--json", cwd=tmp_path).stdout)
    assert rows and all(r["span_rse"] > 1e-7 and r["noisy"] == 1 for r in rows)
    shown = mage("show", cwd=tmp_path).stdout
    assert "noise" in shown and f"{rows[0]['span_rse']:.2%} noisy" in shown


@pytest.mark.parametrize("target", ["0", "1", "nan", "-0.1"])
def test_a_noise_target_outside_zero_to_one_is_refused(tmp_path, target):
    result = mage("run", "--op", "layernorm", "--noise-target", target, cwd=tmp_path)
    assert result.returncode == 2 and "must be a fraction between 0 and 1" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_the_results_table_shows_noise_only_for_runs_that_measured_it():
    row = {"op": "x", "case": "c", "impl": "i", "path": "single", "cache": "warm", "status": "pass", "contract": "pass",
           "rel_error": 0.0, "span_mean_us": 10.0, "suspect": None}
    run = {"id": 1, "status": "complete", "clock": "cpu", "ceilings": {}}

    def shown(*rows):
        console = Console(width=300, file=io.StringIO())
        console.print(results_table(run, list(rows)))
        return console.file.getvalue()

    assert "noise" not in shown(row)  # stored before schema 8
    text = shown(row | {"span_rse": 0.0031, "noisy": 0}, row | {"span_rse": 0.012, "noisy": 1})
    assert "0.31%" in text and "0.31% noisy" not in text and "1.20% noisy" in text


def test_the_report_says_how_spans_were_sampled_old_runs_and_new():
    from mage.measure.method import Method
    from mage.report.html import _span_sampling

    assert _span_sampling({"span_samples": 300, "rounds": 3}) == "300 samples"
    assert _span_sampling(Method().as_dict()) == ("sampled until the mean's relative standard error was below 0.50% "
                                                  "(at least 30 samples, at most 2 s of spans or 10000 samples)")
