"""A block in context: its time under each assignment of implementations, and Amdahl's prediction of it.

For each block and precision:
1. Isolated: every candidate implementation of each op alone at the call site's shapes, on the op
   spec's own inputs, its output made contiguous as the block's custom op makes it: kernel time on a GPU
   (mage.measure.kernel), the call span on the CPU's clock.
2. Assignments: eager everywhere; each op swapped alone to each candidate faster than its baseline;
   the fastest per op together (best), and the best again with its implementations called directly,
   not through torch.library (direct: what the custom ops cost); torch.compile of the whole block per
   mode, once with torch's own ops (the implementations' functions inlined: the all-torch twin) and
   once with the Mage custom ops under the best assignment. With ``assign`` given, those
   implementations are the candidates, swapped alone and together, whatever their speed. Each fused
   implementation of the block (mage.context.fusion) that runs at the block's precision, the call sites it
   leaves running the best assignment: what fusion buys beyond the best per-op assignment.
3. Each assignment's contract (mage.check, against the block's float64 reference), then one profiler
   capture (kernel time and launches per block call, and each call site's share of it from the
   ``mage::<op>`` ranges), then the call spans of all passing assignments together on the single and
   graph paths (mage.measure.span, rotated rounds, refreshed inputs, verified outputs).
4. Amdahl: 1 / (1 − Σf + Σf/s), f each swapped site's share of the eager capture and s its isolated
   speedup, beside the measured speedup (eager's span over the assignment's, same path). A fused
   implementation or a whole-block compile has no per-op prediction: the report sets it beside the best
   assignment and that assignment's prediction.

Candidates leave out the compile family (torch.compile is measured on the whole block instead) and
implementations registered to be seen failing; of a family's strategies faster than the baseline, the
fastest alone is swapped in (the op's own study compares strategies).
"""

from __future__ import annotations

import contextlib
import functools
import math
import random
import zlib
from dataclasses import dataclass, field
from typing import Callable, Iterator

import torch

from mage import amdahl, check, registry
from mage.backends.compiled import FAMILY as COMPILE_FAMILY, MODES
from mage.backends.precision import cuda_only, precision_mode
from mage.context import blocks, fusion, library
from mage.context.block import Block, BlockSpec, Site, block_implementation
from mage.errors import FOREIGN_FAULTS, InputError, UnknownNameError
from mage.measure import kernel, span
from mage.measure.device import Timer
from mage.measure.method import Method
from mage.plan import path_skip_reason
from mage.progress import Step
from mage.runner import STALE
from mage.spec import input_dtype
from mage.store import CONTEXT_SUITE, BlockOpShare, BlockResult, kernel_times

PATHS = ("single", "graph")
# Of torch's Linear and of every op that declares it; at bf16 the block's weights and inputs are bf16 too, and
# every op it calls must declare bf16.
PRECISIONS = ("ieee", "tf32", "bf16")
RANGE_PREFIX = f"{library.NAMESPACE}::"
EAGER = "eager"
DIRECT = "direct"  # the best assignment's implementations called as functions, not as custom ops
# The direct assignment once more, as a contender of its own: what two measurements of the same kernels
# differ by (an A/A control), the yardstick for the custom ops' cost beside the spans' own noise.
CONTROL = "control"


@dataclass(frozen=True)
class Request:
    blocks: list[str]
    precisions: list[str]
    device: str
    method: Method
    size: str = "full"
    assign: dict[str, str] = field(default_factory=dict)  # op -> selector; empty: every faster candidate
    compile_modes: tuple[str, ...] = tuple(MODES)
    all_strategies: bool = False  # candidates from every strategy of a family, not only its champion
    fused: bool = True  # the block's fused implementations (mage.context.fusion) beside its assignments
    study: str | None = None  # the study (mage.studies) this request runs


@dataclass
class Way:
    """One way of running the block: an assignment of implementations, or a whole-block compile."""

    label: str  # the stored assignment: "eager", "layernorm=native", "compile.default(torch)", "fused(triton)"
    kind: str  # one of mage.store.BLOCK_KINDS
    selectors: dict[str, str]
    route: str = "library"
    compile_mode: str | None = None
    skip: str | None = None
    fused: fusion.FusedImplementation | None = None


def parse_assign(texts: list[str] | None) -> dict[str, str]:
    """``op=impl`` pairs, as --assign takes them; names are checked when the assignment resolves."""
    assign = {}
    for text in texts or []:
        op, sep, selector = text.partition("=")
        if not sep or not op or not selector:
            raise UnknownNameError(f"--assign takes op=impl (e.g. layernorm=native), got {text!r}")
        assign[op.strip()] = selector.strip()
    return assign


def check_request(request: Request) -> None:
    """Refuse unknown blocks, precisions, ops, implementations and compile modes before anything runs."""
    blocks.select(request.blocks, request.size)
    if request.device == "cpu" and request.size != "tiny":
        raise InputError("the full-size blocks are GPU work (a 7B-class MLP, a million-node graph): on the CPU, "
                         "measure --size tiny")
    for precision in request.precisions:
        if precision not in PRECISIONS:
            raise UnknownNameError(f"unknown block precision {precision!r}; known: {', '.join(PRECISIONS)}")
        if reason := cuda_only(precision)(request.device):
            raise InputError(f"--precision {precision}: {reason}")
        library.Assignment.resolve(precision, request.assign)
    for mode in request.compile_modes:
        if mode not in MODES:
            raise UnknownNameError(f"unknown compile mode {mode!r}; known: {', '.join(MODES)}")


def label(selectors: dict[str, str], block: Block) -> str:
    """The canonical assignment: ops in block order, eager when none is swapped."""
    order = list(dict.fromkeys(site.op for site in block.sites))
    return ",".join(f"{op}={selectors[op]}" for op in order if op in selectors) or EAGER


def _seed(base: int, *names: str) -> int:
    return (base + zlib.crc32("/".join(names).encode())) % (2**31)


def run(request: Request, on_progress: Callable[[Step], None] = lambda step: None
        ) -> Iterator[tuple[list[BlockResult], list[BlockOpShare]]]:
    """The records of each block and precision, as each is measured."""
    check_request(request)
    timer = Timer(request.device)
    for name in blocks.select(request.blocks, request.size):
        block = blocks.build(name, request.device)
        for precision in request.precisions:
            if reason := precision_skip_reason(block, precision):
                yield [BlockResult(block.name, precision, EAGER, "eager", path, "skip", reason) for path in PATHS], []
            else:
                yield BlockMeasurement(block.at_dtype(input_dtype(precision)), precision, request, timer,
                                       on_progress).run()
            on_progress(Step(name, "done", where=precision))
        del block
        if timer.is_cuda:
            torch.cuda.empty_cache()


def precision_skip_reason(block: Block, precision: str) -> str | None:
    """Why ``block`` cannot run at ``precision``: an op it calls that does not declare it (a bf16 block hands
    every op bf16 tensors), or None."""
    for site in block.sites:
        if input_dtype(precision) != torch.float32 and precision not in registry.get_op(site.op).precisions:
            return f"{site.op} declares no {precision} implementation: {block.name} cannot run at {precision}"
    return None


class BlockMeasurement:
    """One block at one precision: isolated ops, then every way of running the block."""

    def __init__(self, block: Block, precision: str, request: Request, timer: Timer,
                 on_progress: Callable[[Step], None]):
        self.block, self.precision, self.request, self.timer = block, precision, request, timer
        self.method, self.on_progress = request.method, on_progress
        self.spec = BlockSpec(block)
        self.case = self.spec.case()
        self.key = f"{block.name}@{precision}"
        self.isolated: dict[tuple[str, str], float | None] = {}  # (site, implementation) -> µs per call

    # 1. Isolated ops

    def candidates(self, site: Site) -> list[str]:
        """What may replace the site's baseline: the assigned implementation, or every available
        non-compile implementation of the site's variant at the block's precision that the default selection
        runs (each family's champion; every strategy with ``all_strategies``)."""
        if self.request.assign:
            if site.op not in self.request.assign:
                return []
            assigned = library.Assignment.resolve(self.precision, self.request.assign)
            return [assigned.implementation(site.op, site.variant)]
        at = library.at_precision(registry.get_op(site.op), self.precision)
        return [impl.name for impl in registry.select(site.op, None, self.request.all_strategies)
                if impl.variant == site.variant and impl.precision == at and not impl.baseline
                and impl.family != COMPILE_FAMILY and not impl.fails  # a formula kept to be seen failing
                and impl.unavailable_reason(self.request.device) is None
                and impl.case_skip_reason(site.params) is None]

    def baseline(self, site: Site) -> str:
        return registry.baseline_for(site.op, site.variant,
                                     library.at_precision(registry.get_op(site.op), self.precision)).name

    def measure_isolated(self) -> None:
        for site in self.block.sites:
            spec = registry.get_op(site.op)
            inputs = spec.make_inputs_at(site.case(self.block.name), site.seed, self.request.device, "normal",
                                         library.at_precision(spec, self.precision))
            for name in [self.baseline(site), *self.candidates(site)]:
                self.on_progress(Step(self.key, "isolated", name, where=site.name))
                impl = library.implementation_named(site.op, name)
                self.isolated[(site.name, name)] = self._isolated_us(impl, inputs)
            del inputs

    def _isolated_us(self, impl: registry.Implementation, inputs: tuple) -> float | None:
        """Kernel time per call on a GPU, the median single span on the CPU; None if it cannot run. The output
        made contiguous, as the block's custom op makes it (mage.context.library): a site's range in the block's
        capture holds that copy (eager's triangle einsum returns another layout), so Amdahl's s weighs the same
        work as its f."""
        call = lambda: impl.fn(*inputs).contiguous()  # noqa: E731
        try:
            with precision_mode(impl.precision):
                for _ in range(self.method.warmup_calls):
                    call()
                per_call_s = self.timer.span_us(call) * 1e-6
                calls = self.method.samples_within_budget(self.method.kernel_calls, per_call_s)
                if self.timer.is_cuda:
                    return kernel.capture(call, calls).kernel_us
            stats, _ = span.measure([span.Contender(impl.name, call, lambda: precision_mode(impl.precision))],
                                           "single", self.timer, self.method)
            return stats[impl.name].median_us if impl.name in stats else None
        except FOREIGN_FAULTS:  # an op that cannot run alone is no candidate; its swap says why
            return None

    def site_time(self, site: Site, name: str) -> float | None:
        return self.isolated.get((site.name, name))

    def op_time(self, op: str, name: str) -> float | None:
        """An implementation's isolated time summed over the block's sites of ``op``."""
        times = [self.site_time(site, name) for site in self.block.sites if site.op == op]
        return None if any(t is None for t in times) else sum(times)

    # 2. Ways of running the block

    def ways(self) -> list[Way]:
        first_sites = {site.op: site for site in reversed(self.block.sites)}  # each op's first site
        ways = [Way(EAGER, "eager", {})]
        best = {}
        for op in dict.fromkeys(site.op for site in self.block.sites):
            base = self.op_time(op, self.baseline(first_sites[op]))
            timed = [(self.op_time(op, name), name) for name in self.candidates(first_sites[op])]
            if not self.request.assign:
                timed = _fastest_per_family(op, [(t, name) for t, name in timed
                                                 if t is not None and base is not None and t < base])
            for _, name in timed:
                ways.append(Way(label({op: _selector(name)}, self.block), "swap", {op: _selector(name)}))
            if timed:
                best[op] = _selector(min(timed, key=lambda pair: (pair[0] is None, pair[0] or 0.0))[1])
        best_label = label(best, self.block)
        if best:
            same = next((way for way in ways if way.label == best_label), None)
            if same is not None:
                same.kind = "best"  # the best is one op swapped alone: one measurement, marked best
            else:
                ways.append(Way(best_label, "best", best))
            # The same kernels called without torch.library: what the custom ops themselves cost.
            ways.append(Way(f"{DIRECT}({best_label})", DIRECT, best, "direct"))
            ways.append(Way(f"{CONTROL}({best_label})", CONTROL, best, "direct"))
        ways += self.fused_ways(best)
        for mode in self.request.compile_modes:
            skip = None if mode == "default" or self.timer.is_cuda else (
                "max-autotune tunes GPU kernels; it has nothing to tune on the CPU")
            ways.append(Way(f"{COMPILE_FAMILY}.{mode}(torch)", "compile", {}, "direct", mode, skip))
            ways.append(Way(f"{COMPILE_FAMILY}.{mode}(mage)", "compile", best, "library", mode, skip))
        return ways

    def fused_ways(self, best: dict[str, str]) -> list[Way]:
        """One way per fused implementation of the block at its precision; the call sites it leaves run the
        best per-op assignment."""
        ways = []
        for impl in fusion.implementations(self.block.family, self.precision) if self.request.fused else []:
            left = {site.op for site in self.block.sites if not impl.covers(site.name)}
            selectors = {op: selector for op, selector in best.items() if op in left}
            rest = label(selectors, self.block)
            ways.append(Way(impl.label + ("" if rest == EAGER else f",{rest}"), fusion.KIND, selectors,
                            skip=impl.skip_reason(self.block, self.request.device), fused=impl))
        return ways

    def mode(self, way: Way) -> Callable[[], contextlib.AbstractContextManager]:
        def entered():
            stack = contextlib.ExitStack()
            stack.enter_context(precision_mode(self.precision))
            stack.enter_context(library.use(self.precision, **way.selectors))
            stack.enter_context(library.routed(way.route))
            return stack

        return entered

    def function(self, way: Way) -> Callable:
        if way.fused is not None:
            return functools.partial(way.fused.fn, self.block)
        if way.compile_mode is None:
            return self.block
        return torch.compile(self.block, mode=MODES[way.compile_mode], fullgraph=True, dynamic=False)

    # 3. Contracts, captures, spans

    def run(self) -> tuple[list[BlockResult], list[BlockOpShare]]:
        self.measure_isolated()
        ways = self.ways()
        results: dict[str, dict[str, BlockResult]] = {}
        passing: dict[str, tuple[Way, Callable, check.ContractResult]] = {}
        eager = None
        for way in ways:
            if way.skip:
                results[way.label] = self._rows(way, "skip", way.skip)
                continue
            fn = self.function(way)
            implementation = self._checked(way, fn)
            if way.kind == "eager":
                eager = implementation
            self.on_progress(Step(self.key, "contract", way.label))
            seed = _seed(self.method.check_seed, self.key, way.label)
            try:
                contract = check.check(implementation, eager, self.spec, self.case, self.request.device, seed)
            except FOREIGN_FAULTS as error:  # one way's failure, an exit included, is its own row
                contract = check.ContractResult(False, None, None, f"{type(error).__name__}: {error}")
            if not contract.passed:
                results[way.label] = self._rows(way, "fail", contract.reason, contract.rel_error)
                continue
            passing[way.label] = (way, fn, contract)
        inputs = blocks.timed_inputs(self.block, self.precision, self.request.device)
        refresh = check.InputRefresh(self.spec, self.case, inputs, self.request.device,
                                     _seed(self.method.check_seed, "refresh", self.key), self.method.refresh_sets,
                                     ["default"])
        captures = {}
        for name, (way, fn, contract) in list(passing.items()):
            self.on_progress(Step(self.key, "profile", name))
            try:
                captures[name] = self._capture(way, lambda fn=fn: fn(*inputs), refresh)
            except FOREIGN_FAULTS as error:  # one way's failure, an exit included, is its own row
                results[name] = self._rows(way, "fail", f"profile: {type(error).__name__}: {error}",
                                           contract.rel_error)
                del passing[name]
        contenders = [span.Contender(name, lambda fn=fn: fn(*inputs), self.mode(way),
                                     verify=lambda out: refresh.stale(out, "default", self.precision))
                      for name, (way, fn, _) in passing.items()]
        rng = random.Random(_seed(self.method.check_seed, "verified samples", self.key))
        spans = {}
        for path in PATHS:
            if path_skip_reason(path, self.request.device):
                continue
            self.on_progress(Step(self.key, "span", where=path))
            spans[path] = span.measure(contenders, path, self.timer, self.method, refresh=refresh, rng=rng)
        for name, (way, _, contract) in passing.items():
            results[name] = self._timed_rows(way, contract, captures[name], spans)
        self._speedups(results, captures, passing)
        shares = [share for name, (way, _, _) in passing.items() for share in self._shares(way, captures[name])]
        return [row for way in ways for row in results[way.label].values()], shares

    def _capture(self, way: Way, call: Callable[[], object], refresh: check.InputRefresh) -> kernel.RangeCapture:
        """Warmed calls profiled: kernel time (CPU time on the CPU), launches, and each site's share."""
        with self.mode(way)():
            for _ in range(self.method.warmup_calls):
                call()
            per_call_s = self.timer.span_us(call) * 1e-6
            refresh()
            calls = self.method.samples_within_budget(self.method.kernel_calls, per_call_s)
            return kernel.capture_ranges(call, calls, RANGE_PREFIX, self.timer.is_cuda)

    def _checked(self, way: Way, fn: Callable):
        def call(*inputs):
            with self.mode(way)():
                return fn(*inputs)

        return block_implementation(self.block.name, way.label, self.precision, call)

    def _rows(self, way: Way, status: str, reason: str | None,
              rel_error: float | None = None) -> dict[str, BlockResult]:
        return {path: BlockResult(self.block.name, self.precision, way.label, way.kind, path, status, reason,
                                  rel_error) for path in PATHS}

    def _timed_rows(self, way: Way, contract: check.ContractResult, capture: kernel.RangeCapture,
                    spans: dict) -> dict[str, BlockResult]:
        rows = self._rows(way, "pass", None, contract.rel_error)
        for path, row in rows.items():
            if self.timer.is_cuda:
                row.kernel_us, row.launches = capture.total_us, capture.launches
                row.kernel_times = kernel_times(capture.kernels) or None
            skip = path_skip_reason(path, self.request.device)
            if skip:
                row.status, row.reason = "skip", skip
                continue
            stats, failures = spans[path]
            if way.label in failures:
                row.status, row.reason = "fail", f"{path} path: {failures[way.label]}"
                continue
            measured = stats[way.label]
            if measured.stale:
                row.status, row.reason = "fail", f"{STALE} on the {path} path: {measured.stale}"
            row.span_median_us, row.span_mean_us = measured.median_us, measured.mean_us
            row.span_rse = measured.rse if math.isfinite(measured.rse) else None  # one sample has no spread
            row.span_samples = len(measured.samples)
        return rows

    def _speedups(self, results: dict, captures: dict, passing: dict) -> None:
        eager = results.get(EAGER, {})
        eager_capture = captures.get(EAGER)
        for name, rows in results.items():
            for path, row in rows.items():
                base = eager.get(path)
                if row.span_median_us and base is not None and base.span_median_us and base.status == "pass":
                    row.measured_speedup = base.span_median_us / row.span_median_us
            way = passing.get(name, (None,))[0]
            if way is None or way.kind in ("compile", fusion.KIND) or eager_capture is None:
                continue
            predicted = self.predicted(way, eager_capture)
            for row in rows.values():
                if row.status == "pass":
                    row.predicted_speedup = predicted

    def predicted(self, way: Way, eager_capture: kernel.RangeCapture) -> float | None:
        """Amdahl over the sites ``way`` swaps: f from the eager capture, s from the isolated times."""
        parts = []
        chosen = library.Assignment.resolve(self.precision, way.selectors)
        for site, timed in zip(self.block.sites, eager_capture.ranges):
            name, base = chosen.implementation(site.op, site.variant), self.baseline(site)
            if name == base:
                continue
            alone, base_alone = self.site_time(site, name), self.site_time(site, base)
            if not alone or not base_alone or not eager_capture.total_us:
                return None
            parts.append((min(1.0, timed.time_us / eager_capture.total_us), base_alone / alone))
        try:
            return amdahl.combined_speedup(parts)
        except InputError:  # sites over the whole: an attribution the capture got wrong costs this prediction only
            return None

    def _shares(self, way: Way, capture: kernel.RangeCapture) -> list[BlockOpShare]:
        if way.route != "library" or way.fused is not None:
            return []  # the all-torch twin calls no Mage op, a fused one not each site: no sites to attribute
        chosen = library.Assignment.resolve(self.precision, way.selectors)
        shares = []
        for site, timed in zip(self.block.sites, capture.ranges):
            name, base = chosen.implementation(site.op, site.variant), self.baseline(site)
            alone, base_alone = self.site_time(site, name), self.site_time(site, base)
            shares.append(BlockOpShare(
                self.block.name, self.precision, way.label, site.name, site.op, site.variant, name,
                kernel_us=timed.time_us, fraction=timed.time_us / capture.total_us if capture.total_us else None,
                isolated_us=alone, baseline_isolated_us=base_alone,
                isolated_speedup=base_alone / alone if alone and base_alone else None))
        return shares


def _fastest_per_family(op: str, timed: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """Of the candidates faster than the baseline, each family's fastest strategy alone (triton.warp
    or triton.split, not both): the block measures what a family can do at its shapes, and a family's
    strategies are compared alone in the op's own study."""
    families = {impl.name: impl.family for impl in registry.implementations(op)}
    fastest: dict[str, tuple[float, str]] = {}
    for t, name in timed:
        family = families[name]
        if family not in fastest or t < fastest[family][0]:
            fastest[family] = (t, name)
    return [pair for pair in timed if pair in fastest.values()]


def _selector(name: str) -> str:
    """How an assignment names an implementation: its family and strategy (the name's first part)."""
    return name.split("/", 1)[0]


def record(store, request: Request, command: str, on_progress: Callable[[Step], None] = lambda step: None
           ) -> tuple[int, list[BlockResult]]:
    """Measure ``request`` into a new run of ``store`` (suite ``context``), each block and precision stored
    as it ends, so an interrupted run keeps what it finished: (run id, every result)."""
    from mage.measure import ceilings, env

    check_request(request)
    run_id = store.begin_run(
        clock=Timer(request.device).clock, suite=CONTEXT_SUITE, command=command,
        env=env.capture(request.device) | {"gpu_state_start": env.gpu_state()},
        method=request.method.as_dict() | {"blocks": blocks.select(request.blocks, request.size),
                                           "precisions": request.precisions, "assign": request.assign,
                                           "size": request.size, "compile_modes": list(request.compile_modes),
                                           "fused": request.fused, "study": request.study,
                                           "paths": list(PATHS)},
        ceilings=ceilings.measure(request.device))
    status, results = "incomplete", []
    try:
        for block_results, shares in run(request, on_progress):
            store.add_context(run_id, block_results, shares)
            results += block_results
        status = "complete"
    finally:
        store.end_run(run_id, status, {"gpu_state_end": env.gpu_state()})
    return run_id, results
