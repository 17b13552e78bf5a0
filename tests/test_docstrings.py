"""Docstrings and help text say how the code works, not what one run measured: such numbers go stale
(results/README.md and docs/METHOD.md keep them)."""

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "mage"
STALE = re.compile(r"\b[Rr]uns? \d+\b|\bH200\b|~\s?\d+(\.\d+)? ?s\b")


def _texts(path: Path):
    """(line, text) of every docstring and every help= string of a module."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                yield getattr(node, "lineno", 1), docstring
        if isinstance(node, ast.keyword) and node.arg == "help":
            yield node.value.lineno, "".join(part.value for part in ast.walk(node.value)
                                             if isinstance(part, ast.Constant) and isinstance(part.value, str))


def test_no_docstring_or_help_text_quotes_a_run():
    stale = [f"{path.relative_to(PACKAGE)}:{line}: {match.group(0)!r}"
             for path in sorted(PACKAGE.rglob("*.py")) for line, text in _texts(path)
             for match in STALE.finditer(text)]
    assert not stale, "move these facts to results/README.md or docs/METHOD.md:\n" + "\n".join(stale)
