"""The CLI's verbs, end to end on the CPU, through the installed `mage` command."""

import json
import os
import shutil
import subprocess
import sys

import pytest

MAGE = [sys.executable, "-c", "from mage.cli import main; main()"]


def mage(*args, cwd):
    return subprocess.run([*MAGE, *args], cwd=cwd, capture_output=True, text=True, timeout=900,
                          env=os.environ | {"COLUMNS": "200"})


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory):
    """One real CPU run of layernorm's eager implementation, shared by the read-only verbs."""
    cwd = tmp_path_factory.mktemp("cli")
    result = mage("run", "--op", "layernorm", "--impl", "eager", "--path", "single", "--path", "batch", cwd=cwd)
    assert result.returncode == 0, result.stdout + result.stderr
    return cwd, result


def test_run_says_it_has_no_gpu_first_and_stores(stored_run):
    cwd, result = stored_run
    assert result.stdout.splitlines()[0].startswith("No CUDA device")
    assert "stored as run 1" in result.stdout
    assert (cwd / "mage.db").exists()


def test_runs_show_export(stored_run):
    cwd, _ = stored_run
    assert "complete" in mage("runs", cwd=cwd).stdout
    shown = mage("show", "1", cwd=cwd)
    assert shown.returncode == 0 and "CPU wall clock" in shown.stdout and "layernorm" in shown.stdout
    exported = mage("export", "1", "--json", cwd=cwd)
    rows = json.loads(exported.stdout)
    assert {r["path"] for r in rows} == {"single", "batch"}
    assert all(r["op"] == "layernorm" and r["impl"].startswith("eager/") and r["contract"] == "pass" for r in rows)


def test_check_env_amdahl(tmp_path):
    checked = mage("check", "--op", "layernorm", "--impl", "eager", cwd=tmp_path)
    assert checked.returncode == 0 and "pass" in checked.stdout
    env = json.loads(mage("env", cwd=tmp_path).stdout)
    assert env["device"] == "cpu" and env["torch"].startswith("2.11")
    amdahl = mage("amdahl", "--fraction", "0.2", "--speedup", "2", cwd=tmp_path)
    assert "1.11×" in amdahl.stdout and "10.0%" in amdahl.stdout


@pytest.mark.parametrize("args, message", [
    (["run", "--op", "rmsnorm"], "unknown op 'rmsnorm'"),
    (["run", "--op", "layernorm", "--impl", "cublas"], "unknown implementation 'cublas'"),
    (["run", "--op", "layernorm", "--path", "warp"], "unknown path 'warp'"),
    (["show", "7"], "no store at mage.db"),  # a read-only command never creates one
    (["amdahl", "--fraction", "1.5", "--speedup", "2"], "fraction must be between 0 and 1"),
    (["export", "1"], "--json"),
])
def test_bad_arguments_get_a_clear_error_and_no_traceback(tmp_path, args, message):
    result = mage(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_bad_suite_is_refused_by_the_parser(tmp_path):
    result = mage("run", "--suite", "huge", cwd=tmp_path)
    assert result.returncode == 2 and "huge" in result.stderr


def test_batch_size_and_sample_floor_are_chosen_on_the_command_line(tmp_path):
    # A budget of a nanosecond affords no sample, so the floor decides how many spans are taken: one a round.
    result = mage("run", "--op", "layernorm", "--impl", "eager/affine/ieee", "--path", "batch", "--batch", "3",
                  "--budget", "1e-9", "--min-samples", "3", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = json.loads(mage("export", "--json", cwd=tmp_path).stdout)
    assert [(r["calls_per_sample"], r["span_samples"]) for r in rows] == [(3, 3)]


def test_a_sample_floor_below_one_a_round_is_refused(tmp_path):
    result = mage("run", "--op", "layernorm", "--min-samples", "2", cwd=tmp_path)
    assert result.returncode == 2 and "--min-samples" in result.stderr


@pytest.mark.parametrize("args, option", [
    (["run", "--budget", "nan"], "--budget"),
    (["run", "--budget", "0"], "--budget"),
    (["run", "--budget", "-1"], "--budget"),
    (["run", "--budget", "inf"], "--budget"),
    (["run", "--case-timeout", "0"], "--case-timeout"),
    (["run", "--case-timeout", "nan"], "--case-timeout"),
    (["amdahl", "--fraction", "0.2", "--speedup", "nan"], "--speedup"),
])
def test_float_options_that_are_not_finite_and_positive_are_refused_when_parsed(tmp_path, args, option):
    result = mage(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert f"Invalid value for '{option}': must be a finite number above 0" in result.stderr
    assert not (tmp_path / "mage.db").exists()  # refused before anything ran


def test_cold_on_the_cpu_is_refused_before_anything_runs(tmp_path):
    result = mage("run", "--op", "layernorm", "--impl", "eager", "--cold", cwd=tmp_path)
    assert result.returncode == 2
    assert "a CPU run has no L2 flush" in result.stderr and "drop --cold" in result.stderr
    assert not (tmp_path / "mage.db").exists()


def test_the_graph_path_on_the_cpu_is_a_skip_with_its_reason(tmp_path):
    result = mage("run", "--op", "layernorm", "--impl", "eager", "--path", "single", "--path", "graph", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = {r["path"]: r for r in json.loads(mage("export", "--json", cwd=tmp_path).stdout)}
    assert rows["single"]["status"] == "pass"
    assert rows["graph"]["status"] == "skip" and rows["graph"]["contract"] == "pass"
    assert rows["graph"]["reason"] == "the graph path replays a CUDA graph, which needs a CUDA device"
