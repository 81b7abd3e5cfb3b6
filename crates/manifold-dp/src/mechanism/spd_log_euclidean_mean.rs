//! The private Fréchet mean of SPD(k) matrices under the log-Euclidean metric, k ≤ 8, by the Gaussian mechanism
//! in the flat log domain (μ-GDP, exact; `docs/proofs/spd_log_euclidean_mean.md`).
//!
//! log maps SPD(k) with ρ(P, Q) = ‖log P − log Q‖_F isometrically onto the symmetric matrices, and the isometric
//! coordinates c(P) ∈ R^D, D = k(k + 1)/2 (the diagonal of log P, then √2 times each entry above it), carry the
//! Frobenius norm to the Euclidean one. The Fréchet mean is exp of the mean of the log Xᵢ, whose coordinates move
//! by at most Δ = 2r/n (ℓ₂) between data sets of n rows in the public ball B_r(m0) that differ in one row
//! (Theorem 2 with h = 1, at the widened radius, plus the certified Karcher tolerance). The release draws each
//! coordinate of ĉ(m̂) + σZ, Z ~ N(0, I_D), σ = Δ/μ, as its exact cell on a public grid (the real-line
//! Gaussian's sampler, `docs/proofs/float_safety.md` §8b): μ-GDP with no rounding cost, per unit of the log
//! coordinates computed in f64 (as the log-Euclidean Laplace's guarantee, §3d). exp of the grid point is
//! post-processing.
//!
//! The pure-DP (Laplace) mean in the same chart is `PrivateFrechetMean<SpdLogEuclidean>`; both are offered for
//! k ≤ [`MAX_LOG_EUCLIDEAN_MEAN_K`], the sizes on which the eigensolver's backward error (assumption (E)) has
//! been measured.

use crate::Fallible;
use crate::error::Param;
use crate::error::{Error, check_positive};
use crate::manifold::sensitivity::check_radius;
use crate::manifold::{
    KarcherOptions, KarcherStop, Manifold, SpdLogEuclidean, certified_mean_sensitivity, check_ball, frechet_mean_within,
};
use crate::mechanism::riemannian_laplace::coords_to_sym;
use crate::privacy::Guarantee;
use crate::sample::rounded_gaussian::RoundedGaussian;
use crate::space::grid::{Chart, Grid};
use crate::space::spd::expm;
use nalgebra::{DMatrix, DVector};
use rand::{CryptoRng, Rng};

/// The largest k of the log-Euclidean private means (Laplace and Gaussian): assumption (E), the eigensolver's
/// backward error c_E = 64, is measured on SPD(k) for k ≤ 8 (`docs/proofs/spd_log_euclidean_mean.md` §4).
pub const MAX_LOG_EUCLIDEAN_MEAN_K: usize = 8;

/// `k` if 1 ≤ k ≤ [`MAX_LOG_EUCLIDEAN_MEAN_K`], else an error saying why larger k are not offered.
pub fn check_log_euclidean_mean_k(k: usize) -> Fallible<usize> {
    if (1..=MAX_LOG_EUCLIDEAN_MEAN_K).contains(&k) {
        Ok(k)
    } else {
        Err(Error::InvalidParameter {
            name: Param::K,
            value: k as f64,
            reason: "the log-Euclidean private mean is offered for 1 ≤ k ≤ 8 (the eigensolver's backward error is \
                     measured up to k = 8 only)",
        })
    }
}

/// The private log-Euclidean Fréchet mean by the Gaussian mechanism in the log domain: μ-GDP for data sets of n
/// SPD(k) matrices within the public ball B_r(m0) that differ in one row (`docs/proofs/spd_log_euclidean_mean.md`).
#[derive(Debug, Clone)]
pub struct LogEuclideanGaussianMean {
    manifold: SpdLogEuclidean,
    center: DMatrix<f64>,
    radius: f64,
    n: usize,
    mu: f64,
    sensitivity: f64,
    stop: KarcherStop<DMatrix<f64>>,
    noise: RoundedGaussian,
}

impl LogEuclideanGaussianMean {
    /// The release for data sets of `n` matrices within `radius` (log-Euclidean) of `center`, at `mu`-GDP, with
    /// the default Karcher tolerance.
    pub fn new(k: usize, center: DMatrix<f64>, radius: f64, n: usize, mu: f64) -> Fallible<Self> {
        Self::with_options(k, center, radius, n, mu, KarcherOptions::default())
    }

    /// [`LogEuclideanGaussianMean::new`] with an explicit Karcher stopping rule. Δ = 2r′/n + 2τ (h = 1: the
    /// log-Euclidean metric is flat), exactly as the Laplace mean's (`PrivateFrechetMean::with_options`);
    /// σ = Δ/μ; the grid is the real-line Gaussian's default, 2^(⌊log₂ σ⌋ − 20).
    pub fn with_options(
        k: usize,
        center: DMatrix<f64>,
        radius: f64,
        n: usize,
        mu: f64,
        options: KarcherOptions,
    ) -> Fallible<Self> {
        let manifold = SpdLogEuclidean::new(check_log_euclidean_mean_k(k)?)?;
        if center.shape() != (k, k) {
            return Err(Error::WrongLength { expected: k * k, got: center.len() });
        }
        let mu = check_positive(Param::Mu, mu)?;
        let radius = check_radius(&manifold, radius)?;
        let (stop, sensitivity) = certified_mean_sensitivity(&manifold, &center, radius, n, options)?;
        // Rounded up, so that Δ/σ ≤ μ holds for the σ used.
        let sigma = crate::numerics::rounding::div_up(sensitivity, mu);
        let noise = RoundedGaussian::new(sigma, RoundedGaussian::default_grid_log2(sigma))?;
        Ok(LogEuclideanGaussianMean { manifold, center, radius, n, mu, sensitivity, stop, noise })
    }

    /// μ-GDP at the μ asked, exactly (Δ/σ = μ; the exact cells cost nothing): `{"notion": "gdp", "mu": μ}`.
    pub fn guarantee(&self) -> Guarantee {
        Guarantee::gdp(self.mu)
    }

    /// σ = Δ/μ (rounded up), the standard deviation of each log coordinate's noise.
    pub fn sigma(&self) -> f64 {
        self.noise.sigma()
    }

    /// Δ: Theorem 2's bound 2r′/n at the widened radius r′ plus the certified Karcher tolerance term 2τ.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// The manifold (SPD(k), log-Euclidean).
    pub fn manifold(&self) -> &SpdLogEuclidean {
        &self.manifold
    }

    /// The public centre m0.
    pub fn center(&self) -> &DMatrix<f64> {
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

    /// The Karcher stopping rule the mean must be computed with (its τ is inside Δ).
    pub fn stop(&self) -> &KarcherStop<DMatrix<f64>> {
        &self.stop
    }

    /// The public grid of the log coordinates: spacing 2^(⌊log₂ σ⌋ − 20); every coordinate clamped to ±2^100·σ
    /// before the noise (1-Lipschitz, so Δ is kept).
    pub fn grid(&self) -> Grid {
        Grid { chart: Chart::LogDomain, spacing_log2: self.noise.grid_log2() }
    }

    /// The rounding's cost: 0 (each coordinate's cell is drawn exactly from the Gaussian's cell law).
    pub fn rounding_cost(&self) -> f64 {
        0.0
    }

    /// E‖ĉ(release) − ĉ(m̂)‖ of the exact law, the log-Euclidean error: σ·√2·Γ((D + 1)/2)/Γ(D/2), the mean of a
    /// χ_D variable times σ (the grid moves it by at most √D·2^-21·σ).
    pub fn expected_error(&self) -> f64 {
        self.sigma() * crate::analysis::special::chi_mean(self.manifold.dimension() as f64)
    }

    /// Releases the private mean of `data` (exactly n matrices, each within r of m0, else an error naming the first
    /// offending one; nothing is drawn then).
    pub fn release<R: CryptoRng + ?Sized>(&self, data: &[DMatrix<f64>], rng: &mut R) -> Fallible<DMatrix<f64>> {
        if data.len() != self.n {
            return Err(Error::WrongLength { expected: self.n, got: data.len() });
        }
        check_ball(&self.manifold, data, &self.center, self.radius)?;
        let mean = frechet_mean_within(&self.manifold, data, &self.center, &self.stop)?;
        Ok(self.release_mean(&mean.mean, rng))
    }

    /// Releases a mean computed elsewhere (with this release's Karcher stop): exp of the grid point whose
    /// coordinates are the exact cells of ĉ(m̂)ᵢ + σZᵢ.
    pub fn release_mean<R: CryptoRng + ?Sized>(&self, mean: &DMatrix<f64>, rng: &mut R) -> DMatrix<f64> {
        let u = self.release_coordinates(&self.manifold.log_coordinates(mean), rng);
        expm(&coords_to_sym(&u, self.manifold.k()))
    }

    /// The released log coordinates for computed log coordinates `c`: each the exact grid cell of cᵢ + σZᵢ.
    pub fn release_coordinates<R: Rng + ?Sized>(&self, c: &DVector<f64>, rng: &mut R) -> DVector<f64> {
        c.map(|x| self.noise.sample_at(x, rng))
    }
}

#[cfg(test)]
mod tests;
