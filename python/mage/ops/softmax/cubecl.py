"""Softmax written in Rust with CubeCL (cubecl/src/softmax.rs), one launch: the design of the CUDA C++
online kernel (native.cu, softmax_f32_online) at every width: a block of 256 threads per row keeps a
running max and a rescaled sum over one read of the row, reduces both across the block (warp
shuffles, then the per-warp partials in a fixed order), and reads the row again to write it. Native
uses that kernel only past 16384 columns; narrower rows there go to kernels that hold the row in
registers and read it once, which this implementation does not have. See mage.backends.cubecl.
"""

import torch

from mage.backends.cubecl import GENERATED, output_like, pack_info, shared_bytes
from mage.backends.native import RUST_HOST, Kernel, check_inputs, register
from mage.ops.softmax.spec import SPEC

THREADS = 256  # softmax::THREADS in cubecl/src/softmax.rs
KERNEL = Kernel("softmax", "softmax_kernel", "ppb", file=f"{GENERATED}/cubecl.cu")  # x, out, info (rows, cols)


@register("softmax", variants=("rows",), family="cubecl", hosts=(RUST_HOST,))
def softmax(host, x):
    if not (host.holds(x) and x.dtype == torch.float32 and x.dim() == 2 and x.is_contiguous()):
        check_inputs(host, SPEC, x=x)
    out = output_like(x)
    if out.numel() == 0:
        return out
    rows, cols = x.shape
    host.launch(KERNEL, (rows, 1, 1), (THREADS, 1, 1), x, out, pack_info(KERNEL, uint32=(rows, cols)),
                shared=shared_bytes(KERNEL))
    return out
