//! float64 CPU references used by the tests.

extern "C" {
    #[link_name = "erf"]
    fn libm_erf(x: f64) -> f64;
    #[link_name = "erfc"]
    fn libm_erfc(x: f64) -> f64;
}

/// libm (glibc) double-precision erf.
pub fn erf_f64(x: f64) -> f64 {
    unsafe { libm_erf(x) }
}

/// gelu(v) = 0.5 v (1 + erf(v/sqrt 2)) = 0.5 v erfc(-v/sqrt 2), in float64.
pub fn gelu_f64(v: f64) -> f64 {
    0.5 * v * unsafe { libm_erfc(-v * core::f64::consts::FRAC_1_SQRT_2) }
}

/// out[r, c] = gelu(x[r, c] + bias[c]) in float64.
pub fn bias_gelu_f64(x: &[f32], bias: &[f32], rows: usize, cols: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        for c in 0..cols {
            out.push(gelu_f64(x[r * cols + c] as f64 + bias[c] as f64));
        }
    }
    out
}

/// Two-pass layernorm in float64.
pub fn layernorm_f64(
    x: &[f32],
    weight: &[f32],
    bias: &[f32],
    rows: usize,
    cols: usize,
    eps: f64,
) -> Vec<f64> {
    let mut out = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let mean = row.iter().map(|&v| v as f64).sum::<f64>() / cols as f64;
        let var = row.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / cols as f64;
        let rstd = 1.0 / (var + eps).sqrt();
        for c in 0..cols {
            out.push((row[c] as f64 - mean) * rstd * weight[c] as f64 + bias[c] as f64);
        }
    }
    out
}

/// Small deterministic PRNG (xorshift64*), uniform in [lo, hi).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }
    pub fn next_f32(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let v = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        let u = (v >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
    pub fn vec(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.next_f32(lo, hi)).collect()
    }
}
