"""Matmul (ieee, FFMA) in one launch of a tiled CUDA C++ kernel (native.cu).

128 × 128 tiles when they give every SM at least one block, else 64 × 64; float4 loads when
K and N are multiples of 4 and the pointers are 16-byte aligned.

Strategies ``cpasync16`` and ``cpasync8x4`` copy the operands global → shared by cp.async instead
of through registers, in slices of 16 through two buffers or of 8 through four, where the default
kernel would take its 128 × 128 float4 kernel; elsewhere they launch what it launches.
"""

from mage.backends.native import Kernel, aligned, cdiv, check_inputs, register
from mage.errors import InputError
from mage.ops.matmul.spec import SPEC
from mage.outputs import empty_output

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


@register("matmul", precisions=("ieee",))
def matmul(host, a, b):
    return _matmul(host, a, b, None)


def _pipelined(strategy: str):
    def matmul_pipelined(host, a, b):
        return _matmul(host, a, b, PIPELINED[strategy])

    return matmul_pipelined


for _strategy in PIPELINED:
    register("matmul", precisions=("ieee",), strategy=_strategy)(_pipelined(_strategy))
