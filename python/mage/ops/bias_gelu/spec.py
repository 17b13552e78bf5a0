"""Bias add followed by the exact (erf) GELU, float32.

    z[r, c]   = x[r, c] + bias[c]
    out[r, c] = gelu(z) = ½ · z · (1 + erf(z / √2))

Flops per element, counted as 10: the bias add (1), the scaling by 1/√2 (1), erf (5, a
conventional charge for its polynomial; real implementations spend more), adding 1 (1), and
the two multiplications by ½ and z (2).

Heavy-tailed draw: Student-t values reach far into both tails, where erf saturates: GELU is
then close to z (large positive) or to a tiny negative number (large negative), so an
approximate erf, or the tanh form of GELU, is exposed in the tails as well as near zero.
"""

from __future__ import annotations

import math

import torch

from mage import registry
from mage.spec import Case, OpSpec, draw, generator, require_dim, require_dtype, require_ndim, require_same_device, require_tensor

FLOPS_PER_ELEMENT = 10


class BiasGeluSpec(OpSpec):
    name = "bias_gelu"
    variants = ("erf",)

    def cases(self) -> list[Case]:
        def case(rows: int, cols: int, suite: str) -> Case:
            return Case(self.name, f"{rows}x{cols}", suite, {"rows": rows, "cols": cols}, seed=rows * 31 + cols)

        sweep = [case(size, size, "sweep") for size in (4096, 8192)]
        return [case(1024, 1024, "seed"), case(16384, 16384, "large"), *sweep]

    def make_inputs(self, case, seed, device, distribution="normal"):
        rows, cols = case.params["rows"], case.params["cols"]
        g = generator(seed, device)
        x = draw((rows, cols), g, distribution)
        bias = 0.5 * draw((cols,), g, "normal")
        return x.to(device), bias.to(device)

    def validate(self, x, bias) -> None:
        for name, t in (("x", x), ("bias", bias)):
            require_tensor(name, t)
            require_dtype(name, t, torch.float32)
        require_ndim("x", x, 2, "rows × cols")
        require_ndim("bias", bias, 1, "cols")
        require_dim("bias", bias, 0, x.shape[1], "x's cols")
        require_same_device(x=x, bias=bias)

    def reference(self, inputs, variant):
        x, bias = inputs
        z = x + bias
        return 0.5 * z * (1.0 + torch.erf(z / math.sqrt(2.0)))

    def flops(self, case, variant):
        return float(FLOPS_PER_ELEMENT * case.params["rows"] * case.params["cols"])

    def bytes(self, case, variant):
        rows, cols = case.params["rows"], case.params["cols"]
        return 4.0 * (2 * rows * cols + cols)


SPEC = BiasGeluSpec()
registry.register_op(SPEC)
