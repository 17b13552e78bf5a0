"""LayerNorm written in Rust with CubeCL (cubecl/src/kernels.rs), one launch: a cube per row, two
passes over the row (mean, then the mean squared deviation), each reduced within warps by
plane_sum and across them through shared memory, then the affine output. The cube size is a
comptime parameter, so each power of two from 32 to 256 is a source of its own
(cubecl_b<size>.cu). See mage.backends.cubecl."""

from mage.backends.cubecl import output_like, pack_info
from mage.backends.native import RUST_HOST, Kernel, register
from mage.ops.layernorm.native import require_inputs
from mage.ops.layernorm.spec import EPS

KERNELS = {block: Kernel("layernorm", "layernorm_kernel", "ppppb", file=f"cubecl_b{block}.cu")
           for block in (32, 64, 128, 256)}  # x, weight, bias, out, info


def cube_size(cols: int) -> int:
    """Threads a row: the next power of two at or above the row width, within 32 and 256
    (geometry::layernorm_block in cubecl/src/geometry.rs)."""
    return min(256, max(32, 1 << (cols - 1).bit_length()))


@register("layernorm", variants=("affine",), backend="rust-cubecl", hosts=(RUST_HOST,))
def layernorm(host, x, weight, bias):
    require_inputs(host, x, weight, bias)
    out = output_like(x)
    if out.numel() == 0:
        return out
    rows, cols = x.shape
    block = cube_size(cols)
    kernel = KERNELS[block]
    info = pack_info(kernel, uint32=(rows, cols), float=(EPS,))
    host.launch(kernel, (rows, 1, 1), (block, 1, 1), x, weight, bias, out, info, shared=4 * block)
    return out
