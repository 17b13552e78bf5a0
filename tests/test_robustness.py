"""What a new user or an adversary meets on the CPU: help that reads whole, usage errors without side effects,
options that are honoured or refused, faults that are not Mage's as one line, never a hang."""

import json
import os
import subprocess
import sys

import pytest

MAGE = [sys.executable, "-m", "mage"]


def mage(*args, cwd, columns: str = "100", timeout: float = 120, **env):
    return subprocess.run([*MAGE, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=os.environ | {"COLUMNS": columns} | env)


@pytest.mark.parametrize("columns", ["80", "100"])
def test_help_is_whole_sentences_with_examples_as_written(tmp_path, columns):
    top = mage("--help", cwd=tmp_path, columns=columns)
    assert top.returncode == 0 and "..." not in top.stdout.split("Commands:")[1]  # no summary cut short
    assert "store the run." in " ".join(top.stdout.split())
    ran = mage("run", "--help", cwd=tmp_path, columns=columns)
    text = " ".join(ran.stdout.split())
    assert "'layernorm/triton[graph]:span<0.8*eager'" in text  # an example, not markup
    assert "<bool>" not in ran.stdout and "…" not in ran.stdout


def test_amdahl_says_a_slowdown_in_words_and_finite_numbers():
    from mage.amdahl import statement
    from mage.errors import InputError

    slower = statement(0.2, 0.5)
    assert "2× slower" in slower and "1.2 times as long" in slower and "faster" not in slower and "-" not in slower
    assert "inf" not in statement(0.2, 1e-308)
    with pytest.raises(InputError, match="too small"):
        statement(0.2, 5e-324)


def test_the_tables_of_a_cpu_run_name_its_own_timer(tmp_path):
    from mage.report.markdown import tables
    from test_report import make_run

    store, run_id = make_run(tmp_path / "mage.db")
    store.db.execute("UPDATE runs SET clock = 'cpu'")
    text = tables(store.run(run_id), store.rows(run_id))
    assert "Mean of the wall-clock spans" in text and "CUDA-event" not in text


@pytest.mark.parametrize("options, message", [
    (["--gpus", "2"], "this run is on the CPU"),
    (["--gpus", "abc"], "positive number or 'all'"),
    (["--gpus", "1", "--ray", "local"], "give one of them"),
    (["--ray", "bogus:1"], "cannot reach the Ray cluster at bogus:1"),
    (["--hypothesis", "\udcff"], "argument 7 ('\\xff') is not UTF-8 text"),  # the byte 0xff, as argv holds it
])
def test_a_usage_error_of_run_leaves_no_store_and_never_hangs(tmp_path, options, message):
    refused = mage("run", "--op", "softmax", "--impl", "eager", *options, cwd=tmp_path, timeout=60)
    assert refused.returncode == 2 and message in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.glob("mage.db*"))


@pytest.mark.parametrize("options, message", [
    (["--resume", "1", "--noise-target", "0.9"], "drop --noise-target"),
    (["--resume", "1", "--budget", "99", "--min-samples", "9", "--batch", "3"],
     "drop --budget, --batch, --min-samples"),
])
def test_resume_refuses_a_method_of_its_own(tmp_path, options, message):
    refused = mage("run", *options, cwd=tmp_path)
    assert refused.returncode == 2 and message in refused.stderr


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    from test_report import make_run

    cwd = tmp_path_factory.mktemp("stored")
    make_run(cwd / "mage.db")[0].close()
    return cwd


def test_export_writes_the_rows_where_asked_and_takes_one_format(stored):
    written = mage("export", "1", "--json", "-o", "rows.json", cwd=stored)
    assert written.returncode == 0 and written.stdout == ""
    assert json.loads((stored / "rows.json").read_text())[0]["op"] == "layernorm"
    both = mage("export", "1", "--json", "--run-json", cwd=stored)
    assert both.returncode == 2 and "choose one export format" in both.stderr


@pytest.mark.parametrize("command", [["report", "1", "--out", ""], ["site", "--out", " "],
                                     ["export", "1", "--run-json", "-o", ""], ["history", "--html", ""]])
def test_an_empty_output_path_is_refused(stored, command):
    refused = mage(*command, cwd=stored)
    assert refused.returncode == 2 and "is empty: give a path" in refused.stderr
    assert sorted(p.name for p in stored.iterdir() if not p.name.startswith("mage.db")) in ([], ["rows.json"])
