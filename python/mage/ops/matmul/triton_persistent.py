"""``triton.persistent``: the tf32 and tf32x3 products in at most two launches, built like the Hopper
GEMMs of CUTLASS and Triton's persistent-matmul tutorial.

- **Persistent grid**: one program per SM walks the output tiles in GROUP_M-grouped order, so the
  programs in flight at one time share GROUP_M row-blocks of A and a few column-blocks of B, which
  stay in L2 (each A block is then read from DRAM about once per group sweep, not once per tile).
  The tile loop and the K loop are flattened into one software pipeline, so the next tile's first
  TMA loads are in flight during this tile's epilogue, and no wave is left part-full.
- **TMA**: the descriptors are made on the device (``tl.make_tensor_descriptor``; their 128-byte
  records live in a workspace Triton asks ``triton.set_allocator`` for). TMA brings the K slabs into
  swizzled shared memory over ``num_stages`` buffers, the wgmma reads them there with no register
  copy, and the result leaves by TMA store in 1, 2 or 4 column slices (fewer slices, fewer stores;
  more slices, a smaller epilogue buffer and one more K stage in the same 227 KiB).
- **Tiles**: a tf32 wgmma reads both operands K-major, so b is read as bᵀ (N × K). 128 × 256 and
  256 × 128 tiles on 8 warps (two consumer warpgroups, each 64 or 128 rows of the tile) reuse each A
  slab across 256 columns and each B slab across 128 rows: 1/128 + 1/256 of a load per
  multiply-add, against 1/64 for 128 × 128.
- **No warp specialization**: Triton 3.6 runs a Hopper warp-specialization pass
  (``add_hopper_warpspec`` in backends/nvidia/compiler.py) and ``tl.range`` takes
  ``warp_specialize=True``, documented for Blackwell only. Compiled for sm_90 (tests/sm90_compile.py's
  way), this kernel marked so on its tile loop gives the same PTX as unmarked, and on its K loop
  (unflattened) only keeps the attribute: no partitions, no setmaxnreg. So there is no producer warp
  here; the TMA loads are issued by the consumer warps ahead of the wgmmas, ``num_stages`` deep.

tf32 takes two launches: bᵀ made contiguous (cuBLAS's tf32 path takes two as well), then the product.

tf32x3 takes two launches too: ``_split_operands_kernel`` splits a and b into big = tf32(x) and
small = tf32(x − big) in one launch (b's parts written as bᵀ, the transpose the wgmma needs anyway),
and the product runs three dots a K step: small·big + big·small, then big·big. The small·small term is
left out: |small_a · small_b| ≤ 2⁻²² |a · b|, so each product a_k·b_k errs by at most 2⁻²² of itself,
the order of fp32's own rounding of a sum (2⁻²⁴ an addition, growing with K): IEEE class (the ieee
ceiling is 1e-5). Two fp32 accumulators:
the three products of a K step are summed from zero in one (the tensor cores add into an accumulator
truncating: at the running sum's magnitude, over 3·K/8 additions, that was 12× eager's error at K 1024,
results/README.md) and added to the running sum in the other with one round-to-nearest fp32 add. tf32x3
tiles therefore stay at 128 × 128 or less: two 128 × 256 accumulators are 256 registers a thread.
Triton issues each dot of the step synchronously (three ``wgmma.wait_group 0`` a K step in the sm_90 PTX,
against one ``wait_group 1`` for tf32): the likeliest reason the 3-launch version's tensor pipe stayed
well below full (results/README.md), which ncu of this kernel is to confirm. A
third accumulator carrying the small terms across K (their truncation is 2⁻¹¹ smaller) would leave
one synchronous dot a step, but ptxas then serializes every wgmma of the loop (its C7514/C7515
warnings, sm_90), so that design is not registered.
"""

import torch
import triton
import triton.language as tl

from mage.backends.triton import (grouped_tile, num_sms, pick_configs, tma_ready, triton_available, triton_tf32_available,
                                  use_descriptor_workspace)
from mage.ops.matmul import triton as tile_path
from mage.ops.matmul.spec import SPEC
from mage.outputs import empty_output
from mage.registry import implementation

SPLIT_BLOCK = 64  # the split kernel's square blocks (the transposed store goes through shared memory)


@triton.jit
def _split_operands_kernel(
    a_ptr,  # M × K, strides (stride_am, stride_ak)
    b_ptr,  # K × N, strides (stride_bk, stride_bn)
    a_big_ptr,  # M × K contiguous
    a_small_ptr,  # M × K contiguous
    bt_big_ptr,  # N × K contiguous: bᵀ's big part
    bt_small_ptr,  # N × K contiguous
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    BLOCK: tl.constexpr,
):
    """Both operands in one launch: programs below a's block count split a, the rest b."""
    pid = tl.program_id(0)
    k_blocks = tl.cdiv(K, BLOCK)
    a_blocks = tl.cdiv(M, BLOCK) * k_blocks
    if pid < a_blocks:
        tile_path.split_tf32_block(a_ptr, a_big_ptr, a_small_ptr, M, K, stride_am, stride_ak, pid // k_blocks,
                                   pid % k_blocks, False, BLOCK, BLOCK)
    else:
        n_blocks = tl.cdiv(N, BLOCK)
        block = pid - a_blocks
        tile_path.split_tf32_block(b_ptr, bt_big_ptr, bt_small_ptr, K, N, stride_bk, stride_bn, block // n_blocks,
                                   block % n_blocks, True, BLOCK, BLOCK)


def split_operands(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """(a's big part, a's small part, bᵀ's big part, bᵀ's small part), contiguous, in one launch."""
    M, K = a.shape
    N = b.shape[1]
    a_big, a_small = torch.empty((M, K), device=a.device), torch.empty((M, K), device=a.device)
    bt_big, bt_small = torch.empty((N, K), device=a.device), torch.empty((N, K), device=a.device)
    blocks = triton.cdiv(K, SPLIT_BLOCK) * (triton.cdiv(M, SPLIT_BLOCK) + triton.cdiv(N, SPLIT_BLOCK))
    _split_operands_kernel[(blocks,)](a, b, a_big, a_small, bt_big, bt_small, M, N, K, a.stride(0), a.stride(1),
                                      b.stride(0), b.stride(1), BLOCK=SPLIT_BLOCK, num_warps=4)
    return a_big, a_small, bt_big, bt_small


# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages, EPILOGUE_SLICES), per precision; every one fits
# in shared memory (tests/test_matmul_persistent.py checks it with shared_bytes).
TMA_SHAPES = {
    # The old tf32 kernel's pick at 8192³ was 256 × 128 × 32 over 3 stages in 2 slices; 4 slices free a 4th stage.
    "tf32": [(128, 256, 32, 8, 4, 4), (256, 128, 32, 8, 4, 4), (128, 256, 32, 8, 3, 2), (256, 128, 32, 8, 3, 2),
             (128, 256, 16, 8, 5, 2), (128, 128, 32, 8, 5, 2)],
    # Four tiles a stage (both parts of both operands). 128 × 128 × 32 over 3 stages was the 3-launch
    # kernel's pick at 8192³; K steps of 16 buy deeper pipelines; the 4-warp 128 × 64 and 64 × 128
    # tiles take about 100 KiB, so two programs share an SM and one's per-step wait can hide behind
    # the other's dots.
    "tf32x3": [(128, 128, 32, 8, 3, 2), (128, 128, 32, 8, 3, 4), (128, 128, 16, 8, 5, 2), (128, 128, 16, 8, 6, 4),
               (128, 64, 16, 4, 3, 1), (64, 128, 16, 4, 3, 1)],
}
TILES_PER_OPERAND = {"tf32": 1, "tf32x3": 2}


def shared_bytes(shape, precision: str) -> int:
    """Shared memory a config takes: its K stages of operand tiles and one epilogue slice (fp32)."""
    bm, bn, bk, _, stages, slices = shape
    return 4 * (stages * TILES_PER_OPERAND[precision] * (bm + bn) * bk + bm * bn // slices)


def _tma_configs(precision: str):
    def config(bm, bn, bk, warps, stages, slices):
        return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "EPILOGUE_SLICES": slices},
                             num_warps=warps, num_stages=stages)

    return pick_configs([config(*shape) for shape in TMA_SHAPES[precision]], [config(64, 64, 32, 4, 1, 2)])


@triton.jit
def _halves(x):
    """x's left and right column halves."""
    rows: tl.constexpr = x.shape[0]
    cols: tl.constexpr = x.shape[1]
    return tl.split(tl.permute(tl.reshape(x, (rows, 2, cols // 2)), (0, 2, 1)))


@triton.jit
def store_tile(c_desc, acc, off_m, off_n, EPILOGUE_SLICES: tl.constexpr):
    """acc (a BLOCK_M × BLOCK_N tile of c at (off_m, off_n)) stored by TMA in EPILOGUE_SLICES column slices."""
    BLOCK_N: tl.constexpr = acc.shape[1]
    if EPILOGUE_SLICES == 1:
        c_desc.store([off_m, off_n], acc)
    elif EPILOGUE_SLICES == 2:
        left, right = _halves(acc)
        c_desc.store([off_m, off_n], left)
        c_desc.store([off_m, off_n + BLOCK_N // 2], right)
    else:
        left, right = _halves(acc)
        first, second = _halves(left)
        third, fourth = _halves(right)
        c_desc.store([off_m, off_n], first)
        c_desc.store([off_m, off_n + BLOCK_N // 4], second)
        c_desc.store([off_m, off_n + BLOCK_N // 2], third)
        c_desc.store([off_m, off_n + 3 * BLOCK_N // 4], fourth)


def _tma_kernel(precision: str):
    @triton.autotune(configs=_tma_configs(precision), key=["M", "N", "K"])
    @triton.jit
    def _matmul_tma_kernel(
        a_ptr,  # M × K, row stride stride_am (tf32x3: a's big part)
        bt_ptr,  # N × K, row stride stride_btn: bᵀ (tf32x3: its big part)
        a_small_ptr,  # tf32x3: a's small part, like a_ptr (tf32: a_ptr again, unread)
        bt_small_ptr,  # tf32x3: bᵀ's small part, like bt_ptr (tf32: bt_ptr again, unread)
        c_ptr,  # M × N contiguous
        M,
        N,
        K,
        stride_am,
        stride_btn,
        NUM_SMS: tl.constexpr,
        TF32X3: tl.constexpr,
        BLOCK_M: tl.constexpr,
        BLOCK_N: tl.constexpr,
        BLOCK_K: tl.constexpr,
        GROUP_M: tl.constexpr,
        EPILOGUE_SLICES: tl.constexpr,
    ):
        # Out-of-bounds boxes arrive zero-filled and out-of-bounds stores are dropped: ragged M, N
        # and K need no masks.
        a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BLOCK_M, BLOCK_K])
        b_desc = tl.make_tensor_descriptor(bt_ptr, [N, K], [stride_btn, 1], [BLOCK_N, BLOCK_K])
        a_small_desc = tl.make_tensor_descriptor(a_small_ptr, [M, K], [stride_am, 1], [BLOCK_M, BLOCK_K])
        b_small_desc = tl.make_tensor_descriptor(bt_small_ptr, [N, K], [stride_btn, 1], [BLOCK_N, BLOCK_K])
        c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BLOCK_M, BLOCK_N // EPILOGUE_SLICES])
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        k_tiles = tl.cdiv(K, BLOCK_K)
        for tile in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS, flatten=True):
            pid_m, pid_n = grouped_tile(tile, num_pid_m, num_pid_n, GROUP_M)
            off_m = pid_m * BLOCK_M
            off_n = pid_n * BLOCK_N
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for k in range(k_tiles):
                off_k = k * BLOCK_K
                a = a_desc.load([off_m, off_k])
                b = b_desc.load([off_n, off_k]).T
                if TF32X3:
                    # Small terms first, big·big last: each joins the step's sum at its own magnitude.
                    step = tl.dot(a_small_desc.load([off_m, off_k]), b, input_precision="tf32")
                    step = tl.dot(a, b_small_desc.load([off_n, off_k]).T, step, input_precision="tf32")
                    acc += tl.dot(a, b, step, input_precision="tf32")
                else:
                    acc = tl.dot(a, b, acc, input_precision="tf32")
            store_tile(c_desc, acc, off_m, off_n, EPILOGUE_SLICES)

    return _matmul_tma_kernel


# One autotuned kernel object per precision, each with its own tuning cache and config list.
TMA_KERNELS = {p: _tma_kernel(p) for p in TMA_SHAPES}


def descriptors_reach(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether TMA can address a, bᵀ and c: 16-byte aligned rows (K and N multiples of 4) on Hopper."""
    M, K = a.shape
    N = b.shape[1]
    return M > 0 and N > 0 and K % 4 == 0 and N % 4 == 0 and tma_ready(a, b)


def _matmul(a, b, precision: str):
    SPEC.validate(a, b)
    if not descriptors_reach(a, b):
        # Empty, K = 0, unaligned rows, or no TMA: the tile kernel's path, which handles all of them.
        return tile_path.matmul(a, b, precision=precision)
    M, K = a.shape
    N = b.shape[1]
    if precision == "tf32x3":
        a_big, a_small, bt_big, bt_small = split_operands(a, b)
    else:
        a_big = a_small = a
        bt_big = bt_small = b.t().contiguous()
    c = empty_output((M, N), like=a)
    sms = num_sms(a.device)
    grid = lambda meta: (min(sms, triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"])),)
    use_descriptor_workspace(a.device)
    TMA_KERNELS[precision][grid](a_big, bt_big, a_small, bt_small, c, M, N, K, a_big.stride(0), bt_big.stride(0),
                                 NUM_SMS=sms, TF32X3=precision == "tf32x3")
    return c


@implementation("matmul", family="triton", strategy="persistent", precisions=("tf32",), available=triton_tf32_available)
@implementation("matmul", family="triton", strategy="persistent", precisions=("tf32x3",), available=triton_available)
def matmul_persistent(a, b, precision):
    return _matmul(a, b, precision)
