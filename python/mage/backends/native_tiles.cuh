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

// 16 bytes from base[at] on into shared memory at `dst` without passing through registers
// (cp.async, sm_80 and later), zeros where `ok` is false (a copy of no bytes, zero-filled; the
// address read is then `base` itself, always valid). Both addresses 16-byte aligned. The copy
// lands once this thread waits for its group (copy_async_wait); others see it after a barrier.
// Compiled for the host (the CPU emulation), it is a plain copy and the waits do nothing. T is
// float (4 a copy) or a 16-bit type (8 a copy; `at` counts elements of T).
template <typename T>
__device__ __forceinline__ void copy_async16(T* dst, const T* base, long long at, bool ok) {
#ifdef __CUDA_ARCH__
    const unsigned shared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared), "l"(ok ? base + at : base),
                 "r"(ok ? 16 : 0));
#else
    for (int q = 0; q < int(16 / sizeof(T)); ++q) dst[q] = ok ? base[at + q] : T{};
#endif
}

// Close this thread's copies issued since the last commit into one group.
__device__ __forceinline__ void copy_async_commit() {
#ifdef __CUDA_ARCH__
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Wait until at most PENDING of this thread's committed groups are still in flight.
template <int PENDING>
__device__ __forceinline__ void copy_async_wait() {
#ifdef __CUDA_ARCH__
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
#endif
}

// A product over `depth` in stages of STAGE through STAGES shared buffers filled by cp.async: the
// copies of the next STAGES − 1 stages are in flight while the block computes on one, and no
// register holds them on the way. issue(k0, s): start copying the stage at k0 into buffer s
// (copy_async16); compute(s): the stage in buffer s into the accumulators. One barrier a stage:
// after it every thread's copies of this stage have landed and every thread has finished computing
// the previous one, whose buffer the stage STAGES − 1 ahead then overwrites.
template <int STAGE, int STAGES, typename Issue, typename Compute>
__device__ __forceinline__ void pipelined_async(int depth, Issue issue, Compute compute) {
    static_assert(STAGES >= 2, "one buffer computes while another fills");
    const int stages = (depth + STAGE - 1) / STAGE;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < stages) issue(s * STAGE, s);
        copy_async_commit();  // empty groups past the end complete at once, so the count stays exact
    }
    for (int t = 0; t < stages; ++t) {
        copy_async_wait<STAGES - 2>();
        __syncthreads();
        const int ahead = t + STAGES - 1;
        if (ahead < stages) issue(ahead * STAGE, ahead % STAGES);
        copy_async_commit();
        compute(t % STAGES);
    }
}
