"""Accuracy contracts (GUIDE §2): every implementation is checked before it is timed.

An implementation passes on a case when, for fresh inputs from each distribution:
- it returns one float32 tensor of the reference's shape on the inputs' device;
- every element is finite (outputs are poisoned with NaN, so unwritten elements fail);
- its inputs are unchanged after the call;
- its output shares memory with no input and not with its output of the previous call (an
  implementation that returns an input or a cached tensor would otherwise look instant);
- ‖out − ref‖ / ‖ref‖ is within its precision's ceiling and within 10× the eager
  formulation's error on the same inputs at the same precision.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from mage.backends.precision import TOLERANCE, precision_mode
from mage.outputs import poisoned_outputs
from mage.registry import Implementation
from mage.spec import DISTRIBUTIONS, Case, OpSpec

# The 10×-eager rule compares against eager's error; when eager is exact or nearly so, the
# rule must still allow ordinary float32 rounding (a few units of float32's epsilon).
EAGER_RATIO = 10.0
ROUNDING_FLOOR = 10 * torch.finfo(torch.float32).eps


@dataclass
class ContractResult:
    passed: bool
    rel_error: float | None
    eager_error: float | None
    reason: str = ""


def rel_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    diff = torch.linalg.vector_norm((out.to(torch.float64) - ref).flatten())
    norm = torch.linalg.vector_norm(ref.flatten())
    return float(diff / norm) if norm > 0 else float(diff)


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


def _call_checked(impl: Implementation, inputs: tuple, ref: torch.Tensor,
                  previous: torch.Tensor | None = None) -> tuple[float | None, str, object]:
    """Run ``impl`` once on ``inputs``: (error, reason it fails or '', its output).

    ``previous`` is the output of the implementation's previous call, still held so that its memory
    cannot be handed out again: an honest new output never overlaps it.
    """
    originals = tuple(t.clone() if isinstance(t, torch.Tensor) else t for t in inputs)
    with poisoned_outputs(), precision_mode(impl.precision):
        out = impl.fn(*inputs)
    reason = _unfinished_on_return(out)
    if not reason:
        reason = _output_problem(out, inputs, originals, ref, previous)
    return (None, reason, out) if reason else (rel_error(out, ref), "", out)


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


def _output_problem(out, inputs: tuple, originals: tuple, ref: torch.Tensor, previous) -> str:
    for index, (before, after) in enumerate(zip(originals, inputs)):
        if isinstance(before, torch.Tensor) and not _same(before, after):
            return f"it wrote its input #{index}"
    if not isinstance(out, torch.Tensor):
        return f"it returned {type(out).__name__}, not a tensor"
    if aliased := _aliasing(out, inputs, previous):
        return aliased
    if tuple(out.shape) != tuple(ref.shape):
        return f"output shape {tuple(out.shape)} != reference shape {tuple(ref.shape)}"
    if out.dtype != torch.float32:
        return f"output dtype {out.dtype} != torch.float32"
    if out.device != ref.device:
        return f"output on {out.device}, inputs on {ref.device}"
    bad = (~torch.isfinite(out)).sum().item()
    if bad:
        return f"{bad} of {out.numel()} output elements are NaN or Inf (unwritten or overflowed)"
    return ""


def check(impl: Implementation, eager: Implementation, spec: OpSpec, case: Case, device: str, seed: int) -> ContractResult:
    """Check ``impl`` on fresh inputs from every distribution; the worst error is reported."""
    worst, worst_eager = 0.0, 0.0
    tolerance = TOLERANCE[impl.precision]
    previous = eager_previous = None
    for offset, distribution in enumerate(DISTRIBUTIONS):
        inputs = spec.make_inputs(case, seed + offset, device, distribution)
        spec.check_inputs(*inputs)
        ref = spec.reference(upcast(inputs), impl.variant)
        eager_error, eager_reason, eager_previous = _call_checked(eager, inputs, ref, eager_previous)
        if eager_reason:
            return ContractResult(False, None, None, f"the eager baseline itself fails: {eager_reason}")
        error, reason, previous = _call_checked(impl, inputs, ref, previous)
        if reason:
            return ContractResult(False, None, eager_error, f"{distribution} inputs: {reason}")
        allowed = min(tolerance, max(EAGER_RATIO * eager_error, ROUNDING_FLOOR))
        if error > allowed:
            return ContractResult(
                False,
                error,
                eager_error,
                f"{distribution} inputs: error {error:.3g} > allowed {allowed:.3g} "
                f"({impl.precision} ceiling {tolerance:g}, eager error {eager_error:.3g})",
            )
        worst, worst_eager = max(worst, error), max(worst_eager, eager_error)
    return ContractResult(True, worst, worst_eager)


def recheck(impl: Implementation, spec: OpSpec, case: Case, device: str, seed: int) -> str:
    """One more checked call on fresh inputs, after timing: why it now fails, or ''.

    Catches an implementation that was right while checked and changed afterwards (a cached result,
    a counter). The error is held to its precision's ceiling only: the 10×-eager rule was applied by
    ``check`` and needs eager's error, which would double the cost of every re-check.
    """
    inputs = spec.make_inputs(case, seed, device)
    ref = spec.reference(upcast(inputs), impl.variant)
    error, reason, _ = _call_checked(impl, inputs, ref)
    tolerance = TOLERANCE[impl.precision]
    if not reason and error > tolerance:
        reason = f"error {error:.3g} > {impl.precision} ceiling {tolerance:g}"
    return reason
