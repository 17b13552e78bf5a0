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

    // Global → registers: slice starting at k0 (zeros outside A and B). Load l of a thread is
    // float4 (or scalar) f of the slice, counted along rows of A (BM × BK) and of B (BK × BN).
    auto load_slice = [&](int k0) {
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            const int f = tid + l * MATMUL_THREADS;
            const int row = f / (BK / A_WIDTH), k = (f % (BK / A_WIDTH)) * A_WIDTH;
            const bool ok = (!VEC || f < BM * BK / 4) && m0 + row < M && k0 + k < K;
            load_or_zero(a_next[l], A + (long long)(m0 + row) * K + k0 + k, ok);
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            const int f = tid + l * MATMUL_THREADS;
            const int k = f / (BN / B_WIDTH), col = (f % (BN / B_WIDTH)) * B_WIDTH;
            const bool ok = (!VEC || f < BK * BN / 4) && k0 + k < K && n0 + col < N;
            load_or_zero(b_next[l], B + (long long)(k0 + k) * N + n0 + col, ok);
        }
    };

    // Registers → shared buffer `s` (A transposed).
    auto store_slice = [&](int s) {
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            if (VEC) {
                const int f = tid + l * MATMUL_THREADS;
                if (f < BM * BK / 4) {
                    const int row = f / (BK / 4), kq = (f % (BK / 4)) * 4;
#pragma unroll
                    for (int q = 0; q < 4; ++q) As[s][kq + q][row] = a_next[l][q];
                }
            } else {
                const int e = tid + l * MATMUL_THREADS;
                As[s][e % BK][e / BK] = a_next[l][0];
            }
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            if (VEC) {
                const int f = tid + l * MATMUL_THREADS;
                if (f < BK * BN / 4) {
                    const int k = f / (BN / 4), col = (f % (BN / 4)) * 4;
                    *reinterpret_cast<float4*>(&Bs[s][k][col]) = make_float4(b_next[l][0], b_next[l][1], b_next[l][2], b_next[l][3]);
                }
            } else {
                const int e = tid + l * MATMUL_THREADS;
                Bs[s][e / BN][e % BN] = b_next[l][0];
            }
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

// grid: (ceil(N / BN), ceil(M / BM)); block: (256).
#define MATMUL_KERNEL(NAME, BM, BN, VEC, MIN_BLOCKS)                                                           \
    extern "C" __global__ void __launch_bounds__(MATMUL_THREADS, MIN_BLOCKS)                                   \
        NAME(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int M, int N, int K) { \
        matmul_tile<BM, BN, VEC>(a, b, c, M, N, K);                                                             \
    }

MATMUL_KERNEL(matmul_f32_128x128_x4, 128, 128, true, 2)
MATMUL_KERNEL(matmul_f32_128x128, 128, 128, false, 2)
MATMUL_KERNEL(matmul_f32_64x64_x4, 64, 64, true, 2)
MATMUL_KERNEL(matmul_f32_64x64, 64, 64, false, 2)
