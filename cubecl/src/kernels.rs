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

/// out[r, c] = gelu(x[r, c] + bias[c]); one unit per element, `n = rows * cols`.
#[cube(launch_unchecked)]
pub fn bias_gelu_kernel(
    x: &Array<f32>,
    bias: &Array<f32>,
    out: &mut Array<f32>,
    n: u32,
    cols: u32,
) {
    let cube = CUBE_POS_Y * CUBE_COUNT_X + CUBE_POS_X;
    let idx = cube * CUBE_DIM_X + UNIT_POS_X;
    if idx < n {
        let c = idx % cols;
        let v = x[idx as usize] + bias[c as usize];
        out[idx as usize] = gelu_erf(v);
    }
}

/// Sums `smem[0..CUBE_DIM_X]` into `smem[0]` (tree reduction; the cube size is a power of
/// two). Every unit of the cube must call it (it contains barriers).
#[cube]
fn cube_sum(smem: &mut SharedMemory<f32>, tid: u32) {
    let mut stride = CUBE_DIM_X / 2;
    while stride > 0 {
        if tid < stride {
            let other = smem[(tid + stride) as usize];
            smem[tid as usize] += other;
        }
        sync_cube();
        stride /= 2;
    }
}

/// LayerNorm over the last dimension: one cube per row, `block` units per cube, two passes
/// (mean, then the sum of squared deviations) with a shared-memory tree reduction each.
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

    // Pass 1: mean.
    let mut acc = 0.0f32;
    let mut c = tid;
    while c < cols {
        acc += x[(base + c) as usize];
        c += block;
    }
    smem[tid as usize] = acc;
    sync_cube();
    cube_sum(&mut smem, tid);
    let mean = smem[0] * inv_cols;
    sync_cube();

    // Pass 2: variance as the mean of squared deviations from the mean (no cancellation).
    let mut acc2 = 0.0f32;
    c = tid;
    while c < cols {
        let d = x[(base + c) as usize] - mean;
        acc2 += d * d;
        c += block;
    }
    smem[tid as usize] = acc2;
    sync_cube();
    cube_sum(&mut smem, tid);
    let var = smem[0] * inv_cols;
    let rstd = 1.0f32 / f32::sqrt(var + eps);

    // Pass 3: normalize, scale, shift.
    if valid {
        c = tid;
        while c < cols {
            let i = (base + c) as usize;
            out[i] = (x[i] - mean) * rstd * weight[c as usize] + bias[c as usize];
            c += block;
        }
    }
}
