"""Isolation (mage run --isolate): each case runs in a worker process, so a crash costs rows, not the run.

Why the case is the unit: the spans of one case are measured for all its passing implementations
together, in rotated rounds, so the worker that times must hold them all. One worker per case
(mage.worker) runs Runner.run_case as a plain run does and stores its own rows in the same store
(SQLite in WAL mode takes a second writer). It reports every step on stdout; the parent follows:

- the worker dies (SIGSEGV, SIGABRT, an exit code) or exceeds its limit in a step that runs one
  implementation's code (its contract, profile or re-check): that implementation's rows are stored
  as failures with the reason, and the case starts again in a fresh worker without it (the others
  are checked and profiled again, so their spans are still measured together);
- the worker dies or runs out of time in a step shared by all (start-up, inputs, spans): every row
  of the case still missing is stored as a failure with the reason.

A worker may take the case's limit (--case-timeout), and a step of one implementation a quarter of
it; each restart gets the whole limit again, so a crash does not eat into the time of the others.
The parent stores only rows the worker has not stored (it reads them back once the worker ended),
so every row is stored exactly once. An out-of-memory error is an exception, not a crash: the
worker stores it as a skip, as a plain run does.

The cost is a worker start-up per case (Python, torch, CUDA, the registry; torch.compile's and
Triton's autotuning work is done again in every worker, from their on-disk caches where they have
them): seconds a case, measured with scripts/isolation_cost.py (results/README.md). That is small next to a
large or sweep case and nearly doubles the seed suite, so by default only large, sweep and reduction cases
are isolated (``--isolate`` isolates every case, ``--no-isolate`` none). A case that is not isolated runs
in the parent as in a plain run; a kernel that leaves the CUDA context unusable there stops the run
with its failure stored (mage.errors.DeviceLost), and the run resumes isolated.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
import threading
import time

from mage.plan import Planned, skip_reason
from mage.progress import Step
from mage.runner import Outcome, Runner
from mage.worker import PROGRESS

STEPS_OF_ONE = ("contract", "profile", "re-check")  # Runner's steps that run one implementation's code
STEP_SHARE = 4  # a step naming one implementation may take this fraction (1/STEP_SHARE) of the case's limit
POLL_S = 0.1
DEFAULT_SUITES = frozenset({"large", "sweep", "reduction"})  # cases isolated unless --isolate or --no-isolate says otherwise


class IsolatedRunner(Runner):
    def __init__(self, *args, case_timeout: float = 900.0, suites: frozenset | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.case_timeout = case_timeout
        self.suites = suites  # the suites whose cases run in workers; None: all

    def run_case(self, planned: Planned) -> None:
        in_process = self.suites is not None and planned.case.suite not in self.suites
        # A case whose implementations are all skipped (unavailable here, too large for a CPU run)
        # runs none of their code: its skips are stored without paying for a worker.
        if in_process or all(skip_reason(planned.spec, planned.case, impl, self.request.device)
                             for impl in planned.impls):
            super().run_case(planned)
            return
        left, reason = list(planned.impls), None
        while left:
            culprit, reason = self._run_worker(planned, left)
            if reason is None or culprit is None:
                break
            self._store_failures(planned, [culprit], reason)
            stored = {row.impl for row in self.store.stored_rows(self.run_id)
                      if (row.op, row.case) == (planned.case.op, planned.case.name)}
            left = [impl for impl in left if impl.name not in stored]  # skips and failures are stored at once
        # Rows the last worker did not store (a shared step failed; none if it finished) fail with its reason.
        self._store_failures(planned, planned.impls, reason or "the worker ended without storing this row")

    def _run_worker(self, planned: Planned, impls: list):
        """Run the case for ``impls`` in a worker: (culprit implementation or None, failure reason or None)."""
        job = {"db": str(self.store.path.resolve()), "run_id": self.run_id, "case": planned.case.key,
               "impls": [impl.name for impl in impls]}
        with tempfile.TemporaryFile(mode="w+") as stderr:
            # A session of its own: Ctrl-C reaches the parent only, which ends the worker below.
            worker = subprocess.Popen([sys.executable, "-m", "mage.worker", json.dumps(job)], stdout=subprocess.PIPE,
                                      stderr=stderr, text=True, start_new_session=True)
            steps = _Following(worker.stdout, self.on_progress)
            try:
                timeout = self._wait(worker, steps, impls)
            finally:
                if worker.poll() is None:
                    worker.kill()
                    worker.wait()
                steps.thread.join()
            culprit = _named(steps.latest, impls)
            where = f" during '{steps.latest}'" if steps.latest else " while starting"
            if timeout:
                return culprit, f"timed out after {timeout:g} s{where}"
            if worker.returncode < 0:
                return culprit, f"worker killed by {signal.Signals(-worker.returncode).name}{where}"
            if worker.returncode > 0:
                stderr.seek(0)
                last = ([line for line in stderr.read().splitlines() if line.strip()] or [""])[-1]
                return culprit, f"worker exited with code {worker.returncode}{where}: {last}"
            return None, None

    def _wait(self, worker: subprocess.Popen, steps: "_Following", impls: list) -> float | None:
        """Wait for the worker to end; the limit it exceeded, in seconds, if it had to be stopped."""
        deadline, step_limit = time.monotonic() + self.case_timeout, self.case_timeout / STEP_SHARE
        while worker.poll() is None:
            now = time.monotonic()
            if now > deadline:
                return self.case_timeout
            if _named(steps.latest, impls) and now - steps.started > step_limit:
                return step_limit
            time.sleep(POLL_S)
        return None

    def _store_failures(self, planned: Planned, impls: list, reason: str) -> None:
        stored = self.store.stored_rows(self.run_id)
        case_id = self.store.case_id(self.run_id, planned.case)
        for impl in impls:
            self._store_all(case_id, self.store.impl_id(self.run_id, impl), planned.spec, planned.case, impl,
                            Outcome("fail", reason), stored)


class _Following:
    """The worker's latest step, read from its stdout by a thread and passed on to ``on_progress``."""

    def __init__(self, stdout, on_progress):
        self.latest, self.started = None, time.monotonic()
        self.thread = threading.Thread(target=self._follow, args=(stdout, on_progress), daemon=True)
        self.thread.start()

    def _follow(self, stdout, on_progress) -> None:
        for line in stdout:
            if line.startswith(PROGRESS):
                self.latest, self.started = Step.from_json(line[len(PROGRESS):]), time.monotonic()
                on_progress(self.latest)


def _named(step: Step | None, impls: list):
    """The implementation a step of one implementation runs the code of, else None."""
    if step is None or step.step not in STEPS_OF_ONE:
        return None
    return next((impl for impl in impls if impl.name == step.impl), None)
