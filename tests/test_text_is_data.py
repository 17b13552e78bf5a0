"""Text from the store or the command line is shown as written, never read as rich markup or as HTML:
hostile strings go in through a real run and a real import, and come out of the real commands."""

import json

import pytest

from test_cli import mage

HYPOTHESIS = "fix [/bold] tags [link=https://e.x]here[/link]"  # crashed `mage show`; a hyperlink hid the text
REASON = "bad [/r] <script>x</script> a|b"


def _flat(text: str) -> str:
    """Table cells wrap at spaces; compare the words."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory):
    """Run 1: a real CPU run with a hostile hypothesis. Run 2: its export, imported with hostile text in the
    suite, the command, the GPU name, the commit and a failure's reason."""
    cwd = tmp_path_factory.mktemp("hostile")
    ran = mage("run", "--op", "layernorm", "--impl", "eager", "--path", "single", "--path", "batch",
               "--hypothesis", HYPOTHESIS, cwd=cwd)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert mage("export", "1", "--run-json", "-o", "run1.json", cwd=cwd).returncode == 0
    document = json.loads((cwd / "run1.json").read_text())
    run = document["runs"][0]
    run["run"] |= {"fingerprint": "hostile", "suite": "[/x]", "command": "mage [/y] [link=https://e.x]c[/link]"}
    run["run"]["env"] |= {"gpu": "<b>G|PU</b> [/z]", "git_commit": "[/g]"}
    batch = next(r for r in run["results"] if r["path"] == "batch")
    batch |= {"status": "fail", "contract": "fail", "reason": REASON}
    (cwd / "hostile.json").write_text(json.dumps(document))
    imported = mage("import", "hostile.json", cwd=cwd)
    assert imported.returncode == 0 and "imported as run 2" in imported.stdout, imported.stdout + imported.stderr
    return cwd


def test_show_prints_a_stored_hypothesis_and_command_as_written(hostile_store):
    shown = mage("show", "1", cwd=hostile_store)
    assert shown.returncode == 0, shown.stderr
    assert f"hypothesis: {HYPOTHESIS}" in _flat(shown.stdout)
    assert "--hypothesis 'fix [/bold] tags [link=https://e.x]here[/link]'" in shown.stdout


def test_runs_show_compare_and_history_print_imported_text_literally(hostile_store):
    runs = mage("runs", cwd=hostile_store)
    assert runs.returncode == 0, runs.stderr
    assert "[/x]" in runs.stdout and "<b>G|PU</b> [/z]" in _flat(runs.stdout)
    shown = mage("show", "2", cwd=hostile_store)
    assert shown.returncode == 0, shown.stderr
    assert "<b>G|PU</b> [/z]" in shown.stdout and "command: mage [/y] [link=https://e.x]c[/link]" in shown.stdout
    assert REASON in _flat(shown.stdout)
    compared = mage("compare", "1", "2", "--all", cwd=hostile_store)
    assert compared.returncode == 0, compared.stderr
    assert "B = run 2 (" in compared.stdout and "mage [/y] [link=https://e.x]c[/link])" in compared.stdout
    assert "<b>G|PU</b> [/z]" in _flat(compared.stdout)
    history = mage("history", "--points", cwd=hostile_store)
    assert history.returncode == 0, history.stderr
    assert "[/g]" in history.stdout


def test_markdown_tables_escape_html_and_pipes(hostile_store):
    made = mage("report", "2", "--out", "report", cwd=hostile_store)
    assert made.returncode == 0, made.stderr
    tables = (hostile_store / "report" / "tables.md").read_text()
    assert "on &lt;b&gt;G\\|PU&lt;/b&gt; [/z]" in tables
    assert "| bad [/r] &lt;script&gt;x&lt;/script&gt; a\\|b |" in tables
    assert "<b>" not in tables and "<script>" not in tables
