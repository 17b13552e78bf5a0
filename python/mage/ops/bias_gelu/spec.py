"""Bias add followed by the exact (erf) GELU, float32 (bf16 and fp16 too: inputs and output of that dtype).

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
from mage.spec import (Case, OpSpec, draw, generator, require_dim, require_ndim, require_one_float_dtype,
                        require_same_device, side_distribution)

FLOPS_PER_ELEMENT = 10


class BiasGeluSpec(OpSpec):
    name = "bias_gelu"
    variants = ("erf",)
    precisions = ("ieee", "bf16", "fp16")
    # For the tests: small cases, odd on purpose (a prime width, one row).
    test_params = ({"rows": 5, "cols": 37}, {"rows": 1, "cols": 1024})

    def cases(self) -> list[Case]:
        def case(rows: int, cols: int, suite: str) -> Case:
            return Case(self.name, f"{rows}x{cols}", suite, {"rows": rows, "cols": cols}, seed=rows * 31 + cols)

        sweep = [case(size, size, "sweep") for size in (4096, 8192)]
        return [case(1024, 1024, "seed"), case(16384, 16384, "large"), *sweep]

    def make_inputs(self, case, seed, device, distribution="normal"):
        rows, cols = case.params["rows"], case.params["cols"]
        g = generator(seed, device)
        x = draw((rows, cols), g, distribution)
        bias = 0.5 * draw((cols,), g, side_distribution(distribution))
        return x.to(device), bias.to(device)

    def validate(self, x, bias) -> None:
        require_one_float_dtype(self.input_dtypes(), x=x, bias=bias)
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

    def bad_inputs(self) -> list:
        """For the tests: (make inputs, the message validate refuses them with, as a regular expression)."""
        f32, meta = torch.randn, lambda *shape: torch.empty(*shape, device="meta")
        return [
            (lambda: (f32(32), f32(32)), r"x must be 2-D"),
            (lambda: (f32(4, 32), f32(31)), r"bias dimension 0 must equal x's cols \(32\)"),
            (lambda: (f32(4, 32), f32(4, 32)), r"bias must be 1-D"),
            (lambda: (f32(4, 32).to(torch.bfloat16), f32(32)), r"bias must have x's dtype bfloat16, got float32"),
            (lambda: (f32(4, 32).double(), f32(32)), r"x must have dtype float32 or bfloat16 or float16, got float64"),
            (lambda: (meta(4, 32), f32(32)), r"inputs must be on one device: x on meta, bias on cpu"),
        ]



SPEC = BiasGeluSpec()
registry.register_op(SPEC)
