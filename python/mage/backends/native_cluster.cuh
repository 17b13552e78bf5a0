// What the row-wise cluster kernels (layernorm, softmax: the `cluster` strategy) share. An op's
// native.cu includes this file by its relative path; mage.backends.native.source pastes it in.
//
// A row too wide for one block's registers is held by a thread-block cluster (Hopper): its K CTAs
// each keep a contiguous slice of the row in registers, so the row is read from DRAM once and
// written from registers. Each CTA reduces its slice, publishes its partial statistics in its own
// shared memory, and after one cluster barrier every CTA reads all K partials through distributed
// shared memory (DSMEM) and combines them in rank order: the same bits in every CTA, every run.
//
// The cluster primitives are PTX (NVRTC has no include path for <cooperative_groups.h>):
// %cluster_ctarank, barrier.cluster (split into arrive and wait, so a CTA writes its slice while
// its peers finish reading its partials), mapa + ld.shared::cluster. The CPU emulation runs blocks
// one after another and cannot hold a cluster: there these kernels compile and trap if launched.

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

// Four floats from p: one float4 load where `vector` (p 16-byte aligned), else four scalar loads.
__device__ __forceinline__ float4 load_quad(const float* p, bool vector) {
    if (vector) return *reinterpret_cast<const float4*>(p);
    return make_float4(p[0], p[1], p[2], p[3]);
}

__device__ __forceinline__ void store_quad(float* p, float4 q, bool vector) {
    if (vector) {
        *reinterpret_cast<float4*>(p) = q;
    } else {
        p[0] = q.x; p[1] = q.y; p[2] = q.z; p[3] = q.w;
    }
}

__device__ __forceinline__ bool aligned16(const float* p) {
    return (reinterpret_cast<unsigned long long>(p) & 15) == 0;
}

// The part of a row that CTA `rank` of a cluster of `ranks` holds. A row of floats starts on any
// 4-byte boundary (4099 columns: rows 1, 2, 3 of every 4 are not 16-byte aligned), so it is cut
// into a head of up to 3 scalars before its first 16-byte boundary, a body of float4 chunks (16-byte
// loads whatever the width) and a tail of up to 3 scalars. Body chunks are dealt out in contiguous
// runs, one a CTA; the head's scalars go to rank 0's first threads, the tail's to the last rank's.
struct RowSlice {
    int head;         // scalars before the body (columns 0 .. head − 1)
    int first, end;   // this CTA's body chunks: chunk j is columns head + 4j .. head + 4j + 3
    int edge;         // the column of this thread's head or tail scalar, or −1 if it holds none
    int count;        // the columns this CTA holds
};

__device__ __forceinline__ RowSlice row_slice(const float* row, int cols, unsigned rank, unsigned ranks) {
    RowSlice s;
    s.head = static_cast<int>(((16 - (reinterpret_cast<unsigned long long>(row) & 15)) & 15) >> 2);
    if (s.head > cols) s.head = cols;
    const int chunks = (cols - s.head) >> 2;
    const int tail_at = s.head + 4 * chunks;
    const int tail = cols - tail_at;
    const int per = (chunks + static_cast<int>(ranks) - 1) / static_cast<int>(ranks);
    s.first = static_cast<int>(rank) * per < chunks ? static_cast<int>(rank) * per : chunks;
    s.end = s.first + per < chunks ? s.first + per : chunks;
    const int t = threadIdx.x;
    s.edge = -1;
    if (rank == 0 && t < s.head) s.edge = t;
    if (rank == ranks - 1 && t < tail) s.edge = tail_at + t;
    s.count = 4 * (s.end - s.first) + (rank == 0 ? s.head : 0) + (rank == ranks - 1 ? tail : 0);
    return s;
}
