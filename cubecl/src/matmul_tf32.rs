//! Matmul on the tensor cores, tf32 inputs and float32 accumulation: `c = a · b`, row-major.
//!
//! CubeCL 0.10's `cmma` is nvcuda::wmma on CUDA (`CudaWmmaCompiler`,
//! `cubecl-cpp-0.10.0/src/cuda/mma/cuda_compiler.rs:83-139`: tf32 × tf32 → f32 at m16n16k8 from
//! sm_80 on). No wgmma exists in 0.10 (FINDINGS.md), so this is the Ampere-class design run on
//! Hopper: the classic shared-memory wmma GEMM (CUTLASS's sm_80 "multistage" layout without
//! cp.async, the Triton tutorial's 128 × 128 tile).
//!
//! Reuse: a cube of 256 units (8 planes) computes a 128 × 128 tile of c from k slices of 32; each
//! plane owns 64 × 32 of it, 4 × 2 accumulator fragments, so every a fragment it loads from shared
//! memory feeds 2 MMAs and every b fragment 4 (a 64 × 32 warp tile: 96 shared floats a lane per
//! 8-deep step for 8 MMAs). The slice is staged through registers (the next slice's global loads
//! are issued before the current slice's MMAs, as the FFMA kernel does), rounded to tf32 once on
//! its way into shared memory (`__float_to_tf32`, round to nearest) rather than per fragment.
//! Shared rows are padded by 4 floats (a: 36, b: 132) to spread banks while keeping every
//! fragment's address 32-byte aligned, as wmma's loads require. The output goes through a
//! per-plane 16 × 16 staging patch so any m and n are stored with a guard.

use cubecl::prelude::*;

/// Units a cube (8 planes of 32).
pub const THREADS: u32 = 256;
/// Rows and columns of c a cube computes.
pub const TILE: u32 = 128;
/// Depth of a k slice (4 MMA steps of 8).
pub const BK: u32 = 32;
/// wmma's tf32 shape: m16 n16 k8.
pub const FRAGMENT: u32 = 16;
pub const FRAGMENT_K: u32 = 8;
/// Shared-memory row lengths: a as `[TILE][A_ROW]`, b as `[BK][B_ROW]` (padded by 4 floats).
pub const A_ROW: u32 = BK + 4;
pub const B_ROW: u32 = TILE + 4;
/// Plane grid inside the cube: 2 rows × 4 columns of planes, each 64 × 32 of c.
const PLANE_ROWS: u32 = 64;
const PLANE_COLS: u32 = 32;
const FRAGMENTS_M: u32 = PLANE_ROWS / FRAGMENT;
const FRAGMENTS_N: u32 = PLANE_COLS / FRAGMENT;

/// Bytes of shared memory a cube uses: a's slice, then b's.
pub const fn shared_bytes() -> usize {
    ((TILE * A_ROW + BK * B_ROW) * 4) as usize
}

/// `value[at]`, or 0 where `ok` is false (a tail past the matrix).
#[cube]
fn load_or_zero(value: &Array<f32>, at: u32, ok: bool) -> f32 {
    let mut v = 0.0f32;
    if ok {
        v = value[at as usize];
    }
    v
}

/// A row-major m16n16k8 tf32 operand fragment (`ident` A: 16 × 8, B: 8 × 16) read from float32
/// shared memory (tf32 values held as floats), `stride` floats a row.
#[cube]
fn tf32_fragment(#[comptime] ident: cmma::MatrixIdent, value: &Slice<tf32>, stride: u32) -> cmma::Matrix<tf32> {
    // SAFETY: loaded right below, before any use.
    let fragment = unsafe {
        cmma::Matrix::<tf32>::uninitialized(
            ident,
            comptime!(FRAGMENT as usize),
            comptime!(FRAGMENT as usize),
            comptime!(FRAGMENT_K as usize),
            cmma::MatrixLayout::RowMajor,
        )
    };
    cmma::load(&fragment, value, stride);
    fragment
}

/// grid: (ceil(n / 128), ceil(m / 128)); cube: 256 units. Any m, n, k: tails load zeros (which
/// add nothing to the sums) and stores are guarded.
#[cube(launch_unchecked)]
pub fn matmul_tf32_kernel(a: &Array<f32>, b: &Array<f32>, c: &mut Array<f32>, m: u32, n: u32, k: u32) {
    let loads = comptime!(TILE * BK / THREADS); // floats of each operand a unit moves a slice
    let b_base = comptime!(TILE * A_ROW);
    let mut shared = SharedMemory::<tf32>::new(comptime!((TILE * A_ROW + BK * B_ROW) as usize));

    let plane = UNIT_POS_X / 32;
    let plane_m = (plane / 4) * PLANE_ROWS;
    let plane_n = (plane % 4) * PLANE_COLS;
    let m0 = CUBE_POS_Y * TILE;
    let n0 = CUBE_POS_X * TILE;

    let mut acc = Sequence::<cmma::Matrix<f32>>::new();
    #[unroll]
    for _ in 0..FRAGMENTS_M * FRAGMENTS_N {
        acc.push(cmma::Matrix::<f32>::from_value(
            cmma::MatrixIdent::Accumulator,
            comptime!(FRAGMENT as usize),
            comptime!(FRAGMENT as usize),
            comptime!(FRAGMENT_K as usize),
            cmma::MatrixLayout::Undefined,
            0.0f32,
        ));
    }

    let mut a_next = Array::<f32>::new(comptime!(loads as usize));
    let mut b_next = Array::<f32>::new(comptime!(loads as usize));
    let slices = (k + BK - 1) / BK;
    if slices > 0 {
        load_slice(a, b, &mut a_next, &mut b_next, m, n, k, m0, n0, 0u32);
    }
    for t in 0..slices {
        store_slice(&a_next, &b_next, &mut shared);
        sync_cube();
        if t + 1 < slices {
            load_slice(a, b, &mut a_next, &mut b_next, m, n, k, m0, n0, (t + 1) * BK);
        }
        #[unroll]
        for kk in 0..BK / FRAGMENT_K {
            let mut b_frags = Sequence::<cmma::Matrix<tf32>>::new();
            #[unroll]
            for j in 0..FRAGMENTS_N {
                let at = b_base + kk * FRAGMENT_K * B_ROW + plane_n + j * FRAGMENT;
                b_frags.push(tf32_fragment(
                    cmma::MatrixIdent::B,
                    &shared.slice(at as usize, (at + FRAGMENT_K * B_ROW) as usize),
                    B_ROW,
                ));
            }
            #[unroll]
            for i in 0..FRAGMENTS_M {
                let at = (plane_m + i * FRAGMENT) * A_ROW + kk * FRAGMENT_K;
                let a_frag = tf32_fragment(
                    cmma::MatrixIdent::A,
                    &shared.slice(at as usize, (at + FRAGMENT * A_ROW) as usize),
                    A_ROW,
                );
                #[unroll]
                for j in 0..FRAGMENTS_N {
                    let d = acc.index(comptime!((i * FRAGMENTS_N + j) as usize));
                    cmma::execute::<tf32, tf32, f32, f32>(&a_frag, b_frags.index(j as usize), d, d);
                }
            }
        }
        sync_cube(); // shared is written again by the next slice
    }

    // Each plane stages one fragment at a time in its own 16 × 16 patch (a's region is free now),
    // then its lanes copy the patch out, 8 floats a lane, guarded by m and n.
    let patch = plane * FRAGMENT * FRAGMENT;
    #[unroll]
    for i in 0..FRAGMENTS_M {
        #[unroll]
        for j in 0..FRAGMENTS_N {
            cmma::store(
                &mut shared.slice_mut(patch as usize, (patch + FRAGMENT * FRAGMENT) as usize),
                acc.index(comptime!((i * FRAGMENTS_N + j) as usize)),
                FRAGMENT,
                cmma::MatrixLayout::RowMajor,
            );
            sync_cube();
            #[unroll]
            for l in 0..comptime!(FRAGMENT * FRAGMENT / 32) {
                let f = UNIT_POS_PLANE + l * 32;
                let row = m0 + plane_m + i * FRAGMENT + f / FRAGMENT;
                let col = n0 + plane_n + j * FRAGMENT + f % FRAGMENT;
                if row < m && col < n {
                    c[(row * n + col) as usize] = f32::cast_from(shared[(patch + f) as usize]);
                }
            }
            sync_cube(); // the patch is written again by the next fragment
        }
    }
}

/// Registers ← the slice of a (`TILE × BK` at (m0, k0)) and of b (`BK × TILE` at (k0, n0)):
/// float f = unit + l · THREADS of each, consecutive units on consecutive columns (coalesced),
/// zeros outside the matrices.
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
) {
    #[unroll]
    for l in 0..comptime!(TILE * BK / THREADS) {
        let f = UNIT_POS_X + l * THREADS;
        let ar = m0 + f / BK;
        let ac = k0 + f % BK;
        a_next[l as usize] = load_or_zero(a, ar * k + ac, ar < m && ac < k);
        let br = k0 + f / TILE;
        let bc = n0 + f % TILE;
        b_next[l as usize] = load_or_zero(b, br * n + bc, br < k && bc < n);
    }
}

/// Registers → shared (a as `[TILE][A_ROW]`, then b as `[BK][B_ROW]`), rounded to tf32 (round to
/// nearest, once here rather than per fragment load).
#[cube]
fn store_slice(a_next: &Array<f32>, b_next: &Array<f32>, shared: &mut SharedMemory<tf32>) {
    let b_base = comptime!(TILE * A_ROW);
    #[unroll]
    for l in 0..comptime!(TILE * BK / THREADS) {
        let f = UNIT_POS_X + l * THREADS;
        shared[((f / BK) * A_ROW + f % BK) as usize] = <tf32 as Cast>::cast_from(a_next[l as usize]);
        shared[(b_base + (f / TILE) * B_ROW + f % TILE) as usize] = <tf32 as Cast>::cast_from(b_next[l as usize]);
    }
}
