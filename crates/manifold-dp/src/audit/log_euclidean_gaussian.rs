//! The auditor's target for the log-Euclidean Gaussian mean of SPD(k) (`log-euclidean-gaussian-mean`) and its
//! negative control with σ halved (`control:gaussian-mean-half-sigma` on spd:K): the release of
//! [`crate::mechanism::LogEuclideanGaussianMean`] at a footpoint (exact Gaussian cells of the log coordinates,
//! exp of the grid point), claiming the (ε, δ) its μ-GDP implies (`docs/proofs/spd_log_euclidean_mean.md` §5).

use super::auditor::InputPair;
use crate::Fallible;
use crate::manifold::SpdLogEuclidean;
use crate::mechanism::Unprotected;
use crate::mechanism::riemannian_laplace::coords_to_sym;
use crate::mechanism::{LogEuclideanGaussianMean, Mechanism};
use crate::privacy::Guarantee;
use crate::sample::rounded_gaussian::RoundedGaussian;
use crate::space::spd::expm;
use nalgebra::{DMatrix, DVector};
use rand_distr::{Distribution, StandardNormal};

/// The mean's noise at a footpoint: each isometric log coordinate's exact Gaussian cell at σ on the mean's grid,
/// claiming `claim`.
#[derive(Debug, Clone)]
pub struct LogEuclideanGaussianNoise {
    manifold: SpdLogEuclidean,
    noise: RoundedGaussian,
    claim: Guarantee,
}

impl LogEuclideanGaussianNoise {
    /// The noise at `sigma` on SPD(k) on the grid of spacing 2^`grid_log2`, claiming `claim`.
    pub fn new(k: usize, sigma: f64, grid_log2: i32, claim: Guarantee) -> Fallible<Self> {
        Ok(LogEuclideanGaussianNoise {
            manifold: SpdLogEuclidean::new(k)?,
            noise: RoundedGaussian::new(sigma, grid_log2)?,
            claim,
        })
    }

    fn release(&self, u: &DVector<f64>) -> DMatrix<f64> {
        expm(&coords_to_sym(u, self.manifold.k()))
    }
}

impl Mechanism for LogEuclideanGaussianNoise {
    type Point = DMatrix<f64>;

    const EXACT_RELEASE: bool = true;

    fn guarantee(&self) -> Guarantee {
        self.claim
    }

    /// ĉ(x) + σ·N(0, I) in f64, exp of it: **not float-safe** (a control).
    fn privatize_unprotected<R: rand::CryptoRng + ?Sized>(
        &self,
        x: &DMatrix<f64>,
        rng: &mut R,
        _: Unprotected,
    ) -> DMatrix<f64> {
        let sigma = self.noise.sigma();
        let u = self.manifold.log_coordinates(x).map(|c| {
            let z: f64 = StandardNormal.sample(rng);
            c + sigma * z
        });
        self.release(&u)
    }

    /// The release: exp of the grid point of the exact cells.
    fn privatize<R: rand::CryptoRng + ?Sized>(&self, x: &DMatrix<f64>, rng: &mut R) -> crate::Fallible<DMatrix<f64>> {
        let u = self.manifold.log_coordinates(x).map(|c| self.noise.sample_at(c, rng));
        Ok(self.release(&u))
    }

    /// The representative of z's cell: each log coordinate rounded to the nearest multiple of the spacing.
    fn snap(&self, z: &mut DMatrix<f64>) {
        let h = self.noise.spacing();
        let u = self.manifold.log_coordinates(z).map(|c| (c / h + 0.5).floor() * h);
        *z = self.release(&u);
    }

    /// −‖ĉ(z) − ĉ(x)‖²/(2σ²), w.r.t. Lebesgue measure on the log coordinates.
    fn log_density(&self, z: &DMatrix<f64>, x: &DMatrix<f64>) -> f64 {
        let d = (self.manifold.log_coordinates(z) - self.manifold.log_coordinates(x)).norm() / self.noise.sigma();
        -0.5 * d * d
    }

    fn name(&self) -> &'static str {
        "log-euclidean-gaussian-mean"
    }
}

/// The audited mean: n = 40 rows within 1.5 of I (the setting of the exponential-wrapped mechanisms' paper).
pub fn audited_mean(k: usize, mu: f64) -> Fallible<LogEuclideanGaussianMean> {
    LogEuclideanGaussianMean::new(k, DMatrix::identity(k, k), 1.5, 40, mu)
}

/// Neighbouring footpoints at log-Euclidean distance Δ (and Δ/2): I against exp(Δ·H) for a unit diagonal and a
/// unit off-diagonal direction H, and a generic exp(S₀) against exp(S₀ + Δ·H).
pub fn neighbour_pairs(k: usize, sensitivity: f64) -> Vec<InputPair<DMatrix<f64>>> {
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let mut diag = DMatrix::zeros(k, k);
    diag[(0, 0)] = s;
    diag[(k - 1, k - 1)] = -s;
    let mut off = DMatrix::zeros(k, k);
    off[(0, k - 1)] = s;
    off[(k - 1, 0)] = s;
    let s0 = DMatrix::from_fn(k, k, |i, j| 0.3 * ((i + 2 * j) as f64).sin() + 0.3 * ((j + 2 * i) as f64).sin());
    let zero = DMatrix::zeros(k, k);
    let d = sensitivity;
    let pair = |label: String, a: &DMatrix<f64>, b: DMatrix<f64>| InputPair {
        label,
        x: expm(a),
        x_prime: expm(&b),
        distance: 1.0,
    };
    vec![
        pair(format!("identity vs exp({d:.4} H), H diagonal (neighbours at the sensitivity)"), &zero, &diag * d),
        pair(
            format!("identity vs exp({:.4} H), H off-diagonal (half the sensitivity)", 0.5 * d),
            &zero,
            &off * (0.5 * d),
        ),
        pair(format!("generic exp(S0) vs exp(S0 + {d:.4} H), H off-diagonal"), &s0, &s0 + &off * d),
    ]
}
