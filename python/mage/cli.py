"""The `mage` command: run, check, env, runs, show, report, site, export, import, compare, history, amdahl,
context."""

from __future__ import annotations

import contextlib
import json
import math
import os
import shlex
import sqlite3
import sys
import traceback
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.segment import Segment
from rich.text import Text

from mage import amdahl as amdahl_law, signals
from mage.errors import (FOREIGN_FAULTS, DeviceLost, Interrupted, MageError, RunClaimedError, StoreError,
                         WorkersLost)
from mage.measure.method import SEED_BUDGET_S, SEED_WALL_BUDGET_S, Method
from mage.progress import CaseLines, StepLines
from mage.report.format import without_control

# Plain help (rich_markup_mode=None): an example such as 'triton[graph]' is text, not markup, and a flag shows no
# value placeholder.
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Mage: one operation written several ways, checked against float64, measured honestly.")
PIPED_WIDTH = 100  # the width of output that is not a terminal, unless COLUMNS says otherwise
UNFOLDED = 10_000  # wider than any table: what --wide measures a table within


def _output_width() -> int | None:
    """None on a terminal (rich follows it); elsewhere COLUMNS where it is a positive number, else PIPED_WIDTH."""
    if sys.stdout.isatty():
        return None
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else PIPED_WIDTH


READER_GONE = 141  # the shell's code for a process whose reader closed the pipe (SIGPIPE), as `head` does


def _reader_gone() -> int:
    """stdout's reader stopped early (mage show | head -1): stop quietly, pointing stdout at /dev/null so that
    Python's final flush writes nowhere instead of failing again."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return READER_GONE


class _Output(Console):
    """rich's console, for what Mage prints: text from a store, a document or a plugin is data, so a control
    character in it (ESC[2J clears the screen) is dropped (rich measures it as no width: tables stay aligned);
    rich's own sequences are styles and control segments, left as they are."""

    def _render_buffer(self, buffer) -> str:
        return super()._render_buffer(
            Segment(without_control(text), style, control) if not control else Segment(text, style, control)
            for text, style, control in buffer)

    def on_broken_pipe(self) -> None:  # rich's own exits 1, which the README keeps for failed implementations
        raise SystemExit(_reader_gone())


console = _Output(width=_output_width())


def _write_out(text: str) -> None:
    """``text`` on stdout as it is (JSON); a reader that stops early ends the command as rich's console would."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        raise SystemExit(_reader_gone()) from None
errors = _Output(stderr=True, soft_wrap=True)  # an error is one line, however narrow the terminal

DB_OPTION = typer.Option(Path("mage.db"), "--db", help="SQLite store of runs.")
FRACTION_HELP = ("Fraction of a request each op takes, for Amdahl's law (0–1). Without it, Amdahl's law is applied "
                 "at each op's share measured inside model blocks (mage context), and not where none was measured.")
IMPL_HELP = ("Only these implementations: a family (triton: its champion), every strategy of one (triton.*), "
             "a family.strategy (triton.split) or a name prefix (repeatable). Default: the baselines, the compiled "
             "baselines and each family's champion.")
ALL_STRATEGIES_OPTION = typer.Option(False, "--all-strategies", help="Every strategy of each selected family, "
                                     "the studies as well as the champion.")
CASE_OPTION = typer.Option(None, "--case", help="Only the cases of this name, e.g. hub-64k-F512 (repeatable); "
                           "found in every suite unless --suite names some.")
WIDE_OPTION = typer.Option(False, "--wide", help="Every column of the results table, however wide; by default the "
                           "columns that matter most, as many as fit the terminal (or COLUMNS, or 100).")


class Suite(str, Enum):
    seed = "seed"
    large = "large"
    sweep = "sweep"
    reduction = "reduction"
    schedule = "schedule"
    all = "all"


class DeviceChoice(str, Enum):
    auto = "auto"
    cuda = "cuda"
    cpu = "cpu"


def _positive(value: float | None) -> float | None:
    """A float option that must be a finite number above zero (seconds, a speedup), where it is given."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise typer.BadParameter(f"must be a finite number above 0, got {value}")
    return value


def _seed_alone(budget: float | None, suites: list[Suite]) -> bool:
    """Whether the seed suite's shorter caps apply: it runs alone and --budget is not given."""
    return budget is None and set(suites) == {Suite.seed}


def _budget(budget: float | None, suites: list[Suite]) -> float:
    """--budget where given; else the seed suite's shorter cap when the seed suite runs alone."""
    if budget is not None:
        return budget
    return SEED_BUDGET_S if _seed_alone(budget, suites) else Method.budget_s


def _suite_choice(suites: list[Suite] | None, cases: list[str] | None) -> list[Suite]:
    """The suites given; else the seed suite, or every suite when cases are named (a name is found in any)."""
    return suites or ([Suite.all] if cases else [Suite.seed])


def _suites(suites: list[Suite]) -> list[str]:
    from mage.spec import SUITES

    return list(SUITES) if Suite.all in suites else [s.value for s in suites]


def _device(choice: DeviceChoice) -> str:
    import torch

    from mage.plan import default_device

    if choice is DeviceChoice.auto:
        return default_device()
    if choice is DeviceChoice.cuda and not torch.cuda.is_available():
        raise MageError("--device cuda was asked for, but torch sees no CUDA device")
    return choice.value


OPENED_STORES: list[Path] = []  # named by an SQLite fault that reaches main (a page found damaged while read)


def _open_store(db: Path):
    """The store to write (run, import): created if missing, migrated if older."""
    from mage.store import Store

    OPENED_STORES.append(db)
    return Store(db)


def _read_store(db: Path):
    """The store to read (runs, show, export, report, compare, history): never created, migrated or written."""
    from mage.store import Store

    OPENED_STORES.append(db)
    return Store(db, read_only=True)


def _named_path(value: str | None) -> Path | None:
    """A path option as given; an empty one is refused (it would mean the current folder, unasked)."""
    if value is None:
        return None
    if not value.strip():
        raise typer.BadParameter("is empty: give a path")
    return Path(value)


def _fraction(value: float | None) -> float | None:
    if value is not None and not 0 < value < 1:  # also refuses nan
        raise typer.BadParameter(f"must be a fraction between 0 and 1, got {value}")
    return value


@app.command()
def run(
    suite: Optional[List[Suite]] = typer.Option(None, help="Which cases: seed (launch-bound), large, sweep, "
                                                "reduction (row widths 64 to 262144), schedule (neighbor_agg's "
                                                "scheduling study), or all (repeatable). Default: seed, or every "
                                                "suite with --case."),
    op: Optional[List[str]] = typer.Option(None, "--op", help="Only these ops (repeatable)."),
    case: Optional[List[str]] = CASE_OPTION,
    impl: Optional[List[str]] = typer.Option(None, "--impl", help=IMPL_HELP),
    all_strategies: bool = ALL_STRATEGIES_OPTION,
    path: Optional[List[str]] = typer.Option(None, "--path", help="Launch paths: single, batch, graph (repeatable). "
                                             "Default: single on the CPU, all three on a GPU."),
    cold: bool = typer.Option(False, "--cold", help="Also measure with a cold L2 (flushed before every sample)."),
    batch: Optional[int] = typer.Option(None, min=1, help="Calls per span on the batch and graph paths. "
                                        f"Default: {Method.batch}."),
    budget: Optional[float] = typer.Option(None, callback=_positive, help="Seconds of timed spans one "
                                           "implementation may spend per path and cache: the cap on noise-driven "
                                           "sampling (never below --min-samples); it also bounds the kernel and "
                                           f"host-time calls. Default: {SEED_BUDGET_S:g} for the seed suite alone "
                                           f"(which also caps each measurement at {SEED_WALL_BUDGET_S:g} s of wall "
                                           f"time, its refreshes and synchronizations included), else "
                                           f"{Method.budget_s:g}."),
    noise_target: Optional[float] = typer.Option(None, "--noise-target", callback=_fraction,
                                                 help="Span sampling stops once the relative standard error of "
                                                 "the mean is below this (0.005 = 0.5 %); --min-samples is the "
                                                 f"floor, --budget the cap. Default: {Method.noise_target:g}."),
    min_samples: Optional[int] = typer.Option(None, "--min-samples", min=Method.rounds,
                                              help="Floor on samples per measurement when the budget would allow "
                                              "fewer; at least one a round. Lower it for long batches (a large case "
                                              "at --batch 100 spends seconds a sample). "
                                              f"Default: {Method.min_samples}."),
    device: DeviceChoice = typer.Option(DeviceChoice.auto, help="Where to run."),
    hypothesis: Optional[str] = typer.Option(None, "--hypothesis", help="What this run is made to test; stored "
                                             "with it."),
    predict: Optional[List[str]] = typer.Option(None, "--predict", help="A prediction judged against this run's "
                                                "results, e.g. 'layernorm/triton@1024x1024:kernel<6' or "
                                                "'layernorm/triton[graph]:span<0.8*eager' (repeatable; "
                                                "syntax: mage.experiments)."),
    resume_run: Optional[int] = typer.Option(None, "--resume", help="Continue this incomplete run into the same "
                                             "run id, repeating only what is missing; its cases, "
                                             "implementations and method are those it was started with."),
    isolate: Optional[bool] = typer.Option(None, "--isolate/--no-isolate", help="Run each case in a worker process: "
                                           "a crash, hang or out-of-memory error is stored as that implementation's "
                                           "failure and the run goes on (mage.isolation). Default: the large and sweep "
                                           "cases only. A worker start-up per case costs seconds (measured in "
                                           "results/README.md): small next to a large case, nearly doubling the "
                                           "seed suite."),
    case_timeout: float = typer.Option(900.0, "--case-timeout", callback=_positive, help="With --isolate: seconds "
                                       "one case may take from its worker's first step (the worker's start-up has "
                                       "as long again); one implementation's check, profile or re-check may take "
                                       "a quarter."),
    gpus: Optional[str] = typer.Option(None, "--gpus", help="Share the cases across this many of the host's GPUs "
                                       "(a number, or all): every case in a worker pinned to one GPU, a case never "
                                       "split; the parent alone writes the store."),
    ray_address: Optional[str] = typer.Option(None, "--ray", help="Run the cases as tasks on this Ray cluster "
                                              "(an address, or local to start one here), a GPU a case; the parent "
                                              "alone writes the store (mage.ray_workers)."),
    wide: bool = WIDE_OPTION,
    log_steps: bool = typer.Option(False, "--log-steps", help="On output that is not a terminal, a line per step "
                                   "(contract, profile, span, re-check) with the seconds since the start, instead "
                                   "of a line per case: where a run's time goes."),
    db: Path = DB_OPTION,
):
    """Check every implementation against float64, then measure those that pass; store the run."""
    from mage.plan import Request, fresh_method

    if resume_run is not None:
        request = _resumed_request(resume_run, db, op=op, case=case, impl=impl, all_strategies=all_strategies,
                                   suite=suite, budget=budget, batch=batch, noise_target=noise_target,
                                   min_samples=min_samples, path=path, hypothesis=hypothesis, predict=predict,
                                   cold=cold or None,
                                   device=device is not DeviceChoice.auto or None)
        where = _device(DeviceChoice(request.device))
    else:
        where = _device(device)
        paths = path or (["single", "batch", "graph"] if where == "cuda" else ["single"])
        suite = _suite_choice(suite, case)
        request = Request(suites=_suites(suite), ops=op, impls=impl, paths=paths, cases=case,
                          caches=["warm", "cold"] if cold else ["warm"], device=where, all_strategies=all_strategies,
                          method=fresh_method(Method(budget_s=_budget(budget, suite),
                                                     wall_budget_s=SEED_WALL_BUDGET_S if _seed_alone(budget, suite)
                                                     else None,
                                                     batch=Method.batch if batch is None else batch,
                                                     min_samples=Method.min_samples if min_samples is None
                                                     else min_samples,
                                                     noise_target=Method.noise_target if noise_target is None
                                                     else noise_target)))
    _execute(request, hypothesis=hypothesis, predict=predict, resume_run=resume_run, isolate=isolate,
             case_timeout=case_timeout, gpus=gpus, ray_address=ray_address, wide=wide, log_steps=log_steps, db=db)


def _execute(request, *, hypothesis: Optional[str], predict: Optional[List[str]], db: Path, wide: bool = False,
             log_steps: bool = False, resume_run: Optional[int] = None, isolate: Optional[bool] = None,
             case_timeout: float = 900.0, gpus: Optional[str] = None, ray_address: Optional[str] = None) -> None:
    """Plan, check, time and store ``request`` (mage run and mage study), then print its results and answer."""
    from mage import registry
    from mage.plan import plan
    from mage.runner import Runner

    where = request.device
    if where == "cpu":
        console.print("[bold yellow]No CUDA device: running the contracts and CPU wall-clock timings only; "
                      "every number below is CPU time, not GPU time.[/]")
    work = plan(request)
    if not work:
        raise MageError("nothing to run: no case of the selected suite has a selected implementation")
    predictions = _predictions(predict, request)
    if gpus is not None and ray_address is not None:
        raise MageError("--gpus shares this host's GPUs, --ray a cluster's: give one of them")
    slots = None if gpus is None else _gpu_slots(gpus, where)
    lines = StepLines(_log_line) if log_steps else CaseLines(_log_line, len(work))
    with contextlib.ExitStack() as stack:
        cluster = None
        if ray_address is not None:  # reached before the store is made: a usage error leaves no store behind
            from mage.ray_workers import RayCluster

            cluster = RayCluster(ray_address, where)
            stack.callback(cluster.close)
        store = _open_store(db)
        on_progress = stack.enter_context(_progress(sum(len(w.impls) for w in work), lines))
        command = shlex.join(["mage", *sys.argv[1:]])
        if cluster is not None:
            from mage.isolation import IsolatedRunner

            runner = IsolatedRunner(store, request, command, on_progress, case_timeout=case_timeout,
                                    gpus=[None] * cluster.slots, launch=cluster.launch)
        elif slots is not None:
            from mage.isolation import IsolatedRunner

            runner = IsolatedRunner(store, request, command, on_progress, case_timeout=case_timeout, gpus=slots)
        elif isolate is not False:
            from mage.isolation import DEFAULT_SUITES, IsolatedRunner

            runner = IsolatedRunner(store, request, command, on_progress, case_timeout=case_timeout,
                                    suites=None if isolate else DEFAULT_SUITES)
        else:
            runner = Runner(store, request, command, on_progress)
        try:
            run_id = runner.run(work) if resume_run is None else runner.resume(resume_run, work)
        except WorkersLost as lost:
            _error(f"{lost}. Run {runner.run_id} is stored as incomplete with every other case; continue it with: "
                   f"{_resume_command(runner.run_id, db, '--ray', ray_address)}")
            raise typer.Exit(2) from lost
        except DeviceLost as lost:
            _error(f"{lost}. Run {runner.run_id} stops here, stored as incomplete with that failure; a CUDA context "
                   f"cannot be repaired in-process, so continue it in worker processes: "
                   f"{_resume_command(runner.run_id, db, '--isolate')}")
            raise typer.Exit(1) from lost
        except Interrupted as interrupted:
            if getattr(runner, "run_id", None) is None:
                raise  # stopped before the run was stored: nothing to resume
            errors.print(f"interrupted by {interrupted.signal.name}: run {runner.run_id} is stored as incomplete with "
                         f"every finished case; continue it with: {_resume_command(runner.run_id, db)}", markup=False)
            raise typer.Exit(interrupted.exit_code) from interrupted
        except RunClaimedError:
            raise  # another process runs it: its own message says who, and there is nothing to make room for
        except (sqlite3.Error, StoreError) as error:  # a full disk: what was stored before stays
            stored = "" if getattr(runner, "run_id", None) is None else (
                f"; run {runner.run_id} keeps every result stored before it: make room, then "
                f"{_resume_command(runner.run_id, db)}")
            reason = str(error) if isinstance(error, StoreError) else f"cannot write {db}: {error}"
            raise MageError(f"could not store the run ({reason}){stored}") from error
        finally:
            _record_experiment(store, runner, hypothesis, predictions)
    rows = store.rows(run_id)
    _print_results(store.run(run_id), rows, wide)
    _print_answer(store.run(run_id), rows)
    _print_experiment(store, run_id)
    console.print(f"stored as run {run_id} in {db}", markup=False)
    _exit_if_failed(sorted({(row["op"], row["impl"], _failure_kind(row)) for row in rows if row["status"] == "fail"
                            and not registry.failed_as_registered(row["op"], row["impl"], row["reason"])}))


@contextlib.contextmanager
def _progress(steps: int, lines, advance_on: str = "check"):
    """What a run, a check or a context measurement shows as it goes, given as the callback for each
    mage.progress.Step: a progress bar over ``steps`` (it advances at each ``advance_on`` step) on a terminal;
    elsewhere (a log, a pipe) ``lines``, a mage.progress.CaseLines or StepLines."""
    if console.is_terminal:
        with Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=console, transient=True) as progress:
            task = progress.add_task("starting", total=steps)

            def on_progress(step) -> None:
                if step.step == advance_on:
                    progress.advance(task)
                progress.update(task, description=str(step))

            yield on_progress
    else:
        yield lines.step
        lines.close()  # not after an error: the case it was in did not finish


def _log_line(text: str) -> None:
    console.print(text, markup=False, highlight=False)


def _print_results(stored: dict, rows: list, wide: bool) -> None:
    """The results table (priority columns unless ``wide``), failures and suspect times, then one line per family
    and reason for the skipped implementations instead of a row each."""
    from mage.report.findings import skip_lines
    from mage.report.tables import failures_table, results_table

    from rich.measure import Measurement

    shown = [row for row in rows if row["status"] != "skip"]
    table = results_table(stored, shown, width=None if wide else console.width)
    terminal = console.width
    if wide:  # as wide as its cells, however narrow the terminal (a pager or an editor scrolls sideways)
        console.width = max(terminal, Measurement.get(console, console.options.update_width(UNFOLDED), table).maximum)
    try:
        console.print(table)
    finally:
        console.width = terminal
    failures = failures_table(shown)
    if failures is not None:
        console.print(failures)
    for line in skip_lines(rows):
        console.print(line, markup=False, highlight=False)


def _print_answer(stored: dict, rows: list) -> None:
    """The run's answer, last: per op, case, variant and precision, the fastest at each boundary (mage.best)."""
    from mage import best
    from mage.history import device_model
    from mage.report.answer import answer_table

    answers = best.from_rows(rows, device_model(stored["env"]), stored["id"])
    if answers:
        console.print(answer_table(answers, f"The answer: fastest by boundary on {device_model(stored['env'])} "
                                   f"({stored['clock'].upper()} clock)"))


@app.command("study")
def study(
    name: Optional[str] = typer.Argument(None, help="The study to run; none: list them."),
    device: DeviceChoice = typer.Option(DeviceChoice.auto, help="Where to run."),
    wide: bool = WIDE_OPTION,
    db: Path = DB_OPTION,
):
    """Run a study (python/mage/studies/NAME.toml: its question, cases in order, implementations, hypothesis
    and predictions) as mage run would, or a study of model blocks as mage context would, the study's name
    stored with the run; with no name, list them."""
    from rich.table import Table

    from mage import studies

    if name is None:
        table = Table(title="studies (mage study NAME runs one)")
        for column in ("study", "question", "measures", "a run takes"):
            table.add_column(column, overflow="fold")
        for each in studies.every():
            table.add_row(each.name, each.headline, each.scope,
                          f"about {each.seconds} s on an H200" if each.seconds else "", end_section=True)
        console.print(table)
        return
    chosen = studies.load(name)
    console.print(f"{chosen.name}: {' '.join(chosen.question.split())}", markup=False)
    if chosen.context is not None:
        _measure_context(chosen.context_request(_device(device)), db)
        return
    _execute(chosen.request(_device(device)), hypothesis=chosen.hypothesis, predict=chosen.predict or None, db=db,
             wide=wide)


@app.command("best")
def best_of(op: Optional[str] = typer.Option(None, "--op", help="Only this op."),
            case: Optional[str] = typer.Option(None, "--case", help="Only this case (its name, e.g. 1024x1024)."),
            precision: Optional[str] = typer.Option(None, "--precision", help="Only this precision (ieee, tf32, …)."),
            as_json: bool = typer.Option(False, "--json", help="The answers as JSON, one object per boundary."),
            db: Path = DB_OPTION):
    """The best implementation Mage has measured, per op, case, precision and boundary: the latest passing
    measurement of each implementation in the store, with its run and date, its ratio to eager and to the fastest
    library implementation (torch.compile, cuSPARSE or a peer library, named)."""
    from mage import best
    from mage.report.answer import answer_table

    store = _read_store(db)
    try:
        answers = best.latest(store, op=op, case=case, precision=precision)
    finally:
        store.close()
    if as_json:
        _write_out(json.dumps([answer.as_dict() for answer in answers], indent=1))
        return
    if not answers:
        raise MageError(f"no passing measurement in {db} matches" + "".join(
            f" {name} {value!r}" for name, value in (("--op", op), ("--case", case), ("--precision", precision))
            if value))
    devices = {answer.device for answer in answers}  # several: each row names its own
    on = f" on {next(iter(devices))}" if len(devices) == 1 else ""
    console.print(answer_table(answers, f"The best measured in {db}{on}", provenance=True))


def _gpu_slots(gpus: str, where: str) -> list[str]:
    """The CUDA_VISIBLE_DEVICES of each worker slot for ``--gpus N|all``: the first N GPUs this process
    sees (itself perhaps restricted by CUDA_VISIBLE_DEVICES)."""
    import os

    import torch

    if gpus != "all" and not (gpus.isdigit() and int(gpus) > 0):
        raise MageError(f"--gpus takes a positive number or 'all', not {gpus!r}")
    if where != "cuda":
        raise MageError("--gpus shares cases across CUDA devices; this run is on the CPU")
    count = torch.cuda.device_count()
    wanted = count if gpus == "all" else int(gpus)
    if wanted > count:
        raise MageError(f"--gpus {wanted}: this machine shows {count} CUDA device{'s' * (count != 1)}")
    visible = [part.strip() for part in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if part.strip()]
    return (visible or [str(index) for index in range(count)])[:wanted]


def _resume_command(run_id: int, db: Path, *options: str) -> str:
    return shlex.join(["mage", "run", "--resume", str(run_id), *options, "--db", str(db)])


def _failure_kind(row: dict) -> str:
    """What a failed row failed: its contract, its re-check after timing, one launch path, or an error before."""
    from mage.runner import RECHECK_FAILURE, STALE

    if (row["reason"] or "").startswith(RECHECK_FAILURE):
        return "re-check"
    if (row["reason"] or "").startswith(STALE):
        return "stale answer"
    if row["contract"] == "pass":
        return f"{row['path']} path"
    return "contract" if row["contract"] == "fail" else "error"  # never checked: its inputs or its worker failed


def _exit_if_failed(failed: list[tuple[str, str, str]]) -> None:
    """Exit 1, the last line naming them, if any (op, implementation, what failed) is listed."""
    if not failed:
        return
    names = sorted({(op, impl) for op, impl, _ in failed})
    which = ", ".join(f"{op} {impl} ({', '.join(kind for o, i, kind in failed if (o, i) == (op, impl))})"
                      for op, impl in names)
    console.print(f"{len(names)} implementation{'s' * (len(names) != 1)} failed: {which}", markup=False,
                  highlight=False)
    raise typer.Exit(1)


def _resumed_request(run_id: int, db: Path, **selections):
    """The stored request of ``run_id``; selecting anything else alongside --resume is refused."""
    from mage import resume

    given = [name.replace("_", "-") for name, value in selections.items() if value]
    if given:
        raise MageError(f"--resume takes the run's own selection; drop --{', --'.join(given)}")
    if not db.exists():
        raise MageError(f"no store at {db}; give the one the run is in with --db")
    store = _read_store(db)
    try:
        return resume.stored_request(store.run(run_id))
    finally:
        store.close()


@app.command("check")
def check_contracts(
    suite: Optional[List[Suite]] = typer.Option(None, help="Which cases to check (repeatable). Default: seed, "
                                                "or every suite with --case."),
    op: Optional[List[str]] = typer.Option(None, "--op"),
    case: Optional[List[str]] = CASE_OPTION,
    impl: Optional[List[str]] = typer.Option(None, "--impl", help=IMPL_HELP),
    all_strategies: bool = ALL_STRATEGIES_OPTION,
    device: DeviceChoice = typer.Option(DeviceChoice.auto),
):
    """Check implementations against the float64 reference without timing them; exit 1 if any fails."""
    from rich.table import Table

    from mage.plan import Request, fresh_method, plan
    from mage.progress import Step
    from mage.report.findings import skip_lines

    where = _device(device)
    request = Request(suites=_suites(_suite_choice(suite, case)), ops=op, impls=impl, cases=case, device=where,
                      all_strategies=all_strategies)
    seed = fresh_method(Method()).check_seed
    table = Table(title=f"contracts on {where} (check seed {seed})")
    for column in ("op", "case", "impl", "contract", "rel error", "eager error", "reason"):
        table.add_column(column, overflow="fold")
    failed, skipped = [], []
    work = plan(request)
    with _progress(sum(len(planned.impls) for planned in work), CaseLines(_log_line, len(work))) as on_progress:
        for planned in work:
            for implementation in planned.impls:
                on_progress(Step(planned.case.key, "check", implementation.name))
                failed += _check_one(table, skipped, planned, implementation, where, seed)
    console.print(table)
    for line in skip_lines(skipped):
        console.print(line, markup=False, highlight=False)
    _exit_if_failed(failed)


def _check_one(table, skipped: list, planned, implementation, where: str, seed: int) -> list[tuple[str, str, str]]:
    """Check one implementation on one case into ``table`` (a skip into ``skipped``); its failure, if any."""
    from mage import check, registry
    from mage.plan import skip_reason
    from mage.report.tables import add_literal_row

    reason = skip_reason(planned.spec, planned.case, implementation, where)
    if reason:
        skipped.append({"op": planned.spec.name, "case": planned.case.name, "impl": implementation.name,
                        "family": implementation.family, "status": "skip", "reason": reason})
        return []
    try:
        result = check.check(implementation, registry.baseline_of(implementation), planned.spec, planned.case, where,
                             seed)
    except FOREIGN_FAULTS as error:  # one implementation's crash, or exit, is its own failure
        result = check.ContractResult(False, None, None, f"{type(error).__name__}: {error}")
    add_literal_row(table, planned.spec.name, planned.case.name, implementation.name,
                    Text("pass", style="green") if result.passed else Text("FAIL", style="bold red"),
                    "" if result.rel_error is None else f"{result.rel_error:.2e}",
                    "" if result.eager_error is None else f"{result.eager_error:.2e}", result.reason)
    if result.passed or implementation.failed_as_registered(result.reason) or check.timed_despite(result,
                                                                                                   implementation):
        return []
    # Said at once, not only in the table at the end: a check stopped part way still names what failed.
    _log_line(f"FAIL {planned.spec.name} {planned.case.name} {implementation.name}: {result.reason}")
    return [(planned.spec.name, implementation.name, f"contract on {planned.case.name}")]


@app.command()
def env(device: DeviceChoice = typer.Option(DeviceChoice.auto), measure_ceilings: bool = typer.Option(
        False, "--ceilings", help="Also measure copy bandwidth and library matmul rates (GPU only).")):
    """Print the environment a run would record."""
    from mage.measure import ceilings, env as environment

    where = _device(device)
    captured = environment.capture(where) | {"gpu_state": environment.gpu_state()}
    if measure_ceilings:
        captured["ceilings"] = ceilings.measure(where)
    console.print_json(json.dumps(captured))


@app.command()
def runs(db: Path = DB_OPTION):
    """List the stored runs."""
    from mage.report.tables import runs_table

    console.print(runs_table(_read_store(db).runs()))


def _run_id(store, run_id: Optional[int]) -> int:
    return store.latest_run_id() if run_id is None else run_id


@app.command()
def show(run_id: Optional[int] = typer.Argument(None, help="Run id (default: the latest)."), wide: bool = WIDE_OPTION,
         db: Path = DB_OPTION):
    """Show a stored run: environment, ceilings and every result."""
    from mage.report.accuracy import accuracy_table, scatters
    from mage.report.format import commit_label
    from mage.report.tables import ceilings_line

    store = _read_store(db)
    run_id = _run_id(store, run_id)
    stored = store.run(run_id)
    environment = stored["env"]
    console.print(Text.assemble((f"run {run_id}", "bold"), f" · {stored['status']} · started {stored['started_at']} · "
                                f"{environment.get('gpu') or environment.get('host_cpu')} · torch "
                                f"{environment.get('torch')} · commit {commit_label(environment)}"))
    if stored["ceilings"]:
        console.print(ceilings_line(stored["ceilings"]), markup=False)
    console.print(f"command: {stored['command']}", markup=False)
    rows = store.rows(run_id)
    if rows:  # a context run has model blocks instead
        _print_results(stored, rows, wide)
        if (trade := accuracy_table(rows, width=None if wide else console.width)) is not None:
            console.print(trade)
            for plane in scatters(rows):
                console.print(plane)
    _print_experiment(store, run_id)
    if rows:
        _print_findings(store, stored, rows)
    _print_context(store, run_id)


def _print_context(store, run_id: int) -> None:
    """The model blocks of a context run: predicted against measured speedup, then the findings in words."""
    from mage.report import context
    from mage.report.tables import context_table

    results = store.context_results(run_id)
    if results:
        console.print(context_table(results, width=console.width))
        console.print(Text("\nModel blocks (mage.report.context)\n", style="bold"))
        console.print(Text(context.as_text(context.findings(results, store.context_shares(run_id)))))


@app.command()
def export(run_id: Optional[int] = typer.Argument(None, help="Run id (default: the latest)."),
           as_json: bool = typer.Option(False, "--json", help="Print the result rows as a JSON list (then a "
                                        "context run's block results, each with its op shares)."),
           run_json: bool = typer.Option(False, "--run-json", help="The whole run (environment, cases, results, "
                                         "samples, predictions) as one JSON document, for mage import."),
           all_runs: bool = typer.Option(False, "--all", help="With --run-json: every stored run."),
           output: Optional[str] = typer.Option(None, "--output", "-o", callback=_named_path,
                                                help="Write to this file instead (with --run-json, gzip-compressed "
                                                "if it ends in .gz)."),
           db: Path = DB_OPTION):
    """Print a run's results as rows (JSON with --json; a context run's block results follow, each with its op
    shares), or whole runs for mage import (--run-json)."""
    from mage import atomic
    from mage.report.tables import export_context, export_rows

    if as_json == run_json:
        raise MageError("choose one export format: --json (result rows) or --run-json (whole runs, for mage import)")
    if run_json:
        return _export_runs(run_id, all_runs, output, db)
    if all_runs:
        raise MageError("--all exports whole runs: give it with --run-json")
    store = _read_store(db)
    run_id = _run_id(store, run_id)
    text = json.dumps(export_rows(store.rows(run_id))
                      + export_context(store.context_results(run_id), store.context_shares(run_id)), indent=1)
    if output is None:
        _write_out(text)
    else:
        atomic.write_text(output, text + "\n")
        errors.print(f"wrote the rows of run {run_id} to {output}", markup=False)


@app.command()
def amdahl(fraction: float = typer.Option(..., help="Fraction of the request the kernel takes (0–1)."),
           speedup: float = typer.Option(..., callback=_positive, help="How many times faster the kernel becomes.")):
    """What a kernel speedup does to a whole request."""
    console.print(amdahl_law.statement(fraction, speedup))


def _predictions(texts: Optional[List[str]], request) -> list:
    """Read and check every --predict before the run starts."""
    from mage import experiments, registry

    predictions = experiments.parse_all(texts, registry.ops())
    experiments.validate(predictions, request)
    return predictions


def _record_experiment(store, runner, hypothesis: Optional[str], predictions: list) -> None:
    if (hypothesis or predictions) and getattr(runner, "run_id", None) is not None:
        store.set_experiment(runner.run_id, hypothesis, [p.text for p in predictions])


def _print_experiment(store, run_id: int) -> None:
    from mage import experiments

    table = experiments.experiment_table(*experiments.evaluate_run(store, run_id))
    if table is not None:
        console.print(table)


def _export_runs(run_id: Optional[int], all_runs: bool, output: Optional[Path], db: Path) -> None:
    from mage import transfer

    store = _read_store(db)
    if all_runs and run_id is not None:
        raise MageError("give a run id or --all, not both")
    ids = [run["id"] for run in store.runs()] if all_runs else [_run_id(store, run_id)]
    document = transfer.export_runs(store, ids)
    if output is None:
        _write_out(json.dumps(document, separators=(",", ":")))
    else:
        transfer.write(document, output)
        errors.print(f"wrote {len(ids)} run{'s' * (len(ids) != 1)} to {output}", markup=False)


@app.command("import")
def import_runs(files: List[Path] = typer.Argument(..., help="Documents written by mage export --run-json "
                                                   "(.json or .json.gz)."),
                db: Path = DB_OPTION):
    """Merge whole runs into the store; a run it already holds (same fingerprint) is skipped."""
    from mage import transfer

    documents = [(file, transfer.read(file)) for file in files]  # every file checked before anything is stored
    store = _open_store(db)
    for file, document in documents:
        if not document["runs"]:
            console.print(f"{file}: holds no run; nothing imported", markup=False)
        for source, local, new in transfer.import_runs(store, document):
            if new:
                console.print(f"{file}: run {source} imported as run {local}", markup=False)
            else:
                console.print(f"{file}: run {source} already stored as run {local}; skipped", markup=False)


@app.command("compare")
def compare_runs(run_a: int = typer.Argument(..., help="The run compared against (A)."),
                 run_b: int = typer.Argument(..., help="The run judged (B): verdicts say how B differs from A."),
                 op: Optional[List[str]] = typer.Option(None, "--op", help="Only these ops (repeatable)."),
                 show_all: bool = typer.Option(False, "--all", help="Also list the rows judged the same."),
                 as_json: bool = typer.Option(False, "--json", help="Print the comparison as JSON."),
                 db: Path = DB_OPTION):
    """Per op, case, implementation and boundary, and per model block of context runs: faster, slower, same or
    ambiguous (rules: mage.compare)."""
    from mage import compare

    comparison = compare.compare(_read_store(db), run_a, run_b, op)
    if as_json:
        _write_out(json.dumps(compare.as_json(comparison), indent=1))
        return
    for part in compare.render(comparison, show_all, width=console.width):
        console.print(part)


@app.command("history")
def history_of(op: Optional[str] = typer.Option(None, "--op", help="Only this op."),
               impl: Optional[str] = typer.Option(None, "--impl", help="Only this implementation (or a name prefix)."),
               case: Optional[str] = typer.Option(None, "--case", help="Only this case."),
               path: Optional[str] = typer.Option(None, "--path", help="Only this launch path."),
               cache: Optional[str] = typer.Option(None, "--cache", help="Only this cache state."),
               boundary: List[str] = typer.Option(["kernel", "span"], "--boundary",
                                                  help="kernel, span, host, launches (repeatable)."),
               points: bool = typer.Option(False, "--points", help="Every point of every series, not only of "
                                           "those with a step."),
               html_file: Optional[str] = typer.Option(None, "--html", callback=_named_path,
                                                       help="Also write a history page: one chart per "
                                                       "implementation, steps marked."),
               db: Path = DB_OPTION):
    """Every stored result over time and commits, with the steps where it got faster or slower."""
    from mage import history

    series = history.load(_read_store(db), op, impl, case, path, cache, boundary)
    if not series:
        raise MageError("no stored result matches")
    console.print(history.summary_table(series, width=console.width))
    for s in series:
        if points or s.steps:
            console.print(history.points_table(s))
    steps = [st for s in series for st in s.steps]
    slower = sum(st.direction == "slower" for st in steps)
    beside = history.beside_other_changes(steps)
    console.print(f"{len(series)} series, {len(steps)} steps: {slower} slower, {len(steps) - slower} faster "
                  "(step detection: mage.history)"
                  + (f"; {beside} (a step beside another change may be that change, not the code)" if beside else ""))
    if html_file is not None:
        from mage import atomic
        from mage.report.history_html import history_page

        atomic.write_text(html_file, history_page(series))
        console.print(f"history page written to {html_file}", markup=False)


def _print_findings(store, stored: dict, rows: list) -> None:
    from mage.report.context import op_shares
    from mage.report.findings import as_text, findings

    console.print(Text("\nFindings (≈ within noise; Amdahl's law at each op's share as mage context measured it, "
                       "where it did)\n", style="bold"))
    console.print(Text(as_text(findings(stored, rows, op_shares(store)))))


@app.command()
def report(run_id: Optional[int] = typer.Argument(None, help="Run id (default: the latest)."),
           out: Optional[str] = typer.Option(None, "--out", callback=_named_path,
                                             help="Directory to write into (default: reports/run-N)."),
           fraction: Optional[float] = typer.Option(None, help=FRACTION_HELP), db: Path = DB_OPTION):
    """Write a run's report: report.html (interactive, offline), figure.png/.svg and tables.md; a run measured at
    several precisions also accuracy.png/.svg (error against time); a context run's
    model blocks also context.png/.svg."""
    from mage import atomic
    from mage.report import figures, html, markdown, schedule
    from mage.report.context import amdahl_shares

    if fraction is not None:
        amdahl_law.overall_speedup(fraction, 1.0)  # refuses a fraction outside 0–1 before any work
    store = _read_store(db)
    run_id = _run_id(store, run_id)
    stored, rows = store.run(run_id), store.rows(run_id)
    blocks, shares = store.context_results(run_id), store.context_shares(run_id)
    if not rows and not blocks:
        raise MageError(f"run {run_id} has no results to report")
    out = atomic.output_folder(out or Path("reports") / f"run-{run_id}")
    atomic.write_text(out / "report.html", html.build(stored, rows, amdahl_shares(store, fraction), store=store))
    atomic.write_text(out / "tables.md", markdown.tables(stored, rows, blocks, shares))
    written = ["report.html"]
    if rows:
        written += [path.name for path in figures.draw(stored, rows, out)]
        written += [path.name for path in figures.draw_accuracy(stored, rows, out)]
        written += [path.name for path in schedule.draw(stored, rows, out)]
    if blocks:
        written += [path.name for path in figures.draw_context(stored, blocks, shares, out)]
    console.print(f"report of run {run_id} written to {out}: {', '.join([*written, 'tables.md'])}", markup=False)


@app.command()
def site(out: str = typer.Option(..., "--out", callback=_named_path, help="Directory to write the site into."),
         fraction: Optional[float] = typer.Option(None, help=FRACTION_HELP), db: Path = DB_OPTION):
    """Write a static, offline site over every run of the store: an index of runs and experiments, a page per
    run (its report), per-op history with steps found, one copy of plotly.js (mage.report.site)."""
    from mage.report import site as notebook

    if fraction is not None:
        amdahl_law.overall_speedup(fraction, 1.0)  # refuses a fraction outside 0–1 before any work
    store = _read_store(db)
    if not store.runs():
        raise MageError(f"{db} holds no run to build a site of")
    written = notebook.build(store, out, fraction)
    console.print(f"site of {len(store.runs())} runs written to {out}: {len(written)} files, open "
                  f"{out / 'index.html'}", markup=False)


@app.command()
def context(
    block: Optional[List[str]] = typer.Option(None, "--block", help="Only these blocks: a name (mlp/gpt2-small) or "
                                              "a family (mlp, trimul, gnn) (repeatable)."),
    assign: Optional[List[str]] = typer.Option(None, "--assign", help="op=impl (an --impl selector: native, "
                                               "triton.split, a full name): measure these against eager, alone "
                                               "and together, instead of every faster implementation (repeatable)."),
    precision: List[str] = typer.Option(["ieee"], "--precision", help="ieee, tf32 or bf16: what torch's Linear "
                                        "and every op that declares it run in; at bf16 the block's weights and "
                                        "inputs are bf16, and a block calling an op without bf16 is a skip "
                                        "(repeatable)."),
    size: str = typer.Option("full", "--size", help="full (the blocks at model size: GNN layers of a million "
                             "nodes, Pairformer updates at N 384 and 768, GPT-2 small and 7B-class MLPs), or tiny "
                             "(seconds on a CPU)."),
    compile_mode: List[str] = typer.Option(["default", "max-autotune"], "--compile", help="torch.compile modes of "
                                           "the whole block (repeatable)."),
    no_compile: bool = typer.Option(False, "--no-compile", help="Leave out the whole-block compiles."),
    no_fused: bool = typer.Option(False, "--no-fused", help="Leave out the blocks' fused implementations (a peer "
                                  "library's, Mage's own), measured by default beside the best per-op assignment."),
    all_strategies: bool = ALL_STRATEGIES_OPTION,
    budget: float = typer.Option(Method.budget_s, callback=_positive, help="Seconds of timed spans one assignment "
                                 "may spend per path: the cap on noise-driven sampling."),
    device: DeviceChoice = typer.Option(DeviceChoice.auto, help="Where to run."),
    db: Path = DB_OPTION,
):
    """Mage ops inside model blocks: each assignment of implementations checked, timed, and set beside
    Amdahl's prediction from the ops' shares and isolated speedups."""
    from mage.context import measure
    from mage.plan import fresh_method

    _measure_context(measure.Request(blocks=block or [], precisions=precision, device=_device(device), size=size,
                                     method=fresh_method(Method(budget_s=budget)), assign=measure.parse_assign(assign),
                                     compile_modes=() if no_compile else tuple(dict.fromkeys(compile_mode)),
                                     all_strategies=all_strategies, fused=not no_fused), db)


def _measure_context(request, db: Path) -> None:
    """Check, time and store a context ``request`` (mage context and a study of model blocks), then print
    its blocks."""
    from mage.context import blocks, measure

    measure.check_request(request)
    if request.device == "cpu":
        console.print("[bold yellow]No CUDA device: contracts and CPU wall-clock timings only; kernel times and "
                      "the graph path need a GPU.[/]")
    store = _open_store(db)
    steps = len(blocks.select(request.blocks, request.size)) * len(request.precisions)
    with _progress(steps, StepLines(_log_line), advance_on="done") as on_progress:
        try:
            run_id, results = measure.record(store, request, shlex.join(["mage", *sys.argv[1:]]), on_progress)
        except Interrupted as interrupted:
            from mage.resume import CONTEXT_NOT_RESUMED

            errors.print(f"interrupted by {interrupted.signal.name}: the blocks measured so far are stored, the run "
                         f"marked incomplete; {CONTEXT_NOT_RESUMED}: {shlex.join(['mage', *sys.argv[1:]])}",
                         markup=False)
            raise typer.Exit(interrupted.exit_code) from interrupted
    console.print(_context_table(results))
    console.print(f"stored as run {run_id} in {db}", markup=False)
    _exit_if_failed(sorted({(row.block, f"{row.assignment}@{row.precision}",
                             "contract" if row.span_median_us is None else f"{row.path} path")
                            for row in results if row.status == "fail"}))


def _context_table(results: list):
    from mage.report.tables import Fit, fitted_table

    def number(value, form: str) -> str:
        return "" if value is None else format(value, form)

    names = ["block", "precision", "assignment", "kind", "path", "status", "span median", "kernel", "launches",
             "predicted", "measured"]
    cells = [[row.block, row.precision, row.assignment, row.kind, row.path,
              row.status if row.status == "pass" else f"{row.status}: {row.reason}",
              number(row.span_median_us, ",.1f"), number(row.kernel_us, ",.1f"), number(row.launches, ".1f"),
              number(row.predicted_speedup, ".3f"), number(row.measured_speedup, ".3f")] for row in results]
    fit = Fit(priority=("block", "precision", "assignment", "path", "span median", "kernel", "measured", "predicted",
                        "status", "launches", "kind"),
              essential=("path", "span median", "kernel", "measured", "predicted", "status"),
              folded={"block": 20, "assignment": 24, "status": 24}, narrowed=("assignment", "block", "status"))
    return fitted_table("blocks in context (µs per block call; speedups against eager, same path)", names, cells,
                        console.width, fit)


def _error(message: str) -> None:
    """One line on stderr; ``message`` may hold the user's text, so it is never read as markup."""
    errors.print(Text.assemble(("error:", "bold red"), " ", message))


def _environment_fault(error: BaseException) -> str:
    if isinstance(error, sqlite3.Error):
        from mage.store import explain_fault

        where = " or ".join(dict.fromkeys(str(db) for db in OPENED_STORES)) or "the SQLite store"
        return f"{where} cannot be used: {explain_fault(error)}"
    if error.filename is not None:
        return f"{error.filename}: {error.strerror or error}"
    return str(error)


def _is_click_error(error: Exception) -> bool:
    """A usage or parameter error of click's, whichever click typer brings (its own copy since typer 0.2x)."""
    return callable(getattr(error, "format_message", None)) and isinstance(getattr(error, "exit_code", None), int)


def _click_error(error: Exception) -> None:
    """One line, like every other error, naming where help is; `mage` alone shows its help."""
    context = getattr(error, "ctx", None)
    if type(error).__name__ == "NoArgsIsHelpError":  # by name: its class lives in whichever click typer brings
        error.show()
    else:
        _error(error.format_message() + (f" (see {context.command_path} --help)" if context is not None else ""))


def _whole_summaries() -> None:
    """Each command's summary in `mage --help`: its docstring's first paragraph, whole (click would cut it at the
    width with "...", mid-sentence)."""
    import inspect

    for command in app.registered_commands:
        command.short_help = " ".join(inspect.getdoc(command.callback).split("\n\n")[0].split())


_whole_summaries()


def _undecodable_argument(arguments: list[str]) -> str:
    """The usage error for the first argument that is not UTF-8 text (Python keeps its bytes as surrogates), else ''."""
    for position, argument in enumerate(arguments, 1):
        try:
            argument.encode("utf-8")
        except UnicodeEncodeError:
            shown = argument.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            return f"argument {position} ('{shown}') is not UTF-8 text"
    return ""


def main() -> None:
    """The `mage` command. Exit codes (README, "Exit codes"): 0 everything asked for passed; 1 an implementation
    failed its contract, a launch path or a re-check; 2 a usage, input or environment error; 3 a bug in Mage;
    130 / 143 interrupted by SIGINT / SIGTERM."""
    signals.install()  # a timeout's SIGTERM ends a run like Ctrl-C: results kept, run marked incomplete
    OPENED_STORES.clear()
    undecodable = _undecodable_argument(sys.argv[1:])
    if undecodable:  # refused before anything is made: stored text is UTF-8
        _error(undecodable)
        sys.exit(2)
    try:
        code = app(standalone_mode=False)  # what a command's typer.Exit gave; None when it returned
    except MageError as error:
        _error(str(error))
        code = 2
    except Interrupted as interrupted:
        errors.print(f"interrupted by {interrupted.signal.name}")
        code = interrupted.exit_code
    except BrokenPipeError:
        code = _reader_gone()
    except (OSError, sqlite3.Error) as error:  # the environment's fault (a file, a disk), not Mage's
        _error(_environment_fault(error))
        code = 2
    except Exception as error:
        if _is_click_error(error):
            _click_error(error)
            code = error.exit_code
        else:  # a bug: shown whole, with an exit code of its own
            traceback.print_exc()
            _error(f"this is a bug in Mage ({type(error).__name__}: {error}); the traceback above says where")
            code = 3
    sys.exit(code or 0)
