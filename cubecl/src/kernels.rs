//! The `#[cube]` kernels: `bias_gelu` and `layernorm`, FP32, row-major `rows x cols`.
//!
//! Both kernels take a 2-D cube count (see [`crate::geometry`]) so that a problem larger than
//! one grid dimension (65535 on wgpu, 2^31-1 on CUDA x) still fits: the linear cube index is
//! `CUBE_POS_Y * CUBE_COUNT_X + CUBE_POS_X`.

use cubecl::prelude::*;

use crate::erf::{ERF_LARGE, ERF_SMALL, ERF_SPLIT};

/// 1 + erf(a) without cancellation for a << 0 (see [`crate::erf::one_plus_erf_f32`]).
#[cube]
pub fn one_plus_erf(a: f32) -> f32 {
    let t = f32::abs(a);
    let s = a * a;
    if t > comptime!(ERF_SPLIT) {
        let mut r = fma(comptime!(ERF_LARGE[0]), t, comptime!(ERF_LARGE[1]));
        let u = fma(comptime!(ERF_LARGE[2]), t, comptime!(ERF_LARGE[3]));
        r = fma(r, s, u);
        r = fma(r, t, comptime!(ERF_LARGE[4]));
        r = fma(r, t, comptime!(ERF_LARGE[5]));
        r = fma(r, t, comptime!(ERF_LARGE[6]));
        r = fma(r, t, -t);
        let e = f32::exp(r);
        select(a < 0.0f32, e, 2.0f32 - e)
    } else {
        let mut r = fma(comptime!(ERF_SMALL[0]), s, comptime!(ERF_SMALL[1]));
        r = fma(r, s, comptime!(ERF_SMALL[2]));
        r = fma(r, s, comptime!(ERF_SMALL[3]));
        r = fma(r, s, comptime!(ERF_SMALL[4]));
        r = fma(r, s, comptime!(ERF_SMALL[5]));
        1.0f32 + fma(r, a, a)
    }
}

/// gelu(v) = 0.5 * v * (1 + erf(v / sqrt(2))).
#[cube]
pub fn gelu_erf(v: f32) -> f32 {
    0.5f32 * v * one_plus_erf(v * comptime!(core::f32::consts::FRAC_1_SQRT_2))
}

/// out[r, c] = gelu(x[r, c] + bias[c]). A unit owns one column: it loads its bias once and walks
/// the rows `CUBE_POS_Y, CUBE_POS_Y + CUBE_COUNT_Y, …` (no division or modulo per element).
#[cube(launch_unchecked)]
pub fn bias_gelu_kernel(
    x: &Array<f32>,
    bias: &Array<f32>,
    out: &mut Array<f32>,
    rows: u32,
    cols: u32,
) {
    let col = CUBE_POS_X * CUBE_DIM_X + UNIT_POS_X;
    if col < cols {
        let b = bias[col as usize];
        let mut row = CUBE_POS_Y;
        while row < rows {
            let i = (row * cols + col) as usize;
            out[i] = gelu_erf(x[i] + b);
            row += CUBE_COUNT_Y;
        }
    }
}

/// The sum of `value` over the cube: within each plane (warp) by `plane_sum`, then the planes'
/// sums through shared memory (`smem` holds at least one slot a plane). Two barriers; every unit
/// of the cube must call it, and every unit gets the total.
#[cube]
fn cube_sum(value: f32, smem: &mut SharedMemory<f32>) -> f32 {
    let plane_total = plane_sum(value);
    if UNIT_POS_PLANE == 0 {
        smem[(UNIT_POS_X / PLANE_DIM) as usize] = plane_total;
    }
    sync_cube();
    let mut total = 0.0f32;
    for plane in 0..CUBE_DIM_X / PLANE_DIM {
        total += smem[plane as usize];
    }
    sync_cube(); // smem is written again by the next reduction
    total
}

/// LayerNorm over the last dimension: one cube per row, `block` units per cube, two passes
/// (mean, then the mean squared deviation: no cancellation) with a plane-then-cube reduction each.
///
/// Cubes past the last row (the 2-D cube count can overshoot) run the same barriers on row 0
/// but write nothing, so every barrier stays in uniform control flow.
#[cube(launch_unchecked)]
pub fn layernorm_kernel(
    x: &Array<f32>,
    weight: &Array<f32>,
    bias: &Array<f32>,
    out: &mut Array<f32>,
    rows: u32,
    cols: u32,
    eps: f32,
    #[comptime] block: u32,
) {
    let cube = CUBE_POS_Y * CUBE_COUNT_X + CUBE_POS_X;
    let valid = cube < rows;
    let row = select(valid, cube, 0u32);
    let tid = UNIT_POS_X;
    let base = row * cols;
    let inv_cols = 1.0f32 / f32::cast_from(cols);
    let mut smem = SharedMemory::<f32>::new(comptime!(block as usize));

    let mut acc = 0.0f32;
    let mut c = tid;
    while c < cols {
        acc += x[(base + c) as usize];
        c += block;
    }
    let mean = cube_sum(acc, &mut smem) * inv_cols;

    let mut acc2 = 0.0f32;
    c = tid;
    while c < cols {
        let d = x[(base + c) as usize] - mean;
        acc2 += d * d;
        c += block;
    }
    let rstd = 1.0f32 / f32::sqrt(cube_sum(acc2, &mut smem) * inv_cols + eps);

    if valid {
        c = tid;
        while c < cols {
            let i = (base + c) as usize;
            out[i] = (x[i] - mean) * rstd * weight[c as usize] + bias[c as usize];
            c += block;
        }
    }
}
