// Neighbor aggregation over a CSR graph, float32 (see spec.py):
//     sum:   out[i, f] = Σ_{e ∈ [rowptr[i], rowptr[i+1])} x[col[e], f]
//     mean:  out[i, f] = sum[i, f] / deg[i]        (0 for a row without edges)
// rowptr: n + 1, col: edges (int32 or int64, one dtype), x: n_src × F, out: n × F, contiguous.
//
// Deterministic and atomic-free in floating point: every output element is summed in an order
// fixed by the graph and the launch geometry alone, so the same inputs give the same bits.
//
// What costs time: each edge gathers one row of x (512 bytes at F = 128), at random, from a
// matrix far larger than L2, so the kernel is a gather at DRAM rate and its job is to keep enough
// independent row loads in flight. A group of T threads (a power of two ≤ 32, T · W ≥ F when
// possible) owns one row; lane t holds features [t·W, t·W + W) (+ multiples of T·W), read as a
// float4 when W = 4, so a warp reads whole 128-byte lines. Low-degree rows (the power-law median
// is 5) would leave a loop of one load at a time; gather() instead loads UNROLL column indices
// and then UNROLL rows of x with predication, so a row of degree ≤ UNROLL is one round trip for
// the indices and one for the rows. With F ≤ 64 a warp holds 32 / T rows, so short rows do not
// leave lanes idle.
//
// Schedules (one template, chosen by the launcher's arguments; native.py says which is which):
//
// - row tiles: block b owns rows_per_block consecutive rows (or the rows order[...] lists there,
//   for a degree-sorted visit); phase 1 gives each row ≤ long_row edges to one group, phase 2
//   gives each row in (long_row, split_row] to the whole block (its groups take every G-th
//   edge, then group 0 adds the G partial sums in group order). Rows above split_row are left
//   to the pieces.
// - pieces (merge path): the sequence of items "edge e of row r" and "end of row r" has
//   n + edges entries, item r + e for an edge and r + rowptr[r+1] for a row's end, increasing;
//   piece q takes items [q·items, (q+1)·items), so every piece has the same amount of work
//   whatever the degrees. The rows a piece touches are found by two binary searches over
//   rowptr. A row whose items all fall into one piece is written by it (by one group up to long_row
//   edges, by the whole block above); a row cut by a piece
//   boundary leaves one partial sum per piece it touches (slot 1 in the piece where it starts,
//   slot 0 in the later ones), and those are added in piece order: by a second pass
//   (neighbor_agg_combine_*) or, with combine_here, by the last piece to finish it (all its groups: block_combine), which an
//   integer arrival counter names (integer atomics order nothing in the arithmetic: whoever is
//   last adds the same partials in the same order).
//
// Only rows with more than split_row edges go to the pieces (all rows when split_row < 0).
//
// INFLIGHT (the neighbor_agg_inflight_* kernels): a compiler barrier between a round's row loads and its
// adds, and launch bounds of INFLIGHT_BLOCKS blocks an SM (64 registers a thread). Compiled for sm_90
// without them, the sum kernel (48 registers) issues 3 of a round's 8 LDG.128 before its first FADD and
// interleaves the rest with the adds, each add waiting for its row: fewer rows in flight a warp. The
// mean kernel (64 registers) issues 7 of 8 first: the static difference found behind mean running
// faster than sum on the large power-law case (ncu: the same DRAM bytes, sum at 73 % of DRAM peak, mean
// at 77 %). With both, sum issues 8 first.
#define INFLIGHT_BLOCKS 4
// COOP3 (the neighbor_agg_coop3_* kernels): the coop kernels at 3 blocks an SM (76 registers a thread). At 4 blocks'
// 64 registers ptxas puts 3 or 4 of a coop round's 8 LDG.128 before its first FADD (the rows' 32 registers beside
// the piece's loop state), at 3 blocks all 8: 24 warps an SM each with a round in flight, against 32 with part of one.
#define COOP3_BLOCKS 3

#define AGG_THREADS 256
#define AGG_UNROLL 8

template <int W>
struct Vec {
    float v[W];
};

// Through the read-only path (__ldg), which const __restrict__ implies only where the compiler can see where p came
// from (not through opaque).
template <int W>
__device__ __forceinline__ Vec<W> load_features(const float* p) {
    Vec<W> r;
    if (W == 4) {
        const float4 q = __ldg(reinterpret_cast<const float4*>(p));
        r.v[0] = q.x; r.v[1] = q.y; r.v[2] = q.z; r.v[3] = q.w;
    } else {
#pragma unroll
        for (int j = 0; j < W; ++j) r.v[j] = __ldg(p + j);
    }
    return r;
}

// 1 / d rounded to nearest for 1 ≤ d < 2^126, as rcp.rn.f32 gives it: ptxas expands rcp.rn into MUFU.RCP and one
// FMA Newton step for such d (this code, the same instructions) and branches to a called subroutine for the
// rest (zero, denormal, huge), which a degree never needs (the SASS of rcp.rn shows both paths; the GPU tests
// check the mean against torch's IEEE reciprocal bit for bit). The CPU emulation divides.
__device__ __forceinline__ float reciprocal_of_count(float d) {
#ifdef __CUDA_ARCH__
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(d));
    return fmaf(r, -fmaf(d, r, -1.0f), r);
#else
    return 1.0f / d;
#endif
}

// The mean multiplies by one reciprocal a row instead of dividing each feature: an IEEE division is a
// subroutine of ~10 instructions with a slow path, W of them a thread and row, the 4 % more instructions
// (and 3 points less of DRAM peak) that ncu found in inflight mean against inflight sum.
// Merge mean ran 2.5 % behind merge sum (2,325 against 2,268 µs on the large power-law case, cold L2): its kernels held rcp.rn's call to a
// slow-path subroutine in every row's loop, with a convergence barrier around it; reciprocal_of_count has none.
// The degree arrives as a float, what the reciprocal takes: one register where the 64-bit count took two.
template <int W>
__device__ __forceinline__ void store_features(float* p, const float (&acc)[W], bool mean, float degree) {
    const float scale = (mean && degree > 0.0f) ? reciprocal_of_count(degree) : 1.0f;
    float r[W];
#pragma unroll
    for (int j = 0; j < W; ++j) r[j] = acc[j] * scale;
    if (W == 4) {
        // __stwb: one st.global.v4; the plain float4 store was split into four scalar stores on some paths
        __stwb(reinterpret_cast<float4*>(p), make_float4(r[0], r[1], r[2], r[3]));
    } else {
#pragma unroll
        for (int j = 0; j < W; ++j) p[j] = r[j];
    }
}

template <int W>
__device__ __forceinline__ void zero(float (&acc)[W]) {
#pragma unroll
    for (int j = 0; j < W; ++j) acc[j] = 0.0f;
}

// acc += Σ x[col[e], f : f + W] for e = first, first + stride, … < end, in that order. Every round
// issues UNROLL index loads, then UNROLL row loads (predicated past the end), then the adds (after a
// barrier that keeps the compiler from moving them between the loads, with INFLIGHT).
template <typename I, int W, bool INFLIGHT>
__device__ __forceinline__ void gather(const I* __restrict__ col, const float* __restrict__ x, int F, int f, long long first,
                                       long long end, long long stride, float (&acc)[W]) {
    for (long long e = first; e < end; e += AGG_UNROLL * stride) {
        long long src[AGG_UNROLL];
#pragma unroll
        for (int u = 0; u < AGG_UNROLL; ++u) src[u] = e + u * stride < end ? (long long)col[e + u * stride] : -1;
        Vec<W> rows[AGG_UNROLL];
#pragma unroll
        for (int u = 0; u < AGG_UNROLL; ++u) {
            if (src[u] >= 0) {
                rows[u] = load_features<W>(x + src[u] * F + f);
            } else {
#pragma unroll
                for (int j = 0; j < W; ++j) rows[u].v[j] = 0.0f;
            }
        }
        if (INFLIGHT) asm volatile("" ::: "memory");
#pragma unroll
        for (int u = 0; u < AGG_UNROLL; ++u)
#pragma unroll
            for (int j = 0; j < W; ++j) acc[j] += rows[u].v[j];
    }
}

// COOP (the neighbor_agg_coop_* kernels): the same sums in the same order as merge's, from a piece staged in shared
// memory. gather has every lane of a group load each of a round's UNROLL indices, the same addresses, after the
// row's rowptr entries: a short row is three dependent round trips (rowptr, col, x). On a graph whose x stays in
// L2 (R-MAT and the hub at 64 K nodes: L2 hit rate 91.6 %, DRAM at 8 % of peak, 3.7 cycles of long-scoreboard
// stall: ncu of merge, F 128) those round trips, and the instructions around them, set the time. Here the block
// copies its piece's slice of rowptr and of col into shared memory once, coalesced (as merge-based CsrMV stages
// its tile's row ends and column indices), and every row then waits only for its rows of x.
//
// Instructions a gathered row: there the kernel is issue-bound, not bandwidth-bound (cuSPARSE gathered R-MAT's rows
// in 35 M warp instructions where coop, loading and shuffling each group's indices, took 62 M), so a round keeps
// to an LDS, an address and a load an edge besides its W adds. col's values are staged already multiplied by F
// (element offsets from x_lane, this lane's first feature): one IMAD.WIDE makes an address, where a row index
// took a sign extension, a 64-bit multiply and two LEAs, with x and F reloaded from constant memory under the
// 64-register bound: a round of 8 took 205 instructions in NVRTC's sm_90 SASS with shuffled indices, and takes 63
// (tests/test_neighbor_agg.py bounds it). Full rounds carry no predicate; the last round is 2, 4 or 8 rows wide.
// Lanes past F sit the gather out, as no shuffle needs them now. Offsets are int:
// native.py takes these kernels only for an x of fewer than 2^31 elements, fewer than 2^31 edges, and pieces of
// at most COOP_ITEMS items.
#define COOP_ITEMS 1024

// p, as a value the compiler cannot see into: x + f + offset then stays one IMAD.WIDE of the offset onto it, where
// the compiler, seeing x + f, added f to each edge's offset in 64 bits (four instructions an edge).
__device__ __forceinline__ const float* opaque(const float* p) {
#ifdef __CUDA_ARCH__
    asm("mov.b64 %0, %0;" : "+l"(p));
#endif
    return p;
}

// rows[u] = x_lane's features at offsets[u · stride] for u < valid, zeros above (u < N).
template <int N, int W>
__device__ __forceinline__ void load_round(Vec<W> (&rows)[N], const float* x_lane, const int* offsets, int stride,
                                           int valid) {
#pragma unroll
    for (int u = 0; u < N; ++u) {
        if (u < valid) {
            rows[u] = load_features<W>(x_lane + offsets[u * stride]);
        } else {
#pragma unroll
            for (int j = 0; j < W; ++j) rows[u].v[j] = 0.0f;
        }
    }
}

// acc += the round's N rows in order (all of a round's loads issued before its first add), those past `valid`
// zeros: adding them changes no bit.
template <int N, int W>
__device__ __forceinline__ void gather_round(float (&acc)[W], const float* x_lane, const int* offsets, int stride,
                                             int valid) {
    Vec<W> rows[N];
    load_round<N, W>(rows, x_lane, offsets, stride, valid);
    asm volatile("" ::: "memory");
#pragma unroll
    for (int u = 0; u < N; ++u)
#pragma unroll
        for (int j = 0; j < W; ++j) acc[j] += rows[u].v[j];
}

// acc += Σ x_lane[offsets[e]] for e = first, first + stride, … < end, in that order (offsets: the staged piece).
// The last round is as wide as its edges need, 2, 4 or 8: a row of one edge (R-MAT's median) pays for two rows'
// loads and adds, not eight.
template <int W>
__device__ __forceinline__ void gather_staged(const int* offsets, const float* __restrict__ x_lane, int first, int end,
                                              int stride, float (&acc)[W]) {
    if (first >= end) return;
    // stride 1, a group's own row, without a division
    const int count = stride == 1 ? end - first : (end - first + stride - 1) / stride;
    const int* next = offsets + first;
    int k = 0;
#pragma unroll 1
    for (; k + AGG_UNROLL <= count; k += AGG_UNROLL, next += AGG_UNROLL * stride)
        gather_round<AGG_UNROLL, W>(acc, x_lane, next, stride, AGG_UNROLL);
    const int rest = count - k;
    if (rest > AGG_UNROLL / 2) {
        gather_round<AGG_UNROLL, W>(acc, x_lane, next, stride, rest);
    } else if (rest > AGG_UNROLL / 4) {
        gather_round<AGG_UNROLL / 2, W>(acc, x_lane, next, stride, rest);
    } else if (rest > 0) {
        gather_round<AGG_UNROLL / 4, W>(acc, x_lane, next, stride, rest);
    }
}

// Where a block reads its rows' edges: col (merge's kernels), or with COOP the piece staged in shared memory, edge e
// at offsets[e - e_lo] as an offset into x.
template <typename I>
struct Edges {
    const I* __restrict__ col;
    const int* offsets;
    long long e_lo;
};

// One group sums edges [first, end) of a row into out (or into a partial row): features f_lo + t·W, + T·W, … < f_hi
// (F: x's row length).
template <typename I, bool MEAN, int W, bool INFLIGHT, bool COOP>
__device__ __forceinline__ void group_row(Edges<I> edges, const float* __restrict__ x, float* dst, int F, int f_lo, int f_hi,
                                          int T, int t, long long first, long long end, bool mean, float degree) {
    for (int f0 = f_lo; f0 < f_hi; f0 += T * W) {
        const int f = f0 + t * W;
        if (f >= f_hi) break;
        float acc[W];
        zero<W>(acc);
        if (COOP) {
            gather_staged<W>(edges.offsets, opaque(x + f), (int)(first - edges.e_lo), (int)(end - edges.e_lo), 1, acc);
        } else {
            gather<I, W, INFLIGHT>(edges.col, x, F, f, first, end, 1, acc);
        }
        store_features<W>(dst + f, acc, MEAN && mean, degree);
    }
}

// Group 0 adds the block's G per-group sums of features [f, f + W) in group order and stores them, below f_hi
// (every thread of the block calls it, with its group's sum in acc).
template <int W>
__device__ __forceinline__ void store_group_total(const float (&acc)[W], float* partial, float* dst, int f, int f_hi, int T,
                                                  bool mean, float degree) {
    const int t = threadIdx.x & (T - 1);
#pragma unroll
    for (int j = 0; j < W; ++j) partial[threadIdx.x * W + j] = acc[j];
    __syncthreads();
    if (threadIdx.x < T && f < f_hi) {
        float total[W];
        zero<W>(total);
        for (int group = 0; group < AGG_THREADS / T; ++group)
#pragma unroll
            for (int j = 0; j < W; ++j) total[j] += partial[(group * T + t) * W + j];
        store_features<W>(dst + f, total, mean, degree);
    }
    __syncthreads();
}

// The whole block sums edges [first, end) into dst: group g takes edges first + g, + G, …; group 0
// then adds the G partial sums in group order. Every thread of the block must call it.
template <typename I, bool MEAN, int W, bool INFLIGHT, bool COOP>
__device__ __forceinline__ void block_row(Edges<I> edges, const float* __restrict__ x, float* dst, int F, int f_lo, int f_hi,
                                          int T, long long first, long long end, bool mean, float degree, float* partial) {
    const int t = threadIdx.x & (T - 1);
    const int slot = threadIdx.x / T;
    const int groups = AGG_THREADS / T;
    for (int f0 = f_lo; f0 < f_hi; f0 += T * W) {
        const int f = f0 + t * W;
        float acc[W];
        zero<W>(acc);
        if (f < f_hi) {
            if (COOP) {
                gather_staged<W>(edges.offsets, opaque(x + f), (int)(first + slot - edges.e_lo), (int)(end - edges.e_lo),
                                 groups, acc);
            } else {
                gather<I, W, INFLIGHT>(edges.col, x, F, f, first + slot, end, groups, acc);
            }
        }
        store_group_total<W>(acc, partial, dst, f, f_hi, T, MEAN && mean, degree);
    }
}

// The pieces' items: smallest r in [0, n) with r + rowptr[r + shift] >= d, else n (shift 0: a row's
// first item; shift 1: its end item). Both sequences increase strictly in r. Searched by the whole block
// (every thread calls it): each round tests AGG_THREADS evenly spaced rows at once and keeps the gap
// where the test turns (__syncthreads_count), so 2^20 rows take 3 rounds of one load each instead of a binary search's 20
// dependent loads, which a piece would otherwise wait through before its first gather.
template <typename I>
__device__ __forceinline__ long long first_row_at(const I* __restrict__ rowptr, long long n, long long d, int shift) {
    long long lo = 0, hi = n;  // the answer lies in [lo, hi]
    while (lo < hi) {
        const long long step = (hi - lo + AGG_THREADS - 1) / AGG_THREADS;
        const long long probe = lo + (long long)threadIdx.x * step;
        const int below = __syncthreads_count(probe < hi && probe + (long long)rowptr[probe + shift] < d);
        // probes lo, lo + step, … below the answer: `below` of them, so it lies in (lo + (below-1)·step, lo + below·step]
        if (below == 0) {
            hi = lo;
        } else {
            lo += (below - 1) * step + 1;
            hi = lo + step - 1 < hi ? lo + step - 1 : hi;
        }
    }
    return lo;
}

// Adds a cut row's partials (one per piece from first_piece to last_piece, in piece order) into out.
// Piece q's partial sum of a cut row that starts in first_piece: slot 1 there, slot 0 in the later pieces.
template <typename P>
__device__ __forceinline__ P* piece_partial(P* partials, long long q, long long first_piece, int F) {
    return partials + (q * 2 + (q == first_piece ? 1 : 0)) * (long long)F;
}

template <bool MEAN, int W>
__device__ __forceinline__ void combine_row(const float* partials, float* dst, int F, int T, int t, long long first_piece,
                                            long long last_piece, float degree) {
    for (int f = t * W; f < F; f += T * W) {
        float acc[W];
        zero<W>(acc);
        for (long long q = first_piece; q <= last_piece; ++q) {
            const float* p = piece_partial(partials, q, first_piece, F) + f;
#pragma unroll
            for (int j = 0; j < W; ++j) acc[j] += __ldcg(p + j);
        }
        store_features<W>(dst + f, acc, MEAN, degree);
    }
}

// The same sum by the whole block (every thread calls it): group g adds pieces first_piece + g, + G, … in
// order, then group 0 adds the G sums in group order, as block_row does with edges. A hub cut into a hundred
// pieces is then a few loads deep for each group instead of a hundred for one.
template <bool MEAN, int W>
__device__ __forceinline__ void block_combine(const float* partials, float* dst, int F, int f_lo, int f_hi, int T, long long first_piece,
                                              long long last_piece, float degree, float* partial) {
    const int t = threadIdx.x & (T - 1);
    const int slot = threadIdx.x / T;
    const int groups = AGG_THREADS / T;
    for (int f0 = f_lo; f0 < f_hi; f0 += T * W) {
        const int f = f0 + t * W;
        float acc[W];
        zero<W>(acc);
        if (f < f_hi)
            for (long long q = first_piece + slot; q <= last_piece; q += groups) {
                const float* p = piece_partial(partials, q, first_piece, F) + f;
#pragma unroll
                for (int j = 0; j < W; ++j) acc[j] += __ldcg(p + j);
            }
        store_group_total<W>(acc, partial, dst, f, f_hi, T, MEAN, degree);
    }
}

template <typename I, bool MEAN, int W, bool INFLIGHT, bool COOP>
__device__ __forceinline__ void neighbor_agg(const I* __restrict__ rowptr, const I* __restrict__ col, const float* __restrict__ x,
                                             float* __restrict__ out, float* partials, int* arrivals, const I* __restrict__ order,
                                             long long n, int F, int T, int rows_per_block, long long long_row,
                                             long long split_row, long long row_blocks, long long items, int use_order,
                                             int combine_here, int slice_features) {
    __shared__ __align__(16) float partial[AGG_THREADS * W];
    __shared__ int last_arrival;
    const int t = threadIdx.x & (T - 1);
    const int slot = threadIdx.x / T;
    const int groups = AGG_THREADS / T;
    // Feature slices (the coop kernels): the grid is one copy of the tiles and pieces per slice of slice_features
    // features, slice-major, so blocks, started in order, gather from one slice of x at a time (n_src ×
    // slice_features, inside L2 where x is not); a slice's pieces have their own arrival counters. The other
    // kernels take every feature (slice_features = F) without the arithmetic, whose registers they lack.
    long long block = blockIdx.x;
    int f_lo = 0, f_hi = F;
    if (COOP) {
        const long long per_slice = gridDim.x / ((F + slice_features - 1) / slice_features), slice = block / per_slice;
        block -= slice * per_slice;
        f_lo = (int)slice * slice_features;
        f_hi = F < f_lo + slice_features ? F : f_lo + slice_features;
        arrivals += slice * (per_slice - row_blocks);
    }

    // Tiles (merge's kernels only: the coop schedules take every row in pieces).
    if (!COOP && block < row_blocks) {
        const Edges<I> edges{col, nullptr, 0};
        const long long base = block * rows_per_block;
        // Phase 1: one group per row.
        if (slot < rows_per_block && base + slot < n) {
            const long long row = use_order ? (long long)order[base + slot] : base + slot;
            const long long start = rowptr[row], end = rowptr[row + 1];
            if (end - start <= long_row && end - start <= split_row) group_row<I, MEAN, W, INFLIGHT, COOP>(edges, x, out + row * F, F, f_lo, f_hi, T, t, start, end, true, end - start);
        }
        // Phase 2: the tile's long rows, one at a time, by the whole block.
        for (int s = 0; s < rows_per_block && base + s < n; ++s) {
            const long long row = use_order ? (long long)order[base + s] : base + s;
            const long long start = rowptr[row], end = rowptr[row + 1];
            const long long degree = end - start;  // the same decision in every thread
            if (degree > long_row && degree <= split_row)
                block_row<I, MEAN, W, INFLIGHT, COOP>(edges, x, out + row * F, F, f_lo, f_hi, T, start, end, true, degree, partial);
        }
        return;
    }

    // A piece: items [d0, d1) of the merge path; rows first..last - 1 touch it.
    const long long q = block - row_blocks;
    const long long d0 = q * items, d1 = d0 + items;
    const long long first = first_row_at(rowptr, n, d0, 1);
    const long long last = first_row_at(rowptr, n, d1, 0);
    // COOP: the piece staged. Its edges are [e_lo, e_hi) of col (edge e of row r is item r + e; row first owns item
    // d0, row last - 1 item d1 - 1), at most items of them, and rowptr[first..last] (each row after first starts
    // inside the piece: at most items + 1 entries), both relative to e_lo.
    __shared__ int staged_offsets[COOP ? COOP_ITEMS : 1];
    __shared__ int staged_rows[COOP ? COOP_ITEMS + 1 : 1];
    Edges<I> edges{col, staged_offsets, 0};
    if (COOP) {
        const long long first_start = rowptr[first], last_end = rowptr[last];
        edges.e_lo = first_start > d0 - first ? first_start : d0 - first;
        const long long e_hi = last_end < d1 - (last - 1) ? last_end : d1 - (last - 1);
        for (long long e = edges.e_lo + threadIdx.x; e < e_hi; e += AGG_THREADS)
            staged_offsets[e - edges.e_lo] = (int)col[e] * F;
        for (long long row = first + threadIdx.x; row <= last; row += AGG_THREADS)
            staged_rows[row - first] = (int)(rowptr[row] - edges.e_lo);
        __syncthreads();
    }
    // Row r's edges are [row_start(r), row_start(r + 1)), for first <= r < last.
    auto row_start = [&](long long row) -> long long {
        return COOP ? staged_rows[row - first] + edges.e_lo : (long long)rowptr[row];
    };
    // Rows strictly inside the piece are whole: one group each up to long_row edges, then each longer one by
    // the whole block (a piece holds at most items / long_row of them), so that a long row inside one piece
    // is not one group's serial chain while the other groups of the block wait.
    for (long long row = first + 1 + slot; row < last - 1; row += groups) {
        const long long start = row_start(row), end = row_start(row + 1);
        if (end - start > split_row && end - start <= long_row)
            group_row<I, MEAN, W, INFLIGHT, COOP>(edges, x, out + row * F, F, f_lo, f_hi, T, t, start, end, true, end - start);
    }
    for (long long row = first + 1; row < last - 1; ++row) {
        const long long start = row_start(row), end = row_start(row + 1);
        if (end - start > split_row && end - start > long_row)
            block_row<I, MEAN, W, INFLIGHT, COOP>(edges, x, out + row * F, F, f_lo, f_hi, T, start, end, true, end - start, partial);
    }
    // The (at most two) rows at the piece's ends may be cut: the whole block takes each.
    for (long long row = first; row < last; row = row == first && last - 1 > first ? last - 1 : last) {
        const long long start = row_start(row), end = row_start(row + 1);
        if (end - start > split_row) {
            const long long lo = start > d0 - row ? start : d0 - row, hi = end < d1 - row ? end : d1 - row;
            const long long first_piece = (row + start) / items, last_piece = (row + end) / items;
            if (first_piece == last_piece) {
                block_row<I, MEAN, W, INFLIGHT, COOP>(edges, x, out + row * F, F, f_lo, f_hi, T, lo, hi, true, end - start, partial);
            } else {
                float* mine = piece_partial(partials, q, first_piece, F);
                block_row<I, MEAN, W, INFLIGHT, COOP>(edges, x, mine, F, f_lo, f_hi, T, lo, hi, false, end - start, partial);
                if (combine_here) {
                    __threadfence();  // this piece's partial is visible before its arrival is counted
                    __syncthreads();
                    if (threadIdx.x == 0) {
                        const int seen = atomicAdd(arrivals + first_piece, 1);
                        last_arrival = seen == (int)(last_piece - first_piece);
                        if (last_arrival) arrivals[first_piece] = 0;  // left zeroed for the next launch
                    }
                    __syncthreads();
                    if (last_arrival) {
                        __threadfence();
                        block_combine<MEAN, W>(partials, out + row * F, F, f_lo, f_hi, T, first_piece, last_piece, end - start, partial);
                    }
                    __syncthreads();
                }
            }
        }
    }
}

// The second pass of the pieces without combine_here: every cut row, one group each, in row order.
template <typename I, bool MEAN, int W>
__device__ __forceinline__ void neighbor_agg_combine(const I* __restrict__ rowptr, const float* partials, float* __restrict__ out,
                                                     long long n, int F, int T, long long split_row, long long items) {
    const int t = threadIdx.x & (T - 1);
    const long long row = (long long)blockIdx.x * (AGG_THREADS / T) + threadIdx.x / T;
    if (row >= n) return;
    const long long start = rowptr[row], end = rowptr[row + 1];
    const long long first_piece = (row + start) / items, last_piece = (row + end) / items;
    if (end - start > split_row && first_piece != last_piece)
        combine_row<MEAN, W>(partials, out + row * F, F, T, t, first_piece, last_piece, end - start);
}

#define NEIGHBOR_AGG_MAIN(NAME, I, MEAN, W, INFLIGHT, COOP, BOUNDS)                                                   \
    extern "C" __global__ void __launch_bounds__ BOUNDS NAME(                                                    \
        const I* __restrict__ rowptr, const I* __restrict__ col, const float* __restrict__ x, float* __restrict__ out,   \
        float* partials, int* arrivals, const I* __restrict__ order, long long n, int F, int T, int rows_per_block,      \
        long long long_row, long long split_row, long long row_blocks, long long items, int use_order, int combine_here,  \
        int slice_features) {                                                                                          \
        neighbor_agg<I, MEAN, W, INFLIGHT, COOP>(rowptr, col, x, out, partials, arrivals, order, n, F, T, rows_per_block, \
                                                 long_row, split_row, row_blocks, items, use_order, combine_here,       \
                                                 slice_features);                                                        \
    }

#define NEIGHBOR_AGG_KERNELS(SUFFIX, I, MEAN, W)                                                                       \
    NEIGHBOR_AGG_MAIN(neighbor_agg_##SUFFIX, I, MEAN, W, false, false, (AGG_THREADS))                                   \
    NEIGHBOR_AGG_MAIN(neighbor_agg_inflight_##SUFFIX, I, MEAN, W, true, false, (AGG_THREADS, INFLIGHT_BLOCKS))          \
    NEIGHBOR_AGG_MAIN(neighbor_agg_coop_##SUFFIX, I, MEAN, W, true, true, (AGG_THREADS, INFLIGHT_BLOCKS))               \
    NEIGHBOR_AGG_MAIN(neighbor_agg_coop3_##SUFFIX, I, MEAN, W, true, true, (AGG_THREADS, COOP3_BLOCKS))                 \
    extern "C" __global__ void __launch_bounds__(AGG_THREADS) neighbor_agg_combine_##SUFFIX(                            \
        const I* __restrict__ rowptr, const float* partials, float* __restrict__ out, long long n, int F, int T,         \
        long long split_row, long long items) {                                                                        \
        neighbor_agg_combine<I, MEAN, W>(rowptr, partials, out, n, F, T, split_row, items);                            \
    }

NEIGHBOR_AGG_KERNELS(sum_i32_x4, int, false, 4)
NEIGHBOR_AGG_KERNELS(sum_i64_x4, long long, false, 4)
NEIGHBOR_AGG_KERNELS(mean_i32_x4, int, true, 4)
NEIGHBOR_AGG_KERNELS(mean_i64_x4, long long, true, 4)
NEIGHBOR_AGG_KERNELS(sum_i32, int, false, 1)
NEIGHBOR_AGG_KERNELS(sum_i64, long long, false, 1)
NEIGHBOR_AGG_KERNELS(mean_i32, int, true, 1)
NEIGHBOR_AGG_KERNELS(mean_i64, long long, true, 1)
