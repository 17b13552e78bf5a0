"""The steps a run reports as it goes: the CLI's progress bar shows them, and an isolated case's worker
sends each to its parent as one JSON line (mage.worker, mage.isolation), so nothing parses words."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass


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
