//! Triangle multiplicative update, contraction only, channel-last float32 FFMA (ieee):
//!     outgoing:  out[b, i, j, c] = Σ_k a[b, i, k, c] · b[b, j, k, c]
//!     incoming:  out[b, i, j, c] = Σ_k a[b, k, i, c] · b[b, k, j, c]
//! a, b, out: B × N × N × C contiguous; every (b, c) product in one launch, no permuted copies.
//!
//! The tiling mirrors the CUDA C++ kernel (`python/mage/ops/triangle/native.cu`): a cube owns
//! [`CHANNELS`] = 8 consecutive channels and a `tile × tile` block of (i, j) for each (tile 64 with
//! 512 units, or 32 with 128), walks k in stages of [`KB`] = 4 with each operand transposed to
//! `[k][c][i]` in shared memory (rows padded by 4), double-buffered through registers (one barrier
//! a stage); each unit accumulates an 8 × 8 micro-tile of one channel, rows
//! `{4·ty + r, tile/2 + 4·ty + r}` and columns likewise, with native's lane layout (a warp is 8
//! channels × 4 (ty, tx) pairs: its stores write 32 contiguous bytes per (i, j)).
//!
//! What differs from native: global loads are scalar (native loads 4 channels as a float4). The
//! shared reads are written one float at a time; NVRTC merges each 4 rows into one
//! `ld.shared.v4.f32`, as native's (tests/test_cubecl.py checks the PTX).

use cubecl::prelude::*;

use crate::matmul::load_or_zero;

/// Channels a cube owns (native.cu: TRI_TC).
pub const CHANNELS: u32 = 8;
/// Depth of a k stage (native.cu: TRI_KB).
pub const KB: u32 = 4;
/// The tile sizes generated: 64 when that gives every SM a cube, else 32 (as native).
pub const TILES: [u32; 2] = [64, 32];

/// Units a cube for a `tile × tile` block of (i, j): 8 channels × (tile / 8)² units.
pub const fn threads(tile: u32) -> u32 {
    CHANNELS * (tile / 8) * (tile / 8)
}

/// Bytes of shared memory a cube uses: two operands, two buffers of `[KB][CHANNELS][tile + 4]`.
pub const fn shared_bytes(tile: u32) -> usize {
    (2 * 2 * KB * CHANNELS * (tile + 4) * 4) as usize
}

/// grid: (ceil(N / tile)², ceil(C / 8), B); cube: `threads(tile)` units. Any N, C and batch:
/// tails load zeros and stores are guarded.
#[cube(launch_unchecked)]
pub fn triangle_kernel(
    a: &Array<f32>,
    b: &Array<f32>,
    out: &mut Array<f32>,
    n: u32,
    channels: u32,
    #[comptime] tile: u32,
    #[comptime] outgoing: bool,
) {
    let units = comptime!(threads(tile));
    let side = comptime!(tile / 8); // units along a side of one channel's tile
    let row_len = comptime!(tile + 4);
    let buffer = comptime!(KB * CHANNELS * row_len);
    let half = comptime!(tile / 2);

    // One array for both operands (a's two buffers, then b's): CubeCL places two shared arrays
    // of one size in an order that changes from run to run, and the generated file must not.
    let mut shared = SharedMemory::<f32>::new(comptime!((4 * buffer) as usize));
    let b_base = comptime!(2 * buffer);

    let tid = UNIT_POS_X;
    let c = tid % CHANNELS;
    let g = tid / CHANNELS;
    let gw = g / 4;
    let gl = g % 4;
    let ty = (gw / (side / 2)) * 2 + gl / 2;
    let tx = (gw % (side / 2)) * 2 + gl % 2;

    let tiles = (n + tile - 1) / tile;
    let i0 = (CUBE_POS_X / tiles) * tile;
    let j0 = (CUBE_POS_X % tiles) * tile;
    let c0 = CUBE_POS_Y * CHANNELS;
    let batch = CUBE_POS_Z * n * n * channels;

    let mut a_next = Array::<f32>::new(comptime!((tile * KB * CHANNELS / units) as usize));
    let mut b_next = Array::<f32>::new(comptime!((tile * KB * CHANNELS / units) as usize));
    let mut acc = Array::<f32>::new(64usize);
    #[unroll]
    for r in 0..64u32 {
        acc[r as usize] = 0.0f32;
    }

    let stages = (n + KB - 1) / KB;
    if stages > 0 {
        load_stage(
            a,
            b,
            &mut a_next,
            &mut b_next,
            n,
            channels,
            batch,
            i0,
            j0,
            c0,
            0u32,
            tile,
            outgoing,
        );
        store_stage(&a_next, &b_next, &mut shared, 0u32, tile);
    }
    sync_cube();
    for t in 0..stages {
        let current = (t % 2) * buffer;
        if t + 1 < stages {
            load_stage(
                a,
                b,
                &mut a_next,
                &mut b_next,
                n,
                channels,
                batch,
                i0,
                j0,
                c0,
                (t + 1) * KB,
                tile,
                outgoing,
            );
        }
        #[unroll]
        for k in 0..KB {
            let base = current + (k * CHANNELS + c) * row_len;
            let mut av = Array::<f32>::new(8usize);
            let mut bv = Array::<f32>::new(8usize);
            #[unroll]
            for q in 0..4u32 {
                av[q as usize] = shared[(base + ty * 4 + q) as usize];
                av[(4 + q) as usize] = shared[(base + half + ty * 4 + q) as usize];
                bv[q as usize] = shared[(b_base + base + tx * 4 + q) as usize];
                bv[(4 + q) as usize] = shared[(b_base + base + half + tx * 4 + q) as usize];
            }
            #[unroll]
            for r in 0..8u32 {
                #[unroll]
                for s in 0..8u32 {
                    let at = (r * 8 + s) as usize;
                    acc[at] = fma(av[r as usize], bv[s as usize], acc[at]);
                }
            }
        }
        if t + 1 < stages {
            store_stage(&a_next, &b_next, &mut shared, buffer - current, tile);
        }
        sync_cube();
    }

    if c0 + c < channels {
        #[unroll]
        for r in 0..8u32 {
            let i = i0 + (r / 4) * half + ty * 4 + r % 4;
            if i < n {
                #[unroll]
                for s in 0..8u32 {
                    let j = j0 + (s / 4) * half + tx * 4 + s % 4;
                    if j < n {
                        out[(batch + (i * n + j) * channels + c0 + c) as usize] =
                            acc[(r * 8 + s) as usize];
                    }
                }
            }
        }
    }
}

/// Where float f of a unit's stage share goes (per operand): channel `f % 8`, contraction index
/// `(f / 8) % KB`, row (i or j) `f / (8 · KB)`.
#[cube]
#[allow(clippy::too_many_arguments)]
fn load_stage(
    a: &Array<f32>,
    b: &Array<f32>,
    a_next: &mut Array<f32>,
    b_next: &mut Array<f32>,
    n: u32,
    channels: u32,
    batch: u32,
    i0: u32,
    j0: u32,
    c0: u32,
    k0: u32,
    #[comptime] tile: u32,
    #[comptime] outgoing: bool,
) {
    let units = comptime!(threads(tile));
    #[unroll]
    for l in 0..comptime!(tile * KB * CHANNELS / units) {
        let f = UNIT_POS_X + l * units;
        let cc = c0 + f % CHANNELS;
        let k = k0 + (f / CHANNELS) % KB;
        let p = f / (CHANNELS * KB);
        let inside = k < n && cc < channels;
        let i = i0 + p;
        let j = j0 + p;
        // The pair-map entry of row i (or j) and contraction index k.
        let mut a_at = (k * n + i) * channels;
        let mut b_at = (k * n + j) * channels;
        if comptime!(outgoing) {
            a_at = (i * n + k) * channels;
            b_at = (j * n + k) * channels;
        }
        a_next[l as usize] = load_or_zero(a, batch + a_at + cc, inside && i < n);
        b_next[l as usize] = load_or_zero(b, batch + b_at + cc, inside && j < n);
    }
}

/// Registers → buffer `offset` of each operand in `shared`, `[k][c][p]` (b's buffers after a's).
#[cube]
fn store_stage(
    a_next: &Array<f32>,
    b_next: &Array<f32>,
    shared: &mut SharedMemory<f32>,
    offset: u32,
    #[comptime] tile: u32,
) {
    let units = comptime!(threads(tile));
    let row_len = comptime!(tile + 4);
    let b_base = comptime!(2 * KB * CHANNELS * row_len);
    #[unroll]
    for l in 0..comptime!(tile * KB * CHANNELS / units) {
        let f = UNIT_POS_X + l * units;
        let at = offset
            + (((f / CHANNELS) % KB) * CHANNELS + f % CHANNELS) * row_len
            + f / (CHANNELS * KB);
        shared[at as usize] = a_next[l as usize];
        shared[(b_base + at) as usize] = b_next[l as usize];
    }
}
