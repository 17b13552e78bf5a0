"""Under CI=true a test whose requirement is missing fails instead of skipping (tests/ci.py)."""

import os
import subprocess
import sys
from pathlib import Path

NEEDS_NOTHING_THERE = """
import pytest
from ci import required

@required(True, "no frobnicator here")
@pytest.mark.parametrize("n", [1])
def test_needs_it(n):
    assert n
"""


def _pytest(tmp_path, ci: str | None):
    (tmp_path / "test_probe.py").write_text(NEEDS_NOTHING_THERE)
    env = {k: v for k, v in os.environ.items() if k != "CI"} | ({"CI": ci} if ci else {})
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          capture_output=True, text=True, env=env, cwd=tmp_path)


def test_a_missing_requirement_skips_on_a_developer_machine(tmp_path):
    result = _pytest(tmp_path, None)
    assert result.returncode == 0 and "1 skipped" in result.stdout


def test_a_missing_requirement_fails_under_ci(tmp_path):
    result = _pytest(tmp_path, "true")
    assert result.returncode == 1 and "1 failed" in result.stdout
    assert "no frobnicator here, and CI=true: CI must provide it" in result.stdout
