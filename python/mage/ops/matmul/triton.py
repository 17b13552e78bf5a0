"""Matmul at five precisions: ieee (FMA), tf32 (tensor cores), tf32x3 (three tf32 products), and bf16
and fp16 (16-bit operands and output, float32 accumulation).

Two kernels share the tile order (GROUP_M row-tiles sweep the columns together, so the A rows
and B columns in flight stay in L2):

- ``_matmul_tile_kernel``: one program per output tile, pointer loads that Triton pipelines
  with cp.async over ``num_stages`` buffers. It serves ieee everywhere (Triton lowers an ieee
  fp32 dot to FMAs, so tensor memory accelerators buy nothing there) and tf32/tf32x3 when
  tensor descriptors cannot address the operands (tf32x3 then splits in registers: Triton's
  native "tf32x3").
- ``_matmul_persistent_kernel``: on Hopper, for tf32 and tf32x3 when every operand is 16-byte
  aligned. One program per SM walks the tiles (no wave quantization, the next tile's loads
  overlap the previous epilogue), operands arrive by TMA into swizzled shared memory, and the
  result leaves by TMA store. A tf32 wgmma needs both operands K-major in shared memory and b
  is N-major: fed b as it is, Triton copies every B tile through registers into a transposed
  buffer and waits for each wgmma (seen in its sm_90 TTGIR). So b is transposed once instead,
  an extra copy of K·N floats (about 4 % of the 8192³ time). bf16 and fp16 need no copy: a 16-bit
  wgmma reads an N-major B from shared memory as it is.

tf32x3 on the persistent path splits its operands once, before the product, instead of in
every tile: ``_split_tf32_kernel`` writes big = tf32(x) and small = tf32(x − big) for a, and for
bᵀ (the transpose it needs anyway), so the product runs three TMA-fed wgmma dots (small·big
terms first, big·big last, summed per K step before joining the accumulator) with nothing
between shared memory and the tensor cores. Split in
registers, each B tile took the detour above, and the kernel ran slower than cuBLAS's
FMA matmul at 8192³ (results/README.md). The small·small term is left out: each product is then exact to
about 2⁻²² relative, which meets the ieee ceiling of 1e-5.

``triton.onelaunch`` is tf32x3 in one launch: the persistent kernel loads fp32 tiles of a and of b
(as it is, K × N) by TMA and splits them in registers after the load, so nothing is written before
the product; the three dots then take their B operands from registers through shared memory. It
reads a and b once instead of writing and reading their four parts (3 × 768 MiB of traffic at 8192³
fewer), at the cost of the split's integer work in every tile and of that register detour.
"""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

from mage.backends.triton import grouped_tile, num_sms, pick_configs, tma_ready, triton_available, triton_tf32_available
from mage.ops.matmul.spec import SPEC
from mage.outputs import empty_output
from mage.registry import implementation
from mage.spec import input_dtype


# The tile kernel's candidate (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages), per precision.
_TILE_SHAPES = {
    # FMA: 64 accumulators a thread (8 warps on 128 × 128, 4 on 128 × 64) is what fits in 255
    # registers without spilling; K steps of 16 (the least tl.dot accepts) or 32.
    "ieee": [(128, 128, 16, 8, 3), (128, 128, 16, 8, 4), (128, 128, 32, 8, 3), (128, 64, 32, 4, 3), (64, 128, 32, 4, 3),
             (64, 64, 32, 4, 4)],
    "tf32": [(128, 128, 32, 8, 3), (128, 128, 32, 4, 4), (128, 256, 32, 8, 3), (128, 64, 32, 4, 4), (64, 128, 32, 4, 4),
             (64, 64, 32, 4, 5)],
    # tf32x3 keeps both splits of each operand live: 4-warp tiles above 64 × 64 spill.
    "tf32x3": [(128, 128, 32, 8, 3), (128, 128, 32, 8, 4), (128, 64, 32, 8, 4), (64, 128, 32, 8, 4), (64, 64, 32, 4, 5)],
    # 16-bit tiles are half the bytes of fp32's: K steps of 64 at the same shared memory.
    "bf16": [(128, 128, 64, 8, 3), (128, 256, 64, 8, 3), (128, 128, 64, 4, 4), (128, 64, 64, 4, 4), (64, 64, 64, 4, 5)],
}
_TILE_SHAPES["fp16"] = _TILE_SHAPES["bf16"]
# The dot's input_precision per precision: it names how fp32 operands are multiplied; 16-bit operands
# go to the tensor cores whatever it says, under Triton's default name for that.
DOT_PRECISION = {"bf16": "tf32", "fp16": "tf32"}


def _tile_configs(precision):
    def config(bm, bn, bk, warps, stages):
        return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_warps=warps, num_stages=stages)

    return pick_configs([config(*shape) for shape in _TILE_SHAPES[precision]], [config(128, 128, 32, 4, 1)])


def _tile_kernel(precision):
    @triton.autotune(configs=_tile_configs(precision), key=["M", "N", "K"])
    @triton.jit
    def _matmul_tile_kernel(
        a_ptr,  # M × K, strides (stride_am, stride_ak)
        b_ptr,  # K × N, strides (stride_bk, stride_bn)
        c_ptr,  # M × N, contiguous
        M,
        N,
        K,
        stride_am,
        stride_ak,
        stride_bk,
        stride_bn,
        DOT_PRECISION: tl.constexpr,
        BLOCK_M: tl.constexpr,
        BLOCK_N: tl.constexpr,
        BLOCK_K: tl.constexpr,
        GROUP_M: tl.constexpr,
    ):
        pid_m, pid_n = grouped_tile(tl.program_id(0), tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N), GROUP_M)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        # Rows and columns past the edge read row/column 0 instead of being masked: the loads
        # stay unmasked along M and N (vectorizable), and the store drops those lanes.
        rows = tl.where(offs_m < M, offs_m, 0).to(tl.int64)
        cols = tl.where(offs_n < N, offs_n, 0).to(tl.int64)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + rows[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + cols[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            k_left = K - k * BLOCK_K
            a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
            acc = tl.dot(a, b, acc, input_precision=DOT_PRECISION)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c_ptrs = c_ptr + offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

    return _matmul_tile_kernel


# One autotuned kernel object per precision, so each keeps its own tuning cache and config list.
_TILE_KERNELS = {p: _tile_kernel(p) for p in _TILE_SHAPES}


@triton.jit
def round_tf32(x):
    """x rounded to the nearest tf32 (10 mantissa bits; halves away from zero), kept as fp32."""
    bits = x.to(tl.int32, bitcast=True)
    return ((bits + 0x1000) & -8192).to(tl.float32, bitcast=True)


@triton.jit
def split_tf32_parts(x):
    """(big, small): x's tf32 rounding and the tf32 rounding of what it left, big + small = x to ~2⁻²²."""
    big = round_tf32(x)
    # x − big is exact; rounded here, the wgmma's truncation loses nothing. Where x is infinite, x − big would
    # be inf − inf, NaN: small is 0 there, so big carries the infinity alone (a NaN stays NaN in both). A
    # compare and a select an element, beside the three dots.
    return big, round_tf32(tl.where(x == big, 0.0, x - big))


@triton.jit
def split_tf32_block(x_ptr, big_ptr, small_ptr, R, C, stride_r, stride_c, block_r, block_c, TRANSPOSE: tl.constexpr,
                     BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """Writes the big and small parts of block (block_r, block_c) of x (R × C, strides (stride_r, stride_c))
    to big_ptr and small_ptr: R × C contiguous, or C × R when TRANSPOSE."""
    offs_r = block_r * BLOCK_R + tl.arange(0, BLOCK_R)
    offs_c = block_c * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (offs_r[:, None] < R) & (offs_c[None, :] < C)
    x = tl.load(x_ptr + offs_r[:, None].to(tl.int64) * stride_r + offs_c[None, :] * stride_c, mask=mask, other=0.0)
    big, small = split_tf32_parts(x)
    if TRANSPOSE:
        offsets = offs_c[None, :].to(tl.int64) * R + offs_r[:, None]
    else:
        offsets = offs_r[:, None].to(tl.int64) * C + offs_c[None, :]
    tl.store(big_ptr + offsets, big, mask=mask)
    tl.store(small_ptr + offsets, small, mask=mask)


@triton.jit
def _split_tf32_kernel(
    x_ptr,  # R × C, strides (stride_r, stride_c)
    big_ptr,  # R × C contiguous, or C × R when TRANSPOSE
    small_ptr,  # as big_ptr
    R,
    C,
    stride_r,
    stride_c,
    TRANSPOSE: tl.constexpr,
    BLOCK_R: tl.constexpr,
    BLOCK_C: tl.constexpr,
):
    split_tf32_block(x_ptr, big_ptr, small_ptr, R, C, stride_r, stride_c, tl.program_id(0), tl.program_id(1), TRANSPOSE,
                     BLOCK_R, BLOCK_C)


def _split_tf32(x: torch.Tensor, transpose: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """(big, small) of ``x`` (or of xᵀ, contiguous), with big + small = x to about 2⁻²² relative."""
    R, C = x.shape
    shape = (C, R) if transpose else (R, C)
    big, small = torch.empty(shape, device=x.device), torch.empty(shape, device=x.device)
    block = 64
    grid = (triton.cdiv(R, block), triton.cdiv(C, block))
    _split_tf32_kernel[grid](x, big, small, R, C, x.stride(0), x.stride(1), TRANSPOSE=transpose,
                             BLOCK_R=block, BLOCK_C=block, num_warps=4)
    return big, small


def _persistent_configs():
    def config(bm, bn, bk, warps, stages, subtile):
        return triton.Config(
            {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "EPILOGUE_SUBTILE": subtile},
            num_warps=warps,
            num_stages=stages,
            pre_hook=_set_descriptor_blocks,
        )

    # fp32 tiles are twice the bytes of the fp16 tutorial's: 128×128×32 is 32 KiB a stage, so
    # 3–4 stages fit Hopper's 227 KiB of shared memory next to the epilogue buffer. tf32x3 loads
    # four tiles a stage (big and small of each operand): its own configs take K steps of 16.
    # bf16/fp16 take the K steps of 64 that fit the same bytes.
    full = [
        config(128, 128, 32, 8, 4, False),
        config(128, 128, 32, 8, 3, True),
        config(128, 256, 32, 8, 3, True),
        config(128, 256, 32, 8, 4, True),
        config(128, 256, 16, 8, 4, True),
        config(256, 128, 32, 8, 3, True),
        config(128, 128, 64, 8, 3, True),
        config(128, 64, 32, 4, 4, False),
        config(128, 128, 16, 8, 4, True),
        config(128, 128, 16, 8, 5, True),
        config(128, 256, 16, 8, 3, True),
        config(128, 128, 32, 8, 2, True),
        config(128, 256, 64, 8, 3, True),
        config(256, 128, 64, 8, 3, True),
        config(128, 128, 64, 8, 4, True),
    ]
    return pick_configs(full, [config(128, 128, 32, 4, 1, True)])


SHARED_BYTES = 227 * 1024  # Hopper's shared memory a block may use


def _shared_bytes(config, tiles_per_operand: int, element_bytes: int) -> int:
    bm, bn, bk = (config.kwargs[k] for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
    epilogue = bm * bn * element_bytes // (2 if config.kwargs["EPILOGUE_SUBTILE"] else 1)
    return config.num_stages * tiles_per_operand * (bm + bn) * bk * element_bytes + epilogue


def _prune_persistent(configs, named_args, **kwargs):
    """Configs whose stages fit in shared memory. tf32x3 stages hold two tiles of each operand (split
    beforehand; split in the load, the B parts' copies for the dot take that room), and it keeps a
    second accumulator (a K step's sum): tiles above 128 × 128 would spill registers."""
    precision = kwargs["PRECISION"]
    element_bytes = input_dtype(precision).itemsize
    if precision != "tf32x3":
        return [c for c in configs if _shared_bytes(c, 1, element_bytes) <= SHARED_BYTES] or configs[:1]
    kept = [c for c in configs if _shared_bytes(c, 2, element_bytes) <= SHARED_BYTES
            and c.kwargs["BLOCK_M"] * c.kwargs["BLOCK_N"] <= 128 * 128]
    return kept or configs[:1]


def _set_descriptor_blocks(nargs):
    bm, bn, bk = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["BLOCK_K"]
    for name in ("a_desc", "a_small_desc"):
        nargs[name].block_shape = [bm, bk]
    for name in ("b_desc", "b_small_desc"):
        nargs[name].block_shape = [bn, bk] if nargs["B_TRANSPOSED"] else [bk, bn]
    nargs["c_desc"].block_shape = [bm, bn // 2] if nargs["EPILOGUE_SUBTILE"] else [bm, bn]


@triton.autotune(
    configs=_persistent_configs(),
    key=["M", "N", "K", "PRECISION", "SPLIT_IN_LOAD"],
    prune_configs_by={"early_config_prune": _prune_persistent},
)
@triton.jit
def _matmul_persistent_kernel(
    a_desc,  # descriptor of a: M × K, block BLOCK_M × BLOCK_K (tf32x3 split beforehand: of a's big part)
    b_desc,  # B_TRANSPOSED: of bᵀ, N × K, block BLOCK_N × BLOCK_K (tf32x3 split beforehand: of its big
    # part); otherwise of b, K × N, block BLOCK_K × BLOCK_N
    a_small_desc,  # tf32x3 split beforehand: a's small part, like a_desc (otherwise a_desc again, unread)
    b_small_desc,  # tf32x3 split beforehand: bᵀ's small part, like b_desc (otherwise b_desc again, unread)
    c_desc,  # descriptor of c: M × N, block BLOCK_M × BLOCK_N (or half of BLOCK_N)
    M,
    N,
    K,
    NUM_SMS: tl.constexpr,
    PRECISION: tl.constexpr,
    DOT_PRECISION: tl.constexpr,
    B_TRANSPOSED: tl.constexpr,
    SPLIT_IN_LOAD: tl.constexpr,  # tf32x3: split the loaded fp32 tiles in registers (one launch)
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    EPILOGUE_SUBTILE: tl.constexpr,
):
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    # flatten=True merges the tile and K loops into one software-pipelined loop, so the next
    # tile's first TMA loads are in flight during this tile's epilogue.
    for tile in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS, flatten=True):
        pid_m, pid_n = grouped_tile(tile, num_pid_m, num_pid_n, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(k_tiles):
            # Out-of-bounds boxes arrive zero-filled, so ragged K, M and N need no masks.
            a = a_desc.load([off_m, k * BLOCK_K])
            if B_TRANSPOSED:
                b = b_desc.load([off_n, k * BLOCK_K]).T
            else:
                b = b_desc.load([k * BLOCK_K, off_n])
            if PRECISION == "tf32x3":
                if SPLIT_IN_LOAD:
                    a, a_small = split_tf32_parts(a)
                    b, b_small = split_tf32_parts(b)
                else:
                    a_small = a_small_desc.load([off_m, k * BLOCK_K])
                    b_small = b_small_desc.load([off_n, k * BLOCK_K]).T
                # The tensor cores add into their accumulator truncating, so a K step's three
                # products are summed from zero and then added to acc in one rounded fp32 add
                # (as Triton's own tf32x3 does): fed straight into acc, 3·K/8 truncations at
                # acc's magnitude cost 7e-6 relative error at K = 1024 (1024³ on an H200), 12× eager's.
                step = tl.dot(a_small, b, input_precision="tf32")
                step = tl.dot(a, b_small, step, input_precision="tf32")
                acc += tl.dot(a, b, step, input_precision="tf32")
            else:
                acc = tl.dot(a, b, acc, input_precision=DOT_PRECISION)
        out = acc.to(c_desc.dtype)
        if EPILOGUE_SUBTILE:
            # Two half-width stores halve the epilogue's shared buffer, leaving room for a stage.
            halves = tl.permute(tl.reshape(out, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1))
            left, right = tl.split(halves)
            c_desc.store([off_m, off_n], left)
            c_desc.store([off_m, off_n + BLOCK_N // 2], right)
        else:
            c_desc.store([off_m, off_n], out)


def _descriptor(t: torch.Tensor) -> TensorDescriptor:
    # The block shape is a placeholder: each config's pre-hook sets its own.
    return TensorDescriptor(t, list(t.shape), list(t.stride()), [1, 1])


def _persistent_operands(a, b, precision: str, split_in_load: bool) -> tuple[torch.Tensor, ...]:
    """(a, b, a's small part, b's small part) as the persistent kernel reads them, and whether b is bᵀ.

    tf32 and tf32x3 split beforehand read bᵀ (K-major for the tf32 wgmma); tf32x3 split beforehand
    reads the four parts; split in the load, and at 16 bits, the operands are read as they are.
    """
    if precision == "tf32x3" and not split_in_load:
        (a_big, a_small), (bt_big, bt_small) = _split_tf32(a, transpose=False), _split_tf32(b, transpose=True)
        return (a_big, bt_big, a_small, bt_small), True
    if precision == "tf32":
        bt = b.t().contiguous()
        return (a, bt, a, bt), True
    return (a, b, a, b), False


def _matmul(a, b, precision: str, split_in_load: bool):
    SPEC.validate(a, b)
    M, K = a.shape
    N = b.shape[1]
    c = empty_output((M, N), like=a)
    if c.numel() == 0:
        return c
    if K == 0:
        return c.zero_()
    # K % 4: the transposed b's rows must be 16-byte aligned too.
    if precision != "ieee" and tma_ready(a, b, c) and K % 4 == 0:
        operands, b_transposed = _persistent_operands(a, b, precision, split_in_load)
        sms = num_sms(a.device)
        grid = lambda meta: (min(sms, triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"])),)
        _matmul_persistent_kernel[grid](
            *(_descriptor(t) for t in (*operands, c)), M, N, K, NUM_SMS=sms, PRECISION=precision,
            DOT_PRECISION=DOT_PRECISION.get(precision, precision), B_TRANSPOSED=b_transposed,
            SPLIT_IN_LOAD=split_in_load,
        )
    else:
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
        _TILE_KERNELS[precision][grid](
            a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
            DOT_PRECISION=DOT_PRECISION.get(precision, precision),
        )
    return c


@implementation("matmul", family="triton", precisions=("tf32",), available=triton_tf32_available)
@implementation("matmul", family="triton", precisions=("ieee", "tf32x3", "bf16", "fp16"), available=triton_available)
def matmul(a, b, precision):
    return _matmul(a, b, precision, split_in_load=False)


@implementation("matmul", family="triton", strategy="onelaunch", precisions=("tf32x3",), available=triton_available)
def matmul_onelaunch(a, b):
    return _matmul(a, b, "tf32x3", split_in_load=True)
