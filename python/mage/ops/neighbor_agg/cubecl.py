"""Neighbor aggregation (sum, mean) over CSR written in Rust with CubeCL (cubecl/src/neighbor_agg.rs),
one launch, deterministic, no atomics: the schedule of the CUDA C++ kernel's ``native.warp`` strategy
(native.cu), a group of T threads per row whatever its degree (T · 4 ≥ F when F allows float4s, at
most 32), 256 / T rows a block, each round loading 8 column indices and then those 8 rows of x.
Native's default also gives long rows to a whole block and cuts hubs into merge-path pieces; this
kernel does not (cubecl/FINDINGS.md, "Issue 20"). int32 and int64 indices each have their kernels.

The graph is validated (the spec's values check, one synchronization) once per (rowptr, col) pair
and remembered while unmodified, as the native launcher does (its known_max_degree / remember_graph).
"""

import torch

from mage.backends.cubecl import GENERATED, output, pack_info, require_32_bit
from mage.backends.native import RUST_HOST, Kernel, aligned, cdiv, check_inputs, register
from mage.ops.neighbor_agg.native import INDEX, THREADS, known_max_degree, remember_graph
from mage.ops.neighbor_agg.spec import SPEC

VECTOR = 4  # floats a load in the _x4 kernels (float4)
# (variant, index, floats a load) -> kernel; arguments rowptr, col, x, out, info (nodes, features, T).
KERNELS = {
    (variant, index, width): Kernel("neighbor_agg", f"neighbor_agg_{variant}_{index}_kernel{suffix}", "ppppb",
                                    file=f"{GENERATED}/cubecl_{variant}_{index}{suffix}.cu")
    for variant in ("sum", "mean")
    for index in INDEX.values()
    for width, suffix in ((1, ""), (VECTOR, "_x4"))
}


def group_size(loads: int) -> int:
    """Threads a row of ``loads`` loads: the next power of two at or above it, at most 32
    (launch::neighbor_agg_group in cubecl/src/launch.rs)."""
    return min(32, 1 << (max(loads, 1) - 1).bit_length())


@register("neighbor_agg", variants=("sum", "mean"), family="cubecl", hosts=(RUST_HOST,))
def neighbor_agg(host, rowptr, col, x, variant):
    ready = (
        host.holds(rowptr) and host.holds(col) and host.holds_float32(x) and x.dim() == 2
        and rowptr.get_device() == col.get_device() == x.get_device()
        and rowptr.is_contiguous() and col.is_contiguous()
    )
    if not ready or known_max_degree(rowptr, col, x) is None:
        check_inputs(host, SPEC, rowptr=rowptr, col=col, x=x)
        remember_graph(rowptr, col, x)
    require_32_bit(col=col, x=x)
    n, features = rowptr.numel() - 1, x.shape[1]
    out = output((n, features), like=x)
    if out.numel() == 0:
        return out
    width = VECTOR if features % VECTOR == 0 and aligned(x, out) else 1
    group = group_size(cdiv(features, width))
    kernel = KERNELS[(variant, INDEX[rowptr.dtype], width)]
    host.launch(kernel, (cdiv(n, THREADS // group), 1, 1), (THREADS, 1, 1), rowptr, col, x, out,
                pack_info(kernel, uint32=(n, features, group)))
    return out
