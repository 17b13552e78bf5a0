"""What every op declares: its cases, inputs, float64 reference, work, and input checks.

Implementations never compute throughput themselves: the core derives it from these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import torch

from mage.errors import InputError, UnknownNameError
from mage.identity import DEFAULT_STRATEGY

SUITES = ("seed", "large", "sweep", "reduction", "schedule")
# The suites of a study: their cases run every strategy of each family, not only its champion.
STUDY_SUITES = ("reduction", "schedule")
# "nonfinite": normal values with NaN, +inf and −inf planted at drawn positions (spec.draw), plus each op's
# own edge values; its verdict compares NaN and infinities position by position (mage.check).
NONFINITE = "nonfinite"
DISTRIBUTIONS = ("normal", "heavy", "large-mean", NONFINITE)
# One NaN, one +inf and one −inf per this many elements of a tensor (and at least one of each), so most of
# an output stays finite and is still held to the precision's tolerance.
NONFINITE_SPACING = 1 << 16
# The dtype of an implementation's floating-point inputs and output, per precision it declares (float32
# for every other): a bf16 kernel takes bf16 inputs, returns bf16, and is checked on those same values.
PRECISION_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def input_dtype(precision: str) -> torch.dtype:
    """The floating-point dtype an implementation at ``precision`` takes and returns."""
    return PRECISION_DTYPES.get(precision, torch.float32)


@dataclass(frozen=True)
class Case:
    """One shape of one op, with the seed its timing inputs are drawn from."""

    op: str
    name: str
    suite: str
    params: dict = field(hash=False)
    seed: int = 0

    @property
    def key(self) -> str:
        return f"{self.op}:{self.name}"


class OpSpec:
    """Base of every op's spec. Subclasses fill in the class attributes and the methods."""

    name: str = ""
    variants: Sequence[str] = ("default",)
    precisions: Sequence[str] = ("ieee",)
    # GPU-only work above this many flops+bytes is skipped on the CPU, with that reason.
    cpu_work_limit: float = 5e10
    # For the tests: small parameter sets of cases() (the generic tests run every implementation on
    # them, so a new op or kernel is tested without editing a list), and bad_inputs() below.
    test_params: Sequence[dict] = ()
    # The input distributions its contract checks on (of DISTRIBUTIONS; every op's include NONFINITE), and
    # those of them on which float32 itself cannot reach the precision ceiling, so that there the contract
    # is 10× eager's error alone.
    distributions: Sequence[str] = ("normal", "heavy", NONFINITE)
    ill_conditioned: Sequence[str] = ()
    # Each family's champion: the strategy that runs by default (the others are studies, run when named, by
    # --all-strategies or by their study's suite). The default strategy unless named here, by family,
    # "family/precision" or "family/variant/precision", the most specific first. tests/test_champions.py
    # holds each choice to the committed H200 results.
    champions: dict[str, str] = {}

    def cases(self) -> list[Case]:
        raise NotImplementedError

    def make_inputs(self, case: Case, seed: int, device: str, distribution: str = "normal") -> tuple:
        """Fresh, seeded inputs for ``case``; never zeros."""
        raise NotImplementedError

    def make_inputs_at(self, case: Case, seed: int, device: str, distribution: str, precision: str) -> tuple:
        """``make_inputs`` with its float32 tensors rounded to ``precision``'s input dtype: the float64
        reference is then computed on the very values a low-precision implementation is given."""
        dtype = input_dtype(precision)
        return tuple(t.to(dtype) if isinstance(t, torch.Tensor) and t.dtype == torch.float32 else t
                     for t in self.make_inputs(case, seed, device, distribution))

    def input_dtypes(self) -> tuple[torch.dtype, ...]:
        """The floating-point dtypes ``validate`` accepts: one per declared precision's input dtype."""
        return tuple(dict.fromkeys(input_dtype(p) for p in self.precisions))

    def validate(self, *inputs) -> None:
        """Raise InputError naming the problem if ``inputs`` are not valid for this op.

        Only what the host knows (types, shapes, dtypes, devices): implementations call this on
        every call, so it must never read device memory.
        """
        raise NotImplementedError

    def validate_values(self, *inputs) -> None:
        """Checks that read the inputs' values (a graph's structure); run by the harness before any kernel."""

    def check_inputs(self, *inputs) -> None:
        self.validate(*inputs)
        self.validate_values(*inputs)

    def reference(self, inputs: tuple, variant: str) -> torch.Tensor:
        """The float64 result on ``inputs`` (already upcast to float64 by the caller)."""
        raise NotImplementedError

    def output_like(self, inputs: tuple, variant: str) -> torch.Tensor:
        """A tensor with the output's shape, dtype and device for ``inputs``: what a custom op's fake
        implementation returns (mage.context.library), so ``inputs`` are fake tensors there, with sizes
        that may be symbolic. By default the reference, which on fake tensors computes metadata only; an
        op whose reference cannot run on symbolic sizes (a loop over them) declares its output directly."""
        return self.reference(inputs, variant)

    def flops(self, case: Case, variant: str) -> float:
        raise NotImplementedError

    def bytes(self, case: Case, variant: str) -> float:
        """Compulsory device-memory traffic: each input read once, the output written once (float32)."""
        raise NotImplementedError

    def bytes_at(self, case: Case, variant: str, precision: str) -> float:
        """``bytes`` at ``precision``'s input dtype: every element counted by ``bytes`` is a float32 one,
        narrowed alike. An op whose traffic holds other data (indices) overrides this if it declares bf16."""
        return self.bytes(case, variant) * input_dtype(precision).itemsize / 4

    def case_stats(self, case: Case) -> dict | None:
        """Facts about a case's inputs worth storing beside its results (a graph's degree skew), or None."""
        return None

    def bad_inputs(self) -> list:
        """For the tests: (make inputs, the message validate refuses them with, as a regular expression)."""
        return []

    def case(self, name: str) -> Case:
        for case in self.cases():
            if case.name == name:
                return case
        raise UnknownNameError(
            f"unknown case {name!r} for op {self.name!r}; known: {', '.join(c.name for c in self.cases())}"
        )

    def champion(self, family: str, variant: str, precision: str) -> str:
        """The strategy of ``family`` that runs by default for ``variant`` at ``precision``."""
        for key in (f"{family}/{variant}/{precision}", f"{family}/{precision}", family):
            if key in self.champions:
                return self.champions[key]
        return DEFAULT_STRATEGY

    def check_variant(self, variant: str) -> None:
        _check_declared(self.name, "variant", variant, self.variants)

    def check_precision(self, precision: str) -> None:
        _check_declared(self.name, "precision", precision, self.precisions)


def _check_declared(op: str, kind: str, value: str, declared: Sequence[str]) -> None:
    if value not in declared:
        raise UnknownNameError(f"op {op!r} declares no {kind} {value!r}; its spec declares: {', '.join(declared)}")


def draw(shape: Sequence[int], generator: torch.Generator, distribution: str) -> torch.Tensor:
    """float32 values on the generator's device: standard normal, heavy-tailed (Student t, 3 dof),
    large-mean (1e4 + standard normal: a row's statistics cancel, which shows unstable formulas), or
    nonfinite (standard normal with NaN, +inf and −inf each at drawn positions, plant_nonfinite).

    Drawn where they are used, so the large cases' 10⁸ values cost milliseconds on a GPU.
    """
    device = generator.device
    if distribution == "normal":
        return torch.randn(*shape, generator=generator, dtype=torch.float32, device=device)
    if distribution == "heavy":
        # t₃ = normal / sqrt(χ²₃ / 3), with χ²₃ the sum of three squared normals.
        normal = torch.randn(*shape, generator=generator, dtype=torch.float32, device=device)
        chi2 = sum(torch.randn(*shape, generator=generator, dtype=torch.float32, device=device).square_()
                   for _ in range(3))
        return normal.div_(chi2.div_(3).sqrt_())
    if distribution == "large-mean":
        return torch.randn(*shape, generator=generator, dtype=torch.float32, device=device).add_(1e4)
    if distribution == NONFINITE:
        return plant_nonfinite(torch.randn(*shape, generator=generator, dtype=torch.float32, device=device),
                               generator)
    raise UnknownNameError(f"unknown distribution {distribution!r}; known: {', '.join(DISTRIBUTIONS)}")


def plant_nonfinite(values: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """``values`` with NaN, +inf and −inf written in place, each at drawn positions (NONFINITE_SPACING)."""
    flat = values.view(-1)
    if flat.numel():
        count = 1 + flat.numel() // NONFINITE_SPACING
        for special in (math.nan, math.inf, -math.inf):
            flat[torch.randint(flat.numel(), (count,), generator=generator, device=values.device)] = special
    return values


def side_distribution(distribution: str) -> str:
    """The distribution of an op's side inputs (a weight, a bias): normal, but non-finite in the
    non-finite contract, so that every input tensor holds NaN and infinities there."""
    return NONFINITE if distribution == NONFINITE else "normal"


def drawn_index(size: int, generator: torch.Generator) -> int:
    """One index in [0, size), drawn: where an op puts its edge values in the non-finite contract."""
    return int(torch.randint(size, (1,), generator=generator, device=generator.device).item())


def generator(seed: int, device: str | torch.device = "cpu") -> torch.Generator:
    return torch.Generator(device=device).manual_seed(seed)


# Input checks shared by every op. Each raises InputError naming the argument and the problem.

def require_tensor(name: str, value) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        raise InputError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    return value


def require_dtype(name: str, tensor: torch.Tensor, *dtypes: torch.dtype) -> None:
    if tensor.dtype not in dtypes:
        wanted = " or ".join(dtype_name(d) for d in dtypes)
        raise InputError(f"{name} must have dtype {wanted}, got {dtype_name(tensor.dtype)}")


def require_float32(**tensors) -> None:
    """Each of ``tensors`` a torch.Tensor of dtype float32, checked in the order given."""
    for name, t in tensors.items():
        require_tensor(name, t)
        require_dtype(name, t, torch.float32)


def require_one_float_dtype(dtypes: Sequence[torch.dtype], **tensors) -> None:
    """Each of ``tensors`` a torch.Tensor; the first of a dtype in ``dtypes``, the others of the first's."""
    (first, leading), *rest = tensors.items()
    require_tensor(first, leading)
    require_dtype(first, leading, *dtypes)
    for name, t in rest:
        require_tensor(name, t)
        if t.dtype != leading.dtype:
            raise InputError(
                f"{name} must have {first}'s dtype {dtype_name(leading.dtype)}, got {dtype_name(t.dtype)}")


def dtype_name(dtype: torch.dtype) -> str:
    """A dtype as messages name it: float32, bfloat16."""
    return str(dtype).removeprefix("torch.")


def require_ndim(name: str, tensor: torch.Tensor, ndim: int, layout: str) -> None:
    if tensor.dim() != ndim:
        raise InputError(f"{name} must be {ndim}-D ({layout}), got shape {tuple(tensor.shape)}")


def require_same_device(**tensors: torch.Tensor) -> None:
    devices = {name: t.device for name, t in tensors.items()}
    if len(set(devices.values())) > 1:
        listed = ", ".join(f"{name} on {device}" for name, device in devices.items())
        raise InputError(f"inputs must be on one device: {listed}")


def require_dim(name: str, tensor: torch.Tensor, dim: int, size: int, what: str) -> None:
    if tensor.shape[dim] != size:
        raise InputError(
            f"{name} dimension {dim} must equal {what} ({size}), got shape {tuple(tensor.shape)}"
        )
