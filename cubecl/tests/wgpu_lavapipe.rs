//! Runs both kernels through CubeCL's wgpu runtime on Mesa's lavapipe (software Vulkan, CPU)
//! and checks them against float64 CPU references.
//!
//! Needs `mesa-vulkan-drivers` + `libvulkan1`. The ICD is picked with VK_ICD_FILENAMES
//! (defaulted below to Debian's lavapipe json when unset).

use cubecl::prelude::*;
use cubecl_wgpu::{WgpuDevice, WgpuRuntime};
use mage_cubecl::{erf, geometry, launch, reference, reference::Rng, LAYERNORM_EPS};

const LVP_ICD: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

/// The lavapipe client, or None (said on stderr) where no Vulkan driver is installed: a developer
/// machine without mesa-vulkan-drivers. Under CI=true (.ci/run installs it) a missing driver fails.
fn client() -> Option<ComputeClient<WgpuRuntime>> {
    if std::env::var_os("VK_ICD_FILENAMES").is_none() {
        if !std::path::Path::new(LVP_ICD).exists() {
            let why = format!("no Vulkan driver ({LVP_ICD} is missing: apt-get install mesa-vulkan-drivers libvulkan1)");
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}, and CI=true: CI must provide it");
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
