//! The exact (ε, δ) privacy profile of μ-Gaussian DP, its inverse, and the classical and analytic
//! calibrations of the Gaussian mechanism (`docs/proofs/scalar_mechanisms.md` §2).
//!
//! Adding N(0, σ²I) noise to a query of ℓ₂ sensitivity Δ is μ-GDP with μ = Δ/σ, and a μ-GDP mechanism is
//! (ε, δ)-DP exactly for δ ≥ δ(ε; μ) with (Balle & Wang 2018, Thm 8; Dong, Roth & Su 2022, Cor. 2.13)
//!
//! ```text
//! δ(ε; μ) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2).
//! ```
//!
//! **Numerics.** With a = ε/μ − μ/2, b = ε/μ + μ/2 and the Mills ratio R(z) = Φ(−z)/φ(z), the identity
//! b²/2 − a²/2 = ε gives e^ε Φ(−b) = φ(a)R(b) exactly, so
//!
//! ```text
//! δ = Φ(−a) − φ(a)·R(b)            (a ≤ 0),        δ = φ(a)·(R(a) − R(b))     (a > 0),
//! ```
//!
//! neither of which over- or underflows before δ itself does (the textbook form computes e^ε·Φ(−b) as
//! ∞·0 for ε > 709, and loses every digit to cancellation long before). When the subtracted term is more
//! than half of the first, i.e. when the difference would cancel, δ is instead integrated with all terms
//! positive: δ = ∫₀^∞ φ(a + t)(1 − e^{−μt}) dt (the hockey-stick integral, substituted at its threshold).
//!
//! **Conservative rounding.** [`gdp_delta`] returns the computed value times (1 + [`DELTA_RELATIVE_MARGIN`] +
//! 32u(1 + b²)), u = 2⁻⁵², plus [`f64::MIN_POSITIVE`]: the 10⁻¹² covers the Mills ratio (own series and
//! continued fraction, within 2·10⁻¹⁵ of 40-digit values) and the quadrature (checked against an independent
//! quadrature of the hockey-stick divergence in `tests/scalar_mechanisms.rs`), the b² term the rounding of a
//! and b, which the exponent e^{−a²/2} amplifies by up to a·b, and the absolute term underflow.
//! [`gdp_epsilon`] and [`analytic_gaussian_sigma`] search this upper bound with bisection against
//! δ·(1 − [`INVERSION_SLACK`]) and return the safe end of the bracket, so their ε and σ are never below the
//! exact ones.

use crate::analysis::quadrature::integrate_peaked;
use crate::error::Param;
use crate::error::{Error, Fallible, check_level, check_positive};
use crate::numerics::rounding::div_up;

/// Relative margin added to every δ returned by [`gdp_delta`] (beside the 32u(1 + b²) rounding term).
pub const DELTA_RELATIVE_MARGIN: f64 = 1e-12;

/// Inversions ([`gdp_epsilon`], [`analytic_gaussian_sigma`]) require the conservative δ to be at most
/// δ·(1 − `INVERSION_SLACK`), so that round-off in δ (≈ 10⁻¹⁵ relative) can never put the round trip
/// ε(δ(ε₀)) below ε₀.
pub const INVERSION_SLACK: f64 = 1e-13;

/// Relative width at which the bisections stop.
const BISECTION_REL_TOL: f64 = 1e-15;

/// √(π/2).
const SQRT_HALF_PI: f64 = 1.253_314_137_315_500_3;
/// 1/√(2π).
const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// e^{−x²/2} with x² split exactly into h + l (fma), so that the exponent's own rounding is not amplified.
fn exp_half_square(x: f64) -> f64 {
    let h = x * x;
    let l = x.mul_add(x, -h);
    (-0.5 * h).exp() * (1.0 - 0.5 * l)
}

/// φ(x), the standard normal density.
fn normal_pdf(x: f64) -> f64 {
    FRAC_1_SQRT_2PI * exp_half_square(x)
}

/// The Mills ratio R(z) = Φ(−z)/φ(z) for z ≥ 0, to about 10⁻¹⁵ relative (checked against 40-digit values in
/// the tests; `statrs`'s erfc, good to only about 10⁻¹⁰ relative, is too coarse for a certified δ):
///
/// - z < 0.8: R(z) = √(π/2)e^{z²/2} − Σ_{k≥0} z^{2k+1}/(2k + 1)!! (from Φ(z) − ½ = φ(z)Σ z^{2k+1}/(2k + 1)!!;
///   the subtraction loses at most a factor 2.2);
/// - z ≥ 0.8: Laplace's continued fraction R(z) = 1/(z + 1/(z + 2/(z + 3/(z + …)))), evaluated backwards from
///   depth 600 (z < 2), 100 (z < 4) or 30, each beyond the depth where its truncation error is below 10⁻¹⁶.
fn mills_ratio(z: f64) -> f64 {
    if z < 0.8 {
        let h = z * z;
        let (mut term, mut sum, mut k) = (z, z, 0.0);
        while term > 1e-17 * sum {
            k += 1.0;
            term *= h / (2.0 * k + 1.0);
            sum += term;
        }
        SQRT_HALF_PI / exp_half_square(z) - sum
    } else {
        let depth = if z < 2.0 {
            600
        } else if z < 4.0 {
            100
        } else {
            30
        };
        let mut tail = 0.0;
        for k in (1..=depth).rev() {
            tail = k as f64 / (z + tail);
        }
        1.0 / (z + tail)
    }
}

/// Φ(z) for z ≤ 0 (the lower tail), to about 10⁻¹⁵ relative, and φ(z): for certified conversions elsewhere
/// in the crate (`privacy::accounting`).
pub(crate) fn normal_lower_tail_and_density(z: f64) -> (f64, f64) {
    let density = normal_pdf(z);
    (density * mills_ratio(-z), density)
}

/// δ(ε; μ) as computed (no margin), for μ > 0 and ε ≥ 0 finite; also returns b for the rounding margin.
fn profile(mu: f64, epsilon: f64) -> (f64, f64) {
    let ratio = epsilon / mu;
    let (a, b) = (ratio - 0.5 * mu, ratio + 0.5 * mu);
    if a.is_nan() || a >= 40.0 {
        // δ ≤ Φ(−a) < Φ(−40) < 10⁻³⁴⁸: below the absolute margin.
        return (0.0, b);
    }
    let value = if a <= 0.0 {
        let (first, second) = (1.0 - normal_pdf(a) * mills_ratio(-a), normal_pdf(a) * mills_ratio(b));
        if second <= 0.5 * first {
            first - second
        } else {
            // Here |a| < 1.2 (φ(a)R(b) > Φ(−a)/2 ≥ 1/4 forces φ(a) > 0.2), so unit panels resolve the peak.
            let f = |t: f64| normal_pdf(a + t) * -(-mu * t).exp_m1();
            integrate_peaked(&f, 40.0 - a, 1.0, 1e-15)
        }
    } else {
        let (ra, rb) = (mills_ratio(a), mills_ratio(b));
        if rb <= 0.5 * ra {
            normal_pdf(a) * (ra - rb)
        } else {
            // δ = φ(a)∫₀^∞ e^{−at − t²/2}(1 − e^{−μt})dt; the tail beyond a·t + t²/2 = 750 is below e^{−750}.
            let f = |t: f64| (-t * (a + 0.5 * t)).exp() * -(-mu * t).exp_m1();
            let end = (a * a + 1500.0).sqrt() - a;
            normal_pdf(a) * integrate_peaked(&f, end, 1.0 / (1.0 + a), 1e-15)
        }
    };
    // `f64::max` would turn a NaN into 0 (a claim of no privacy loss): keep it for the caller to refuse.
    (if value.is_nan() { value } else { value.max(0.0) }, b)
}

/// The conservative δ(ε; μ) for validated μ > 0, ε ≥ 0.
fn delta_upper(mu: f64, epsilon: f64) -> f64 {
    let (value, b) = profile(mu, epsilon);
    if value.is_nan() {
        // Not evaluable (μ far beyond any mechanism's): δ ≤ 1 is the only safe statement.
        return 1.0;
    }
    let margin = DELTA_RELATIVE_MARGIN + 32.0 * f64::EPSILON * (1.0 + b * b);
    (value * (1.0 + margin) + f64::MIN_POSITIVE).min(1.0)
}

/// A lower bound on the exact δ(ε; μ) for validated μ > 0, ε ≥ 0: the computed value less the margin that
/// [`gdp_delta`] adds (the margin bounds the computation's error in both directions), less the absolute
/// underflow term; 0 where the profile is not evaluable. For certificates that need δ_{G_μ}(ε) from below
/// (`analysis::riemannian_gdp`).
pub(crate) fn gdp_delta_lower(mu: f64, epsilon: f64) -> f64 {
    let (value, b) = profile(mu, epsilon);
    if value.is_nan() {
        return 0.0;
    }
    let margin = 2.0 * (DELTA_RELATIVE_MARGIN + 32.0 * f64::EPSILON * (1.0 + b * b));
    (value * (1.0 - margin) - f64::MIN_POSITIVE).max(0.0)
}

fn check_mu(mu: f64) -> Fallible<f64> {
    if mu.is_finite() && mu >= 0.0 {
        Ok(mu)
    } else {
        Err(Error::InvalidParameter { name: Param::Mu, value: mu, reason: "must be a finite number ≥ 0" })
    }
}

fn check_epsilon(epsilon: f64) -> Fallible<f64> {
    if epsilon.is_finite() && epsilon >= 0.0 {
        Ok(epsilon)
    } else {
        Err(Error::InvalidParameter { name: Param::Epsilon, value: epsilon, reason: "must be a finite number ≥ 0" })
    }
}

/// Bisection of a predicate that holds at exactly one end of [lo, hi] (at `hi` if `ok_at_hi`, else at `lo`;
/// both finite, lo < hi): returns the final bracket's end where `ok` holds, once the bracket is narrower than
/// 10⁻¹⁵ of `hi` or cannot be split in floating point. The predicate need not be monotone: the returned
/// point always satisfies it.
pub(crate) fn bisect(mut lo: f64, mut hi: f64, ok_at_hi: bool, ok: impl Fn(f64) -> bool) -> f64 {
    for _ in 0..2200 {
        let mid = lo + 0.5 * (hi - lo);
        if mid <= lo || mid >= hi || hi - lo <= BISECTION_REL_TOL * hi {
            break;
        }
        if ok(mid) == ok_at_hi {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    if ok_at_hi { hi } else { lo }
}

/// An upper bound on δ(ε; μ) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), the smallest δ for which a μ-GDP
/// mechanism (the Gaussian mechanism with μ = Δ/σ) is (ε, δ)-DP. Never below the exact value: see the
/// module documentation for the margin. μ = 0 (no information released) gives 0.
///
/// Errors: μ or ε negative, NaN or infinite.
pub fn gdp_delta(mu: f64, epsilon: f64) -> Fallible<f64> {
    let mu = check_mu(mu)?;
    let epsilon = check_epsilon(epsilon)?;
    if mu == 0.0 {
        return Ok(0.0);
    }
    Ok(delta_upper(mu, epsilon))
}

/// The ε at which a μ-GDP mechanism is (ε, δ)-DP: the smallest ε ≥ 0 with δ(ε; μ) ≤ δ, rounded up (the
/// upper end of a bisection on the conservative [`gdp_delta`], which is decreasing in ε). 0 when δ is at
/// least the total variation distance δ(0; μ) = 2Φ(μ/2) − 1.
///
/// Errors: μ negative or not finite; δ outside (0, 1); [`Error::NumericalLimit`] when no finite ε certifies
/// δ (δ below the absolute margin 2.2·10⁻³⁰⁸, or μ so large that the profile cannot be evaluated).
pub fn gdp_epsilon(mu: f64, delta: f64) -> Fallible<f64> {
    let mu = check_mu(mu)?;
    let delta = check_level(Param::Delta, delta)?;
    if mu == 0.0 {
        return Ok(0.0);
    }
    // At ε = μ²/2, δ = 1/2 − R(μ)/√(2π) ≥ 1/2 − 1/(μ√(2π)) > 1/4 for μ ≥ 3 (R the Mills ratio), and δ decreases
    // in ε: so δ < 1/4 needs ε > μ²/2, beyond the largest double once μ > √(2·f64::MAX). Said at once, rather
    // than after a thousand doublings that each exhaust the quadrature (found by fuzzing: ~1 s per call).
    if mu > f64::MAX.sqrt() * std::f64::consts::SQRT_2 && delta < 0.25 {
        return Err(unattainable_gdp(mu, delta));
    }
    epsilon_for_delta(delta, |e| delta_upper(mu, e)).ok_or_else(|| unattainable_gdp(mu, delta))
}

fn unattainable_gdp(mu: f64, delta: f64) -> Error {
    Error::NumericalLimit(format!(
        "no finite epsilon makes a {}-GDP mechanism (epsilon, {delta:e})-DP in double precision",
        crate::numerics::format::short(mu)
    ))
}

/// The smallest ε ≥ 0 (the safe end of a bisection) with `delta_at(ε) ≤ δ·(1 − INVERSION_SLACK)`, for an upper
/// bound `delta_at` on a privacy profile, which decreases in ε; `None` when no finite ε reaches δ.
pub(crate) fn epsilon_for_delta(delta: f64, delta_at: impl Fn(f64) -> f64) -> Option<f64> {
    let target = delta * (1.0 - INVERSION_SLACK);
    let ok = |e: f64| delta_at(e) <= target;
    if ok(0.0) {
        return Some(0.0);
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    while !ok(hi) {
        lo = hi;
        hi *= 2.0;
        if !hi.is_finite() {
            return None;
        }
    }
    Some(bisect(lo, hi, true, ok))
}

/// The analytic Gaussian calibration (Balle & Wang 2018, Thm 8 and Alg. 1): the smallest σ such that
/// N(0, σ²) noise on a query of ℓ₂ sensitivity Δ is (ε, δ)-DP, i.e. δ(ε; Δ/σ) ≤ δ, rounded up. Valid for
/// every ε ≥ 0 (unlike [`classical_gaussian_sigma`]) and never larger than the classical σ.
///
/// Errors: Δ not finite or ≤ 0, ε negative or not finite, δ outside (0, 1), or [`Error::NumericalLimit`]
/// when δ is below the absolute margin (2.2·10⁻³⁰⁸).
pub fn analytic_gaussian_sigma(sensitivity: f64, epsilon: f64, delta: f64) -> Fallible<f64> {
    let sensitivity = check_positive(Param::Sensitivity, sensitivity)?;
    let epsilon = check_epsilon(epsilon)?;
    let delta = check_level(Param::Delta, delta)?;
    let target = delta * (1.0 - INVERSION_SLACK);
    // δ(ε; μ) increases with μ: find the largest μ whose conservative δ meets the target.
    let ok = |mu: f64| delta_upper(mu, epsilon) <= target;
    let unattainable = || {
        Error::NumericalLimit(format!(
            "no sigma makes the Gaussian mechanism ({}, {delta:e})-DP in double precision",
            crate::numerics::format::short(epsilon)
        ))
    };
    let (mut lo, mut hi) = (1.0, 1.0);
    if ok(1.0) {
        while ok(hi) {
            lo = hi;
            hi *= 2.0;
            if hi > 1e150 {
                return Err(unattainable());
            }
        }
    } else {
        while !ok(lo) {
            hi = lo;
            lo *= 0.5;
            if lo < 1e-300 {
                return Err(unattainable());
            }
        }
    }
    let mu = bisect(lo, hi, false, ok);
    let sigma = div_up(sensitivity, mu);
    if sigma.is_finite() { Ok(sigma) } else { Err(unattainable()) }
}

/// The classical Gaussian calibration (Dwork & Roth 2014, Thm A.1): σ = Δ·√(2 ln(1.25/δ))/ε, which makes
/// N(0, σ²) noise (ε, δ)-DP **only for ε < 1**. Rounded up by 10⁻¹⁴ relative (for the logarithm and the
/// three roundings). [`analytic_gaussian_sigma`] is never larger and is valid for every ε.
///
/// Errors: Δ not finite or ≤ 0; ε not in (0, 1) (the theorem does not cover ε ≥ 1: use the analytic
/// calibration); δ outside (0, 1).
pub fn classical_gaussian_sigma(sensitivity: f64, epsilon: f64, delta: f64) -> Fallible<f64> {
    let sensitivity = check_positive(Param::Sensitivity, sensitivity)?;
    let epsilon = check_positive(Param::Epsilon, epsilon)?;
    if epsilon >= 1.0 {
        return Err(Error::InvalidParameter {
            name: Param::Epsilon,
            value: epsilon,
            reason: "the classical Gaussian calibration holds only for epsilon < 1; use the analytic calibration",
        });
    }
    let delta = check_level(Param::Delta, delta)?;
    let sigma = sensitivity * (2.0 * (1.25 / delta).ln()).sqrt() / epsilon * (1.0 + 1e-14);
    if sigma.is_finite() {
        Ok(sigma)
    } else {
        Err(Error::InvalidParameter { name: Param::Sensitivity, value: sensitivity, reason: "gives an infinite sigma" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::excessive_precision)] // the reference values as mpmath printed them
    fn mills_ratio_matches_forty_digit_values() {
        // R(z) = Φ(−z)/φ(z) from mpmath at 40 digits.
        let reference = [
            (0.0, 1.253314137315500251207882642405522626504),
            (0.5, 0.8763644564536923467278531426398488608601),
            (0.79, 0.7354832341894536310765493696471866792791),
            (0.81, 0.7271840830984020005599419636177125915374),
            (1.999, 0.4215265442693616706584592410511621161676),
            (3.0, 0.3045902987101032957336125465157222019433),
            (5.0, 0.1928081047153157648774657279175162514903),
            (30.0, 0.03329641907249721338186840185287279002276),
            (100.0, 0.009999000299850104905603815067358559107298),
        ];
        for (z, r) in reference {
            assert!((mills_ratio(z) / r - 1.0).abs() < 2e-15, "z = {z}: {} vs {r}", mills_ratio(z));
        }
    }

    #[test]
    fn branches_agree_where_they_meet() {
        // Compare the closed form and the quadrature on both sides of their switch.
        for &(mu, eps) in &[(0.3, 0.2), (1.0, 0.1), (0.05, 0.5), (2.0, 3.0), (0.8, 6.0)] {
            let ratio: f64 = eps / mu;
            let (a, b) = (ratio - 0.5 * mu, ratio + 0.5 * mu);
            let quad = if a <= 0.0 {
                integrate_peaked(&|t: f64| normal_pdf(a + t) * -(-mu * t).exp_m1(), 40.0 - a, 1.0, 1e-15)
            } else {
                let f = |t: f64| (-t * (a + 0.5 * t)).exp() * -(-mu * t).exp_m1();
                normal_pdf(a) * integrate_peaked(&f, (a * a + 1500.0).sqrt() - a, 1.0 / (1.0 + a), 1e-15)
            };
            let closed = if a <= 0.0 {
                1.0 - normal_pdf(a) * mills_ratio(-a) - normal_pdf(a) * mills_ratio(b)
            } else {
                normal_pdf(a) * (mills_ratio(a) - mills_ratio(b))
            };
            assert!((quad / closed - 1.0).abs() < 1e-11, "mu {mu} eps {eps}: {quad} vs {closed}");
        }
    }

    #[test]
    fn classical_refuses_large_epsilon() {
        assert!(matches!(classical_gaussian_sigma(1.0, 1.0, 1e-5), Err(Error::InvalidParameter { .. })));
        assert!(classical_gaussian_sigma(1.0, 0.5, 1e-5).is_ok());
    }
}
