//! Runs both kernels through CubeCL's wgpu runtime on Mesa's lavapipe (software Vulkan, CPU)
//! and checks them against float64 CPU references.
//!
//! Needs `mesa-vulkan-drivers` + `libvulkan1`. The ICD is picked with VK_ICD_FILENAMES
//! (defaulted below to Debian's lavapipe json when unset).

use cubecl::prelude::*;
use cubecl_wgpu::{WgpuDevice, WgpuRuntime};
use mage_cubecl::{erf, geometry, launch, neighbor_agg, reference, reference::Rng, LAYERNORM_EPS};

const LVP_ICD: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

/// The lavapipe client, or None (said on stderr) where no Vulkan driver is installed: a developer
/// machine without mesa-vulkan-drivers. Under CI=true (.ci/run installs it) a missing driver fails.
fn client() -> Option<ComputeClient<WgpuRuntime>> {
    if std::env::var_os("VK_ICD_FILENAMES").is_none() {
        if !std::path::Path::new(LVP_ICD).exists() {
            let why = format!("no Vulkan driver ({LVP_ICD} is missing: apt-get install mesa-vulkan-drivers libvulkan1)");
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "{why}, and CI=true: CI must provide it"
            );
            eprintln!("SKIPPED: {why}");
            return None;
        }
        // SAFETY: set before any thread that reads the environment is started by this test.
        unsafe { std::env::set_var("VK_ICD_FILENAMES", LVP_ICD) };
    }
    Some(WgpuRuntime::client(&WgpuDevice::Cpu))
}

fn read(client: &ComputeClient<WgpuRuntime>, h: cubecl::server::Handle) -> Vec<f32> {
    let bytes = client.read_one(h).expect("read back");
    f32::from_bytes(&bytes).to_vec()
}

/// Max of |got - want| / (rtol*|want| + atol) (<= 1 passes).
fn worst(got: &[f32], want: &[f64], rtol: f64, atol: f64) -> (f64, usize) {
    assert_eq!(got.len(), want.len());
    let mut w = (0.0f64, 0usize);
    for (i, (&g, &e)) in got.iter().zip(want).enumerate() {
        let s = (g as f64 - e).abs() / (rtol * e.abs() + atol);
        assert!(g.is_finite(), "non-finite output {g} at {i}");
        if s > w.0 {
            w = (s, i);
        }
    }
    w
}

/// Runs bias_gelu on `x` (rows x cols) and `bias` and compares with the float64 reference.
fn check_bias_gelu(
    client: &ComputeClient<WgpuRuntime>,
    x: &[f32],
    bias: &[f32],
    rows: usize,
    cols: usize,
) {
    let hx = client.create_from_slice(f32::as_bytes(x));
    let hb = client.create_from_slice(f32::as_bytes(bias));
    let ho = client.empty(rows * cols * 4);
    launch::bias_gelu(client, &hx, &hb, &ho, rows, cols).unwrap();
    let got = read(client, ho);
    let want = reference::bias_gelu_f64(x, bias, rows, cols);
    let (w, i) = worst(&got, &want, erf::GELU_RTOL, erf::GELU_ATOL);
    let vector = geometry::vector_size(cols);
    eprintln!(
        "bias_gelu {rows}x{cols} (vector {vector}): worst scaled err {w:.3} at {i} (got {} want {})",
        got[i], want[i]
    );
    assert!(
        w <= 1.0,
        "bias_gelu {rows}x{cols}: worst scaled error {w} at {i}: got {} want {}",
        got[i],
        want[i]
    );
}

fn run_bias_gelu(client: &ComputeClient<WgpuRuntime>, rows: usize, cols: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let x = rng.vec(rows * cols, -6.0, 6.0);
    let bias = rng.vec(cols, -1.0, 1.0);
    check_bias_gelu(client, &x, &bias, rows, cols);
}

fn run_layernorm(client: &ComputeClient<WgpuRuntime>, rows: usize, cols: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    // Non-zero mean (≈ 4) and spread (≈ 1.15) per row, to exercise the two-pass variance.
    let mut x = rng.vec(rows * cols, 2.0, 6.0);
    if (3..=4).contains(&cols) {
        // Three or four random values can nearly coincide; such a row is ill-conditioned in
        // float32 (rounding of x - mean, ~2^-24 * 4, is divided by a tiny std). Pin two of them
        // apart so the row's std is >= 1.4 and the comparison tests the kernel, not the data.
        for r in 0..rows {
            x[r * cols] = 2.0;
            x[r * cols + 1] = 6.0;
        }
    }
    let weight = rng.vec(cols, 0.5, 1.5);
    let bias = rng.vec(cols, -1.0, 1.0);
    let hx = client.create_from_slice(f32::as_bytes(&x));
    let hw = client.create_from_slice(f32::as_bytes(&weight));
    let hb = client.create_from_slice(f32::as_bytes(&bias));
    let ho = client.empty(rows * cols * 4);
    launch::layernorm(client, &hx, &hw, &hb, &ho, rows, cols, LAYERNORM_EPS).unwrap();
    let got = read(client, ho);
    let want = reference::layernorm_f64(&x, &weight, &bias, rows, cols, LAYERNORM_EPS as f64);
    // Outputs are O(1): relative 1e-5 with a 1e-5 floor for values near 0.
    let (w, i) = worst(&got, &want, 1e-5, 1e-5);
    let block = launch::layernorm_block(client, cols).unwrap();
    let vector = geometry::vector_size(cols);
    eprintln!(
        "layernorm {rows}x{cols} (block {block}, vector {vector}): worst scaled err {w:.3} at {i}"
    );
    assert!(
        w <= 1.0,
        "layernorm {rows}x{cols}: worst scaled error {w} at {i}: got {} want {}",
        got[i],
        want[i]
    );
}

#[test]
fn kernels_on_lavapipe() {
    let Some(client) = client() else { return };
    eprintln!(
        "wgpu adapter: max units/cube {}, max cube count {:?}, plane size {}..{}, alignment {}",
        client.properties().hardware.max_units_per_cube,
        client.properties().hardware.max_cube_count,
        client.properties().hardware.plane_size_min,
        client.properties().hardware.plane_size_max,
        client.properties().memory.alignment,
    );
    // The float4 kernels read 16-byte vectors: every buffer must start on such a boundary.
    let alignment = client.properties().memory.alignment;
    assert_eq!(
        alignment % 16,
        0,
        "CubeCL aligns buffers to {alignment} bytes"
    );

    // bias_gelu, float4 kernel (cols % 4 == 0): vector columns not a multiple of the 256-unit
    // cube, a single vector a row.
    run_bias_gelu(&client, 37, 1000, 1);
    run_bias_gelu(&client, 5, 4, 13);
    run_bias_gelu(&client, 3, 1028, 14);
    // bias_gelu, scalar fallback (cols % 4 != 0).
    run_bias_gelu(&client, 3, 7, 2);
    run_bias_gelu(&client, 1, 1, 3);
    run_bias_gelu(&client, 129, 771, 4);

    // layernorm, float4 kernel: vectors a row below, not a multiple of, and above the cube size.
    run_layernorm(&client, 19, 1000, 5);
    run_layernorm(&client, 33, 768, 8);
    run_layernorm(&client, 4, 4096, 15);
    run_layernorm(&client, 3, 4100, 16);
    run_layernorm(&client, 6, 4, 17);
    // layernorm, scalar fallback.
    run_layernorm(&client, 7, 5, 6);
    run_layernorm(&client, 4, 4099, 7);
    run_layernorm(&client, 2, 1, 9);

    // More rows than one grid row holds (65535): the cube count wraps into y, and the 65533
    // surplus cubes must not write.
    run_layernorm(&client, 65_537, 3, 10);
    run_layernorm(&client, 65_537, 4, 18);
    run_bias_gelu(&client, 65_537, 257, 11);
    run_bias_gelu(&client, 65_537, 256, 19);
    // More rows than the y cap times ROWS_PER_UNIT: units stride over several rows each.
    run_bias_gelu(&client, 300_001, 3, 12);
    run_bias_gelu(&client, 300_001, 4, 20);
}

/// `one_plus_erf` evaluates both polynomials and selects one by |v / sqrt 2| > ERF_SPLIT. Each
/// polynomial is accurate only on its own side: with the two swapped, v = ±2 is off by about 65
/// times the tolerance, |v| >= 3 by 25 000 and more, v near 0 by 2 (float32 model of the kernel).
/// So gelu over v in [-8, 8) (both signs of both sides) plus the floats around the split itself
/// must match the float64 reference, through the float4 kernel and the scalar one.
#[test]
fn gelu_selects_the_polynomial_of_each_side_of_the_split() {
    let Some(client) = client() else { return };
    let split = erf::ERF_SPLIT * core::f32::consts::SQRT_2;
    let mut v: Vec<f32> = (-2048..2048).map(|k| k as f32 / 256.0).collect();
    for side in [split, -split] {
        let mut near = f32::from_bits(side.to_bits() - 32);
        for _ in 0..64 {
            v.push(near);
            near = f32::from_bits(near.to_bits() + 1);
        }
    }
    let crossing = |v: &f32| (v * core::f32::consts::FRAC_1_SQRT_2).abs() > erf::ERF_SPLIT;
    assert!(v.iter().any(crossing) && !v.iter().all(crossing));
    let n = v.len(); // 4224 = 16 x 264: whole float4 rows
    check_bias_gelu(&client, &v, &[0.0; 264], 16, 264);
    check_bias_gelu(&client, &v, &[0.0; 1], n, 1);
}

#[test]
fn launchers_reject_bad_lengths() {
    let Some(client) = client() else { return };
    let h3 = client.empty(3 * 4);
    let h6 = client.empty(6 * 4);
    assert!(launch::bias_gelu(&client, &h6, &h3, &h6, 2, 3).is_ok());
    assert!(launch::bias_gelu(&client, &h6, &h6, &h6, 2, 3).is_err());
    assert!(launch::bias_gelu(&client, &h3, &h3, &h6, 2, 3).is_err());
    assert!(launch::layernorm(&client, &h6, &h3, &h3, &h6, 2, 3, 1e-5).is_ok());
    assert!(launch::layernorm(&client, &h6, &h6, &h3, &h6, 2, 3, 1e-5).is_err());
    assert!(launch::layernorm(&client, &h6, &h3, &h3, &h6, 2, 3, -1.0).is_err());
    cubecl::future::block_on(client.sync()).expect("sync");
}

/// ‖got − want‖ / ‖want‖ (Frobenius), after checking every output is finite (outputs start as
/// NaN, so an element no unit wrote fails here).
fn relative_error(got: &[f32], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(g.is_finite(), "non-finite output {g} at {i}");
        diff += (g as f64 - w).powi(2);
        norm += w * w;
    }
    (diff / norm.max(f64::MIN_POSITIVE)).sqrt()
}

/// A buffer of `n` NaNs: what a kernel leaves unwritten stays non-finite.
fn poisoned(client: &ComputeClient<WgpuRuntime>, n: usize) -> cubecl::server::Handle {
    client.create_from_slice(f32::as_bytes(&vec![f32::NAN; n]))
}

/// FP32 results of these sizes against float64: a wrong index or a lost term is off by far more.
const FP32_RELATIVE: f64 = 1e-6;

fn run_matmul(
    client: &ComputeClient<WgpuRuntime>,
    m: usize,
    n: usize,
    k: usize,
    tile: u32,
    seed: u64,
) {
    let mut rng = Rng::new(seed);
    let a = rng.vec(m * k, -1.0, 1.0);
    let b = rng.vec(k * n, -1.0, 1.0);
    let (ha, hb) = (
        client.create_from_slice(f32::as_bytes(&a)),
        client.create_from_slice(f32::as_bytes(&b)),
    );
    let hc = poisoned(client, m * n);
    launch::matmul(client, &ha, &hb, &hc, m, n, k, tile).unwrap();
    let err = relative_error(&read(client, hc), &reference::matmul_f64(&a, &b, m, n, k));
    eprintln!("matmul {m}x{n}x{k} (tile {tile}): relative error {err:.2e}");
    assert!(
        err <= FP32_RELATIVE,
        "matmul {m}x{n}x{k} tile {tile}: relative error {err:.2e}"
    );
}

#[test]
fn matmul_on_lavapipe() {
    let Some(client) = client() else { return };
    for tile in mage_cubecl::matmul::TILES {
        run_matmul(&client, 1, 1, 1, tile, 1);
        run_matmul(&client, 37, 29, 41, tile, 2); // tails in m, n and k
        run_matmul(&client, 130, 260, 9, tile, 3); // more than one tile each way, one k slice + 1
        run_matmul(&client, 128, 128, 64, tile, 4); // whole tiles
    }
}

fn run_triangle(
    client: &ComputeClient<WgpuRuntime>,
    batch: usize,
    n: usize,
    c: usize,
    outgoing: bool,
    tile: u32,
    seed: u64,
) {
    let mut rng = Rng::new(seed);
    let len = batch * n * n * c;
    let a = rng.vec(len, -1.0, 1.0);
    let b = rng.vec(len, -1.0, 1.0);
    let (ha, hb) = (
        client.create_from_slice(f32::as_bytes(&a)),
        client.create_from_slice(f32::as_bytes(&b)),
    );
    let ho = poisoned(client, len);
    if let Err(error) = launch::triangle(client, &ha, &hb, &ho, batch, n, c, outgoing, tile) {
        // lavapipe has 32 KiB a workgroup; the 64-tile kernel (native's tiling) takes 34 KiB. It is
        // the same code as the 32-tile one but for the comptime tile, and is checked on the H200.
        let limit = client.properties().hardware.max_shared_memory_size;
        assert!(mage_cubecl::triangle::shared_bytes(tile) > limit, "{error}");
        eprintln!("SKIPPED triangle tile {tile} here: {error}");
        return;
    }
    let err = relative_error(
        &read(client, ho),
        &reference::triangle_f64(&a, &b, batch, n, c, outgoing),
    );
    eprintln!(
        "triangle B{batch} N{n} C{c} outgoing={outgoing} (tile {tile}): relative error {err:.2e}"
    );
    assert!(
        err <= FP32_RELATIVE,
        "triangle B{batch} N{n} C{c} outgoing={outgoing} tile {tile}: {err:.2e}"
    );
}

#[test]
fn triangle_on_lavapipe() {
    let Some(client) = client() else { return };
    for tile in mage_cubecl::triangle::TILES {
        for outgoing in [true, false] {
            run_triangle(&client, 2, 37, 13, outgoing, tile, 1); // tails in N and C, two batches
            run_triangle(&client, 1, 64, 8, outgoing, tile, 2); // whole tiles
            run_triangle(&client, 1, 5, 3, outgoing, tile, 3);
        }
    }
}

/// A CSR graph of `nodes` rows over `sources` source rows: degrees 0 to 20 (every seventh row
/// has none), and row 3 a hub of 700 edges.
fn graph(rng: &mut Rng, nodes: usize, sources: usize) -> (Vec<usize>, Vec<usize>) {
    let mut rowptr = vec![0usize];
    let mut col = Vec::new();
    for r in 0..nodes {
        let degree = match r {
            3 => 700,
            _ if r % 7 == 0 => 0,
            _ => rng.below(21),
        };
        col.extend((0..degree).map(|_| rng.below(sources)));
        rowptr.push(col.len());
    }
    (rowptr, col)
}

fn run_neighbor_agg<I: Int + CubeElement + TryFrom<usize>>(
    client: &ComputeClient<WgpuRuntime>,
    nodes: usize,
    features: usize,
    long_row: u32,
    mean: bool,
    seed: u64,
) where
    <I as TryFrom<usize>>::Error: core::fmt::Debug,
{
    let mut rng = Rng::new(seed);
    let sources = 257;
    let (rowptr, col) = graph(&mut rng, nodes, sources);
    let x = rng.vec(sources * features, -1.0, 1.0);
    let indices = |v: &[usize]| -> Vec<I> { v.iter().map(|&i| I::try_from(i).unwrap()).collect() };
    let hr = client.create_from_slice(I::as_bytes(&indices(&rowptr)));
    let hc = client.create_from_slice(I::as_bytes(&indices(&col)));
    let hx = client.create_from_slice(f32::as_bytes(&x));
    let ho = poisoned(client, nodes * features);
    launch::neighbor_agg::<WgpuRuntime, I>(
        client,
        &hr,
        &hc,
        &hx,
        &ho,
        nodes,
        col.len(),
        sources,
        features,
        long_row,
        mean,
    )
    .unwrap();
    let got = read(client, ho);
    let err = relative_error(
        &got,
        &reference::neighbor_agg_f64(&rowptr, &col, &x, features, mean),
    );
    let index = core::any::type_name::<I>();
    let what =
        format!("neighbor_agg {nodes} nodes F{features} long_row {long_row} mean={mean} {index}");
    eprintln!("{what}: relative error {err:.2e}");
    assert!(err <= FP32_RELATIVE, "{what}: {err:.2e}");
    // Rows without edges are 0 in both reductions.
    assert!(
        got[..features].iter().all(|&v| v == 0.0),
        "row 0 has no edges"
    );
}

#[test]
fn neighbor_agg_on_lavapipe() {
    let Some(client) = client() else { return };
    // Rows over 10 edges (about half of them) and the hub of 700 by the whole cube, or every row by
    // its group.
    for long_row in [10, neighbor_agg::LONG_ROW, neighbor_agg::NO_LONG_ROWS] {
        for mean in [false, true] {
            // F 7 and 1: scalar loads; 16: float4s, a group of 4 units a row; 264: 66 float4s, a
            // group of 32 that takes each row's features in three rounds.
            for features in [7, 1, 16, 264] {
                run_neighbor_agg::<i32>(&client, 300, features, long_row, mean, features as u64);
            }
            run_neighbor_agg::<i64>(&client, 300, 16, long_row, mean, 6); // int64 indices
            run_neighbor_agg::<i64>(&client, 300, 7, long_row, mean, 7);
        }
    }
    // More rows than one grid row of cubes holds (65535 × 64 at F 16): the count wraps into y.
    for mean in [false, true] {
        run_neighbor_agg::<i32>(&client, 600_000, 16, neighbor_agg::LONG_ROW, mean, 5);
    }
}

fn run_softmax(
    client: &ComputeClient<WgpuRuntime>,
    rows: usize,
    cols: usize,
    offset: f32,
    seed: u64,
) {
    let mut rng = Rng::new(seed);
    let x = rng.vec(rows * cols, offset - 4.0, offset + 4.0);
    let hx = client.create_from_slice(f32::as_bytes(&x));
    let ho = poisoned(client, rows * cols);
    launch::softmax(client, &hx, &ho, rows, cols).unwrap();
    let err = relative_error(&read(client, ho), &reference::softmax_f64(&x, rows, cols));
    eprintln!("softmax {rows}x{cols} around {offset}: relative error {err:.2e}");
    assert!(
        err <= FP32_RELATIVE,
        "softmax {rows}x{cols} around {offset}: {err:.2e}"
    );
}

#[test]
fn softmax_on_lavapipe() {
    let Some(client) = client() else { return };
    run_softmax(&client, 7, 33, 0.0, 1); // fewer columns than units
    run_softmax(&client, 1, 128, 0.0, 2);
    run_softmax(&client, 2, 16_411, 0.0, 3);
    run_softmax(&client, 3, 1, 0.0, 4);
    run_softmax(&client, 5, 1000, 1e4, 5); // large mean: exp(x − max) must not overflow
    run_softmax(&client, 65_537, 3, 0.0, 6); // the cube count wraps into y
}
