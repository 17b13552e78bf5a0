"""Product text speaks of the product: no tracked text (code and its comments, docstrings, docs, READMEs,
the build files, the CLI's help) names an issue number, a work session or a lab machine. What such a
reference stood for belongs in the text itself: what was measured, on which case, and why it matters. A study's
definition names no run number either: its page links the runs."""

import re
import subprocess
from pathlib import Path

import click
import pytest
import typer.main
from typer.testing import CliRunner

from mage.cli import app

ROOT = Path(__file__).resolve().parents[1]

# Not scanned: what results/ holds besides its README is data (the store, the device calls' logs and profiles,
# the generated site), quoted as it was recorded; and this file, whose examples are the references.
NOT_TEXT = re.compile(r"^results/(?!README\.md$)|^tests/test_product_text\.py$")

REFERENCES = {
    "issue number": re.compile(
        r"\bissue\s*#?\s*\d+"                                      # issue 15, Issue #15
        r"|\bissues\s+#?\d+\s*(?:,|and|or|&|–|-)\s*#?\d+"          # issues 16 and 17 (not "issues 3 of 8 loads")
        r"|(?<![\w&#/$])#[1-9]\d?\b(?![\w-])",                    # #15 (not #include, #555, layernorm#0, a heading)
        re.IGNORECASE),
    "work session": re.compile(
        r"\bsession[\s_-]*\d+"                                      # session 25, session-26
        r"|\b(?:this|last|next|previous|earlier|later|same)\s+session\b",
        re.IGNORECASE),
    "lab machine": re.compile(r"\bnvidia-h\d+(?:-x\d+)?\b|\bdevice (?:tool|machine)\b|\blent (?:H\d+|GPUs?|machines?)\b",
                              re.IGNORECASE),
}


# A study's text (its question, hypothesis, conclusion) stands on a page that links its runs itself; a run number
# written into it would not follow a store's renumbering (another store numbers the same runs otherwise).
STUDY_REFERENCES = {**REFERENCES, "run number": re.compile(r"\bruns?[\s#-]*\d+", re.IGNORECASE)}
STUDIES = ROOT / "python" / "mage" / "studies"


def references(text: str, where: str, patterns: dict[str, re.Pattern] = REFERENCES) -> list[str]:
    """``where:line: kind 'match'`` for each match of ``patterns`` in ``text``: by default, each issue number,
    work-session name or lab machine name."""
    return [f"{where}:{number}: {kind} {match.group(0)!r}"
            for number, line in enumerate(text.splitlines(), 1)
            for kind, pattern in patterns.items() for match in pattern.finditer(line)]


def tracked_text_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [name for name in listed.decode().split("\0") if name and not NOT_TEXT.search(name)]


def _text_of(name: str) -> str | None:
    """The file's text, or None for a binary file (a NUL byte, or not UTF-8)."""
    content = (ROOT / name).read_bytes()
    if b"\0" in content:
        return None
    try:
        return content.decode()
    except UnicodeDecodeError:
        return None


def _commands(command, path: tuple[str, ...] = ()):
    """Every command path of the CLI, the top level first."""
    yield path
    if hasattr(command, "list_commands"):  # a group
        context = click.Context(command)
        for name in command.list_commands(context):
            yield from _commands(command.get_command(context, name), path + (name,))


@pytest.mark.parametrize("planted", ["see issue 15", "Issue #15 asks", "as #15 asked", "issues 16 and 17",
                                     "since session-26", "in session 25,", "Session 25's ncu", "as last session",
                                     "on nvidia-h200-x2", "through the device tool"])
def test_the_scanner_finds_a_planted_reference(planted):
    found = references(f"ok\nA comment: {planted}.\n", "planted.py")
    assert found and all(hit.startswith("planted.py:2: ") for hit in found), found


@pytest.mark.parametrize("innocent", ["color: #555; background: #fde2e2", "#include <cuda.h>", "## 8. Results",
                                      "layernorm#0 and layernorm#1", "shares memory with its input #0",
                                      "the sum kernel issues 3 of a round's 8 loads", "a profiler session",
                                      "start_new_session=True", "triton-lang/triton#9433", "issue slots 9.5 % busy"])
def test_the_scanner_leaves_product_words_alone(innocent):
    assert references(innocent, "innocent.py") == []


@pytest.mark.parametrize("planted", ["as run 12 showed", "Runs 13–15 measured", "in runs 46 and 47", "(run-46)"])
def test_a_study_s_conclusion_naming_a_run_is_found(planted):
    text = f'question = "Q?"\nconclusion = """It held, {planted}, at 1.04×.\nNo more."""\n'
    found = references(text, "planted.toml", STUDY_REFERENCES)
    assert found and all(hit.startswith("planted.toml:2: run number ") for hit in found), found


@pytest.mark.parametrize("innocent", ["a run cut short keeps the most", "one run's rotated rounds, not across runs",
                                      "8192³ at 1,980 MHz", "seconds = 90"])
def test_a_study_s_own_words_are_not_taken_for_run_numbers(innocent):
    assert references(innocent, "innocent.toml", STUDY_REFERENCES) == []


def test_no_study_names_a_run_an_issue_a_session_or_a_machine():
    definitions = sorted(STUDIES.glob("*.toml"))
    assert definitions, f"no study definitions under {STUDIES}"
    found = [hit for path in definitions
             for hit in references(path.read_text(encoding="utf-8"), path.name, STUDY_REFERENCES)]
    assert not found, "the study's page links its runs; say what they showed instead:\n" + "\n".join(found)


def test_no_tracked_text_names_an_issue_a_session_or_a_machine():
    found = [hit for name in tracked_text_files() if (text := _text_of(name)) is not None
             for hit in references(text, name)]
    assert not found, "say what was measured and why instead:\n" + "\n".join(found)


def test_no_help_text_names_an_issue_a_session_or_a_machine():
    runner = CliRunner()
    found = []
    for path in _commands(typer.main.get_command(app)):
        shown = runner.invoke(app, [*path, "--help"], terminal_width=200)
        assert shown.exit_code == 0, (path, shown.output)
        found += references(shown.output, "mage " + " ".join(path) + " --help")
    assert not found, "\n".join(found)


def test_every_command_s_help_is_read():
    assert {"run", "context", "best", "site"} <= {path[0] for path in _commands(typer.main.get_command(app)) if path}
