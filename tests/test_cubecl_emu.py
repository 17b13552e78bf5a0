"""The CUDA C++ CubeCL generated, run on the CPU: each generated file is compiled with the native
kernels' emulation (tests/cuda_emu: a thread per CUDA thread, barriers, warp shuffles) plus the few
names CubeCL's dialect adds, and launched by the cubecl launchers themselves through an emulation host,
so the kernel choice, the grid, the packed ``info_st`` and the dynamic shared memory are the ones the
GPU gets. Every op's cubecl implementation then passes its contract on the shapes test_native
emulates (tails in every dimension, both tile sizes, float4 and scalar rows, int32 and int64 graphs
with hubs, rows above LONG_ROW for neighbor_agg's block phase). This reaches what lavapipe cannot:
triangle's 64-tile kernel (34 KiB of shared memory)."""

from __future__ import annotations

import ctypes
import functools
import re

import pytest
import torch

from mage import registry
from mage.backends import native
from mage.backends.cubecl import shared_bytes
from mage.check import check, rel_error, upcast
from mage.spec import Case
from native_emu import CTYPES, HEADER, EmuHost, compiler, shared_library
from test_cubecl import KERNELS, OPS
from test_native import EMULATED

needs_compiler = pytest.mark.skipif(compiler() is None, reason="the CPU emulation needs g++ or clang++")

# What CubeCL's CUDA C++ uses beyond the native kernels. Blocks run one after another in the emulation,
# so one buffer serves every block's dynamic shared memory.
PRELUDE = """
struct uint3 { unsigned x, y, z; };
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }
#define warpSize 32u
#define __grid_constant__
template <class T> inline T min(T a, T b) { return a < b ? a : b; }
template <class T> inline T max(T a, T b) { return a > b ? a : b; }
alignas(16) static unsigned char emu_dynamic_shared[1 << 16];
"""

# The tf32 matmul's MMAs are inline PTX (wmma m16n16k8, tf32 × tf32 → f32). Each becomes a call to a
# stand-in with the same warp-wide meaning: a lane's registers hold elements lane · R … lane · R + R − 1
# of the row-major fragment (wmma's real assignment is unspecified; any one the loads, MMAs and stores
# agree on computes the same product), and an MMA gathers the warp's A and B through a per-warp buffer
# between two warp barriers, like the shuffles. The cast to tf32 (cvt.rna: to nearest, ties away from
# zero) keeps the top 10 mantissa bits.
MMA_PRELUDE = """
#include <cstring>
namespace emu_wmma {
static float a[32][128], b[32][128];  // A (16 × 8) and B (8 × 16) of each warp
inline float bits(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
inline void load(unsigned* frag, const float* p, unsigned stride, unsigned cols) {
    const unsigned lane = threadIdx.x % 32;
    for (unsigned r = 0; r < 4; ++r) { const unsigned e = lane * 4 + r; std::memcpy(&frag[r], &p[e / cols * stride + e % cols], 4); }
}
inline void mma(float* d, const unsigned* fa, const unsigned* fb, const float* c) {
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (unsigned r = 0; r < 4; ++r) { a[warp][lane * 4 + r] = bits(fa[r]); b[warp][lane * 4 + r] = bits(fb[r]); }
    emu::block->warps[warp]->arrive_and_wait();
    float out[8];
    for (unsigned r = 0; r < 8; ++r) {
        const unsigned e = lane * 8 + r, i = e / 16, j = e % 16;
        float s = c[r];
        for (unsigned k = 0; k < 8; ++k) s = fmaf(a[warp][i * 8 + k], b[warp][k * 16 + j], s);
        out[r] = s;
    }
    emu::block->warps[warp]->arrive_and_wait();
    for (unsigned r = 0; r < 8; ++r) d[r] = out[r];
}
inline void store(float* p, const float* acc, unsigned stride) {
    const unsigned lane = threadIdx.x % 32;
    for (unsigned r = 0; r < 8; ++r) { const unsigned e = lane * 8 + r; p[e / 16 * stride + e % 16] = acc[r]; }
}
}  // namespace emu_wmma
namespace nvcuda { namespace wmma {
inline float __float_to_tf32(float in) {
    unsigned u; std::memcpy(&u, &in, 4);
    if ((u & 0x7f800000u) != 0x7f800000u) u += 0x1000u;
    return emu_wmma::bits(u & 0xffffe000u);
}
} }
"""
_TF32_CAST = re.compile(r"namespace nvcuda \{ namespace wmma \{\n.*?\n\} \}\n", re.S)
_LOAD = re.compile(r'asm volatile\(\n\s*"wmma\.load\.(a|b)\.sync\.aligned\.row\.m16n16k8\.tf32 "\n\s*"[^"]*\], (\d+);\\n"\n'
                   r'\s*: "=r"\((\w+)\[0\]\)[^\n]*\n\s*: "l"\((\w+)\)\n\);')
_MMA = re.compile(r'asm volatile\(\n\s*"wmma\.mma\.sync\.aligned\.row\.row\.m16n16k8\.f32\.tf32\.tf32\.f32 "\n(?:\s*"[^"]*"\n){4}'
                  r'\s*: "=f"\((\w+)\[0\]\)[^\n]*\n\s*: "r"\((\w+)\[0\]\), (?:"r"\(\w+\[\d\]\), ){3}"r"\((\w+)\[0\]\), '
                  r'(?:"r"\(\w+\[\d\]\), ){3}"f"\((\w+)\[0\]\)[^\n]*\n\);')
_STORE = re.compile(r'asm volatile\(\n\s*"wmma\.store\.d\.sync\.aligned\.row\.m16n16k8\.f32 "\n\s*"[^"]*\}, (\d+);\\n"\n'
                    r'\s*:\n\s*: "l"\((\w+)\),\n\s*"f"\((\w+)\[0\]\)[^\n]*\n\);')


def emulated_mma(text: str) -> str:
    """``text`` with its wmma inline PTX replaced by the CPU stand-ins of MMA_PRELUDE (unchanged
    without any)."""
    if "wmma." not in text:
        return text
    text, casts = _TF32_CAST.subn(lambda _: MMA_PRELUDE, text)
    text, loads = _LOAD.subn(lambda m: f"emu_wmma::load({m[3]}, {m[4]}, {m[2]}, {8 if m[1] == 'a' else 16});", text)
    text, mmas = _MMA.subn(lambda m: f"emu_wmma::mma({m[1]}, {m[2]}, {m[3]}, {m[4]});", text)
    text, stores = _STORE.subn(lambda m: f"emu_wmma::store({m[2]}, {m[3]}, {m[1]});", text)
    assert casts == 1 and loads and mmas and stores and "asm" not in text, (casts, loads, mmas, stores)
    return text
DYNAMIC_SHARED = re.compile(r"extern __shared__ __align__\(\d+\) uint8 dynamic_shared_mem\[\];")
C_TYPES = {"p": "void*", "i": "int", "l": "long long", "f": "float", "b": "const void*"}


@functools.lru_cache(maxsize=None)
def library(kernel: native.Kernel) -> ctypes.CDLL:
    """The generated file of ``kernel`` built for the CPU, with one wrapper ``emu_launch``."""
    text = emulated_mma(native.source(kernel.op, kernel.file))
    body, declared = DYNAMIC_SHARED.subn("uint8* dynamic_shared_mem = emu_dynamic_shared;", text)
    assert declared <= 1
    params = ", ".join(f"{C_TYPES[k]} a{i}" for i, k in enumerate(kernel.signature))
    args = ", ".join("*static_cast<const info_st*>(a{})".format(i) if k == "b" else f"emu::Ptr{{a{i}}}" if k == "p"
                     else f"a{i}" for i, k in enumerate(kernel.signature))
    unit = (f'#include "{HEADER}"\n{PRELUDE}\n{body}\n'
            f'extern "C" void emu_launch(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, '
            f"{params}) {{\n    emu::launch(dim3{{gx, gy, gz}}, dim3{{bx, by, bz}}, [=] {{ {kernel.name}({args}); }});\n}}\n")
    return shared_library(f"cubecl-{kernel.name}", unit)


class CubeclEmuHost(EmuHost):
    """Launches the generated kernels on CPU tensors; a struct argument goes by its bytes."""

    def launch(self, kernel, grid, block, *args, shared=0):
        assert shared == shared_bytes(kernel) and shared <= 48 * 1024, (kernel.file, shared)
        assert all(1 <= g for g in grid) and grid[1] <= 65535 and grid[2] <= 65535, grid
        assert 1 <= block[0] * block[1] * block[2] <= 1024, block
        function = library(kernel).emu_launch
        function.restype = None
        function.argtypes = [ctypes.c_uint] * 6 + [ctypes.c_char_p if k == "b" else CTYPES[k] for k in kernel.signature]
        self.launches.append((kernel.name, tuple(grid), tuple(block)))
        function(*grid, *block, *kernel.values(args))


CUBECL = {(impl.op, impl.strategy, impl.variant, impl.precision): impl
          for op in OPS for impl in registry.implementations(op) if impl.family == "cubecl"}
# tf32 is checked by the test of its own below: on the CPU eager's "tf32" runs in float32, so the
# contract's 10×-eager rule would hold a tf32 kernel to float32.
RUNS = [pytest.param(op, strategy, variant, precision, params, 300 + n, id=f"{op}-{strategy}-{n}-{variant}-{precision}")
        for (op, strategy, variant, precision) in CUBECL if precision == "ieee" for n, params in enumerate(EMULATED[op])]


def _emulated(op: str, strategy: str, variant: str, host, precision: str = "ieee") -> registry.Implementation:
    registered = CUBECL[(op, strategy, variant, precision)]  # fn: partial(launcher, its host, **keywords)
    launcher = functools.partial(registered.fn.func, host, *registered.fn.args[1:], **registered.fn.keywords)
    return registry.Implementation(op=op, family="cubecl-emu", strategy=strategy, variant=variant, precision=precision,
                                   fn=launcher)


@needs_compiler
@pytest.mark.parametrize("op, strategy, variant, precision, params, seed", RUNS)
def test_generated_kernels_pass_their_contract_under_emulation(op, strategy, variant, precision, params, seed):
    host = CubeclEmuHost()
    result = check(_emulated(op, strategy, variant, host, precision), registry.baseline_for(op, variant, precision),
                   registry.get_op(op), Case(op, "emulated", "seed", params, seed=seed), "cpu", seed=seed)
    assert result.passed, result.reason
    assert host.launches, "the launcher returned without launching"


def _to_tf32(t: torch.Tensor) -> torch.Tensor:
    """float32 rounded to tf32 (10 mantissa bits, to nearest, ties away from zero: cvt.rna)."""
    return ((t.view(torch.int32) + 0x1000) & ~0x1FFF).view(torch.float32)


# Against the float64 product of the inputs rounded to tf32, the kernel's only error is float32
# accumulation, so the float32 ceiling holds on every shape (a tf32 ceiling would not check the
# indexing as closely, and fails on ill-conditioned outputs such as the 1 × 1 one whatever the kernel).
@needs_compiler
@pytest.mark.parametrize("params", EMULATED["matmul"], ids=lambda p: "x".join(str(p[d]) for d in "mkn"))
def test_the_tf32_matmul_computes_the_product_of_its_inputs_rounded_to_tf32(params):
    spec = registry.get_op("matmul")
    a, b = spec.make_inputs(Case("matmul", "emulated", "seed", params, seed=400), 400, "cpu")
    host = CubeclEmuHost()
    out = _emulated("matmul", "default", "default", host, "tf32").fn(a, b)
    assert rel_error(out, _to_tf32(a).double() @ _to_tf32(b).double()) <= 1e-5
    assert params["k"] == 0 or host.launches


@needs_compiler
class _ChoosingHost(CubeclEmuHost):
    """Records which generated kernel each launch chooses, and runs none: the choice is the launcher's."""

    def launch(self, kernel, grid, block, *args, shared=0):
        self.launches.append((kernel.name, tuple(grid), tuple(block)))


def test_the_emulated_shapes_reach_every_generated_kernel():
    """The shapes the tests above emulate, the tf32 matmul's included, choose every generated kernel."""
    tf32 = [("matmul", "default", "default", "tf32", params, 400) for params in EMULATED["matmul"]]
    reached = set()
    for op, strategy, variant, precision, params, seed in [run.values for run in RUNS] + tf32:
        host = _ChoosingHost()
        inputs = registry.get_op(op).make_inputs(Case(op, "emulated", "seed", params, seed=seed), seed, "cpu")
        _emulated(op, strategy, variant, host, precision).fn(*inputs)
        reached |= {name for name, _, _ in host.launches}
    assert {k.name for k in KERNELS} <= reached, sorted({k.name for k in KERNELS} - reached)


# Rows of 1e4 + N(0, 1): the float4 kernel at the H200 test's failing shape (2 × 16384, cube 256) and
# the scalar one (a prime width). A float32 mean is off by up to half an ulp of 1e4 (4.9e-4), and every
# output by that over σ: the kernel as it was measured 4.6e-4 here and 6.7e-4 on the H200. The
# corrected two-pass kernel never rounds the mean to one float32, so it holds the float32 ceiling.
@needs_compiler
@pytest.mark.parametrize("cols", [16384, 16411])
def test_layernorm_holds_the_float32_ceiling_on_large_mean_rows(cols):
    spec = registry.get_op("layernorm")
    inputs = spec.make_inputs(Case("layernorm", "large-mean", "seed", {"rows": 2, "cols": cols}, seed=505), 12, "cpu",
                              distribution="large-mean")
    out = _emulated("layernorm", "default", "affine", CubeclEmuHost()).fn(*inputs)
    assert rel_error(out, spec.reference(upcast(inputs), "affine")) <= 1e-5
