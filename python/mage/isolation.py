"""Isolation (mage run --isolate): each case runs in a worker process, so a crash costs rows, not the run.

Why the case is the unit: the spans of one case are measured for all its passing implementations
together, in rotated rounds, so the worker that times must hold them all. One worker per case
(mage.worker) runs Runner.run_case as a plain run does and sends its rows and steps on stdout; the
parent is the store's one writer, storing each row as it arrives. It follows the worker:

- the worker dies (SIGSEGV, SIGABRT, an exit code) or exceeds its limit in a step that runs one
  implementation's code (its contract, profile or re-check): that implementation's rows are stored
  as failures with the reason, and the case starts again in a fresh worker without it (the others
  are checked and profiled again, so their spans are still measured together);
- the worker dies or runs out of time in a step shared by all (start-up, inputs, spans): every row
  of the case still missing is stored as a failure with the reason.

A worker may take the case's limit (--case-timeout), counted from its first step (its start-up has the
same limit of its own and is charged to no implementation), and a step of one implementation a quarter
of it; each restart gets the whole limit again, so a crash does not eat into the time of the others.
Only a step that overran its own limit is charged to its implementation: a case that runs out of time
as a whole fails every row still missing.
The parent stores what the worker sent, then only the rows still missing, so every row is stored
exactly once. An out-of-memory error is an exception, not a crash: the worker sends it as a skip,
as a plain run stores it.

Several GPUs (mage run --gpus): one slot per GPU, each running one worker at a time pinned to its GPU
with CUDA_VISIBLE_DEVICES, takes the next case from a shared queue; a case never spans two GPUs, so
its rotated rounds stay on one device. Only the parent writes the store, under one lock.

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
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time

from mage.errors import WorkersLost
from mage.measure import ceilings, env
from mage.plan import Planned, skip_reason
from mage.progress import Step
from mage.registry import Implementation
from mage.runner import Outcome, Runner
from mage.worker import PROGRESS, ROW, read_row

STEPS_OF_ONE = ("contract", "profile", "re-check")  # Runner's steps that run one implementation's code
STEP_SHARE = 4  # a step naming one implementation may take this fraction (1/STEP_SHARE) of the case's limit
POLL_S = 0.1
DEFAULT_SUITES = frozenset({"large", "sweep", "reduction"})  # cases isolated unless --isolate or --no-isolate says otherwise


class LocalWorker:
    """``python -m mage.worker JOB`` as a process of this host, pinned to ``gpu`` (its CUDA_VISIBLE_DEVICES)
    unless None. What IsolatedRunner needs of any worker: its stdout ``lines``, ``poll`` and ``returncode``
    (negative: killed by that signal), ``kill``, ``last_error`` (its last line on stderr), ``lost`` (why its
    machine was lost, or '': a local process is never lost, only killed) and ``close``."""

    lost = ""

    def __init__(self, job: dict, gpu: str | None):
        self._stderr = tempfile.TemporaryFile(mode="w+")
        environment = None if gpu is None else os.environ | {"CUDA_VISIBLE_DEVICES": gpu}
        # A session of its own: Ctrl-C reaches the parent only, which ends the worker.
        self.process = subprocess.Popen([sys.executable, "-m", "mage.worker", json.dumps(job)], stdout=subprocess.PIPE,
                                        stderr=self._stderr, text=True, start_new_session=True, env=environment)
        self.lines = self.process.stdout

    def poll(self) -> int | None:
        return self.process.poll()

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()

    def last_error(self) -> str:
        self._stderr.seek(0)
        return ([line for line in self._stderr.read().splitlines() if line.strip()] or [""])[-1]

    def close(self) -> None:
        self._stderr.close()


class IsolatedRunner(Runner):
    def __init__(self, *args, case_timeout: float = 900.0, suites: frozenset | None = None,
                 gpus: list[str | None] | None = None, launch=LocalWorker, **kwargs):
        super().__init__(*args, **kwargs)
        self.case_timeout = case_timeout
        self.suites = suites  # the suites whose cases run in workers; None: all
        self.gpus = gpus or [None]  # a worker slot per entry: its CUDA_VISIBLE_DEVICES, None to inherit
        self.launch = launch  # (job, gpu) -> a worker (LocalWorker, or mage.ray_workers' on a Ray cluster)
        self.lost: list[str] = []  # cases whose worker's machine was lost: left for --resume
        self.slot_ceilings: dict[str, dict] = {}  # a --gpus run's ceilings of each GPU slot
        self._store_lock = threading.RLock()  # the slots' threads share the parent's one store connection
        self._stopping = threading.Event()  # set when the run stops: the slots end their workers

    def _run_all(self, todo: list[Planned]) -> None:
        self._run_slots(todo)
        if self.lost:
            raise WorkersLost(self.lost)

    def _measure_slot_ceilings(self) -> None:
        """The ceilings of each GPU of a --gpus run, measured here (slot i is this process's CUDA device i):
        each case's floors are its own GPU's, and the run's end records them all."""
        if self.request.device != "cuda" or self.launch is not LocalWorker or len(self.gpus) < 2:
            return
        import torch

        for index, gpu in enumerate(self.gpus):
            with torch.cuda.device(index):
                self.slot_ceilings[gpu] = ceilings.measure("cuda")
        self.end_notes["gpus"] = [{"slot": gpu, **env.gpu_identity_of(index), "ceilings": self.slot_ceilings[gpu]}
                                  for index, gpu in enumerate(self.gpus)]

    def _run_slots(self, todo: list[Planned]) -> None:
        self._measure_slot_ceilings()
        if len(self.gpus) == 1:
            for planned in todo:
                self.run_case(planned, self.gpus[0])
            return
        cases: queue.SimpleQueue = queue.SimpleQueue()
        for planned in todo:
            cases.put(planned)
        failed: list[BaseException] = []

        def slot(gpu: str) -> None:
            while not self._stopping.is_set():
                try:
                    planned = cases.get_nowait()
                except queue.Empty:
                    return
                try:
                    self.run_case(planned, gpu)
                except BaseException as error:  # the store failed: the run stops, as a plain run would
                    failed.append(error)
                    self._stopping.set()

        slots = [threading.Thread(target=slot, args=(gpu,), name=f"mage-gpu-{gpu}", daemon=True) for gpu in self.gpus]
        for thread in slots:
            thread.start()
        try:
            for thread in slots:
                while thread.is_alive():
                    thread.join(POLL_S)  # in steps, so a signal reaches this (the main) thread
        finally:
            self._stopping.set()
            for thread in slots:
                thread.join()
        if failed:
            raise failed[0]

    def run_case(self, planned: Planned, gpu: str | None = None) -> None:
        in_process = self.suites is not None and planned.case.suite not in self.suites
        # A case whose implementations are all skipped (unavailable here, too large for a CPU run)
        # runs none of their code: its skips are stored without paying for a worker.
        if in_process or all(skip_reason(planned.spec, planned.case, impl, self.request.device)
                             for impl in planned.impls):
            with self._store_lock:
                super().run_case(planned)
            return
        left, reason = list(planned.impls), None
        while left:
            try:
                culprit, reason = self._run_worker(planned, left, gpu)
            except _Lost as lost:  # not the case's fault: it stays unstored for --resume, as an interrupted one
                self.lost.append(f"{planned.case.key} ({lost})")
                return
            if self._stopping.is_set():
                return  # interrupted: the case stays partly stored, for resume to redo whole
            if reason is None or culprit is None:
                break
            self._store_failures(planned, [culprit], reason)
            with self._store_lock:
                stored = {row.impl for row in self.store.stored_rows(self.run_id)
                          if (row.op, row.case) == (planned.case.op, planned.case.name)}
            left = [impl for impl in left if impl.name not in stored]  # skips and failures are stored at once
        # Rows the last worker did not send (a shared step failed; none if it finished) fail with its reason.
        self._store_failures(planned, planned.impls, reason or "the worker ended without sending this row")

    def _job_run(self) -> dict:
        """What a worker needs of the run: its id, command, method (with the request) and ceilings."""
        with self._store_lock:
            run = self.store.run(self.run_id)
        return {key: run[key] for key in ("id", "command", "method", "ceilings")}

    def _run_worker(self, planned: Planned, impls: list, gpu: str | None = None):
        """Run the case for ``impls`` in a worker, storing the rows it sends: (culprit implementation or
        None, failure reason or None). A worker whose machine was lost raises WorkerLost."""
        run = self._job_run()
        run["ceilings"] = self.slot_ceilings.get(gpu, run["ceilings"])
        job = {"run": run, "case": planned.case.key, "impls": [impl.name for impl in impls]}
        worker = self.launch(job, gpu)
        try:
            steps = _Following(worker.lines, self.on_progress)
            try:
                timeout, overran = self._wait(worker, steps, planned, impls)
            finally:
                if worker.poll() is None:
                    worker.kill()
                steps.thread.join()
                self._store_sent(planned, impls, steps)
            culprit = _named(steps.latest, impls)
            where = f" during '{steps.latest}'" if steps.latest else " while starting"
            if worker.lost and not self._stopping.is_set():
                raise _Lost(worker.lost)
            if timeout:  # only a step that overran its own limit is its implementation's fault
                return overran, f"timed out after {timeout:g} s{where}"
            if worker.returncode < 0:
                return culprit, f"worker killed by {signal.Signals(-worker.returncode).name}{where}"
            if worker.returncode > 0:
                return culprit, f"worker exited with code {worker.returncode}{where}: {worker.last_error()}"
            return None, None
        finally:
            worker.close()

    def _store_sent(self, planned: Planned, impls: list, steps: "_Following") -> None:
        """Store the rows the worker has sent so far; one naming another case or implementation, or a row
        already stored, is a worker's fault and is not stored."""
        by_name = {impl.name: impl for impl in impls}
        while True:
            try:
                case_key, name, result, samples, case_stats = steps.rows.get_nowait()
            except queue.Empty:
                return
            if case_key != planned.case.key or name not in by_name:
                continue
            with self._store_lock:
                if (planned.case.op, planned.case.name, name, result.path, result.cache) in self.store.stored_rows(
                        self.run_id):
                    continue
                self.store.add_result(self.run_id, self.store.case_id(self.run_id, planned.case, stats=case_stats),
                                      self.store.impl_id(self.run_id, by_name[name]), result, samples)

    def _wait(self, worker: subprocess.Popen, steps: "_Following", planned: Planned, impls: list
              ) -> tuple[float | None, Implementation | None]:
        """Wait for the worker to end, storing its rows as they come: the limit it exceeded, in seconds, if it
        had to be stopped (or 0 when the run is stopping), and the implementation whose own step overran its
        limit, if that is why. The worker's start-up (Python, torch, the registry) has a limit of its own:
        the case's time starts with its first step, so a slow start is charged to no implementation."""
        launched, step_limit = time.monotonic(), self.case_timeout / STEP_SHARE
        while worker.poll() is None:
            self._store_sent(planned, impls, steps)
            now = time.monotonic()
            if self._stopping.is_set():
                return 0, None
            if now > (steps.first_at or launched) + self.case_timeout:
                return self.case_timeout, None
            if (culprit := _named(steps.latest, impls)) and now - steps.started > step_limit:
                return step_limit, culprit
            time.sleep(POLL_S)
        return None, None

    def _store_failures(self, planned: Planned, impls: list, reason: str) -> None:
        with self._store_lock:
            stored = self.store.stored_rows(self.run_id)
            case_id = self.store.case_id(self.run_id, planned.case)
            for impl in impls:
                self._store_all(case_id, self.store.impl_id(self.run_id, impl), planned.spec, planned.case, impl,
                                Outcome("fail", reason), stored)


class _Following:
    """The worker's stdout, read by a thread: its latest step (passed on to ``on_progress``) and the rows it
    sent, queued for the thread that stores them."""

    def __init__(self, stdout, on_progress):
        self.latest, self.started = None, time.monotonic()
        self.first_at: float | None = None  # when the worker, started, sent its first step
        self.rows: queue.SimpleQueue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._follow, args=(stdout, on_progress), daemon=True)
        self.thread.start()

    def _follow(self, stdout, on_progress) -> None:
        for line in stdout:
            if line.startswith(PROGRESS):
                self.latest, self.started = Step.from_json(line[len(PROGRESS):]), time.monotonic()
                self.first_at = self.first_at or self.started
                on_progress(self.latest)
            elif line.startswith(ROW) and (row := read_row(line)) is not None:
                self.rows.put(row)


class _Lost(Exception):
    """A worker's machine was lost (a Ray node died): nothing the case did."""


def _named(step: Step | None, impls: list):
    """The implementation a step of one implementation runs the code of, else None."""
    if step is None or step.step not in STEPS_OF_ONE:
        return None
    return next((impl for impl in impls if impl.name == step.impl), None)
