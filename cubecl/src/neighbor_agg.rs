//! Neighbor aggregation over a CSR graph, float32, deterministic and atomic-free:
//!     sum:   out[i, f] = Σ_{e ∈ [rowptr[i], rowptr[i+1])} x[col[e], f]
//!     mean:  out[i, f] = sum[i, f] / deg[i]        (0 for a row without edges)
//! rowptr: n + 1, col: edges (int32 or int64, the kernel's `I`), x: n_src × F, out: n × F.
//!
//! The schedule mirrors the CUDA C++ kernel's `native.warp` strategy
//! (`python/mage/ops/neighbor_agg/native.cu`, rows in tiles, one group per row whatever its
//! degree): a group of `group` units (a power of two ≤ 32, native's T) owns one row, 256 / T rows
//! a cube; lane t holds the feature vectors t, t + T, …; each round loads [`UNROLL`] column
//! indices, then those rows of x (predicated past the row's end), then adds them in edge order,
//! so every output element is summed in an order fixed by the graph alone. Features move as
//! vectors of `N` floats (float4 where F allows, as native's W). Native's default strategy also
//! hands long rows to the whole block and cuts hubs into merge-path pieces; this kernel does not.

use cubecl::prelude::*;

/// Units a cube (native.cu: AGG_THREADS).
pub const THREADS: u32 = 256;
/// Edges a round loads before adding (native.cu: AGG_UNROLL).
pub const UNROLL: u32 = 8;

/// grid: 2-D, ceil(n / (256 / group)) cubes in all (the linear index `y · count_x + x`); cube:
/// 256 units. `features` counts floats and must be a multiple of N.
#[cube(launch_unchecked)]
pub fn neighbor_agg_kernel<I: Int, N: Size>(
    rowptr: &Array<I>,
    col: &Array<I>,
    x: &Array<Vector<f32, N>>,
    out: &mut Array<Vector<f32, N>>,
    nodes: u32,
    features: u32,
    group: u32,
    #[comptime] mean: bool,
) {
    let vectors = features / N::value() as u32;
    let cube = CUBE_POS_Y * CUBE_COUNT_X + CUBE_POS_X;
    let row = cube * (CUBE_DIM_X / group) + UNIT_POS_X / group;
    if row < nodes {
        let start = u32::cast_from(rowptr[row as usize]);
        let end = u32::cast_from(rowptr[(row + 1) as usize]);
        let mut f = UNIT_POS_X % group;
        while f < vectors {
            let mut acc = Vector::<f32, N>::new(0.0f32);
            let mut e = start;
            while e < end {
                let mut source = Array::<u32>::new(comptime!(UNROLL as usize));
                #[unroll]
                for u in 0..UNROLL {
                    source[u as usize] = 0u32;
                    if e + u < end {
                        source[u as usize] = u32::cast_from(col[(e + u) as usize]);
                    }
                }
                let mut rows = Array::<Vector<f32, N>>::new(comptime!(UNROLL as usize));
                #[unroll]
                for u in 0..UNROLL {
                    rows[u as usize] = Vector::<f32, N>::new(0.0f32);
                    if e + u < end {
                        rows[u as usize] = x[(source[u as usize] * vectors + f) as usize];
                    }
                }
                #[unroll]
                for u in 0..UNROLL {
                    acc += rows[u as usize];
                }
                e += UNROLL;
            }
            if comptime!(mean) {
                if end > start {
                    acc = acc / Vector::<f32, N>::new(f32::cast_from(end - start));
                }
            }
            out[(row * vectors + f) as usize] = acc;
            f += group;
        }
    }
}
