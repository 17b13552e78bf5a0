// Device helpers shared by the tiled native kernels (matmul, triangle). An op's native.cu
// includes this file by its relative path; mage.backends.native.source pastes it in, so NVRTC
// compiles one self-contained source. Everything is __forceinline__ and resolved at compile time
// (templates, lambdas), so no call is left in a kernel.

// WIDTH floats from base[at] on into `dst`, or zeros where `ok` is false. WIDTH 4 is one float4
// load (base + at 16-byte aligned), WIDTH 1 a scalar load. The address is formed under `ok`:
// formed by the caller, it compiles to more address arithmetic (seen in the sm_90 SASS).
template <int WIDTH>
__device__ __forceinline__ void load_or_zero(float (&dst)[WIDTH], const float* base, long long at, bool ok) {
    if constexpr (WIDTH == 4) {
        float4 q = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (ok) q = *reinterpret_cast<const float4*>(base + at);
        dst[0] = q.x; dst[1] = q.y; dst[2] = q.z; dst[3] = q.w;
    } else {
        dst[0] = ok ? base[at] : 0.0f;
    }
}

// WIDTH floats from `src` to `dst`: one float4 store when WIDTH is 4 (dst 16-byte aligned).
template <int WIDTH>
__device__ __forceinline__ void store_run(float* dst, const float (&src)[WIDTH]) {
    if constexpr (WIDTH == 4) {
        *reinterpret_cast<float4*>(dst) = make_float4(src[0], src[1], src[2], src[3]);
    } else {
        dst[0] = src[0];
    }
}

// A product over `depth` (the contraction length) in stages of STAGE, double-buffered through
// registers: while the block computes on one shared buffer, every thread already holds its
// share of the next stage in registers (the global loads are in flight during the FFMAs) and
// stores it into the other buffer afterwards, so one __syncthreads per stage suffices.
// load(k0): global memory → registers, the stage starting at k0 (zeros past the end);
// store(s): registers → shared buffer s; compute(s): the stage in buffer s into the accumulators.
template <int STAGE, typename Load, typename Store, typename Compute>
__device__ __forceinline__ void double_buffered(int depth, Load load, Store store, Compute compute) {
    const int stages = (depth + STAGE - 1) / STAGE;
    if (stages > 0) {
        load(0);
        store(0);
    }
    __syncthreads();
    for (int t = 0; t < stages; ++t) {
        const int cur = t & 1;
        if (t + 1 < stages) load((t + 1) * STAGE);
        compute(cur);
        if (t + 1 < stages) store(cur ^ 1);
        __syncthreads();
    }
}
