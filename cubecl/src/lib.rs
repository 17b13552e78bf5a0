//! CubeCL kernels for Mage: `bias_gelu` and `layernorm` (FP32, row-major, contiguous).
//!
//! * [`kernels`]: the `#[cube]` kernels.
//! * [`launch`]: runtime-generic host launchers (validated, any CubeCL `Runtime`: CUDA on the
//!   GPU machine, wgpu/lavapipe in `cargo test` here).
//! * [`cuda_source`]: the CUDA C++ CubeCL generates for each kernel, without a GPU.
//! * [`generated`]: that source as the files Mage launches (`python/mage/ops/<op>/generated/`,
//!   with a manifest), written by `cargo run --release --bin generate-cuda` and checked fresh by
//!   `cargo test`.
//! * [`erf`], [`geometry`], [`reference`]: GPU-free pieces with unit tests.

pub mod cuda_source;
pub mod erf;
pub mod generated;
pub mod geometry;
pub mod kernels;
pub mod launch;
pub mod matmul;
pub mod matmul_tf32;
pub mod neighbor_agg;
pub mod reference;
pub mod softmax;
pub mod triangle;

/// LayerNorm epsilon used by Mage.
pub const LAYERNORM_EPS: f32 = 1e-5;

/// Largest `rows * cols` accepted: kernels index with u32 (`AddressType::U32`) and compute
/// `cube * block + unit`, which must not wrap.
pub const MAX_ELEMENTS: usize = i32::MAX as usize;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    Invalid(String),
    Compile(String),
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::Invalid(m) => write!(f, "invalid argument: {m}"),
            Error::Compile(m) => write!(f, "kernel compilation failed: {m}"),
        }
    }
}

impl std::error::Error for Error {}

/// Shape checks shared by both kernels. Lengths are element counts (f32).
pub fn check_2d(rows: usize, cols: usize) -> Result<usize, Error> {
    if rows == 0 || cols == 0 {
        return Err(Error::Invalid(format!("empty shape {rows}x{cols}")));
    }
    let n = rows
        .checked_mul(cols)
        .filter(|&n| n <= MAX_ELEMENTS)
        .ok_or_else(|| Error::Invalid(format!("{rows}x{cols} exceeds {MAX_ELEMENTS} elements")))?;
    Ok(n)
}

pub(crate) fn check_len(name: &str, got: usize, want: usize) -> Result<(), Error> {
    if got != want {
        return Err(Error::Invalid(format!(
            "{name} has {got} elements, expected {want}"
        )));
    }
    Ok(())
}

/// bias_gelu: x and out are rows*cols, bias is cols.
pub fn check_bias_gelu(
    rows: usize,
    cols: usize,
    x_len: usize,
    bias_len: usize,
    out_len: usize,
) -> Result<usize, Error> {
    let n = check_2d(rows, cols)?;
    check_len("x", x_len, n)?;
    check_len("bias", bias_len, cols)?;
    check_len("out", out_len, n)?;
    Ok(n)
}

/// layernorm: x and out are rows*cols, weight and bias are cols, eps finite and > 0.
pub fn check_layernorm(
    rows: usize,
    cols: usize,
    x_len: usize,
    weight_len: usize,
    bias_len: usize,
    out_len: usize,
    eps: f32,
) -> Result<usize, Error> {
    let n = check_2d(rows, cols)?;
    check_len("x", x_len, n)?;
    check_len("weight", weight_len, cols)?;
    check_len("bias", bias_len, cols)?;
    check_len("out", out_len, n)?;
    if !(eps.is_finite() && eps > 0.0) {
        return Err(Error::Invalid(format!(
            "eps must be finite and > 0, got {eps}"
        )));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_accepts_good_shapes() {
        assert_eq!(check_bias_gelu(3, 5, 15, 5, 15), Ok(15));
        assert_eq!(check_layernorm(2, 7, 14, 7, 7, 14, 1e-5), Ok(14));
    }

    #[test]
    fn validation_rejects_bad_shapes() {
        assert!(check_bias_gelu(0, 5, 0, 5, 0).is_err());
        assert!(check_bias_gelu(3, 0, 0, 0, 0).is_err());
        assert!(check_bias_gelu(3, 5, 14, 5, 15).is_err());
        assert!(check_bias_gelu(3, 5, 15, 3, 15).is_err());
        assert!(check_bias_gelu(3, 5, 15, 5, 16).is_err());
        assert!(check_bias_gelu(1 << 16, 1 << 16, 1 << 32, 1 << 16, 1 << 32).is_err());
        assert!(check_bias_gelu(usize::MAX, 2, 0, 2, 0).is_err());
        assert!(check_layernorm(2, 7, 14, 6, 7, 14, 1e-5).is_err());
        assert!(check_layernorm(2, 7, 14, 7, 8, 14, 1e-5).is_err());
        assert!(check_layernorm(2, 7, 14, 7, 7, 14, 0.0).is_err());
        assert!(check_layernorm(2, 7, 14, 7, 7, 14, f32::NAN).is_err());
    }
}
