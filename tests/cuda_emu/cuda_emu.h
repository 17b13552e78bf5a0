// A CPU stand-in for the CUDA C++ that Mage's native.cu files use, so their kernels run in CI.
//
// Every thread of a block is a std::thread; blocks run one after another, so `__shared__`
// becomes `static` (one array per kernel instantiation, shared by the block's threads).
// __syncthreads is a block barrier, warp shuffles exchange through a per-warp buffer between
// two warp barriers. A thread that returns early drops out of both barriers, as an exited GPU
// thread no longer counts at a barrier. Only what Mage's kernels use is provided: x-only
// blocks, full-warp masks, float4 and float2, erff/sqrtf/fmaf from <math.h>, one buffer of dynamic shared memory,
// __syncthreads_count, and an int atomicAdd (blocks run one after another, so __threadfence,
// __ldcg, __ldg and __stwb order nothing here).
#pragma once

#include <barrier>
#include <functional>
#include <math.h>
#include <memory>
#include <thread>
#include <vector>

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};

struct alignas(16) float4 {
    float x, y, z, w;
};

inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

struct alignas(8) float2 {
    float x, y;
};

namespace emu {

struct Block {
    explicit Block(unsigned threads) : barrier(threads), exchange(threads) {
        for (unsigned w = 0; w * 32 < threads; ++w) {
            const unsigned lanes = threads - w * 32 < 32 ? threads - w * 32 : 32;
            warps.emplace_back(std::make_unique<std::barrier<>>(lanes));
        }
    }
    std::barrier<> barrier;
    std::vector<std::unique_ptr<std::barrier<>>> warps;
    std::vector<float> exchange;
    int counts[3] = {0, 0, 0};  // __syncthreads_count's, by turns
};

inline thread_local dim3 thread_idx;
inline thread_local dim3 block_idx;
inline thread_local Block* block = nullptr;
inline dim3 block_dim;
inline dim3 grid_dim;
// Dynamic shared memory (DYNAMIC_SHARED in native_cluster.cuh), which blocks run one after another take in turn.
constexpr unsigned DYNAMIC_SHARED_BYTES = 4u << 20;
alignas(16) inline unsigned char dynamic_shared[DYNAMIC_SHARED_BYTES];

// A device pointer argument: converts to whatever pointer type the kernel takes.
struct Ptr {
    void* p;
    template <class T>
    operator T*() const {
        return static_cast<T*>(p);
    }
};

inline void launch(dim3 grid, dim3 threads, const std::function<void()>& kernel) {
    grid_dim = grid;
    block_dim = threads;
    const unsigned count = threads.x * threads.y * threads.z;
    for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
            for (unsigned x = 0; x < grid.x; ++x) {
                Block b(count);
                std::vector<std::thread> pool;
                pool.reserve(count);
                for (unsigned t = 0; t < count; ++t)
                    pool.emplace_back([&, t] {
                        block = &b;
                        block_idx = dim3{x, y, z};
                        thread_idx = dim3{t % threads.x, (t / threads.x) % threads.y, t / (threads.x * threads.y)};
                        kernel();
                        b.warps[t / 32]->arrive_and_drop();
                        b.barrier.arrive_and_drop();
                    });
                for (auto& thread : pool) thread.join();
            }
}

}  // namespace emu

#define threadIdx (emu::thread_idx)
#define blockIdx (emu::block_idx)
#define blockDim (emu::block_dim)
#define gridDim (emu::grid_dim)
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))

inline void __syncthreads() { emu::block->barrier.arrive_and_wait(); }

// Three counters by turns: call k adds into k % 3 and, after the barrier, clears the one call k + 2 will
// use, which no thread can reach before every thread has passed call k + 1's barrier.
inline int __syncthreads_count(int predicate) {
    static thread_local unsigned calls = 0;  // every thread of a block is a new std::thread
    emu::Block* b = emu::block;
    const unsigned turn = calls++ % 3;
    if (predicate) __atomic_fetch_add(&b->counts[turn], 1, __ATOMIC_SEQ_CST);
    b->barrier.arrive_and_wait();
    const int total = __atomic_load_n(&b->counts[turn], __ATOMIC_SEQ_CST);
    __atomic_store_n(&b->counts[(turn + 2) % 3], 0, __ATOMIC_SEQ_CST);
    return total;
}

inline void __threadfence() {}

inline float __ldcg(const float* p) { return *p; }
template <typename T>
inline T __ldg(const T* p) { return *p; }
template <typename T>
inline void __stwb(T* p, T value) { *p = value; }

inline float __int_as_float(int bits) {
    float value;
    __builtin_memcpy(&value, &bits, sizeof value);
    return value;
}

inline int atomicAdd(int* address, int value) {
    return __atomic_fetch_add(address, value, __ATOMIC_SEQ_CST);
}

inline float __shfl_xor_sync(unsigned, float value, int lane_mask, int width = 32) {
    emu::Block* b = emu::block;
    const unsigned t = threadIdx.x, warp = t / 32, lane = t % 32;
    b->exchange[t] = value;
    b->warps[warp]->arrive_and_wait();
    const unsigned source = (lane & ~unsigned(width - 1)) | ((lane ^ lane_mask) & unsigned(width - 1));
    const float result = b->exchange[warp * 32 + source];
    b->warps[warp]->arrive_and_wait();
    return result;
}

