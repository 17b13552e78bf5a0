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

/// c = a · b in float64; a: m×k, b: k×n, row-major.
pub fn matmul_f64(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut c = vec![0.0f64; m * n];
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p] as f64;
            for j in 0..n {
                c[i * n + j] += x * b[p * n + j] as f64;
            }
        }
    }
    c
}

/// Triangle contraction in float64 (batch × n × n × channels): outgoing
/// `Σ_k a[i, k, c] b[j, k, c]`, incoming `Σ_k a[k, i, c] b[k, j, c]`.
pub fn triangle_f64(
    a: &[f32],
    b: &[f32],
    batch: usize,
    n: usize,
    channels: usize,
    outgoing: bool,
) -> Vec<f64> {
    let at = |z: usize, p: usize, q: usize, c: usize| ((z * n + p) * n + q) * channels + c;
    let mut out = vec![0.0f64; batch * n * n * channels];
    for z in 0..batch {
        for i in 0..n {
            for j in 0..n {
                for c in 0..channels {
                    let mut s = 0.0f64;
                    for k in 0..n {
                        let (x, y) = if outgoing {
                            (a[at(z, i, k, c)], b[at(z, j, k, c)])
                        } else {
                            (a[at(z, k, i, c)], b[at(z, k, j, c)])
                        };
                        s += x as f64 * y as f64;
                    }
                    out[at(z, i, j, c)] = s;
                }
            }
        }
    }
    out
}

/// Sum (or mean, 0 for a row without edges) of x's rows over a CSR graph, in float64.
pub fn neighbor_agg_f64(
    rowptr: &[usize],
    col: &[usize],
    x: &[f32],
    features: usize,
    mean: bool,
) -> Vec<f64> {
    let nodes = rowptr.len() - 1;
    let mut out = vec![0.0f64; nodes * features];
    for r in 0..nodes {
        let (start, end) = (rowptr[r], rowptr[r + 1]);
        for &s in &col[start..end] {
            for f in 0..features {
                out[r * features + f] += x[s * features + f] as f64;
            }
        }
        if mean && end > start {
            for v in &mut out[r * features..(r + 1) * features] {
                *v /= (end - start) as f64;
            }
        }
    }
    out
}

/// Row-wise softmax in float64.
pub fn softmax_f64(x: &[f32], rows: usize, cols: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let total: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        out.extend(row.iter().map(|&v| (v as f64 - m).exp() / total));
    }
    out
}

impl Rng {
    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_f32(0.0, 1.0) as f64 * n as f64) as usize).min(n - 1)
    }
}
