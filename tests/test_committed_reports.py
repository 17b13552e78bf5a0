"""The committed H200 reports are what `mage report` makes of the committed store, byte for byte."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RESULTS = Path(__file__).resolve().parents[1] / "results" / "h200"
REPORTS = sorted(RESULTS.glob("report-run-*"))
COMPARED = ("report.html", "tables.md", "figure.svg")


@pytest.mark.parametrize("committed", REPORTS, ids=lambda path: path.name)
def test_committed_report_regenerates_identically(committed, tmp_path):
    db = tmp_path / "mage.db"
    shutil.copy(RESULTS / "mage.db", db)  # opening a store may migrate it: never the committed file
    run_id = committed.name.removeprefix("report-run-")
    out = tmp_path / "report"
    made = subprocess.run([sys.executable, "-m", "mage", "report", run_id, "--db", str(db), "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    for name in COMPARED:
        assert (out / name).read_bytes() == (committed / name).read_bytes(), (
            f"{committed.name}/{name} is not what the committed store gives: regenerate it with "
            f"`mage report {run_id} --db results/h200/mage.db --out results/h200/{committed.name}`"
        )


def test_there_are_committed_reports():
    assert REPORTS, "results/h200 should hold the reports of the committed runs"
