"""A run: for each case, check every implementation, then measure those that passed (and a library's
that failed on non-finite inputs alone: check.timed_despite).

The recipe per case: fresh inputs → contract of each implementation (fresh seeds) → warm-up →
kernel capture and host time per implementation → call spans of all passing implementations
together, in rotated rounds, per path and cache state → a re-check of each on fresh inputs →
suspect flags → one stored result per row. A case's timed rows are stored together once it ends,
so an interrupted case is redone whole on resume (mage.resume).
"""

from __future__ import annotations

import dataclasses
import math
import random
import zlib
from dataclasses import dataclass
from typing import Callable

import torch

from mage import check, registry, resume, suspect
from mage.backends.precision import precision_mode
from mage.backends.triton import INTERPRETED
from mage.backends.tuning import recorded_tunings
from mage.errors import FOREIGN_FAULTS, DeviceLost
from mage.measure import ceilings, clocks, env, host, kernel, span
from mage.measure.device import Timer
from mage.measure.l2 import L2Flush
from mage.plan import Planned, Request, case_rows, path_skip_reason, skip_reason
from mage.progress import Step
from mage.registry import Implementation
from mage.spec import input_dtype
from mage.store import Result, RowKey, Store

RECHECK_FAILURE = "failed a re-check during timing"  # how a re-check's failure reason begins
STALE = "returned a stale result during timing"


@dataclass(frozen=True)
class Outcome:
    """A row that is not timed, a skip or a failure: stored once per requested path and cache (_store_all)."""

    status: str
    reason: str
    contract: str | None = None
    rel_error: float | None = None
    eager_error: float | None = None


@dataclass
class Profile:
    """One implementation that passed its contract, with its per-implementation boundaries."""

    contract: check.ContractResult
    host: host.HostTime
    tuning: str | None  # the configurations its autotuned kernels launched with
    captures: dict[str, kernel.KernelCapture] = dataclasses.field(default_factory=dict)  # per cache; GPU only


def _seed(base: int, *names: str) -> int:
    return (base + zlib.crc32("/".join(names).encode())) % (2**31)


def _is_oom(error: BaseException) -> bool:
    return isinstance(error, torch.cuda.OutOfMemoryError) or "out of memory" in str(error).lower()


def _error_text(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}"
    return text if len(text) < 2000 else text[:2000] + " …"


class Runner:
    def __init__(self, store: Store, request: Request, command: str,
                 on_progress: Callable[[Step], None] = lambda step: None):
        self.store = store
        self.request = request
        self.command = command
        self.on_progress = on_progress
        self.timer = Timer(request.device)
        self.method = request.method
        self.device_lost = False
        self.watch = clocks.nvml_watch(torch.cuda.current_device()) if self.timer.is_cuda else clocks.ClockWatch(None)
        self.gpu = env.gpu_of(request.device)  # (host index, UUID) stored with each result

    def run(self, work: list[Planned]) -> int:
        device = self.request.device
        self.flush = L2Flush(device)
        self.ceilings = ceilings.measure(device)
        self.run_id = self.store.begin_run(
            clock=self.timer.clock,
            suite=",".join(self.request.suites),
            command=self.command,
            env=env.capture(device) | {"gpu_state_start": env.gpu_state()},
            method=self.method.as_dict() | {"paths": self.request.paths, "caches": self.request.caches,
                                            "l2_flush_bytes": self.flush.bytes,
                                            resume.REQUEST_KEY: resume.request_record(self.request)},
            ceilings=self.ceilings,
        )
        return self._run_cases(work, stored=set(), end_notes={})

    def resume(self, run_id: int, work: list[Planned]) -> int:
        """Continue an incomplete run into the same run id: only cases not wholly stored are run."""
        run = self.store.run(run_id)
        here = env.capture(self.request.device)
        resume.check_comparable(run, here)
        self.attach(run)
        self.store.claim_run(run_id)  # refused while another live process runs it
        resumed = run["env_end"].get("resumed", []) + [{"uuid": here.get("uuid"), "hostname": here.get("hostname"),
                                                        "gpu_state_start": env.gpu_state()}]
        return self._run_cases(work, self.store.stored_rows(run_id), {"resumed": resumed})

    def attach(self, run: dict) -> None:
        """Measure into the stored ``run`` (resuming it, or as an isolated case's worker)."""
        self.flush = L2Flush(self.request.device)
        self.ceilings = run["ceilings"]  # floors stay those of the run's own ceilings
        self.run_id = run["id"]

    def _run_cases(self, work: list[Planned], stored: set[RowKey], end_notes: dict) -> int:
        self.end_notes = end_notes  # what the run's end records besides its final GPU state
        status = "incomplete"
        try:
            with self.store.heartbeat(self.run_id):  # the claim stays fresh through long cases
                todo = []
                for planned in work:
                    rows = case_rows(planned, self.request.paths, self.request.caches)
                    if rows <= stored:
                        for impl in planned.impls:
                            self.on_progress(Step(planned.case.key, "check", impl.name, note="stored before"))
                        continue
                    if rows & stored:
                        self.store.delete_case_results(self.run_id, self.store.case_id(self.run_id, planned.case))
                    todo.append(planned)
                self._run_all(todo)
            status = "complete"
        finally:
            self.store.end_run(self.run_id, status, end_notes | {"gpu_state_end": env.gpu_state()})
        return self.run_id

    # One case

    def _run_all(self, todo: list[Planned]) -> None:
        for planned in todo:
            self.run_case(planned)

    def run_case(self, planned: Planned) -> None:
        """Check, time and store one case (an isolated run's worker runs one case so)."""
        spec, case, device = planned.spec, planned.case, self.request.device
        case_id = self.store.case_id(self.run_id, case, stats=spec.case_stats(case))
        self.watch.clear()
        impl_ids = {impl.name: self.store.impl_id(self.run_id, impl) for impl in planned.impls}
        runnable = []
        for impl in planned.impls:
            self.on_progress(Step(case.key, "check", impl.name))
            reason = skip_reason(spec, case, impl, device)
            if reason:
                self._store_all(case_id, impl_ids[impl.name], spec, case, impl, Outcome("skip", reason))
                continue
            runnable.append(impl)
        inputs = None
        try:
            if runnable:
                inputs = _TimingInputs(spec, case, device, _seed(self.method.check_seed, "refresh", case.key),
                                       self.method.refresh_sets, runnable)
        except Exception as error:
            status = "skip" if _is_oom(error) else "fail"
            for impl in runnable:
                self._store_all(case_id, impl_ids[impl.name], spec, case, impl,
                                Outcome(status, f"inputs: {_error_text(error)}"))
            self._release()
            return
        passing = {}
        try:
            for impl in runnable:
                measured = self._check_and_profile(spec, case, impl, *inputs.of(impl))
                if isinstance(measured, Outcome):
                    self._store_all(case_id, impl_ids[impl.name], spec, case, impl, measured)
                else:
                    passing[impl.name] = (impl, measured)
            if passing:
                self._measure_spans(case_id, impl_ids, spec, case, passing, inputs)
        except DeviceLost as lost:  # the culprit's rows are stored; the others' cannot be measured here
            culprit = next(impl for impl in runnable if impl.name == lost.culprit)
            self._store_all(case_id, impl_ids[culprit.name], spec, case, culprit, Outcome(
                "fail", f"{lost.reason}; it left the CUDA context unusable, so the process stopped here"))
            raise
        del inputs
        self._release()

    def _release(self) -> None:
        if self.timer.is_cuda and not self.device_lost:
            torch.cuda.empty_cache()

    def _raise_if_device_lost(self, impl: Implementation, error: BaseException) -> None:
        """After ``impl`` raised ``error``: if the device no longer runs work, nothing else can run here."""
        if not self.timer.usable():
            self.device_lost = True
            raise DeviceLost(impl.name, _error_text(error)) from error

    def _store_all(self, case_id, impl_id, spec, case, impl, outcome: Outcome,
                   stored: set[RowKey] = frozenset()) -> None:
        """A skip or failure is stored once per requested path and cache (but those ``stored`` already), so
        every row is accounted for exactly once."""
        for path in self.request.paths:
            for cache in self.request.caches:
                if RowKey(case.op, case.name, impl.name, path, cache) in stored:
                    continue
                row = Result(path, cache, outcome.status, outcome.reason, contract=outcome.contract,
                             rel_error=outcome.rel_error, eager_error=outcome.eager_error,
                             flops=spec.flops(case, impl.variant),
                             bytes=spec.bytes_at(case, impl.variant, impl.precision),
                             gpu_index=self.gpu[0], gpu_uuid=self.gpu[1])
                self.store.add_result(self.run_id, case_id, impl_id, row)

    def _check_and_profile(self, spec, case, impl, inputs, refresh: check.InputRefresh) -> Profile | Outcome:
        """The contract, then the per-implementation boundaries; an Outcome when it fails or is skipped."""
        device = self.request.device
        try:
            self.on_progress(Step(case.key, "contract", impl.name))
            seed = _seed(self.method.check_seed, case.key, impl.name)
            contract = check.check(impl, registry.baseline_of(impl), spec, case, device, seed)
            if not contract.passed and not check.timed_despite(contract, impl):
                return Outcome("fail", contract.reason, "fail", contract.rel_error, contract.eager_error)
            call = _bound(impl, inputs)
            self.on_progress(Step(case.key, "profile", impl.name))
            with precision_mode(impl.precision):
                with recorded_tunings() as tunings:  # autotuned during the contract: these run its choice
                    per_call_s = self.timer.span_us(call) * 1e-6
                    floor_s = per_call_s * self.method.min_samples
                    if not self.timer.is_cuda and floor_s > self.method.cpu_floor_limit_s:
                        return Outcome("skip", f"one call takes {per_call_s:.2g} s on the CPU: its floor of "
                                       f"{self.method.min_samples} samples alone would take {floor_s:.2g} s, more "
                                       f"than {self.method.cpu_floor_limit_s:g} s", "pass",
                                       contract.rel_error, contract.eager_error)
                    for _ in range(self.method.warmup_calls):
                        call()
                per_call_s = self.timer.span_us(call) * 1e-6
                host_calls = self.method.samples_within_budget(self.method.host_calls, per_call_s)
                measured = Profile(contract, host.host_time_us(call, self.timer.synchronize, host_calls,
                                                               self.method.host_chunk),
                                   "; ".join(dict.fromkeys(tunings)) or None)
                if self.timer.is_cuda:
                    calls = self.method.samples_within_budget(self.method.kernel_calls, per_call_s)
                    for cache in self.request.caches:
                        # The captured calls share one refreshed input set: copies between them would be device
                        # activities of the capture. The last call's output is verified instead.
                        refresh()
                        remembered = _KeepingLast(call)
                        with self.watch.window((impl.name, "kernel", cache)):
                            measured.captures[cache] = kernel.capture(remembered, calls,
                                                                      self.flush if cache == "cold" else None)
                        if stale := refresh.stale(remembered.last, impl.variant, impl.precision):
                            return Outcome("fail", f"{STALE} (kernel capture, {cache} L2): {stale}", "fail")
            return measured
        except FOREIGN_FAULTS as error:
            if _is_oom(error):
                return Outcome("skip", f"out of memory: {_error_text(error)}")
            self._raise_if_device_lost(impl, error)
            return Outcome("fail", _error_text(error), "fail")
        finally:
            self._release()

    def _measure_spans(self, case_id, impl_ids, spec, case, passing: dict, inputs: _TimingInputs) -> None:
        contenders = []
        for name, (impl, _) in passing.items():
            buffers, refresh = inputs.of(impl)
            contenders.append(span.Contender(
                name, _bound(impl, buffers), _mode(impl),
                verify=lambda out, impl=impl, refresh=refresh: refresh.stale(out, impl.variant, impl.precision)))
        # Which timed sample of each block is verified: drawn from the run's own check seed.
        rng = random.Random(_seed(self.method.check_seed, "verified samples", case.key))
        timed, stale = [], {}  # (name, result, samples); the first stale answer of each implementation
        exhausted = {}  # why an implementation exhausted memory while timed: it is not timed on later paths
        for path in self.request.paths:
            reason = path_skip_reason(path, self.request.device)
            if reason:
                for name, (impl, measured) in passing.items():
                    for cache in self.request.caches:
                        skipped = self._result(spec, case, impl, measured, path, cache, None, None)
                        skipped.status, skipped.reason = "skip", reason
                        timed.append((name, skipped, ()))
                continue
            for cache in self.request.caches:
                self.on_progress(Step(case.key, "span", where=f"{path}/{cache}"))
                flush = self.flush if cache == "cold" else None
                stats, failures = span.measure([c for c in contenders if c.key not in exhausted], path, self.timer,
                                               self.method, flush, inputs.refresh_all,
                                               window=lambda name: self.watch.window((name, path, cache)), rng=rng)
                exhausted |= {name: why for name, why in failures.items() if span.exhausted_memory(why)}
                failures |= {name: f"not timed: {why} on an earlier path" for name, why in exhausted.items()
                             if name not in failures}
                if failures and not self.timer.usable():  # a failure that took the CUDA context with it
                    self.device_lost = True
                    culprit = next(iter(failures))
                    raise DeviceLost(culprit, failures[culprit])
                for name, (impl, measured) in passing.items():
                    result = self._result(spec, case, impl, measured, path, cache, stats.get(name), failures.get(name))
                    timed.append((name, result, stats[name].samples if name in stats else ()))
                    if name in stats and stats[name].stale:
                        stale.setdefault(name, f"{STALE} on the {path} path ({cache} L2): {stats[name].stale}")
        for name, reason in stale.items():
            _fail_rows(timed, name, reason)
        self._recheck(spec, case, passing, timed)
        interpreted = frozenset(name for name, (impl, _) in passing.items() if _interpreted(impl))
        suspect.flag([(name, passing[name][0].variant, result) for name, result, _ in timed], self.flush.bytes,
                     self.timer.clock, interpreted)
        for name, result, samples in timed:
            self.store.add_result(self.run_id, case_id, impl_ids[name], result, samples)

    def _recheck(self, spec, case, passing: dict, timed: list) -> None:
        """Call each timed implementation once more on fresh inputs; one that now fails fails every row."""
        for name, (impl, _) in passing.items():
            self.on_progress(Step(case.key, "re-check", name))
            try:
                seed = _seed(self.method.check_seed, "recheck", case.key, name)
                reason = check.recheck(impl, spec, case, self.request.device, seed)
            except FOREIGN_FAULTS as error:
                self._raise_if_device_lost(impl, error)
                reason = _error_text(error)
            self._release()
            if reason:
                _fail_rows(timed, name, f"{RECHECK_FAILURE}: {reason}")

    def _result(self, spec, case, impl, measured: Profile, path, cache, stats, failure) -> Result:
        contract = measured.contract
        flops, bytes_moved = spec.flops(case, impl.variant), spec.bytes_at(case, impl.variant, impl.precision)
        memory_floor, compute_floor = ceilings.hardware_floors_us(self.ceilings, flops, bytes_moved, impl.precision)
        # A library timed despite its non-finite failure: its rows pass, its contract and reason say it failed.
        result = Result(path, cache, "pass", contract="pass" if contract.passed else "fail",
                        reason=None if contract.passed else f"{check.TIMED_DESPITE}: {contract.reason}",
                        rel_error=contract.rel_error,
                        eager_error=contract.eager_error, flops=flops, bytes=bytes_moved,
                        floor_us=ceilings.floor_of(memory_floor, compute_floor), memory_floor_us=memory_floor,
                        compute_floor_us=compute_floor, tuning=measured.tuning, gpu_index=self.gpu[0],
                        gpu_uuid=self.gpu[1])
        if path == "single":
            # Kernel time, launches and host time are measured once per implementation, on single calls.
            captured = measured.captures.get(cache)
            result.host_us = measured.host.median_us
            result.host_min_us, result.host_max_us = measured.host.min_us, measured.host.max_us
            if captured is not None:
                result.kernel_us, result.launches = captured.kernel_us, captured.launches
                result.kernel_names = " | ".join(captured.names)
        # The clocks behind this row's GPU times: its spans, and on the single path its kernel capture too.
        seen = self.watch.range((impl.name, path, cache), *([(impl.name, "kernel", cache)] if path == "single" else []))
        if seen is not None:
            result.sm_clock_min_mhz, result.sm_clock_max_mhz = seen.min_mhz, seen.max_mhz
            result.clock_events = " ".join(seen.events) or None
        if failure is not None:
            result.status, result.reason = "fail", f"{path} path: {failure}"
        elif stats is not None:
            round_means = stats.round_means()
            result.span_mean_us, result.span_median_us = stats.mean_us, stats.median_us
            result.span_round_min_us, result.span_round_max_us = min(round_means), max(round_means)
            result.span_samples, result.calls_per_sample = len(stats.samples), stats.calls_per_sample
            result.span_rse = stats.rse if math.isfinite(stats.rse) else None  # one sample has no spread
            result.noisy = stats.noisy
        return result


class _TimingInputs:
    """A case's timing buffers, one set per input dtype its implementations take (float32, and bf16 or
    fp16 for those precisions), each refreshed by its own InputRefresh and drawn from the same seed."""

    def __init__(self, spec, case, device: str, seed: int, sets: int, impls: list[Implementation]):
        self._of_dtype: dict[torch.dtype, tuple[tuple, check.InputRefresh]] = {}
        for impl in impls:
            dtype = input_dtype(impl.precision)
            if dtype in self._of_dtype:
                continue
            buffers = spec.make_inputs_at(case, case.seed, device, "normal", impl.precision)
            spec.check_inputs(*buffers)
            variants = [other.variant for other in impls if input_dtype(other.precision) == dtype]
            self._of_dtype[dtype] = (buffers, check.InputRefresh(spec, case, buffers, device, seed, sets, variants))

    def of(self, impl: Implementation) -> tuple[tuple, check.InputRefresh]:
        """(the buffers ``impl`` is timed on, their refresh)."""
        return self._of_dtype[input_dtype(impl.precision)]

    def refresh_all(self) -> None:
        """New values in every set: implementations of different dtypes are timed together."""
        for _, refresh in self._of_dtype.values():
            refresh()


def _fail_rows(timed: list, name: str, reason: str) -> None:
    """Fail every passing timed row of implementation ``name`` (its numbers are kept); a row that failed
    before keeps its own reason, and a path this device cannot run stays a skip."""
    for result in (result for row_name, result, _ in timed if row_name == name and result.status == "pass"):
        result.status, result.contract, result.reason = "fail", "fail", reason


class _KeepingLast:
    """``call``, keeping the output of its latest call (the previous one released first, as a plain call would)."""

    def __init__(self, call: Callable[[], object]):
        self.call, self.last = call, None

    def __call__(self) -> object:
        self.last = None
        self.last = self.call()
        return self.last


def _bound(impl: Implementation, inputs: tuple) -> Callable[[], object]:
    fn = impl.fn
    return lambda: fn(*inputs)


def _interpreted(impl: Implementation) -> bool:
    """Whether ``impl``'s times are the Triton interpreter's (numpy on the CPU), not a kernel's."""
    return INTERPRETED and impl.backend.startswith("triton")


def _mode(impl: Implementation):
    return lambda: precision_mode(impl.precision)

