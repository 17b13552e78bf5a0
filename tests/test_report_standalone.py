"""A report is a function of the store alone: rendering a stored run imports no kernel module.

The readers run in a subprocess whose import system refuses triton, mage.ops, mage.backends and the
native extension, as on a machine that has none of them, on a real run with predictions.
"""

import os
import subprocess
import sys

BLOCKED = ("triton", "mage.ops", "mage.backends", "mage._native")
BLOCKING_MAGE = f"""
import importlib.abc, sys

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == blocked or name.startswith(blocked + ".") for blocked in {BLOCKED!r}):
            raise ImportError(f"{{name}} is not installed on this machine (blocked by the test)")

sys.meta_path.insert(0, Refuse())
from mage.cli import main
main()
"""


def _mage(cwd, *args, blocked: bool):
    command = [sys.executable, "-c", BLOCKING_MAGE] if blocked else [sys.executable, "-m", "mage"]
    return subprocess.run([*command, *args], cwd=cwd, capture_output=True, text=True, timeout=900,
                          env=os.environ | {"COLUMNS": "250"})


def test_report_show_compare_and_history_import_no_kernel(tmp_path):
    ran = _mage(tmp_path, "run", "--op", "layernorm", "--impl", "eager", "--impl", "compile/affine/ieee",
                "--path", "single",
                "--hypothesis", "eager is host-bound", "--predict", "layernorm/eager:span<1e9", blocked=False)
    assert ran.returncode == 0, ran.stderr
    reported = _mage(tmp_path, "report", "1", "--out", "report", blocked=True)
    assert reported.returncode == 0, reported.stderr
    page = (tmp_path / "report" / "report.html").read_text()
    assert "layernorm/eager:span&lt;1e9</code></td><td>eager/affine/ieee" in page  # the prediction, judged
    assert "| eager | compile |" in (tmp_path / "report" / "tables.md").read_text()
    for args in (("show", "1"), ("compare", "1", "1"), ("history", "--op", "layernorm")):
        shown = _mage(tmp_path, *args, blocked=True)
        assert shown.returncode == 0, (args, shown.stderr)
        assert "Traceback" not in shown.stderr


def test_the_blocker_refuses_kernels(tmp_path):
    """The guard itself: a command that needs the kernels fails under it."""
    checked = _mage(tmp_path, "check", "--op", "layernorm", "--impl", "eager", blocked=True)
    assert checked.returncode != 0 and "blocked by the test" in checked.stdout + checked.stderr
