"""Accuracy contracts (GUIDE §2): every implementation is checked before it is timed.

An implementation passes on a case when, for fresh inputs from each distribution its spec declares:
- it returns one plain ``torch.Tensor`` (not a subclass, which could defer work past the timed window),
  strided, of its precision's dtype (float32; bf16 and fp16 for those), of the reference's shape on the
  inputs' device;
- every element is finite where the float64 reference is (outputs are poisoned with NaN, so unwritten
  elements fail), and NaN where it is NaN, the same infinity where it is infinite;
- its inputs are unchanged after the call;
- its output shares memory with no input and not with its output of the previous call (an
  implementation that returns an input or a cached tensor would otherwise look instant);
- ‖out − ref‖ / ‖ref‖ is within its precision's ceiling and within 10× the eager
  formulation's error on the same inputs at the same precision (on a distribution the spec calls
  ill-conditioned, where no float32 formula reaches the ceiling, within 10× eager's error alone). At
  tf32 that error is at least the one a correctly rounded TF32 product makes on those inputs: cuBLAS
  runs some small "tf32" products in FP32 (one output, five channels), and a TF32 kernel must not be
  held to FP32's error because the library chose not to use TF32 there. A
  bf16 or fp16 implementation and its eager baseline are given inputs rounded to that dtype, and the
  float64 reference is computed on those rounded values: the error is the kernel's, not the inputs'.
  The error is taken over the positions where the reference is finite.
- no element stands out: a norm-wise error averages a few wrong elements away (a race that corrupts four
  elements of a million stays inside tf32's ceiling), so the worst element's error, in units of the reference's
  root mean square, is within 10× eager's worst element or ELEMENT_SPREAD× the norm-wise allowance, whichever
  is larger (errors spread over a million elements put their worst near 5× their root mean square).

The non-finite contract (spec.NONFINITE: NaN and infinities in every input tensor, and each op's edge
values) is one more distribution, checked like the others: its verdict is the position-by-position
comparison above. Where the reference is NaN an unwritten (poisoned) element goes unseen, but the finite
distributions see it. The eager baseline or a library's implementation (identity.LIBRARY_FAMILIES: what users
run anyway) that fails only the non-finite contract is still timed, on finite inputs, with that failure stored
beside its numbers (timed_despite); one of Mage's own is failed and never timed.

While it is timed, its inputs get new values between samples (InputRefresh) and a sample of its timed
outputs is held to its precision's ceiling against the float64 reference of the values it was given:
an implementation that answers from memory returns a stale result and fails.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from mage.backends.precision import TOLERANCE, precision_mode
from mage import identity
from mage.outputs import poisoned_outputs
from mage.registry import Implementation
from mage.spec import NONFINITE, Case, OpSpec, input_dtype

# The 10×-eager rule compares against eager's error; when eager is exact or nearly so, the
# rule must still allow ordinary float32 rounding (a few units of float32's epsilon).
EAGER_RATIO = 10.0
ROUNDING_FLOOR = 10 * torch.finfo(torch.float32).eps
# The worst element may err by this many times the norm-wise allowance (in the reference's root mean square).
ELEMENT_SPREAD = 8.0
# How a library's row timed despite its failure on non-finite inputs begins its stored reason.
TIMED_DESPITE = "timed on finite inputs all the same"
# How many wrong positions a failure's message names.
NAMED_POSITIONS = 5


@dataclass
class ContractResult:
    passed: bool
    rel_error: float | None
    eager_error: float | None
    reason: str = ""
    failed_on: str = ""  # the distribution it failed on, where it failed on inputs of one


def timed_despite(result: ContractResult, impl: Implementation) -> bool:
    """Whether ``impl`` is timed although it failed ``result``: the eager baseline or a library's implementation
    that fails the non-finite contract alone (users run it anyway; its failure is stored beside its numbers)."""
    return not result.passed and result.failed_on == NONFINITE and not mage_s_own(impl)


def mage_s_own(impl: Implementation) -> bool:
    """Whether ``impl`` is one of Mage's kernels: not the eager baseline, nor a library's implementation."""
    return not impl.baseline and impl.family not in identity.LIBRARY_FAMILIES


def rel_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    """‖out − ref‖ / ‖ref‖ over the positions where ``ref`` is finite (the others are compared exactly)."""
    finite = torch.isfinite(ref)
    if not finite.all():
        out, ref = out[finite], ref[finite]
    diff = torch.linalg.vector_norm((out.to(torch.float64) - ref).flatten())
    norm = torch.linalg.vector_norm(ref.flatten())
    return float(diff / norm) if norm > 0 else float(diff)


def worst_element(out: torch.Tensor, ref: torch.Tensor) -> tuple[float, tuple[int, ...]]:
    """The largest |out − ref| over the positions where ``ref`` is finite, in units of the root mean square of
    ``ref`` there, and its position (an empty tuple where no position is finite)."""
    finite = torch.isfinite(ref)
    if not finite.any():
        return 0.0, ()
    diff = (out.to(torch.float64) - ref).abs().where(finite, torch.zeros((), dtype=torch.float64, device=ref.device))
    at = torch.unravel_index(diff.argmax(), diff.shape)
    rms = float(ref[finite].square().mean().sqrt())
    worst = float(diff[at])
    return (worst / rms if rms > 0 else worst), tuple(int(i) for i in at)


def tf32_rounded(t: torch.Tensor) -> torch.Tensor:
    """float32 values rounded to TF32's 10 mantissa bits, to nearest, ties to even (finite inputs)."""
    bits = t.contiguous().view(torch.int32)
    return ((bits + 0x0FFF + ((bits >> 13) & 1)) & ~0x1FFF).view(torch.float32)


def _tf32_rounding_error(spec: OpSpec, inputs: tuple, ref: torch.Tensor, variant: str) -> float:
    """The error of the exact result of ``inputs`` rounded to TF32, against ``ref``: what a TF32 product
    that accumulates exactly would make, so the least a tf32 implementation can be held to."""
    rounded = tuple(tf32_rounded(t) if isinstance(t, torch.Tensor) and t.dtype == torch.float32 else t
                    for t in inputs)
    return rel_error(spec.reference(upcast(rounded), variant), ref)


def upcast(inputs: tuple) -> tuple:
    return tuple(t.to(torch.float64) if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in inputs)


def _same(before: torch.Tensor, after: torch.Tensor) -> bool:
    return before.shape == after.shape and torch.equal(before.nan_to_num(), after.nan_to_num()) and bool(
        (before.isnan() == after.isnan()).all()
    )


def _storage_span(t: torch.Tensor) -> tuple[torch.device, int, int]:
    storage = t.untyped_storage()
    return t.device, storage.data_ptr(), storage.data_ptr() + storage.nbytes()


def shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether the storages behind ``a`` and ``b`` overlap (views of one buffer included)."""
    (device_a, start_a, end_a), (device_b, start_b, end_b) = _storage_span(a), _storage_span(b)
    return device_a == device_b and start_a < end_b and start_b < end_a


def _aliasing(out: torch.Tensor, inputs: tuple, previous: torch.Tensor | None) -> str:
    for index, t in enumerate(inputs):
        if isinstance(t, torch.Tensor) and shares_memory(out, t):
            return f"its output shares memory with its input #{index}"
    if previous is not None and shares_memory(out, previous):
        return "its output shares memory with its output of the previous call (a cached or reused buffer)"
    return ""


HALVINGS = 16  # at most: a heavy-tailed fp16 draw at 8192³ needs a few; a scale-invariant op stops here


def _within_range(spec: OpSpec, inputs: tuple, variant: str) -> tuple[tuple, torch.Tensor]:
    """``inputs`` and their float64 reference, with 16-bit float inputs halved (exact in binary floating
    point) until the reference fits in half the dtype's range. fp16 holds at most 65,504: a heavy-tailed
    (t₃) draw at matmul 8192³ has results beyond it, which no fp16 implementation can return, so the
    contract would fail every one of them, eager included, on a seed that happens to draw a large tail.
    The contract checks rounding, not range: the same draw, scaled, keeps its heavy tails."""
    ref = spec.reference(upcast(inputs), variant)
    dtypes = {t.dtype for t in inputs if isinstance(t, torch.Tensor) and t.is_floating_point()}
    if not dtypes or dtypes <= {torch.float32, torch.float64}:
        return inputs, ref
    limit = min(torch.finfo(dtype).max for dtype in dtypes) / 2
    for _ in range(HALVINGS):
        if not ref.abs().nan_to_num(0.0, posinf=0.0).max() > limit:
            break
        inputs = tuple(t * 0.5 if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in inputs)
        ref = spec.reference(upcast(inputs), variant)
    return inputs, ref


def _call_checked(impl: Implementation, inputs: tuple, ref: torch.Tensor,
                  previous: torch.Tensor | None = None) -> tuple[float | None, str, object]:
    """Run ``impl`` once on ``inputs``: (error, reason it fails or '', its output). The error is None
    when the output is not one to compare; an output whose NaN and infinities are not the reference's has
    its error all the same (on the positions where both are finite, the eager baseline's is still used).

    ``previous`` is the output of the implementation's previous call, still held so that its memory
    cannot be handed out again: an honest new output never overlaps it.
    """
    originals = tuple(t.clone() if isinstance(t, torch.Tensor) else t for t in inputs)
    with poisoned_outputs(), precision_mode(impl.precision):
        out = impl.fn(*inputs)
    reason = _unfinished_on_return(out)
    if not reason:
        reason = _output_problem(out, inputs, originals, ref, previous, input_dtype(impl.precision))
    if reason:
        return None, reason, out
    return rel_error(out, ref), _nonfinite_mismatch(out, ref, impl.precision), out


def _unfinished_on_return(out) -> str:
    """Work the call left running on another stream: the caller's stream is done, the output is not.

    What the caller's stream holds once it has finished is all that a span (events on that stream)
    waits for; if the output still changes after the whole device has finished, part of the work
    ran outside the span. A side-stream kernel that happens to finish first goes unseen here.
    """
    if not (isinstance(out, torch.Tensor) and out.is_cuda):
        return ""
    torch.cuda.current_stream().synchronize()
    on_return = out.clone()
    torch.cuda.synchronize()
    if _same(on_return, out):
        return ""
    return ("its output changed after its stream had finished: it left work running on another stream, "
            "which a span on the caller's stream does not wait for")


def _not_plain(out) -> str:
    """Why ``out`` is not a plain, materialized tensor, or ''."""
    if not isinstance(out, torch.Tensor):
        return f"it returned {type(out).__name__}, not a tensor"
    if type(out) is not torch.Tensor:
        return (f"it returned a {type(out).__name__}, a subclass of torch.Tensor: outputs must be plain tensors, "
                "since a subclass can defer its work past the timed window")
    if out.layout != torch.strided:
        return f"it returned a {out.layout} tensor: outputs must be strided (dense) tensors"
    return ""


def _output_problem(out, inputs: tuple, originals: tuple, ref: torch.Tensor, previous, dtype: torch.dtype) -> str:
    for index, (before, after) in enumerate(zip(originals, inputs)):
        if isinstance(before, torch.Tensor) and not _same(before, after):
            return f"it wrote its input #{index}"
    if unplain := _not_plain(out):
        return unplain
    if aliased := _aliasing(out, inputs, previous):
        return aliased
    if tuple(out.shape) != tuple(ref.shape):
        return f"output shape {tuple(out.shape)} != reference shape {tuple(ref.shape)}"
    if out.dtype != dtype:
        return f"output dtype {out.dtype} != {dtype}"
    if out.device != ref.device:
        return f"output on {out.device}, inputs on {ref.device}"
    return ""


# A split-precision product (tf32x3: each operand a tf32 big part and a tf32 small part, three products summed)
# cannot keep an infinity: an infinite operand's small part is inf − inf, or an exact one's small part 0 meets
# the other's infinite big part. Its contract lets NaN stand where float64 is infinite (a NaN still marks the
# position); a finite number there, or anywhere float64 is NaN, fails as at every precision.
INFINITY_MAY_BE_NAN = frozenset({"tf32x3"})


def _nonfinite_mismatch(out: torch.Tensor, ref: torch.Tensor, precision: str = "ieee") -> str:
    """Where ``out`` is NaN or infinite but ``ref`` finite, or ``ref`` NaN or infinite and ``out`` not the same
    (INFINITY_MAY_BE_NAN: NaN for an infinity at a split precision): how many, and the first few positions, or ''."""
    finite = torch.isfinite(ref)
    out_finite = torch.isfinite(out)
    unwritten = finite & ~out_finite
    kept = (out.to(ref.dtype) == ref) | (out.isnan() & (ref.isnan() | (precision in INFINITY_MAY_BE_NAN)))
    lost = ~finite & ~kept
    problems = []
    if count := int(unwritten.sum()):
        problems.append(f"{count} of {out.numel()} output elements are NaN or Inf (unwritten or overflowed)"
                        f"{_positions(unwritten, out, ref)}")
    if count := int(lost.sum()):
        problems.append(f"{count} of the reference's {int((~finite).sum())} NaN or infinite elements are not "
                        f"the same in the output (a NaN or an infinity turned into another value)"
                        f"{_positions(lost, out, ref)}")
    return "; ".join(problems)


def _positions(wrong: torch.Tensor, out: torch.Tensor, ref: torch.Tensor) -> str:
    """The first NAMED_POSITIONS positions of ``wrong``, each with the output's and the reference's value."""
    named = [tuple(int(i) for i in index) for index in torch.nonzero(wrong)[:NAMED_POSITIONS].tolist()]
    listed = ", ".join(f"{list(at)} {float(out[at]):g} (reference {float(ref[at]):g})" for at in named)
    more = " …" if int(wrong.sum()) > len(named) else ""
    return f": {listed}{more}"


def check(impl: Implementation, eager: Implementation, spec: OpSpec, case: Case, device: str, seed: int) -> ContractResult:
    """Check ``impl`` on fresh inputs from every distribution; the worst error is reported. A failure on
    non-finite inputs is reported once every other distribution has passed (failed_on says which)."""
    worst, worst_eager = 0.0, 0.0
    tolerance = TOLERANCE[impl.precision]
    previous = eager_previous = None
    nonfinite_failure = None
    for offset, distribution in enumerate(spec.distributions):
        inputs, ref = _within_range(spec, spec.make_inputs_at(case, seed + offset, device, distribution,
                                                              impl.precision), impl.variant)
        spec.check_inputs(*inputs)
        eager_error, eager_reason, eager_previous = _call_checked(eager, inputs, ref, eager_previous)
        # On non-finite inputs the baseline may get a NaN or an infinity wrong (it is then failed by its own
        # check, as any implementation): its error where it is finite still sets the 10×-eager rule.
        if eager_reason and not (distribution == NONFINITE and eager_error is not None and math.isfinite(eager_error)):
            return ContractResult(False, None, None, f"the eager baseline itself fails: {eager_reason}")
        error, reason, previous = _call_checked(impl, inputs, ref, previous)
        if reason and distribution == NONFINITE:
            nonfinite_failure = f"{distribution} inputs: {reason}"
            continue
        if reason:
            return ContractResult(False, None, eager_error, f"{distribution} inputs: {reason}", distribution)
        compared = eager_error
        if impl.precision == "tf32":
            compared = max(eager_error, _tf32_rounding_error(spec, inputs, ref, impl.variant))
        allowed = max(EAGER_RATIO * compared, ROUNDING_FLOOR)
        ceiling = "no precision ceiling: ill-conditioned inputs"
        if distribution not in spec.ill_conditioned:
            allowed, ceiling = min(tolerance, allowed), f"{impl.precision} ceiling {tolerance:g}"
        if error > allowed:
            return ContractResult(
                False,
                error,
                eager_error,
                f"{distribution} inputs: error {error:.3g} > allowed {allowed:.3g} "
                f"({ceiling}, eager error {eager_error:.3g})",
                distribution,
            )
        if reason := _element_standing_out(previous, eager_previous, ref, allowed):
            return ContractResult(False, error, eager_error, f"{distribution} inputs: {reason}", distribution)
        worst, worst_eager = max(worst, error), max(worst_eager, eager_error)
    if nonfinite_failure:
        return ContractResult(False, worst, worst_eager, nonfinite_failure, NONFINITE)
    return ContractResult(True, worst, worst_eager)


def _element_standing_out(out: torch.Tensor, eager_out: torch.Tensor, ref: torch.Tensor, allowed: float) -> str:
    """Why one element of ``out`` errs by more than the rule of the worst element allows, or ''."""
    worst, at = worst_element(out, ref)
    eager_worst, _ = worst_element(eager_out, ref)
    bound = max(EAGER_RATIO * eager_worst, ELEMENT_SPREAD * allowed)
    if worst <= bound:
        return ""
    return (f"the element at {list(at)} is {float(out[at]):g} where the reference is {float(ref[at]):g}: an error "
            f"of {worst:.3g} of the reference's root mean square > allowed {bound:.3g} (eager's worst element "
            f"{eager_worst:.3g}; a few wrong elements hide in the norm-wise error)")


def recheck(impl: Implementation, spec: OpSpec, case: Case, device: str, seed: int) -> str:
    """One more checked call on fresh inputs, after timing: why it now fails, or ''.

    Catches an implementation that was right while checked and changed afterwards (a cached result,
    a counter). The error is held to its precision's ceiling only: the 10×-eager rule was applied by
    ``check`` and needs eager's error, which would double the cost of every re-check.
    """
    drawn = spec.make_inputs_at(case, seed, device, "normal", impl.precision)
    inputs, ref = _within_range(spec, drawn, impl.variant)
    error, reason, _ = _call_checked(impl, inputs, ref)
    return reason or _above_ceiling(error, impl.precision)


def _above_ceiling(error: float, precision: str) -> str:
    tolerance = TOLERANCE[precision]
    return "" if error <= tolerance else f"error {error:.3g} > {precision} ceiling {tolerance:g}"


class InputRefresh:
    """New values for the timing inputs between timed samples, and the references to verify timed outputs by.

    ``sets`` input sets are drawn beforehand from ``seed`` (normal draws, rounded to the dtype of the
    buffers they go into: the inputs of a bf16 implementation are bf16); each refresh copies the next one
    into the same buffers, so a graph captured on them reads the new values too. Only floating-point
    tensors are refreshed: the index tensors of a graph (neighbor_agg's rowptr and col) stay, since a
    case's graph is fixed by design (every seed of a case draws the same graph, so each sample does the
    same work) and the values gathered through it change all the same. Every element of each set differs
    from the same element of the original inputs and of every other set, so an implementation that keys a
    memory on a few elements sees a new key at every refresh.

    The float64 references of every set and variant are computed here, once, so none is computed between
    samples. What it costs on the device, at three sets: matmul 8192³ holds 3 × 512 MiB of inputs and
    3 × 512 MiB of references (3 GiB); neighbor_agg's 1M-node case 3 × 512 MiB of x and 3 × 1 GiB of
    references per variant (sum and mean: 7.5 GiB).
    """

    def __init__(self, spec: OpSpec, case: Case, inputs: tuple, device: str, seed: int, sets: int,
                 variants: list[str]):
        self.inputs = inputs
        self.positions = [i for i, t in enumerate(inputs) if isinstance(t, torch.Tensor) and t.is_floating_point()]
        self.sets: list[tuple[torch.Tensor, ...]] = []
        for offset in range(sets):
            drawn = spec.make_inputs(case, seed + offset, device)
            self.sets.append(tuple(
                _everywhere_different(drawn[i].to(inputs[i].dtype), [inputs[i], *(earlier[k] for earlier in self.sets)])
                for k, i in enumerate(self.positions)))
        self.references = {(variant, index): spec.reference(upcast(self._given(index)), variant)
                           for variant in dict.fromkeys(variants) for index in range(sets)}
        self.current: int | None = None  # the set the buffers hold; None: their original values

    def _given(self, index: int) -> tuple:
        values = dict(zip(self.positions, self.sets[index]))
        return tuple(values.get(i, t) for i, t in enumerate(self.inputs))

    def __call__(self) -> None:
        """Copy the next set into the timing buffers (enqueued on the current stream, like the call)."""
        self.current = 0 if self.current is None else (self.current + 1) % len(self.sets)
        for position, values in zip(self.positions, self.sets[self.current]):
            self.inputs[position].copy_(values)

    def stale(self, out, variant: str, precision: str) -> str:
        """Why ``out``, returned while the buffers held the current set, is wrong for it, or ''."""
        if self.current is None:
            raise RuntimeError("nothing to verify against: the inputs were never refreshed")
        ref = self.references[(variant, self.current)]
        if problem := _not_plain(out):
            return problem
        if tuple(out.shape) != tuple(ref.shape):
            return f"output shape {tuple(out.shape)} != reference shape {tuple(ref.shape)}"
        error = rel_error(out, ref)
        if not math.isfinite(error):
            return "its output holds NaN or Inf"
        return _above_ceiling(error, precision)


def _everywhere_different(values: torch.Tensor, others: list[torch.Tensor]) -> torch.Tensor:
    """``values`` with each element equal to the same element of one of ``others`` moved up a float step."""
    while True:
        clash = torch.zeros_like(values, dtype=torch.bool)
        for other in others:
            clash |= values == other
        if not clash.any():
            return values
        values = torch.where(clash, torch.nextafter(values, torch.full_like(values, math.inf)), values)
