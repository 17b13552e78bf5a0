// Softmax over the last dimension, float32 (see spec.py; bf16 and fp16 in native16.cu):
//     out[r, c] = exp(x[r, c] − max_c x[r, ·]) / Σ_c exp(x[r, c] − max)
//
// Warp kernels hold a row in a warp's registers, V elements a lane (coalesced: element lane + i·32), so it
// is read once: the max is reduced, then Σ exp from the same registers, then the row is written. A warp per
// row up to 1024 columns (four rows a block of 128 threads: narrow rows keep every lane busy and their
// reductions are shuffles only). Wider rows go to the slice and cluster kernels below (16-byte loads, read
// once: mage.backends.rows.handed_on); past what a cluster holds, or on a device without clusters, to the
// online kernel: a block per row keeps a running max and a sum rescaled when the max grows (Milakov and
// Gimelshein), reads the row once for both, and once more to write it.
//
// Reductions are deterministic: warp butterflies, then every warp combines the per-warp partials by the
// same butterfly (max and + are commutative, so every lane ends with the same bits).

#include "../../backends/native_half.cuh"

#define NO_VALUE (-3.402823466e38f)  // −FLT_MAX: the max of no value; exp(NO_VALUE − m) is 0, never NaN
#define PAST_THE_END __int_as_float(0xff800000)  // −inf: exp(PAST_THE_END − m) is 0 even where m is NO_VALUE
//
// NaN and infinities: a NaN, or a +inf (exp(inf − inf)), makes its row's sum NaN whatever fmaxf does with it
// (fmaxf drops NaN), so the whole row is NaN, as in float64. A row that is all −inf has the max NO_VALUE and
// the sum 0: 1 / 0 · exp(−inf) = inf · 0 is NaN, float64's 0 / 0. Elements past a row's end are −inf, never
// NO_VALUE, so that they add 0 to that sum, not exp(0).

// Each with the value that leaves any other as it is (a lane past the warps' partials holds it).
struct MaxOp {
    __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
    __device__ __forceinline__ float identity() const { return PAST_THE_END; }
};
struct SumOp {
    __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
    __device__ __forceinline__ float identity() const { return 0.0f; }
};

template <int THREADS, class Op>
__device__ __forceinline__ float row_reduce(float v, float* scratch, Op op) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
    if (THREADS == 32) return v;
    const int warp = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0) scratch[warp] = v;
    __syncthreads();
    // A lane a warp's partial: 5 shuffles where a loop over 32 partials took 64 instructions a thread.
    const unsigned lane = threadIdx.x & 31;
    float total = lane < THREADS / 32 ? scratch[lane] : op.identity();
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) total = op(total, __shfl_xor_sync(0xffffffffu, total, offset));
    __syncthreads();  // scratch is reused by the next reduction
    return total;
}

// x, out: rows × cols contiguous, T float (or bf16, fp16: native16.cu, all arithmetic float32); 32 · V ≥ cols.
// Block (128: a warp a row), grid ceil(rows / 4).
template <int V, typename T>
__device__ __forceinline__ void softmax_warp(const T* __restrict__ x, T* __restrict__ out, long long rows, int cols) {
    const long long row = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const int t = threadIdx.x & 31;
    if (row >= rows) return;  // whole warps only: a warp holds one row
    x += row * cols;
    out += row * cols;

    float v[V];
    float m = NO_VALUE;
#pragma unroll
    for (int i = 0; i < V; ++i) {
        const int c = t + i * 32;
        v[i] = c < cols ? to_float(x[c]) : PAST_THE_END;
        m = fmaxf(m, v[i]);
    }
    m = row_reduce<32>(m, nullptr, MaxOp());
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < V; ++i) {
        v[i] = expf(v[i] - m);  // 0 past the row's end
        s += v[i];
    }
    const float inverse = 1.0f / row_reduce<32>(s, nullptr, SumOp());
#pragma unroll
    for (int i = 0; i < V; ++i) {
        const int c = t + i * 32;
        if (c < cols) out[c] = from_float<T>(v[i] * inverse);
    }
}

#define SOFTMAX_WARP(NAME, T, V)                                                                              \
    extern "C" __global__ void __launch_bounds__(128) NAME(const T* __restrict__ x, T* __restrict__ out,       \
                                                           long long rows, int cols) {                        \
        softmax_warp<V>(x, out, rows, cols);                                                                  \
    }

// Any width: block (256) per row, grid (rows); two reads of the row. T as softmax_warp.
template <typename T>
__device__ __forceinline__ void softmax_online(const T* __restrict__ x, T* __restrict__ out, int cols) {
    __shared__ float scratch[256 / 32];
    const long long row = blockIdx.x;
    const T* xr = x + row * cols;
    T* outr = out + row * cols;
    float m = NO_VALUE, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 256) {
        const float v = to_float(xr[c]);
        const float grown = fmaxf(m, v);
        s = s * expf(m - grown) + expf(v - grown);
        m = grown;
    }
    const float row_max = row_reduce<256>(m, scratch, MaxOp());
    // A thread that saw no value (cols < 256) holds s = 0: it adds 0.
    const float inverse = 1.0f / row_reduce<256>(s * expf(m - row_max), scratch, SumOp());
    for (int c = threadIdx.x; c < cols; c += 256) outr[c] = from_float<T>(expf(to_float(xr[c]) - row_max) * inverse);
}

// The kernels of element type T, named softmax_TAG_…: float32 here (TAG f32); bf16 and fp16 in native16.cu.
// mage.ops.softmax.native.plan chooses among them by row width.
#define SOFTMAX_KERNELS(TAG, T)                                                                                \
    /* A warp per row (four a block): up to 32·V columns. */                                                   \
    SOFTMAX_WARP(softmax_##TAG##_warp_v2, T, 2)                                                                \
    SOFTMAX_WARP(softmax_##TAG##_warp_v8, T, 8)                                                                \
    SOFTMAX_WARP(softmax_##TAG##_warp_v32, T, 32)                                                              \
    extern "C" __global__ void __launch_bounds__(256) softmax_##TAG##_online(const T* __restrict__ x,          \
                                                                             T* __restrict__ out,              \
                                                                             long long rows, int cols) {       \
        softmax_online(x, out, cols);                                                                          \
    }

// ---------------------------------------------------------------- the cluster strategies: wide rows, read once
//
// A cluster of K CTAs a row (native_cluster.cuh): each CTA holds its slice of the row in registers
// (THREADS threads, V 16-byte chunks each: 4 floats, or 8 bf16 or fp16 elements), reduces it to
// (max, Σ exp(x − max)), keeping exp(x − max) of a float row in the registers, and publishes the pair;
// every CTA combines the K pairs in rank order (the sums rescaled to the row's max, as the online form
// rescales) and writes its slice as exp(x − max_slice) · exp(max_slice − max) / Σ: one exp an element of a
// float row, two (ex2.approx) of a 16-bit one, the row read from DRAM once. `cluster` launches a cluster a
// row, `slice` the same with K = 1 (a block a row);
// `pipe` keeps clusters resident and pipelines rows (pipelined_rows).
#include "../../backends/native_cluster.cuh"

struct MaxSum {
    float max, sum;
};

// A row's 16-byte chunk as a CTA holds it in registers (RowChunk): a float4 of a float row, kept as exp(x − m)
// once the slice's max m is known; the eight elements of a 16-bit row as loaded (four registers, not eight: a
// plan then holds 8 chunks a thread in the registers that let two 512-thread CTAs share an SM), widened at each
// use and their exp(x − m) computed again for the store. Fewer, fuller threads per row are what cut the
// instructions per element: a thread's share of the reductions, the cluster barrier and the slice arithmetic
// is paid once for its 64 elements instead of 32.
__device__ __forceinline__ float4 load_chunk(const float* p) { return *reinterpret_cast<const float4*>(p); }

template <typename H>
__device__ __forceinline__ Half8<H> load_chunk(const H* p) {
    return *reinterpret_cast<const Half8<H>*>(p);
}

__device__ __forceinline__ float chunk_max(const float4& v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }

template <typename H>
__device__ __forceinline__ float chunk_max(const Half8<H>& v) {
    float f[8];
    unpack8(v, f);
    return fmaxf(fmaxf(fmaxf(f[0], f[1]), fmaxf(f[2], f[3])), fmaxf(fmaxf(f[4], f[5]), fmaxf(f[6], f[7])));
}

// exp(d) for an output rounded to 16 bits: one ex2.approx.ftz of d·log2(e). Its relative error (2^-22, plus
// 2^-24·|d|·log2(e) from the product) is far below the 2^-9 and 2^-12 of a bf16 or fp16 rounding, where
// expf's sequence costs about three times the instructions (exp2f twice: it keeps subnormal results, which
// no 16-bit output needs). NaN stays NaN, −inf gives 0. The host emulation computes exp2f.
__device__ __forceinline__ float exp_for_16_bits(float d) {
    const float e = d * 1.44269504088896341f;
#ifdef __CUDA_ARCH__
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(e));
    return y;
#else
    return exp2f(e);
#endif
}

// The chunk to exp(x − m) in place; returns their sum.
__device__ __forceinline__ float chunk_exp(float4& v, float m) {
    v = make_float4(expf(v.x - m), expf(v.y - m), expf(v.z - m), expf(v.w - m));
    return (v.x + v.y) + (v.z + v.w);
}

// The sum of the chunk's exp(x − m); the chunk stays as loaded.
template <typename H>
__device__ __forceinline__ float chunk_exp(const Half8<H>& v, float m) {
    float f[8];
    unpack8(v, f);
#pragma unroll
    for (int k = 0; k < 8; ++k) f[k] = exp_for_16_bits(f[k] - m);
    return ((f[0] + f[1]) + (f[2] + f[3])) + ((f[4] + f[5]) + (f[6] + f[7]));
}

// The chunk's softmax stored at p: one 16-byte store where `vector` (p 16-byte aligned), else scalars, stored as
// S says (native_cluster.cuh). A float chunk already holds exp(x − m) (m unused); a 16-bit one computes it again
// from x.
template <Stores S>
__device__ __forceinline__ void store_chunk(float* p, const float4& v, float, float scale, bool vector) {
    store_quad<S>(p, make_float4(v.x * scale, v.y * scale, v.z * scale, v.w * scale), vector);
}

template <Stores S, typename H>
__device__ __forceinline__ void store_chunk(H* p, const Half8<H>& v, float m, float scale, bool vector) {
    float y[8];
    unpack8(v, y);
#pragma unroll
    for (int k = 0; k < 8; ++k) y[k] = exp_for_16_bits(y[k] - m) * scale;
    if (vector) {
        store16<S>(p, pack8<H>(y).q);
    } else {
#pragma unroll
        for (int k = 0; k < 8; ++k) p[k] = from_float<H>(y[k]);
    }
}

// A CTA's slice (v: its valid body chunks, its edge scalar and, where the slice runs past the registers (the deep
// strategy), its `staged` chunks in shared memory): returns (m, Σ exp(x − m)) of the slice, m its max; a float
// slice's chunks, staged ones too, and every edge become exp(x − m) in place, a 16-bit slice's chunks stay as loaded.
template <int THREADS, int V, typename Chunk>
__device__ __forceinline__ MaxSum slice_exp(const RowSlice& s, Chunk (&v)[V], float& edge, float* scratch,
                                            Chunk* staged = nullptr, int staged_chunks = 0) {
    float m = NO_VALUE;
#pragma unroll
    for (int i = 0; i < V; ++i) {
        if (s.first + (int)threadIdx.x + i * THREADS < s.end) m = fmaxf(m, chunk_max(v[i]));
    }
    for (int j = threadIdx.x; j < staged_chunks; j += THREADS) m = fmaxf(m, chunk_max(staged[j]));
    if (s.edge >= 0) m = fmaxf(m, edge);
    m = row_reduce<THREADS>(m, scratch, MaxOp());
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < V; ++i) {
        if (s.first + (int)threadIdx.x + i * THREADS < s.end) sum += chunk_exp(v[i], m);
    }
    for (int j = threadIdx.x; j < staged_chunks; j += THREADS) sum += chunk_exp(staged[j], m);  // read back by it alone
    edge = expf(edge - m);
    if (s.edge >= 0) sum += edge;
    return {m, row_reduce<THREADS>(sum, scratch, SumOp())};
}

// Publish this CTA's (max, sum) in `slot` (its shared memory), then, after one cluster barrier, the factor
// that turns its exp(x − max_slice) into the row's softmax. Lane l of every warp reads rank l mod K's pair through
// DSMEM; a butterfly over the K ranks gives every lane the row's max, then the ranks' sums rescaled to it, summed by
// a second butterfly: each run of K lanes holds the ranks in order and max and + are commutative, so every thread of
// every CTA holds the same bits. A thread combining all K pairs itself made 3·K remote loads and K exponentials a
// row.
template <int K>
__device__ __forceinline__ float cluster_scale(MaxSum own, int count, float* slot) {
    static_assert(K <= 32 && (K & (K - 1)) == 0, "a power of two of ranks, up to one a lane");
    if (threadIdx.x == 0) {
        slot[0] = own.max;
        slot[1] = count > 0 ? own.sum : 0.0f;  // a CTA that holds nothing has m = NO_VALUE and exp(0) = 1s
    }
    sync_cluster<K>();
    const unsigned rank = threadIdx.x & 31 & (K - 1);
    const float rank_max = load_from_rank<K>(&slot[0], rank);
    float row_max = rank_max;
#pragma unroll
    for (int step = 1; step < K; step <<= 1) row_max = fmaxf(row_max, __shfl_xor_sync(0xffffffffu, row_max, step));
    float total = load_from_rank<K>(&slot[1], rank) * expf(rank_max - row_max);
#pragma unroll
    for (int step = 1; step < K; step <<= 1) total += __shfl_xor_sync(0xffffffffu, total, step);
    return expf(own.max - row_max) / total;
}

// A CTA's slice of row `outr`: exp(x − m), m the slice's max, times `scale`, rounded once to T.
template <int THREADS, int V, Stores S, typename T, typename Chunk>
__device__ __forceinline__ void write_slice(T* __restrict__ outr, const RowSlice& s, const Chunk (&v)[V], float edge,
                                            float m, float scale) {
    const bool vector_out = aligned16(outr + s.head);
#pragma unroll
    for (int i = 0; i < V; ++i) {
        const int j = s.first + threadIdx.x + i * THREADS;
        if (j < s.end) store_chunk<S>(outr + s.head + CHUNK_ELEMENTS<T> * j, v[i], m, scale, vector_out);
    }
    if (s.edge >= 0) outr[s.edge] = from_float<T>(edge * scale);
}

// x, out: rows × cols of T (float, bf16 or f16). Grid (rows · K), block (THREADS); K · THREADS · V ≥ the row's
// 16-byte chunks (mage.backends.rows.cluster_plan). One cluster a row (see layernorm's native.cu for why).
template <int K, int THREADS, int V, typename T>
__device__ __forceinline__ void softmax_cluster(const T* __restrict__ x, T* __restrict__ out, int cols) {
    __shared__ float scratch[THREADS / 32];
    __shared__ float published[2];  // this CTA's (max, Σ exp(x − max)), read by every CTA of the cluster
    const unsigned rank = rank_in_cluster<K>();
    const long long row = blockIdx.x / K;
    const T* xr = x + row * cols;
    const RowSlice s = row_slice(xr, cols, rank, K);

    typename RowChunk<T>::type v[V];
    float edge = NO_VALUE;
#pragma unroll
    for (int i = 0; i < V; ++i) {
        const int j = s.first + threadIdx.x + i * THREADS;
        if (j < s.end) v[i] = load_chunk(xr + s.head + CHUNK_ELEMENTS<T> * j);
    }
    if (s.edge >= 0) edge = to_float(xr[s.edge]);
    const MaxSum own = slice_exp<THREADS, V>(s, v, edge, scratch);
    const float scale = cluster_scale<K>(own, s.count, published);
    arrive_cluster<K>();  // this CTA's partials are read: its peers may exit once it has written
    write_slice<THREADS, V, Stores::plain>(out + row * cols, s, v, edge, own.max, scale);
    wait_cluster<K>();  // no CTA exits while a peer may still read its shared memory
}

// `chunks` body chunks of row `outr` held in shared memory (`staged`: a float row's as exp(x − m), a 16-bit row's as
// loaded), the first of them body chunk `first` of the row, their exp(x − m) times `scale`, written.
template <int THREADS, typename T, typename Chunk>
__device__ __forceinline__ void write_staged(T* __restrict__ outr, const Chunk* staged, int head, int first, int chunks,
                                             float m, float scale) {
    const bool vector_out = aligned16(outr + head);
    for (int j = threadIdx.x; j < chunks; j += THREADS)
        store_chunk<Stores::plain>(outr + head + CHUNK_ELEMENTS<T> * (first + j), staged[j], m, scale, vector_out);
}

// The smem strategy (float32): each CTA's slice in shared memory by one bulk copy (bulk_copy_to_shared), its
// THREADS threads walking the chunks: the max, then exp(x − max) back in place with Σ, then the slice scaled
// and written. The partials and their rank-order combination are the cluster strategy's. Grid (rows · K),
// block (THREADS), 16 bytes of dynamic shared memory for each chunk a CTA may hold
// (mage.backends.rows.launch_smem).
template <int K, int THREADS>
__device__ __forceinline__ void softmax_smem(const float* __restrict__ x, float* __restrict__ out, int cols) {
    DYNAMIC_SHARED(float4, stage);
    __shared__ float scratch[THREADS / 32];
    __shared__ float published[2];
    __shared__ unsigned long long arrived;
    const unsigned rank = rank_in_cluster<K>();
    const long long row = blockIdx.x / K;
    const float* xr = x + row * cols;
    const RowSlice s = row_slice(xr, cols, rank, K);
    const int chunks = s.end - s.first;  // the same for every thread of the CTA
    float edge = s.edge >= 0 ? xr[s.edge] : NO_VALUE;
    if (chunks > 0) bulk_copy_to_shared(stage, xr + s.head + 4 * s.first, 16u * chunks, &arrived);
    float m = NO_VALUE;
    for (int j = threadIdx.x; j < chunks; j += THREADS) m = fmaxf(m, chunk_max(stage[j]));
    if (s.edge >= 0) m = fmaxf(m, edge);
    m = row_reduce<THREADS>(m, scratch, MaxOp());
    float sum = 0.0f;
    for (int j = threadIdx.x; j < chunks; j += THREADS) {
        float4 v = stage[j];
        sum += chunk_exp(v, m);
        stage[j] = v;  // read back by this thread alone
    }
    edge = expf(edge - m);
    if (s.edge >= 0) sum += edge;
    const MaxSum own = {m, row_reduce<THREADS>(sum, scratch, SumOp())};
    const float scale = cluster_scale<K>(own, s.count, published);
    arrive_cluster<K>();  // this CTA's partials are read: its peers may exit once it has written
    float* outr = out + row * cols;
    write_staged<THREADS>(outr, stage, s.head, s.first, chunks, m, scale);
    if (s.edge >= 0) outr[s.edge] = edge * scale;
    wait_cluster<K>();  // no CTA exits while a peer may still read its shared memory
}

// The deep strategy: a CTA's slice in its registers (THREADS threads, V chunks each, as the cluster's) and, past them,
// in shared memory by one bulk copy issued before the registers' loads (see layernorm's native.cu): up to 256 KB of a
// row a CTA of 1024 threads, 128 KB of 512. The (max, sum) of both parts and their rank-order combination are the
// cluster strategy's. Grid (rows · K), block (THREADS), 16 bytes of dynamic shared memory for each chunk past the
// registers (mage.backends.rows.launch_deep).
template <int K, int THREADS, int V, typename T>
__device__ __forceinline__ void softmax_deep(const T* __restrict__ x, T* __restrict__ out, int cols) {
    using Chunk = typename RowChunk<T>::type;
    DYNAMIC_SHARED(uint4, buffer);  // one type for every instantiation (native_cluster.cuh)
    Chunk* stage = reinterpret_cast<Chunk*>(buffer);
    __shared__ float scratch[THREADS / 32];
    __shared__ float published[2];
    __shared__ unsigned long long arrived;
    const long long row = blockIdx.x / K;
    const T* xr = x + row * cols;
    const DeepSlice d = stage_past_registers<K, THREADS, V>(xr, cols, stage, &arrived);
    Chunk v[V];
    float edge = NO_VALUE;
#pragma unroll
    for (int i = 0; i < V; ++i) {
        const int j = d.held.first + threadIdx.x + i * THREADS;
        if (j < d.held.end) v[i] = load_chunk(xr + d.slice.head + CHUNK_ELEMENTS<T> * j);
    }
    if (d.slice.edge >= 0) edge = to_float(xr[d.slice.edge]);
    wait_bulk_copy(&arrived, 0);
    const MaxSum own = slice_exp<THREADS, V>(d.held, v, edge, scratch, stage, d.staged);
    const float scale = cluster_scale<K>(own, d.slice.count, published);
    arrive_cluster<K>();  // this CTA's partials are read: its peers may exit once it has written
    T* outr = out + row * cols;
    write_slice<THREADS, V, Stores::plain>(outr, d.held, v, edge, own.max, scale);
    write_staged<THREADS>(outr, stage, d.slice.head, d.held.end, d.staged, own.max, scale);
    wait_cluster<K>();  // no CTA exits while a peer may still read its shared memory
}

// BOUNDS: the kernel's __launch_bounds__ (a minimum of CTAs an SM holds each thread to the registers that lets
// them all be resident).
#define SOFTMAX_CLUSTER(TAG, T, K, THREADS, V, BOUNDS)                                                        \
    extern "C" __global__ void __cluster_dims__(K, 1, 1) BOUNDS                                                 \
        softmax_##TAG##_cluster##K##_t##THREADS##_v##V(const T* __restrict__ x, T* __restrict__ out,            \
                                                       long long rows, int cols) {                              \
        softmax_cluster<K, THREADS, V>(x, out, cols);                                                          \
    }

// The slice strategy: the cluster kernel with K = 1, a block a row holding it in registers whatever its
// alignment, without cluster dims (see layernorm's native.cu); the warp and online kernels read rows in scalars.
#define SOFTMAX_SLICE(TAG, T, THREADS, V)                                                                     \
    extern "C" __global__ void __launch_bounds__(THREADS)                                                     \
        softmax_##TAG##_slice_t##THREADS##_v##V(const T* __restrict__ x, T* __restrict__ out, long long rows,  \
                                                int cols) {                                                   \
        softmax_cluster<1, THREADS, V>(x, out, cols);                                                          \
    }

// The pipe strategy: grid (clusters · K) from mage.backends.rows.pipe_plan, block (THREADS), the slice's 16-byte
// chunks of dynamic shared memory; each cluster walks rows (pipelined_rows), the next row's slice copying into
// shared memory while this one is reduced and written from registers. Pairs published by turns. CTAS CTAs an
// SM: __launch_bounds__ holds each thread to the registers that lets them all be resident.
template <int K, int THREADS, int V, typename T>
__device__ __forceinline__ void softmax_pipe(const T* __restrict__ x, T* __restrict__ out, long long rows, int cols) {
    __shared__ float scratch[THREADS / 32];
    __shared__ float published[2][2];
    pipelined_rows<K, THREADS, V>(x, rows, cols,
                                  [&](long long row, const RowSlice& s, typename RowChunk<T>::type(&v)[V], float edge,
                                      float, int parity) {
        const MaxSum own = slice_exp<THREADS, V>(s, v, edge, scratch);
        const float scale = cluster_scale<K>(own, s.count, published[parity]);
        write_slice<THREADS, V, Stores::pinned>(out + row * cols, s, v, edge, own.max, scale);
    }, [] {});
}

#define SOFTMAX_PIPE(TAG, T, K, THREADS, V, CTAS)                                                             \
    extern "C" __global__ void __cluster_dims__(K, 1, 1) __launch_bounds__(THREADS, CTAS)                       \
        softmax_##TAG##_pipe##K##_t##THREADS##_v##V(const T* __restrict__ x, T* __restrict__ out,               \
                                                    long long rows, int cols) {                                 \
        softmax_pipe<K, THREADS, V>(x, out, rows, cols);                                                       \
    }

// The deep strategy's kernels (native_cluster.cuh's FLOAT_DEEP_PLANS and SIXTEEN_BIT_DEEP_PLANS); CTAS CTAs an SM.
#define SOFTMAX_DEEP(TAG, T, K, THREADS, V, CTAS)                                                             \
    extern "C" __global__ void __cluster_dims__(K, 1, 1) __launch_bounds__(THREADS, CTAS)                       \
        softmax_##TAG##_deep##K##_t##THREADS##_v##V(const T* __restrict__ x, T* __restrict__ out, long long rows, \
                                                    int cols) {                                               \
        softmax_deep<K, THREADS, V>(x, out, cols);                                                             \
    }

// The cluster and slice kernels of a 16-bit element type T, named softmax_TAG_… (bf16 and fp16, in native16.cu),
// of mage.backends.rows.SIXTEEN_BIT_CLUSTER_PLANS, (K, THREADS, V), and SIXTEEN_BIT_SLICE_PLANS, (THREADS, V),
// narrowest rows first: 8 chunks of 8 elements a thread. The float32 ones are compiled below.
#define SOFTMAX_SIXTEEN_BIT_ROW_STRATEGIES(TAG, T)                                                            \
    SOFTMAX_CLUSTER(TAG, T, 2, 64, 8, __launch_bounds__(64))                                                  \
    SOFTMAX_CLUSTER(TAG, T, 2, 128, 8, __launch_bounds__(128))                                                \
    SOFTMAX_CLUSTER(TAG, T, 2, 256, 8, __launch_bounds__(256))                                                \
    SOFTMAX_CLUSTER(TAG, T, 2, 512, 8, __launch_bounds__(512))                                                \
    SOFTMAX_CLUSTER(TAG, T, 4, 512, 8, __launch_bounds__(512))                                                \
    SOFTMAX_CLUSTER(TAG, T, 8, 512, 8, __launch_bounds__(512))                                                \
    SOFTMAX_SLICE(TAG, T, 128, 8)                                                                             \
    SOFTMAX_SLICE(TAG, T, 256, 8)

// native16.cu includes this file for its templates only: the float32 kernels are compiled here alone.
#ifndef NATIVE_TEMPLATES_ONLY
SOFTMAX_KERNELS(f32, float)
// native_cluster.cuh's FLOAT_CLUSTER_PLANS, then mage.backends.rows.SLICE_PLANS.
#define SOFTMAX_F32_CLUSTER(K, THREADS, V, BOUNDS) SOFTMAX_CLUSTER(f32, float, K, THREADS, V, BOUNDS)
FLOAT_CLUSTER_PLANS(SOFTMAX_F32_CLUSTER)
SOFTMAX_SLICE(f32, float, 256, 4)
SOFTMAX_SLICE(f32, float, 512, 4)
SOFTMAX_SLICE(f32, float, 1024, 4)

// mage.backends.rows.SMEM_PLANS: (K, THREADS), narrowest rows first.
#define SOFTMAX_SMEM(K, THREADS)                                                                              \
    extern "C" __global__ void __cluster_dims__(K, 1, 1) __launch_bounds__(THREADS)                             \
        softmax_f32_smem##K##_t##THREADS(const float* __restrict__ x, float* __restrict__ out, long long rows,  \
                                         int cols) {                                                          \
        softmax_smem<K, THREADS>(x, out, cols);                                                                \
    }
SOFTMAX_SMEM(2, 1024)
SOFTMAX_SMEM(4, 1024)
SOFTMAX_SMEM(8, 1024)

// native_cluster.cuh's FLOAT_DEEP_PLANS (see layernorm's native.cu).
#define SOFTMAX_F32_DEEP(K, THREADS, V, CTAS) SOFTMAX_DEEP(f32, float, K, THREADS, V, CTAS)
FLOAT_DEEP_PLANS(SOFTMAX_F32_DEEP)

// native_cluster.cuh's PIPE_PLANS.
#define SOFTMAX_F32_PIPE(K, THREADS, V, CTAS) SOFTMAX_PIPE(f32, float, K, THREADS, V, CTAS)
PIPE_PLANS(SOFTMAX_F32_PIPE)
#endif
