"""`mage`'s exit codes (README, "Exit codes"), each through a real process of `python -m mage` on the CPU."""

import errno
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mage import cli
from mage.store import Store

REPO = Path(__file__).resolve().parent.parent
MAGE = [sys.executable, "-m", "mage"]


def _environment(plugins: str = "", **extra) -> dict:
    return os.environ | {"MAGE_PLUGINS": plugins, "COLUMNS": "200", **extra,
                         "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


def mage(*args, cwd, plugins=""):
    return subprocess.run([*MAGE, *args], cwd=cwd, env=_environment(plugins), capture_output=True, text=True,
                          timeout=600)


def _last_line(text: str) -> str:
    return [line for line in text.splitlines() if line.strip()][-1]


def test_check_exits_1_naming_the_implementation_that_failed(tmp_path):
    result = mage("check", "--op", "layernorm", "--impl", "eager", "--impl", "wrong", cwd=tmp_path,
                  plugins="tests.plugins.cli_faults")
    assert result.returncode == 1, result.stdout + result.stderr
    assert _last_line(result.stdout).startswith("1 implementation failed: layernorm wrong/affine/ieee (contract on ")
    # Said when it happens too, before the table: a check stopped part way still names what failed.
    said = result.stdout.index("FAIL layernorm ")
    assert "wrong/affine/ieee: normal inputs: error" in result.stdout[said:].splitlines()[0]
    assert said < result.stdout.index("contracts on cpu")


def test_run_exits_1_when_an_implementation_fails_and_0_when_all_pass(tmp_path):
    failed = mage("run", "--op", "layernorm", "--impl", "eager", "--impl", "wrong", cwd=tmp_path,
                  plugins="tests.plugins.cli_faults")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert _last_line(failed.stdout) == "1 implementation failed: layernorm wrong/affine/ieee (contract)"
    assert "stored as run 1" in failed.stdout
    passed = mage("run", "--op", "layernorm", "--impl", "eager", cwd=tmp_path)
    assert passed.returncode == 0, passed.stdout + passed.stderr


def _signalled_while_sleeping(tmp_path, command: list[str], signum) -> tuple:
    """``mage command`` with the sleeping plugin, sent ``signum`` once an implementation sleeps in it:
    (the process, its stdout, its stderr)."""
    started = tmp_path / "sleeping"
    process = subprocess.Popen([*MAGE, *command], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=_environment("tests.plugins.cli_faults",
                                                           MAGE_TEST_SLEEP_STARTED=str(started)))
    deadline = time.monotonic() + 300
    while not started.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert started.exists(), process.communicate()
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=120)
    return process, stdout, stderr


@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_mid_run_stores_it_incomplete_and_prints_the_resume_command(tmp_path, signum, code):
    process, stdout, stderr = _signalled_while_sleeping(
        tmp_path, ["run", "--op", "layernorm", "--impl", "eager", "--impl", "sleeps", "--db", "store.db"], signum)
    assert process.returncode == code, stdout + stderr
    assert "Traceback" not in stderr
    assert (f"interrupted by {signal.Signals(signum).name}: run 1 is stored as incomplete" in stderr
            and "mage run --resume 1 --db store.db" in stderr)
    assert Store(tmp_path / "store.db").run(1)["status"] == "incomplete"


def test_a_full_store_says_so_in_one_line(tmp_path):
    result = mage("run", "--op", "layernorm", "--impl", "eager", cwd=tmp_path, plugins="tests.plugins.full_store")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert _last_line(result.stderr) == ("error: could not store the run (cannot write mage.db: the disk is full); run 1 "
                                         "keeps every result stored before it: make room, then mage run --resume 1 "
                                         "--db mage.db")


@pytest.mark.parametrize("plugin, problem", [
    ("tests.plugins.nowhere", "plugin 'tests.plugins.nowhere' in MAGE_PLUGINS cannot be found: No module named "
                              "'tests.plugins.nowhere'"),
    ("tests.plugins.raises_on_import", "plugin 'tests.plugins.raises_on_import' in MAGE_PLUGINS failed on import: "
                                       "RuntimeError: this plugin is broken on purpose"),
    ("tests.plugins.exits_on_import", "plugin 'tests.plugins.exits_on_import' in MAGE_PLUGINS failed on import: "
                                      "SystemExit: 5"),
])
def test_a_plugin_that_cannot_be_loaded_is_named_in_one_line(tmp_path, plugin, problem):
    result = mage("check", "--op", "layernorm", "--impl", "eager", cwd=tmp_path, plugins=plugin)
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: {problem}"


@pytest.mark.parametrize("fault, code, line", [
    (OSError(errno.ENOSPC, "No space left on device", "out/report.html"), 2,
     "error: out/report.html: No space left on device"),
    (sqlite3.DatabaseError("file is not a database"), 2,
     "error: the SQLite store cannot be used: it is not an SQLite database"),
    (ZeroDivisionError("division by zero"), 3,
     "error: this is a bug in Mage (ZeroDivisionError: division by zero); the traceback above says where"),
])
def test_the_last_resort_names_environment_faults_and_keeps_bugs_visible(monkeypatch, capsys, fault, code, line):
    def command(**kwargs):
        raise fault

    monkeypatch.setattr(cli, "app", command)
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == code
    stderr = capsys.readouterr().err
    assert _last_line(stderr) == line
    assert ("Traceback" in stderr) == (code == 3)  # a bug shows where it is; the environment's fault does not


@pytest.mark.parametrize("args, line", [
    (["run", "--qqqq"], "error: No such option: --qqqq (see python -m mage run --help)"),
    (["run", "--suite", "nope"], "error: Invalid value for '--suite': "),
    (["show", "x"], "error: Invalid value for 'run_id': "),
    (["nosuch"], "error: No such command 'nosuch'. (see python -m mage --help)"),
])
def test_a_usage_error_is_one_line_naming_where_help_is(tmp_path, args, line):
    result = mage(*args, cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(line), result.stderr


def test_an_implementation_that_exits_interrupts_or_runs_out_of_memory_fails_alone(tmp_path):
    result = mage("run", "--op", "layernorm", "--impl", "eager/affine/ieee", "--impl", "exits", "--impl",
                  "interrupts", "--impl", "hostoom", "--path", "single", "--path", "batch", cwd=tmp_path,
                  plugins="tests.plugins.resource_faults")
    assert result.returncode == 1, result.stdout + result.stderr
    assert _last_line(result.stdout) == ("3 implementations failed: layernorm exits/affine/ieee (contract), layernorm "
                                         "hostoom/affine/ieee (batch path, single path), layernorm "
                                         "interrupts/affine/ieee (contract)")
    store = Store(tmp_path / "mage.db", read_only=True)
    assert store.run(1)["status"] == "complete"
    reasons = {(row["impl"], row["path"]): row["reason"] for row in store.rows(1)}
    assert reasons["exits/affine/ieee", "single"] == "SystemExit: 0"
    assert reasons["interrupts/affine/ieee", "single"] == "KeyboardInterrupt: "
    assert reasons["hostoom/affine/ieee", "single"].startswith("single path: ran out of host memory while timed")
    assert reasons["hostoom/affine/ieee", "batch"].startswith("batch path: not timed: ran out of host memory")
    assert reasons["eager/affine/ieee", "single"] is None and reasons["eager/affine/ieee", "batch"] is None


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path):
    mage("run", "--op", "layernorm", "--impl", "eager/affine/ieee", cwd=tmp_path)
    for command in (["show", "1"], ["export", "1", "--json"]):
        shown = subprocess.Popen([*MAGE, *command], cwd=tmp_path, env=_environment(), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
        shown.stdout.readline()
        shown.stdout.close()  # as head -1 does
        assert shown.wait(timeout=120) in (0, cli.READER_GONE)  # 0 where all it wrote fitted in the pipe
        assert shown.stderr.read() == b""


def test_an_interrupted_context_run_says_why_it_cannot_be_continued_and_how_to_measure_again(tmp_path):
    command = ["context", "--size", "tiny", "--block", "mlp", "--assign", "layernorm=sleeps", "--no-compile",
               "--db", "store.db"]
    process, stdout, stderr = _signalled_while_sleeping(tmp_path, command, signal.SIGINT)
    assert process.returncode == 130, stdout + stderr
    assert "a context run is not resumed" in stderr and f"measure it again with: mage {' '.join(command)}" in stderr
    resumed = mage("run", "--resume", "1", "--db", "store.db", cwd=tmp_path)
    assert resumed.returncode == 2 and "run 1 is a context run: a context run is not resumed" in resumed.stderr
