// bf16 and fp16 kernels of bias_gelu (the lower-precision study). They live in a source of their own so that compiling them
// (NVRTC compiles a whole source at a kernel's first launch) costs nothing to the float32 kernels'
// users: native.cu is included for its templates only, without its float32 kernels.

#define NATIVE_TEMPLATES_ONLY
#include "native.cu"

// ---------------------------------------------------------------- bf16 and fp16
//
// The same walk (bias_gelu_rows) over 16-bit x, bias and out: a column group is 8 elements, one
// 16-byte load or store, so a warp moves 512 contiguous bytes a row as the float4 kernel does;
// every element is widened to float32, computed as native.cu's float32 kernels do, and rounded once
// on the store.

#include "../../backends/native_half.cuh"

template <typename H>
__device__ __forceinline__ H bias_gelu(H v, H b) {
    return from_float<H>(gelu_erf(to_float(v) + to_float(b)));
}

template <typename H>
__device__ __forceinline__ Half8<H> bias_gelu(Half8<H> v, Half8<H> b) {
    float z[8], c[8];
    unpack8(v, z);
    unpack8(b, c);
#pragma unroll
    for (int i = 0; i < 8; ++i) z[i] = gelu_erf(z[i] + c[i]);
    return pack8<H>(z);
}

// x, out: rows × cols, contiguous. X8: cols % 8 == 0 and x, bias, out 16-byte aligned, grid
// (ceil(cols / 8 / blockDim.x), min(ceil(rows / ROWS), 65535)); scalar: any, grid (ceil(cols / blockDim.x), …).
// block: (256).
template <typename H, bool X8>
__device__ __forceinline__ void bias_gelu_16(const H* __restrict__ x, const H* __restrict__ bias, H* __restrict__ out,
                                             long long rows, int cols) {
    const int groups = X8 ? cols >> 3 : cols;
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    if constexpr (X8) {
        bias_gelu_rows(reinterpret_cast<const Half8<H>*>(x), reinterpret_cast<const Half8<H>*>(bias)[g],
                       reinterpret_cast<Half8<H>*>(out), rows, groups, g);
    } else {
        bias_gelu_rows(x, bias[g], out, rows, groups, g);
    }
}

#define BIAS_GELU_16(NAME, H, X8)                                                                               \
    extern "C" __global__ void __launch_bounds__(256) NAME(const H* __restrict__ x, const H* __restrict__ bias,  \
                                                           H* __restrict__ out, long long rows, int cols) {     \
        bias_gelu_16<H, X8>(x, bias, out, rows, cols);                                                          \
    }

BIAS_GELU_16(bias_gelu_bf16_x8, bf16, true)
BIAS_GELU_16(bias_gelu_bf16, bf16, false)
BIAS_GELU_16(bias_gelu_f16_x8, f16, true)
BIAS_GELU_16(bias_gelu_f16, f16, false)
