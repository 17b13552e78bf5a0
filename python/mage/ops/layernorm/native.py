"""LayerNorm in one launch of a CUDA C++ kernel (native.cu): the row in registers, read once.

The kernel is chosen by row width: a warp per row up to 1024 columns (four rows per block), a
block per row up to 16384 float4-aligned columns, and the looped kernel beyond (or for rows
that are not a multiple of 4 wide past 1024 columns). The ``cluster`` strategy holds a row of 1024
columns or more in the registers of a thread-block cluster (mage.backends.rows.cluster_plan), read once.
"""

import torch

from mage.backends.native import Kernel, cdiv, check_inputs, float4_rows, register
from mage.backends.rows import CLUSTER_PLANS, cluster_plan, cluster_takes, require_cluster_width
from mage.ops.layernorm.spec import EPS, SPEC
from mage.outputs import empty_output

SIGNATURE = "pppplif"  # x, weight, bias, out, rows, cols, eps
ROWS_PER_WARP_BLOCK = 4  # warp kernels run 128 threads: four rows a block


def _kernel(name: str) -> Kernel:
    return Kernel("layernorm", name, SIGNATURE)


# (columns covered, kernel, threads a row): float4 rows, then scalar rows.
VECTOR_PLANS = [(128 * v, _kernel(f"layernorm_f32_warp_x4_v{v}"), 32) for v in (1, 2, 4, 8)] + [
    (16 * t, _kernel(f"layernorm_f32_block{t}_x4"), t) for t in (128, 256, 512, 1024)
]
SCALAR_PLANS = [(32 * v, _kernel(f"layernorm_f32_warp_v{v}"), 32) for v in (1, 2, 4, 8, 16, 32)]
LOOPED = _kernel("layernorm_f32_looped")


def plan(rows: int, cols: int, vector: bool) -> tuple[Kernel, tuple, tuple]:
    """(kernel, grid, block) for a rows × cols input."""
    for covered, kernel, threads in VECTOR_PLANS if vector else SCALAR_PLANS:
        if cols <= covered:
            if threads == 32:
                return kernel, (cdiv(rows, ROWS_PER_WARP_BLOCK), 1, 1), (32 * ROWS_PER_WARP_BLOCK, 1, 1)
            return kernel, (rows, 1, 1), (threads, 1, 1)
    return LOOPED, (rows, 1, 1), (256, 1, 1)


def require_inputs(host, x, weight, bias) -> None:
    """The fast ready test, then the full checks when it fails (see mage.backends.native)."""
    ready = (
        host.holds(x) and host.holds(weight) and host.holds(bias)
        and x.dtype == torch.float32 and weight.dtype == torch.float32 and bias.dtype == torch.float32
        and x.dim() == 2 and weight.dim() == 1 and bias.dim() == 1
        and weight.shape[0] == x.shape[1] and bias.shape[0] == x.shape[1]
        and x.get_device() == weight.get_device() == bias.get_device()
        and x.is_contiguous() and weight.is_contiguous() and bias.is_contiguous()
    )
    if not ready:
        check_inputs(host, SPEC, x=x, weight=weight, bias=bias)


@register("layernorm", variants=("affine",))
def layernorm(host, x, weight, bias):
    require_inputs(host, x, weight, bias)
    rows, cols = x.shape
    out = empty_output((rows, cols), like=x)
    if out.numel() == 0:
        return out
    kernel, grid, block = plan(rows, cols, float4_rows(cols, x, weight, bias, out))
    host.launch(kernel, grid, block, x, weight, bias, out, rows, cols, EPS)
    return out


CLUSTER = {plan: _kernel("layernorm_f32_cluster{}_t{}_v{}".format(*plan)) for plan in CLUSTER_PLANS}


@register("layernorm", variants=("affine",), strategy="cluster", takes=cluster_takes)
def layernorm_cluster(host, x, weight, bias):
    require_inputs(host, x, weight, bias)
    rows, cols = x.shape
    require_cluster_width(cols)
    out = empty_output((rows, cols), like=x)
    if out.numel() == 0:
        return out
    plan = cluster_plan(cols)
    ctas, threads, _ = plan
    host.launch(CLUSTER[plan], (rows * ctas, 1, 1), (threads, 1, 1), x, weight, bias, out, rows, cols, EPS)
    return out
