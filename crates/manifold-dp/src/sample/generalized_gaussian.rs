//! Exact sampler of the generalized Gaussian law of degree N (1 ≤ N ≤ [`MAX_ORDER`] = 256) and scale s > 0,
//! with density
//!
//! ```text
//! f(x) = N / (2 s Γ(1/N)) · exp(−(|x|/s)^N)        on ℝ
//! ```
//!
//! (N = 1: the Laplace law of scale s; N = 2: the Gaussian with σ = s/√2; N → ∞: uniform on [−s, s]).
//!
//! **Exactness.** If Y ~ Gamma(1/N, 1) then T = Y^{1/N} has density f_Y(t^N)·N t^{N−1} = N e^{−t^N}/Γ(1/N)
//! on t > 0, so X = ±s·T with a fair random sign has density f. `rand_distr`'s Gamma is exact: shape 1 is
//! the ziggurat Exp(1), shape > 1 Marsaglia–Tsang rejection, shape < 1 Marsaglia–Tsang at shape + 1 times
//! U^{1/shape}. Nothing depends on the private input. Proof: `docs/proofs/scalar_mechanisms.md` §4.
//!
//! The CDF uses the regularised incomplete gamma function: P[|X| > x] = Q(1/N, (x/s)^N) for x ≥ 0.

use crate::error::Param;
use crate::error::{Error, Fallible, check_positive};
use rand::distr::Distribution;
use rand::{Rng, RngExt};
use rand_distr::Gamma;
use statrs::function::gamma::{checked_gamma_ur, gamma, ln_gamma};

/// The largest supported degree. The incomplete-gamma tail loses about u·N·5 relative near |x| = s (u = 2⁻⁵²,
/// from 1 − P(1/N, ·) as P → 1), and the profile computations were validated against 60-digit arithmetic up
/// to N = 256; beyond, the law is within O(1/N) of uniform on [−s, s] and has no use here.
pub const MAX_ORDER: u32 = 256;

/// Checks 1 ≤ `order` ≤ [`MAX_ORDER`].
pub(crate) fn check_order(order: u32) -> Fallible<u32> {
    if (1..=MAX_ORDER).contains(&order) {
        Ok(order)
    } else {
        Err(Error::InvalidParameter {
            name: Param::Order,
            value: order as f64,
            reason: "must be an integer in [1, 256]",
        })
    }
}

/// Generalized Gaussian noise of degree N and scale s, centred at 0: density ∝ exp(−(|x|/s)^N).
#[derive(Debug, Clone, PartialEq)]
pub struct GeneralizedGaussianNoise {
    order: u32,
    scale: f64,
    inv_order: f64,
    /// ln(N/(2sΓ(1/N))), the log normaliser of the density.
    ln_norm: f64,
    magnitude: Gamma<f64>,
}

/// Q(a, x) = Γ(a, x)/Γ(a), the regularised upper incomplete gamma function, for a > 0 and any x
/// (1 for x ≤ 0, 0 for x = ∞).
fn upper_regularized_gamma(a: f64, x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 1.0;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    checked_gamma_ur(a, x).unwrap_or(f64::NAN)
}

/// P[|X| > t] = Q(1/N, t^N) for the unit law of degree N and t ≥ 0, without forming t^N where it would
/// underflow: for t < 1 the lower function is P(a, y) = t·e^{−y}·Σ_k y^k/((a + 1)⋯(a + k))/Γ(1 + a) with
/// a = 1/N, y = t^N (so y^a = t exactly), and the tail is 1 − P; for t ≥ 1 `statrs`'s incomplete gamma.
pub fn unit_tail(order: u32, t: f64) -> f64 {
    let a = 1.0 / order as f64;
    if t.is_nan() {
        f64::NAN
    } else if t < 1.0 {
        let t = t.max(0.0);
        let y = pow_order(t, order);
        let (mut term, mut sum, mut k) = (1.0, 1.0, 0.0);
        while term > 1e-17 * sum {
            k += 1.0;
            term *= y / (a + k);
            sum += term;
        }
        1.0 - t * (-y).exp() * sum / gamma(1.0 + a)
    } else {
        upper_regularized_gamma(a, pow_order(t, order))
    }
}

/// x^N for x ≥ 0: repeated multiplication for small N, `powf` (correctly rounded to about an ulp) beyond.
pub(crate) fn pow_order(x: f64, order: u32) -> f64 {
    if order <= 16 { x.powi(order as i32) } else { x.powf(order as f64) }
}

/// The Rao constant c_N = √(N²Γ(2 − 1/N)/Γ(1/N)) of the generalized Gaussian location family of degree N:
/// the Fisher information of the location is c_N²/s², so the Fisher–Rao distance between locations μ and μ′
/// is c_N·|μ − μ′|/s (docs/math.md §4, corrected parametrisation). c₁ = 1 (Laplace), c₂ = √2 (Gaussian, σ = s/√2);
/// c_N ~ √N as N → ∞. Returns `None` for N = 0.
pub fn rao_constant(order: u32) -> Option<f64> {
    match order {
        0 => None,
        1 => Some(1.0),
        2 => Some(std::f64::consts::SQRT_2),
        n => {
            let n = n as f64;
            Some(n * (0.5 * (ln_gamma(2.0 - 1.0 / n) - ln_gamma(1.0 / n))).exp())
        }
    }
}

impl GeneralizedGaussianNoise {
    /// The law of degree `order` ∈ [1, [`MAX_ORDER`]] and scale `scale` (finite, > 0).
    pub fn new(order: u32, scale: f64) -> Fallible<Self> {
        let order = check_order(order)?;
        let scale = check_positive(Param::Scale, scale)?;
        let inv_order = 1.0 / order as f64;
        let magnitude = Gamma::new(inv_order, 1.0).map_err(|_| Error::InvalidParameter {
            name: Param::Order,
            value: order as f64,
            reason: "must give a valid Gamma(1/N, 1) law",
        })?;
        let ln_norm = (order as f64 / (2.0 * scale)).ln() - ln_gamma(inv_order);
        Ok(GeneralizedGaussianNoise { order, scale, inv_order, ln_norm, magnitude })
    }

    /// The degree N.
    pub fn order(&self) -> u32 {
        self.order
    }

    /// The scale s.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// ln f(x) = ln(N/(2sΓ(1/N))) − (|x|/s)^N.
    pub fn ln_density(&self, x: f64) -> f64 {
        self.ln_norm - pow_order(x.abs() / self.scale, self.order)
    }

    /// The density f(x) = N/(2sΓ(1/N))·exp(−(|x|/s)^N).
    pub fn density(&self, x: f64) -> f64 {
        self.ln_density(x).exp()
    }

    /// P[X ≤ x]: Q(1/N, (|x|/s)^N)/2 for x < 0 (accurate far into the lower tail) and 1 − Q(1/N, (x/s)^N)/2
    /// for x ≥ 0.
    pub fn cdf(&self, x: f64) -> f64 {
        let tail = 0.5 * self.tail(x.abs());
        if x < 0.0 { tail } else { 1.0 - tail }
    }

    /// P[|X| > t] = Q(1/N, (t/s)^N) for t ≥ 0.
    pub fn tail(&self, t: f64) -> f64 {
        unit_tail(self.order, t / self.scale)
    }

    /// The Fisher information of the location, c_N²/s² = N²Γ(2 − 1/N)/(s²Γ(1/N)).
    pub fn fisher_information(&self) -> f64 {
        let c = rao_constant(self.order).unwrap_or(f64::NAN);
        (c / self.scale).powi(2)
    }
}

impl Distribution<f64> for GeneralizedGaussianNoise {
    #[inline]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let y: f64 = self.magnitude.sample(rng);
        let t = match self.order {
            1 => y,
            2 => y.sqrt(),
            _ => y.powf(self.inv_order),
        };
        let magnitude = self.scale * t;
        if rng.random::<bool>() { magnitude } else { -magnitude }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::quadrature::integrate_peaked;

    #[test]
    fn density_integrates_to_its_cdf() {
        for order in 1..=5 {
            let law = GeneralizedGaussianNoise::new(order, 0.7).unwrap();
            for &x in &[0.1, 0.5, 1.0, 2.0] {
                let mass = integrate_peaked(&|t: f64| law.density(t), x, 0.1, 1e-14);
                assert!((law.cdf(x) - 0.5 - mass).abs() < 1e-13, "N = {order}, x = {x}");
                assert!((law.cdf(-x) - (0.5 - mass)).abs() < 1e-13);
            }
        }
    }

    #[test]
    fn rao_constant_closed_forms() {
        assert_eq!(rao_constant(0), None);
        // N = 2 through the general formula: 2·√(Γ(3/2)/Γ(1/2)) = √2.
        let general = 2.0 * (0.5 * (ln_gamma(1.5) - ln_gamma(0.5))).exp();
        assert!((general - std::f64::consts::SQRT_2).abs() < 1e-14);
        // Large N: c_N² = N²Γ(2 − 1/N)/Γ(1/N) → N as N → ∞.
        let c = rao_constant(1_000_000).unwrap();
        assert!((c * c / 1e6 - 1.0).abs() < 1e-5);
    }

    #[test]
    fn tail_is_continuous_where_its_method_changes() {
        for order in [1, 2, 3, 7, 64, MAX_ORDER] {
            let (below, at) = (unit_tail(order, 1.0 - 1e-13), unit_tail(order, 1.0));
            assert!((below / at - 1.0).abs() < 1e-10, "N = {order}: {below} vs {at}");
        }
        // No underflow of t^N: the tail at a tiny t is 1 − t/Γ(1 + 1/N), not 1.
        let t = 1e-200;
        assert!(1.0 - unit_tail(MAX_ORDER, 0.5) > 0.4);
        assert_eq!(unit_tail(3, t), 1.0 - t / gamma(1.0 + 1.0 / 3.0));
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(GeneralizedGaussianNoise::new(0, 1.0).is_err());
        assert!(GeneralizedGaussianNoise::new(MAX_ORDER + 1, 1.0).is_err());
        assert!(GeneralizedGaussianNoise::new(MAX_ORDER, 1.0).is_ok());
        for s in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(GeneralizedGaussianNoise::new(3, s).is_err());
        }
    }
}
