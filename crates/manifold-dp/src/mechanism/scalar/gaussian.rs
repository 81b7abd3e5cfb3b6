//! The Gaussian mechanism: release q(D) + σ·(Z₁, …, Z_k) with Zᵢ i.i.d. N(0, 1). On a query of ℓ₂
//! sensitivity Δ it is μ-GDP with μ = Δ/σ (Dong, Roth & Su 2022, Thm 2.7), hence μ²/2-zCDP and (ε, δ)-DP on
//! the exact curve of [`crate::analysis::gaussian_dp`]; its Fisher–Rao distance is μ as well.
//! `docs/proofs/scalar_mechanisms.md` §2.
//!
//! Releases are float-safe at no cost: each coordinate is the exact cell of x̄ + σZ on the public grid of
//! spacing 2^(⌊log₂ σ⌋ − 20), drawn with Karney's exact normal sampler on lazily drawn uniform bits
//! ([`RoundedGaussian`], `docs/proofs/float_safety.md` §8b), which is post-processing of the exact
//! mechanism: every guarantee above holds exactly, with no ε₀ and no extra δ.

use crate::analysis::gaussian_dp::{analytic_gaussian_sigma, classical_gaussian_sigma, gdp_epsilon};
use crate::error::Param;
use crate::error::{Error, Fallible, check_level, check_positive};
use crate::mechanism::scalar::DEFAULT_STANDARD_DELTA;
use crate::numerics::rounding::{div_up, mul_up};
use crate::privacy::Guarantee;
use crate::privacy::guarantee::RaoFamily;
use crate::sample::rounded_gaussian::RoundedGaussian;
use crate::space::so3::check_finite;
use rand::RngExt;
use rand::{CryptoRng, Rng};
use rand_distr::StandardNormal;

/// How a [`Gaussian`]'s σ was chosen, which decides the (ε, δ) pair it reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GaussianCalibration {
    /// σ given directly ([`Gaussian::new`]): the pair is (ε(δ), δ) on the exact GDP curve at a stated δ.
    Direct,
    /// σ = Δ√(2 ln(1.25/δ))/ε for a target (ε < 1, δ) (Dwork & Roth 2014, Thm A.1).
    Classical,
    /// The smallest σ with δ(ε; Δ/σ) ≤ δ (Balle & Wang 2018).
    Analytic,
}

/// The Gaussian mechanism on a query of ℓ₂ sensitivity Δ (max ‖q(D) − q(D′)‖₂ over neighbours) with noise
/// N(0, σ²) on each coordinate: μ-GDP with μ = Δ/σ (`docs/proofs/scalar_mechanisms.md` §2), released
/// float-safe on the grid of [`Gaussian::grid_spacing`] (`docs/proofs/float_safety.md` §8b).
#[derive(Debug, Clone, PartialEq)]
pub struct Gaussian {
    sensitivity: f64,
    sigma: f64,
    mu: f64,
    approx: (f64, f64),
    calibration: GaussianCalibration,
    rounded: RoundedGaussian,
}

impl Gaussian {
    fn build(
        sensitivity: f64,
        sigma: f64,
        calibration: GaussianCalibration,
        approx: Option<(f64, f64)>,
    ) -> Fallible<Self> {
        let mu = div_up(sensitivity, sigma);
        if !mul_up(mu, mu).is_finite() {
            return Err(Error::InvalidParameter {
                name: Param::Sigma,
                value: sigma,
                reason: "is too small for the sensitivity: the privacy loss overflows",
            });
        }
        let rounded = RoundedGaussian::new(sigma, RoundedGaussian::default_grid_log2(sigma))?;
        let approx = match approx {
            Some(pair) => pair,
            None => (gdp_epsilon(mu, DEFAULT_STANDARD_DELTA)?, DEFAULT_STANDARD_DELTA),
        };
        Ok(Gaussian { sensitivity, sigma, mu, approx, calibration, rounded })
    }

    /// Noise N(0, `sigma`²) on a query of ℓ₂ sensitivity `sensitivity` (both finite, > 0; σ ∈ [2^-900, 2^900],
    /// where the float-safe release is proven). Its (ε, δ) guarantee is reported at δ =
    /// [`DEFAULT_STANDARD_DELTA`] (10⁻⁶) with ε from the exact curve; change the δ with
    /// [`Gaussian::with_standard_delta`].
    pub fn new(sensitivity: f64, sigma: f64) -> Fallible<Self> {
        let sensitivity = check_positive(Param::Sensitivity, sensitivity)?;
        let sigma = check_positive(Param::Sigma, sigma)?;
        Self::build(sensitivity, sigma, GaussianCalibration::Direct, None)
    }

    /// The classical calibration for (ε, δ)-DP, ε ∈ (0, 1): σ = Δ√(2 ln(1.25/δ))/ε
    /// ([`classical_gaussian_sigma`]; refuses ε ≥ 1). Reports `ApproxDp { ε, δ }`.
    pub fn classical(sensitivity: f64, epsilon: f64, delta: f64) -> Fallible<Self> {
        let sigma = classical_gaussian_sigma(sensitivity, epsilon, delta)?;
        Self::build(sensitivity, sigma, GaussianCalibration::Classical, Some((epsilon, delta)))
    }

    /// The analytic calibration for (ε, δ)-DP, any ε ≥ 0: the smallest σ with δ(ε; Δ/σ) ≤ δ, rounded up
    /// ([`analytic_gaussian_sigma`]). Reports `ApproxDp { ε, δ }`.
    pub fn analytic(sensitivity: f64, epsilon: f64, delta: f64) -> Fallible<Self> {
        let sigma = analytic_gaussian_sigma(sensitivity, epsilon, delta)?;
        Self::build(sensitivity, sigma, GaussianCalibration::Analytic, Some((epsilon, delta)))
    }

    /// The same mechanism reporting its (ε, δ) guarantee at `delta` ∈ (0, 1), with ε = ε(δ; μ) from the exact
    /// GDP curve (rounded up). Errors if `delta` is out of range.
    pub fn with_standard_delta(self, delta: f64) -> Fallible<Self> {
        let delta = check_level(Param::Delta, delta)?;
        let epsilon = gdp_epsilon(self.mu, delta)?;
        Ok(Gaussian { approx: (epsilon, delta), ..self })
    }

    /// The ℓ₂ sensitivity Δ.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// The noise standard deviation σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// μ = Δ/σ (rounded up): the GDP parameter and the Rao distance.
    pub fn mu(&self) -> f64 {
        self.mu
    }

    /// How σ was chosen.
    pub fn calibration(&self) -> GaussianCalibration {
        self.calibration
    }

    /// The exact rounded law every release is drawn from.
    pub fn rounded(&self) -> &RoundedGaussian {
        &self.rounded
    }

    /// The public grid's spacing 2^(⌊log₂ σ⌋ − 20): every released coordinate is a multiple of it
    /// (`docs/proofs/float_safety.md` §8b).
    pub fn grid_spacing(&self) -> f64 {
        self.rounded.spacing()
    }

    /// One f64 draw σ·Z (rand_distr's ziggurat): `value + this` is the raw pipeline and is **not
    /// float-safe** (its low bits leak the value, Mironov 2012); for negative controls only.
    pub fn unprotected_noise<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.sigma * rng.sample::<f64, _>(StandardNormal)
    }

    /// Every guarantee, with μ = Δ/σ: `Gdp { μ }`; `Zcdp { μ²/2 }`; `RaoDp { μ, Gaussian }` (θ-Rao DP in the
    /// Gaussian family is exactly θ-GDP, docs/math.md §4); `ApproxDp { ε, δ }`, the calibration target for
    /// [`Gaussian::classical`] and [`Gaussian::analytic`], else the exact curve's ε at the standard δ.
    pub fn guarantees(&self) -> Vec<Guarantee> {
        let mu = self.mu;
        let (epsilon, delta) = self.approx;
        vec![
            Guarantee::gdp(mu),
            Guarantee::Zcdp { rho: 0.5 * mul_up(mu, mu) },
            Guarantee::RaoDp { theta: mu, family: RaoFamily::Gaussian },
            Guarantee::ApproxDp { epsilon, delta },
        ]
    }

    /// `value` plus independent N(0, σ²) noise on each coordinate, rounded exactly to the nearest multiple
    /// of [`Gaussian::grid_spacing`] (coordinates beyond 2^100·σ are clamped first): each coordinate is
    /// fl(c·h) for the cell c of x̄ + σZ drawn exactly ([`RoundedGaussian`], `docs/proofs/float_safety.md`
    /// §8b). Errors (before any noise is drawn) if a coordinate is NaN or infinite.
    pub fn release<R: CryptoRng + ?Sized>(&self, value: &[f64], rng: &mut R) -> Fallible<Vec<f64>> {
        check_finite(value)?;
        Ok(value.iter().map(|&x| self.rounded.sample_at(x, rng)).collect())
    }

    /// One real value plus N(0, σ²) noise, float-safe as in [`Gaussian::release`].
    pub fn release_scalar<R: CryptoRng + ?Sized>(&self, value: f64, rng: &mut R) -> Fallible<f64> {
        Ok(self.release(&[value], rng)?[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::rng::seeded_rng_for_experiments;

    #[test]
    fn reports_the_calibration_target() {
        let g = Gaussian::analytic(1.0, 1.0, 1e-5).unwrap();
        assert!(g.guarantees().contains(&Guarantee::ApproxDp { epsilon: 1.0, delta: 1e-5 }));
        assert_eq!(g.calibration(), GaussianCalibration::Analytic);
        let direct = Gaussian::new(1.0, g.sigma()).unwrap().with_standard_delta(1e-5).unwrap();
        let eps = direct.guarantees()[3].epsilon().unwrap();
        assert!((1.0..1.0 + 1e-9).contains(&eps), "{eps}");
    }

    #[test]
    fn releases_on_the_public_grid() {
        let g = Gaussian::new(1.0, 3.0).unwrap();
        assert_eq!(g.grid_spacing(), 2f64.powi(-19));
        let mut rng = seeded_rng_for_experiments(1);
        let v = g.release(&[1.0, -2.5, 1e-300, 0.0], &mut rng).unwrap();
        assert!(v.iter().all(|z| (z / g.grid_spacing()).fract() == 0.0), "{v:?}");
        let again = g.release(&[1.0, -2.5, 1e-300, 0.0], &mut seeded_rng_for_experiments(1)).unwrap();
        assert_eq!(v, again);
        assert!(matches!(g.release(&[1.0, f64::NAN], &mut rng), Err(Error::NonFinite { component: 1, .. })));
        // σ outside [2^-900, 2^900] is refused with the reason, not released on an unproven grid.
        assert!(matches!(Gaussian::new(1e-280, 1e-280), Err(Error::InvalidParameter { name: Param::Sigma, .. })));
        assert!(matches!(Gaussian::new(1.0, 1e280), Err(Error::InvalidParameter { name: Param::Sigma, .. })));
    }
}
