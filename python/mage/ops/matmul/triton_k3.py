"""``triton.k3`` and ``triton.k3map``: tf32x3 as one plain tf32 GEMM over an inner dimension K' = 3K, in two
launches (split, then the product), so the product issues one wgmma chain a K step, never three dots with a full
wait after each (``triton.persistent``'s tf32x3, whose tensor pipe stayed at 69.6 %, results/README.md).

Launch 1, ``_split_k3_kernel``, splits a and b into big = tf32(x) and small = tf32(x − big) and writes operands
A' and B'ᵀ (both K'-contiguous: b's parts are written transposed, N × K', since a new array is written anyway, so
the tf32 wgmma reads both from shared memory K-major and no launch transposes b). K is cut into chunks of
``CHUNK`` columns (zero-padded to Kp, a multiple of CHUNK) and each chunk becomes three segments of K', the pairs

    segment 0: a_big · b_small     segment 1: a_small · b_big     segment 2: a_big · b_big

so Σ over K' is exactly big·big + big·small + small·big (small·small, ≤ 2⁻²² of each product, is left out, as in
every tf32x3 here). ``triton.k3`` stores the three segments (A' = [big | small | big], B'ᵀ = [small | big | big]
a chunk: 3·Kp columns each); ``triton.k3map`` stores two ([big | small] a chunk: 2·Kp columns) and maps each K'
step's TMA coordinate to the segment it reads, so the big parts are read twice without being written twice
(a quarter less split traffic at 8192³: 1.6 GB written and read against 2.1 GB).

Why chunks, and small terms first in each (not three K-long blocks, not one K' loop into one accumulator): the
tensor cores add each k=8 group into their fp32 accumulator truncating, so every group costs up to an ulp of
the running sum, biased toward zero. A model of that accumulator (scripts/tf32_accumulation_model.py: exact
products, truncation after each group) reproduces the stored errors of the 3-launch tf32x3 (3.3e-7 at K 8192,
5.8e-7 at K 32768; measured 3.2e-7 and 5.9e-7), and puts one K' loop into one accumulator at 2.5e-5 (K 8192) and
9.9e-5 (K 32768) with the segments concatenated, small terms first, and 3× worse interleaved every 32 columns:
above the ieee ceiling (1e-5) and 30-60× cuBLAS ieee's error (8.2e-7 and 1.6e-6 measured). So
the product restarts its wgmma accumulator every chunk (3·CHUNK of K') and adds it to a second, register
accumulator with one round-to-nearest fp32 add; inside a chunk the two small segments come first, truncated at
their own (2¹¹ times smaller) magnitude, and only big·big's CHUNK/8 groups at the chunk sum's. The model gives
4.4e-7 (K 8192) and 5.0e-7 (K 32768) at CHUNK 128. The error grows with the chunk (each flush's big·big run
is truncated CHUNK/8 times at a magnitude growing with it), and no reordering helps: the flush count is set by
the big·big run, 384 columns of K' whatever the small segments do. ``triton.k3chunk256`` and ``k3chunk512`` flush
every 256 and 512 columns (one drain a 768 or 1,536 of K', 2× and 4× fewer): modelled 8.0e-7 and 1.6e-6 at K 8192
(cuBLAS ieee 8.2e-7: 256 only level with it, 512 twice it), 8.2e-7 and 1.6e-6 at K 32768 (cuBLAS 1.6e-6). So 128
stays the default, the only length under cuBLAS ieee with margin at both; the long chunks measure what a flush
costs (run ``scripts/tf32_accumulation_model.py``'s ``product`` at chunk 256 and 512 for these numbers).
The chunk's drain (one wait on the last wgmma, a 64-register add) should cost about 5 % at 128 × 128 tiles with
K steps of 32 (12 steps a chunk; an estimate, for ncu to check); the flattened loop keeps the next chunk's TMA
loads in flight across it (tests/test_matmul_k3.py checks the sm_90 code: one async wgmma a K step, the full
wait only at a chunk's end).

The product (``_matmul_k3_kernel``) is ``triton.persistent``'s TMA GEMM otherwise: one program per SM (or two,
for the 4-warp tiles that leave room in shared memory) walking GROUP_M-grouped tiles, TMA loads over num_stages
buffers, TMA stores in column slices. Two 128 × 128 fp32 accumulators on 8 warps are 128 registers a thread;
wider tiles would need 256 and spill, so 128 × 128 is the widest.
"""

import torch
import triton
import triton.language as tl

from mage.backends.triton import grouped_tile, num_sms, pick_configs, triton_available, use_descriptor_workspace
from mage.ops.matmul import triton as tile_path
from mage.ops.matmul.spec import SPEC
from mage.ops.matmul.triton_persistent import descriptors_reach, store_tile
from mage.outputs import empty_output
from mage.registry import implementation

CHUNK = 128  # columns of K a chunk (triton.k3, k3map): three segments of K' between two round-to-nearest adds
SPLIT_BLOCK = 64  # the split kernel's square blocks (every chunk a multiple: blocks never straddle a chunk)
# Which segments of a chunk hold the small part, a bit per segment: A' = [big | small | big], B'ᵀ = [small | big |
# big] when three are stored; [big | small] for both when two are (the product maps the third).
SMALL_SEGMENTS = {3: (0b010, 0b001), 2: (0b10, 0b10)}


@triton.jit
def _split_k3_block(x_ptr, out_ptr, rows, K, stride_row, stride_k, block_row, block_k, SEGMENTS: tl.constexpr,
                    SMALL: tl.constexpr, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    """Block (block_row, block_k) of x (rows × K, strides (stride_row, stride_k)) split and written to out (rows ×
    SEGMENTS·Kp, contiguous): column k of chunk q = k // CHUNK goes to SEGMENTS·CHUNK·q + s·CHUNK + k % CHUNK for
    each segment s, the small part where bit s of SMALL is set, the big part elsewhere. The pad (k ≥ K) is zeros."""
    offs_r = block_row * BLOCK + tl.arange(0, BLOCK)
    offs_k = block_k * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs_r[:, None].to(tl.int64) * stride_row + offs_k[None, :] * stride_k,
                mask=(offs_r[:, None] < rows) & (offs_k[None, :] < K), other=0.0)
    big, small = tile_path.split_tf32_parts(x)
    width = SEGMENTS * tl.cdiv(K, CHUNK) * CHUNK
    columns = offs_k // CHUNK * (SEGMENTS * CHUNK) + offs_k % CHUNK  # in segment 0 of each column's chunk
    first = out_ptr + offs_r[:, None].to(tl.int64) * width + columns[None, :]
    for s in tl.static_range(SEGMENTS):
        if (SMALL >> s) & 1:
            tl.store(first + s * CHUNK, small, mask=offs_r[:, None] < rows)
        else:
            tl.store(first + s * CHUNK, big, mask=offs_r[:, None] < rows)


@triton.jit
def _split_k3_kernel(
    a_ptr,  # M × K, strides (stride_am, stride_ak)
    b_ptr,  # K × N, strides (stride_bk, stride_bn)
    a3_ptr,  # M × SEGMENTS·Kp contiguous: A'
    bt3_ptr,  # N × SEGMENTS·Kp contiguous: B'ᵀ
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    SEGMENTS: tl.constexpr,
    A_SMALL: tl.constexpr,
    B_SMALL: tl.constexpr,
    CHUNK: tl.constexpr,
    BLOCK: tl.constexpr,
):
    """Both operands in one launch: programs below a's block count split a's rows, the rest b's columns."""
    pid = tl.program_id(0)
    k_blocks = tl.cdiv(K, CHUNK) * (CHUNK // BLOCK)
    a_blocks = tl.cdiv(M, BLOCK) * k_blocks
    if pid < a_blocks:
        _split_k3_block(a_ptr, a3_ptr, M, K, stride_am, stride_ak, pid // k_blocks, pid % k_blocks, SEGMENTS, A_SMALL,
                        CHUNK, BLOCK)
    else:
        block = pid - a_blocks
        _split_k3_block(b_ptr, bt3_ptr, N, K, stride_bn, stride_bk, block // k_blocks, block % k_blocks, SEGMENTS,
                        B_SMALL, CHUNK, BLOCK)


def split_k3(a: torch.Tensor, b: torch.Tensor, segments: int, chunk: int = CHUNK) -> tuple[torch.Tensor, torch.Tensor]:
    """(A', B'ᵀ): M × segments·Kp and N × segments·Kp, contiguous, in one launch (segments 3 or 2; Kp: K rounded
    up to chunk)."""
    M, K = a.shape
    N = b.shape[1]
    width = segments * triton.cdiv(K, chunk) * chunk
    a3, bt3 = torch.empty((M, width), device=a.device), torch.empty((N, width), device=a.device)
    k_blocks = triton.cdiv(K, chunk) * (chunk // SPLIT_BLOCK)
    a_small, b_small = SMALL_SEGMENTS[segments]
    grid = (k_blocks * (triton.cdiv(M, SPLIT_BLOCK) + triton.cdiv(N, SPLIT_BLOCK)),)
    _split_k3_kernel[grid](a, b, a3, bt3, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                           SEGMENTS=segments, A_SMALL=a_small, B_SMALL=b_small, CHUNK=chunk, BLOCK=SPLIT_BLOCK,
                           num_warps=4)
    return a3, bt3


# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages, EPILOGUE_SLICES, PROGRAMS_PER_SM). 128 × 128 on two consumer
# warpgroups: 1/64 of a load a multiply-add, 4 or 5 stages of K steps of 32, or 3 of 64 (fewer, longer wgmma
# chains, 6 a chunk). 128 × 64 and 64 × 128 on 4 warps take 104 KiB, so two programs share an SM and one's chunk
# drain hides behind the other's wgmmas.
K3_SHAPES = [(128, 128, 32, 8, 4, 2, 1), (128, 128, 32, 8, 5, 2, 1), (128, 128, 64, 8, 3, 4, 1),
             (128, 64, 32, 4, 3, 1, 2), (64, 128, 32, 4, 3, 1, 2)]


def shared_bytes(shape) -> int:
    """Shared memory a config takes: its K stages of both operand tiles and one epilogue slice (fp32)."""
    bm, bn, bk, _, stages, slices, _ = shape
    return 4 * (stages * (bm + bn) * bk + bm * bn // slices)


def _k3_configs():
    def config(bm, bn, bk, warps, stages, slices, programs):
        return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "EPILOGUE_SLICES": slices,
                              "PROGRAMS_PER_SM": programs}, num_warps=warps, num_stages=stages)

    return pick_configs([config(*shape) for shape in K3_SHAPES], [config(64, 64, 32, 4, 1, 2, 1)])


@triton.autotune(configs=_k3_configs(), key=["M", "N", "K_PADDED", "MAPPED", "CHUNK"])
@triton.jit
def _matmul_k3_kernel(
    a3_ptr,  # A': M × SEGMENTS·K_PADDED contiguous (MAPPED: 2 segments a chunk, else 3)
    bt3_ptr,  # B'ᵀ: N × SEGMENTS·K_PADDED contiguous
    c_ptr,  # M × N contiguous
    M,
    N,
    K_PADDED,  # K rounded up to CHUNK
    MAPPED: tl.constexpr,  # two segments stored: segment 2 (big · big) reads segment 0 of A' and 1 of B'ᵀ again
    CHUNK: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    EPILOGUE_SLICES: tl.constexpr,
    PROGRAMS_PER_SM: tl.constexpr,
):
    STORED: tl.constexpr = 2 if MAPPED else 3
    width = STORED * K_PADDED
    # Out-of-bounds rows arrive zero-filled and out-of-bounds stores are dropped; K' needs no mask (padded).
    a_desc = tl.make_tensor_descriptor(a3_ptr, [M, width], [width, 1], [BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(bt3_ptr, [N, width], [width, 1], [BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BLOCK_M, BLOCK_N // EPILOGUE_SLICES])
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    chunks = K_PADDED // CHUNK
    steps: tl.constexpr = CHUNK // BLOCK_K  # K steps a segment
    my_tiles = tl.cdiv(num_pid_m * num_pid_n - pid, programs)
    total = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    # One work item a (tile, chunk), a program's chunks of one tile consecutive; flattened with the K steps into
    # one software pipeline, so the next chunk's (and tile's) first loads are in flight during this one's drain.
    for work in tl.range(0, my_tiles * chunks, flatten=True):
        tile = pid + (work // chunks) * programs
        chunk = work % chunks
        pid_m, pid_n = grouped_tile(tile, num_pid_m, num_pid_n, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        first = chunk * (STORED * CHUNK)
        part = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for step in range(3 * steps):
            segment = step // steps
            within = (step % steps) * BLOCK_K
            if MAPPED:  # segments 0, 1, 2 read A' at big, small, big and B'ᵀ at small, big, big
                a_k = first + (segment == 1).to(tl.int32) * CHUNK + within
                b_k = first + (segment == 0).to(tl.int32) * CHUNK + within
            else:
                a_k = first + segment * CHUNK + within
                b_k = a_k
            part = tl.dot(a_desc.load([off_m, a_k]), b_desc.load([off_n, b_k]).T, part, input_precision="tf32")
        # Round-to-nearest here, where the tensor cores would have truncated at the running sum's magnitude.
        total = tl.where(chunk == 0, part, total + part)
        if chunk == chunks - 1:
            store_tile(c_desc, total, off_m, off_n, EPILOGUE_SLICES)


def _matmul(a, b, mapped: bool, chunk: int = CHUNK):
    SPEC.validate(a, b)
    if not descriptors_reach(a, b):
        # Empty, K = 0, unaligned rows, or no TMA: the tile kernel's path, which handles all of them.
        return tile_path.matmul(a, b, precision="tf32x3")
    M, K = a.shape
    N = b.shape[1]
    a3, bt3 = split_k3(a, b, 2 if mapped else 3, chunk)
    c = empty_output((M, N), like=a)
    sms = num_sms(a.device)
    tiles = lambda meta: triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"])
    grid = lambda meta: (min(sms * meta["PROGRAMS_PER_SM"], tiles(meta)),)
    use_descriptor_workspace(a.device)
    _matmul_k3_kernel[grid](a3, bt3, c, M, N, triton.cdiv(K, chunk) * chunk, MAPPED=mapped, CHUNK=chunk)
    return c


@implementation("matmul", family="triton", strategy="k3", precisions=("tf32x3",), available=triton_available)
def matmul_k3(a, b):
    return _matmul(a, b, mapped=False)


@implementation("matmul", family="triton", strategy="k3map", precisions=("tf32x3",), available=triton_available)
def matmul_k3map(a, b):
    return _matmul(a, b, mapped=True)


# triton.k3 flushing every 256 or 512 columns of K, for the H200 to weigh the flushes saved against the error.
@implementation("matmul", family="triton", strategy="k3chunk256", precisions=("tf32x3",), available=triton_available)
def matmul_k3_chunk256(a, b):
    return _matmul(a, b, mapped=False, chunk=256)


@implementation("matmul", family="triton", strategy="k3chunk512", precisions=("tf32x3",), available=triton_available)
def matmul_k3_chunk512(a, b):
    return _matmul(a, b, mapped=False, chunk=512)
