// What the row-wise cluster kernels (layernorm, softmax: the `cluster` strategy) share. An op's
// native.cu includes this file by its relative path; mage.backends.native.source pastes it in.
//
// A row too wide for one block's registers is held by a thread-block cluster (Hopper): its K CTAs
// each keep a contiguous slice of the row in registers, so the row is read from DRAM once and
// written from registers. Each CTA reduces its slice, publishes its partial statistics in its own
// shared memory, and after one cluster barrier every CTA reads all K partials through distributed
// shared memory (DSMEM) and combines them in rank order: the same bits in every CTA, every run.
//
// The `pipe` strategy makes the same cluster persistent (pipelined_rows, below): the grid fills the
// SMs once and each cluster walks rows, with the next row's slice already loading into registers while
// the current one is reduced and written.
//
// The cluster primitives are PTX (NVRTC has no include path for <cooperative_groups.h>):
// %cluster_ctarank, barrier.cluster (split into arrive and wait, so a CTA writes its slice while
// its peers finish reading its partials), mapa + ld.shared::cluster. The CPU emulation runs blocks
// one after another and cannot hold a cluster: there these kernels compile and trap if launched.

// uint4 (in the CPU emulation too) and Half8.
#include "native_half.cuh"

#ifdef __CUDA_ARCH__
__device__ __forceinline__ unsigned cluster_rank() {
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    return rank;
}

// Every thread of the cluster has arrived (its earlier shared-memory writes are visible to all).
__device__ __forceinline__ void cluster_arrive() {
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}

__device__ __forceinline__ void cluster_wait() {
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// `local` (this CTA's shared memory) as it lies in the shared memory of the cluster's CTA `rank`.
__device__ __forceinline__ float cluster_load(const float* local, unsigned rank) {
    const unsigned here = static_cast<unsigned>(__cvta_generic_to_shared(local));
    unsigned there;
    float value;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(there) : "r"(here), "r"(rank));
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(value) : "r"(there) : "memory");
    return value;
}
#else
#define __cluster_dims__(...)
inline unsigned cluster_rank() { __builtin_trap(); }
inline void cluster_arrive() { __builtin_trap(); }
inline void cluster_wait() { __builtin_trap(); }
inline float cluster_load(const float*, unsigned) { __builtin_trap(); }
#endif

__device__ __forceinline__ void cluster_sync() {
    cluster_arrive();
    cluster_wait();
}

// The kernels reach the cluster through these, templated on its size K. A cluster of one CTA is a block:
// rank 0, its barrier __syncthreads, its peers' shared memory its own, and nothing to wait for before it
// exits. The slice strategy's kernels are that K = 1 case, launched without cluster dims: a row in one
// block's registers whatever its alignment; with no cluster instruction they also run in the CPU emulation.
template <int K>
__device__ __forceinline__ unsigned rank_in_cluster() {
    return K == 1 ? 0u : cluster_rank();
}

template <int K>
__device__ __forceinline__ void sync_cluster() {
    if (K == 1) {
        __syncthreads();
    } else {
        cluster_sync();
    }
}

template <int K>
__device__ __forceinline__ void arrive_cluster() {
    if (K > 1) cluster_arrive();
}

template <int K>
__device__ __forceinline__ void wait_cluster() {
    if (K > 1) cluster_wait();
}

// `local` (this CTA's shared memory) as the cluster's CTA `rank` holds it.
template <int K>
__device__ __forceinline__ float load_from_rank(const float* local, unsigned rank) {
    return K == 1 ? *local : cluster_load(local, rank);
}

// Four floats from p: one float4 load where `vector` (p 16-byte aligned), else four scalar loads.
__device__ __forceinline__ float4 load_quad(const float* p, bool vector) {
    if (vector) return *reinterpret_cast<const float4*>(p);
    return make_float4(p[0], p[1], p[2], p[3]);
}

// How a row kernel writes a 16-byte chunk (p global and 16-byte aligned). `plain`: a vector store the compiler
// schedules as it likes, which the one-row cluster and slice kernels keep as STG.E.128 and run faster with (sm_90
// SASS; float32 LayerNorm at 256×262144 on an H100: 265.7 µs, against 309.1 with its stores pinned). `pinned`: one
// st.global.v4 each, for the pipe, whose row loop written plainly lost every 16-byte store, the compiler keeping
// only the scalar stores that are right whether p is aligned or not. (__stwb's st.global.wb became a strong store,
// STG.E.128.STRONG.SM.)
enum class Stores { plain, pinned };

template <Stores S>
__device__ __forceinline__ void store16(void* p, uint4 q) {
#ifdef __CUDA_ARCH__
    if (S == Stores::pinned) {
        asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(q.x), "r"(q.y), "r"(q.z), "r"(q.w));
        return;
    }
#endif
    *reinterpret_cast<uint4*>(p) = q;
}

template <Stores S>
__device__ __forceinline__ void store16(float* p, float4 q) {
    store16<S>(static_cast<void*>(p), make_uint4(__builtin_bit_cast(unsigned, q.x), __builtin_bit_cast(unsigned, q.y),
                                                  __builtin_bit_cast(unsigned, q.z), __builtin_bit_cast(unsigned, q.w)));
}

template <Stores S>
__device__ __forceinline__ void store_quad(float* p, float4 q, bool vector) {
    if (vector) {
        store16<S>(p, q);
    } else {
        p[0] = q.x; p[1] = q.y; p[2] = q.z; p[3] = q.w;
    }
}

template <typename T>
__device__ __forceinline__ bool aligned16(const T* p) {
    return (reinterpret_cast<unsigned long long>(p) & 15) == 0;
}

// Elements of type T in a 16-byte chunk (4 floats, 8 bf16 or fp16), and its log2.
template <typename T>
constexpr int CHUNK_ELEMENTS = 16 / static_cast<int>(sizeof(T));
template <typename T>
constexpr int CHUNK_SHIFT = sizeof(T) == 4 ? 2 : 3;

// The part of a row that CTA `rank` of a cluster of `ranks` holds. A row of floats starts on any
// 4-byte boundary (4099 columns: rows 1, 2, 3 of every 4 are not 16-byte aligned), one of 16-bit elements
// on any 2-byte boundary, so it is cut into a head of scalars before its first 16-byte boundary (up to 3
// floats, 7 16-bit elements), a body of 16-byte chunks (16-byte loads whatever the width) and a tail of
// scalars as short. Body chunks are dealt out in contiguous runs, one a CTA; the head's scalars go to rank
// 0's first threads, the tail's to the last rank's (after the head's when one CTA holds the row).
struct RowSlice {
    int head;         // scalars before the body (columns 0 .. head − 1)
    int first, end;   // this CTA's body chunks: chunk j is columns head + E·j .. head + E·j + E − 1 (E elements a chunk)
    int edge;         // the column of this thread's head or tail scalar, or −1 if it holds none
    int count;        // the columns this CTA holds
};

template <typename T>
__device__ __forceinline__ RowSlice row_slice(const T* row, int cols, unsigned rank, unsigned ranks) {
    RowSlice s;
    s.head = static_cast<int>(((16 - (reinterpret_cast<unsigned long long>(row) & 15)) & 15) / sizeof(T));
    if (s.head > cols) s.head = cols;
    const int chunks = (cols - s.head) >> CHUNK_SHIFT<T>;
    const int tail_at = s.head + CHUNK_ELEMENTS<T> * chunks;
    const int tail = cols - tail_at;
    const int per = (chunks + static_cast<int>(ranks) - 1) / static_cast<int>(ranks);
    s.first = static_cast<int>(rank) * per < chunks ? static_cast<int>(rank) * per : chunks;
    s.end = s.first + per < chunks ? s.first + per : chunks;
    const int t = threadIdx.x;
    s.edge = -1;
    if (rank == 0 && t < s.head) s.edge = t;
    const int tail_t = t - (ranks == 1 ? s.head : 0);  // one CTA holds both: the tail's threads follow the head's
    if (rank == ranks - 1 && tail_t >= 0 && tail_t < tail) s.edge = tail_at + tail_t;
    s.count = CHUNK_ELEMENTS<T> * (s.end - s.first) + (rank == 0 ? s.head : 0) + (rank == ranks - 1 ? tail : 0);
    return s;
}

// The columns of weight and bias that CTA `rank` of `ranks` may need for a row of `cols` columns, [lo, hi), whatever
// the row's alignment: row_slice's body chunks move with the row's head (0 … E − 1 elements), and with it the
// chunks a CTA gets, by at most one chunk a rank. lo is a whole number of chunks.
struct ColumnWindow {
    int lo, hi;
};

template <typename T>
__device__ __forceinline__ ColumnWindow column_window(int cols, unsigned rank, unsigned ranks) {
    constexpr int E = CHUNK_ELEMENTS<T>;
    const int most = cols >> CHUNK_SHIFT<T>;                                       // head 0
    const int fewest = cols >= E - 1 ? (cols - (E - 1)) >> CHUNK_SHIFT<T> : 0;  // head E − 1
    const int k = static_cast<int>(rank), n = static_cast<int>(ranks);
    const int per_fewest = (fewest + n - 1) / n, per_most = (most + n - 1) / n;
    const int first = k * per_fewest < fewest ? k * per_fewest : fewest;
    const int end = (k + 1) * per_most < most ? (k + 1) * per_most : most;
    ColumnWindow w;
    w.lo = k == 0 ? 0 : E * first;
    w.hi = k == n - 1 || E - 1 + E * end > cols ? cols : E - 1 + E * end;
    return w;
}

// The elements a window may span when a CTA holds at most CHUNKS body chunks of a row (a plan's THREADS · V)
// among RANKS: below E · (CHUNKS + RANKS + 1), a whole number of chunks (mage.backends.rows.window_capacity).
template <typename T, int RANKS, int CHUNKS>
constexpr int WINDOW_CAPACITY = CHUNK_ELEMENTS<T> * (CHUNKS + RANKS + 1);

// The float32 cluster kernels' plans, X(K, THREADS, V, BOUNDS) each (BOUNDS: the kernel's __launch_bounds__), that
// layernorm and softmax both compile: mage.backends.rows.CLUSTER_PLANS, narrowest rows first, then those that no
// launcher picks, for scripts/cluster_plan_probe.py's comparisons: at 65536 columns (8, 512, 4), which (4, 512, 8)
// replaced, a cluster of 2 CTAs of 1024 threads (one an SM) and of 8 CTAs of 256 (four an SM); 16 CTAs of 512
// threads at 262144 columns, two an SM, which were slower (rows.CLUSTER_PLANS).
#define FLOAT_CLUSTER_PLANS(X)                                                                                   \
    X(2, 128, 4, __launch_bounds__(128))                                                                         \
    X(2, 256, 4, __launch_bounds__(256))                                                                         \
    X(2, 512, 4, __launch_bounds__(512))                                                                         \
    X(4, 512, 4, __launch_bounds__(512))                                                                         \
    X(4, 512, 8, __launch_bounds__(512))                                                                         \
    X(8, 1024, 4, __launch_bounds__(1024))                                                                       \
    X(8, 1024, 8, __launch_bounds__(1024))                                                                       \
    X(8, 512, 4, __launch_bounds__(512))                                                                         \
    X(2, 1024, 8, __launch_bounds__(1024))                                                                       \
    X(8, 256, 8, __launch_bounds__(256, 4))                                                                      \
    X(16, 512, 8, __launch_bounds__(512, 2))

// The deep strategy's plans, X(K, THREADS, V, CTAS) each (CTAS: CTAs an SM, its __launch_bounds__), that layernorm
// and softmax both compile (float32): a CTA holds THREADS · V chunks of its slice in registers and as many again in
// shared memory. mage.backends.rows.DEEP_PLANS, narrowest rows first: 512 threads, two CTAs an SM (128 KB of a row a
// CTA), so that one CTA's loads overlap the other's reduction; then two that no launcher picks, for
// scripts/cluster_plan_probe.py's comparisons: 1024 threads, one CTA an SM (256 KB a CTA), at 65536 columns (1 CTA a
// row) and at 262144 (4). The probe on an H100, µs, 1024 threads against 512: LayerNorm 209.4 against 200.3 at
// 1024×65536 and 236.7 against 219.2 at 256×262144; softmax 207.6 against 191.2 and 208.1 against 203.9.
#define FLOAT_DEEP_PLANS(X)                                                                                      \
    X(1, 512, 8, 2)                                                                                              \
    X(2, 512, 8, 2)                                                                                              \
    X(4, 512, 8, 2)                                                                                              \
    X(8, 512, 8, 2)                                                                                              \
    X(1, 1024, 8, 1)                                                                                             \
    X(4, 1024, 8, 1)

// The deep strategy's plans over 16-bit rows (chunks of 8 elements as loaded, 4 registers each): 262144 columns in 2
// CTAs of 1024 threads (mage.backends.rows.SIXTEEN_BIT_DEEP_PLANS). LayerNorm's 4 CTAs of 512 threads, two an SM,
// spilled 8 bytes a thread at 64 registers.
#define SIXTEEN_BIT_DEEP_PLANS(X)                                                                                \
    X(1, 1024, 8, 1)                                                                                             \
    X(2, 1024, 8, 1)

// The pipe strategy's plans, X(K, THREADS, V, CTAS) each (CTAS: CTAs an SM, its __launch_bounds__), narrowest
// rows first: mage.backends.rows.PIPE_PLANS and SIXTEEN_BIT_PIPE_PLANS. A CTA holds one row's slice in registers
// (V chunks a thread, the cluster strategy's plans) and the next row's in THREADS · V 16-byte chunks of dynamic
// shared memory, so that each plan's CTAS CTAs fit an SM's 228 KB: 64 or 128 KB of the next rows in flight an SM.
#define PIPE_PLANS(X)                                                                                            \
    X(2, 128, 4, 8)                                                                                              \
    X(2, 512, 4, 2)                                                                                              \
    X(4, 512, 8, 2)                                                                                              \
    X(8, 1024, 8, 1)
#define SIXTEEN_BIT_PIPE_PLANS(X)                                                                                \
    X(2, 128, 8, 8)                                                                                              \
    X(2, 512, 8, 2)                                                                                              \
    X(4, 512, 8, 2)                                                                                              \
    X(8, 512, 8, 2)

// ---------------------------------------------------------------- bulk copies into shared memory
//
// The TMA unit's cp.async.bulk copies a run of 16-byte chunks from global into shared memory, issued by one
// thread: all of it in flight at once however few threads the CTA has, at no instruction cost to the others.
// Completion is counted in bytes on an mbarrier (one arrival: the issuing thread's, with the bytes expected);
// the CTA's threads wait on the barrier's phase, 0 for its first copy, then 1, 0, … for the next.
#ifdef __CUDA_ARCH__
__device__ __forceinline__ unsigned shared_address(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Thread 0 makes `barrier` ready for its first copy; the CTA then syncs before any thread waits on it.
__device__ __forceinline__ void init_copy_barrier(unsigned long long* barrier) {
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(barrier)) : "memory");
        // The barrier's initialization made visible to the copy unit before the copy signals it.
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
}

// Thread 0, first for each phase: the phase of `barrier` completes once `bytes` have landed (0: at once). The proxy
// fence orders the CTA's earlier reads of the buffers (before a __syncthreads) ahead of the copies' writes.
__device__ __forceinline__ void expect_copy_bytes(unsigned long long* barrier, unsigned bytes) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)), "r"(bytes)
                 : "memory");
}

// Thread 0: `bytes` (a multiple of 16, more than 0, from a 16-byte-aligned src) copied to dst, counted on `barrier`.
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, unsigned long long* barrier) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(shared_address(dst)), "l"(src), "r"(bytes), "r"(shared_address(barrier)) : "memory");
}

// Every thread: until the copy counted on `barrier` in phase `parity` has landed.
__device__ __forceinline__ void wait_bulk_copy(unsigned long long* barrier, unsigned parity) {
    const unsigned bar = shared_address(barrier);
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}" : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    }
}
#else
// The CPU emulation copies at once; the wait, which every thread of the CTA makes, is a barrier, so that no
// thread reads a buffer before the thread that copies has filled it.
inline void init_copy_barrier(unsigned long long*) {}
inline void expect_copy_bytes(unsigned long long*, unsigned) {}
inline void bulk_copy(void* dst, const void* src, unsigned bytes, unsigned long long*) { __builtin_memcpy(dst, src, bytes); }
inline void wait_bulk_copy(unsigned long long*, unsigned) { __syncthreads(); }
#endif

// Thread 0: one copy, the whole phase of `barrier`.
__device__ __forceinline__ void issue_bulk_copy(void* dst, const void* src, unsigned bytes,
                                                unsigned long long* barrier) {
    expect_copy_bytes(barrier, bytes);
    if (bytes > 0) bulk_copy(dst, src, bytes, barrier);
}

// The smem strategy's one copy: a CTA's body slice into shared memory, every thread returning once it is there
// (QuACK's norms and softmax hold a row so: ncu counted their instructions a byte at a fifth to two fifths of the
// register-held clusters'). The body of a row is 16-byte aligned by row_slice, as the copy needs.
__device__ __forceinline__ void bulk_copy_to_shared(void* dst, const void* src, unsigned bytes,
                                                    unsigned long long* barrier) {
    init_copy_barrier(barrier);
    __syncthreads();  // the barrier is initialized before any thread waits on it
    if (threadIdx.x == 0) issue_bulk_copy(dst, src, bytes, barrier);
    wait_bulk_copy(barrier, 0);
}

// ---------------------------------------------------------------- the persistent form: rows pipelined

// A 16-byte chunk of a row as a CTA holds it in registers: a float4 of a float row; the eight elements of a
// 16-bit row as loaded (four registers, widened at each use).
template <typename T>
struct RowChunk {
    using type = Half8<T>;
};
template <>
struct RowChunk<float> {
    using type = float4;
};

// The kernel's dynamic shared memory (launched with `shared` bytes, opted in past 48 KB by both hosts); in the
// CPU emulation one buffer, which its blocks, run one after another, take in turn.
#ifdef __CUDA_ARCH__
#define DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#else
#define DYNAMIC_SHARED(type, name) type* name = reinterpret_cast<type*>(emu::dynamic_shared)
#endif

// ---------------------------------------------------------------- the deep form: a slice past the registers

// A deep kernel's CTA (cluster rank rank_in_cluster<K>() of row `row`): its slice of the row, the part of it its
// registers hold (`held`: the slice's first THREADS · V chunks, its count still the whole slice's) and the chunks
// past them (`staged`), whose one bulk copy into `stage` (16 bytes a chunk of dynamic shared memory) the CTA's first
// thread has issued on `arrived` when this returns: the copy is in flight while the threads load the registers'
// part, and every thread waits on wait_bulk_copy(arrived, 0) before it reads the stage.
struct DeepSlice {
    RowSlice slice, held;
    int staged;
};

template <int K, int THREADS, int V, typename T, typename Chunk>
__device__ __forceinline__ DeepSlice stage_past_registers(const T* __restrict__ xr, int cols, Chunk* stage,
                                                          unsigned long long* arrived) {
    DeepSlice d;
    d.slice = row_slice(xr, cols, rank_in_cluster<K>(), K);
    d.held = d.slice;
    if (d.held.end - d.held.first > THREADS * V) d.held.end = d.held.first + THREADS * V;
    d.staged = d.slice.end - d.held.end;  // the same for every thread
    init_copy_barrier(arrived);
    __syncthreads();  // the barrier is initialized before any thread waits on it
    if (threadIdx.x == 0)
        issue_bulk_copy(stage, xr + d.slice.head + CHUNK_ELEMENTS<T> * d.held.end, 16u * d.staged, arrived);
    return d;
}

// Cluster c of the grid's gridDim.x / K walks rows c, c + clusters, c + 2·clusters, …; each CTA holds the
// same rank's slice (row_slice) of every row it visits. The row being reduced and written is in registers
// (`v`, as the one-row cluster holds it); the next row's body is on its way into shared memory, one bulk copy
// issued by the CTA's first thread as soon as every thread has moved the row before out of it, so that each
// SM has a whole slice in flight from DRAM through this row's reductions, cluster barrier and stores, at the
// cost of one instruction. (Held in registers instead, the next row took 127 registers a thread at 262144
// float32 columns and 1.5× the one-row cluster's instructions: results/README.md.) The next row's edge
// scalar is loaded early too. row(row, slice, v, edge, lead, parity) does the op's work on one row, `lead`
// the CTA's first body element (LayerNorm's pivot); parity alternates, so that the op can double-buffer what
// it publishes to its peers (one cluster barrier a row then suffices: a CTA reuses a slot two rows later,
// after every peer has passed the barrier between). Dynamic shared memory: the slice's 16-byte chunks, THREADS · V
// of them, where the op may keep more of its own past them. prepare() runs once, with the first row's copy in
// flight: what it writes to shared memory every thread sees from the first row() on (a __syncthreads between).
template <int K, int THREADS, int V, typename T, typename Row, typename Prepare>
__device__ __forceinline__ void pipelined_rows(const T* __restrict__ x, long long rows, int cols, Row row,
                                               Prepare prepare) {
    using Chunk = typename RowChunk<T>::type;
    DYNAMIC_SHARED(uint4, buffer);  // one type for every instantiation: an extern array is declared once
    Chunk* next_body = reinterpret_cast<Chunk*>(buffer);
    __shared__ unsigned long long landed;
    const unsigned rank = rank_in_cluster<K>();
    const long long clusters = gridDim.x / K;
    const int t = threadIdx.x;
    float next_edge = 0.0f;
    // The slice is worked out again when its row comes up, not carried: its five words beside a 16-bit row's 32
    // registers spilled at 64 a thread.
    auto issue = [&](long long at) {
        const T* xr = x + at * cols;
        const RowSlice next = row_slice(xr, cols, rank, K);
        if (t == 0) {
            issue_bulk_copy(next_body, xr + next.head + CHUNK_ELEMENTS<T> * next.first,
                            16u * static_cast<unsigned>(next.end - next.first), &landed);
        }
        next_edge = next.edge >= 0 ? to_float(xr[next.edge]) : 0.0f;
    };
    init_copy_barrier(&landed);
    __syncthreads();  // the barrier is initialized before the first copy signals it
    long long r = blockIdx.x / K;
    if (r < rows) issue(r);
    prepare();
    for (unsigned phase = 0; r < rows; r += clusters, phase ^= 1) {
        const RowSlice s = row_slice(x + r * cols, cols, rank, K);
        const float edge = next_edge;
        wait_bulk_copy(&landed, phase);
        Chunk v[V];
#pragma unroll
        for (int i = 0; i < V; ++i) {
            // Past the slice a chunk is zeroed, never left undefined (the op's reductions skip it).
            v[i] = s.first + t + i * THREADS < s.end ? next_body[t + i * THREADS] : Chunk{};
        }
        // Every CTA of a plan holds body chunks (rows of 1024 columns or more): the lead is uniform a CTA.
        const float lead = s.end > s.first ? to_float(reinterpret_cast<const T*>(next_body)[0]) : 0.0f;
        __syncthreads();  // every thread has its chunks: the next row's copy may overwrite them
        if (r + clusters < rows) issue(r + clusters);
        row(r, s, v, edge, lead, phase);
    }
    sync_cluster<K>();  // no CTA exits while a peer may still read its shared memory
}

// ---------------------------------------------------------------- rows shared by the whole grid
//
// The columns strategy (LayerNorm) gives each CTA of a grid that fills the SMs once the same columns of every row,
// so that what a row's columns alone need (weight and bias) is read once a call into shared memory, where a cluster
// or a pipe reads it again from L2 for every row. A row's statistics are then the grid's: each CTA publishes its
// columns' partials of a group of rows in global memory and counts itself on the group's counter; a group later,
// when the count is whole, every CTA reads the grid's partials and combines them itself, in the same order. The CTAs
// must all be resident at once, so the hosts launch such a kernel cooperatively (the driver refuses a grid that
// would not be).
//
// GridExchange is its workspace in global memory, zeroed once by the host (mage.backends.rows.grid_exchange) and left
// valid by every call for the next, CUDA graph replays included: nothing is reset. A group's counter grows by the
// grid's size a group, so a CTA's own arrival (the count it found) says which multiple of that size completes the
// group, whatever earlier calls counted there. A group's slot is reused GROUP_SLOTS groups later, when every CTA is
// past it: a CTA publishes group g + 4 only after group g + 2 was complete, and every CTA had read group g's partials
// before it published group g + 2.
constexpr int GROUP_SLOTS = 4;
constexpr int MAX_GROUP_ROWS = 32;
constexpr int MAX_GRID_CTAS = 256;  // what a combining lane reads: 8 CTAs' partials

struct GridExchange {
    unsigned long long arrived[GROUP_SLOTS];  // CTAs that published a slot's partials, over all calls (never wraps)
    // Then the partials, float4 [GROUP_SLOTS][MAX_GROUP_ROWS][CTAs]: the (count, mean, M2) of a CTA's columns.
};
static_assert(sizeof(GridExchange) == 32, "mage.backends.rows.GRID_EXCHANGE_BYTES");

#ifdef __CUDA_ARCH__
__device__ __forceinline__ unsigned long long load_acquire(const unsigned long long* p) {
    unsigned long long value;
    asm volatile("ld.acquire.gpu.u64 %0, [%1];" : "=l"(value) : "l"(p) : "memory");
    return value;
}

__device__ __forceinline__ unsigned long long fetch_add(unsigned long long* p, unsigned long long value) {
    return atomicAdd(p, value);
}
__device__ __forceinline__ void pause_waiting() { __nanosleep(32); }
#else
inline unsigned long long load_acquire(const unsigned long long* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
inline unsigned long long fetch_add(unsigned long long* p, unsigned long long value) {
    return __atomic_fetch_add(p, value, __ATOMIC_SEQ_CST);
}
inline void pause_waiting() {}
#endif

// One thread: until the group's counter, which this CTA found at `arrival`, holds the whole grid's arrivals.
__device__ __forceinline__ void wait_for_grid(const unsigned long long* counter, unsigned long long arrival) {
    const unsigned long long whole = arrival - arrival % gridDim.x + gridDim.x;
    while (load_acquire(counter) < whole) pause_waiting();
}
