//! The SO(3) paper's own Laplace samplers (Hildebrandt et al. 2025, §3.3), kept **only to reproduce its
//! figures and as negative controls**. None is exact, none is reachable from a mechanism, and none carries
//! a privacy guarantee:
//!
//! - [`paper_haar_angle`]: θ = 2·arccos(√(1 − u)). Its density is ½ sin θ, not the Haar angle density
//!   (1 − cos θ)/π (docs/math.md §1.1), so anything built on it is not εφ6-private for any ε.
//! - [`PaperNaiveLaplace`]: that proposal accepted with probability e^{−εθ}, with an iteration cap after
//!   which the last proposal is returned (the cap is what makes the paper's Figure 2 "fail to converge").
//! - [`PaperGammaLaplace`]: θ ~ Gamma(3, rate ε), the paper's large-ε approximation of the angle law.
//! - [`PaperEfficientLaplace`]: the paper's combination: naive below t_ε = 3.5, Gamma above.
//!
//! The axis is drawn as in the paper's eqs. (17)–(19): z ~ U[−1, 1], ψ ~ U[0, 2π).

use crate::sample::uniform::unit;
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use rand::distr::Distribution;
use rand::{Rng, RngExt};
use std::f64::consts::PI;

/// The paper's threshold t_ε between its naive and Gamma samplers.
pub const PAPER_THRESHOLD: f64 = 3.5;

/// The paper's (wrong) Haar angle: θ = 2·arccos(√(1 − u)), density ½ sin θ.
pub fn paper_haar_angle<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    2.0 * (1.0 - rng.random::<f64>()).sqrt().acos()
}

fn paper_axis<R: Rng + ?Sized>(rng: &mut R) -> Vector3<f64> {
    let z = 2.0 * rng.random::<f64>() - 1.0;
    let psi = 2.0 * PI * rng.random::<f64>();
    let r = (1.0 - z * z).sqrt();
    Vector3::new(r * psi.cos(), r * psi.sin(), z)
}

fn rotation<R: Rng + ?Sized>(theta: f64, rng: &mut R) -> UnitQuaternion<f64> {
    let (s, c) = (0.5 * theta).sin_cos();
    UnitQuaternion::new_normalize(Quaternion::from_parts(c, paper_axis(rng) * s))
}

/// The paper's naive rejection sampler (wrong Haar proposal, capped loop). Not exact, not private.
#[derive(Debug, Clone, Copy)]
pub struct PaperNaiveLaplace {
    /// ε per radian.
    pub epsilon: f64,
    /// Proposals tried before giving up and returning the last one.
    pub max_iterations: usize,
}

impl PaperNaiveLaplace {
    /// Draws the noise angle only.
    pub fn sample_angle<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let mut theta = paper_haar_angle(rng);
        for _ in 1..self.max_iterations.max(1) {
            if rng.random::<f64>() < (-self.epsilon * theta).exp() {
                return theta;
            }
            theta = paper_haar_angle(rng);
        }
        theta
    }
}

impl Distribution<UnitQuaternion<f64>> for PaperNaiveLaplace {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> UnitQuaternion<f64> {
        let theta = self.sample_angle(rng);
        rotation(theta, rng)
    }
}

/// The paper's Gamma(3, ε) approximation of the angle. Not exact.
#[derive(Debug, Clone, Copy)]
pub struct PaperGammaLaplace {
    /// ε per radian.
    pub epsilon: f64,
}

impl PaperGammaLaplace {
    /// Draws the noise angle only (may exceed π, as in the paper).
    pub fn sample_angle<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        -(unit(rng) * unit(rng) * unit(rng)).ln() / self.epsilon
    }
}

impl Distribution<UnitQuaternion<f64>> for PaperGammaLaplace {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> UnitQuaternion<f64> {
        let theta = self.sample_angle(rng);
        rotation(theta, rng)
    }
}

/// The paper's "efficient" sampler: naive below ε = 3.5, Gamma approximation above. Not exact.
#[derive(Debug, Clone, Copy)]
pub struct PaperEfficientLaplace {
    /// ε per radian.
    pub epsilon: f64,
    /// Iteration cap of the naive branch.
    pub max_iterations: usize,
}

impl Distribution<UnitQuaternion<f64>> for PaperEfficientLaplace {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> UnitQuaternion<f64> {
        if self.epsilon > PAPER_THRESHOLD {
            PaperGammaLaplace { epsilon: self.epsilon }.sample(rng)
        } else {
            PaperNaiveLaplace { epsilon: self.epsilon, max_iterations: self.max_iterations }.sample(rng)
        }
    }
}
