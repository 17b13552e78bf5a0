// LayerNorm over the last dimension, affine, float32 (see spec.py):
//     out[r, c] = (x[r, c] − mean[r]) / sqrt(var[r] + eps) · weight[c] + bias[c]
//
// A row is held in registers by THREADS threads (one warp, or a whole block for wide rows),
// each keeping V chunks of W contiguous elements (W = 4: float4 loads). The row is read from
// memory once: the mean is reduced first, then the mean of squared deviations from the same
// registers (two passes, no E[x²] − E[x]² cancellation), then the row is normalized and
// written. Warp kernels put four rows in a block of 128 threads. Rows too wide for the
// register kernels, or not a multiple of 4 wide beyond 1024, use the looped kernel: a block
// per row reading the row three times (mean, deviations, output; the re-reads hit L1/L2).
//
// Reductions are deterministic: warp butterflies, then every thread sums the per-warp partials
// in the same order.

#include "../../backends/native_half.cuh"

template <int THREADS>
__device__ __forceinline__ float row_sum(float v, float* scratch) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    if (THREADS == 32) return v;
    const int warp = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0) scratch[warp] = v;
    __syncthreads();
    // Every warp sums the warps' partials, a lane each, by the same butterfly: float addition is commutative, so
    // every lane of every warp ends with the same bits, in 5 shuffles where a loop over 32 partials took 64
    // instructions a thread.
    const unsigned lane = threadIdx.x & 31;
    float total = lane < THREADS / 32 ? scratch[lane] : 0.0f;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) total += __shfl_xor_sync(0xffffffffu, total, offset);
    __syncthreads();  // scratch is reused by the next reduction
    return total;
}

template <int W>
__device__ __forceinline__ void load_chunk(const float* p, float (&v)[W]) {
    if (W == 4) {
        const float4 q = *reinterpret_cast<const float4*>(p);
        v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
    } else {
#pragma unroll
        for (int j = 0; j < W; ++j) v[j] = p[j];
    }
}

template <int W>
__device__ __forceinline__ void store_chunk(float* p, const float (&v)[W]) {
    if (W == 4) {
        *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
#pragma unroll
        for (int j = 0; j < W; ++j) p[j] = v[j];
    }
}

// x, out: rows × cols contiguous; weight, bias: cols; T float (or bf16, fp16: native16.cu).
// THREADS · V · W ≥ cols; W = 4 (float) or 8 (16-bit) needs whole 16-byte chunks a row and
// 16-byte aligned pointers. THREADS == 32: block (128), grid ceil(rows / 4);
// otherwise block (THREADS), grid (rows).
template <int THREADS, int V, int W, typename T>
__device__ __forceinline__ void layernorm_registers(const T* __restrict__ x, const T* __restrict__ weight,
                                                    const T* __restrict__ bias, T* __restrict__ out,
                                                    long long rows, int cols, float eps) {
    __shared__ float scratch[THREADS > 32 ? THREADS / 32 : 1];
    const int t = THREADS == 32 ? (threadIdx.x & 31) : threadIdx.x;
    const long long row = THREADS == 32 ? (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5) : (long long)blockIdx.x;
    if (row >= rows) return;  // whole warps only: a warp holds one row
    const T* xr = x + row * cols;
    T* outr = out + row * cols;

    float v[V][W];
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < V; ++i) {
        const int c = (t + i * THREADS) * W;
        if (c < cols) {
            load_chunk<W>(xr + c, v[i]);
        } else {
#pragma unroll
            for (int j = 0; j < W; ++j) v[i][j] = 0.0f;
        }
#pragma unroll
        for (int j = 0; j < W; ++j) sum += v[i][j];
    }
    const float mean = row_sum<THREADS>(sum, scratch) / (float)cols;

    float squares = 0.0f;
#pragma unroll
    for (int i = 0; i < V; ++i) {
        const int c = (t + i * THREADS) * W;
#pragma unroll
        for (int j = 0; j < W; ++j) {
            const float d = (c + j < cols) ? v[i][j] - mean : 0.0f;
            squares += d * d;
        }
    }
    const float rstd = 1.0f / sqrtf(row_sum<THREADS>(squares, scratch) / (float)cols + eps);

#pragma unroll
    for (int i = 0; i < V; ++i) {
        const int c = (t + i * THREADS) * W;
        if (c < cols) {
            float w[W], b[W], y[W];
            load_chunk<W>(weight + c, w);
            load_chunk<W>(bias + c, b);
#pragma unroll
            for (int j = 0; j < W; ++j) y[j] = (v[i][j] - mean) * rstd * w[j] + b[j];
            store_chunk<W>(outr + c, y);
        }
    }
}

// Kernels of element type T (float here; bf16 and fp16 in native16.cu).
#define LAYERNORM_WARP_OF(NAME, T, V, W)                                                                        \
    extern "C" __global__ void __launch_bounds__(128) NAME(const T* __restrict__ x, const T* __restrict__ weight, \
                                                           const T* __restrict__ bias, T* __restrict__ out,      \
                                                           long long rows, int cols, float eps) {               \
        layernorm_registers<32, V, W>(x, weight, bias, out, rows, cols, eps);                                     \
    }

#define LAYERNORM_BLOCK_OF(NAME, T, THREADS, V, W)                                                                \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(const T* __restrict__ x, const T* __restrict__ weight, \
                                                               const T* __restrict__ bias, T* __restrict__ out,      \
                                                               long long rows, int cols, float eps) {               \
        layernorm_registers<THREADS, V, W>(x, weight, bias, out, rows, cols, eps);                                    \
    }

#define LAYERNORM_WARP(NAME, V, W) LAYERNORM_WARP_OF(NAME, float, V, W)
#define LAYERNORM_BLOCK(NAME, THREADS, V, W) LAYERNORM_BLOCK_OF(NAME, float, THREADS, V, W)

#ifndef NATIVE_TEMPLATES_ONLY  // native16.cu includes this file for its templates only
// float4 rows: a warp holds up to 128·V columns, a block up to 16·THREADS.
LAYERNORM_WARP(layernorm_f32_warp_x4_v1, 1, 4)
LAYERNORM_WARP(layernorm_f32_warp_x4_v2, 2, 4)
LAYERNORM_WARP(layernorm_f32_warp_x4_v4, 4, 4)
LAYERNORM_WARP(layernorm_f32_warp_x4_v8, 8, 4)
LAYERNORM_BLOCK(layernorm_f32_block128_x4, 128, 4, 4)
LAYERNORM_BLOCK(layernorm_f32_block256_x4, 256, 4, 4)
LAYERNORM_BLOCK(layernorm_f32_block512_x4, 512, 4, 4)
LAYERNORM_BLOCK(layernorm_f32_block1024_x4, 1024, 4, 4)
// Scalar rows (any width): a warp holds up to 32·V columns.
LAYERNORM_WARP(layernorm_f32_warp_v1, 1, 1)
LAYERNORM_WARP(layernorm_f32_warp_v2, 2, 1)
LAYERNORM_WARP(layernorm_f32_warp_v4, 4, 1)
LAYERNORM_WARP(layernorm_f32_warp_v8, 8, 1)
LAYERNORM_WARP(layernorm_f32_warp_v16, 16, 1)
LAYERNORM_WARP(layernorm_f32_warp_v32, 32, 1)
#endif

// Any width: block (256) per row, grid (rows); three reads of the row. T as layernorm_registers.
template <typename T>
__device__ __forceinline__ void layernorm_looped(const T* __restrict__ x, const T* __restrict__ weight,
                                                 const T* __restrict__ bias, T* __restrict__ out, int cols, float eps) {
    __shared__ float scratch[256 / 32];
    const long long row = blockIdx.x;
    const T* xr = x + row * cols;
    T* outr = out + row * cols;
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 256) sum += to_float(xr[c]);
    const float mean = row_sum<256>(sum, scratch) / (float)cols;
    float squares = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 256) {
        const float d = to_float(xr[c]) - mean;
        squares += d * d;
    }
    const float rstd = 1.0f / sqrtf(row_sum<256>(squares, scratch) / (float)cols + eps);
    for (int c = threadIdx.x; c < cols; c += 256)
        outr[c] = from_float<T>((to_float(xr[c]) - mean) * rstd * to_float(weight[c]) + to_float(bias[c]));
}

#ifndef NATIVE_TEMPLATES_ONLY  // native16.cu includes this file for its templates only
extern "C" __global__ void __launch_bounds__(256) layernorm_f32_looped(
    const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias, float* __restrict__ out,
    long long rows, int cols, float eps) {
    layernorm_looped(x, weight, bias, out, cols, eps);
}
#endif

// ---------------------------------------------------------------- the cluster strategies: wide rows, read once
//
// A cluster of K CTAs a row (native_cluster.cuh): each CTA holds its slice of the row in registers
// (THREADS threads, V 16-byte chunks each: 4 floats, or 8 bf16 or fp16 elements as loaded, widened at each
// use) and reduces it to (count, mean, M2) in two passes over those registers, the mean taken about a pivot
// (the slice's first element) so that a row of 1e4 + N(0, 1) sums numbers near 0, not near 1e4. The K
// partials combine in rank order as Chan et al. combine (count, mean, M2), so no E[x²] − E[x]² cancellation
// appears at any step. `cluster` launches a cluster a row, `slice` the same with K = 1; `pipe` keeps
// clusters resident and pipelines rows (pipelined_rows). The float32 kernels are compiled here, the bf16 and
// fp16 ones in native16.cu, the cluster and slice ones with plans of their own
// (mage.backends.rows.SIXTEEN_BIT_CLUSTER_PLANS), the pipe ones with plans of their own (native_cluster.cuh).
#include "../../backends/native_cluster.cuh"

// Σ (x − p) over a chunk.
__device__ __forceinline__ float shifted_sum(const float4& v, float p) {
    return ((v.x - p) + (v.y - p)) + ((v.z - p) + (v.w - p));
}

template <typename H>
__device__ __forceinline__ float shifted_sum(const Half8<H>& v, float p) {
    float f[8];
    unpack8(v, f);
    return (((f[0] - p) + (f[1] - p)) + ((f[2] - p) + (f[3] - p))) + (((f[4] - p) + (f[5] - p)) + ((f[6] - p) + (f[7] - p)));
}

// Σ (x − mean)² over a chunk.
__device__ __forceinline__ float squares(const float4& v, float mean) {
    const float a = v.x - mean, b = v.y - mean, c = v.z - mean, d = v.w - mean;
    return (a * a + b * b) + (c * c + d * d);
}

template <typename H>
__device__ __forceinline__ float squares(const Half8<H>& v, float mean) {
    float f[8];
    unpack8(v, f);
#pragma unroll
    for (int k = 0; k < 8; ++k) f[k] -= mean;
    return ((f[0] * f[0] + f[1] * f[1]) + (f[2] * f[2] + f[3] * f[3])) +
           ((f[4] * f[4] + f[5] * f[5]) + (f[6] * f[6] + f[7] * f[7]));
}

// A float chunk normalized, (x − mean) · rstd · w + b.
__device__ __forceinline__ float4 affine_chunk(const float4& v, float mean, float rstd, const float4& w, const float4& b) {
    return make_float4((v.x - mean) * rstd * w.x + b.x, (v.y - mean) * rstd * w.y + b.y,
                       (v.z - mean) * rstd * w.z + b.z, (v.w - mean) * rstd * w.w + b.w);
}

// A chunk normalized, (x − mean) · rstd · weight + bias, stored at out: 16-byte accesses where `vector_out`
// (out aligned) and `vector_affine` (weight and bias aligned), else scalars, stored as S says
// (native_cluster.cuh); a 16-bit output rounded once. Float weight and bias are read by plain loads, which serve
// global and shared memory alike (whatever F).
template <Stores S, int SHIFT = 0, From F = From::global>
__device__ __forceinline__ void normalize_chunk(float* out, const float* weight, const float* bias, const float4& v,
                                                float mean, float rstd, bool vector_out, bool vector_affine) {
    const float4 w = load_quad(weight, vector_affine), b = load_quad(bias, vector_affine);
    store_quad<S>(out, affine_chunk(v, mean, rstd, w, b), vector_out);
}

// A 16-bit chunk's eight elements normalized, (x − mean) · rstd · w + b in float32 a pair at a time (one 32-bit word of
// x, w and b each, so that few floats are live beside the row's registers), each rounded once.
template <typename H>
__device__ __forceinline__ uint4 affine_chunk(const Half8<H>& v, float mean, float rstd, const Half8<H>& w8,
                                              const Half8<H>& b8) {
    const unsigned x[4] = {v.q.x, v.q.y, v.q.z, v.q.w}, w[4] = {w8.q.x, w8.q.y, w8.q.z, w8.q.w},
                   b[4] = {b8.q.x, b8.q.y, b8.q.z, b8.q.w};
    unsigned y[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float lo = (half_of<H>(x[i], 0) - mean) * rstd * half_of<H>(w[i], 0) + half_of<H>(b[i], 0);
        const float hi = (half_of<H>(x[i], 1) - mean) * rstd * half_of<H>(w[i], 1) + half_of<H>(b[i], 1);
        y[i] = pack2(from_float<H>(lo).bits, from_float<H>(hi).bits);
    }
    return make_uint4(y[0], y[1], y[2], y[3]);
}

// A chunk's weight or bias (float4, or eight 16-bit elements): one 16-byte load where `vector`, else scalars.
__device__ __forceinline__ float4 load_affine(const float* p, bool vector) { return load_quad(p, vector); }

template <typename H>
__device__ __forceinline__ Half8<H> load_affine(const H* p, bool vector) {
    return load_half8<From::global>(p, vector);
}

// A normalized chunk stored at out: one 16-byte store where `vector` (out aligned), else scalars.
template <Stores S>
__device__ __forceinline__ void store_normalized(float* out, const float4& y, bool vector) {
    store_quad<S>(out, y, vector);
}

template <Stores S, typename H>
__device__ __forceinline__ void store_normalized(H* out, const uint4& y, bool vector) {
    if (vector) {
        store16<S>(out, y);
    } else {
        const unsigned words[4] = {y.x, y.y, y.z, y.w};
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            out[k] = H{static_cast<unsigned short>(k % 2 ? words[k / 2] >> 16 : words[k / 2] & 0xffffu)};
        }
    }
}

// A 16-bit chunk normalized (affine_chunk) and stored. SHIFT > 0: weight and bias start SHIFT elements past a 16-byte
// boundary, each read from the two blocks that hold it (load_half8_shifted); F: the memory they are read from.
template <Stores S, int SHIFT = 0, From F = From::global, typename H>
__device__ __forceinline__ void normalize_chunk(H* out, const H* weight, const H* bias, const Half8<H>& v, float mean,
                                                float rstd, bool vector_out, bool vector_affine) {
    Half8<H> w8, b8;
    if constexpr (SHIFT > 0) {
        w8 = load_half8_shifted<SHIFT, F>(weight);
        b8 = load_half8_shifted<SHIFT, F>(bias);
    } else {
        w8 = load_half8<F>(weight, vector_affine);
        b8 = load_half8<F>(bias, vector_affine);
    }
    store_normalized<S>(out, affine_chunk(v, mean, rstd, w8, b8), vector_out);
}

struct Moments {
    float count, mean, m2;
};

// a and b merged as Chan et al. merge (count, mean, M2): no E[x²] − E[x]² cancellation; b empty leaves a.
__device__ __forceinline__ Moments merge_moments(Moments a, const Moments& b) {
    if (b.count > 0.0f) {
        const float total = a.count + b.count, delta = b.mean - a.mean;
        a.mean += delta * (b.count / total);
        a.m2 += b.m2 + delta * delta * (a.count * b.count / total);
        a.count = total;
    }
    return a;
}

// 1 / √(var + eps) of a row whose moments are `m`, var = M2 / cols.
__device__ __forceinline__ float inverse_std(const Moments& m, int cols, float eps) {
    return 1.0f / sqrtf(m.m2 / (float)cols + eps);
}

// (count, mean, M2) of a CTA's slice: v (the valid body chunks), its edge scalar and, where the slice runs past
// the registers (the deep strategy), its `staged` chunks in shared memory, about `pivot`.
template <int THREADS, int V, typename Chunk>
__device__ __forceinline__ Moments slice_moments(const RowSlice& s, const Chunk (&v)[V], float edge, float pivot,
                                                 float* scratch, const Chunk* staged = nullptr, int staged_chunks = 0) {
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < V; ++i) {
        if (s.first + (int)threadIdx.x + i * THREADS < s.end) sum += shifted_sum(v[i], pivot);
    }
    for (int j = threadIdx.x; j < staged_chunks; j += THREADS) sum += shifted_sum(staged[j], pivot);
    if (s.edge >= 0) sum += edge - pivot;
    const float shifted = row_sum<THREADS>(sum, scratch);
    const float mean = s.count > 0 ? pivot + shifted / (float)s.count : 0.0f;

    float m2 = 0.0f;
#pragma unroll
    for (int i = 0; i < V; ++i) {
        if (s.first + (int)threadIdx.x + i * THREADS < s.end) m2 += squares(v[i], mean);
    }
    for (int j = threadIdx.x; j < staged_chunks; j += THREADS) m2 += squares(staged[j], mean);
    if (s.edge >= 0) m2 += (edge - mean) * (edge - mean);
    return {(float)s.count, mean, row_sum<THREADS>(m2, scratch)};
}

// Publish this CTA's moments in `slot` (its shared memory), then, after one cluster barrier, the row's, the same bits
// in every thread of every CTA of the cluster: lane l of every warp reads rank l mod K's moments through DSMEM, and
// the ranks merge pairwise up a butterfly in rank order, the lower rank's first (a merge is not symmetric). Each run of
// K lanes holds the ranks in order, so every lane makes the same merges and ends with the same bits. A thread merging
// all K itself spent 3·K remote loads and K merges a row: a 16-rank kernel doing so, with a loop over its warps'
// partials, executed 2.4× the instructions of the cluster of 8 (ncu).
// R rows' moments at once (the pair strategy's two): slot holds 3 · R floats, and one cluster barrier serves them all.
template <int K, int R>
__device__ __forceinline__ void cluster_moments_of(Moments (&rows)[R], float* slot) {
    static_assert(K <= 32 && (K & (K - 1)) == 0, "a power of two of ranks, up to one a lane");
    if (threadIdx.x == 0) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            slot[3 * r] = rows[r].count;
            slot[3 * r + 1] = rows[r].mean;
            slot[3 * r + 2] = rows[r].m2;
        }
    }
    sync_cluster<K>();
    const unsigned lane = threadIdx.x & 31, rank = lane & (K - 1);
#pragma unroll
    for (int r = 0; r < R; ++r) {
        Moments m = {load_from_rank<K>(&slot[3 * r], rank), load_from_rank<K>(&slot[3 * r + 1], rank),
                     load_from_rank<K>(&slot[3 * r + 2], rank)};
#pragma unroll
        for (int step = 1; step < K; step <<= 1) {
            const Moments other = {__shfl_xor_sync(0xffffffffu, m.count, step),
                                   __shfl_xor_sync(0xffffffffu, m.mean, step), __shfl_xor_sync(0xffffffffu, m.m2, step)};
            // The lower rank's moments go first, chosen field by field before one merge (a choice between two
            // structs put them in local memory).
            const bool upper = lane & step;
            const Moments lower = {upper ? other.count : m.count, upper ? other.mean : m.mean, upper ? other.m2 : m.m2};
            const Moments higher = {upper ? m.count : other.count, upper ? m.mean : other.mean, upper ? m.m2 : other.m2};
            m = merge_moments(lower, higher);
        }
        rows[r] = m;
    }
}

template <int K>
__device__ __forceinline__ Moments cluster_moments(Moments own, float* slot) {
    Moments rows[1] = {own};
    cluster_moments_of<K, 1>(rows, slot);
    return rows[0];
}

// Normalize a CTA's body chunks of row `outr` from registers, 16-byte accesses where `to_vector` (out) and
// `from_vector` (weight and bias) say, or with SHIFT (16-bit rows) weight and bias read shifted, from F.
template <int THREADS, int V, Stores S, From F, int SHIFT = 0, typename T, typename Chunk>
__device__ __forceinline__ void normalize_chunks(const T* __restrict__ weight, const T* __restrict__ bias,
                                                 T* __restrict__ outr, const RowSlice& s, const Chunk (&v)[V],
                                                 float mean, float rstd, bool to_vector, bool from_vector) {
#pragma unroll
    for (int i = 0; i < V; ++i) {
        const int j = s.first + threadIdx.x + i * THREADS;
        if (j < s.end) {
            const int c = s.head + CHUNK_ELEMENTS<T> * j;
            normalize_chunk<S, SHIFT, F>(outr + c, weight + c, bias + c, v[i], mean, rstd, to_vector, from_vector);
        }
    }
}

// A 16-bit row whose out is 16-byte aligned where weight and bias are not, but both SHIFT elements past a
// boundary (a row of an odd width starting off one, with weight and bias aligned at column 0): its loop for that
// shift, chosen once a row, with 16-byte stores and two 16-byte loads each of weight and bias a chunk. Each
// shift from SHIFT to 7 is tried in turn (a compile-time constant in each loop); false where none is the row's.
template <int THREADS, int V, Stores S, From F, int SHIFT = 1, typename T, typename Chunk>
__device__ __forceinline__ bool normalize_shifted(const T* __restrict__ weight, const T* __restrict__ bias,
                                                  T* __restrict__ outr, const RowSlice& s, const Chunk (&v)[V],
                                                  float mean, float rstd, int shift) {
    if (shift == SHIFT) {
        normalize_chunks<THREADS, V, S, F, SHIFT>(weight, bias, outr, s, v, mean, rstd, true, false);
        return true;
    }
    if constexpr (SHIFT < 7) {
        return normalize_shifted<THREADS, V, S, F, SHIFT + 1>(weight, bias, outr, s, v, mean, rstd, shift);
    } else {
        return false;
    }
}

// The shift, in 16-bit elements, of p past a 16-byte boundary.
template <typename T>
__device__ __forceinline__ int shift_in_block(const T* p) {
    return static_cast<int>(reinterpret_cast<unsigned long long>(p) & 15) / 2;
}

// Normalize and write a CTA's slice of row `outr` from registers, weight and bias read from F.
template <int THREADS, int V, Stores S, From F = From::global, typename T, typename Chunk>
__device__ __forceinline__ void write_slice(const T* __restrict__ weight, const T* __restrict__ bias,
                                            T* __restrict__ outr, const RowSlice& s, const Chunk (&v)[V], float edge,
                                            const Moments& row, int cols, float eps) {
    const float rstd = inverse_std(row, cols, eps);
    const bool vector_out = aligned16(outr + s.head), vector_affine = aligned16(weight + s.head) && aligned16(bias + s.head);
    // A 16-bit row's aligned case as a loop of its own, chosen once, not at every chunk: ptxas had issued both
    // forms of each load under opposite predicates (a chunk's 16 scalar loads of weight and bias beside its two
    // 16-byte ones, all issued whichever held). A float row keeps one loop: two of them took the 4-CTA kernel
    // from 64 registers to 74 (one CTA an SM), or to a spill when held to 64.
    if constexpr (sizeof(T) == 2) {
        if (vector_out && vector_affine) {
            normalize_chunks<THREADS, V, S, F>(weight, bias, outr, s, v, row.mean, rstd, true, true);
        } else if (!vector_out || shift_in_block(weight + s.head) != shift_in_block(bias + s.head) ||
                   !normalize_shifted<THREADS, V, S, F>(weight, bias, outr, s, v, row.mean, rstd,
                                                        shift_in_block(weight + s.head))) {
            normalize_chunks<THREADS, V, S, F>(weight, bias, outr, s, v, row.mean, rstd, vector_out, vector_affine);
        }
    } else {
        normalize_chunks<THREADS, V, S, F>(weight, bias, outr, s, v, row.mean, rstd, vector_out, vector_affine);
    }
    if (s.edge >= 0)
        outr[s.edge] = from_float<T>((edge - row.mean) * rstd * to_float(weight[s.edge]) + to_float(bias[s.edge]));
}

// A CTA's slice s of row xr into registers (v: its body chunks, those past the slice left undefined; edge: its head or
// tail scalar) and the slice's pivot, its first element.
template <int THREADS, int V, typename T, typename Chunk>
__device__ __forceinline__ float load_slice(const T* __restrict__ xr, const RowSlice& s, Chunk (&v)[V], float& edge) {
    const float pivot = to_float(s.end > s.first ? xr[s.head + CHUNK_ELEMENTS<T> * s.first]
                                                 : (s.edge >= 0 ? xr[s.edge] : from_float<T>(0.0f)));
#pragma unroll
    for (int i = 0; i < V; ++i) {
        const int j = s.first + threadIdx.x + i * THREADS;
        if (j < s.end) v[i] = *reinterpret_cast<const Chunk*>(xr + s.head + CHUNK_ELEMENTS<T> * j);
    }
    if (s.edge >= 0) edge = to_float(xr[s.edge]);
    return pivot;
}

// x, out: rows × cols of T (float, bf16 or f16); weight, bias: cols of T. Grid (rows · K), block (THREADS);
// K · THREADS · V ≥ the row's 16-byte chunks (mage.backends.rows.cluster_plan). One cluster a row: with 256 MB
// of rows there are always more clusters than fit, and the next cluster's loads on an SM overlap the barrier
// and reduction of the one before.
template <int K, int THREADS, int V, typename T>
__device__ __forceinline__ void layernorm_cluster(const T* __restrict__ x, const T* __restrict__ weight,
                                                  const T* __restrict__ bias, T* __restrict__ out, int cols,
                                                  float eps) {
    __shared__ float scratch[THREADS / 32];
    __shared__ float published[3];  // this CTA's (count, mean, M2), read by every CTA of the cluster
    const unsigned rank = rank_in_cluster<K>();
    const long long row = blockIdx.x / K;
    const T* xr = x + row * cols;
    const RowSlice s = row_slice(xr, cols, rank, K);
    typename RowChunk<T>::type v[V];
    float edge = 0.0f;
    const float pivot = load_slice<THREADS, V>(xr, s, v, edge);
    const Moments moments = cluster_moments<K>(slice_moments<THREADS, V>(s, v, edge, pivot, scratch), published);
    arrive_cluster<K>();  // this CTA's partials are read: its peers may exit once it has written
    write_slice<THREADS, V, Stores::plain>(weight, bias, out + row * cols, s, v, edge, moments, cols, eps);
    wait_cluster<K>();  // no CTA exits while a peer may still read its shared memory
}

// The rows a pair strategy's two rows are apart: the fewest whose bytes are a whole number of 16-byte blocks, so that
// both start at the same offset past a boundary and row_slice gives a CTA the same columns of each
// (mage.backends.rows.pair_period): 1 where a row is, 4 for float rows of an odd width, 8 for 16-bit ones.
template <typename T>
__device__ __forceinline__ long long pair_period(int cols) {
    const unsigned bytes = (static_cast<unsigned>(cols) * static_cast<unsigned>(sizeof(T))) & 15u;
    return bytes == 0 ? 1 : 16 / (bytes & (0u - bytes));
}

// The pair strategy (LayerNorm): a cluster of K CTAs holds two rows P apart (pair_period), each CTA the same rank's
// slice of both, V chunks a thread of each, so that one cluster barrier merges both rows' moments and each chunk of
// weight and bias is read once for the two: the cluster strategy reads them from L2 for every row, as many bytes again
// as the row's own. Cluster c takes rows (c / P) · 2P + c mod P and P more; a last row without a partner is held
// twice and written once. Grid (mage.backends.rows.pair_clusters · K), block (THREADS).
template <int K, int THREADS, int V, typename T>
__device__ __forceinline__ void layernorm_pair(const T* __restrict__ x, const T* __restrict__ weight,
                                               const T* __restrict__ bias, T* __restrict__ out, long long rows,
                                               int cols, float eps) {
    __shared__ float scratch[THREADS / 32];
    __shared__ float published[6];  // this CTA's (count, mean, M2) of each row
    const unsigned rank = rank_in_cluster<K>();
    const long long period = pair_period<T>(cols), cluster = blockIdx.x / K;
    const long long first = cluster / period * 2 * period + cluster % period;
    const bool paired = first + period < rows;  // the same for the whole cluster
    const long long second = paired ? first + period : first;
    const T* x0 = x + first * cols;
    const T* x1 = x + second * cols;
    const RowSlice s = row_slice(x0, cols, rank, K);  // x1's too: both rows start at the same offset
    typename RowChunk<T>::type v0[V], v1[V];
    float edge0 = 0.0f, edge1 = 0.0f;
    const float pivot0 = load_slice<THREADS, V>(x0, s, v0, edge0), pivot1 = load_slice<THREADS, V>(x1, s, v1, edge1);
    Moments moments[2] = {slice_moments<THREADS, V>(s, v0, edge0, pivot0, scratch),
                          slice_moments<THREADS, V>(s, v1, edge1, pivot1, scratch)};
    cluster_moments_of<K, 2>(moments, published);
    arrive_cluster<K>();  // this CTA's partials are read: its peers may exit once it has written
    T* out0 = out + first * cols;
    T* out1 = out + second * cols;
    const float rstd0 = inverse_std(moments[0], cols, eps), rstd1 = inverse_std(moments[1], cols, eps);
    const bool vector_out = aligned16(out0 + s.head), vector_affine = aligned16(weight + s.head) && aligned16(bias + s.head);
#pragma unroll
    for (int i = 0; i < V; ++i) {
        const int j = s.first + threadIdx.x + i * THREADS;
        if (j < s.end) {
            const int c = s.head + CHUNK_ELEMENTS<T> * j;
            const auto w = load_affine(weight + c, vector_affine), b = load_affine(bias + c, vector_affine);
            store_normalized<Stores::plain>(out0 + c, affine_chunk(v0[i], moments[0].mean, rstd0, w, b), vector_out);
            if (paired) {
                store_normalized<Stores::plain>(out1 + c, affine_chunk(v1[i], moments[1].mean, rstd1, w, b),
                                                vector_out);
            }
        }
    }
    if (s.edge >= 0) {
        const float w = to_float(weight[s.edge]), b = to_float(bias[s.edge]);
        out0[s.edge] = from_float<T>((edge0 - moments[0].mean) * rstd0 * w + b);
        if (paired) out1[s.edge] = from_float<T>((edge1 - moments[1].mean) * rstd1 * w + b);
    }
    wait_cluster<K>();  // no CTA exits while a peer may still read its shared memory
}

// Normalize and write `chunks` body chunks of row `outr` held in shared memory (`staged`: float4s, or a 16-bit row's
// chunks as loaded), the first of them body chunk `first` of the row: the aligned case (16-byte loads and stores) as a
// loop of its own, not a choice made at every chunk. A 16-bit row's weight and bias off a boundary are read in
// scalars here (write_slice's shifted loads are the registers' part's).
template <int THREADS, typename T, typename Chunk>
__device__ __forceinline__ void write_staged(const T* __restrict__ weight, const T* __restrict__ bias,
                                             T* __restrict__ outr, const Chunk* staged, int head, int first,
                                             int chunks, float mean, float rstd) {
    const bool vector_out = aligned16(outr + head), vector_affine = aligned16(weight + head) && aligned16(bias + head);
    auto write = [&](bool to_vector, bool from_vector) {
        for (int j = threadIdx.x; j < chunks; j += THREADS) {
            const int c = head + CHUNK_ELEMENTS<T> * (first + j);
            normalize_chunk<Stores::plain>(outr + c, weight + c, bias + c, staged[j], mean, rstd, to_vector,
                                           from_vector);
        }
    };
    if (vector_out && vector_affine) {
        write(true, true);
    } else {
        write(vector_out, vector_affine);
    }
}

// The smem strategy (float32): each CTA's slice in shared memory by one bulk copy (bulk_copy_to_shared), its
// THREADS threads walking the chunks twice for (count, mean, M2) about the pivot and once to normalize and
// write; the moments and their rank-order combination are the cluster strategy's. Grid (rows · K), block
// (THREADS), 16 bytes of dynamic shared memory for each chunk a CTA may hold (mage.backends.rows.launch_smem).
template <int K, int THREADS>
__device__ __forceinline__ void layernorm_smem(const float* __restrict__ x, const float* __restrict__ weight,
                                               const float* __restrict__ bias, float* __restrict__ out, int cols,
                                               float eps) {
    DYNAMIC_SHARED(float4, stage);
    __shared__ float scratch[THREADS / 32];
    __shared__ float published[3];
    __shared__ unsigned long long arrived;
    const unsigned rank = rank_in_cluster<K>();
    const long long row = blockIdx.x / K;
    const float* xr = x + row * cols;
    const RowSlice s = row_slice(xr, cols, rank, K);
    const int chunks = s.end - s.first;  // the same for every thread; every CTA of a plan holds some
    const float pivot = chunks > 0 ? xr[s.head + 4 * s.first] : 0.0f;
    const float edge = s.edge >= 0 ? xr[s.edge] : 0.0f;
    if (chunks > 0) bulk_copy_to_shared(stage, xr + s.head + 4 * s.first, 16u * chunks, &arrived);
    float sum = 0.0f;
    for (int j = threadIdx.x; j < chunks; j += THREADS) sum += shifted_sum(stage[j], pivot);
    if (s.edge >= 0) sum += edge - pivot;
    const float shifted = row_sum<THREADS>(sum, scratch);
    const float mean = s.count > 0 ? pivot + shifted / (float)s.count : 0.0f;
    float m2 = 0.0f;
    for (int j = threadIdx.x; j < chunks; j += THREADS) m2 += squares(stage[j], mean);
    if (s.edge >= 0) m2 += (edge - mean) * (edge - mean);
    const Moments moments = cluster_moments<K>({(float)s.count, mean, row_sum<THREADS>(m2, scratch)}, published);
    arrive_cluster<K>();  // this CTA's partials are read: its peers may exit once it has written
    float* outr = out + row * cols;
    const float rstd = inverse_std(moments, cols, eps);
    write_staged<THREADS>(weight, bias, outr, stage, s.head, s.first, chunks, moments.mean, rstd);
    if (s.edge >= 0) outr[s.edge] = (edge - moments.mean) * rstd * weight[s.edge] + bias[s.edge];
    wait_cluster<K>();  // no CTA exits while a peer may still read its shared memory
}

// The deep strategy: a CTA's slice in its registers (THREADS threads, V chunks each, as the cluster's) and, past
// them, in shared memory, so that a CTA holds twice the row its registers hold: 262144 float32 columns take 8 CTAs
// of 512 threads, two an SM, where the register-held cluster takes 8 of 1024, one an SM; a 16-bit row of 262144
// takes 2 CTAs of 1024 (mage.backends.rows.DEEP_PLANS). The shared part arrives by one bulk copy issued before
// the registers' loads, so that both are in flight at once; the moments, their rank-order combination and the
// register part's writes are the cluster strategy's. Grid (rows · K), block (THREADS), 16 bytes of dynamic shared
// memory for each chunk past the registers (mage.backends.rows.launch_deep).
template <int K, int THREADS, int V, typename T>
__device__ __forceinline__ void layernorm_deep(const T* __restrict__ x, const T* __restrict__ weight,
                                               const T* __restrict__ bias, T* __restrict__ out, int cols, float eps) {
    using Chunk = typename RowChunk<T>::type;
    DYNAMIC_SHARED(uint4, buffer);  // one type for every instantiation (native_cluster.cuh)
    Chunk* stage = reinterpret_cast<Chunk*>(buffer);
    __shared__ float scratch[THREADS / 32];
    __shared__ float published[3];
    __shared__ unsigned long long arrived;
    const long long row = blockIdx.x / K;
    const T* xr = x + row * cols;
    const DeepSlice d = stage_past_registers<K, THREADS, V>(xr, cols, stage, &arrived);
    Chunk v[V];
    float edge = 0.0f;
    const float pivot = load_slice<THREADS, V>(xr, d.held, v, edge);
    wait_bulk_copy(&arrived, 0);
    const Moments moments = cluster_moments<K>(
        slice_moments<THREADS, V>(d.held, v, edge, pivot, scratch, stage, d.staged), published);
    arrive_cluster<K>();  // this CTA's partials are read: its peers may exit once it has written
    T* outr = out + row * cols;
    write_slice<THREADS, V, Stores::plain>(weight, bias, outr, d.held, v, edge, moments, cols, eps);
    write_staged<THREADS>(weight, bias, outr, stage, d.slice.head, d.held.end, d.staged, moments.mean,
                          inverse_std(moments, cols, eps));
    wait_cluster<K>();  // no CTA exits while a peer may still read its shared memory
}

// The pipe strategy: grid (clusters · K) from mage.backends.rows.pipe_plan, block (THREADS), the slice's 16-byte
// chunks of dynamic shared memory (mage.backends.rows.launch_pipe). Each cluster walks rows
// (pipelined_rows), the next row's slice copying into shared memory while this one is reduced and written from
// registers, weight and bias read as the one-row cluster reads them. Its moments are published in two slots by
// turns.
//
// The resident strategy (RESIDENT) is the pipe with each CTA's weight and bias held in shared memory for the
// kernel's life, read from global memory once a call, where the pipe reads them from L2 for every row: as many
// bytes again as the row's own, which ncu showed LayerNorm's pipe waiting on (9.2 long-scoreboard stalls an
// instruction against softmax's 3.0). They sit past the next row's buffer, a window of columns a CTA may need in
// any row (column_window), so the plans hold smaller slices a CTA than the pipe's: mage.backends.rows.RESIDENT_PLANS.
template <int K, int THREADS, int V, bool RESIDENT, typename T>
__device__ __forceinline__ void layernorm_pipe(const T* __restrict__ x, const T* __restrict__ weight,
                                               const T* __restrict__ bias, T* __restrict__ out, long long rows,
                                               int cols, float eps) {
    __shared__ float scratch[THREADS / 32];
    __shared__ float published[2][3];
    constexpr From F = RESIDENT ? From::shared : From::global;
    constexpr int WINDOW = WINDOW_CAPACITY<T, K, THREADS * V>;
    const T* w = weight;
    const T* b = bias;
    T* held = nullptr;  // RESIDENT: past the next row's chunks, the window's weight, then its bias
    ColumnWindow window = {0, 0};
    if constexpr (RESIDENT) {
        DYNAMIC_SHARED(uint4, buffer);
        held = reinterpret_cast<T*>(buffer + THREADS * V);
        window = column_window<T>(cols, rank_in_cluster<K>(), K);
        // Indexed by column, as the global arrays are: window.lo is a whole number of chunks, so a chunk's
        // alignment in the window is its alignment in the row, and the 16-bit rows' shifted reads hold.
        w = held - window.lo;
        b = held + WINDOW - window.lo;
    }
    pipelined_rows<K, THREADS, V>(
        x, rows, cols,
        [&](long long row, const RowSlice& s, const typename RowChunk<T>::type(&v)[V], float edge, float pivot,
            int parity) {
            const Moments moments =
                cluster_moments<K>(slice_moments<THREADS, V>(s, v, edge, pivot, scratch), published[parity]);
            write_slice<THREADS, V, Stores::pinned, F>(w, b, out + row * cols, s, v, edge, moments, cols, eps);
        },
        [&] {
            if constexpr (RESIDENT) {
                for (int i = threadIdx.x; i < window.hi - window.lo; i += THREADS) {
                    held[i] = weight[window.lo + i];
                    held[WINDOW + i] = bias[window.lo + i];
                }
            }
        });
}

// ---------------------------------------------------------------- the columns strategy: weight and bias read once
//
// A grid of one CTA an SM, launched cooperatively (native_cluster.cuh: rows shared by the whole grid). CTA j owns
// columns [j · per, (j + 1) · per) of every row (per: a whole number of 16-byte chunks) and reads its weight and bias
// once, widened into shared memory; the cluster and pipe strategies read them from L2 for every row, as many bytes as
// the row's own (ncu: LayerNorm's pipe at 9.2 long-scoreboard stalls an instruction against softmax's 3.0). Rows go
// in groups of `group_rows`: a group's slices (each row's columns of this CTA, a bulk copy a row, covering the
// 16-byte chunks that hold them wherever the row starts) land in one of STAGES buffers of shared memory, STAGES − 1
// groups ahead. For each group the CTA reduces its slices to (count, mean, M2) about the slice's first element and
// publishes them, then writes the group before, whose partials the grid published an iteration earlier. Warp 0
// keeps the exchange: it stores the partials and counts the CTA in (its fence then drains no output stores: it
// writes none) and waits for the grid; the other warps write. A CTA's one blocking wait a group is for the grid's
// count of the group before and its partials, which every CTA merges itself in the same order.

// Σ v over the row_threads threads that share a row (a power of two, 32 to THREADS, consecutive), the same bits in
// each: warp butterflies, then the row's warps' sums in order.
template <int THREADS>
__device__ __forceinline__ float rows_sum(float v, int row_threads, float* scratch) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
    __syncthreads();
    const int warps = row_threads >> 5, first = (threadIdx.x >> 5) & ~(warps - 1);
    float total = 0.0f;
    for (int w = 0; w < warps; ++w) total += scratch[first + w];
    __syncthreads();  // scratch is reused by the next reduction
    return total;
}

// The 32 lanes' moments merged, the same bits in every lane: at each step a lane and its partner both merge the
// lower lane's moments with the higher's.
__device__ __forceinline__ Moments warp_moments(Moments m) {
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        const Moments other = {__shfl_xor_sync(0xffffffffu, m.count, offset), __shfl_xor_sync(0xffffffffu, m.mean, offset),
                               __shfl_xor_sync(0xffffffffu, m.m2, offset)};
        m = (threadIdx.x & offset) == 0 ? merge_moments(m, other) : merge_moments(other, m);
    }
    return m;
}

// A chunk's elements as floats.
__device__ __forceinline__ void widen(const float4& v, float (&f)[4]) {
    f[0] = v.x; f[1] = v.y; f[2] = v.z; f[3] = v.w;
}

template <typename H>
__device__ __forceinline__ void widen(const Half8<H>& v, float (&f)[8]) {
    unpack8(v, f);
}

// E floats of shared memory from a + col: 16-byte loads where col is a multiple of 4 (a 16-byte aligned).
template <int E>
__device__ __forceinline__ void shared_floats(const float* a, int col, float (&f)[E]) {
#pragma unroll
    for (int q = 0; q < E / 4; ++q) {
        const float4 v = load_quad(a + col + 4 * q, col % 4 == 0);
        f[4 * q] = v.x; f[4 * q + 1] = v.y; f[4 * q + 2] = v.z; f[4 * q + 3] = v.w;
    }
}

__device__ __forceinline__ void store_chunk_of(float* p, const float (&y)[4]) {
    store16<Stores::plain>(p, make_float4(y[0], y[1], y[2], y[3]));
}

template <typename H>
__device__ __forceinline__ void store_chunk_of(H* p, const float (&y)[8]) {
    store16<Stores::plain>(static_cast<void*>(p), pack8<H>(y).q);
}

// Where a row's columns [c0, c0 + width) lie in x seen as one array of 16-byte chunks (x 16-byte aligned): its
// first chunk, the offset of column c0 in it, and how many chunks they span.
struct ColumnSpan {
    long long first;
    int lead, chunks;
};

template <typename T>
__device__ __forceinline__ ColumnSpan column_span(long long row, int cols, int c0, int width) {
    constexpr int E = CHUNK_ELEMENTS<T>;
    const long long begin = row * cols + c0;
    ColumnSpan s;
    s.first = begin / E;
    s.lead = static_cast<int>(begin - s.first * E);
    s.chunks = width > 0 ? (s.lead + width + E - 1) / E : 0;
    return s;
}

// Σ (x − about) (or Σ (x − about)² where `squared`) over the columns of a row's slice (its chunks in shared memory,
// spanning s) that this thread holds: chunks part, part + row_threads, ….
template <typename T>
__device__ __forceinline__ float columns_sum(const typename RowChunk<T>::type* slice, const ColumnSpan& s, int width,
                                             int part, int row_threads, float about, bool squared) {
    constexpr int E = CHUNK_ELEMENTS<T>;
    float total = 0.0f;
    for (int k = part; k < s.chunks; k += row_threads) {
        const int col = k * E - s.lead;
        if (col >= 0 && col + E <= width) {  // every chunk but a row's first and last
            total += squared ? squares(slice[k], about) : shifted_sum(slice[k], about);
            continue;
        }
        float v[E];
        widen(slice[k], v);
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const float d = v[e] - about;
            if (col + e >= 0 && col + e < width) total += squared ? d * d : d;
        }
    }
    return total;
}

// x, out: rows × cols of T, 16-byte aligned; weight, bias: cols of T. Grid (CTAs resident at once), block (THREADS),
// cooperative; per_chunks: the 16-byte chunks of columns a CTA owns; group_rows ≤ MAX_GROUP_ROWS; dynamic shared
// memory 8 · per bytes of weight and bias, then STAGES · group_rows · (per_chunks + 1) chunks
// (mage.backends.rows.launch_columns).
template <int THREADS, int STAGES, typename T>
__device__ __forceinline__ void layernorm_columns(const T* __restrict__ x, const T* __restrict__ weight,
                                                  const T* __restrict__ bias, T* __restrict__ out, long long rows,
                                                  int cols, float eps, GridExchange* exchange,
                                                  int per_chunks, int group_rows) {
    using Chunk = typename RowChunk<T>::type;
    constexpr int E = CHUNK_ELEMENTS<T>;
    DYNAMIC_SHARED(uint4, buffer);
    __shared__ unsigned long long landed[STAGES];
    __shared__ float scratch[THREADS / 32];
    __shared__ float2 row_stats[MAX_GROUP_ROWS];
    __shared__ float4 own[MAX_GROUP_ROWS];  // this CTA's partials of a group's rows
    __shared__ ColumnSpan spans[MAX_GROUP_ROWS];  // where the rows of the group being written lie
    const int t = threadIdx.x;
    const unsigned ctas = gridDim.x;
    const int per = per_chunks * E, slot = per_chunks + 1;  // a row's columns span at most slot chunks
    const int c0 = static_cast<int>(blockIdx.x) * per < cols ? static_cast<int>(blockIdx.x) * per : cols;
    const int width = (cols - c0 < per ? cols - c0 : per);
    float* affine = reinterpret_cast<float*>(buffer);  // weight, then bias, of the CTA's columns
    Chunk* stages = reinterpret_cast<Chunk*>(affine + 2 * per);
    float4* partials = reinterpret_cast<float4*>(exchange + 1);
    const long long groups = (rows + group_rows - 1) / group_rows;
    int row_threads = THREADS;  // the most threads a row that leave every row of a group its own
    while (row_threads * group_rows > THREADS) row_threads >>= 1;

    for (int c = t; c < per; c += THREADS) {
        affine[c] = c < width ? to_float(weight[c0 + c]) : 0.0f;
        affine[per + c] = c < width ? to_float(bias[c0 + c]) : 0.0f;
    }
    for (int s = 0; s < STAGES; ++s) init_copy_barrier(&landed[s]);
    __syncthreads();  // the barriers are ready

    auto rows_of = [&](long long g) {  // the rows of group g: group_rows, fewer in the last
        const long long left = rows - g * group_rows;
        return static_cast<int>(left < group_rows ? left : group_rows);
    };
    auto stage_of = [&](long long g) { return stages + static_cast<int>(g % STAGES) * group_rows * slot; };
    auto issue = [&](long long g) {  // thread 0
        const int n = rows_of(g);
        unsigned bytes = 0;
        for (int i = 0; i < n; ++i) bytes += 16u * column_span<T>(g * group_rows + i, cols, c0, width).chunks;
        unsigned long long* barrier = &landed[g % STAGES];
        expect_copy_bytes(barrier, bytes);
        for (int i = 0; i < n; ++i) {
            const ColumnSpan s = column_span<T>(g * group_rows + i, cols, c0, width);
            if (s.chunks > 0) bulk_copy(stage_of(g) + i * slot, x + s.first * E, 16u * s.chunks, barrier);
        }
    };

    // This CTA's (count, mean, M2) of each row of group g, published by warp 0 (thread 0's arrival kept in `arrival`).
    auto publish = [&](long long g, unsigned long long& arrival) {
        const int n = rows_of(g), ring = static_cast<int>(g % GROUP_SLOTS);
        const int i = t / row_threads, part = t % row_threads;
        const bool holds = i < n && width > 0;
        const ColumnSpan s = column_span<T>(g * group_rows + (i < n ? i : 0), cols, c0, width);
        const Chunk* slice = stage_of(g) + (i < n ? i : 0) * slot;
        const float pivot = holds ? to_float(reinterpret_cast<const T*>(slice)[s.lead]) : 0.0f;
        const float sum = holds ? columns_sum<T>(slice, s, width, part, row_threads, pivot, false) : 0.0f;
        const float shifted = rows_sum<THREADS>(sum, row_threads, scratch);
        const float mean = width > 0 ? pivot + shifted / (float)width : 0.0f;
        const float squares = holds ? columns_sum<T>(slice, s, width, part, row_threads, mean, true) : 0.0f;
        const float m2 = rows_sum<THREADS>(squares, row_threads, scratch);  // its last __syncthreads: own is free
        if (i < n && part == 0) own[i] = make_float4((float)width, mean, m2, 0.0f);
        __syncthreads();
        if (t == 0) {
            for (int r = 0; r < n; ++r) partials[(ring * MAX_GROUP_ROWS + r) * ctas + blockIdx.x] = own[r];
            __threadfence();
            arrival = fetch_add(&exchange->arrived[ring], 1ull);
        }
    };

    // Group g normalized and written from its stage by warps 1 …, once the grid has published it: each row's partials
    // merged by a warp, lane l reading CTAs l, l + 32, … at once, the lanes then merged in a fixed tree.
    auto write = [&](long long g, unsigned long long arrival) {
        const int n = rows_of(g), ring = static_cast<int>(g % GROUP_SLOTS);
        if (t == 0) wait_for_grid(&exchange->arrived[ring], arrival);
        __syncthreads();
        const int row = t >> 5, lane = t & 31;
        if (row < n) {
            float4 loaded[MAX_GRID_CTAS / 32];
#pragma unroll
            for (int k = 0; k < MAX_GRID_CTAS / 32; ++k) {
                const unsigned c = lane + 32 * k;
                const float* p = reinterpret_cast<const float*>(&partials[(ring * MAX_GROUP_ROWS + row) * ctas + c]);
                loaded[k] = c < ctas ? make_float4(__ldcg(p), __ldcg(p + 1), __ldcg(p + 2), 0.0f)
                                     : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            }
            Moments m = {0.0f, 0.0f, 0.0f};
#pragma unroll
            for (int k = 0; k < MAX_GRID_CTAS / 32; ++k) m = merge_moments(m, {loaded[k].x, loaded[k].y, loaded[k].z});
            m = warp_moments(m);
            if (lane == 0) row_stats[row] = float2{m.mean, inverse_std(m, cols, eps)};
        }
        if (t < n) spans[t] = column_span<T>(g * group_rows + t, cols, c0, width);
        __syncthreads();
        const Chunk* stage = stage_of(g);
        // Warps 1 … walk the group's slots: chunk k of row i, stepping on without a division a chunk.
        int i = (t - 32) / slot, k = (t - 32) % slot;
        for (; t >= 32 && i < n; k += THREADS - 32) {
            while (k >= slot) {
                k -= slot;
                ++i;
            }
            if (i >= n) break;
            const ColumnSpan& s = spans[i];
            if (k >= s.chunks) continue;
            const int col = k * E - s.lead;  // the chunk's first column, from c0
            const float mean = row_stats[i].x, rstd = row_stats[i].y;
            float v[E], y[E];
            widen(stage[i * slot + k], v);
            T* o = out + (s.first + k) * E;
            if (col >= 0 && col + E <= width) {
                float w[E], b[E];
                shared_floats<E>(affine, col, w);
                shared_floats<E>(affine + per, col, b);
#pragma unroll
                for (int e = 0; e < E; ++e) y[e] = (v[e] - mean) * rstd * w[e] + b[e];
                store_chunk_of(o, y);
            } else {
#pragma unroll
                for (int e = 0; e < E; ++e) {
                    if (col + e >= 0 && col + e < width)
                        o[e] = from_float<T>((v[e] - mean) * rstd * affine[col + e] + affine[per + col + e]);
                }
            }
        }
    };

    if (t == 0) {
        for (long long g = 0; g < STAGES - 1 && g < groups; ++g) issue(g);
    }
    unsigned long long arrival = 0, before = 0;  // thread 0's arrivals on this group's counter and the last one's
    for (long long g = 0; g < groups; ++g) {
        wait_bulk_copy(&landed[g % STAGES], static_cast<unsigned>(g / STAGES) & 1);
        publish(g, arrival);
        if (g > 0) write(g - 1, before);
        before = arrival;
        __syncthreads();  // group g − 1's stage is free
        if (t == 0 && g + STAGES - 1 < groups) issue(g + STAGES - 1);
    }
    write(groups - 1, before);
}

// mage.backends.rows.COLUMNS_THREADS and COLUMNS_STAGES: 1024 threads of at most 64 registers, one CTA an SM.
#define LAYERNORM_COLUMNS_OF(TAG, T)                                                                              \
    extern "C" __global__ void __launch_bounds__(1024, 1) layernorm_##TAG##_columns(                                 \
        const T* __restrict__ x, const T* __restrict__ weight, const T* __restrict__ bias, T* __restrict__ out,     \
        long long rows, int cols, float eps, GridExchange* exchange, int per_chunks, int group_rows) {          \
        layernorm_columns<1024, 4>(x, weight, bias, out, rows, cols, eps, exchange, per_chunks, group_rows);       \
    }

// BOUNDS: the kernel's __launch_bounds__ (a minimum of CTAs an SM holds each thread to the registers that
// lets them all be resident).
#define LAYERNORM_CLUSTER_OF(TAG, T, K, THREADS, V, BOUNDS)                                                      \
    extern "C" __global__ void __cluster_dims__(K, 1, 1) BOUNDS                                                   \
        layernorm_##TAG##_cluster##K##_t##THREADS##_v##V(const T* __restrict__ x, const T* __restrict__ weight,     \
                                                         const T* __restrict__ bias, T* __restrict__ out,        \
                                                         long long rows, int cols, float eps) {                 \
        layernorm_cluster<K, THREADS, V>(x, weight, bias, out, cols, eps);                                       \
    }

// The pair strategy's plans, X(K, THREADS, V) each, narrowest rows first: mage.backends.rows.PAIR_PLANS and
// SIXTEEN_BIT_PAIR_PLANS. One CTA of 1024 threads an SM, each thread holding 4 chunks of each of the two rows (32
// registers of them, as the cluster strategy's widest plans hold of one row), so 262144 float32 columns take 16 CTAs
// a cluster, sm_90's non-portable size, which both hosts opt a kernel in to; K = 1 is a cluster of one, which the CPU
// emulation runs. A 16-bit row's thread holds 2 chunks of each (4 spilled 8–16 bytes a thread at 64 registers).
#define PAIR_PLANS(X) X(1, 1024, 4) X(2, 1024, 4) X(4, 1024, 4) X(8, 1024, 4) X(16, 1024, 4)
#define SIXTEEN_BIT_PAIR_PLANS(X) X(1, 1024, 2) X(2, 1024, 2) X(4, 1024, 2) X(8, 1024, 2) X(16, 1024, 2)

#define LAYERNORM_PAIR_OF(TAG, T, K, THREADS, V)                                                                \
    extern "C" __global__ void __cluster_dims__(K, 1, 1) __launch_bounds__(THREADS, 1)                           \
        layernorm_##TAG##_pair##K##_t##THREADS##_v##V(const T* __restrict__ x, const T* __restrict__ weight,       \
                                                      const T* __restrict__ bias, T* __restrict__ out,           \
                                                      long long rows, int cols, float eps) {                    \
        layernorm_pair<K, THREADS, V>(x, weight, bias, out, rows, cols, eps);                                    \
    }

// The slice strategy: the cluster kernel with K = 1, a block a row holding it in registers whatever its
// alignment (row_slice's scalar head and tail around a 16-byte-aligned body), without cluster dims. For rows
// the vector block kernels cannot take (not a multiple of a chunk wide, or off a 16-byte boundary), which the
// looped kernel reads three times in scalars (0.85 of the copy rate at 4099 columns against 0.98 at 4096,
// LayerNorm on an H200), and the K = 2 cluster kernel with a cluster barrier a row.
#define LAYERNORM_SLICE_OF(TAG, T, THREADS, V, BOUNDS)                                                           \
    extern "C" __global__ void BOUNDS                                                                            \
        layernorm_##TAG##_slice_t##THREADS##_v##V(const T* __restrict__ x, const T* __restrict__ weight,           \
                                                  const T* __restrict__ bias, T* __restrict__ out, long long rows, \
                                                  int cols, float eps) {                                        \
        layernorm_cluster<1, THREADS, V>(x, weight, bias, out, cols, eps);                                       \
    }

// CTAS CTAs an SM: __launch_bounds__ holds each thread to the registers that lets them all be resident.
#define LAYERNORM_PIPE_OF(TAG, T, K, THREADS, V, CTAS)                                                          \
    extern "C" __global__ void __cluster_dims__(K, 1, 1) __launch_bounds__(THREADS, CTAS)                        \
        layernorm_##TAG##_pipe##K##_t##THREADS##_v##V(const T* __restrict__ x, const T* __restrict__ weight,       \
                                                      const T* __restrict__ bias, T* __restrict__ out,           \
                                                      long long rows, int cols, float eps) {                    \
        layernorm_pipe<K, THREADS, V, false>(x, weight, bias, out, rows, cols, eps);                            \
    }

// The resident strategy's plans, X(K, THREADS, V) each, narrowest rows first: mage.backends.rows.RESIDENT_PLANS and
// SIXTEEN_BIT_RESIDENT_PLANS. One CTA of 512 threads an SM, holding 8 chunks a thread of the current row in
// registers, the next row's (64 KB) and its window of weight and bias (about 128 KB) in shared memory. 262144
// float32 columns take 16 CTAs a cluster, sm_90's non-portable size, which both hosts opt a kernel in to; K = 1 is
// a cluster of one, which the CPU emulation runs.
#define RESIDENT_PLANS(X) X(1, 512, 8) X(2, 512, 8) X(4, 512, 8) X(8, 512, 8) X(16, 512, 8)
#define SIXTEEN_BIT_RESIDENT_PLANS(X) X(1, 512, 8) X(2, 512, 8) X(4, 512, 8) X(8, 512, 8)

#define LAYERNORM_RESIDENT_OF(TAG, T, K, THREADS, V)                                                            \
    extern "C" __global__ void __cluster_dims__(K, 1, 1) __launch_bounds__(THREADS, 1)                           \
        layernorm_##TAG##_resident##K##_t##THREADS##_v##V(const T* __restrict__ x, const T* __restrict__ weight,   \
                                                          const T* __restrict__ bias, T* __restrict__ out,       \
                                                          long long rows, int cols, float eps) {                \
        layernorm_pipe<K, THREADS, V, true>(x, weight, bias, out, rows, cols, eps);                             \
    }

// The deep strategy's kernels (native_cluster.cuh's FLOAT_DEEP_PLANS and SIXTEEN_BIT_DEEP_PLANS); CTAS CTAs an SM.
#define LAYERNORM_DEEP_OF(TAG, T, K, THREADS, V, CTAS)                                                          \
    extern "C" __global__ void __cluster_dims__(K, 1, 1) __launch_bounds__(THREADS, CTAS)                        \
        layernorm_##TAG##_deep##K##_t##THREADS##_v##V(const T* __restrict__ x, const T* __restrict__ weight,       \
                                                      const T* __restrict__ bias, T* __restrict__ out,           \
                                                      long long rows, int cols, float eps) {                    \
        layernorm_deep<K, THREADS, V>(x, weight, bias, out, cols, eps);                                          \
    }

// The cluster and slice kernels of a 16-bit element type T, named layernorm_TAG_… (bf16 and fp16, in
// native16.cu), of mage.backends.rows.SIXTEEN_BIT_CLUSTER_PLANS, (K, THREADS, V), and SIXTEEN_BIT_SLICE_PLANS,
// (THREADS, V), narrowest rows first: 8 chunks of 8 elements a thread, held to 64 registers (1024 / THREADS
// CTAs an SM) so that two 512-thread CTAs share an SM, as softmax's 16-bit kernels do unbounded.
#define LAYERNORM_SIXTEEN_BIT_ROW_STRATEGIES(TAG, T)                                                             \
    LAYERNORM_CLUSTER_OF(TAG, T, 2, 64, 8, __launch_bounds__(64, 16))                                            \
    LAYERNORM_CLUSTER_OF(TAG, T, 2, 128, 8, __launch_bounds__(128, 8))                                           \
    LAYERNORM_CLUSTER_OF(TAG, T, 2, 256, 8, __launch_bounds__(256, 4))                                           \
    LAYERNORM_CLUSTER_OF(TAG, T, 2, 512, 8, __launch_bounds__(512, 2))                                           \
    LAYERNORM_CLUSTER_OF(TAG, T, 4, 512, 8, __launch_bounds__(512, 2))                                           \
    LAYERNORM_CLUSTER_OF(TAG, T, 8, 512, 8, __launch_bounds__(512, 2))                                           \
    LAYERNORM_SLICE_OF(TAG, T, 128, 8, __launch_bounds__(128, 8))                                                \
    LAYERNORM_SLICE_OF(TAG, T, 256, 8, __launch_bounds__(256, 4))

#ifndef NATIVE_TEMPLATES_ONLY  // the float32 kernels: native16.cu compiles the 16-bit ones
// native_cluster.cuh's FLOAT_CLUSTER_PLANS.
#define LAYERNORM_F32_CLUSTER(K, THREADS, V, BOUNDS) LAYERNORM_CLUSTER_OF(f32, float, K, THREADS, V, BOUNDS)
FLOAT_CLUSTER_PLANS(LAYERNORM_F32_CLUSTER)

// mage.backends.rows.SLICE_PLANS: (THREADS, V), narrowest rows first.
LAYERNORM_SLICE_OF(f32, float, 256, 4, __launch_bounds__(256))
LAYERNORM_SLICE_OF(f32, float, 512, 4, __launch_bounds__(512))
LAYERNORM_SLICE_OF(f32, float, 1024, 4, __launch_bounds__(1024))

// mage.backends.rows.SMEM_PLANS: (K, THREADS), narrowest rows first.
#define LAYERNORM_SMEM(K, THREADS)                                                                               \
    extern "C" __global__ void __cluster_dims__(K, 1, 1) __launch_bounds__(THREADS)                                \
        layernorm_f32_smem##K##_t##THREADS(const float* __restrict__ x, const float* __restrict__ weight,         \
                                           const float* __restrict__ bias, float* __restrict__ out, long long rows, \
                                           int cols, float eps) {                                               \
        layernorm_smem<K, THREADS>(x, weight, bias, out, cols, eps);                                             \
    }
LAYERNORM_SMEM(2, 1024)
LAYERNORM_SMEM(4, 1024)
LAYERNORM_SMEM(8, 1024)

// native_cluster.cuh's FLOAT_DEEP_PLANS. 1024 threads of 8 chunks take the registers of one CTA an SM (64 a thread, as
// the cluster's widest plan), beside up to 128 KB of the slice in shared memory; K = 1 is a CTA a row, which the CPU
// emulation runs.
#define LAYERNORM_F32_DEEP(K, THREADS, V, CTAS) LAYERNORM_DEEP_OF(f32, float, K, THREADS, V, CTAS)
FLOAT_DEEP_PLANS(LAYERNORM_F32_DEEP)

// native_cluster.cuh's PIPE_PLANS.
#define LAYERNORM_F32_PIPE(K, THREADS, V, CTAS) LAYERNORM_PIPE_OF(f32, float, K, THREADS, V, CTAS)
PIPE_PLANS(LAYERNORM_F32_PIPE)

#define LAYERNORM_F32_RESIDENT(K, THREADS, V) LAYERNORM_RESIDENT_OF(f32, float, K, THREADS, V)
RESIDENT_PLANS(LAYERNORM_F32_RESIDENT)

#define LAYERNORM_F32_PAIR(K, THREADS, V) LAYERNORM_PAIR_OF(f32, float, K, THREADS, V)
PAIR_PLANS(LAYERNORM_F32_PAIR)

LAYERNORM_COLUMNS_OF(f32, float)
#endif
