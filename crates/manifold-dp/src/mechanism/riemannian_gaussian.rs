//! The private Fréchet mean by the Riemannian Gaussian mechanism on spheres (S^{n−1}: the circle, time of day,
//! latitude/longitude) and SO(3), with a certified μ-GDP guarantee (`docs/proofs/riemannian_gaussian.md`).
//!
//! The release is a draw of the law with density ∝ exp(−d(z, m̂)²/2σ²) (w.r.t. the Riemannian volume) at the
//! computed Fréchet mean m̂ of n rows in the public ball B_r(m0), rounded onto a public grid
//! (`docs/proofs/float_safety.md`). The sensitivity Δ is the Laplace mean's (Theorem 2 at the widened radius,
//! plus the certified Karcher tolerance: `docs/proofs/frechet_mean_sensitivity.md`). The normaliser does not
//! depend on m̂ on these homogeneous spaces, so the draw is not conditioned on the ball. σ is the smallest (to
//! 10⁻³) whose certified μ ([`crate::analysis::riemannian_gdp::certify_mu`], the rounding's cost inside it) is
//! at most the μ asked; the guarantee is `{"notion": "gdp", "mu": μ, "delta": δ}` for the μ asked, μ-GDP up to
//! δ = [`RELEASE_DELTA`] (the certificate's tail and the proposal's far piece).

use crate::Fallible;
use crate::analysis::quadrature::integrate_peaked;
use crate::analysis::riemannian_gdp::{CertifiedMu, GaussianSpace, RELEASE_DELTA, sigma_for_mu};
use crate::error::Param;
use crate::error::{Error, check_positive};
use crate::manifold::sensitivity::check_radius;
use crate::manifold::{
    KarcherOptions, KarcherStop, So3, Sphere, certified_mean_sensitivity, check_ball, frechet_mean_within,
};
use crate::mechanism::riemannian_laplace::LaplaceManifold;
use crate::privacy::Guarantee;
use crate::privacy::float_safety::{MEAN_SPACING_BELOW_NOISE_LOG2, Rounding};
use crate::sample::riemannian_gaussian::GaussianNoise;
use nalgebra::{DVector, UnitQuaternion};
use rand::{CryptoRng, Rng};
use std::f64::consts::PI;

/// A manifold with an exact sampler of its Riemannian Gaussian law and a float-safe grid for it.
pub trait GaussianManifold: LaplaceManifold {
    /// The space as the certificate and the sampler know it.
    fn gaussian_space(&self) -> GaussianSpace;

    /// One exact draw of the law with `noise`'s σ at `footpoint`.
    fn sample_gaussian<R: Rng + ?Sized>(
        &self,
        noise: &GaussianNoise,
        footpoint: &Self::Point,
        rng: &mut R,
    ) -> Self::Point;

    /// The float-safe grid of releases with scale σ: the density e^{−d²/2σ²} is (π/σ²)-log-Lipschitz (d ≤ π),
    /// cells up to 2^-10 of σ, and the sampler's acceptance error α (ε₀ + 4α, float_safety.md §3f, Lemma R).
    fn gaussian_rounding(&self, noise: &GaussianNoise) -> Rounding;
}

impl GaussianManifold for Sphere {
    fn gaussian_space(&self) -> GaussianSpace {
        GaussianSpace::Sphere { ambient: self.ambient() }
    }

    fn sample_gaussian<R: Rng + ?Sized>(&self, noise: &GaussianNoise, eta: &DVector<f64>, rng: &mut R) -> DVector<f64> {
        noise.sample_around(eta, rng)
    }

    fn gaussian_rounding(&self, noise: &GaussianNoise) -> Rounding {
        let sigma = noise.sigma();
        Rounding::for_directions_below(self.ambient(), 1.0 / sigma, PI / (sigma * sigma), MEAN_SPACING_BELOW_NOISE_LOG2)
            .with_acceptance_error(noise.acceptance_error())
    }
}

impl GaussianManifold for So3 {
    fn gaussian_space(&self) -> GaussianSpace {
        GaussianSpace::So3
    }

    fn sample_gaussian<R: Rng + ?Sized>(
        &self,
        noise: &GaussianNoise,
        eta: &UnitQuaternion<f64>,
        rng: &mut R,
    ) -> UnitQuaternion<f64> {
        eta * noise.sample_rotation(rng)
    }

    fn gaussian_rounding(&self, noise: &GaussianNoise) -> Rounding {
        let sigma = noise.sigma();
        Rounding::for_rotations_below(1.0 / sigma, PI / (sigma * sigma), MEAN_SPACING_BELOW_NOISE_LOG2)
            .with_acceptance_error(noise.acceptance_error())
    }
}

/// What the rounding costs the certificate: every cell's probability is within e^{±ε₀} of the exact law's, and
/// the samplers' proposal cuts (π/2 on spheres, π on the circle and SO(3)) add a band of the proposal's error
/// whose mass in a cell is at most the cell's own volume slack, so at most ε₀ more (proof §6): 2ε₀.
fn release_cost(rounding: &Rounding) -> f64 {
    crate::privacy::rounding::mul_up(2.0, rounding.additive_epsilon())
}

/// The private Fréchet mean by the Riemannian Gaussian: μ-GDP release of the Fréchet mean of n points known to
/// lie in the public ball B_r(m0), for data sets that differ in one point.
#[derive(Debug, Clone)]
pub struct GaussianFrechetMean<M: GaussianManifold> {
    manifold: M,
    center: M::Point,
    radius: f64,
    n: usize,
    mu: f64,
    certificate: CertifiedMu,
    sensitivity: f64,
    stop: KarcherStop<M::Point>,
    noise: GaussianNoise,
    rounding: Rounding,
}

impl<M: GaussianManifold> GaussianFrechetMean<M> {
    /// The release for data sets of `n` points within `radius` of `center`, at `mu`-GDP, with the default Karcher
    /// tolerance.
    pub fn new(manifold: M, center: M::Point, radius: f64, n: usize, mu: f64) -> Fallible<Self> {
        Self::with_options(manifold, center, radius, n, mu, KarcherOptions::default())
    }

    /// [`GaussianFrechetMean::new`] with an explicit Karcher stopping rule; Δ as for the Laplace mean
    /// (`PrivateFrechetMean::with_options`).
    pub fn with_options(
        manifold: M,
        center: M::Point,
        radius: f64,
        n: usize,
        mu: f64,
        options: KarcherOptions,
    ) -> Fallible<Self> {
        let mu = check_positive(Param::Mu, mu)?;
        let radius = check_radius(&manifold, radius)?;
        let (stop, sensitivity) = certified_mean_sensitivity(&manifold, &center, radius, n, options)?;
        let space = manifold.gaussian_space();
        let cost = |sigma: f64| -> Fallible<f64> {
            Ok(release_cost(&manifold.gaussian_rounding(&GaussianNoise::new(space, sigma)?)))
        };
        let (sigma, certificate) = sigma_for_mu(space, mu, sensitivity, cost)?;
        if certificate.mu > mu {
            return Err(Error::NumericalLimit(format!("no sigma could be certified for mu = {mu}")));
        }
        let noise = GaussianNoise::new(space, sigma)?;
        let rounding = manifold.gaussian_rounding(&noise);
        Ok(GaussianFrechetMean { manifold, center, radius, n, mu, certificate, sensitivity, stop, noise, rounding })
    }

    /// μ-GDP at the μ asked (the certified μ is at most it), up to δ = [`RELEASE_DELTA`] (the certificate's
    /// tail and the proposal's far piece, `docs/proofs/riemannian_gaussian.md` §2, §5):
    /// `{"notion": "gdp", "mu": μ, "delta": 2e-280}`.
    pub fn guarantee(&self) -> Guarantee {
        Guarantee::gdp_with_delta(self.mu, RELEASE_DELTA)
    }

    /// The certificate: the certified μ (≤ the μ asked), Δ/σ and the rounding's ε₀ inside it.
    pub fn certificate(&self) -> CertifiedMu {
        self.certificate
    }

    /// σ, the noise scale.
    pub fn sigma(&self) -> f64 {
        self.noise.sigma()
    }

    /// Δ: Theorem 2's bound at the widened radius plus the certified Karcher tolerance term.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// The grid releases are rounded onto.
    pub fn rounding(&self) -> Rounding {
        self.rounding
    }

    /// The manifold.
    pub fn manifold(&self) -> &M {
        &self.manifold
    }

    /// The public centre m0.
    pub fn center(&self) -> &M::Point {
        &self.center
    }

    /// The public radius r.
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// The number of rows n.
    pub fn n(&self) -> usize {
        self.n
    }

    /// E[d(release, m̂)] of the exact law, by quadrature (the rounding moves it by less than 10⁻³ of itself).
    pub fn expected_error(&self) -> f64 {
        let space = self.manifold.gaussian_space();
        let sigma = self.noise.sigma();
        let k = space.radial_power() as f64;
        let shift = space.ln_radial_weight((sigma * k.max(1.0).sqrt()).min(PI), sigma);
        let w = |t: f64| if t <= 0.0 || t >= PI { 0.0 } else { (space.ln_radial_weight(t, sigma) - shift).exp() };
        let scale = (sigma * (k + 1.0).sqrt()).min(PI);
        let z = integrate_peaked(&w, PI, scale, 1e-12);
        integrate_peaked(&|t| t * w(t), PI, scale, 1e-12) / z
    }

    /// Releases the private Fréchet mean of `data` (exactly n points, each within r of m0, else an error naming
    /// the first offending point; nothing is drawn then).
    pub fn release<R: CryptoRng + ?Sized>(&self, data: &[M::Point], rng: &mut R) -> Fallible<M::Point> {
        if data.len() != self.n {
            return Err(Error::WrongLength { expected: self.n, got: data.len() });
        }
        check_ball(&self.manifold, data, &self.center, self.radius)?;
        let mean = frechet_mean_within(&self.manifold, data, &self.center, &self.stop)?;
        Ok(self.release_mean(&mean.mean, rng))
    }

    /// Releases a Fréchet mean computed elsewhere (with this release's Karcher stop): the exact draw, rounded
    /// onto the grid.
    pub fn release_mean<R: CryptoRng + ?Sized>(&self, mean: &M::Point, rng: &mut R) -> M::Point {
        let mut y = self.manifold.sample_gaussian(&self.noise, mean, rng);
        self.manifold.snap_point(&self.rounding, &mut y);
        y
    }

    /// The raw draw at `mean`, **not float-safe** (experiments and reproduction only; the `experiments` feature).
    #[cfg(any(test, feature = "experiments"))]
    pub fn privatize_mean<R: Rng + ?Sized>(&self, mean: &M::Point, rng: &mut R) -> M::Point {
        self.manifold.sample_gaussian(&self.noise, mean, rng)
    }
}

#[cfg(test)]
mod tests;
