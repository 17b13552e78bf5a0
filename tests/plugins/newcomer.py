"""What a new contributor adds, loaded as a plugin (MAGE_PLUGINS=newcomer, for test_new_contributor):
a second Triton LayerNorm kernel (strategy ``persistent``) and a new op, logsumexp, with its spec, its
eager baseline (compiled by torch.compile too) and a Triton kernel. Nothing outside this file names them.
"""

import torch
import triton
import triton.language as tl

from mage import registry
from mage.backends.compiled import with_compiled
from mage.backends.triton import triton_available
from mage.ops.layernorm.spec import EPS
from mage.ops.layernorm.spec import SPEC as LAYERNORM
from mage.outputs import empty_output
from mage.spec import Case, OpSpec, draw, generator, require_dtype, require_ndim, require_tensor

PROGRAMS = 132  # one per H200 SM: each walks the rows PROGRAMS apart
CHUNK = 1024


@triton.jit
def _layernorm_persistent_kernel(x_ptr, w_ptr, b_ptr, out_ptr, rows, cols, x_stride, eps,
                                 BLOCK: tl.constexpr, PROGRAMS: tl.constexpr):
    for row in range(tl.program_id(0), rows, PROGRAMS):
        x_row = x_ptr + row * x_stride
        total = tl.zeros([BLOCK], tl.float32)
        for start in range(0, cols, BLOCK):
            c = start + tl.arange(0, BLOCK)
            total += tl.load(x_row + c, mask=c < cols, other=0.0)
        mean = tl.sum(total, axis=0) / cols
        squares = tl.zeros([BLOCK], tl.float32)
        for start in range(0, cols, BLOCK):
            c = start + tl.arange(0, BLOCK)
            d = tl.where(c < cols, tl.load(x_row + c, mask=c < cols, other=0.0) - mean, 0.0)
            squares += d * d
        rstd = 1.0 / tl.sqrt(tl.sum(squares, axis=0) / cols + eps)
        for start in range(0, cols, BLOCK):
            c = start + tl.arange(0, BLOCK)
            ok = c < cols
            x = tl.load(x_row + c, mask=ok, other=0.0)
            w = tl.load(w_ptr + c, mask=ok, other=0.0)
            b = tl.load(b_ptr + c, mask=ok, other=0.0)
            tl.store(out_ptr + row * cols + c, (x - mean) * rstd * w + b, mask=ok)


@registry.implementation("layernorm", family="triton", strategy="persistent", available=triton_available)
def layernorm(x, weight, bias):
    LAYERNORM.validate(x, weight, bias)
    rows, cols = x.shape
    out = empty_output((rows, cols), like=x)
    if out.numel() == 0:
        return out
    x = x if x.stride(1) == 1 else x.contiguous()
    programs = min(rows, PROGRAMS)
    _layernorm_persistent_kernel[(programs,)](x, weight, bias, out, rows, cols, x.stride(0), EPS,
                                              BLOCK=min(triton.next_power_of_2(cols), CHUNK), PROGRAMS=programs)
    return out


class LogSumExpSpec(OpSpec):
    """logsumexp(x)ᵢ = mᵢ + log Σₖ exp(xᵢₖ − mᵢ), mᵢ = maxₖ xᵢₖ, over the last dimension of a float32 matrix."""

    name = "logsumexp"
    variants = ("rows",)
    test_params = ({"rows": 5, "cols": 37}, {"rows": 1, "cols": 300})

    def cases(self):
        shapes = (("seed", 64, 128), ("large", 16384, 4096), ("sweep", 1024, 1024))
        return [Case(self.name, f"{rows}x{cols}", suite, {"rows": rows, "cols": cols}, seed=i)
                for i, (suite, rows, cols) in enumerate(shapes)]

    def make_inputs(self, case, seed, device, distribution="normal"):
        return (draw((case.params["rows"], case.params["cols"]), generator(seed, device), distribution),)

    def validate(self, x):
        require_tensor("x", x)
        require_dtype("x", x, torch.float32)
        require_ndim("x", x, 2, "rows × cols")

    def reference(self, inputs, variant):
        return torch.logsumexp(inputs[0], dim=-1)

    def flops(self, case, variant):
        return 4.0 * case.params["rows"] * case.params["cols"]

    def bytes(self, case, variant):
        return 4.0 * case.params["rows"] * (case.params["cols"] + 1)

    def bad_inputs(self):
        return [(lambda: (torch.randn(4),), r"x must be 2-D"),
                (lambda: (torch.randn(4, 4).double(),), r"x must have dtype float32, got float64")]


LOGSUMEXP = LogSumExpSpec()
registry.register_op(LOGSUMEXP)


@with_compiled
@registry.implementation("logsumexp", family="eager", baseline=True)
def logsumexp_eager(x):
    return torch.logsumexp(x, dim=-1)


@triton.jit
def _logsumexp_row_kernel(x_ptr, out_ptr, cols, x_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * x_stride + c, mask=c < cols, other=-float("inf"))
    m = tl.max(x, axis=0)
    # An infinite maximum shifts by 0 instead: x − m would be ∞ − ∞ = NaN where the answer is +∞ (a +∞ in the row)
    # or −∞ (the whole row −∞); a NaN still makes the row NaN.
    shift = tl.where(tl.abs(m) == float("inf"), 0.0, m)
    tl.store(out_ptr + row, shift + tl.log(tl.sum(tl.exp(x - shift), axis=0)))


@registry.implementation("logsumexp", family="triton", available=triton_available)
def logsumexp_triton(x):
    LOGSUMEXP.validate(x)
    rows, cols = x.shape
    out = empty_output((rows,), like=x)
    if out.numel() == 0:
        return out
    x = x if x.stride(1) == 1 else x.contiguous()
    _logsumexp_row_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=triton.next_power_of_2(cols))
    return out
