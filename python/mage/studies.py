"""Studies as data: a question, the cases and implementations that answer it, and what to expect.

A study is one TOML file in ``python/mage/studies/`` (its name is the file's): the question, the ops, the
cases in the order they should run (the targets first, so a run cut short keeps the most), the
implementations, the cache states and launch paths, the sampling budget, and optionally the hypothesis
and predictions of its next run. ``mage study NAME`` runs it as ``mage run`` would, with the study's name
stored in the run's request; ``mage study`` lists them. Every study is planned and its predictions
validated in the tests, so a renamed case or implementation fails there, not on the GPU.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass
from pathlib import Path

from mage.errors import MageError, UnknownNameError
from mage.measure.method import Method
from mage.spec import SUITES

FOLDER = Path(__file__).with_name("studies")


@dataclass(frozen=True)
class Study:
    name: str
    question: str
    ops: list[str]
    cases: list[str]
    impls: list[str]
    caches: list[str] = dataclasses.field(default_factory=lambda: ["warm"])
    paths: list[str] = dataclasses.field(default_factory=lambda: ["single"])
    budget_s: float = Method.budget_s
    min_samples: int = Method.min_samples
    seconds: int = 0  # about what a run takes on an H200, after start-up: the bound a GPU call gives it
    hypothesis: str | None = None
    predict: list[str] = dataclasses.field(default_factory=list)

    @property
    def headline(self) -> str:
        """The question's first sentence."""
        text = " ".join(self.question.split())
        ends = [i for i in (text.find("? "), text.find(". ")) if i >= 0]
        return text[:min(ends) + 1] if ends else text

    def request(self, device: str):
        from mage.plan import Request, fresh_method

        return Request(suites=list(SUITES), ops=self.ops, impls=self.impls, cases=self.cases, paths=self.paths,
                       caches=self.caches, device=device, study=self.name,
                       method=fresh_method(Method(budget_s=self.budget_s, min_samples=self.min_samples)))


def names() -> list[str]:
    return sorted(path.stem for path in FOLDER.glob("*.toml"))


def load(name: str) -> Study:
    path = FOLDER / f"{name}.toml"
    if not path.is_file():
        raise UnknownNameError(f"unknown study {name!r}; known: {', '.join(names())}")
    try:
        fields = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise MageError(f"{path}: not a study definition: {error}") from None
    known = {field.name for field in dataclasses.fields(Study)} - {"name"}
    if unknown := sorted(set(fields) - known):
        raise MageError(f"{path}: unknown keys {', '.join(unknown)}; a study has {', '.join(sorted(known))}")
    try:
        return Study(name=name, **fields)
    except TypeError as error:  # a required key missing
        raise MageError(f"{path}: {error}") from None


def every() -> list[Study]:
    return [load(name) for name in names()]
