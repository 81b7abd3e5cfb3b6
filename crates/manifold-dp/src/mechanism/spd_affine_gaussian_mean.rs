//! The private Fréchet mean of SPD(k) matrices under the affine-invariant metric, k ≤ 3, by the
//! exponential-wrapped Gaussian at the public centre (μ-GDP; `docs/proofs/spd_log_euclidean_mean.md` §8).
//!
//! The chart is the affine Laplace mean's (`docs/proofs/float_safety.md` §3e): W = L0⁻¹ for the Cholesky factor
//! L0 of the centre m0, g(P) = the isometric coordinates of log(W·P·Wᵀ) ∈ R^D, D = k(k + 1)/2, moved onto the
//! Euclidean ball of radius R_P = r + Δ/2 if they lie outside. Congruence by W is an isometry, log at I is
//! 1-Lipschitz from the affine-invariant distance to the Frobenius norm (SPD(k) is a Hadamard manifold: the
//! exponential metric increasing property, Bhatia, *Positive Definite Matrices*, Thm 6.1.4) and the projection
//! onto a Euclidean ball is 1-Lipschitz, so g moves by at most ρ(P̂, P̂′) ≤ Δ between neighbours (Theorem 2's Δ,
//! the affine Laplace mean's). Computed in f64, g̃ lies within e_F of g ([`spd_footpoint_error`]), so the
//! computed chart points of neighbours lie within Δ + 2e_F. The release draws each coordinate of g̃(P̂) + σZ,
//! Z ~ N(0, I_D), σ = (Δ + 2e_F)/μ, as its exact cell on a public grid (the real-line Gaussian's sampler,
//! `docs/proofs/float_safety.md` §8b): μ-GDP, the rounding costing nothing. L0·exp(S)·L0ᵀ of the grid point S is
//! post-processing.

use crate::Fallible;
use crate::error::Param;
use crate::error::{Error, check_positive};
use crate::manifold::float_error::spd_condition_bound;
use crate::manifold::{
    KarcherOptions, KarcherStop, Manifold, SpdAffine, SpdLogEuclidean, certified_mean_sensitivity, check_ball,
    frechet_mean_within,
};
use crate::mechanism::riemannian_laplace::{coords_to_sym, spd_footpoint_error};
use crate::numerics::rounding::{add_up, div_up};
use crate::privacy::Guarantee;
use crate::sample::rounded_gaussian::RoundedGaussian;
use crate::space::grid::{Chart, Grid};
use crate::space::spd::{check_positive_definite, expm};
use nalgebra::{DMatrix, DVector};
use rand::{CryptoRng, Rng};

/// The largest k of the affine-invariant Gaussian mean: the sizes whose eigensolver takes the fixed 2×2 and 3×3
/// paths with the measured backward error c_E = 64 (`docs/proofs/float_safety.md` §3e, assumption (E)), as the
/// affine Laplace mean's.
pub const MAX_AFFINE_GAUSSIAN_MEAN_K: usize = 3;

/// `k` if 1 ≤ k ≤ [`MAX_AFFINE_GAUSSIAN_MEAN_K`], else an error saying what is offered instead.
pub fn check_affine_gaussian_mean_k(k: usize) -> Fallible<usize> {
    if (1..=MAX_AFFINE_GAUSSIAN_MEAN_K).contains(&k) {
        Ok(k)
    } else {
        Err(Error::InvalidParameter {
            name: Param::K,
            value: k as f64,
            reason: "the affine-invariant Gaussian mean is offered for 1 ≤ k ≤ 3 (the float-error bounds of its \
                     chart are certified there); the log-Euclidean Gaussian mean takes k ≤ 8",
        })
    }
}

/// The private affine-invariant Fréchet mean by the exponential-wrapped Gaussian at the public centre: μ-GDP for
/// data sets of n SPD(k) matrices within the public ball B_r(m0) that differ in one row
/// (`docs/proofs/spd_log_euclidean_mean.md` §8).
#[derive(Debug, Clone)]
pub struct AffineGaussianMean {
    manifold: SpdAffine,
    center: DMatrix<f64>,
    whiten: DMatrix<f64>,
    unwhiten: DMatrix<f64>,
    radius: f64,
    footpoint_radius: f64,
    n: usize,
    mu: f64,
    sensitivity: f64,
    chart_error: f64,
    stop: KarcherStop<DMatrix<f64>>,
    noise: RoundedGaussian,
}

impl AffineGaussianMean {
    /// The release for data sets of `n` matrices within `radius` (affine-invariant) of `center`, at `mu`-GDP,
    /// with the default Karcher tolerance.
    pub fn new(k: usize, center: DMatrix<f64>, radius: f64, n: usize, mu: f64) -> Fallible<Self> {
        Self::with_options(k, center, radius, n, mu, KarcherOptions::default())
    }

    /// [`AffineGaussianMean::new`] with an explicit Karcher stopping rule. Δ from
    /// [`certified_mean_sensitivity`] (the affine Laplace mean's), e_F = [`spd_footpoint_error`] at
    /// R_P = r + Δ/2 and the centre's condition bound, σ = (Δ + 2e_F)/μ rounded up; the grid is the real-line
    /// Gaussian's default, 2^(⌊log₂ σ⌋ − 20). [`Error::NumericalLimit`] where the centre is too ill-conditioned
    /// for e_F to be bounded.
    pub fn with_options(
        k: usize,
        center: DMatrix<f64>,
        radius: f64,
        n: usize,
        mu: f64,
        options: KarcherOptions,
    ) -> Fallible<Self> {
        let manifold = SpdAffine::new(check_affine_gaussian_mean_k(k)?)?;
        if center.shape() != (k, k) {
            return Err(Error::WrongLength { expected: k * k, got: center.len() });
        }
        check_positive_definite(&center)?;
        let mu = check_positive(Param::Mu, mu)?;
        let (stop, sensitivity) = certified_mean_sensitivity(&manifold, &center, radius, n, options)?;
        // The chart of the affine Laplace mean (float_safety.md §3e): W = fl(fl(chol m0)⁻¹).
        let not_pd = || Error::NotPositiveDefinite { min_eigenvalue: 0.0 };
        let unwhiten = center.clone().cholesky().ok_or_else(not_pd)?.l();
        let whiten = unwhiten.clone().try_inverse().ok_or_else(not_pd)?;
        let footpoint_radius = radius + 0.5 * sensitivity;
        let cond_center = spd_condition_bound(&center);
        let chart_error = spd_footpoint_error(k, cond_center, footpoint_radius);
        if !chart_error.is_finite() {
            return Err(Error::NumericalLimit(format!(
                "the centre's condition number (at most {cond_center:.3e}) is too large for its whitening to be \
                 bounded in double precision (relative error above 1e-3); use a better-conditioned centre"
            )));
        }
        // Rounded up, so that (Δ + 2e_F)/σ ≤ μ for the σ used.
        let sigma = div_up(add_up(sensitivity, 2.0 * chart_error), mu);
        let noise = RoundedGaussian::new(sigma, RoundedGaussian::default_grid_log2(sigma))?;
        Ok(AffineGaussianMean {
            manifold,
            center,
            whiten,
            unwhiten,
            radius,
            footpoint_radius,
            n,
            mu,
            sensitivity,
            chart_error,
            stop,
            noise,
        })
    }

    /// μ-GDP at the μ asked (the chart's f64 error is inside σ; the exact cells cost nothing):
    /// `{"notion": "gdp", "mu": μ}`.
    pub fn guarantee(&self) -> Guarantee {
        Guarantee::gdp(self.mu)
    }

    /// σ = (Δ + 2e_F)/μ (rounded up), the standard deviation of each chart coordinate's noise.
    pub fn sigma(&self) -> f64 {
        self.noise.sigma()
    }

    /// Δ: Theorem 2's bound at the widened radius plus the certified Karcher tolerance term (the affine Laplace
    /// mean's).
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// e_F: the bound on the distance between the computed chart point g̃(P) and the exact g(P), paid as 2e_F
    /// inside σ.
    pub fn chart_error(&self) -> f64 {
        self.chart_error
    }

    /// The manifold (SPD(k), affine-invariant).
    pub fn manifold(&self) -> &SpdAffine {
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

    /// R_P = r + Δ/2: chart points are moved onto the Euclidean ball of this radius if they lie outside.
    pub fn footpoint_radius(&self) -> f64 {
        self.footpoint_radius
    }

    /// The number of rows n.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The Karcher stopping rule the mean must be computed with (its τ is inside Δ).
    pub fn stop(&self) -> &KarcherStop<DMatrix<f64>> {
        &self.stop
    }

    /// The public grid of the chart coordinates at the centre: spacing 2^(⌊log₂ σ⌋ − 20).
    pub fn grid(&self) -> Grid {
        Grid { chart: Chart::SpdLogAtCenter, spacing_log2: self.noise.grid_log2() }
    }

    /// The rounding's cost: 0 (each coordinate's cell is drawn exactly from the Gaussian's cell law; the chart's
    /// f64 error is paid in σ, not here).
    pub fn rounding_cost(&self) -> f64 {
        0.0
    }

    /// E‖u − g̃(m̂)‖ of the exact law, the error in the chart at the centre (a lower bound on the affine-invariant
    /// distance between the release and the mean, log at the centre being 1-Lipschitz): σ·√2·Γ((D + 1)/2)/Γ(D/2).
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

    /// Releases a mean computed elsewhere (with this release's Karcher stop): L0·exp(S)·L0ᵀ for the grid point S
    /// whose coordinates are the exact cells of g̃(m̂)ᵢ + σZᵢ.
    pub fn release_mean<R: CryptoRng + ?Sized>(&self, mean: &DMatrix<f64>, rng: &mut R) -> DMatrix<f64> {
        let u = self.release_coordinates(&self.chart_point(mean), rng);
        self.point_at(&u)
    }

    /// g̃(P): the isometric coordinates of log(W·P·Wᵀ) computed in f64 (symmetrised congruence, then the
    /// eigendecomposition's log), moved onto the Euclidean ball of radius R_P if their norm exceeds it; 0 (the
    /// centre) where the whitening lost positive definiteness in f64 (its log not finite).
    pub fn chart_point(&self, p: &DMatrix<f64>) -> DVector<f64> {
        let c = self.chart_coordinates(p);
        let norm = c.norm();
        if !norm.is_finite() || c.len() != self.manifold.dimension() {
            DVector::zeros(self.manifold.dimension())
        } else if norm > self.footpoint_radius {
            c * (self.footpoint_radius / norm)
        } else {
            c
        }
    }

    /// The isometric coordinates of log(W·P·Wᵀ) computed in f64, not moved onto any ball (the chart in which
    /// releases are read back; empty only if k were out of range, which construction rules out).
    pub fn chart_coordinates(&self, p: &DMatrix<f64>) -> DVector<f64> {
        let m = &self.whiten * p * self.whiten.transpose();
        let whitened = (&m + m.transpose()) * 0.5;
        SpdLogEuclidean::new(self.manifold.k())
            .map(|le| le.log_coordinates(&whitened))
            .unwrap_or_else(|_| DVector::zeros(0))
    }

    /// The released chart coordinates for computed chart coordinates `c`: each the exact grid cell of cᵢ + σZᵢ.
    pub fn release_coordinates<R: Rng + ?Sized>(&self, c: &DVector<f64>, rng: &mut R) -> DVector<f64> {
        c.map(|x| self.noise.sample_at(x, rng))
    }

    /// The point of chart coordinates `u`: L0·exp(S)·L0ᵀ (symmetrised), S the symmetric matrix of coordinates u.
    pub fn point_at(&self, u: &DVector<f64>) -> DMatrix<f64> {
        let m = &self.unwhiten * expm(&coords_to_sym(u, self.manifold.k())) * self.unwhiten.transpose();
        (&m + m.transpose()) * 0.5
    }
}

#[cfg(test)]
mod tests;
