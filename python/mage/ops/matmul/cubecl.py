"""Matmul (ieee, FFMA) written in Rust with CubeCL (cubecl/src/matmul.rs), one launch, in the
tiling of the CUDA C++ kernel (native.cu): 256 threads a block compute a 128 × 128 tile of C
(64 × 64 when 128-tiles would leave SMs idle, native's rule) from double-buffered k slices of 8 in
shared memory, an 8 × 8 (4 × 4) micro-tile a thread. Unlike native, global loads are scalar (NVRTC
merges the shared-memory reads into float4s as native's; cubecl/FINDINGS.md §9). Each tile size is a comptime parameter: a source of its own
(generated/cubecl_t<tile>.cu). See mage.backends.cubecl.

The tf32 implementation (cubecl/src/matmul_tf32.rs, generated/cubecl_tf32.cu) runs on the tensor
cores through CubeCL's ``cmma`` (nvcuda::wmma, m16n16k8): 128 × 128 tiles of C, k slices of 32, each
of the 8 warps owning 64 × 32 of the tile (4 × 2 accumulator fragments), inputs rounded to tf32 on
their way into shared memory.
"""

from mage.backends.cubecl import GENERATED, output, pack_info, require_32_bit, shared_bytes
from mage.backends.native import RUST_HOST, Kernel, cdiv, check_inputs, register
from mage.errors import InputError
from mage.ops.matmul.native import THREADS
from mage.ops.matmul.spec import SPEC

# a, b, c, info (m, n, k).
KERNELS = {tile: Kernel("matmul", f"matmul_kernel_t{tile}", "pppb", file=f"{GENERATED}/cubecl_t{tile}.cu")
           for tile in (128, 64)}
TF32_KERNEL = Kernel("matmul", "matmul_tf32_kernel", "pppb", file=f"{GENERATED}/cubecl_tf32.cu")
TF32_TILE = 128  # rows and columns of C a block computes (cubecl/src/matmul_tf32.rs: TILE)


def _output(host, a, b):
    """(m, n, k, the poisoned c) once a and b are valid inputs the 32-bit indexing reaches."""
    if not (host.holds_float32(a, b) and a.dim() == 2 and b.dim() == 2 and a.shape[1] == b.shape[0]):
        check_inputs(host, SPEC, a=a, b=b)
    require_32_bit(a=a, b=b)
    m, k = a.shape
    n = b.shape[1]
    return m, n, k, output((m, n), like=a)


def _launch(host, kernel, tile, a, b, out, m, n, k):
    if cdiv(m, tile) > 65535:
        raise InputError(f"a has {m} rows; the CubeCL matmul's grid covers at most {65535 * tile}")
    host.launch(kernel, (cdiv(n, tile), cdiv(m, tile), 1), (THREADS, 1, 1), a, b, out,
                pack_info(kernel, uint32=(m, n, k)), shared=shared_bytes(kernel))


@register("matmul", precisions=("ieee",), family="cubecl", hosts=(RUST_HOST,))
def matmul(host, a, b):
    m, n, k, out = _output(host, a, b)
    if out.numel() == 0:
        return out
    tile = 128 if cdiv(m, 128) * cdiv(n, 128) >= host.sm_count(a.device) else 64
    _launch(host, KERNELS[tile], tile, a, b, out, m, n, k)
    return out


@register("matmul", precisions=("tf32",), family="cubecl", hosts=(RUST_HOST,))
def matmul_tf32(host, a, b):
    m, n, k, out = _output(host, a, b)
    if out.numel() == 0:
        return out
    _launch(host, TF32_KERNEL, TF32_TILE, a, b, out, m, n, k)
    return out
