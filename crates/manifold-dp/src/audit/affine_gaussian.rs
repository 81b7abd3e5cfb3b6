//! The auditor's target for the affine-invariant Gaussian mean of SPD(k), k ≤ 3 (`affine-gaussian-mean`) and its
//! negative control with σ halved (`control:affine-gaussian-mean-half-sigma`): the release of
//! [`crate::mechanism::AffineGaussianMean`] at a footpoint (exact Gaussian cells of the chart coordinates at the
//! centre, L0·exp(S)·L0ᵀ of the grid point), claiming the (ε, δ) its μ-GDP implies
//! (`docs/proofs/spd_log_euclidean_mean.md` §8).

use super::auditor::InputPair;
use crate::Fallible;
use crate::mechanism::{AffineGaussianMean, Mechanism, Unprotected};
use crate::privacy::Guarantee;
use crate::space::spd::expm;
use nalgebra::DMatrix;
use rand_distr::{Distribution, StandardNormal};

/// The mean's noise at a footpoint, claiming `claim`.
#[derive(Debug, Clone)]
pub struct AffineGaussianNoise {
    mean: AffineGaussianMean,
    claim: Guarantee,
}

impl AffineGaussianNoise {
    /// The noise of `mean`, claiming `claim`.
    pub fn new(mean: AffineGaussianMean, claim: Guarantee) -> Self {
        AffineGaussianNoise { mean, claim }
    }
}

impl Mechanism for AffineGaussianNoise {
    type Point = DMatrix<f64>;

    const EXACT_RELEASE: bool = true;

    fn guarantee(&self) -> Guarantee {
        self.claim
    }

    /// g̃(x) + σ·N(0, I) in f64, mapped back: **not float-safe** (a control).
    fn privatize_unprotected<R: rand::CryptoRng + ?Sized>(
        &self,
        x: &DMatrix<f64>,
        rng: &mut R,
        _: Unprotected,
    ) -> DMatrix<f64> {
        let sigma = self.mean.sigma();
        let u = self.mean.chart_point(x).map(|c| {
            let z: f64 = StandardNormal.sample(rng);
            c + sigma * z
        });
        self.mean.point_at(&u)
    }

    /// The release: the point of the exact cells.
    fn privatize<R: rand::CryptoRng + ?Sized>(&self, x: &DMatrix<f64>, rng: &mut R) -> crate::Fallible<DMatrix<f64>> {
        Ok(self.mean.release_mean(x, rng))
    }

    /// The representative of z's cell: each chart coordinate rounded to the nearest multiple of the spacing.
    fn snap(&self, z: &mut DMatrix<f64>) {
        let h = 2f64.powi(self.mean.grid().spacing_log2);
        let u = self.mean.chart_coordinates(z).map(|c| (c / h + 0.5).floor() * h);
        *z = self.mean.point_at(&u);
    }

    /// −‖c(z) − g̃(x)‖²/(2σ²), w.r.t. Lebesgue measure on the chart coordinates.
    fn log_density(&self, z: &DMatrix<f64>, x: &DMatrix<f64>) -> f64 {
        let d = (self.mean.chart_coordinates(z) - self.mean.chart_point(x)).norm() / self.mean.sigma();
        -0.5 * d * d
    }

    fn name(&self) -> &'static str {
        "affine-gaussian-mean"
    }
}

/// The audited mean: n = 40 rows within 1.5 of I (the setting of the exponential-wrapped mechanisms' paper).
pub fn audited_mean(k: usize, mu: f64) -> Fallible<AffineGaussianMean> {
    AffineGaussianMean::new(k, DMatrix::identity(k, k), 1.5, 40, mu)
}

/// Neighbouring footpoints at affine-invariant distance Δ (and Δ/2): I against exp(Δ·H) for a unit diagonal and
/// a unit off-diagonal direction H, and a generic A = exp(S₀) against A^{½}·exp(Δ·H)·A^{½} (congruence by A^{½}
/// is an isometry, so the pair is exactly Δ apart, along a geodesic that does not pass through I).
pub fn neighbour_pairs(k: usize, sensitivity: f64) -> Vec<InputPair<DMatrix<f64>>> {
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let mut diag = DMatrix::zeros(k, k);
    diag[(0, 0)] = s;
    diag[(k - 1, k - 1)] = -s;
    let mut off = DMatrix::zeros(k, k);
    off[(0, k - 1)] = s;
    off[(k - 1, 0)] = s;
    let s0 = DMatrix::from_fn(k, k, |i, j| 0.3 * ((i + 2 * j) as f64).sin() + 0.3 * ((j + 2 * i) as f64).sin());
    let d = sensitivity;
    let id = DMatrix::identity(k, k);
    let half = expm(&(&s0 * 0.5));
    let pair = |label: String, x: DMatrix<f64>, x_prime: DMatrix<f64>| InputPair { label, x, x_prime, distance: 1.0 };
    vec![
        pair(
            format!("identity vs exp({d:.4} H), H diagonal (neighbours at the sensitivity)"),
            id.clone(),
            expm(&(&diag * d)),
        ),
        pair(
            format!("identity vs exp({:.4} H), H off-diagonal (half the sensitivity)", 0.5 * d),
            id,
            expm(&(&off * (0.5 * d))),
        ),
        pair(
            format!("generic A = exp(S0) vs A^1/2 exp({d:.4} H) A^1/2, H off-diagonal"),
            expm(&s0),
            &half * expm(&(&off * d)) * &half,
        ),
    ]
}
