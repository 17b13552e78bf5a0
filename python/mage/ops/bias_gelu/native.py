"""bias_gelu in one launch of a CUDA C++ kernel (native.cu): float4 columns when they allow it."""

import torch

from mage.backends.native import Kernel, aligned, cdiv, check_inputs, register
from mage.ops.bias_gelu.spec import SPEC
from mage.outputs import empty_output

THREADS = 256
ROWS = 4  # BIAS_GELU_ROWS in native.cu: rows a thread loads before computing
VECTOR = Kernel("bias_gelu", "bias_gelu_f32_x4", "pppli")  # x, bias, out, rows, cols
SCALAR = Kernel("bias_gelu", "bias_gelu_f32", "pppli")


def require_inputs(host, x, bias) -> None:
    """The fast ready test, then the full checks when it fails (see mage.backends.native)."""
    ready = (
        host.holds(x) and host.holds(bias) and x.dtype == torch.float32 and bias.dtype == torch.float32
        and x.dim() == 2 and bias.dim() == 1 and bias.shape[0] == x.shape[1]
        and x.get_device() == bias.get_device() and x.is_contiguous() and bias.is_contiguous()
    )
    if not ready:
        check_inputs(host, SPEC, x=x, bias=bias)


@register("bias_gelu", variants=("erf",))
def bias_gelu(host, x, bias):
    require_inputs(host, x, bias)
    rows, cols = x.shape
    out = empty_output((rows, cols), like=x)
    if out.numel() == 0:
        return out
    vector = cols % 4 == 0 and aligned(x, bias, out)
    kernel, columns = (VECTOR, cols // 4) if vector else (SCALAR, cols)
    grid = (cdiv(columns, THREADS), min(cdiv(rows, ROWS), 65535), 1)
    host.launch(kernel, grid, (THREADS, 1, 1), x, bias, out, rows, cols)
    return out
