//! The Laplace mechanism for real-valued queries: release q(D) + (L₁, …, L_k) with Lᵢ i.i.d. of density
//! e^{−|x|/b}/(2b). On a query of ℓ₁ sensitivity Δ it is pure ε-DP with ε = Δ/b (Dwork, McSherry, Nissim &
//! Smith 2006); `docs/proofs/scalar_mechanisms.md` §1 proves this and every other guarantee it reports.
//!
//! Releases are float-safe at no cost: each coordinate is the exact cell of x + L on the public grid of
//! spacing 2^(⌊log₂ b⌋ − 20), drawn with integer coins ([`RoundedLaplace`], `docs/proofs/float_safety.md` §8),
//! which is post-processing of the exact mechanism.

use crate::error::Param;
use crate::error::{Error, Fallible, check_positive};
use crate::numerics::rounding::{div_up, mul_up};
use crate::privacy::Guarantee;
use crate::privacy::guarantee::RaoFamily;
use crate::sample::generalized_gaussian::GeneralizedGaussianNoise;
use crate::sample::rounded_laplace::RoundedLaplace;
use crate::space::so3::check_finite;
use rand::CryptoRng;

/// The Laplace mechanism: noise of density e^{−|x|/b}/(2b) on each coordinate of a query whose ℓ₁
/// sensitivity (max ‖q(D) − q(D′)‖₁ over neighbouring) is Δ. Pure (Δ/b)-DP; see [`ScalarLaplace::guarantees`] and
/// `docs/proofs/scalar_mechanisms.md` §1.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalarLaplace {
    sensitivity: f64,
    scale: f64,
    epsilon: f64,
    noise: GeneralizedGaussianNoise,
    rounded: RoundedLaplace,
}

impl ScalarLaplace {
    /// Laplace noise of scale `scale` = b on a query of ℓ₁ sensitivity `sensitivity` = Δ (both finite and
    /// positive). Errors also when Δ/b is so large that ε²/2 overflows, and for b outside [2^-900, 2^900]
    /// (where the float-safe grid is not proven).
    pub fn new(sensitivity: f64, scale: f64) -> Fallible<Self> {
        let sensitivity = check_positive(Param::Sensitivity, sensitivity)?;
        let scale = check_positive(Param::Scale, scale)?;
        let epsilon = div_up(sensitivity, scale);
        if !mul_up(epsilon, epsilon).is_finite() {
            return Err(Error::InvalidParameter {
                name: Param::Scale,
                value: scale,
                reason: "is too small for the sensitivity: the privacy loss overflows",
            });
        }
        let rounded = RoundedLaplace::new(scale, RoundedLaplace::default_grid_log2(scale))?;
        Ok(ScalarLaplace { sensitivity, scale, epsilon, noise: GeneralizedGaussianNoise::new(1, scale)?, rounded })
    }

    /// The mechanism for pure ε-DP: b = Δ/ε, rounded up so that the reported ε never exceeds `epsilon`.
    pub fn for_epsilon(sensitivity: f64, epsilon: f64) -> Fallible<Self> {
        let sensitivity = check_positive(Param::Sensitivity, sensitivity)?;
        let epsilon = check_positive(Param::Epsilon, epsilon)?;
        Self::new(sensitivity, div_up(sensitivity, epsilon))
    }

    /// The ℓ₁ sensitivity Δ.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// The scale b.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// ε = Δ/b (rounded up).
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// The noise law of one coordinate (the generalized Gaussian of degree 1 and scale b), as f64 draws:
    /// `value + noise` is **not float-safe**; for negative controls only.
    pub fn noise(&self) -> &GeneralizedGaussianNoise {
        &self.noise
    }

    /// The exact rounded law every release is drawn from.
    pub fn rounded(&self) -> &RoundedLaplace {
        &self.rounded
    }

    /// The public grid's spacing 2^(⌊log₂ b⌋ − 20): every released coordinate is a multiple of it.
    pub fn grid_spacing(&self) -> f64 {
        self.rounded.spacing()
    }

    /// Every guarantee, with ε = Δ/b: `PureDp { ε }`; `ApproxDp { ε, 0 }`; `Zcdp { ε²/2 }` (Bun & Steinke
    /// 2016, Prop. 1.4); `RaoDp { ε, Laplace }` (the product Laplace family's Fisher–Rao distance is
    /// ‖Δμ‖₂/b ≤ ‖Δμ‖₁/b ≤ Δ/b in any dimension).
    pub fn guarantees(&self) -> Vec<Guarantee> {
        let epsilon = self.epsilon;
        vec![
            Guarantee::pure(epsilon),
            Guarantee::ApproxDp { epsilon, delta: 0.0 },
            Guarantee::Zcdp { rho: 0.5 * mul_up(epsilon, epsilon) },
            Guarantee::RaoDp { theta: epsilon, family: RaoFamily::Laplace },
        ]
    }

    /// `value` plus independent Laplace(b) noise on each coordinate, rounded exactly to the nearest multiple
    /// of [`ScalarLaplace::grid_spacing`] (coordinates beyond 2^100·b are clamped first). Errors (before any
    /// noise is drawn) if a coordinate is NaN or infinite.
    pub fn release<R: CryptoRng + ?Sized>(&self, value: &[f64], rng: &mut R) -> Fallible<Vec<f64>> {
        check_finite(value)?;
        Ok(value.iter().map(|&x| self.rounded.sample_at(x, rng)).collect())
    }

    /// One real value plus Laplace(b) noise.
    pub fn release_scalar<R: CryptoRng + ?Sized>(&self, value: f64, rng: &mut R) -> Fallible<f64> {
        Ok(self.release(&[value], rng)?[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::rng::seeded_rng_for_experiments;

    #[test]
    fn calibrates_and_reports() {
        let m = ScalarLaplace::for_epsilon(2.0, 0.5).unwrap();
        assert_eq!(m.scale(), 4.0);
        assert_eq!(m.epsilon(), 0.5);
        let g = m.guarantees();
        assert!(g.contains(&Guarantee::pure(0.5)));
        assert!(g.contains(&Guarantee::Zcdp { rho: 0.125 }));
        assert!(g.contains(&Guarantee::RaoDp { theta: 0.5, family: RaoFamily::Laplace }));
        // b = Δ/ε is rounded up, so the reported ε = Δ/b (rounded up) never exceeds the requested one.
        for &(d, e) in &[(1.0, 0.3), (0.7, 1.1), (3.0, 1e-3), (1e-3, 7.0), (0.1, 0.3)] {
            let m = ScalarLaplace::for_epsilon(d, e).unwrap();
            assert!(m.epsilon() <= e && m.epsilon() >= d / m.scale());
        }
        let mut rng = seeded_rng_for_experiments(1);
        assert_eq!(m.release(&[1.0, 2.0, 3.0], &mut rng).unwrap().len(), 3);
        assert!(matches!(m.release(&[1.0, f64::NAN], &mut rng), Err(Error::NonFinite { component: 1, .. })));
    }
}
