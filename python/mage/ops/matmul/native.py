"""Matmul (ieee, FFMA) in one launch of a tiled CUDA C++ kernel (native.cu).

128 × 128 tiles when they give every SM at least one block, else 64 × 64; float4 loads when
K and N are multiples of 4 and the pointers are 16-byte aligned.

Strategies ``cpasync16`` and ``cpasync8x4`` copy the operands global → shared by cp.async instead
of through registers, in slices of 16 through two buffers or of 8 through four, where the default
kernel would take its 128 × 128 float4 kernel; elsewhere they launch what it launches.

bf16 and fp16 run on tensor cores (mma.sync, float32 accumulation, the output rounded once):
128 × 128 tiles of 4 warps when they give every SM a block and K, N are multiples of 8 with
16-byte aligned pointers, else 64 × 64. Strategies ``w8`` (8 warps of 64 × 32) and ``t256`` (256 × 128,
8 warps) replace the 128 × 128 kernel where the default would take it: which wins is a measurement.
"""

from mage.backends.native import SIXTEEN_BIT_SOURCE, SIXTEEN_BIT_TAGS, Kernel, aligned, cdiv, check_inputs, register
from mage.errors import InputError
from mage.ops.matmul.spec import SPEC
from mage.outputs import empty_output
from mage.spec import input_dtype

THREADS = 256
KERNELS = {
    (tile, vector): Kernel("matmul", f"matmul_f32_{tile}x{tile}{'_x4' if vector else ''}", "pppiii")  # a, b, c, M, N, K
    for tile in (128, 64)
    for vector in (True, False)
}
PIPELINED = {  # strategy -> its 128 × 128 float4 kernel (a, b, c, M, N, K)
    "cpasync16": Kernel("matmul", "matmul_f32_128x128_k16_s2", "pppiii"),
    "cpasync8x4": Kernel("matmul", "matmul_f32_128x128_k8_s4", "pppiii"),
}


def _matmul(host, a, b, pipelined: Kernel | None):
    if not (host.holds_float32(a, b) and a.dim() == 2 and b.dim() == 2 and a.shape[1] == b.shape[0]):
        check_inputs(host, SPEC, a=a, b=b)
    m, k = a.shape
    n = b.shape[1]
    out = empty_output((m, n), like=a)
    if out.numel() == 0:
        return out
    tile = 128 if cdiv(m, 128) * cdiv(n, 128) >= host.sm_count(a.device) else 64
    if cdiv(m, tile) > 65535:
        raise InputError(f"a has {m} rows; the native matmul's grid covers at most {65535 * tile}")
    vector = k % 4 == 0 and n % 4 == 0 and aligned(a, b, out)
    kernel = pipelined if pipelined is not None and (tile, vector) == (128, True) else KERNELS[(tile, vector)]
    grid = (cdiv(n, tile), cdiv(m, tile), 1)
    host.launch(kernel, grid, (THREADS, 1, 1), a, b, out, m, n, k)
    return out


# (BM, BN, threads) of each tensor-core tile (native16.cu's MATMUL_MMA_ALL)
MMA_TILES = {"mma128x128_w4": (128, 128, 128), "mma128x128_w8": (128, 128, 256), "mma256x128_w8": (256, 128, 256),
             "mma64x64_w4": (64, 64, 128)}
MMA_KERNELS = {  # a, b, c, M, N, K
    (precision, tile, vector): Kernel(
        "matmul", f"matmul_{tag}_{tile}{'_x8' if vector else ''}", "pppiii", SIXTEEN_BIT_SOURCE)
    for precision, tag in SIXTEEN_BIT_TAGS.items()
    for tile in MMA_TILES
    for vector in (True, False)
    if vector or tile == "mma64x64_w4"
}
MMA_STRATEGIES = {"default": "mma128x128_w4", "w8": "mma128x128_w8", "t256": "mma256x128_w8"}  # the large tile of each


def _matmul_mma(host, a, b, precision: str, strategy: str):
    dtype = input_dtype(precision)
    if not (host.holds_dtype(dtype, a, b) and a.dim() == 2 and b.dim() == 2 and a.shape[1] == b.shape[0]):
        check_inputs(host, SPEC, dtype=dtype, a=a, b=b)
    m, k = a.shape
    n = b.shape[1]
    out = empty_output((m, n), like=a)
    if out.numel() == 0:
        return out
    vector = k % 8 == 0 and n % 8 == 0 and aligned(a, b, out)
    tile = MMA_STRATEGIES[strategy]
    if not (vector and cdiv(m, 128) * cdiv(n, 128) >= host.sm_count(a.device)):
        tile = "mma64x64_w4"
    rows, cols, threads = MMA_TILES[tile]
    host.launch(MMA_KERNELS[(precision, tile, vector)], (cdiv(m, rows) * cdiv(n, cols), 1, 1), (threads, 1, 1),
                a, b, out, m, n, k)
    return out


@register("matmul", precisions=("ieee", "bf16", "fp16"))
def matmul(host, a, b, precision="ieee"):
    if precision in SIXTEEN_BIT_TAGS:
        return _matmul_mma(host, a, b, precision, "default")
    return _matmul(host, a, b, None)


def _pipelined(strategy: str):
    def matmul_pipelined(host, a, b):
        return _matmul(host, a, b, PIPELINED[strategy])

    return matmul_pipelined


for _strategy in PIPELINED:
    register("matmul", precisions=("ieee",), strategy=_strategy)(_pipelined(_strategy))


def _mma_strategy(strategy: str):
    def matmul_mma(host, a, b, precision):
        return _matmul_mma(host, a, b, precision, strategy)

    return matmul_mma


for _strategy in MMA_STRATEGIES:
    if _strategy != "default":
        register("matmul", precisions=tuple(SIXTEEN_BIT_TAGS), strategy=_strategy)(_mma_strategy(_strategy))
