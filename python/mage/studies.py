"""Studies as data: a question, the cases and implementations that answer it, and what to expect.

A study is one TOML file in ``python/mage/studies/`` (its name is the file's): the question, the ops, the
cases in the order they should run (the targets first, so a run cut short keeps the most), the
implementations, the cache states and launch paths, the sampling budget, optionally the hypothesis and
predictions of its next run, and its conclusion: what its stored runs showed, a few sentences with their
numbers, written by hand on the date ``concluded`` (its page links the runs and names those made after). ``mage study NAME`` runs it as ``mage run`` would, with
the study's name stored in the run's request; ``mage study`` lists them. Every study is planned and its
predictions validated in the tests, so a renamed case or implementation fails there, not on the GPU.

A study of model blocks has a ``[context]`` table instead of ops, cases and implementations: the blocks,
precisions, assignments and whole-block compiles ``mage context`` takes; ``mage study NAME`` then runs
``mage context`` with them, the study's name stored in the run's method. Its prediction is Amdahl's, made
by every context run from measured fractions, so it states no hypothesis or predictions of its own.
"""

from __future__ import annotations

import dataclasses
import datetime
import tomllib
from dataclasses import dataclass
from pathlib import Path

from mage.backends.compiled import MODES
from mage.errors import MageError, UnknownNameError
from mage.measure.method import Method
from mage.report.format import first_sentence
from mage.spec import SUITES

FOLDER = Path(__file__).with_name("studies")
OP_KEYS = ("ops", "cases", "impls")  # what an op study needs and a study of model blocks has no use for
CONTEXT_ONLY_REFUSES = (*OP_KEYS, "caches", "paths", "hypothesis", "predict")


@dataclass(frozen=True)
class ContextPart:
    """What ``mage context`` measures for a study of model blocks, as its options name it."""

    blocks: list[str]  # names (mlp/gpt2-small) or families (trimul)
    precisions: list[str] = dataclasses.field(default_factory=lambda: ["ieee"])
    assign: dict[str, str] = dataclasses.field(default_factory=dict)  # op -> implementation; empty: every faster one
    size: str = "full"
    compile_modes: list[str] = dataclasses.field(default_factory=lambda: list(MODES))
    fused: bool = True


@dataclass(frozen=True)
class Study:
    name: str
    question: str
    ops: list[str] = dataclasses.field(default_factory=list)
    cases: list[str] = dataclasses.field(default_factory=list)
    impls: list[str] = dataclasses.field(default_factory=list)
    caches: list[str] = dataclasses.field(default_factory=lambda: ["warm"])
    paths: list[str] = dataclasses.field(default_factory=lambda: ["single"])
    budget_s: float = Method.budget_s
    min_samples: int = Method.min_samples
    seconds: int = 0  # about what a run takes on an H200, after start-up: the bound a GPU call gives it
    hypothesis: str | None = None
    predict: list[str] = dataclasses.field(default_factory=list)
    context: ContextPart | None = None  # a study of model blocks (mage context) instead of op cases
    conclusion: str | None = None  # what the stored runs showed; never the next run's hypothesis confirmed
    concluded: datetime.date | None = None  # when it was written: runs after it may not bear it out

    @property
    def headline(self) -> str:
        """The question's first sentence."""
        return first_sentence(self.question)

    @property
    def scope(self) -> str:
        """What a run measures, in a few words."""
        if self.context is not None:
            return f"{_count(len(self.context.blocks), 'model block')} at {', '.join(self.context.precisions)}"
        return f"{_count(len(self.cases), 'case')}, {_count(len(self.impls), 'implementation')}"

    def _method(self) -> Method:
        from mage.plan import fresh_method

        return fresh_method(Method(budget_s=self.budget_s, min_samples=self.min_samples))

    def request(self, device: str):
        """The mage run request of an op study."""
        from mage.plan import Request

        return Request(suites=list(SUITES), ops=self.ops, impls=self.impls, cases=self.cases, paths=self.paths,
                       caches=self.caches, device=device, study=self.name, method=self._method())

    def context_request(self, device: str):
        """The mage context request of a study of model blocks."""
        from mage.context import measure

        part = self.context
        return measure.Request(blocks=part.blocks, precisions=part.precisions, device=device, size=part.size,
                               method=self._method(), assign=part.assign, compile_modes=tuple(part.compile_modes),
                               fused=part.fused, study=self.name)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


def named_study(run: dict) -> str | None:
    """The study a stored run was made for: an op run keeps it in its stored request, a context run in its
    method beside its blocks; None for a run made otherwise."""
    method = run["method"]
    return (method.get("request") or {}).get("study") or method.get("study")


def names() -> list[str]:
    return sorted(path.stem for path in FOLDER.glob("*.toml"))


def _fields(cls, fields: dict, path: Path, where: str = "a study") -> dict:
    known = {field.name for field in dataclasses.fields(cls)} - {"name"}
    if unknown := sorted(set(fields) - known):
        raise MageError(f"{path}: unknown keys {', '.join(unknown)}; {where} has {', '.join(sorted(known))}")
    return fields


def load(name: str) -> Study:
    path = FOLDER / f"{name}.toml"
    if not path.is_file():
        raise UnknownNameError(f"unknown study {name!r}; known: {', '.join(names())}")
    try:
        fields = _fields(Study, tomllib.loads(path.read_text(encoding="utf-8")), path)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise MageError(f"{path}: not a study definition: {error}") from None
    try:
        if "context" in fields:
            if given := [key for key in CONTEXT_ONLY_REFUSES if key in fields]:
                raise MageError(f"{path}: a study of model blocks measures them with mage context (its prediction "
                                f"is Amdahl's): it has no {', '.join(given)}")
            fields["context"] = ContextPart(**_fields(ContextPart, fields["context"], path, "its [context] table"))
        elif missing := [key for key in OP_KEYS if key not in fields]:
            raise MageError(f"{path}: missing keys {', '.join(missing)} (or a [context] table of model blocks)")
        if ("conclusion" in fields) != isinstance(fields.get("concluded"), datetime.date):
            raise MageError(f"{path}: a conclusion goes with the date it was written (concluded = YYYY-MM-DD), "
                            "and a date with a conclusion")
        return Study(name=name, **fields)
    except TypeError as error:  # a required key missing
        raise MageError(f"{path}: {error}") from None


def every() -> list[Study]:
    return [load(name) for name in names()]
