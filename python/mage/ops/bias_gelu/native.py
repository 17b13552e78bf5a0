"""bias_gelu in one launch of a CUDA C++ kernel (native.cu): float4 columns when they allow it."""

from mage.backends.native import Kernel, cdiv, check_inputs, float4_rows, register
from mage.ops.bias_gelu.spec import SPEC
from mage.outputs import empty_output

THREADS = 256
ROWS = 4  # BIAS_GELU_ROWS in native.cu: rows a thread loads before computing
VECTOR = Kernel("bias_gelu", "bias_gelu_f32_x4", "pppli")  # x, bias, out, rows, cols
SCALAR = Kernel("bias_gelu", "bias_gelu_f32", "pppli")


def require_inputs(host, x, bias) -> None:
    """The fast ready test, then the full checks when it fails (see mage.backends.native)."""
    if not (host.holds_float32(x, bias) and x.dim() == 2 and bias.dim() == 1 and bias.shape[0] == x.shape[1]):
        check_inputs(host, SPEC, x=x, bias=bias)


def plan(vector: Kernel, scalar: Kernel, x, bias, out) -> tuple[Kernel, tuple[int, int, int]]:
    """(kernel, grid) for a kernel that gives a thread one column group and about ROWS rows, in
    blocks of THREADS: ``vector`` (float4 groups) when the rows are whole float4s and every
    pointer is 16-byte aligned, else ``scalar`` (a column each). The cubecl launcher shares it."""
    rows, cols = x.shape
    kernel, columns = (vector, cols // 4) if float4_rows(cols, x, bias, out) else (scalar, cols)
    return kernel, (cdiv(columns, THREADS), min(cdiv(rows, ROWS), 65535), 1)


@register("bias_gelu", variants=("erf",))
def bias_gelu(host, x, bias):
    require_inputs(host, x, bias)
    rows, cols = x.shape
    out = empty_output((rows, cols), like=x)
    if out.numel() == 0:
        return out
    kernel, grid = plan(VECTOR, SCALAR, x, bias, out)
    host.launch(kernel, grid, (THREADS, 1, 1), x, bias, out, rows, cols)
    return out
