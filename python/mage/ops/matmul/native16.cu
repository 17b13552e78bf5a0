// bf16 and fp16 kernels of matmul (the lower-precision study). They live in a source of their own so that compiling them
// (NVRTC compiles a whole source at a kernel's first launch) costs nothing to the float32 kernels'
// users: native.cu is included for its templates only, without its float32 kernels.

#define NATIVE_TEMPLATES_ONLY
#include "native.cu"

// ---------------------------------------------------------------- bf16 and fp16 on tensor cores
//
// C = A · B with A, B and C bf16 (or fp16), products accumulated in float32 by the tensor cores'
// mma.sync.m16n8k16 and rounded once, on the store. (WMMA's mma.h is not reachable: NVRTC is given
// no include path, so the instructions are written as inline PTX, as CUTLASS's SM80 path does.)
//
// Tiling, from the outside in:
// - A block computes a BM × BN tile of C and walks K in slices of BK = 32 through STAGES shared
//   buffers filled by cp.async (pipelined_async): the copies of the next STAGES − 1 slices are in
//   flight while the tensor cores multiply one, and no register holds them on the way. The block
//   tile sets the reuse from global memory: every element of an A slice is used BN times and every
//   element of a B slice BM times, so 128 × 128 needs (128 + 128) · 2 bytes a k for 2 · 128² flops,
//   64 flops a byte. The H200's ~990 TFLOP/s of bf16 over 4.8 TB/s of HBM needs ~200, so the tiles'
//   reads must mostly hit L2: the grouped raster below runs MMA_GROUP rows of blocks down each
//   column of blocks together, so blocks in flight share their A and B panels there.
// - Each warp owns a WM × WN tile (64 × 64 or 32 × 32): per 16 of k it loads WM/16 A fragments and
//   WN/8 B fragments from shared memory with ldmatrix and issues (WM/16) · (WN/8) mma, so a fragment
//   read is reused WN/8 (A) or WM/16 (B) times from registers: 64 × 64 gives 32 mma for 12
//   ldmatrix.x4, which keeps the tensor pipe ahead of the shared-memory pipe.
// - Shared memory: A as As[m][k] (k contiguous, 64 bytes a row), B as Bs[k][n] (n contiguous), as
//   they lie in global memory, so cp.async copies 16-byte chunks unchanged. ldmatrix reads 8 rows
//   of one 16-byte column of chunks; unpadded, those rows would share banks (4-way for A, 8-way
//   for B), so the chunk index is XOR-swizzled with the row (A: chunk ^ ((row >> 1) & 3), B:
//   chunk ^ (row & 7)), which puts the 8 rows' chunks on distinct banks for reads and copies alike.
//   B is read with ldmatrix.trans, which hands each thread the (k, k + 1) pairs the mma's
//   column-major B fragment wants.
//
// VEC = true: K % 8 == 0, N % 8 == 0 and 16-byte aligned pointers (a chunk is then wholly inside
// or outside A and B), operands by cp.async, pairs of C by 32-bit stores; VEC = false: any
// shapes, operands loaded element by element with bounds (plain shared stores, seen after the
// slice's barrier), C element by element. Tails load zeros; stores are guarded.
//
// In the CPU emulation of the tests, ldmatrix and mma are computed from every lane's registers,
// exchanged between the lanes, by the PTX ISA's fragment layouts: a layout error shows there.

#include "../../backends/native_half.cuh"

#define MMA_BK 32
#define MMA_GROUP 8  // rows of blocks that walk the columns together (grouped raster)

#ifndef __CUDA_ARCH__
// The 32 lanes' values of each of `mine`, by lane (emulation only): what a warp-collective
// instruction reads. Every thread of a block runs the same sequence of ldmatrix and mma here, so
// two block barriers stand in for the warp's exchange (blocks run one at a time: one buffer).
template <int N>
__device__ inline void warp_values(const unsigned (&mine)[N], unsigned (&all)[N][32]) {
    static unsigned slots[1024][N];
    const unsigned tid = threadIdx.x, first = tid & ~31u;
    for (int i = 0; i < N; ++i) slots[tid][i] = mine[i];
    __syncthreads();
    for (int i = 0; i < N; ++i)
        for (int l = 0; l < 32; ++l) all[i][l] = slots[first + l][i];
    __syncthreads();
}

__device__ inline unsigned short half_of(unsigned word, int high) { return static_cast<unsigned short>(word >> (16 * high)); }
#endif

// Four 8 × 8 matrices of 16-bit elements from shared memory; lane l gives the address of row l % 8
// of matrix l / 8. TRANS: transposed on the way (thread l gets rows 2(l % 4), 2(l % 4) + 1 of column l / 4).
template <bool TRANS, typename H>
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const H* row) {
#ifdef __CUDA_ARCH__
    const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(row));
    if constexpr (TRANS) {
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(at));
    } else {
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(at));
    }
#else
    const unsigned long long p = reinterpret_cast<unsigned long long>(row);
    const unsigned mine[2] = {static_cast<unsigned>(p), static_cast<unsigned>(p >> 32)};
    unsigned all[2][32];
    warp_values(mine, all);
    auto element = [&](int src, int col) {
        return reinterpret_cast<const H*>((static_cast<unsigned long long>(all[1][src]) << 32) | all[0][src])[col].bits;
    };
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    for (int i = 0; i < 4; ++i)
        r[i] = TRANS ? pack2(element(i * 8 + 2 * t, g), element(i * 8 + 2 * t + 1, g))
                     : pack2(element(i * 8 + g, 2 * t), element(i * 8 + g, 2 * t + 1));
#endif
}

#ifdef __CUDA_ARCH__
// The mma instruction of each 16-bit type, chosen by overload.
__device__ __forceinline__ void mma_instruction(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], bf16) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void mma_instruction(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], f16) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#endif

// d += a · b for one m16n8k16 tile: a row-major 16 × 16, b column-major 16 × 8, d float32 16 × 8,
// in the PTX ISA's fragment layouts (thread l: g = l / 4, t = l % 4; a: rows g, g + 8 × k 2t, 2t + 1,
// 2t + 8, 2t + 9; b: k 2t, 2t + 1, 2t + 8, 2t + 9 × column g; d: rows g, g + 8 × columns 2t, 2t + 1).
template <typename H>
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
#ifdef __CUDA_ARCH__
    mma_instruction(d, a, b, H{});
#else
    const unsigned mine[6] = {a[0], a[1], a[2], a[3], b[0], b[1]};
    unsigned all[6][32];
    warp_values(mine, all);
    auto a_at = [&](int r, int k) { return to_float(H{half_of(all[(r >> 3) + 2 * (k >> 3)][(r & 7) * 4 + ((k & 7) >> 1)], k & 1)}); };
    auto b_at = [&](int k, int n) { return to_float(H{half_of(all[4 + (k >> 3)][n * 4 + ((k & 7) >> 1)], k & 1)}); };
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    for (int e = 0; e < 4; ++e) {
        const int r = g + 8 * (e >> 1), n = 2 * t + (e & 1);
        float sum = 0.0f;
        for (int k = 0; k < 16; ++k) sum += a_at(r, k) * b_at(k, n);
        d[e] += sum;
    }
#endif
}

// Shared-memory element offsets of chunk `chunk` (8 elements) of row `row`, swizzled (see above).
template <int BK>
__device__ __forceinline__ int a_slot(int row, int chunk) { return row * BK + ((chunk ^ ((row >> 1) & 3)) << 3); }
template <int BN>
__device__ __forceinline__ int b_slot(int row, int chunk) { return row * BN + ((chunk ^ (row & 7)) << 3); }

// grid: (ceil(N / BN) · ceil(M / BM), 1) in grouped raster order; block: (32 · (BM / WM) · (BN / WN)).
template <typename H, int BM, int BN, int WM, int WN, int STAGES, bool VEC>
__device__ __forceinline__ void matmul_mma(const H* __restrict__ A, const H* __restrict__ B, H* __restrict__ C,
                                           int M, int N, int K) {
    constexpr int BK = MMA_BK;
    constexpr int WARPS_N = BN / WN;
    constexpr int THREADS = 32 * (BM / WM) * WARPS_N;
    constexpr int MT = WM / 16, NT = WN / 8;  // mma tiles a warp
    constexpr int A_CHUNKS = BM * BK / 8, B_CHUNKS = BK * BN / 8;
    static_assert(BK == 32 && BN % 64 == 0 && NT % 2 == 0, "swizzles: 4 chunks a row of A, 8k of B");
    static_assert(A_CHUNKS % THREADS == 0 && B_CHUNKS % THREADS == 0, "whole chunks a thread");

    __shared__ __align__(128) H As[STAGES][BM * BK];
    __shared__ __align__(128) H Bs[STAGES][BK * BN];

    // Grouped raster: consecutive blocks go down MMA_GROUP rows of blocks before the next column,
    // so blocks running together share their B panels (and A panels) in L2.
    const int blocks_m = (M + BM - 1) / BM, blocks_n = (N + BN - 1) / BN;
    const int id = blockIdx.x, per_group = MMA_GROUP * blocks_n;
    const int first_m = (id / per_group) * MMA_GROUP;
    const int rows_in_group = blocks_m - first_m < MMA_GROUP ? blocks_m - first_m : MMA_GROUP;
    const int m0 = (first_m + (id % per_group) % rows_in_group) * BM;
    const int n0 = ((id % per_group) / rows_in_group) * BN;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;

    auto issue = [&](int k0, int s) {
#pragma unroll
        for (int l = 0; l < A_CHUNKS / THREADS; ++l) {
            const int q = tid + l * THREADS, row = q / (BK / 8), chunk = q % (BK / 8);
            const int m = m0 + row, k = k0 + chunk * 8;
            H* dst = &As[s][a_slot<BK>(row, chunk)];
            if constexpr (VEC) {
                copy_async16(dst, A, (long long)m * K + k, m < M && k < K);
            } else {
#pragma unroll
                for (int e = 0; e < 8; ++e) dst[e] = m < M && k + e < K ? A[(long long)m * K + k + e] : H{};
            }
        }
#pragma unroll
        for (int l = 0; l < B_CHUNKS / THREADS; ++l) {
            const int q = tid + l * THREADS, row = q / (BN / 8), chunk = q % (BN / 8);
            const int k = k0 + row, n = n0 + chunk * 8;
            H* dst = &Bs[s][b_slot<BN>(row, chunk)];
            if constexpr (VEC) {
                copy_async16(dst, B, (long long)k * N + n, k < K && n < N);
            } else {
#pragma unroll
                for (int e = 0; e < 8; ++e) dst[e] = k < K && n + e < N ? B[(long long)k * N + n + e] : H{};
            }
        }
    };

    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

    auto compute = [&](int s) {
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            unsigned a[MT][4], b[NT][2];
#pragma unroll
            for (int i = 0; i < MT; ++i) {  // matrices: rows 0-7 | 8-15 of k 0-7, then of k 8-15
                const int row = wm + i * 16 + (lane & 15), chunk = (kk >> 3) + (lane >> 4);
                ldmatrix_x4<false>(a[i], &As[s][a_slot<BK>(row, chunk)]);
            }
#pragma unroll
            for (int j = 0; j < NT; j += 2) {  // matrices: k 0-7 | 8-15 of columns j, then of j + 1
                const int row = kk + (lane & 7) + ((lane >> 3) & 1) * 8, chunk = (wn >> 3) + j + (lane >> 4);
                unsigned r[4];
                ldmatrix_x4<true>(r, &Bs[s][b_slot<BN>(row, chunk)]);
                b[j][0] = r[0]; b[j][1] = r[1]; b[j + 1][0] = r[2]; b[j + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) mma_16816<H>(acc[i][j], a[i], b[j]);
        }
    };
    pipelined_async<BK, STAGES>(K, issue, compute);

    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const int m = m0 + wm + i * 16 + g + 8 * half, n = n0 + wn + j * 8 + 2 * t;
                if (m >= M) continue;
                H* out = C + (long long)m * N + n;
                const H lo = from_float<H>(acc[i][j][2 * half]), hi = from_float<H>(acc[i][j][2 * half + 1]);
                if constexpr (VEC) {
                    if (n < N) *reinterpret_cast<unsigned*>(out) = pack2(lo.bits, hi.bits);
                } else {
                    if (n < N) out[0] = lo;
                    if (n + 1 < N) out[1] = hi;
                }
            }
}

#define MATMUL_MMA(NAME, H, BM, BN, WM, WN, STAGES, VEC)                                                       \
    extern "C" __global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN)) NAME(                              \
        const H* __restrict__ A, const H* __restrict__ B, H* __restrict__ C, int M, int N, int K) {             \
        matmul_mma<H, BM, BN, WM, WN, STAGES, VEC>(A, B, C, M, N, K);                                           \
    }

// Per type: 128 × 128 with 4 warps of 64 × 64 and 3 stages (48 KB of shared memory, the static
// limit; the default for large shapes), with 8 warps of 64 × 32 (twice the warps to hide latency,
// half the reuse a fragment), 256 × 128 with 8 warps of 64 × 64 and 2 stages (twice the reuse of B
// a block, 48 KB), and 64 × 64 with 4 warps of 32 × 32 and 4 stages (small or ragged shapes).
#define MATMUL_MMA_ALL(TAG, H)                                                                                  \
    MATMUL_MMA(matmul_##TAG##_mma128x128_w4_x8, H, 128, 128, 64, 64, 3, true)                                  \
    MATMUL_MMA(matmul_##TAG##_mma128x128_w8_x8, H, 128, 128, 64, 32, 3, true)                                  \
    MATMUL_MMA(matmul_##TAG##_mma256x128_w8_x8, H, 256, 128, 64, 64, 2, true)                                  \
    MATMUL_MMA(matmul_##TAG##_mma64x64_w4_x8, H, 64, 64, 32, 32, 4, true)                                      \
    MATMUL_MMA(matmul_##TAG##_mma64x64_w4, H, 64, 64, 32, 32, 4, false)

MATMUL_MMA_ALL(bf16, bf16)
MATMUL_MMA_ALL(f16, f16)
