//! The Euclidean Laplace (ℓ₂ K-norm) distribution on R^D: density ∝ exp(−‖z‖₂/σ), optionally truncated to
//! ‖z‖ ≤ t_max. Exact: ‖z‖ has density ∝ t^{D−1}e^{−t/σ} (a Gamma(D, σ) law, truncated if asked) and the
//! direction is uniform on S^{D−1} (Reimherr et al., Appendix A.4). Used for the log-Euclidean SPD metric
//! (flat) and for the extrinsic baseline of `reproduce riemannian-mean`.
//!
//! The truncated radius is drawn exactly by one of two rejection schemes, chosen from public parameters only:
//! a Gamma(D, σ) draw rejected beyond t_max (acceptance P[Gamma ≤ t_max]) when the Gamma's mean Dσ is within
//! t_max, otherwise t = t_max·U^{1/D} accepted with probability e^{−t/σ} (acceptance ≥ e^{−t_max/σ}, and the
//! power law is the target's shape t^{D−1} on [0, t_max]).

use crate::error::Param;
use crate::error::{Error, Fallible, check_positive};
use crate::sample::normal::{fill_normals, gamma_integer};
use crate::sample::uniform::unit;
use nalgebra::DVector;
use rand::Rng;

/// ℓ₂ K-norm (Euclidean Laplace) noise on R^D with scale σ.
#[derive(Debug, Clone)]
pub struct EuclideanLaplace {
    dim: usize,
    sigma: f64,
    t_max: Option<f64>,
}

impl EuclideanLaplace {
    /// The law on R^`dim` (dim ≥ 1) with scale `sigma` (finite, > 0), truncated to ‖z‖ ≤ `t_max` if given.
    pub fn new(dim: usize, sigma: f64, t_max: Option<f64>) -> Fallible<Self> {
        if dim == 0 {
            return Err(Error::InvalidParameter { name: Param::Dimension, value: 0.0, reason: "must be ≥ 1" });
        }
        let sigma = check_positive(Param::Sigma, sigma)?;
        let t_max = t_max.map(|t| check_positive(Param::TruncationRadius, t)).transpose()?;
        Ok(EuclideanLaplace { dim, sigma, t_max })
    }

    /// The dimension D.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// A bound on the probability, per draw, of the noise-only events where the float bounds are not claimed:
    /// δ_N of the direction for D ≥ 2 (`docs/proofs/float_safety.md` §3f, Lemma N "Directions"; §6).
    pub fn negligible_event_probability(&self) -> f64 {
        if self.dim >= 2 { crate::sample::normal::DIRECTION_EVENT_PROBABILITY } else { 0.0 }
    }

    /// The scale σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// Gamma(dim, σ): σ times a sum of `dim` exponentials, within (15 + ⌈log₂(dim + 1)⌉)·2^-53 of its own size
    /// (`crate::sample::normal::gamma_integer`, `docs/proofs/float_safety.md` §3f).
    #[inline]
    fn radius<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.sigma * gamma_integer(self.dim, rng)
    }

    /// A bound on |ln(â/a)| of the truncated radius's acceptance test (`docs/proofs/float_safety.md` §3f,
    /// Lemma R), for `dim` coordinates: t = t_max·U^{1/D} within 3u of itself, so −t/σ within 3u·t/σ < 3u·D (the
    /// test runs only where Dσ > t_max), and the comparison with a full-precision ln U adds (5 + 4D)u:
    /// 1.01·(5 + 7D)·2^-53. The other scheme (a Gamma draw rejected beyond t_max) has no float probability.
    pub fn truncated_acceptance_error(dim: usize) -> f64 {
        1.01 * (5.0 + 7.0 * dim as f64) * (f64::EPSILON / 2.0)
    }

    /// One draw of ‖z‖.
    pub fn sample_radius<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match self.t_max {
            None => self.radius(rng),
            Some(t_max) if self.dim as f64 * self.sigma <= t_max => loop {
                let t = self.radius(rng);
                if t <= t_max {
                    return t;
                }
            },
            Some(t_max) => loop {
                let t = t_max * unit(rng).powf(1.0 / self.dim as f64);
                // In logarithms against a full-precision uniform: e^{−t/σ} ≥ e^{−D} is small for large D (§3f,
                // Lemma R).
                if crate::sample::uniform::ln_unit(rng) < -t / self.sigma {
                    return t;
                }
            },
        }
    }

    /// One draw z ∈ R^D.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> DVector<f64> {
        let t = self.sample_radius(rng);
        let direction = loop {
            let mut g = DVector::<f64>::zeros(self.dim);
            fill_normals(rng, g.as_mut_slice());
            let n = g.norm();
            if n > 0.0 {
                break g / n;
            }
        };
        direction * t
    }

    /// E‖z‖: Dσ untruncated; by quadrature when truncated.
    pub fn mean_radius(&self) -> f64 {
        let d = self.dim as f64;
        match self.t_max {
            None => d * self.sigma,
            Some(t_max) => {
                let f = |p: f64| move |t: f64| (p * (t / self.sigma).ln() - t / self.sigma).exp();
                let scale = (d * self.sigma).min(t_max);
                let num = crate::analysis::quadrature::integrate_peaked(&f(d), t_max, scale, 1e-12);
                let den = crate::analysis::quadrature::integrate_peaked(&f(d - 1.0), t_max, scale, 1e-12);
                self.sigma * num / den
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::rng::seeded_rng_for_experiments;

    #[test]
    fn truncated_radius_respects_its_bound_and_mean() {
        let mut rng = seeded_rng_for_experiments(3);
        for (sigma, t_max) in [(0.1, 1.0), (10.0, 1.0)] {
            let law = EuclideanLaplace::new(3, sigma, Some(t_max)).unwrap();
            let n = 200_000;
            let mean =
                (0..n).map(|_| law.sample_radius(&mut rng)).inspect(|&t| assert!(t <= t_max)).sum::<f64>() / n as f64;
            // Standard error < 0.3/√n ≈ 7e-4; 1e-2 is > 10 standard errors.
            assert!((mean - law.mean_radius()).abs() < 1e-2, "{sigma}: {mean} vs {}", law.mean_radius());
        }
        assert!((EuclideanLaplace::new(3, 0.5, None).unwrap().mean_radius() - 1.5).abs() < 1e-15);
    }
}
