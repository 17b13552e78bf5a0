"""bias_gelu written in Rust with CubeCL (cubecl/src/kernels.rs), one launch: a thread a column
group, its bias loaded once, walking the rows (about four each); erf from a float32 minimax
approximation (CubeCL's own erf is not accurate enough on every backend), 1 + erf computed
without cancellation. See mage.backends.cubecl.

Nsight Compute (results/h200/studies/cubecl, read in results/README.md) found the first version well below the
CUDA C++ kernel's bandwidth: warps ran about two thirds of their threads, because erf branched on
|a| and ordinary inputs took both sides in every warp, and each thread had one 4-byte load in flight. So
erf now evaluates both polynomials and selects one (no branch), and rows whose width is a multiple
of 4 with 16-byte aligned pointers go to a float4 kernel (``generated/cubecl_x4.cu``, CubeCL's
``Vector<f32, 4>``: 16-byte loads and stores, four columns a thread); others to the scalar kernel
(``generated/cubecl.cu``). The choice and the grid are native.py's (``plan``). Its times against native's are
in results/README.md.
"""

from mage.backends.cubecl import GENERATED, output_like, pack_info
from mage.backends.native import RUST_HOST, Kernel, register
from mage.ops.bias_gelu.native import THREADS, plan, require_inputs

# x, bias, out, info. Both sources were generated for cubes of THREADS (geometry::ELEMENTWISE_BLOCK).
SCALAR = Kernel("bias_gelu", "bias_gelu_kernel", "pppb", file=f"{GENERATED}/cubecl.cu")
VECTOR = Kernel("bias_gelu", "bias_gelu_kernel_x4", "pppb", file=f"{GENERATED}/cubecl_x4.cu")


@register("bias_gelu", variants=("erf",), family="cubecl", hosts=(RUST_HOST,))
def bias_gelu(host, x, bias):
    require_inputs(host, x, bias)
    out = output_like(x)
    if out.numel() == 0:
        return out
    rows, cols = x.shape
    kernel, grid = plan(VECTOR, SCALAR, x, bias, out)
    host.launch(kernel, grid, (THREADS, 1, 1), x, bias, out, pack_info(kernel, uint32=(rows, cols)))
    return out
