// Triangle multiplicative update, contraction only, channel-last float32 FFMA (ieee; spec.py):
//     outgoing:  out[b, i, j, c] = Σ_k a[b, i, k, c] · b[b, j, k, c]
//     incoming:  out[b, i, j, c] = Σ_k a[b, k, i, c] · b[b, k, j, c]
// a, b, out: B × N × N × C contiguous. For each (b, c) this is an N × N × N matrix product
// A_c · B_cᵀ with A_c(i, k) = a[b, i, k, c] (outgoing) or a[b, k, i, c] (incoming), B_c alike
// with j; one launch computes every (b, c), with no permuted copies.
//
// A block owns TC = 8 consecutive channels (4: see below) and a TI × TI tile of (i, j) for each, and walks k
// in stages of KB = 4. Global loads read a[b, i, k, c0 : c0 + 8] (32 contiguous bytes, a whole
// sector) as two float4s; shared memory holds each operand transposed to [k][c][i], so a
// thread reads 4 consecutive i (or j) of its channel as one float4. Each thread accumulates an
// 8 × 8 micro-tile of (i, j) for one channel in registers: rows {4·ty + r, TI/2 + 4·ty + r},
// columns {4·tx + s, TI/2 + 4·tx + s}. Lanes of a warp are 8 channels × 4 (ty, tx) pairs, so
// a warp's stores write 32 contiguous bytes per (i, j) and its shared reads are free of bank
// conflicts (channel rows are TI + 4 floats apart). Stages are double-buffered through
// registers like the matmul kernel: one __syncthreads per stage.
//
// TI = 64 (512 threads) for large N, TI = 32 (128 threads) when 64-tiles would leave SMs idle.
// VEC = true needs C % 4 == 0 and 16-byte aligned a and b; VEC = false loads scalars. Any N,
// C and batch: tails load zeros and stores are guarded.
//
// grid: (ceil(N / TI)², ceil(C / TC), B); block: (TC · (TI / 8)²).
//
// The `_c4` kernels (strategy native.c4) own TC = 4 channels: 256 threads a block at TI = 64, so
// two blocks share an SM (at most 128 registers a thread, sm_90) and one's __syncthreads is
// covered by the other's FFMAs, where the 512-thread block holds its SM alone. The price: a row
// of 4 channels is half a 32-byte sector, so L1 fetches twice the bytes the block uses, the
// other half going to the block of the next 4 channels (its grid neighbour, reading from L2).

#include "../../backends/native_tiles.cuh"
#include "../../backends/native_half.cuh"

#define TRI_KB 4

template <int TI, int TC, bool OUTGOING, bool VEC, typename T>
__device__ __forceinline__ void triangle_tile(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out,
                                              int N, int C) {
    constexpr int KB = TRI_KB;
    constexpr int TG = TI / 8;               // threads per side of a channel's tile
    constexpr int THREADS = TG * TG * TC;
    constexpr int PADI = TI + 4;
    // Per-thread share of one stage (per operand): float4s (VEC) or scalars.
    constexpr int LOADS = VEC ? TI * KB * (TC / 4) / THREADS : TI * KB * TC / THREADS;
    constexpr int WIDTH = VEC ? 4 : 1;

    __shared__ __align__(16) float As[2][KB][TC][PADI];
    __shared__ __align__(16) float Bs[2][KB][TC][PADI];

    const int tid = threadIdx.x;
    const int c = tid % TC;
    const int g = tid / TC, gw = g >> 2, gl = g & 3;
    const int ty = (gw / (TG / 2)) * 2 + (gl >> 1);
    const int tx = (gw % (TG / 2)) * 2 + (gl & 1);

    const int tiles = (N + TI - 1) / TI;
    const int i0 = (blockIdx.x / tiles) * TI, j0 = (blockIdx.x % tiles) * TI;
    const int c0 = blockIdx.y * TC;
    const long long batch = (long long)blockIdx.z * N * N * C;
    const T* ab = a + batch;
    const T* bb = b + batch;

    // Offset of the pair-map entry for row `p` (i or j) and contraction index `k`.
    auto offset = [&](int p, int k) -> long long {
        return OUTGOING ? ((long long)p * N + k) * C : ((long long)k * N + p) * C;
    };

    float a_next[LOADS][WIDTH], b_next[LOADS][WIDTH];

    // Where load l of a thread goes in a stage (per operand): channel cc (of the block's TC),
    // contraction index k (of KB) and row p (i or j, of TI); VEC loads take 4 channels at once.
    struct Slot {
        int cc, k, p;
    };
    auto slot = [&](int l) -> Slot {
        const int f = tid + l * THREADS;
        constexpr int GROUPS = TC / WIDTH;  // channel groups a (p, k) holds
        return {(f % GROUPS) * WIDTH, (f / GROUPS) % KB, f / (GROUPS * KB)};
    };

    auto load_stage = [&](int k0) {
#pragma unroll
        for (int l = 0; l < LOADS; ++l) {
            const Slot s = slot(l);
            const bool kc = k0 + s.k < N && c0 + s.cc < C;
            load_or_zero(a_next[l], ab, offset(i0 + s.p, k0 + s.k) + c0 + s.cc, kc && i0 + s.p < N);
            load_or_zero(b_next[l], bb, offset(j0 + s.p, k0 + s.k) + c0 + s.cc, kc && j0 + s.p < N);
        }
    };

    auto store_stage = [&](int buffer) {
#pragma unroll
        for (int l = 0; l < LOADS; ++l) {
            const Slot s = slot(l);
#pragma unroll
            for (int q = 0; q < WIDTH; ++q) {
                As[buffer][s.k][s.cc + q][s.p] = a_next[l][q];
                Bs[buffer][s.k][s.cc + q][s.p] = b_next[l][q];
            }
        }
    };

    float acc[8][8];
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int s = 0; s < 8; ++s) acc[r][s] = 0.0f;

    // 64 FFMAs per k of the stage in buffer `cur`.
    auto multiply_stage = [&](int cur) {
#pragma unroll
        for (int k = 0; k < KB; ++k) {
            const float4 a_lo = *reinterpret_cast<const float4*>(&As[cur][k][c][ty * 4]);
            const float4 a_hi = *reinterpret_cast<const float4*>(&As[cur][k][c][TI / 2 + ty * 4]);
            const float4 b_lo = *reinterpret_cast<const float4*>(&Bs[cur][k][c][tx * 4]);
            const float4 b_hi = *reinterpret_cast<const float4*>(&Bs[cur][k][c][TI / 2 + tx * 4]);
            const float av[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            const float bv[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (int r = 0; r < 8; ++r)
#pragma unroll
                for (int s = 0; s < 8; ++s) acc[r][s] = fmaf(av[r], bv[s], acc[r][s]);
        }
    };
    double_buffered<KB>(N, load_stage, store_stage, multiply_stage);

    if (c0 + c >= C) return;
    T* ob = out + batch + c0 + c;
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        const int i = i0 + (r < 4 ? ty * 4 + r : TI / 2 + ty * 4 + r - 4);
        if (i >= N) continue;
#pragma unroll
        for (int s = 0; s < 8; ++s) {
            const int j = j0 + (s < 4 ? tx * 4 + s : TI / 2 + tx * 4 + s - 4);
            if (j < N) ob[((long long)i * N + j) * C] = from_float<T>(acc[r][s]);
        }
    }
}

// Kernels of element type T (float here; bf16 and fp16 in native16.cu).
#define TRIANGLE_KERNEL_OF(NAME, T, TI, TC, OUTGOING, VEC, MIN_BLOCKS)                                       \
    extern "C" __global__ void __launch_bounds__(TC * (TI / 8) * (TI / 8), MIN_BLOCKS)                        \
        NAME(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out, int N, int C) {           \
        triangle_tile<TI, TC, OUTGOING, VEC>(a, b, out, N, C);                                                 \
    }
#define TRIANGLE_KERNEL(NAME, TI, TC, OUTGOING, VEC, MIN_BLOCKS) TRIANGLE_KERNEL_OF(NAME, float, TI, TC, OUTGOING, VEC, MIN_BLOCKS)

#ifndef NATIVE_TEMPLATES_ONLY  // native16.cu includes this file for its templates only
TRIANGLE_KERNEL(triangle_outgoing_f32_t64_x4, 64, 8, true, true, 1)
TRIANGLE_KERNEL(triangle_outgoing_f32_t64, 64, 8, true, false, 1)
TRIANGLE_KERNEL(triangle_outgoing_f32_t32_x4, 32, 8, true, true, 2)
TRIANGLE_KERNEL(triangle_outgoing_f32_t32, 32, 8, true, false, 2)
TRIANGLE_KERNEL(triangle_incoming_f32_t64_x4, 64, 8, false, true, 1)
TRIANGLE_KERNEL(triangle_incoming_f32_t64, 64, 8, false, false, 1)
TRIANGLE_KERNEL(triangle_incoming_f32_t32_x4, 32, 8, false, true, 2)
TRIANGLE_KERNEL(triangle_incoming_f32_t32, 32, 8, false, false, 2)
TRIANGLE_KERNEL(triangle_outgoing_f32_t64_c4_x4, 64, 4, true, true, 2)
TRIANGLE_KERNEL(triangle_outgoing_f32_t64_c4, 64, 4, true, false, 2)
TRIANGLE_KERNEL(triangle_outgoing_f32_t32_c4_x4, 32, 4, true, true, 4)
TRIANGLE_KERNEL(triangle_outgoing_f32_t32_c4, 32, 4, true, false, 4)
TRIANGLE_KERNEL(triangle_incoming_f32_t64_c4_x4, 64, 4, false, true, 2)
TRIANGLE_KERNEL(triangle_incoming_f32_t64_c4, 64, 4, false, false, 2)
TRIANGLE_KERNEL(triangle_incoming_f32_t32_c4_x4, 32, 4, false, true, 4)
TRIANGLE_KERNEL(triangle_incoming_f32_t32_c4, 32, 4, false, false, 4)
#endif
