//! Neighbor aggregation over a CSR graph, float32, deterministic and atomic-free:
//!     sum:   out[i, f] = Σ_{e ∈ [rowptr[i], rowptr[i+1])} x[col[e], f]
//!     mean:  out[i, f] = sum[i, f] / deg[i]        (0 for a row without edges)
//! rowptr: n + 1, col: edges (int32 or int64, the kernel's `I`), x: n_src × F, out: n × F.
//!
//! The schedule mirrors the row tiles of the CUDA C++ kernel
//! (`python/mage/ops/neighbor_agg/native.cu`): a group of `group` units (a power of two ≤ 32,
//! native's T) owns one row, 256 / T rows a cube; lane t holds the feature vectors t, t + T, …;
//! each round loads [`UNROLL`] column indices, then those rows of x (predicated past the row's
//! end), then adds them in edge order. Rows of more than `long_row` edges are left by their group
//! and taken afterwards, one at a time, by the whole cube (phase 2): group g sums edges
//! g, g + G, … of the row and group 0 adds the G partial sums in group order. Every output
//! element is so summed in an order fixed by the graph and the geometry alone. Features move as
//! vectors of `N` floats (float4 where F allows, as native's W).
//!
//! `long_row` = [`NO_LONG_ROWS`] skips phase 2 (the launcher passes it for a graph without such a
//! row, and for native's `native.warp` schedule); native's default `LONG_ROW` is 128. Unlike
//! native's default, rows above 8192 edges are not cut into merge-path pieces across cubes.
//!
//! Phase 2's barriers sit only under control flow set by the scalars (`long_row`, `group`,
//! `features`), never by the graph's values: every unit of a cube runs them, as barriers need.

use cubecl::prelude::*;

/// Units a cube (native.cu: AGG_THREADS).
pub const THREADS: u32 = 256;
/// Edges a round loads before adding (native.cu: AGG_UNROLL).
pub const UNROLL: u32 = 8;
/// Rows with more edges are taken by the whole cube (native.py: LONG_ROW).
pub const LONG_ROW: u32 = 128;
/// `long_row` saying that no row is long: phase 2 is skipped.
pub const NO_LONG_ROWS: u32 = u32::MAX;

/// Σ x[col[e], f] (a vector of N floats) for e = first, first + stride, … < end, in that order:
/// each round issues UNROLL index loads, then UNROLL row loads (zeros past the end), then the adds.
#[cube]
fn gather<I: Int, N: Size>(
    col: &Array<I>,
    x: &Array<Vector<f32, N>>,
    first: u32,
    end: u32,
    stride: u32,
    f: u32,
    vectors: u32,
) -> Vector<f32, N> {
    let mut acc = Vector::<f32, N>::new(0.0f32);
    let mut e = first;
    while e < end {
        let mut source = Array::<u32>::new(comptime!(UNROLL as usize));
        #[unroll]
        for u in 0..UNROLL {
            source[u as usize] = 0u32;
            if e + u * stride < end {
                source[u as usize] = u32::cast_from(col[(e + u * stride) as usize]);
            }
        }
        let mut rows = Array::<Vector<f32, N>>::new(comptime!(UNROLL as usize));
        #[unroll]
        for u in 0..UNROLL {
            rows[u as usize] = Vector::<f32, N>::new(0.0f32);
            if e + u * stride < end {
                rows[u as usize] = x[(source[u as usize] * vectors + f) as usize];
            }
        }
        #[unroll]
        for u in 0..UNROLL {
            acc += rows[u as usize];
        }
        e += UNROLL * stride;
    }
    acc
}

/// The sum, or for `mean` the sum over the degree (0 stays 0 for a row without edges).
#[cube]
fn finish<N: Size>(sum: Vector<f32, N>, degree: u32, #[comptime] mean: bool) -> Vector<f32, N> {
    let mut value = sum;
    if comptime!(mean) {
        if degree > 0 {
            value = sum / Vector::<f32, N>::new(f32::cast_from(degree));
        }
    }
    value
}

/// grid: 2-D, ceil(n / (256 / group)) cubes in all (the linear index `y · count_x + x`); cube:
/// 256 units. `features` counts floats and must be a multiple of N.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn neighbor_agg_kernel<I: Int, N: Size>(
    rowptr: &Array<I>,
    col: &Array<I>,
    x: &Array<Vector<f32, N>>,
    out: &mut Array<Vector<f32, N>>,
    nodes: u32,
    features: u32,
    group: u32,
    long_row: u32,
    #[comptime] mean: bool,
) {
    let vectors = features / N::value() as u32;
    let cube = CUBE_POS_Y * CUBE_COUNT_X + CUBE_POS_X;
    let rows_per_cube = CUBE_DIM_X / group;
    let first_row = cube * rows_per_cube;
    let slot = UNIT_POS_X / group;
    let lane = UNIT_POS_X % group;

    // Phase 1: one group a row, rows of at most long_row edges.
    let row = first_row + slot;
    if row < nodes {
        let start = u32::cast_from(rowptr[row as usize]);
        let end = u32::cast_from(rowptr[(row + 1) as usize]);
        if end - start <= long_row {
            let mut f = lane;
            while f < vectors {
                let sum = gather(col, x, start, end, 1u32, f, vectors);
                out[(row * vectors + f) as usize] = finish(sum, end - start, mean);
                f += group;
            }
        }
    }

    // Phase 2: the cube's long rows, one at a time, by all its groups.
    let mut partial = SharedMemory::<Vector<f32, N>>::new(comptime!(THREADS as usize));
    let scan = select(long_row == NO_LONG_ROWS, 0u32, rows_per_cube);
    for s in 0..scan {
        let r = first_row + s;
        let inside = r < nodes;
        let at = select(inside, r, 0u32);
        let start = u32::cast_from(rowptr[at as usize]);
        let end = u32::cast_from(rowptr[(at + 1) as usize]);
        let long = inside && end - start > long_row;
        let mut f0 = 0u32;
        while f0 < vectors {
            let f = f0 + lane;
            let mut sum = Vector::<f32, N>::new(0.0f32);
            if long && f < vectors {
                sum = gather(col, x, start + slot, end, rows_per_cube, f, vectors);
            }
            partial[UNIT_POS_X as usize] = sum;
            sync_cube();
            if long && slot == 0 && f < vectors {
                let mut total = Vector::<f32, N>::new(0.0f32);
                for g in 0..rows_per_cube {
                    total += partial[(g * group + lane) as usize];
                }
                out[(r * vectors + f) as usize] = finish(total, end - start, mean);
            }
            sync_cube(); // partial is written again by the next round
            f0 += group;
        }
    }
}
