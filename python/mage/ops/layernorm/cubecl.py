"""LayerNorm written in Rust with CubeCL (cubecl/src/kernels.rs), one launch: a cube per row, two
passes over the row (a provisional mean, then the deviations from it and their squares: the
corrected two-pass statistics, so the mean is never rounded to one float32 and 1e4 + N(0, 1) rows
keep float32's precision), each reduced within warps by plane_sum and across them through shared
memory, then the affine output. The cube size is a
comptime parameter, so each power of two from 32 to 256 is a source of its own
(generated/cubecl_b<size>.cu). See mage.backends.cubecl.

Nsight Compute (results/h200/studies/cubecl, read in results/README.md) found it below the CUDA C++ kernel's
bandwidth, which moves the row as float4. So rows whose width is a multiple of 4, with every
pointer 16-byte aligned, now go to float4 kernels (generated/cubecl_b<size>_x4.cu, CubeCL's
``Vector<f32, 4>``: 16-byte loads and stores, the cube sized for a thread a float4); other rows to
the scalar ones. Its times against native's are in results/README.md.
"""

from mage.backends.cubecl import GENERATED, output_like, pack_info
from mage.backends.native import RUST_HOST, Kernel, register, vector_rows
from mage.ops.layernorm.native import require_inputs
from mage.ops.layernorm.spec import EPS

BLOCKS = (32, 64, 128, 256)
VECTOR = 4  # floats a load in the _x4 kernels (float4)
# (cube size, floats a load) -> kernel; arguments x, weight, bias, out, info.
KERNELS = {
    (block, width): Kernel("layernorm", f"layernorm_kernel{suffix}", "ppppb",
                           file=f"{GENERATED}/cubecl_b{block}{suffix}.cu")
    for block in BLOCKS
    for width, suffix in ((1, ""), (VECTOR, "_x4"))
}


def cube_size(loads: int) -> int:
    """Threads a row of ``loads`` loads (floats, or float4s): the next power of two at or above it,
    within 32 and 256 (geometry::layernorm_block in cubecl/src/geometry.rs)."""
    return min(256, max(32, 1 << (loads - 1).bit_length()))


@register("layernorm", variants=("affine",), family="cubecl", hosts=(RUST_HOST,))
def layernorm(host, x, weight, bias):
    require_inputs(host, x, weight, bias)
    out = output_like(x)
    if out.numel() == 0:
        return out
    rows, cols = x.shape
    width = VECTOR if vector_rows(cols, x, weight, bias, out) else 1
    block = cube_size(cols // width)
    kernel = KERNELS[(block, width)]
    info = pack_info(kernel, uint32=(rows, cols), float=(EPS,))
    host.launch(kernel, (rows, 1, 1), (block, 1, 1), x, weight, bias, out, info, shared=4 * block)
    return out
