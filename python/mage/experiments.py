"""Experiments: a run made to test a hypothesis, with predictions judged against its own results.

A prediction names one boundary of one implementation and a bound on it:

    OP/IMPL[@CASE][[PATH/CACHE]]:BOUNDARY CMP BOUND

    layernorm/triton:kernel<600                   kernel time of every triton layernorm, every case
    layernorm/triton@1024x1024:kernel_us<6        one case
    layernorm/triton@1024x1024[graph]:span<7      span on the graph path (cache defaults to warm)
    layernorm/triton[single/cold]:span<=0.8*eager span below 80 % of eager's, same case, path and cache
    matmul/triton/default/tf32:launches<=1
    triton/layernorm:kernel<600                   the implementation may come first when the op ends it

- IMPL is a family (``triton``, every strategy), a family and strategy (``triton.split``), an
  implementation name or a prefix of one ending at a '/' (``triton/affine``), as for ``mage run --impl``; OP is an op name. CASE defaults to every case of the op in the run, PATH to
  ``single``, CACHE to ``warm``.
- BOUNDARY: ``kernel`` (kernel time), ``span`` (mean call span), ``span_median``, ``host`` (host time),
  ``launches``, ``rel_error``; a ``_us`` suffix is accepted (``kernel_us``).
- CMP: ``<``, ``<=``, ``>``, ``>=``. BOUND: a number (µs for times; ``ms`` or ``us`` may follow it), or
  ``[FACTOR*]IMPL``: another implementation of the same op (exactly one) on the same case, path, cache.

Judging, per matched result (a prediction holds when it holds for every result it names):
- span: the whole range of round means must lie on the predicted side of the bound (``held``) or on the
  other side (``failed``); a bound inside the range is ``unclear``. Against another implementation the
  two ranges (the other's scaled by FACTOR) are compared the same way.
- kernel and host time: a point value, ``unclear`` when within the resolution of its boundary
  (mage.compare.RESOLUTION: 3 % for kernel, 10 % for host time) of the bound, else held or failed.
- launches and rel_error: exact.
A result that failed or was skipped, or has no number at that boundary (no kernel time on the CPU), is
``no data``; a prediction with nothing to judge is ``no data`` too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mage import identity
from mage.errors import MageError

BOUNDARIES = {
    "kernel": "kernel_us", "span": "span_mean_us", "span_median": "span_median_us", "host": "host_us",
    "launches": "launches", "rel_error": "rel_error",
}
TIME_BOUNDARIES = ("kernel", "span", "span_median", "host")
COMPARATORS = ("<=", ">=", "<", ">")
DEFAULT_PATH, DEFAULT_CACHE = "single", "warm"
OUTCOMES = ("held", "failed", "unclear", "no data")

_TARGET = re.compile(r"^(?P<names>[A-Za-z0-9_.\-/]+?)(?:@(?P<case>[A-Za-z0-9_.\-]+))?"
                     r"(?:\[(?P<path>[a-z]+)(?:/(?P<cache>[a-z]+))?\])?$")
_CONDITION = re.compile(r"^(?P<boundary>[a-z_]+)\s*(?P<cmp><=|>=|<|>)\s*(?P<bound>.+)$")
_NUMBER = re.compile(r"^(?P<value>[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(?P<unit>us|µs|ms)?$")
_RELATIVE = re.compile(r"^(?:(?P<factor>[0-9]*\.?[0-9]+)\s*\*\s*)?(?P<impl>[A-Za-z][A-Za-z0-9_.\-/]*)$")


class PredictionError(MageError):
    """A prediction that cannot be read or names something the run will not measure."""


@dataclass(frozen=True)
class Prediction:
    text: str
    op: str
    impl: str
    case: str | None
    path: str
    cache: str
    boundary: str
    comparator: str
    value: float | None = None  # an absolute bound (µs for times)
    factor: float = 1.0  # or FACTOR × another implementation's value
    reference: str | None = None

    @property
    def field(self) -> str:
        return BOUNDARIES[self.boundary]

    def bound_text(self) -> str:
        if self.reference is None:
            return f"{self.value:g}"
        return f"{self.factor:g}×{self.reference}" if self.factor != 1 else self.reference


@dataclass
class Judgement:
    """One result a prediction names, and what it showed."""

    case: str
    impl: str
    observed: str
    outcome: str


@dataclass
class Evaluation:
    prediction: Prediction
    outcome: str
    judgements: list[Judgement]


SHOWN_CHARS = 80  # of a prediction's text quoted in an error: enough to find it, never a page of it


def _shown(text: str) -> str:
    return repr(text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…")


def parse(text: str, ops) -> Prediction:
    """Read one prediction; ``ops`` are the op names it may refer to. Raises PredictionError."""
    ops = set(ops)
    source = text.strip()
    if ":" not in source:
        raise PredictionError(f"prediction {_shown(text)}: expected OP/IMPL:BOUNDARY<BOUND, "
                              "e.g. layernorm/triton:kernel<600")
    target, condition = (part.strip() for part in source.rsplit(":", 1))
    match = _TARGET.match(target)
    if not match:
        raise PredictionError(f"prediction {_shown(text)}: cannot read {_shown(target)} as "
                              "OP/IMPL[@CASE][[PATH/CACHE]]")
    op, impl = _op_and_impl(text, match["names"], ops)
    cond = _CONDITION.match(condition)
    if not cond:
        raise PredictionError(f"prediction {_shown(text)}: cannot read {_shown(condition)} as BOUNDARY<BOUND "
                              f"(comparators: {', '.join(COMPARATORS)})")
    boundary = cond["boundary"].removesuffix("_us")
    if boundary not in BOUNDARIES:
        raise PredictionError(f"prediction {_shown(text)}: unknown boundary {cond['boundary']!r}; "
                              f"known: {', '.join(BOUNDARIES)} (a _us suffix is accepted)")
    value, factor, reference = _bound(text, cond["bound"].strip(), boundary)
    return Prediction(text=source, op=op, impl=impl, case=match["case"], path=match["path"] or DEFAULT_PATH,
                      cache=match["cache"] or DEFAULT_CACHE, boundary=boundary, comparator=cond["cmp"],
                      value=value, factor=factor, reference=reference)


def _op_and_impl(text: str, names: str, ops: set) -> tuple[str, str]:
    parts = [p for p in names.split("/")]
    if len(parts) < 2 or not all(parts):
        raise PredictionError(f"prediction {_shown(text)}: name the op and the implementation, e.g. layernorm/triton")
    if parts[0] in ops:
        return parts[0], "/".join(parts[1:])
    if parts[-1] in ops:
        return parts[-1], "/".join(parts[:-1])
    raise PredictionError(f"prediction {_shown(text)}: no op named in {_shown(names)}; "
                          f"known ops: {', '.join(sorted(ops))}")


def _bound(text: str, bound: str, boundary: str) -> tuple[float | None, float, str | None]:
    number = _NUMBER.match(bound)
    if number:
        if number["unit"] and boundary not in TIME_BOUNDARIES:
            raise PredictionError(f"prediction {_shown(text)}: {boundary} is not a time; drop the unit")
        return float(number["value"]) * (1000.0 if number["unit"] == "ms" else 1.0), 1.0, None
    relative = _RELATIVE.match(bound)
    if not relative:
        raise PredictionError(f"prediction {_shown(text)}: the bound {_shown(bound)} is neither a number nor "
                              "[FACTOR*]IMPL")
    factor = float(relative["factor"]) if relative["factor"] else 1.0
    if factor <= 0:
        raise PredictionError(f"prediction {_shown(text)}: the factor must be positive")
    return None, factor, relative["impl"].rstrip("/")


def parse_all(texts, ops) -> list[Prediction]:
    return [parse(text, ops) for text in texts or ()]


def validate(predictions: list[Prediction], request) -> None:
    """Refuse, before a run starts, a prediction the run could never judge (mage.plan.Request)."""
    from mage import registry
    from mage.plan import selected

    selected_ops = request.ops or sorted(registry.ops())
    for p in predictions:
        where = f"prediction {p.text!r}"
        if p.op not in selected_ops:
            raise PredictionError(f"{where} is about {p.op}, which this run does not measure "
                                  f"(--op {' --op '.join(selected_ops)})")
        impls = {impl.name: impl for suite in request.suites for impl in selected(p.op, request, suite)}.values()
        if not any(identity.matches(i.name, p.impl) for i in impls):
            raise PredictionError(f"{where}: no implementation of {p.op} in this run matches {p.impl!r}; "
                                  f"it measures {', '.join(i.name for i in impls)}")
        if p.reference is not None:
            references = [i.name for i in impls if identity.matches(i.name, p.reference)]
            if len(references) != 1:
                found = ", ".join(references) or "none"
                raise PredictionError(f"{where}: the bound must name exactly one implementation of {p.op} in "
                                      f"this run; {p.reference!r} matches {found}")
        if p.case is not None:
            cases = [c.name for c in registry.get_op(p.op).cases() if c.suite in request.suites]
            if p.case not in cases:
                raise PredictionError(f"{where}: {p.op} has no case {p.case!r} in the suites run; "
                                      f"known: {', '.join(cases)}")
        if p.path not in request.paths:
            raise PredictionError(f"{where}: path {p.path!r} is not measured in this run "
                                  f"(paths: {', '.join(request.paths)})")
        if p.cache not in request.caches:
            raise PredictionError(f"{where}: cache {p.cache!r} is not measured in this run"
                                  f"{' (add --cold)' if p.cache == 'cold' else ''}")
        if p.boundary in ("kernel", "host", "launches") and p.path != "single":
            raise PredictionError(f"{where}: {p.boundary} is measured on the single path only")


# Judging

def evaluate(prediction: Prediction, rows: list[dict]) -> Evaluation:
    """Judge ``prediction`` against the result rows of a run (Store.rows)."""
    p = prediction
    named = [r for r in rows if r["op"] == p.op and identity.matches(r["impl"], p.impl) and r["path"] == p.path
             and r["cache"] == p.cache and (p.case is None or r["case"] == p.case)]
    judgements = [_judge(p, row, rows) for row in named]
    outcomes = {j.outcome for j in judgements}
    if not judgements or outcomes == {"no data"}:
        outcome = "no data"
    elif "failed" in outcomes:
        outcome = "failed"
    elif "unclear" in outcomes:
        outcome = "unclear"
    elif "no data" in outcomes:
        outcome = "unclear"  # it held where it could be judged, but not everywhere it names
    else:
        outcome = "held"
    return Evaluation(p, outcome, judgements)


def evaluate_run(store, run_id: int, ops=None) -> tuple[str | None, list[Evaluation]]:
    """The hypothesis of a stored run and its predictions, judged against its results.

    A function of the store alone: the ops a prediction may name are the run's, never the registry's."""
    texts = store.predictions(run_id)
    hypothesis = store.run(run_id).get("hypothesis")
    if not texts:
        return hypothesis, []
    rows = store.rows(run_id)
    # The run's ops: those it stored cases of, and those it was asked for (an interrupted run may not
    # have reached them all).
    requested = (store.run(run_id)["method"].get("request") or {}).get("ops") or ()
    known = set(ops or ()) | set(store.ops(run_id)) | set(requested)
    return hypothesis, [evaluate(parse(text, known), rows) for text in texts]


def _range(p: Prediction, row: dict) -> tuple[float, float] | None:
    value = row.get(p.field)
    if value is None:
        return None
    if p.boundary == "span" and row.get("span_round_min_us") is not None:
        return row["span_round_min_us"], row["span_round_max_us"]
    return value, value


def _judge(p: Prediction, row: dict, rows: list[dict]) -> Judgement:
    from mage.compare import RESOLUTION

    def judgement(observed: str, outcome: str) -> Judgement:
        return Judgement(row["case"], row["impl"], observed, outcome)

    if row["status"] != "pass":
        return judgement(row["status"], "no data")
    mine = _range(p, row)
    if mine is None:
        return judgement(f"no {p.boundary} measured", "no data")
    observed = _format(p, row)
    if p.reference is None:
        bound = (p.value, p.value)
    else:
        others = [r for r in rows if r["op"] == p.op and r["case"] == row["case"] and r["path"] == p.path
                  and r["cache"] == p.cache and identity.matches(r["impl"], p.reference)]
        if len(others) != 1 or others[0]["status"] != "pass" or _range(p, others[0]) is None:
            return judgement(f"{observed}; no {p.reference} to compare with", "no data")
        low, high = _range(p, others[0])
        bound = (low * p.factor, high * p.factor)
        observed += f" vs {p.bound_text()} {_format(p, others[0], p.factor)}"
    tolerance = RESOLUTION.get(p.boundary, (0.0, 0.0))[0] if p.boundary in ("kernel", "host") else 0.0
    return judgement(observed, _side(p.comparator, mine, bound, tolerance))


def _side(comparator: str, mine: tuple[float, float], bound: tuple[float, float], tolerance: float) -> str:
    """held if all of ``mine`` satisfies the comparison with all of ``bound``, failed if none does."""
    low, high = mine
    bound_low, bound_high = bound[0] * (1 - tolerance), bound[1] * (1 + tolerance)
    strict = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
              ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}[comparator]
    if comparator in ("<", "<="):
        if strict(high, bound_low):
            return "held"
        if not strict(low, bound_high):
            return "failed"
    else:
        if strict(low, bound_high):
            return "held"
        if not strict(high, bound_low):
            return "failed"
    return "unclear"


def _format(p: Prediction, row: dict, factor: float = 1.0) -> str:
    value = row[p.field] * factor
    if p.boundary == "launches":
        return f"{value:g} launches"
    if p.boundary == "rel_error":
        return f"{value:.2e}"
    text = f"{value:,.2f} µs"
    if p.boundary == "span" and row.get("span_round_min_us") is not None:
        text += f" [{row['span_round_min_us'] * factor:,.2f}–{row['span_round_max_us'] * factor:,.2f}]"
    return text


def evaluation_rows(evaluations: list[Evaluation]) -> list[dict]:
    """Prediction and outcome side by side, one row per prediction: for tables and reports."""
    out = []
    for e in evaluations:
        observed = [f"{j.impl} @{j.case}: {j.observed} → {j.outcome}" for j in e.judgements]
        out.append({"prediction": e.prediction.text, "outcome": e.outcome,
                    "observed": observed or ["nothing in this run matches it"]})
    return out


def experiment_table(hypothesis: str | None, evaluations: list[Evaluation]):
    """A rich table of predictions and outcomes, or None when the run states neither."""
    from rich.table import Table
    from rich.text import Text

    from mage.report.tables import add_literal_row

    if not hypothesis and not evaluations:
        return None
    table = Table(title=Text(f"hypothesis: {hypothesis}" if hypothesis else "predictions"), title_justify="left")
    for column in ("prediction", "observed", "outcome"):
        table.add_column(column, overflow="fold")
    style = {"held": "green", "failed": "bold red", "unclear": "yellow", "no data": "dim"}
    for row in evaluation_rows(evaluations):
        add_literal_row(table, row["prediction"], "\n".join(row["observed"]),
                        Text(row["outcome"], style=style[row["outcome"]]))
    if not evaluations:
        table.add_row("(no predictions)", "", "")
    return table
