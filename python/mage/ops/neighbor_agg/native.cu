// Neighbor aggregation over a CSR graph, float32 (see spec.py):
//     sum:   out[i, f] = Σ_{e ∈ [rowptr[i], rowptr[i+1])} x[col[e], f]
//     mean:  out[i, f] = sum[i, f] / deg[i]        (0 for a row without edges)
// rowptr: n + 1, col: edges (int32 or int64, one dtype), x: n_src × F, out: n × F, contiguous.
//
// Deterministic and atomic-free: every output element is summed by one thread, in edge order,
// or (long rows) by fixed groups whose partial sums are added in a fixed order.
//
// A group of T threads (a power of two ≤ 32, T · W ≥ F when possible) owns one row: lane t
// accumulates features [t·W, t·W + W) (+ multiples of T·W), reading W = 4 features as a float4
// (F % 4 == 0, 16-byte aligned x) or one. A block of 256 threads holds 256 / T rows. Edges are
// taken UNROLL at a time: all UNROLL column indices are loaded, then all UNROLL rows of x, so
// that UNROLL gathers are in flight per thread.
//
// Rows with more than `long_row` edges (power-law hubs) would keep one group busy long after
// the rest of the grid has finished, so phase 1 skips them; in phase 2 the whole block takes
// each such row of its own in turn: its 256 / T groups take every (256 / T)-th edge, write
// their partial sums to shared memory, and the first group adds them in group order.
//
// grid: (ceil(n / (256 / T))); block: (256).

#define AGG_THREADS 256
#define AGG_UNROLL 8

template <int W>
struct Vec {
    float v[W];
};

template <int W>
__device__ __forceinline__ Vec<W> load_features(const float* p) {
    Vec<W> r;
    if (W == 4) {
        const float4 q = *reinterpret_cast<const float4*>(p);
        r.v[0] = q.x; r.v[1] = q.y; r.v[2] = q.z; r.v[3] = q.w;
    } else {
#pragma unroll
        for (int j = 0; j < W; ++j) r.v[j] = p[j];
    }
    return r;
}

template <int W>
__device__ __forceinline__ void store_features(float* p, const float (&acc)[W], bool mean, long long degree) {
    float r[W];
#pragma unroll
    for (int j = 0; j < W; ++j) r[j] = (mean && degree > 0) ? acc[j] / (float)degree : acc[j];
    if (W == 4) {
        *reinterpret_cast<float4*>(p) = make_float4(r[0], r[1], r[2], r[3]);
    } else {
#pragma unroll
        for (int j = 0; j < W; ++j) p[j] = r[j];
    }
}

// acc += Σ x[col[e], f : f + W] for e = first, first + stride, … < end, in that order.
template <typename I, int W>
__device__ __forceinline__ void gather(const I* __restrict__ col, const float* __restrict__ x, int F, int f, long long first,
                                       long long end, long long stride, float (&acc)[W]) {
    long long e = first;
    for (; e + (AGG_UNROLL - 1) * stride < end; e += AGG_UNROLL * stride) {
        long long src[AGG_UNROLL];
#pragma unroll
        for (int u = 0; u < AGG_UNROLL; ++u) src[u] = (long long)col[e + u * stride];
        Vec<W> rows[AGG_UNROLL];
#pragma unroll
        for (int u = 0; u < AGG_UNROLL; ++u) rows[u] = load_features<W>(x + src[u] * F + f);
#pragma unroll
        for (int u = 0; u < AGG_UNROLL; ++u)
#pragma unroll
            for (int j = 0; j < W; ++j) acc[j] += rows[u].v[j];
    }
    for (; e < end; e += stride) {
        const Vec<W> row = load_features<W>(x + (long long)col[e] * F + f);
#pragma unroll
        for (int j = 0; j < W; ++j) acc[j] += row.v[j];
    }
}

template <typename I, bool MEAN, int W>
__device__ __forceinline__ void neighbor_agg(const I* __restrict__ rowptr, const I* __restrict__ col, const float* __restrict__ x,
                                             float* __restrict__ out, long long n, int F, int T, long long long_row) {
    __shared__ __align__(16) float partial[AGG_THREADS * W];
    const int rows_per_block = AGG_THREADS / T;
    const int t = threadIdx.x & (T - 1);
    const int slot = threadIdx.x / T;
    const long long base = (long long)blockIdx.x * rows_per_block;

    // Phase 1: one group per row.
    const long long row = base + slot;
    if (row < n) {
        const long long start = rowptr[row], end = rowptr[row + 1];
        if (end - start <= long_row) {
            for (int f = t * W; f < F; f += T * W) {
                float acc[W];
#pragma unroll
                for (int j = 0; j < W; ++j) acc[j] = 0.0f;
                gather<I, W>(col, x, F, f, start, end, 1, acc);
                store_features<W>(out + row * F + f, acc, MEAN, end - start);
            }
        }
    }

    // Phase 2: the block's long rows, one at a time, by all of its groups.
    for (int s = 0; s < rows_per_block; ++s) {
        const long long r = base + s;
        if (r >= n) break;
        const long long start = rowptr[r], end = rowptr[r + 1];
        if (end - start <= long_row) continue;  // the same decision in every thread
        for (int f0 = 0; f0 < F; f0 += T * W) {
            const int f = f0 + t * W;
            float acc[W];
#pragma unroll
            for (int j = 0; j < W; ++j) acc[j] = 0.0f;
            if (f < F) gather<I, W>(col, x, F, f, start + slot, end, rows_per_block, acc);
#pragma unroll
            for (int j = 0; j < W; ++j) partial[threadIdx.x * W + j] = acc[j];
            __syncthreads();
            if (slot == 0 && f < F) {
                float total[W];
#pragma unroll
                for (int j = 0; j < W; ++j) total[j] = 0.0f;
                for (int group = 0; group < rows_per_block; ++group)
#pragma unroll
                    for (int j = 0; j < W; ++j) total[j] += partial[(group * T + t) * W + j];
                store_features<W>(out + r * F + f, total, MEAN, end - start);
            }
            __syncthreads();
        }
    }
}

#define NEIGHBOR_AGG_KERNEL(NAME, I, MEAN, W)                                                                    \
    extern "C" __global__ void __launch_bounds__(AGG_THREADS) NAME(const I* __restrict__ rowptr, const I* __restrict__ col, \
                                                                   const float* __restrict__ x, float* __restrict__ out,   \
                                                                   long long n, int F, int T, long long long_row) {         \
        neighbor_agg<I, MEAN, W>(rowptr, col, x, out, n, F, T, long_row);                                          \
    }

NEIGHBOR_AGG_KERNEL(neighbor_agg_sum_i32_x4, int, false, 4)
NEIGHBOR_AGG_KERNEL(neighbor_agg_sum_i64_x4, long long, false, 4)
NEIGHBOR_AGG_KERNEL(neighbor_agg_mean_i32_x4, int, true, 4)
NEIGHBOR_AGG_KERNEL(neighbor_agg_mean_i64_x4, long long, true, 4)
NEIGHBOR_AGG_KERNEL(neighbor_agg_sum_i32, int, false, 1)
NEIGHBOR_AGG_KERNEL(neighbor_agg_sum_i64, long long, false, 1)
NEIGHBOR_AGG_KERNEL(neighbor_agg_mean_i32, int, true, 1)
NEIGHBOR_AGG_KERNEL(neighbor_agg_mean_i64, long long, true, 1)
