"""Softmax over the last dimension of a matrix (float32, or bf16 and fp16 in and out), numerically stable.

    m[r]     = max_c x[r, c]
    s[r]     = Σ_c exp(x[r, c] − m[r])
    out[r,c] = exp(x[r, c] − m[r]) / s[r]

Subtracting the row's maximum changes nothing mathematically and keeps exp from overflowing: the
large-mean inputs (1e4 + N(0, 1)) overflow exp(x) to infinity in any formula that skips it. For
softmax they are not ill-conditioned (x − m is exact there, by Sterbenz's lemma), so the float32
ceiling holds on them as on the others: an implementation must be within 1e-5 and within 10×
eager's error, which is near float32 rounding.

At bf16 and fp16 the input and the output are 16-bit and the arithmetic float32 inside. The contract's
reference is computed on the rounded inputs, where a large-mean row (1e4 + N(0, 1)) rounds to one value
(9984 in bf16, 10000 in fp16, but for a rare neighbour 8 away): a row that must come out uniform.
"""

from __future__ import annotations

import torch

from mage import registry
from mage.backends.rows import row_cases
from mage.spec import (NONFINITE, Case, OpSpec, draw, drawn_index, generator, plant_nonfinite, require_dtype,
                        require_ndim, require_tensor)


class SoftmaxSpec(OpSpec):
    name = "softmax"
    variants = ("rows",)
    precisions = ("ieee", "bf16", "fp16")  # bf16/fp16: x and the output of that dtype
    distributions = ("normal", "heavy", "large-mean", NONFINITE)
    # A 16-bit row of 1024 to 16387 columns in one block's registers as loaded, read once in 16-byte chunks: on
    # an H100 the slice beat the width-chosen kernels of the time at every width it takes that was measured
    # (65536×4096 355 against 390 µs, 4096×16384 91 against 125, 16373×4099 92 against 352). The default now hands
    # those rows to the slice kernels itself (mage.backends.rows.handed_on), and keeps rows under 1024 columns, which
    # the slice refuses; it takes the slice's place once a run has measured it at the large case.
    champions = {"native/bf16": "slice", "native/fp16": "slice"}
    # For the tests: small cases, odd on purpose (a prime width, one row, a row too wide for registers).
    test_params = ({"rows": 7, "cols": 33}, {"rows": 1, "cols": 128}, {"rows": 2, "cols": 16411})

    def cases(self) -> list[Case]:
        return row_cases(self.name)

    def make_inputs(self, case, seed, device, distribution="normal"):
        g = generator(seed, device)
        if distribution != NONFINITE:
            return (draw((case.params["rows"], case.params["cols"]), g, distribution),)
        x = draw((case.params["rows"], case.params["cols"]), g, "normal")
        # A masked row (all −inf: NaN in float64, as 0 / 0) and a row masked but for one element (a 1 there),
        # then the NaN and infinities every input gets, so that the masked rows overwrite none of them.
        masked = drawn_index(x.shape[0], g)
        x[masked] = -torch.inf
        if x.shape[0] > 1:
            one_left = (masked + 1) % x.shape[0]
            kept = x[one_left, drawn_index(x.shape[1], g)].item()
            x[one_left] = -torch.inf
            x[one_left, drawn_index(x.shape[1], g)] = kept
        return (plant_nonfinite(x, g),)

    def validate(self, x) -> None:
        require_tensor("x", x)
        require_dtype("x", x, *self.input_dtypes())
        require_ndim("x", x, 2, "rows × cols")

    def reference(self, inputs, variant):
        (x,) = inputs
        e = torch.exp(x - x.amax(dim=-1, keepdim=True))
        return e / e.sum(dim=-1, keepdim=True)

    def flops(self, case, variant):
        # max, subtract, exp, sum, divide: five operations an element.
        return 5.0 * case.params["rows"] * case.params["cols"]

    def bytes(self, case, variant):
        return 4.0 * 2 * case.params["rows"] * case.params["cols"]

    def bad_inputs(self) -> list:
        """For the tests: (make inputs, the message validate refuses them with, as a regular expression)."""
        f32 = torch.randn
        return [
            (lambda: (f32(4, 8, 2),), r"x must be 2-D"),
            (lambda: (f32(4, 8).double(),), r"x must have dtype float32 or bfloat16 or float16, got float64"),
            (lambda: (f32(4, 8).numpy(),), r"x must be a torch.Tensor"),
        ]


SPEC = SoftmaxSpec()
registry.register_op(SPEC)
