"""Neighbor aggregation (sum, mean) over CSR written in Rust with CubeCL (cubecl/src/neighbor_agg.rs),
one launch, deterministic, no atomics, in the row tiles of the CUDA C++ kernel (native.cu): a group of
T threads per row (T · 4 ≥ F when F allows float4s, at most 32), 256 / T rows a block, each round
loading 8 column indices and then those 8 rows of x; rows above LONG_ROW edges are taken afterwards
by the whole block (phase 2), as native's default does. Native's default also cuts rows above 8192
edges into merge-path pieces across blocks; this kernel does not (cubecl/FINDINGS.md §9).
Two strategies, as native's: ``cubecl`` (default: long rows by the block) and ``cubecl.warp`` (every
row by its group, native.warp's schedule). int32 and int64 indices each have their kernels.

The graph is validated (the spec's values check, one synchronization) once per (rowptr, col) pair
and remembered while unmodified, as the native launcher does (its known_max_degree / remember_graph).
"""

import functools

from mage.backends.cubecl import GENERATED, output, pack_info, require_32_bit, shared_bytes
from mage.backends.native import RUST_HOST, Kernel, aligned, cdiv, check_inputs, register
from mage.ops.neighbor_agg.native import INDEX, LONG_ROW, THREADS, known_max_degree, remember_graph
from mage.ops.neighbor_agg.spec import SPEC

VECTOR = 4  # floats a load in the _x4 kernels (float4)
NO_LONG_ROWS = 2**32 - 1  # neighbor_agg::NO_LONG_ROWS: the kernel skips phase 2
# (variant, index, floats a load) -> kernel; arguments rowptr, col, x, out, info (nodes, features, T,
# long_row).
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


def neighbor_agg(host, rowptr, col, x, variant, long_rows: bool = True):
    ready = (
        host.holds(rowptr) and host.holds(col) and host.holds_float32(x) and x.dim() == 2
        and rowptr.get_device() == col.get_device() == x.get_device()
        and rowptr.is_contiguous() and col.is_contiguous()
    )
    max_degree = known_max_degree(rowptr, col, x) if ready else None
    if max_degree is None:
        check_inputs(host, SPEC, rowptr=rowptr, col=col, x=x)
        max_degree = remember_graph(rowptr, col, x)
    require_32_bit(col=col, x=x)
    n, features = rowptr.numel() - 1, x.shape[1]
    out = output((n, features), like=x)
    if out.numel() == 0:
        return out
    width = VECTOR if features % VECTOR == 0 and aligned(x, out) else 1
    group = group_size(cdiv(features, width))
    kernel = KERNELS[(variant, INDEX[rowptr.dtype], width)]
    # Phase 2 only where a row needs it: its barriers cost every block, long rows or not.
    long_row = LONG_ROW if long_rows and max_degree > LONG_ROW else NO_LONG_ROWS
    host.launch(kernel, (cdiv(n, THREADS // group), 1, 1), (THREADS, 1, 1), rowptr, col, x, out,
                pack_info(kernel, uint32=(n, features, group, long_row)), shared=shared_bytes(kernel))
    return out


register("neighbor_agg", variants=("sum", "mean"), family="cubecl", hosts=(RUST_HOST,))(neighbor_agg)
register("neighbor_agg", variants=("sum", "mean"), family="cubecl", hosts=(RUST_HOST,), strategy="warp")(
    functools.partial(neighbor_agg, long_rows=False)
)
