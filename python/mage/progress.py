"""The steps a run reports as it goes: the CLI's progress bar shows them on a terminal (elsewhere CaseLines, a
line per case, or StepLines, a line per step), and an isolated case's worker sends each to its parent as one
JSON line (mage.worker, mage.isolation), so nothing parses words."""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Step:
    case: str  # the case's key
    step: str  # check, contract, profile, span or re-check
    impl: str | None = None  # the implementation the step is about; None for a step shared by all (span)
    where: str | None = None  # a span's path and cache state, e.g. single/warm
    note: str = ""  # e.g. "stored before": the step is done without running anything

    def __str__(self) -> str:
        text = " ".join(part for part in (self.case, self.step, self.impl, self.where) if part)
        return f"{text}: {self.note}" if self.note else text

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Step:
        return cls(**json.loads(text))


class CaseLines:
    """Progress for a log (output that is not a terminal): one line per case as it finishes, with the seconds
    it took and the run's elapsed total. A case is finished when a step of another case arrives, or at close."""

    def __init__(self, write: Callable[[str], None], cases: int, clock: Callable[[], float] = time.monotonic):
        self.write, self.cases, self.clock = write, cases, clock
        self.started = self.case_started = clock()
        self.case: str | None = None
        self.finished = 0

    def step(self, step: Step) -> None:
        if step.case != self.case:
            self._finish()
            self.case, self.case_started = step.case, self.clock()

    def close(self) -> None:
        self._finish()
        self.case = None

    def _finish(self) -> None:
        if self.case is None:
            return
        self.finished += 1
        now = self.clock()
        self.write(f"[{self.finished}/{self.cases}] {self.case}: {now - self.case_started:.1f} s "
                   f"(elapsed {now - self.started:.1f} s)")


class StepLines:
    """Progress for a log, step by step: each step as it is reached, with the seconds since the start. A model
    block's steps can take tens of seconds each, so a line per block would hide where its time goes."""

    def __init__(self, write: Callable[[str], None], clock: Callable[[], float] = time.monotonic):
        self.write, self.clock = write, clock
        self.started = clock()

    def step(self, step: Step) -> None:
        self.write(f"{self.clock() - self.started:8.1f} s  {step}")

    def close(self) -> None:
        pass
