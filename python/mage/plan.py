"""What a run will do, decided before anything runs: the request, the planned cases, the skips.

A Request names suites, ops, implementations, paths, caches, the device and the method; plan()
validates every name in it and lists the (case, implementations) to run. What a case stores is
known here too (case_rows), so a resumed run (mage.resume) can tell which cases are whole.
"""

from __future__ import annotations

import dataclasses
import difflib
import random
from dataclasses import dataclass

import torch

from mage import registry
from mage.errors import MageError, UnknownNameError
from mage.measure.method import PATHS, Method
from mage.registry import Implementation
from mage.spec import STUDY_SUITES, SUITES, Case
from mage.store import RowKey


@dataclass
class Request:
    suites: list[str]
    ops: list[str] | None = None
    impls: list[str] | None = None
    paths: list[str] = dataclasses.field(default_factory=lambda: ["single"])
    caches: list[str] = dataclasses.field(default_factory=lambda: ["warm"])
    device: str = "cuda"
    method: Method = dataclasses.field(default_factory=Method)
    # Every strategy of each family, not only its champion (mage.registry.select); a study suite's cases
    # (spec.STUDY_SUITES) run them all regardless.
    all_strategies: bool = False
    cases: list[str] | None = None  # only the cases of these names (of the selected ops and suites), in this order
    study: str | None = None  # the study (mage.studies) this request runs


@dataclass
class Planned:
    spec: object
    case: Case
    impls: list[Implementation]


def default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def fresh_method(method: Method) -> Method:
    """The run's contracts draw from a seed of their own, stored with the method."""
    return dataclasses.replace(method, check_seed=random.SystemRandom().randrange(2**31))


def plan(request: Request) -> list[Planned]:
    """Validate every name in ``request`` and list the work, before anything runs."""
    for suite in request.suites:
        if suite not in SUITES:
            raise UnknownNameError(f"unknown suite {suite!r}; known: {', '.join(SUITES)}, all")
    for path in request.paths:
        if path not in PATHS:
            raise UnknownNameError(f"unknown path {path!r}; known: {', '.join(PATHS)}")
    if "cold" in request.caches and request.device != "cuda":
        raise MageError("--cold flushes a GPU's L2 before every sample; a CPU run has no L2 flush, so its rows "
                        "would be warm under a cold label: drop --cold")
    op_names = request.ops or sorted(registry.ops())
    specs = [registry.get_op(name) for name in op_names]
    if request.impls:
        registry.check_patterns(request.impls, op_names)
    if request.cases:
        _check_case_names(request, specs)
    work = []
    for spec in specs:
        for case in spec.cases():
            if case.suite in request.suites and (not request.cases or case.name in request.cases):
                impls = selected(spec.name, request, case.suite)
                if impls:
                    work.append(Planned(spec, case, impls))
    if request.cases:
        work.sort(key=lambda planned: request.cases.index(planned.case.name))  # stable: an op's order stays
    return work


def _check_case_names(request: Request, specs: list) -> None:
    """Every named case is a case of a selected op in a selected suite, or an error that says what is."""
    known = {case.name: case for spec in specs for case in spec.cases()}
    for name in request.cases:
        case = known.get(name)
        if case is None:
            close = difflib.get_close_matches(name, known, n=3)
            hint = f"did you mean {', '.join(close)}?" if close else f"known: {', '.join(list(known)[:8])}, …"
            raise UnknownNameError(f"unknown case {name!r} of {', '.join(spec.name for spec in specs)}; {hint}")
        if case.suite not in request.suites:
            raise UnknownNameError(f"case {name!r} is in the {case.suite} suite, not in {', '.join(request.suites)}")


def selected(op: str, request: Request, suite: str | None = None) -> list[Implementation]:
    """What ``request`` runs of ``op`` on a case of ``suite``: every strategy on a study suite's cases."""
    return registry.select(op, request.impls, request.all_strategies or suite in STUDY_SUITES)


def skip_reason(spec, case: Case, impl: Implementation, device: str) -> str | None:
    """Why ``impl`` cannot run ``case`` on ``device`` (its rows are skips with this reason), else None."""
    reason = impl.unavailable_reason(device) or impl.case_skip_reason(case.params)
    if reason is None and device == "cpu":
        work = spec.flops(case, impl.variant) + spec.bytes(case, impl.variant)
        if work > spec.cpu_work_limit:
            reason = f"too large for a CPU run ({work:.3g} flops+bytes > {spec.cpu_work_limit:.3g})"
    return reason


def path_skip_reason(path: str, device: str) -> str | None:
    """Why this device cannot run a launch path at all: its rows are skips with this reason, not failures."""
    if path == "graph" and device != "cuda":
        return "the graph path replays a CUDA graph, which needs a CUDA device"
    return None


def case_rows(planned: Planned, paths: list[str], caches: list[str]) -> set[RowKey]:
    """Every row the case stores when it runs."""
    return {RowKey(planned.case.op, planned.case.name, impl.name, path, cache)
            for impl in planned.impls for path in paths for cache in caches}
