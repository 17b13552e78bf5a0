"""``triton.swap``: the tf32 product in one launch, computed as cᵀ = bᵀ · aᵀ from row-major a and b.

A tf32 wgmma reads an operand from shared memory only K-major, and b (K × N, N contiguous) is N-major: so
``triton.persistent`` transposes b in a first launch (462 µs of its 3,599 at 8192³, results/README.md), and
fed b as it is Triton copies every B tile through registers into a second, transposed shared buffer and waits
for each wgmma. The wgmma's A operand may instead come from registers, in any layout. Swapping the product's
roles puts b there: the wgmma's M is N, its A operand is b's tile (BLOCK_K × BLOCK_N, read as
bᵀ's BLOCK_N × BLOCK_K), and its B operand is a's tile (BLOCK_M × BLOCK_K, K contiguous: K-major as
aᵀ's B operand, read by the wgmma from shared memory as it is). The accumulator is cᵀ's tile, transposed in
the epilogue (a layout conversion through shared memory on the way to the TMA store).

What Triton 3.6 makes of it, compiled for sm_90 (tests/test_matmul_k3.py checks the kernel as registered: the
register operand, several wgmmas in flight, no C7515):

- The lhs a transposed tile straight from its TMA buffer: Triton copies it through registers into a second,
  transposed shared buffer and waits for every wgmma (``wait_group 0``), the detour of b read as it is.
- The lhs a register value (here b's tile rounded to TF32 in registers, which also rounds b to nearest where the
  wgmma would truncate it): it becomes the wgmma's register operand (``dot_op`` layout, opIdx 0), the product
  issued in k = 8 pieces with up to four wgmmas in flight (``wait_group 3``).
- That, in a flattened tile loop (triton.persistent's ``flatten=True``), makes ptxas serialize every wgmma
  (warning C7515: the loop's accumulator reset sits inside the wgmma pipeline). So the tile loop is not
  flattened: the next tile's first loads wait for this tile's epilogue.

Tiles: cᵀ's tile is BLOCK_N × BLOCK_M, so its rows (wgmma M) are b's columns and its columns (wgmma N) a's rows.
BLOCK_M stays at 128: every wgmma is m64n128k8. The first GPU measurement (results/README.md) refused every
shape where the autotuner chose BLOCK_M 256 (m64n256k8: 2048³, 4096³, 8192³, errors 0.17, 0.17 and 0.023) and
passed every one where it chose 128 × 128 (1024³, ragged 1000 × 1036 × 1028, K 8192 and 32768: 4.7e-4, what a
truncated against a rounded-to-nearest tf32 operand gives). Not the tile loop: at 2048³ a 256 × 128 tile is 128
tiles for 132 programs, one tile each, and the interpreter gets every config right over several tiles a program.
The likely cause is the register operand's lifetime: each K step's wgmmas read b's fragment from registers and
the loop waits with ``wait_group 3``, so up to three are still reading it while the next step's fragment is
loaded and rounded, and a register they read may be rewritten first (triton-lang/triton#9433; the ptxas register
reuse fixed after CUDA 12.9, triton-lang/triton#11781: Triton 3.6 assembles sm_90 with its ptxas 12.8). A wgmma
twice as long (N 256) leaves that window open twice as long. N 128 is the size every measurement got right;
a GPU check of each config's error, the dropped ones too, would confirm or refute this.

It is not the whole story: with wgmma N 128, the 128 × 256 tile over three stages stored in two epilogue slices
was wrong on an H100 in 14 % of its elements, all in the second slice (the tile's columns 128-255), where the
same tile over four stages in four slices was right in every element (tests/test_matmul_k3_gpu.py checks each
config element by element). So was 128 × 128 with K steps of 64 over three stages in two slices, in 1,279
elements of 1024³, again in a tile's second slice. Whether the second slice's store reuses the first's shared
buffer too early, which fewer stages would make likelier, is not yet read from the SASS. Both configs are
dropped; the two-slice ones over four and five stages were right in every element.
"""

import triton
import triton.language as tl

from mage.backends.triton import grouped_tile, num_sms, pick_configs, triton_tf32_available, use_descriptor_workspace
from mage.ops.matmul import triton as tile_path
from mage.ops.matmul.spec import SPEC
from mage.ops.matmul.triton_persistent import descriptors_reach, store_tile
from mage.outputs import empty_output
from mage.registry import implementation

# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages, EPILOGUE_SLICES) on two consumer warpgroups, BLOCK_M 128
# (wgmma N 128: see the docstring). 128 × 256 reuses each a tile over 256 columns of b (two m64 wgmmas a warpgroup
# a k piece, 128 accumulator registers a thread); 128 × 128 over more stages, or K steps of 64 (half the loop's
# TMA waits).
SWAP_SHAPES = [(128, 256, 32, 8, 4, 4), (128, 128, 32, 8, 5, 2), (128, 128, 32, 8, 4, 2)]
# Configs found wrong on the GPU, kept so that a GPU check can show that they are what fails: the BLOCK_M 256 ones
# the H200 refused, and 128 × 256 over three stages in two epilogue slices, which an H100 got wrong in 14 % of the
# elements at 1024³ (error 0.13 at 2048³), every one in the second slice of a tile's columns (128-255), while the
# same tile in four slices over four stages was right in every element. The seed check had refused triton.swap
# at 0.0069 on heavy-tailed inputs, and the non-finite contract before it at 0.0040 (the autotuner's pick at
# 1024³ was not printed). Then 128 × 128 with K steps of 64 over three stages in two slices: an H100 got 1,279
# elements of 1024³ wrong (by up to 9.6 times the tf32 bound), again in a tile's second column slice, and
# triton.swap's contract at 1024³ failed at 0.0061 on heavy-tailed inputs. Both wrong kept configs are the
# three-stage ones with two epilogue slices; the two-slice configs over four and five stages were right in every
# element on the same inputs.
REFUSED_SHAPES = [(256, 128, 32, 8, 4, 4), (256, 128, 32, 8, 3, 2), (128, 256, 32, 8, 3, 2), (128, 128, 64, 8, 3, 2)]


def swap_config(bm, bn, bk, warps, stages, slices) -> triton.Config:
    return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "EPILOGUE_SLICES": slices},
                         num_warps=warps, num_stages=stages)


def _swap_configs():
    return pick_configs([swap_config(*shape) for shape in SWAP_SHAPES], [swap_config(64, 64, 32, 4, 1, 2)])


@triton.autotune(configs=_swap_configs(), key=["M", "N", "K"])
@triton.jit
def _matmul_swap_kernel(
    a_ptr,  # M × K, row stride stride_am
    b_ptr,  # K × N, row stride stride_bk
    c_ptr,  # M × N contiguous
    M,
    N,
    K,
    stride_am,
    stride_bk,
    NUM_SMS: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    EPILOGUE_SLICES: tl.constexpr,
):
    # Out-of-bounds boxes arrive zero-filled and out-of-bounds stores are dropped: no masks.
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [stride_bk, 1], [BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BLOCK_M, BLOCK_N // EPILOGUE_SLICES])
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    for tile in range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS):  # not flattened: see the docstring
        pid_m, pid_n = grouped_tile(tile, num_pid_m, num_pid_n, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        acc_t = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)  # cᵀ's tile
        for k in range(tl.cdiv(K, BLOCK_K)):
            # BLOCK_N × BLOCK_K, N-major; rounded in registers, so the wgmma reads it from there
            bt = tile_path.round_tf32(b_desc.load([k * BLOCK_K, off_n])).T
            at = a_desc.load([off_m, k * BLOCK_K]).T  # BLOCK_K × BLOCK_M, K-major: read from shared memory
            acc_t = tl.dot(bt, at, acc_t, input_precision="tf32")
        store_tile(c_desc, acc_t.T, off_m, off_n, EPILOGUE_SLICES)


def _matmul(a, b, config: triton.Config | None = None):
    """c = a·b; with ``config``, that config launched as it is instead of the autotuner's pick (the GPU checks)."""
    SPEC.validate(a, b)
    if not descriptors_reach(a, b):
        return tile_path.matmul(a, b, precision="tf32")
    M, K = a.shape
    N = b.shape[1]
    c = empty_output((M, N), like=a)
    sms = num_sms(a.device)
    grid = lambda meta: (min(sms, triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"])),)
    use_descriptor_workspace(a.device)
    args = (a, b, c, M, N, K, a.stride(0), b.stride(0))
    if config is None:
        _matmul_swap_kernel[grid](*args, NUM_SMS=sms)
    else:
        _matmul_swap_kernel.fn[grid](*args, NUM_SMS=sms, **config.all_kwargs())
    return c


@implementation("matmul", family="triton", strategy="swap", precisions=("tf32",), available=triton_tf32_available)
def matmul_swap(a, b):
    return _matmul(a, b)
