//! Matmul, float32 FFMA (ieee): `c[m, n] = Σ_k a[m, k] · b[k, n]`, row-major, contiguous.
//!
//! The tiling mirrors the CUDA C++ kernel (`python/mage/ops/matmul/native.cu`), so that a
//! difference between the two is the language, not the design: 256 units a cube compute a
//! `tile × tile` block of c (128 or 64), walking k in slices of [`BK`] = 8; each unit accumulates
//! a `tile/16 × tile/16` micro-tile in registers (8 × 8 or 4 × 4), its rows and columns in groups
//! of 4 spread as native's are; a is stored transposed in shared memory (`as[k][m]`), both
//! operands padded by 4 floats a row; the slices are double-buffered through registers (the next
//! slice's global loads are issued before the current slice's FFMAs, one barrier a slice).
//!
//! What differs from native: global loads are scalar (native moves a and b as float4 where K and
//! N allow). The micro-tile's shared-memory reads are written one float at a time, but NVRTC
//! merges each 4 into one `ld.shared.v4.f32`, as native's float4 reads (tests/test_cubecl.py
//! checks the PTX). FINDINGS.md §9.

use cubecl::prelude::*;

/// Units a cube (native.cu: MATMUL_THREADS).
pub const THREADS: u32 = 256;
/// Depth of a k slice (native.cu: MATMUL_BK).
pub const BK: u32 = 8;
/// Floats a shared-memory row is padded by (native.cu: PAD).
pub const PAD: u32 = 4;
/// The tile sizes generated, as native launches them: 128 when that gives every SM a cube.
pub const TILES: [u32; 2] = [128, 64];

/// Bytes of shared memory a cube uses: two operands, two buffers of `[BK][tile + PAD]`.
pub const fn shared_bytes(tile: u32) -> usize {
    (2 * 2 * BK * (tile + PAD) * 4) as usize
}

/// `value[at]`, or 0 where `ok` is false (a tail past the matrix).
#[cube]
pub fn load_or_zero(value: &Array<f32>, at: u32, ok: bool) -> f32 {
    let mut v = 0.0f32;
    if ok {
        v = value[at as usize];
    }
    v
}

/// grid: (ceil(n / tile), ceil(m / tile)); cube: 256 units. Any m, n, k: tails load zeros and
/// stores are guarded.
#[cube(launch_unchecked)]
pub fn matmul_kernel(
    a: &Array<f32>,
    b: &Array<f32>,
    c: &mut Array<f32>,
    m: u32,
    n: u32,
    k: u32,
    #[comptime] tile: u32,
) {
    let micro = comptime!(tile / 16); // TM = TN
    let groups = comptime!(micro / 4); // GM = GN: groups of 4 rows (columns) a unit owns
    let group_stride = comptime!(tile / groups);
    let row_len = comptime!(tile + PAD);
    let buffer = comptime!(BK * row_len);
    let loads = comptime!(tile * BK / THREADS); // a's and b's floats a unit moves a slice

    // One array for both operands (a's two buffers, then b's): CubeCL places two shared arrays
    // of one size in an order that changes from run to run, and the generated file must not.
    let mut shared = SharedMemory::<f32>::new(comptime!((4 * buffer) as usize));
    let b_base = comptime!(2 * buffer);

    let tid = UNIT_POS_X;
    let tx = tid % 16;
    let ty = tid / 16;
    let m0 = CUBE_POS_Y * tile;
    let n0 = CUBE_POS_X * tile;

    let mut a_next = Array::<f32>::new(comptime!(loads as usize));
    let mut b_next = Array::<f32>::new(comptime!(loads as usize));
    let mut acc = Array::<f32>::new(comptime!((micro * micro) as usize));
    #[unroll]
    for i in 0..micro * micro {
        acc[i as usize] = 0.0f32;
    }

    let slices = (k + BK - 1) / BK;
    if slices > 0 {
        load_slice(a, b, &mut a_next, &mut b_next, m, n, k, m0, n0, 0u32, tile);
        store_slice(&a_next, &b_next, &mut shared, 0u32, tile);
    }
    sync_cube();
    for t in 0..slices {
        let current = (t % 2) * buffer;
        if t + 1 < slices {
            load_slice(
                a,
                b,
                &mut a_next,
                &mut b_next,
                m,
                n,
                k,
                m0,
                n0,
                (t + 1) * BK,
                tile,
            );
        }
        #[unroll]
        for kk in 0..BK {
            let mut av = Array::<f32>::new(comptime!(micro as usize));
            let mut bv = Array::<f32>::new(comptime!(micro as usize));
            #[unroll]
            for g in 0..groups {
                #[unroll]
                for q in 0..4u32 {
                    av[(g * 4 + q) as usize] =
                        shared[(current + kk * row_len + g * group_stride + ty * 4 + q) as usize];
                    bv[(g * 4 + q) as usize] =
                        shared[(b_base + current + kk * row_len + g * group_stride + tx * 4 + q)
                            as usize];
                }
            }
            #[unroll]
            for i in 0..micro {
                #[unroll]
                for j in 0..micro {
                    let at = (i * micro + j) as usize;
                    acc[at] = fma(av[i as usize], bv[j as usize], acc[at]);
                }
            }
        }
        if t + 1 < slices {
            store_slice(&a_next, &b_next, &mut shared, buffer - current, tile);
        }
        sync_cube();
    }

    #[unroll]
    for g in 0..groups {
        #[unroll]
        for i in 0..4u32 {
            let row = m0 + g * group_stride + ty * 4 + i;
            if row < m {
                #[unroll]
                for h in 0..groups {
                    #[unroll]
                    for j in 0..4u32 {
                        let col = n0 + h * group_stride + tx * 4 + j;
                        if col < n {
                            c[(row * n + col) as usize] =
                                acc[((g * 4 + i) * micro + h * 4 + j) as usize];
                        }
                    }
                }
            }
        }
    }
}

/// Registers ← the slice of a (`tile × BK` at (m0, k0)) and of b (`BK × tile` at (k0, n0)):
/// float f = unit + l · THREADS of each block, zeros outside the matrices.
#[cube]
#[allow(clippy::too_many_arguments)]
fn load_slice(
    a: &Array<f32>,
    b: &Array<f32>,
    a_next: &mut Array<f32>,
    b_next: &mut Array<f32>,
    m: u32,
    n: u32,
    k: u32,
    m0: u32,
    n0: u32,
    k0: u32,
    #[comptime] tile: u32,
) {
    #[unroll]
    for l in 0..comptime!(tile * BK / THREADS) {
        let f = UNIT_POS_X + l * THREADS;
        let ar = m0 + f / BK;
        let ac = k0 + f % BK;
        a_next[l as usize] = load_or_zero(a, ar * k + ac, ar < m && ac < k);
        let br = k0 + f / tile;
        let bc = n0 + f % tile;
        b_next[l as usize] = load_or_zero(b, br * n + bc, br < k && bc < n);
    }
}

/// Registers → buffer `offset` of each operand in `shared` (a transposed: `[k][m]`; b's buffers
/// after a's two).
#[cube]
fn store_slice(
    a_next: &Array<f32>,
    b_next: &Array<f32>,
    shared: &mut SharedMemory<f32>,
    offset: u32,
    #[comptime] tile: u32,
) {
    let row_len = comptime!(tile + PAD);
    let b_base = comptime!(2 * BK * row_len);
    #[unroll]
    for l in 0..comptime!(tile * BK / THREADS) {
        let f = UNIT_POS_X + l * THREADS;
        shared[(offset + (f % BK) * row_len + f / BK) as usize] = a_next[l as usize];
        shared[(b_base + offset + (f / tile) * row_len + f % tile) as usize] = b_next[l as usize];
    }
}
