"""LayerNorm in one launch of a CUDA C++ kernel (native.cu): the row in registers, read once.

The kernel is chosen by row width: a warp per row up to 1024 columns (four rows per block), a block per row up to
16384 float4-aligned float32 columns, then the slice kernel to 16387 columns and the cluster kernel beyond (both read
a row once in 16-byte loads, whatever its alignment: mage.backends.rows.handed_on), and the looped kernel (three
reads) for rows wider than a cluster holds or on a device without clusters. bf16 and fp16 rows are read in 16-byte
chunks of 8 and normalized in float32 by the warp kernels, with the same choice by width (``plan``), and past 1024
columns by the slice and cluster kernels. The ``slice`` strategy holds a row of 1024 to 16387 columns in one block's
registers whatever its alignment (a scalar head and tail around a 16-byte-aligned body: the cluster kernel with one
CTA, mage.backends.rows.slice_plan). The ``cluster`` strategy holds a row of 1024 columns or more in the registers of
a thread-block cluster (mage.backends.rows.cluster_plan), read once. At bf16 and fp16 both hold a row's 16-byte
chunks as loaded, 8 a thread, with plans of their own (mage.backends.rows.SIXTEEN_BIT_CLUSTER_PLANS). The ``pipe``
strategy makes that cluster persistent, the next row's slice copying into shared memory (one bulk copy) while the
current one is reduced from registers (mage.backends.rows.pipe_plan), and the ``resident`` strategy holds each CTA's
weight and bias in its shared memory for the kernel's life (mage.backends.rows.launch_resident); the ``pair``
strategy holds two rows a cluster, each CTA the same columns of both, weight and bias read once for the two
(mage.backends.rows.launch_pair); the ``smem`` strategy (float32) holds each CTA's slice in shared memory, filled by
one bulk copy (mage.backends.rows.launch_smem), and the ``deep`` strategy in its registers and, past them, in shared
memory: 8 CTAs of 512 threads a row of 262144 float32 columns, 2 of 1024 a 16-bit one
(mage.backends.rows.launch_deep). The ``columns`` strategy gives each CTA of a grid of one an SM the same columns of
every row, its weight and bias read once into shared memory, and combines rows' statistics across the grid
(mage.backends.rows.launch_columns).
"""

import torch

from mage.backends.native import (SIXTEEN_BIT_SOURCE, SIXTEEN_BIT_TAGS, Kernel, cdiv, check_inputs, float_kernels,
                                  register, row_kernels, vector_rows)
from mage.backends.rows import (CLUSTER_PLANS, DEEP_PLANS, HANDED_ON, PAIR_PLANS, PIPE_PLANS, RESIDENT_PLANS,
                                SIXTEEN_BIT_CLUSTER_PLANS, SIXTEEN_BIT_DEEP_PLANS, SIXTEEN_BIT_PAIR_PLANS,
                                SIXTEEN_BIT_PIPE_PLANS, SIXTEEN_BIT_RESIDENT_PLANS, SIXTEEN_BIT_SLICE_PLANS,
                                SLICE_MIN_COLS, SLICE_PLANS, SMEM_PLANS, cluster_takes, columns_takes, deep_takes,
                                handed_on, launch_cluster, launch_columns, launch_deep, launch_pair, launch_pipe,
                                launch_resident, launch_slice, launch_smem, pair_takes, pipe_takes, resident_takes,
                                slice_takes, smem_takes)
from mage.ops.layernorm.spec import EPS, SPEC
from mage.outputs import empty_output
from mage.spec import input_dtype

SIGNATURE = "pppplif"  # x, weight, bias, out, rows, cols, eps
ROWS_PER_WARP_BLOCK = 4  # warp kernels run 128 threads: four rows a block


def _kernel(name: str, file: str = "native.cu") -> Kernel:
    return Kernel("layernorm", name, SIGNATURE, file)


# (columns covered, kernel, threads a row): float4 rows, then scalar rows.
VECTOR_PLANS = [(128 * v, _kernel(f"layernorm_f32_warp_x4_v{v}"), 32) for v in (1, 2, 4, 8)] + [
    (16 * t, _kernel(f"layernorm_f32_block{t}_x4"), t) for t in (128, 256, 512, 1024)
]
SCALAR_PLANS = [(32 * v, _kernel(f"layernorm_f32_warp_v{v}"), 32) for v in (1, 2, 4, 8, 16, 32)]
LOOPED = _kernel("layernorm_f32_looped")


def _plans_16(tag: str) -> tuple[list, list, Kernel]:
    """bf16/fp16 (``tag`` bf16 or f16): rows of 8-element chunks a warp (see native16.cu), then scalar rows; wider rows
    go to the slice and cluster kernels (mage.backends.rows.handed_on)."""
    vector = [(256 * v, _kernel(f"layernorm_{tag}_warp_x8_v{v}", SIXTEEN_BIT_SOURCE), 32) for v in (1, 2, 4)]
    scalar = [(32 * v, _kernel(f"layernorm_{tag}_warp_v{v}", SIXTEEN_BIT_SOURCE), 32) for v in (1, 2, 4, 8, 16, 32)]
    return vector, scalar, _kernel(f"layernorm_{tag}_looped", SIXTEEN_BIT_SOURCE)


# precision -> (vector plans, scalar plans, looped kernel)
PLANS = {"ieee": (VECTOR_PLANS, SCALAR_PLANS, LOOPED)} | {p: _plans_16(tag) for p, tag in SIXTEEN_BIT_TAGS.items()}


def plan(rows: int, cols: int, vector: bool, precision: str = "ieee") -> tuple[Kernel, tuple, tuple]:
    """(kernel, grid, block) for a rows × cols input at ``precision``."""
    vector_plans, scalar_plans, looped = PLANS[precision]
    for covered, kernel, threads in vector_plans if vector else scalar_plans:
        if cols <= covered:
            if threads == 32:
                return kernel, (cdiv(rows, ROWS_PER_WARP_BLOCK), 1, 1), (32 * ROWS_PER_WARP_BLOCK, 1, 1)
            return kernel, (rows, 1, 1), (threads, 1, 1)
    return looped, (rows, 1, 1), (256, 1, 1)


def require_inputs(host, x, weight, bias, dtype=torch.float32) -> None:
    """The fast ready test, then the full checks when it fails (see mage.backends.native)."""
    ready = (
        host.holds(x) and host.holds(weight) and host.holds(bias)
        and x.dtype == dtype and weight.dtype == dtype and bias.dtype == dtype
        and x.dim() == 2 and weight.dim() == 1 and bias.dim() == 1
        and weight.shape[0] == x.shape[1] and bias.shape[0] == x.shape[1]
        and x.get_device() == weight.get_device() == bias.get_device()
        and x.is_contiguous() and weight.is_contiguous() and bias.is_contiguous()
    )
    if not ready:
        check_inputs(host, SPEC, dtype=dtype, x=x, weight=weight, bias=bias)


@register("layernorm", variants=("affine",), precisions=("ieee", "bf16", "fp16"))
def layernorm(host, x, weight, bias, precision="ieee"):
    require_inputs(host, x, weight, bias, input_dtype(precision))
    rows, cols = x.shape
    widest_block_row = VECTOR_PLANS[-1][0]  # narrower rows first, so that a warp's rows skip the alignment test
    held_in_a_block = (precision == "ieee" and SLICE_MIN_COLS < cols <= widest_block_row
                       and vector_rows(cols, x, weight, bias))
    if strategy := handed_on(host, x, held_in_a_block):
        return _launch_rows(host, HANDED_ON[strategy], WIDER[strategy][precision], x, weight, bias)
    out = empty_output((rows, cols), like=x)
    if out.numel() == 0:
        return out
    kernel, grid, block = plan(rows, cols, vector_rows(cols, x, weight, bias, out), precision)
    host.launch(kernel, grid, block, x, weight, bias, out, rows, cols, EPS)
    return out


def _launch_rows(host, launch, kernels: dict, x, weight, bias):
    """``launch`` (a launcher of mage.backends.rows) with ``kernels`` (plan -> kernel) on checked inputs."""
    rows, cols = x.shape
    return launch(host, kernels, x, lambda out: (x, weight, bias, out, rows, cols, EPS))


def _row_strategy(strategy: str, kernels: dict, launch, takes, precisions=("ieee", "bf16", "fp16")):
    """Register LayerNorm's row ``strategy`` at ``precisions`` through both hosts: ``launch`` (a launcher of
    mage.backends.rows) with ``kernels`` (precision -> plan -> kernel) on x, weight and bias once they are checked."""

    def layernorm_rows(host, x, weight, bias, precision="ieee"):
        require_inputs(host, x, weight, bias, input_dtype(precision))
        return _launch_rows(host, launch, kernels[precision], x, weight, bias)

    return register("layernorm", variants=("affine",), strategy=strategy, precisions=precisions,
                    takes=takes)(layernorm_rows)


SLICE = row_kernels("layernorm", "layernorm_{}_slice_t{}_v{}", SIGNATURE, SLICE_PLANS, SIXTEEN_BIT_SLICE_PLANS)
layernorm_slice = _row_strategy("slice", SLICE, launch_slice, slice_takes)
CLUSTER = row_kernels("layernorm", "layernorm_{}_cluster{}_t{}_v{}", SIGNATURE, CLUSTER_PLANS,
                      SIXTEEN_BIT_CLUSTER_PLANS)
layernorm_cluster = _row_strategy("cluster", CLUSTER, launch_cluster, cluster_takes)
WIDER = {"slice": SLICE, "cluster": CLUSTER}  # the kernels of the strategies the default hands wide rows on to
PIPE = row_kernels("layernorm", "layernorm_{}_pipe{}_t{}_v{}", SIGNATURE, PIPE_PLANS, SIXTEEN_BIT_PIPE_PLANS)
layernorm_pipe = _row_strategy("pipe", PIPE, launch_pipe, pipe_takes)
RESIDENT = row_kernels("layernorm", "layernorm_{}_resident{}_t{}_v{}", SIGNATURE, RESIDENT_PLANS,
                       SIXTEEN_BIT_RESIDENT_PLANS)
layernorm_resident = _row_strategy("resident", RESIDENT, launch_resident, resident_takes)
PAIR = row_kernels("layernorm", "layernorm_{}_pair{}_t{}_v{}", SIGNATURE, PAIR_PLANS, SIXTEEN_BIT_PAIR_PLANS)
layernorm_pair = _row_strategy("pair", PAIR, launch_pair, pair_takes)


SMEM = float_kernels("layernorm", "layernorm_f32_smem{}_t{}", SIGNATURE, SMEM_PLANS)
layernorm_smem = _row_strategy("smem", SMEM, launch_smem, smem_takes, precisions=("ieee",))
DEEP = row_kernels("layernorm", "layernorm_{}_deep{}_t{}_v{}", SIGNATURE, DEEP_PLANS, SIXTEEN_BIT_DEEP_PLANS)
layernorm_deep = _row_strategy("deep", DEEP, launch_deep, deep_takes)


# precision -> the columns kernel; its signature adds the workspace, the chunks a CTA owns and the rows a group.
COLUMNS = {precision: Kernel("layernorm", f"layernorm_{tag}_columns", SIGNATURE + "pii",
                             "native.cu" if tag == "f32" else SIXTEEN_BIT_SOURCE, cooperative=True)
           for precision, tag in {"ieee": "f32", **SIXTEEN_BIT_TAGS}.items()}


@register("layernorm", variants=("affine",), strategy="columns", precisions=("ieee", "bf16", "fp16"),
          takes=columns_takes)
def layernorm_columns(host, x, weight, bias, precision="ieee"):
    require_inputs(host, x, weight, bias, input_dtype(precision))
    rows, cols = x.shape
    return launch_columns(host, COLUMNS[precision], x, lambda out: (x, weight, bias, out, rows, cols, EPS))
