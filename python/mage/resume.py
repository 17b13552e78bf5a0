"""Resuming an interrupted run (mage run --resume RUN): repeat only what is missing.

A run stores its Request in its method, so it can be planned again exactly. Resumption works a
whole case at a time: the spans of one case are measured for all its implementations together, in
rotated rounds, so a case with some rows stored is deleted (in one transaction) and redone whole,
rather than measuring the missing rows against a different set of contenders (which rows a case
stores: mage.plan.case_rows).
"""

from __future__ import annotations

import dataclasses

from mage.backends.peers import PEERS
from mage.errors import MageError, RunClaimedError
from mage.measure.method import Method
from mage.plan import Request
from mage.store import CONTEXT_SUITE, describe_claim

REQUEST_KEY = "request"
CONTEXT_NOT_RESUMED = ("a context run is not resumed (a block's assignments are timed against one another in one "
                       "go, so its blocks are measured again whole); measure it again with")
# What must match for the numbers of one run to stay comparable. Another machine of the same kind
# is allowed (a lost machine is a reason to resume); where each part ran is recorded at the end.
_MUST_MATCH = ("device", "gpu", "torch", "triton", "native_build", "git_commit",
               *(distribution for peer in PEERS for distribution in peer.distributions()))


def request_record(request: Request) -> dict:
    """What is stored with a run so that it can be planned again (the method is stored beside it)."""
    return {"suites": request.suites, "ops": request.ops, "impls": request.impls, "paths": request.paths,
            "caches": request.caches, "device": request.device, "all_strategies": request.all_strategies,
            "cases": request.cases, "study": request.study}


# Method parameters whose default changed how a run samples, at the value runs stored before them were
# sampled with: a target of zero noise takes every affordable sample, as runs did before noise stopping.
_BEFORE_IT_EXISTED = {"noise_target": 0.0}


def stored_request(run: dict) -> Request:
    """The Request of a stored run, or a MageError saying why it cannot be resumed."""
    if run["status"] == "running":  # its claim is live (mage.store reads a dead owner's run as incomplete)
        raise RunClaimedError(f"run {run['id']} is being run by {describe_claim(run)}; it is not resumed twice")
    if run["status"] != "incomplete":
        raise MageError(f"run {run['id']} is {run['status']}; only an incomplete run can be resumed")
    if run["suite"] == CONTEXT_SUITE:
        raise MageError(f"run {run['id']} is a context run: {CONTEXT_NOT_RESUMED}: {run['command']}")
    return request_of(run)


def request_of(run: dict) -> Request:
    """The Request a run was started with, as stored in its method."""
    record = run["method"].get(REQUEST_KEY)
    if record is None:
        raise MageError(f"run {run['id']} was stored before runs recorded their request; it cannot be resumed")
    # A parameter added after the run was stored takes the value that measures as the run was measured,
    # else its default.
    stored = {**_BEFORE_IT_EXISTED, **run["method"]}
    method = Method(**{f.name: stored[f.name] for f in dataclasses.fields(Method) if f.name in stored})
    # A run stored before families had champions ran every strategy of a family it selected.
    return Request(**{"all_strategies": True, **record}, method=method)


def check_comparable(run: dict, current_env: dict) -> None:
    # A CPU run's clock is the host CPU's, so there the CPU model is the device that must match.
    for key in _MUST_MATCH + (("host_cpu",) if run["env"].get("device") == "cpu" else ()):
        if run["env"].get(key) != current_env.get(key):
            raise MageError(f"run {run['id']} was measured with {key} {run['env'].get(key)!r}, this is "
                            f"{current_env.get(key)!r}; its numbers would not be comparable, so it is not resumed")

