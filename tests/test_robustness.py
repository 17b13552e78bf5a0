"""What a new user or an adversary meets on the CPU: help that reads whole, usage errors without side effects,
options that are honoured or refused, faults that are not Mage's as one line, never a hang."""

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
