"""Terminal output that fits: priority columns at the terminal's width (COLUMNS when piped, else 100), every
column with --wide, skips one line per family and reason, and progress as lines when not on a terminal."""

import os
import re
import subprocess
import sys

import pytest

from mage.progress import CaseLines, Step, StepLines
from test_report import make_run

MAGE = [sys.executable, "-m", "mage"]


def _mage(cwd, *args, columns: str | None):
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"} | ({"COLUMNS": columns} if columns else {})
    return subprocess.run([*MAGE, *args], cwd=cwd, capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("terminal")
    make_run(cwd / "mage.db")
    return cwd


def _table_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line[:1] in "┏┃┡│└"]


@pytest.mark.parametrize("columns, width", [("80", 80), ("120", 120), (None, 100)])
def test_the_results_table_fits_the_width_with_the_columns_that_matter_most(stored, columns, width):
    shown = _mage(stored, "show", "1", columns=columns)
    assert shown.returncode == 0, shown.stderr
    lines = _table_lines(shown.stdout)
    assert lines and max(map(len, lines)) <= width
    header = " ".join(lines[1:3])  # a header folds at its spaces
    assert all(name in header for name in ("op", "case", "impl"))
    assert re.search(rf"\d+ columns left out to fit {width} \(--wide shows them\): ", shown.stdout)
    assert "│ layernorm │" in shown.stdout  # whole, never folded into fragments
    for name in ("contract", "rel err", "kernel", "launches", "span"):  # names narrow rather than push these out
        assert name in header, (width, name)
    number = r"│ (\d[\d,]*\.\d+(?:e[+-]\d+)?) +│"
    wide_cells = set(re.findall(number, _mage(stored, "show", "1", "--wide", columns=columns).stdout))
    narrow_cells = set(re.findall(number, shown.stdout))
    assert narrow_cells and narrow_cells <= wide_cells  # no number folded across lines


def test_a_name_breaks_after_its_separators():
    from mage.report.tables import broken_name

    assert broken_name("triton.split/affine/ieee", 8).splitlines() == ["triton.", "split/", "affine/", "ieee"]
    assert broken_name("1024x1024", 6).splitlines() == ["1024x", "1024"]
    assert broken_name("eager", 20) == "eager"
    assert broken_name("mean 16.0 · CV 0.04", 18).splitlines() == ["mean 16.0 · CV ", "0.04"]  # a number whole


def test_wide_shows_every_column(stored):
    narrow = _mage(stored, "show", "1", columns="120")
    wide = _mage(stored, "show", "1", "--wide", columns="120")
    assert wide.returncode == 0, wide.stderr
    assert "left out to fit" not in wide.stdout and "left out to fit" in narrow.stdout
    header = _table_lines(wide.stdout)[1]
    assert len(header) > 120  # as wide as its cells: nothing folded
    for column in ("in practice", "floor/kernel", "launches", "span median", "host"):
        assert column in header
    assert "in practice" not in _table_lines(narrow.stdout)[1]


def test_skipped_implementations_are_one_line_per_family_and_reason(stored):
    shown = _mage(stored, "show", "1", columns="120")
    assert "native: 1 skipped — the native extension is not built on this machine" in shown.stdout
    assert not re.search(r"│ *skip *│", shown.stdout.split("Findings")[0])  # no row of its own


def test_case_lines_say_each_case_and_its_seconds():
    times = iter([0.0, 0.0, 2.5, 2.5, 4.0])
    written = []
    lines = CaseLines(written.append, cases=2, clock=lambda: next(times))
    for step in (Step("layernorm/a", "check", "eager"), Step("layernorm/a", "span"), Step("layernorm/b", "check")):
        lines.step(step)
    lines.close()
    assert written == ["[1/2] layernorm/a: 2.5 s (elapsed 2.5 s)", "[2/2] layernorm/b: 1.5 s (elapsed 4.0 s)"]


def test_step_lines_say_each_step_with_the_seconds_since_the_start():
    times = iter([10.0, 10.5, 32.0])
    written = []
    lines = StepLines(written.append, clock=lambda: next(times))
    lines.step(Step("mlp/7b@tf32", "contract", "eager"))
    lines.step(Step("mlp/7b@tf32", "span", where="graph"))
    lines.close()
    assert written == ["     0.5 s  mlp/7b@tf32 contract eager", "    22.0 s  mlp/7b@tf32 span graph"]


def test_run_and_check_show_progress_when_not_on_a_terminal(tmp_path):
    ran = _mage(tmp_path, "run", "--op", "layernorm", "--impl", "eager", "--path", "single", columns=None)
    assert ran.returncode == 0, ran.stderr
    assert re.search(r"^\[1/1\] layernorm:\S+: [\d.]+ s \(elapsed [\d.]+ s\)$", ran.stdout, re.MULTILINE), ran.stdout
    header = _table_lines(ran.stdout)[1]
    assert "┃ kernel " not in header and "┃ launches " not in header  # none on the CPU: those columns go first
    checked = _mage(tmp_path, "check", "--op", "layernorm", "--impl", "eager", columns=None)
    assert checked.returncode == 0, checked.stderr
    assert re.search(r"^\[1/1\] layernorm:\S+: [\d.]+ s", checked.stdout, re.MULTILINE), checked.stdout


def test_control_characters_of_stored_text_never_reach_the_terminal(tmp_path):
    store, run_id = make_run(tmp_path / "mage.db")
    store.set_experiment(run_id, "clears \x1b[2J the screen\x07", [])
    store.db.execute("UPDATE implementations SET name = name || '\x1b[31m' WHERE name LIKE 'eager%'")
    store.db.execute("UPDATE runs SET command = command || ' \x1b]0;title\x07'")
    store.db.commit()
    for command in (["show", "1"], ["runs"], ["best"]):
        shown = _mage(tmp_path, *command, columns="200")
        assert shown.returncode == 0, shown.stderr
        assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout, command
    assert "clears [2J the screen" in _mage(tmp_path, "show", "1", columns="200").stdout
    # nor a page: the report drops them as the terminal does
    assert _mage(tmp_path, "report", "1", "--out", "r", columns="200").returncode == 0
    page = (tmp_path / "r" / "report.html").read_text()
    assert "clears [2J the screen" in page and "\x1b" not in page and "\x07" not in page
