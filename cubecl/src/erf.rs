//! float32 erf approximation shared by the kernels (as `comptime!` constants) and a CPU copy
//! that the unit tests compare against libm's (glibc) double-precision `erf`.
//!
//! The coefficients are the well-known single-precision minimax erff by N. Juffa (the
//! structure CUDA's own erff uses): |a| <= 0.927734375 (475/512): a + a*P(a^2);
//! above: sign(a) * (1 - exp(Q(|a|))). Measured here: max |err| < 6e-8 over [-10, 10].

/// Branch point between the two approximations (475/512).
pub const ERF_SPLIT: f32 = 0.927734375;

/// Odd polynomial for |a| <= ERF_SPLIT, Horner order in s = a*a; result = fma(r, a, a).
pub const ERF_SMALL: [f32; 6] = [
    -5.967_617_03e-4,
    4.991_194_23e-3,
    -2.676_813_49e-2,
    1.128_199_25e-1,
    -3.761_253_36e-1,
    1.283_791_66e-1,
];

/// Coefficients for |a| > ERF_SPLIT, used as in [`erf_f32`].
pub const ERF_LARGE: [f32; 7] = [
    -1.728_534_70e-5,
    3.831_971_26e-4,
    -3.883_964_38e-3,
    2.425_462_19e-2,
    -1.067_778_77e-1,
    -6.348_466_87e-1,
    -1.287_175_12e-1,
];

/// exp(Q(|a|)) for |a| > ERF_SPLIT, where erf(a) = sign(a) * (1 - exp(Q(|a|))).
fn large_exp(t: f32, s: f32) -> f32 {
    let mut r = ERF_LARGE[0].mul_add(t, ERF_LARGE[1]);
    let u = ERF_LARGE[2].mul_add(t, ERF_LARGE[3]);
    r = r.mul_add(s, u);
    r = r.mul_add(t, ERF_LARGE[4]);
    r = r.mul_add(t, ERF_LARGE[5]);
    r = r.mul_add(t, ERF_LARGE[6]);
    r.mul_add(t, -t).exp()
}

/// erf(a) for |a| <= ERF_SPLIT: a + a * P(a^2).
fn small_erf(a: f32, s: f32) -> f32 {
    let r = ERF_SMALL[1..]
        .iter()
        .fold(ERF_SMALL[0], |r, &c| r.mul_add(s, c));
    r.mul_add(a, a)
}

/// erf with the kernel's coefficients and operation order (fma = mul_add): the approximation the
/// kernel's `one_plus_erf` is built on, checked here against libm.
pub fn erf_f32(a: f32) -> f32 {
    let (t, s) = (a.abs(), a * a);
    if t > ERF_SPLIT {
        let e = 1.0 - large_exp(t, s);
        if a < 0.0 {
            -e
        } else {
            e
        }
    } else {
        small_erf(a, s)
    }
}

/// `1 + erf(a)` without the cancellation of `1.0 + erf_f32(a)` for a << 0: in the |a| > split
/// branch `erf = sign(a) * (1 - e)` with `e = exp(Q(|a|))`, so `1 + erf` is `e` (a < 0) or
/// `2 - e` (a > 0). CPU copy of the kernel's `one_plus_erf`.
pub fn one_plus_erf_f32(a: f32) -> f32 {
    let (t, s) = (a.abs(), a * a);
    if t > ERF_SPLIT {
        let e = large_exp(t, s);
        if a < 0.0 {
            e
        } else {
            2.0 - e
        }
    } else {
        1.0 + small_erf(a, s)
    }
}

/// gelu(v) = 0.5 * v * (1 + erf(v / sqrt(2))), CPU copy of the kernel's `gelu_erf`.
pub fn gelu_f32(v: f32) -> f32 {
    0.5 * v * one_plus_erf_f32(v * core::f32::consts::FRAC_1_SQRT_2)
}

/// The test tolerance used for gelu against a float64 reference: |err| <= RTOL*|want| + ATOL.
/// Relative-only fails in the negative tail, where gelu underflows toward 0 and any float32
/// erf (libm's erff included) has an absolute, not relative, error.
pub const GELU_RTOL: f64 = 1e-5;
pub const GELU_ATOL: f64 = 1e-7;

#[cfg(test)]
mod tests {
    use super::*;

    extern "C" {
        // glibc libm (std already links it on linux-gnu).
        #[link_name = "erf"]
        fn libm_erf(x: f64) -> f64;
    }

    fn reference(x: f32) -> f64 {
        unsafe { libm_erf(x as f64) }
    }

    /// Walks every `step`-th f32 in [-lim, lim] (both signs, subnormals included).
    fn scan(step: u32, lim: f32) -> (f64, f32) {
        let mut worst = (0.0f64, 0.0f32);
        let mut bits = 0u32;
        loop {
            let x = f32::from_bits(bits);
            if x > lim {
                break;
            }
            for v in [x, -x] {
                let err = (erf_f32(v) as f64 - reference(v)).abs();
                if err > worst.0 {
                    worst = (err, v);
                }
            }
            bits += step;
        }
        worst
    }

    #[test]
    fn erf_max_abs_error_below_2e7() {
        // ~0.5M samples per sign, covering tiny, split point, tail and saturation.
        let (err, at) = scan(2003, 12.0);
        assert!(err < 2e-7, "max |erf_f32 - libm erf| = {err:e} at {at}");
        // Dense around the branch point.
        let mut x = 0.90f32;
        while x < 0.95 {
            let err = (erf_f32(x) as f64 - reference(x)).abs();
            assert!(err < 2e-7, "err {err:e} at {x}");
            x = f32::from_bits(x.to_bits() + 1);
        }
    }

    #[test]
    fn erf_special_values() {
        assert_eq!(erf_f32(0.0), 0.0);
        assert_eq!(erf_f32(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(erf_f32(10.0), 1.0);
        assert_eq!(erf_f32(-10.0), -1.0);
        assert_eq!(erf_f32(f32::INFINITY), 1.0);
        assert_eq!(erf_f32(f32::NEG_INFINITY), -1.0);
        assert!(erf_f32(f32::NAN).is_nan());
        // odd symmetry is exact by construction
        for x in [1e-20f32, 1e-3, 0.5, 0.927734375, 0.93, 2.0, 3.9] {
            assert_eq!(erf_f32(-x), -erf_f32(x));
        }
    }

    #[test]
    fn one_plus_erf_matches_libm() {
        let mut worst = (0.0f64, 0.0f32);
        let mut a = -9.0f32;
        while a <= 9.0 {
            let want = 1.0 + reference(a);
            let err = (one_plus_erf_f32(a) as f64 - want).abs();
            if err > worst.0 {
                worst = (err, a);
            }
            a += 1.0 / 4096.0;
        }
        assert!(worst.0 < 2.5e-7, "max abs err {:e} at {}", worst.0, worst.1);
    }

    #[test]
    fn gelu_matches_f64_formula() {
        // Uses only a quarter of the kernel test's tolerance on the CPU.
        let mut worst = (0.0f64, 0.0f32);
        let mut v = -16.0f32;
        while v <= 16.0 {
            let want = crate::reference::gelu_f64(v as f64);
            let got = gelu_f32(v) as f64;
            let scaled = (got - want).abs() / (GELU_RTOL * want.abs() + GELU_ATOL);
            if scaled > worst.0 {
                worst = (scaled, v);
            }
            v += 1.0 / 1024.0;
        }
        assert!(
            worst.0 <= 0.25,
            "worst scaled error {} at {}",
            worst.0,
            worst.1
        );
    }
}
