"""AlphaFold's triangle multiplicative update, its contraction only: channel-last, float32, bfloat16 or float16.

    a, b: B × N × N × C
    outgoing:  out[b, i, j, c] = Σ_k a[b, i, k, c] · b[b, j, k, c]      (edges leaving i and j)
    incoming:  out[b, i, j, c] = Σ_k a[b, k, i, c] · b[b, k, j, c]      (edges arriving at i and j)

Each channel c is an independent N × N matrix product (a_c · b_cᵀ outgoing, a_cᵀ · b_c incoming),
with the channel as the innermost, contiguous dimension. Precision as for matmul: ``ieee``, ``tf32``
or ``tf32x3``, each compared with the float64 result (tf32x3 held to ieee's error); ``bf16`` and
``fp16`` take and return that dtype, accumulate in float32, and are compared with the float64
result on the inputs rounded to that dtype.

The layout question: a case's ``layout`` says how a and b lie in memory, their shape B × N × N × C
either way (the same values for the same seed), so every implementation computes the same thing:
- ``channel-last`` (the default): memory B, N, N, C; each channel's matrix is strided by C.
- ``channel-first``: memory B, C, N, N with a's and b's dimension 2 contiguous: the contraction
  index k for outgoing, the row index (i or j) for incoming.
- ``channel-first-transposed``: memory B, C, N, N with dimension 1 contiguous: k for incoming, the
  row index for outgoing.
So each variant meets one channel-first layout with k contiguous (K-major operands) and one with
its row index contiguous. The transposition a caller holding channel-last tensors would pay to
get there is made when the inputs are drawn, outside every timed call; the output is channel-last
in every case.

Heavy-tailed draw: Student-t pair features put outliers along whole rows of the pair map, so
one large a[b, i, k, c] touches every out[b, i, :, c]; TF32 rounding of the outliers sets the
error of those rows.
"""

from __future__ import annotations

import torch

from mage import registry
from mage.errors import InputError
from mage.spec import Case, OpSpec, draw, generator, require_ndim, require_one_float_dtype, require_same_device

CHANNEL_LAST = "channel-last"
# How each layout lays out a logical B × N × N × C tensor: the dimensions in memory order, outermost first.
LAYOUTS = {CHANNEL_LAST: (0, 1, 2, 3), "channel-first": (0, 3, 1, 2), "channel-first-transposed": (0, 3, 2, 1)}


def layout_of(params: dict) -> str:
    """A case's layout (cases that name none are channel-last)."""
    return params.get("layout", CHANNEL_LAST)


def channel_last_only(params: dict) -> str | None:
    """A ``takes`` rule for kernels that read channel-last memory only."""
    layout = layout_of(params)
    if layout == CHANNEL_LAST:
        return None
    return f"reads channel-last inputs only; on {layout} inputs it would time a copy to channel-last"


def laid_out(t: torch.Tensor, layout: str) -> torch.Tensor:
    """``t`` (B × N × N × C, contiguous) with the same values and shape, its memory in ``layout``'s order."""
    order = LAYOUTS[layout]
    inverse = tuple(order.index(d) for d in range(4))
    return t.permute(order).contiguous().permute(inverse)


class TriangleSpec(OpSpec):
    name = "triangle"
    variants = ("outgoing", "incoming")
    # Relayout, tensor-core GEMM over the channel products, relayout back: at tf32, tf32x3 and 16-bit; at ieee
    # (FP32 FMA, no tensor cores) the one-launch channel-block kernel is faster.
    champions = {"triton": "relayout3", "triton/ieee": "cblock"}
    precisions = ("ieee", "tf32", "tf32x3", "bf16", "fp16")  # bf16/fp16: a, b and the output of that dtype
    # For the tests: small cases, odd on purpose (a prime size, a channel count below a vector).
    test_params = ({"batch": 2, "n": 9, "c": 5}, {"batch": 1, "n": 16, "c": 3})

    def cases(self) -> list[Case]:
        def case(batch: int, n: int, c: int, suite: str, layout: str = CHANNEL_LAST) -> Case:
            name, params = f"B{batch}-N{n}-C{c}", {"batch": batch, "n": n, "c": c}
            if layout != CHANNEL_LAST:  # channel-last cases keep the names their history is stored under
                name, params = f"{name}-{layout}", {**params, "layout": layout}
            return Case(self.name, name, suite, params, seed=(batch * 31 + n) * 31 + c)

        # The layout cases repeat the large case (same seed, same values) in the two channel-first
        # layouts; N 768 and 1024 are where the N³C products outweigh every fixed cost. Both come
        # first in the sweep, so that a run bounded in time reaches them.
        layouts = [case(1, 512, 128, "sweep", layout) for layout in LAYOUTS if layout != CHANNEL_LAST]
        sweep = [*layouts, case(1, 768, 128, "sweep"), case(1, 1024, 128, "sweep"), case(1, 256, 128, "sweep"),
                 case(2, 384, 64, "sweep")]
        return [case(1, 128, 64, "seed"), case(1, 512, 128, "large"), *sweep]

    def make_inputs(self, case, seed, device, distribution="normal"):
        shape = (case.params["batch"], case.params["n"], case.params["n"], case.params["c"])
        g = generator(seed, device)
        a = draw(shape, g, distribution)
        b = draw(shape, g, distribution)
        layout = layout_of(case.params)
        return laid_out(a, layout).to(device), laid_out(b, layout).to(device)

    def validate(self, a, b) -> None:
        require_one_float_dtype(self.input_dtypes(), a=a, b=b)
        for name, t in (("a", a), ("b", b)):
            require_ndim(name, t, 4, "B × N × N × C")
        if a.shape[1] != a.shape[2]:
            raise InputError(f"a's dimensions 1 and 2 must be equal (N × N pairs), got shape {tuple(a.shape)}")
        if a.shape != b.shape:
            raise InputError(f"a and b must have the same shape, got a {tuple(a.shape)} and b {tuple(b.shape)}")
        require_same_device(a=a, b=b)

    def reference(self, inputs, variant):
        # One batched matrix product per (batch, channel), written independently of eager's einsum.
        a, b = (t.permute(0, 3, 1, 2) for t in inputs)  # B × C × N × N
        product = a @ b.transpose(-1, -2) if variant == "outgoing" else a.transpose(-1, -2) @ b
        return product.permute(0, 2, 3, 1).contiguous()

    def flops(self, case, variant):
        p = case.params
        return 2.0 * p["batch"] * p["n"] ** 3 * p["c"]

    def bytes(self, case, variant):
        p = case.params
        return 4.0 * 3 * p["batch"] * p["n"] ** 2 * p["c"]

    def bad_inputs(self) -> list:
        """For the tests: (make inputs, the message validate refuses them with, as a regular expression)."""
        f32, meta = torch.randn, lambda *shape: torch.empty(*shape, device="meta")
        return [
            (lambda: (f32(6, 6, 4), f32(6, 6, 4)), r"a must be 4-D \(B × N × N × C\)"),
            (lambda: (f32(1, 6, 5, 4), f32(1, 6, 5, 4)), r"a's dimensions 1 and 2 must be equal"),
            (lambda: (f32(1, 6, 6, 4), f32(1, 6, 6, 3)), r"same shape, got a \(1, 6, 6, 4\) and b \(1, 6, 6, 3\)"),
            (lambda: (f32(1, 6, 6, 4), f32(2, 6, 6, 4)), r"same shape"),
            (lambda: (f32(1, 6, 6, 4), f32(1, 6, 6, 4).double()), r"b must have a's dtype float32, got float64"),
            (lambda: (f32(1, 6, 6, 4).double(), f32(1, 6, 6, 4)),
             r"a must have dtype float32 or bfloat16 or float16, got float64"),
            (lambda: (f32(1, 6, 6, 4), meta(1, 6, 6, 4)), r"inputs must be on one device: a on cpu, b on meta"),
        ]



SPEC = TriangleSpec()
registry.register_op(SPEC)
