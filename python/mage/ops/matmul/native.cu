// Matrix multiplication, float32 FFMA (ieee; see spec.py):
//     C[m, n] = Σ_k A[m, k] · B[k, n]        A: M × K,  B: K × N,  C: M × N, row-major, contiguous
//
// Shared-memory tiling with register blocking. A block of 256 threads computes a BM × BN tile
// of C (128 × 128, or 64 × 64 when 128-tiles would leave SMs idle), walking K in slices of
// BK = 8. Each thread accumulates a TM × TN micro-tile (8 × 8, or 4 × 4) in registers: per k
// it reads TM values of A and TN of B from shared memory (as float4) for TM · TN FFMAs.
//
// Shared memory is double-buffered: while the block multiplies one slice, every thread already
// holds its share of the next slice in registers (the global loads are in flight during the
// FFMAs) and stores it into the other buffer afterwards, so one __syncthreads per slice
// suffices. A is stored transposed (As[k][m]) so that both operands are read along m and n
// with float4 loads; rows are padded by 4 floats, which keeps float4 alignment and spreads the
// transposed stores over the banks.
//
// Thread (ty, tx) = (tid / 16, tid % 16) owns rows {g · BM/GM + 4·ty + i} and columns
// {h · BN/GN + 4·tx + j} (GM = TM / 4 groups of 4 rows, likewise for columns): the float4
// reads of a warp then touch two A addresses (broadcast) and 16 consecutive B float4s.
//
// VEC = true loads A and B as float4 (needs K % 4 == 0, N % 4 == 0 and 16-byte aligned
// pointers); VEC = false loads scalars. Both handle any M, N, K (tails read as zeros, stores
// are guarded).

#include "../../backends/native_tiles.cuh"

#define MATMUL_THREADS 256
#define MATMUL_BK 8

// Run l of this thread in a ROWS × COLS block whose runs are WIDTH floats along a row (a float4
// or a scalar): run f = tid + l · MATMUL_THREADS, its row, its first column, and whether the
// block has it (always, when the block is a whole number of runs per thread).
struct Run {
    int r, c;
    bool inside;
};
template <int ROWS, int COLS, int LOADS, int WIDTH>
__device__ __forceinline__ Run block_run(int l) {
    const int f = threadIdx.x + l * MATMUL_THREADS;
    constexpr bool EXACT = LOADS * MATMUL_THREADS * WIDTH == ROWS * COLS;
    return {f / (COLS / WIDTH), (f % (COLS / WIDTH)) * WIDTH, EXACT || f < ROWS * COLS / WIDTH};
}

// Registers ← the ROWS × COLS block at (r0, c0) of `src` (rows × cols, row-major, contiguous),
// zeros outside it.
template <int ROWS, int COLS, int LOADS, int WIDTH>
__device__ __forceinline__ void load_block(float (&dst)[LOADS][WIDTH], const float* __restrict__ src, int rows, int cols,
                                           int r0, int c0) {
#pragma unroll
    for (int l = 0; l < LOADS; ++l) {
        const Run run = block_run<ROWS, COLS, LOADS, WIDTH>(l);
        const bool ok = run.inside && r0 + run.r < rows && c0 + run.c < cols;
        load_or_zero(dst[l], src, (long long)(r0 + run.r) * cols + c0 + run.c, ok);
    }
}

// The block's BM × BN tile of C from the accumulators of thread (ty, tx) (the layout above),
// guarded at the edges; VEC stores float4s (N % 4 == 0, C 16-byte aligned).
template <int BM, int BN, bool VEC>
__device__ __forceinline__ void store_tile(const float (&acc)[BM / 16][BN / 16], float* __restrict__ C, int M, int N,
                                           int m0, int n0, int ty, int tx) {
    constexpr int GM = BM / 64, GN = BN / 64;
#pragma unroll
    for (int g = 0; g < GM; ++g) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int m = m0 + g * (BM / GM) + ty * 4 + i;
            if (m >= M) continue;
            float* c_row = C + (long long)m * N;
#pragma unroll
            for (int h = 0; h < GN; ++h) {
                const int n = n0 + h * (BN / GN) + tx * 4;
                const float* v = acc[g * 4 + i] + h * 4;
                if (VEC) {
                    if (n < N) *reinterpret_cast<float4*>(c_row + n) = make_float4(v[0], v[1], v[2], v[3]);
                } else {
#pragma unroll
                    for (int j = 0; j < 4; ++j)
                        if (n + j < N) c_row[n + j] = v[j];
                }
            }
        }
    }
}

template <int BM, int BN, bool VEC>
__device__ __forceinline__ void matmul_tile(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                            int M, int N, int K) {
    constexpr int BK = MATMUL_BK;
    constexpr int TM = BM / 16, TN = BN / 16;
    constexpr int GM = TM / 4, GN = TN / 4;
    constexpr int PAD = 4;
    // Per-thread share of one slice: float4s (VEC) or scalars.
    constexpr int A_LOADS = VEC ? (BM * BK / 4 + MATMUL_THREADS - 1) / MATMUL_THREADS : BM * BK / MATMUL_THREADS;
    constexpr int B_LOADS = VEC ? (BK * BN / 4 + MATMUL_THREADS - 1) / MATMUL_THREADS : BK * BN / MATMUL_THREADS;
    constexpr int A_WIDTH = VEC ? 4 : 1, B_WIDTH = VEC ? 4 : 1;

    __shared__ __align__(16) float As[2][BK][BM + PAD];
    __shared__ __align__(16) float Bs[2][BK][BN + PAD];

    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    float a_next[A_LOADS][A_WIDTH];
    float b_next[B_LOADS][B_WIDTH];

    // Global → registers: the slice starting at k0 (zeros outside A and B).
    auto load_slice = [&](int k0) {
        load_block<BM, BK>(a_next, A, M, K, m0, k0);
        load_block<BK, BN>(b_next, B, K, N, k0, n0);
    };

    // Registers → shared buffer `s` (A transposed).
    auto store_slice = [&](int s) {
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            const Run run = block_run<BM, BK, A_LOADS, A_WIDTH>(l);
#pragma unroll
            for (int q = 0; q < A_WIDTH; ++q)
                if (run.inside) As[s][run.c + q][run.r] = a_next[l][q];
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            const Run run = block_run<BK, BN, B_LOADS, B_WIDTH>(l);
            if (run.inside) store_run(&Bs[s][run.r][run.c], b_next[l]);
        }
    };

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    // TM · TN FFMAs per k of the slice in buffer `cur`.
    auto multiply_slice = [&](int cur) {
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int g = 0; g < GM; ++g) {
                const float4 q = *reinterpret_cast<const float4*>(&As[cur][k][g * (BM / GM) + ty * 4]);
                a[g * 4 + 0] = q.x; a[g * 4 + 1] = q.y; a[g * 4 + 2] = q.z; a[g * 4 + 3] = q.w;
            }
#pragma unroll
            for (int h = 0; h < GN; ++h) {
                const float4 q = *reinterpret_cast<const float4*>(&Bs[cur][k][h * (BN / GN) + tx * 4]);
                b[h * 4 + 0] = q.x; b[h * 4 + 1] = q.y; b[h * 4 + 2] = q.z; b[h * 4 + 3] = q.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
    };
    double_buffered<BK>(K, load_slice, store_slice, multiply_slice);
    store_tile<BM, BN, VEC>(acc, C, M, N, m0, n0, ty, tx);
}

// The same product with operands copied global → shared by cp.async through STAGES buffers of BK
// (pipelined_async in native_tiles.cuh): no register holds the next slice, which leaves the
// registers of the 8 × 8 micro-tile and its operands, and lets a slice be 16 deep (half the
// barriers of BK = 8) or the pipeline 4 slices deep. cp.async copies 16 bytes as they lie, so A
// is kept as it is (As[m][k], rows padded by 4 floats) instead of transposed: a thread reads, per
// 4 k, one float4 along k for each of its TM rows (TM loads for 4 · TM · TN FFMAs, as many as
// the transposed layout's), and the 16 threads of a half-warp that share a row get it broadcast.
// VEC only: K % 4 == 0, N % 4 == 0 and 16-byte aligned pointers (a float4 is then wholly inside
// or wholly outside A and B).
template <int BM, int BN, int BK, int STAGES>
__device__ __forceinline__ void matmul_tile_async(const float* __restrict__ A, const float* __restrict__ B,
                                                  float* __restrict__ C, int M, int N, int K) {
    constexpr int TM = BM / 16, TN = BN / 16;
    constexpr int GM = TM / 4, GN = TN / 4;
    constexpr int PAD = 4;
    constexpr int A_LOADS = (BM * BK / 4 + MATMUL_THREADS - 1) / MATMUL_THREADS;
    constexpr int B_LOADS = (BK * BN / 4 + MATMUL_THREADS - 1) / MATMUL_THREADS;
    static_assert(BK % 4 == 0, "A is read in float4s along k");

    __shared__ __align__(16) float As[STAGES][BM][BK + PAD];
    __shared__ __align__(16) float Bs[STAGES][BK][BN + PAD];

    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    auto issue = [&](int k0, int s) {
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            const Run run = block_run<BM, BK, A_LOADS, 4>(l);
            if (run.inside) {
                const bool ok = m0 + run.r < M && k0 + run.c < K;
                copy_async16(&As[s][run.r][run.c], A, (long long)(m0 + run.r) * K + k0 + run.c, ok);
            }
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            const Run run = block_run<BK, BN, B_LOADS, 4>(l);
            if (run.inside) {
                const bool ok = k0 + run.r < K && n0 + run.c < N;
                copy_async16(&Bs[s][run.r][run.c], B, (long long)(k0 + run.r) * N + n0 + run.c, ok);
            }
        }
    };

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    auto compute = [&](int s) {
#pragma unroll
        for (int k2 = 0; k2 < BK; k2 += 2) {
            float a[TM][2];
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                const float2 q = *reinterpret_cast<const float2*>(&As[s][(i / 4) * (BM / GM) + ty * 4 + i % 4][k2]);
                a[i][0] = q.x; a[i][1] = q.y;
            }
#pragma unroll
            for (int kk = 0; kk < 2; ++kk) {
                float b[TN];
#pragma unroll
                for (int h = 0; h < GN; ++h) {
                    const float4 q = *reinterpret_cast<const float4*>(&Bs[s][k2 + kk][h * (BN / GN) + tx * 4]);
                    b[h * 4 + 0] = q.x; b[h * 4 + 1] = q.y; b[h * 4 + 2] = q.z; b[h * 4 + 3] = q.w;
                }
#pragma unroll
                for (int i = 0; i < TM; ++i)
#pragma unroll
                    for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i][kk], b[j], acc[i][j]);
            }
        }
    };
    pipelined_async<BK, STAGES>(K, issue, compute);
    store_tile<BM, BN, true>(acc, C, M, N, m0, n0, ty, tx);
}

// grid: (ceil(N / BN), ceil(M / BM)); block: (256).
#define MATMUL_KERNEL(NAME, BM, BN, VEC, MIN_BLOCKS)                                                           \
    extern "C" __global__ void __launch_bounds__(MATMUL_THREADS, MIN_BLOCKS)                                   \
        NAME(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int M, int N, int K) { \
        matmul_tile<BM, BN, VEC>(a, b, c, M, N, K);                                                             \
    }

#ifndef NATIVE_TEMPLATES_ONLY  // native16.cu includes this file for its templates only
MATMUL_KERNEL(matmul_f32_128x128_x4, 128, 128, true, 2)
MATMUL_KERNEL(matmul_f32_128x128, 128, 128, false, 2)
MATMUL_KERNEL(matmul_f32_64x64_x4, 64, 64, true, 2)
MATMUL_KERNEL(matmul_f32_64x64, 64, 64, false, 2)
#endif

// grid: (ceil(N / 128), ceil(M / 128)); block: (256). Names: _k<BK>_s<STAGES>.
#define MATMUL_ASYNC_KERNEL(NAME, BK, STAGES)                                                                  \
    extern "C" __global__ void __launch_bounds__(MATMUL_THREADS, 2)                                            \
        NAME(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int M, int N, int K) { \
        matmul_tile_async<128, 128, BK, STAGES>(a, b, c, M, N, K);                                              \
    }

#ifndef NATIVE_TEMPLATES_ONLY  // native16.cu includes this file for its templates only
MATMUL_ASYNC_KERNEL(matmul_f32_128x128_k16_s2, 16, 2)
MATMUL_ASYNC_KERNEL(matmul_f32_128x128_k8_s4, 8, 4)
#endif
