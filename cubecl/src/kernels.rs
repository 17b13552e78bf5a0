//! The `#[cube]` kernels: `bias_gelu` and `layernorm`, FP32, row-major `rows x cols`.
//!
//! Both kernels take a 2-D cube count (see [`crate::geometry`]) so that a problem larger than
//! one grid dimension (65535 on wgpu, 2^31-1 on CUDA x) still fits: the linear cube index is
//! `CUBE_POS_Y * CUBE_COUNT_X + CUBE_POS_X`.

use cubecl::prelude::*;

use crate::erf::{ERF_LARGE, ERF_SMALL, ERF_SPLIT};

/// 1 + erf(a) without cancellation for a << 0 (see [`crate::erf::one_plus_erf_f32`]).
///
/// Both polynomials are evaluated and `select` keeps one: with a branch on |a| > ERF_SPLIT, a
/// warp of ordinary inputs ran both sides one after the other (ncu on the H200: 20.7 of 32
/// threads active). Each path is the same float32 arithmetic as before; the discarded one may be
/// inf or NaN for large |a|, which `select` drops.
#[cube]
pub fn one_plus_erf(a: f32) -> f32 {
    let t = f32::abs(a);
    let s = a * a;

    let mut r = fma(comptime!(ERF_LARGE[0]), t, comptime!(ERF_LARGE[1]));
    let u = fma(comptime!(ERF_LARGE[2]), t, comptime!(ERF_LARGE[3]));
    r = fma(r, s, u);
    r = fma(r, t, comptime!(ERF_LARGE[4]));
    r = fma(r, t, comptime!(ERF_LARGE[5]));
    r = fma(r, t, comptime!(ERF_LARGE[6]));
    r = fma(r, t, -t);
    let e = f32::exp(r);
    let large = select(a < 0.0f32, e, 2.0f32 - e);

    let mut p = fma(comptime!(ERF_SMALL[0]), s, comptime!(ERF_SMALL[1]));
    p = fma(p, s, comptime!(ERF_SMALL[2]));
    p = fma(p, s, comptime!(ERF_SMALL[3]));
    p = fma(p, s, comptime!(ERF_SMALL[4]));
    p = fma(p, s, comptime!(ERF_SMALL[5]));
    let small = 1.0f32 + fma(p, a, a);

    select(t > comptime!(ERF_SPLIT), large, small)
}

/// gelu(v) = 0.5 * v * (1 + erf(v / sqrt(2))).
#[cube]
pub fn gelu_erf(v: f32) -> f32 {
    0.5f32 * v * one_plus_erf(v * comptime!(core::f32::consts::FRAC_1_SQRT_2))
}

/// out[r, c] = gelu(x[r, c] + bias[c]), with x, bias and out read as vectors of `N` consecutive
/// columns (N = 4: 16-byte loads and stores; N = 1: any cols). A unit owns one vector of columns:
/// it loads its bias once and walks the rows `CUBE_POS_Y, CUBE_POS_Y + CUBE_COUNT_Y, …` (no
/// division or modulo per element). `cols` counts floats and must be a multiple of N.
#[cube(launch_unchecked)]
pub fn bias_gelu_kernel<N: Size>(
    x: &Array<Vector<f32, N>>,
    bias: &Array<Vector<f32, N>>,
    out: &mut Array<Vector<f32, N>>,
    rows: u32,
    cols: u32,
) {
    let vectors = cols / N::value() as u32;
    let col = CUBE_POS_X * CUBE_DIM_X + UNIT_POS_X;
    if col < vectors {
        let b = bias[col as usize];
        let mut row = CUBE_POS_Y;
        while row < rows {
            let i = (row * vectors + col) as usize;
            let v = x[i] + b;
            let mut y = Vector::<f32, N>::empty();
            #[unroll]
            for k in 0..N::value() {
                y[k] = gelu_erf(v[k]);
            }
            out[i] = y;
            row += CUBE_COUNT_Y;
        }
    }
}

/// The sum (or, with `maximum`, the max) of `value` over the cube: within each plane (warp) by
/// `plane_sum` (`plane_max`), then the planes' results through shared memory (`smem` holds at
/// least one slot a plane), combined by every unit in plane order. Two barriers; every unit of
/// the cube must call it, and every unit gets the result.
#[cube]
pub fn cube_reduce(value: f32, smem: &mut SharedMemory<f32>, #[comptime] maximum: bool) -> f32 {
    let plane_total = if maximum {
        plane_max(value)
    } else {
        plane_sum(value)
    };
    if UNIT_POS_PLANE == 0 {
        smem[(UNIT_POS_X / PLANE_DIM) as usize] = plane_total;
    }
    sync_cube();
    let mut total = smem[0];
    for plane in 1..CUBE_DIM_X / PLANE_DIM {
        let other = smem[plane as usize];
        total = if maximum {
            max(total, other)
        } else {
            total + other
        };
    }
    sync_cube(); // smem is written again by the next reduction
    total
}

/// The sum of a vector's lanes.
#[cube]
fn lane_sum<N: Size>(v: Vector<f32, N>) -> f32 {
    let mut total = 0.0f32;
    #[unroll]
    for k in 0..N::value() {
        total += v[k];
    }
    total
}

/// LayerNorm over the last dimension: one cube per row, `block` units per cube, two passes with a
/// plane-then-cube reduction each: a provisional mean, then the deviations from it, whose own mean
/// corrects it (the corrected two-pass algorithm of Chan, Golub and LeVeque). The mean is never
/// rounded to one float32: on 1e4 + N(0, 1) rows that rounding alone (up to half an ulp of 1e4,
/// 4.9e-4) was the whole error, and the H200 saw it exceed 10× eager's at 2 × 16384.
/// `x - provisional` is exact there (both within a factor of two), so the output keeps float32's
/// precision of the deviations themselves.
/// Rows are read and written as vectors of `N` consecutive columns (N = 4: 16-byte loads and
/// stores; N = 1: any cols); a unit sums its lanes before the cube reduction. `cols` counts
/// floats and must be a multiple of N.
///
/// Cubes past the last row (the 2-D cube count can overshoot) run the same barriers on row 0
/// but write nothing, so every barrier stays in uniform control flow.
#[cube(launch_unchecked)]
pub fn layernorm_kernel<N: Size>(
    x: &Array<Vector<f32, N>>,
    weight: &Array<Vector<f32, N>>,
    bias: &Array<Vector<f32, N>>,
    out: &mut Array<Vector<f32, N>>,
    rows: u32,
    cols: u32,
    eps: f32,
    #[comptime] block: u32,
) {
    let cube = CUBE_POS_Y * CUBE_COUNT_X + CUBE_POS_X;
    let valid = cube < rows;
    let row = select(valid, cube, 0u32);
    let tid = UNIT_POS_X;
    let vectors = cols / N::value() as u32;
    let base = row * vectors;
    let inv_cols = 1.0f32 / f32::cast_from(cols);
    let mut smem = SharedMemory::<f32>::new(comptime!(block as usize));

    let mut acc = Vector::<f32, N>::new(0.0f32);
    let mut c = tid;
    while c < vectors {
        acc += x[(base + c) as usize];
        c += block;
    }
    let provisional = Vector::<f32, N>::new(cube_reduce(lane_sum(acc), &mut smem, false) * inv_cols);

    let mut deviations = Vector::<f32, N>::new(0.0f32);
    let mut squares = Vector::<f32, N>::new(0.0f32);
    c = tid;
    while c < vectors {
        let d = x[(base + c) as usize] - provisional;
        deviations += d;
        squares += d * d;
        c += block;
    }
    let residual = cube_reduce(lane_sum(deviations), &mut smem, false) * inv_cols;
    let mean_square = cube_reduce(lane_sum(squares), &mut smem, false) * inv_cols;
    // var = E[d²] − E[d]²: E[d] is the provisional mean's error, tiny, so nothing cancels.
    let rstd = Vector::<f32, N>::new(1.0f32 / f32::sqrt(mean_square - residual * residual + eps));
    let residual = Vector::<f32, N>::new(residual);

    if valid {
        c = tid;
        while c < vectors {
            let i = (base + c) as usize;
            out[i] = (x[i] - provisional - residual) * rstd * weight[c as usize] + bias[c as usize];
            c += block;
        }
    }
}
