"""bias_gelu in one launch of a CUDA C++ kernel (native.cu): 16-byte column groups (float4, or 8
bf16 or fp16) when they allow it. bf16 and fp16 compute in float32 and round once, on the store."""

import torch

from mage.backends.native import SIXTEEN_BIT_SOURCE, SIXTEEN_BIT_TAGS, Kernel, cdiv, check_inputs, register, vector_rows
from mage.ops.bias_gelu.spec import SPEC
from mage.outputs import empty_output
from mage.spec import input_dtype

THREADS = 256
ROWS = 4  # BIAS_GELU_ROWS in native.cu: rows a thread loads before computing
VECTOR = Kernel("bias_gelu", "bias_gelu_f32_x4", "pppli")  # x, bias, out, rows, cols
SCALAR = Kernel("bias_gelu", "bias_gelu_f32", "pppli")
# precision -> (vector, scalar) kernels; the 16-bit vector kernels move 8 elements a column group
KERNELS = {"ieee": (VECTOR, SCALAR)} | {
    precision: (Kernel("bias_gelu", f"bias_gelu_{tag}_x8", "pppli", SIXTEEN_BIT_SOURCE),
                Kernel("bias_gelu", f"bias_gelu_{tag}", "pppli", SIXTEEN_BIT_SOURCE))
    for precision, tag in SIXTEEN_BIT_TAGS.items()
}


def require_inputs(host, x, bias, dtype=torch.float32) -> None:
    """The fast ready test, then the full checks when it fails (see mage.backends.native)."""
    if not (host.holds_dtype(dtype, x, bias) and x.dim() == 2 and bias.dim() == 1 and bias.shape[0] == x.shape[1]):
        check_inputs(host, SPEC, dtype=dtype, x=x, bias=bias)


def plan(vector: Kernel, scalar: Kernel, x, bias, out) -> tuple[Kernel, tuple[int, int, int]]:
    """(kernel, grid) for a kernel that gives a thread one column group and about ROWS rows, in
    blocks of THREADS: ``vector`` (16-byte groups) when the rows are whole groups and every
    pointer is 16-byte aligned, else ``scalar`` (a column each). The cubecl launcher shares it."""
    rows, cols = x.shape
    per_group = 16 // x.element_size()
    kernel, columns = (vector, cols // per_group) if vector_rows(cols, x, bias, out) else (scalar, cols)
    return kernel, (cdiv(columns, THREADS), min(cdiv(rows, ROWS), 65535), 1)


@register("bias_gelu", variants=("erf",), precisions=("ieee", "bf16", "fp16"))
def bias_gelu(host, x, bias, precision="ieee"):
    require_inputs(host, x, bias, input_dtype(precision))
    rows, cols = x.shape
    out = empty_output((rows, cols), like=x)
    if out.numel() == 0:
        return out
    kernel, grid = plan(*KERNELS[precision], x, bias, out)
    host.launch(kernel, grid, (THREADS, 1, 1), x, bias, out, rows, cols)
    return out
