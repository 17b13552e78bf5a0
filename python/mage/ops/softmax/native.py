"""Softmax in one launch of a CUDA C++ kernel (native.cu), chosen by row width: a warp per row up to 1024 columns, then
the slice kernel to 16387 columns and the cluster kernel beyond (both read a row once in 16-byte loads:
mage.backends.rows.handed_on), and the online kernel (a block per row, two reads, scalar loads) for rows wider than a
cluster holds or on a device without clusters. The ``slice`` strategy holds a row of 1024 to 16387 columns in one
block's registers whatever its alignment (a scalar head and tail around a 16-byte-aligned body in float4 loads: the
cluster kernel with one CTA). The ``cluster`` strategy holds a row of 1024 columns or more in the registers of a
thread-block cluster (mage.backends.rows.cluster_plan), read once; the ``pipe`` strategy makes that cluster
persistent, the next row's slice copying into shared memory while the current one is reduced from registers
(mage.backends.rows.pipe_plan); the ``smem`` strategy holds each CTA's slice in shared memory, filled by one bulk
copy (mage.backends.rows.launch_smem), and the ``deep`` strategy in its registers and, past them, in shared memory
(mage.backends.rows.launch_deep). bf16 and fp16 rows run the same warp and online kernels over 16-bit elements,
widened to float32 in registers (native16.cu), chosen by the same widths, and the slice and cluster kernels over
16-byte chunks of 8 elements held as loaded, with plans of their own (mage.backends.rows.SIXTEEN_BIT_CLUSTER_PLANS
and SIXTEEN_BIT_PIPE_PLANS and SIXTEEN_BIT_DEEP_PLANS); the smem strategy is float32 only."""

import torch

from mage.backends.native import (SIXTEEN_BIT_SOURCE, SIXTEEN_BIT_TAGS, Kernel, cdiv, check_inputs, float_kernels,
                                  register, row_kernels)
from mage.backends.rows import (CLUSTER_PLANS, DEEP_PLANS, HANDED_ON, PIPE_PLANS, SIXTEEN_BIT_CLUSTER_PLANS,
                                SIXTEEN_BIT_DEEP_PLANS, SIXTEEN_BIT_PIPE_PLANS, SIXTEEN_BIT_SLICE_PLANS, SLICE_PLANS,
                                SMEM_PLANS, cluster_takes, deep_takes, handed_on, launch_cluster, launch_deep,
                                launch_pipe, launch_slice, launch_smem, pipe_takes, slice_takes, smem_takes)
from mage.ops.softmax.spec import SPEC
from mage.outputs import empty_output
from mage.spec import input_dtype

SIGNATURE = "ppli"  # x, out, rows, cols
ROWS_PER_WARP_BLOCK = 4  # warp kernels run 128 threads: four rows a block


def _plans(tag: str, file: str = "native.cu") -> tuple[list, Kernel]:
    """The warp kernels of dtype ``tag`` (f32, bf16, f16) as (widest row, kernel), narrowest first, and the online
    kernel for wider rows."""
    warps = [(32 * v, Kernel("softmax", f"softmax_{tag}_warp_v{v}", SIGNATURE, file)) for v in (2, 8, 32)]
    return warps, Kernel("softmax", f"softmax_{tag}_online", SIGNATURE, file)


# precision -> (warp plans, online kernel)
PLANS = {"ieee": _plans("f32")} | {p: _plans(tag, SIXTEEN_BIT_SOURCE) for p, tag in SIXTEEN_BIT_TAGS.items()}


def plan(rows: int, cols: int, precision: str = "ieee") -> tuple[Kernel, tuple, tuple]:
    """(kernel, grid, block) for a rows × cols input at ``precision`` that the slice and cluster kernels do not
    take: a warp a row, or the online kernel."""
    warps, online = PLANS[precision]
    for widest, kernel in warps:
        if cols <= widest:
            return kernel, (cdiv(rows, ROWS_PER_WARP_BLOCK), 1, 1), (32 * ROWS_PER_WARP_BLOCK, 1, 1)
    return online, (rows, 1, 1), (256, 1, 1)


def require_inputs(host, x, dtype=torch.float32) -> None:
    """The fast ready test, then the full checks when it fails (see mage.backends.native)."""
    ready = host.holds(x) and x.dtype == dtype and x.dim() == 2 and x.is_contiguous()
    if not ready:
        check_inputs(host, SPEC, dtype=dtype, x=x)


@register("softmax", variants=("rows",), precisions=("ieee", "bf16", "fp16"))
def softmax(host, x, precision="ieee"):
    require_inputs(host, x, input_dtype(precision))
    rows, cols = x.shape
    # No block of the warp kernels' scalar loads: the slice's 16-byte loads were as fast at 4096 and 16384 columns
    # and faster at every other width measured (mage.backends.rows.handed_on).
    if strategy := handed_on(host, x, held_in_a_block=False):
        return _launch_rows(host, HANDED_ON[strategy], WIDER[strategy][precision], x)
    out = empty_output((rows, cols), like=x)
    if out.numel() == 0:
        return out
    kernel, grid, block = plan(rows, cols, precision)
    host.launch(kernel, grid, block, x, out, rows, cols)
    return out


def _launch_rows(host, launch, kernels: dict, x):
    """``launch`` (a launcher of mage.backends.rows) with ``kernels`` (plan -> kernel) on a checked x."""
    rows, cols = x.shape
    return launch(host, kernels, x, lambda out: (x, out, rows, cols))


def _row_strategy(strategy: str, kernels: dict, launch, takes, precisions=("ieee", "bf16", "fp16")):
    """Register softmax's row ``strategy`` at ``precisions`` through both hosts: ``launch`` (a launcher of
    mage.backends.rows) with ``kernels`` (precision -> plan -> kernel) on x once it is checked."""

    def softmax_rows(host, x, precision="ieee"):
        require_inputs(host, x, input_dtype(precision))
        return _launch_rows(host, launch, kernels[precision], x)

    return register("softmax", variants=("rows",), strategy=strategy, precisions=precisions, takes=takes)(softmax_rows)


SLICE = row_kernels("softmax", "softmax_{}_slice_t{}_v{}", SIGNATURE, SLICE_PLANS, SIXTEEN_BIT_SLICE_PLANS)
softmax_slice = _row_strategy("slice", SLICE, launch_slice, slice_takes)
CLUSTER = row_kernels("softmax", "softmax_{}_cluster{}_t{}_v{}", SIGNATURE, CLUSTER_PLANS,
                      SIXTEEN_BIT_CLUSTER_PLANS)
softmax_cluster = _row_strategy("cluster", CLUSTER, launch_cluster, cluster_takes)
WIDER = {"slice": SLICE, "cluster": CLUSTER}  # the kernels of the strategies the default hands wide rows on to
PIPE = row_kernels("softmax", "softmax_{}_pipe{}_t{}_v{}", SIGNATURE, PIPE_PLANS, SIXTEEN_BIT_PIPE_PLANS)
softmax_pipe = _row_strategy("pipe", PIPE, launch_pipe, pipe_takes)
SMEM = float_kernels("softmax", "softmax_f32_smem{}_t{}", SIGNATURE, SMEM_PLANS)
softmax_smem = _row_strategy("smem", SMEM, launch_smem, smem_takes, precisions=("ieee",))
DEEP = row_kernels("softmax", "softmax_{}_deep{}_t{}_v{}", SIGNATURE, DEEP_PLANS, SIXTEEN_BIT_DEEP_PLANS)
softmax_deep = _row_strategy("deep", DEEP, launch_deep, deep_takes)
