"""Triangle multiplication (ieee, FFMA), outgoing or incoming, written in Rust with CubeCL
(cubecl/src/triangle.rs), one launch, in the tiling of the CUDA C++ kernel (native.cu): blocks of 8
channels × a TI × TI tile of (i, j), k in double-buffered stages of 4 transposed to [k][c][i] in
shared memory, an 8 × 8 micro-tile of one channel a thread; TI = 64 when that gives every SM a
block, else 32 (native's rule). Unlike native, global loads are scalar (NVRTC merges the
shared-memory reads into float4s as native's; cubecl/FINDINGS.md §9). Each (variant, TI) is a source of its own (generated/cubecl_<variant>_t<TI>.cu).
"""

from mage.backends.cubecl import GENERATED, output_like, pack_info, require_32_bit, shared_bytes
from mage.backends.native import RUST_HOST, Kernel, cdiv, check_inputs, register
from mage.errors import InputError
from mage.ops.triangle.native import CHANNELS as NATIVE_CHANNELS
from mage.ops.triangle.spec import SPEC

CHANNELS = NATIVE_CHANNELS["default"]  # the 8-channel blocks of native's default strategy, mirrored

# a, b, out, info (N, C).
KERNELS = {
    (variant, tile): Kernel("triangle", f"triangle_{variant}_kernel_t{tile}", "pppb",
                            file=f"{GENERATED}/cubecl_{variant}_t{tile}.cu")
    for variant in ("outgoing", "incoming")
    for tile in (64, 32)
}


@register("triangle", variants=("outgoing", "incoming"), precisions=("ieee",), family="cubecl", hosts=(RUST_HOST,))
def triangle(host, a, b, variant):
    if not (host.holds_float32(a, b) and a.dim() == 4 and a.shape[1] == a.shape[2] and a.shape == b.shape):
        check_inputs(host, SPEC, a=a, b=b)
    require_32_bit(a=a, b=b)
    batch, n, _, channels = a.shape
    out = output_like(a)
    if out.numel() == 0:
        return out
    groups = cdiv(channels, CHANNELS)
    if batch > 65535 or groups > 65535:
        raise InputError(f"the CubeCL triangle kernel's grid covers at most 65535 batches and {65535 * CHANNELS} channels, got shape {tuple(a.shape)}")
    tile = 64 if batch * cdiv(n, 64) ** 2 * groups >= host.sm_count(a.device) else 32
    kernel = KERNELS[(variant, tile)]
    host.launch(kernel, (cdiv(n, tile) ** 2, groups, batch), (CHANNELS * (tile // 8) ** 2, 1, 1), a, b, out,
                pack_info(kernel, uint32=(n, channels)), shared=shared_bytes(kernel))
    return out
