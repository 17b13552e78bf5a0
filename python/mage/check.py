"""Accuracy contracts (GUIDE §2): every implementation is checked before it is timed.

An implementation passes on a case when, for fresh inputs from each distribution:
- it returns one float32 tensor of the reference's shape on the inputs' device;
- every element is finite (outputs are poisoned with NaN, so unwritten elements fail);
- its inputs are unchanged after the call;
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

    @property
    def status(self) -> str:
        return "pass" if self.passed else "fail"


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


def _call_checked(impl: Implementation, inputs: tuple, ref: torch.Tensor) -> tuple[float | None, str]:
    """Run ``impl`` once on ``inputs`` and return (error, reason it fails or '')."""
    originals = tuple(t.clone() if isinstance(t, torch.Tensor) else t for t in inputs)
    with poisoned_outputs(), precision_mode(impl.precision):
        out = impl.fn(*inputs)
    if inputs and isinstance(inputs[0], torch.Tensor) and inputs[0].is_cuda:
        torch.cuda.synchronize()
    for index, (before, after) in enumerate(zip(originals, inputs)):
        if isinstance(before, torch.Tensor) and not _same(before, after):
            return None, f"it wrote its input #{index}"
    if not isinstance(out, torch.Tensor):
        return None, f"it returned {type(out).__name__}, not a tensor"
    if tuple(out.shape) != tuple(ref.shape):
        return None, f"output shape {tuple(out.shape)} != reference shape {tuple(ref.shape)}"
    if out.dtype != torch.float32:
        return None, f"output dtype {out.dtype} != torch.float32"
    if out.device != ref.device:
        return None, f"output on {out.device}, inputs on {ref.device}"
    bad = (~torch.isfinite(out)).sum().item()
    if bad:
        return None, f"{bad} of {out.numel()} output elements are NaN or Inf (unwritten or overflowed)"
    return rel_error(out, ref), ""


def check(impl: Implementation, eager: Implementation, spec: OpSpec, case: Case, device: str, seed: int) -> ContractResult:
    """Check ``impl`` on fresh inputs from every distribution; the worst error is reported."""
    worst, worst_eager = 0.0, 0.0
    tolerance = TOLERANCE[impl.precision]
    for offset, distribution in enumerate(DISTRIBUTIONS):
        inputs = spec.make_inputs(case, seed + offset, device, distribution)
        spec.check_inputs(*inputs)
        ref = spec.reference(upcast(inputs), impl.variant)
        eager_error, eager_reason = _call_checked(eager, inputs, ref)
        if eager_reason:
            return ContractResult(False, None, None, f"the eager baseline itself fails: {eager_reason}")
        error, reason = _call_checked(impl, inputs, ref)
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
