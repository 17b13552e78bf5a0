// bf16 and fp16 kernels of layernorm (the lower-precision study). They live in a source of their own so that compiling them
// (NVRTC compiles a whole source at a kernel's first launch) costs nothing to the float32 kernels'
// users: native.cu is included for its templates only, without its float32 kernels.

#define NATIVE_TEMPLATES_ONLY
#include "native.cu"

// ---------------------------------------------------------------- bf16 and fp16
//
// native.cu's register kernels over 16-bit x, weight, bias and out: a chunk is W = 8 elements (one
// 16-byte load, as the float4 chunk is), widened to float32 in registers, so the statistics and
// the normalization are float32 exactly as there, and each output is rounded once on the store.
// A warp holds up to 256·V columns; scalar rows and the looped kernel as for float32. Wider rows go to the
// slice and cluster kernels below (mage.backends.rows.handed_on): the 16-bit slice beat a block of these
// register kernels (4096×16384 bf16 on an H200: 74.7 against 116.1 µs).

template <int W, typename H>
__device__ __forceinline__ void load_halves(const H* p, float (&v)[W]) {
    if constexpr (W == 8) {
        unpack8(*reinterpret_cast<const Half8<H>*>(p), v);
    } else {
#pragma unroll
        for (int j = 0; j < W; ++j) v[j] = to_float(p[j]);
    }
}

template <int W, typename H>
__device__ __forceinline__ void store_halves(H* p, const float (&v)[W]) {
    if constexpr (W == 8) {
        *reinterpret_cast<Half8<H>*>(p) = pack8<H>(v);
    } else {
#pragma unroll
        for (int j = 0; j < W; ++j) p[j] = from_float<H>(v[j]);
    }
}

template <int W>
__device__ __forceinline__ void load_chunk(const bf16* p, float (&v)[W]) { load_halves<W>(p, v); }
template <int W>
__device__ __forceinline__ void load_chunk(const f16* p, float (&v)[W]) { load_halves<W>(p, v); }
template <int W>
__device__ __forceinline__ void store_chunk(bf16* p, const float (&v)[W]) { store_halves<W>(p, v); }
template <int W>
__device__ __forceinline__ void store_chunk(f16* p, const float (&v)[W]) { store_halves<W>(p, v); }

#define LAYERNORM_16(TAG, H)                                                                                     \
    LAYERNORM_WARP_OF(layernorm_##TAG##_warp_x8_v1, H, 1, 8)                                                     \
    LAYERNORM_WARP_OF(layernorm_##TAG##_warp_x8_v2, H, 2, 8)                                                     \
    LAYERNORM_WARP_OF(layernorm_##TAG##_warp_x8_v4, H, 4, 8)                                                     \
    LAYERNORM_WARP_OF(layernorm_##TAG##_warp_v1, H, 1, 1)                                                        \
    LAYERNORM_WARP_OF(layernorm_##TAG##_warp_v2, H, 2, 1)                                                        \
    LAYERNORM_WARP_OF(layernorm_##TAG##_warp_v4, H, 4, 1)                                                        \
    LAYERNORM_WARP_OF(layernorm_##TAG##_warp_v8, H, 8, 1)                                                        \
    LAYERNORM_WARP_OF(layernorm_##TAG##_warp_v16, H, 16, 1)                                                      \
    LAYERNORM_WARP_OF(layernorm_##TAG##_warp_v32, H, 32, 1)                                                      \
    extern "C" __global__ void __launch_bounds__(256) layernorm_##TAG##_looped(                                  \
        const H* __restrict__ x, const H* __restrict__ weight, const H* __restrict__ bias, H* __restrict__ out, \
        long long rows, int cols, float eps) {                                                                   \
        layernorm_looped(x, weight, bias, out, cols, eps);                                                       \
    }

LAYERNORM_16(bf16, bf16)
LAYERNORM_16(f16, f16)

// The slice and cluster strategies over 16-bit rows: a row's 16-byte chunks (8 elements each) held as loaded,
// 8 a thread, widened at each use; weight and bias read in 16-byte chunks as each chunk is normalized.
LAYERNORM_SIXTEEN_BIT_ROW_STRATEGIES(bf16, bf16)
LAYERNORM_SIXTEEN_BIT_ROW_STRATEGIES(f16, f16)

// The pipe strategy over 16-bit rows: native_cluster.cuh's SIXTEEN_BIT_PIPE_PLANS, 16-byte chunks of 8 elements.
#define LAYERNORM_BF16_PIPE(K, THREADS, V, CTAS) LAYERNORM_PIPE_OF(bf16, bf16, K, THREADS, V, CTAS)
#define LAYERNORM_F16_PIPE(K, THREADS, V, CTAS) LAYERNORM_PIPE_OF(f16, f16, K, THREADS, V, CTAS)
SIXTEEN_BIT_PIPE_PLANS(LAYERNORM_BF16_PIPE)
SIXTEEN_BIT_PIPE_PLANS(LAYERNORM_F16_PIPE)

// The resident strategy over 16-bit rows: weight and bias held in shared memory as they are, 16-bit.
#define LAYERNORM_BF16_RESIDENT(K, THREADS, V) LAYERNORM_RESIDENT_OF(bf16, bf16, K, THREADS, V)
#define LAYERNORM_F16_RESIDENT(K, THREADS, V) LAYERNORM_RESIDENT_OF(f16, f16, K, THREADS, V)
SIXTEEN_BIT_RESIDENT_PLANS(LAYERNORM_BF16_RESIDENT)
SIXTEEN_BIT_RESIDENT_PLANS(LAYERNORM_F16_RESIDENT)

// The pair strategy over 16-bit rows: 16-byte chunks of 8 elements, two rows a cluster.
#define LAYERNORM_BF16_DEEP(K, THREADS, V, CTAS) LAYERNORM_DEEP_OF(bf16, bf16, K, THREADS, V, CTAS)
#define LAYERNORM_F16_DEEP(K, THREADS, V, CTAS) LAYERNORM_DEEP_OF(f16, f16, K, THREADS, V, CTAS)
SIXTEEN_BIT_DEEP_PLANS(LAYERNORM_BF16_DEEP)
SIXTEEN_BIT_DEEP_PLANS(LAYERNORM_F16_DEEP)

#define LAYERNORM_BF16_PAIR(K, THREADS, V) LAYERNORM_PAIR_OF(bf16, bf16, K, THREADS, V)
#define LAYERNORM_F16_PAIR(K, THREADS, V) LAYERNORM_PAIR_OF(f16, f16, K, THREADS, V)
SIXTEEN_BIT_PAIR_PLANS(LAYERNORM_BF16_PAIR)
SIXTEEN_BIT_PAIR_PLANS(LAYERNORM_F16_PAIR)

// The columns strategy over 16-bit rows: 16-byte chunks of 8 elements; weight and bias widened once into shared memory.
LAYERNORM_COLUMNS_OF(bf16, bf16)
LAYERNORM_COLUMNS_OF(f16, f16)
