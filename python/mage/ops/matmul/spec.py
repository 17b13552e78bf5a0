"""Matrix multiplication, float32, bfloat16 or float16.

    out[m, n] = Σ_k a[m, k] · b[k, n]        a: M × K,  b: K × N,  out: M × N

Precision is part of the implementation: ``ieee`` multiplies in float32, ``tf32`` lets tensor
cores round a and b to TF32 (10-bit mantissa) and accumulate in float32, ``tf32x3`` sums three
TF32 products of a and b split into big and small parts; ``bf16`` and ``fp16`` take and return
that dtype and accumulate in float32. All are compared with the float64 product of the inputs they
were given (for bf16 and fp16, the inputs already rounded to that dtype).

The sweep's deep cases, 1024 × 8192 × 1024 and 1024 × 32768 × 1024, ask tf32x3's accuracy question:
IEEE-class accuracy where rounding accumulates, at long inner dimensions, on normal and heavy-tailed
inputs (M = N = 1024 keeps their float64 reference cheap). They run first in the sweep, so a sweep cut
by its time limit has stored them (a sweep that ran them last was once cut before reaching them).

Heavy-tailed draw: Student-t entries put outliers in a few rows of a and columns of b, so some
dot products are dominated by one or two large terms. TF32's rounding of those outliers then
sets the error, which is where a TF32 kernel that rounds differently from cuBLAS shows up.
"""

from __future__ import annotations

import torch

from mage import registry
from mage.errors import InputError
from mage.spec import Case, OpSpec, draw, generator, require_ndim, require_one_float_dtype, require_same_device


class MatmulSpec(OpSpec):
    name = "matmul"
    variants = ("default",)
    # tf32x3 as one tf32 GEMM over 3K, flushed every 512 of it: the fastest at 8192³ within the ieee contract.
    champions = {"triton/tf32x3": "k3chunk512"}
    precisions = ("ieee", "tf32", "tf32x3", "bf16", "fp16")
    # For the tests: small cases, odd on purpose (primes, one row and one column).
    test_params = ({"m": 17, "k": 31, "n": 9}, {"m": 1, "k": 64, "n": 1})

    def cases(self) -> list[Case]:
        def case(m: int, k: int, n: int, suite: str) -> Case:
            return Case(self.name, f"{m}x{k}x{n}", suite, {"m": m, "k": k, "n": n}, seed=(m * 31 + k) * 31 + n)

        sweep = [case(size, size, size, "sweep") for size in (256, 2048, 4096)]
        deep = [case(1024, k, 1024, "sweep") for k in (8192, 32768)]
        # The deep cases first: a sweep cut by its time limit has stored their errors already.
        return [case(1024, 1024, 1024, "seed"), case(8192, 8192, 8192, "large"), *deep, *sweep]

    def make_inputs(self, case, seed, device, distribution="normal"):
        m, k, n = case.params["m"], case.params["k"], case.params["n"]
        g = generator(seed, device)
        a = draw((m, k), g, distribution)
        b = draw((k, n), g, distribution)
        return a.to(device), b.to(device)

    def validate(self, a, b) -> None:
        require_one_float_dtype(self.input_dtypes(), a=a, b=b)
        require_ndim("a", a, 2, "M × K")
        require_ndim("b", b, 2, "K × N")
        if a.shape[1] != b.shape[0]:
            raise InputError(
                f"a's columns must equal b's rows (the inner dimension K), got a {tuple(a.shape)} and b {tuple(b.shape)}"
            )
        require_same_device(a=a, b=b)

    def reference(self, inputs, variant):
        a, b = inputs
        return a @ b

    def flops(self, case, variant):
        return 2.0 * case.params["m"] * case.params["n"] * case.params["k"]

    def bytes(self, case, variant):
        m, k, n = case.params["m"], case.params["k"], case.params["n"]
        return 4.0 * (m * k + k * n + m * n)

    def bad_inputs(self) -> list:
        """For the tests: (make inputs, the message validate refuses them with, as a regular expression)."""
        f32, meta = torch.randn, lambda *shape: torch.empty(*shape, device="meta")
        return [
            (lambda: (f32(2, 4, 5), f32(5, 3)), r"a must be 2-D"),
            (lambda: (f32(4, 5), f32(5)), r"b must be 2-D"),
            (lambda: (f32(4, 5), f32(5, 3).half()), r"b must have a's dtype float32, got float16"),
            (lambda: (f32(4, 5).double(), f32(5, 3)), r"a must have dtype float32 or bfloat16 or float16, got float64"),
            (lambda: (f32(4, 5), f32(6, 3)), r"inner dimension.*a \(4, 5\) and b \(6, 3\)"),
            (lambda: (f32(4, 5), meta(5, 3)), r"inputs must be on one device: a on cpu, b on meta"),
            (lambda: (f32(4, 8), [1.0]), r"b must be a torch.Tensor"),
        ]



SPEC = MatmulSpec()
registry.register_op(SPEC)
