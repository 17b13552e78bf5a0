"""Triangle multiplication (ieee, FFMA), outgoing or incoming, in one launch (native.cu).

Every (batch, channel) product in one grid: blocks of TC channels × a TI × TI tile of (i, j),
TI = 64 when that gives every SM at least one block, else 32. ``native`` takes 8 channels a block
(512 threads at TI = 64, a whole sector of each row), ``native.c4`` 4 (256 threads, two blocks an
SM): which wins is a measurement (native.cu says what each trades). bf16 and fp16 (default strategy):
the same tiles on 16-bit inputs and output, float32 FFMAs and accumulation.
"""

from mage.backends.native import SIXTEEN_BIT_SOURCE, SIXTEEN_BIT_TAGS, Kernel, aligned, cdiv, check_inputs, register
from mage.errors import InputError
from mage.ops.triangle.spec import SPEC, channel_last_only
from mage.outputs import empty_output
from mage.spec import input_dtype

CHANNELS = {"default": 8, "c4": 4}  # TC in native.cu, per strategy
KERNELS = {
    (strategy, variant, tile, vector): Kernel(
        "triangle", f"triangle_{variant}_f32_t{tile}{'' if strategy == 'default' else '_' + strategy}{'_x4' if vector else ''}",
        "pppii")
    for strategy in CHANNELS
    for variant in ("outgoing", "incoming")
    for tile in (64, 32)
    for vector in (True, False)
}  # a, b, out, N, C
KERNELS_16 = {
    (precision, variant, tile, vector): Kernel(
        "triangle", f"triangle_{variant}_{tag}_t{tile}{'_x4' if vector else ''}", "pppii", SIXTEEN_BIT_SOURCE)
    for precision, tag in SIXTEEN_BIT_TAGS.items()
    for variant in ("outgoing", "incoming")
    for tile in (64, 32)
    for vector in (True, False)
}  # the default strategy's 8 channels a block


def _launch(host, a, b, variant, strategy, precision="ieee"):
    dtype = input_dtype(precision)
    if not (host.holds_dtype(dtype, a, b) and a.dim() == 4 and a.shape[1] == a.shape[2] and a.shape == b.shape):
        check_inputs(host, SPEC, dtype=dtype, a=a, b=b)
    batch, n, _, channels = a.shape
    out = empty_output(tuple(a.shape), like=a)
    if out.numel() == 0:
        return out
    per_block = CHANNELS[strategy]
    groups = cdiv(channels, per_block)
    if batch > 65535 or groups > 65535:
        raise InputError(f"the native triangle kernel's grid covers at most 65535 batches and {65535 * per_block} channels, got shape {tuple(a.shape)}")
    tile = 64 if batch * cdiv(n, 64) ** 2 * groups >= host.sm_count(a.device) else 32
    vector = channels % 4 == 0 and aligned(a, b)
    grid = (cdiv(n, tile) ** 2, groups, batch)
    block = (per_block * (tile // 8) ** 2, 1, 1)
    if precision == "ieee":
        kernel = KERNELS[(strategy, variant, tile, vector)]
    else:
        kernel = KERNELS_16[(precision, variant, tile, vector)]
    host.launch(kernel, grid, block, a, b, out, n, channels)
    return out


@register("triangle", variants=("outgoing", "incoming"), precisions=("ieee", "bf16", "fp16"), takes=channel_last_only)
def triangle(host, a, b, variant, precision="ieee"):
    return _launch(host, a, b, variant, "default", precision)


@register("triangle", variants=("outgoing", "incoming"), precisions=("ieee",), takes=channel_last_only, strategy="c4")
def triangle_c4(host, a, b, variant):
    return _launch(host, a, b, variant, "c4")
