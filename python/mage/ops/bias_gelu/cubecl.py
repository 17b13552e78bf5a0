"""bias_gelu written in Rust with CubeCL (cubecl/src/kernels.rs), one launch: a thread a column,
its bias loaded once, walking the rows (about four each); erf from a float32 minimax
approximation (CubeCL's own erf is not accurate enough on every backend), 1 + erf computed
without cancellation. See mage.backends.cubecl."""

from mage.backends.cubecl import output_like, pack_info
from mage.backends.native import RUST_HOST, Kernel, cdiv, register
from mage.ops.bias_gelu.native import require_inputs

KERNEL = Kernel("bias_gelu", "bias_gelu_kernel", "pppb", file="cubecl.cu")  # x, bias, out, info
THREADS = 256  # the cube size the source was generated for (__launch_bounds__)
ROWS_PER_THREAD = 4  # geometry::ROWS_PER_UNIT in cubecl/src/geometry.rs
MAX_GRID_Y = 65535


@register("bias_gelu", variants=("erf",), backend="rust-cubecl", hosts=(RUST_HOST,))
def bias_gelu(host, x, bias):
    require_inputs(host, x, bias)
    out = output_like(x)
    if out.numel() == 0:
        return out
    rows, cols = x.shape
    grid = (cdiv(cols, THREADS), min(cdiv(rows, ROWS_PER_THREAD), MAX_GRID_Y), 1)
    host.launch(KERNEL, grid, (THREADS, 1, 1), x, bias, out, pack_info(KERNEL, uint32=(rows, cols)))
    return out
