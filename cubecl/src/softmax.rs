//! Softmax over the last dimension, float32:
//!     out[r, c] = exp(x[r, c] − max_c x[r, ·]) / Σ_c exp(x[r, c] − max)
//!
//! Mirrors the CUDA C++ kernel's online kernel (`softmax_f32_online` in
//! `python/mage/ops/softmax/native.cu`): a cube of [`THREADS`] units per row keeps a running max
//! and a sum rescaled when the max grows (Milakov and Gimelshein), reads the row once for both,
//! reduces them over the cube (plane butterflies, then every unit combines the per-plane
//! partials in the same order: deterministic), and reads it once more to write it. Native runs
//! that kernel only for rows wider than 16384 floats; narrower rows go to its register kernels
//! (the row held in registers, read once), which this one does not have.

use cubecl::prelude::*;

use crate::kernels::cube_reduce;

/// Units a cube (native: 256 for the online kernel).
pub const THREADS: u32 = 256;

/// grid: 2-D, a cube per row (linear index `y · count_x + x`); cube: `block` units.
///
/// Cubes past the last row (the 2-D cube count can overshoot) run the same barriers on row 0
/// but write nothing, so every barrier stays in uniform control flow.
#[cube(launch_unchecked)]
pub fn softmax_kernel(
    x: &Array<f32>,
    out: &mut Array<f32>,
    rows: u32,
    cols: u32,
    #[comptime] block: u32,
) {
    let cube = CUBE_POS_Y * CUBE_COUNT_X + CUBE_POS_X;
    let valid = cube < rows;
    let base = select(valid, cube, 0u32) * cols;
    let mut smem = SharedMemory::<f32>::new(comptime!(block as usize));

    // The max of no value, −FLT_MAX, so that exp(m − grown) is 0, never NaN. (`f32::new`: a
    // `let mut` cannot start from a constant expression such as `-3.4e38f32`.)
    let mut m = f32::new(-3.402_823_5e38);
    let mut s = 0.0f32;
    let mut c = UNIT_POS_X;
    while c < cols {
        let v = x[(base + c) as usize];
        let grown = max(m, v);
        s = s * f32::exp(m - grown) + f32::exp(v - grown);
        m = grown;
        c += block;
    }
    let row_max = cube_reduce(m, &mut smem, true);
    // A unit that saw no value (cols < block) holds s = 0: it adds 0.
    let inverse = 1.0f32 / cube_reduce(s * f32::exp(m - row_max), &mut smem, false);

    if valid {
        c = UNIT_POS_X;
        while c < cols {
            let i = (base + c) as usize;
            out[i] = f32::exp(x[i] - row_max) * inverse;
            c += block;
        }
    }
}
