//! The Bingham noise angle on SO(3): density f(θ) ∝ sin²(θ/2)·exp(−κ sin²(θ/2)) on [0, π] (the sin² is
//! the Haar measure), evaluated by adaptive Gauss–Legendre quadrature split at the natural scale
//! min(1, 1/√κ), to relative accuracy ~1e-13.
//!
//! For a budget ε per radian the tight calibration is κ = 2ε (`docs/proofs/bingham_so3_tight.md`);
//! [`radius`] and [`epsilon_for_radius`] use it.

use crate::analysis::angular::{self, AngularLaw};
use crate::analysis::quadrature::{cumulative, integrate_peaked};
use crate::error::Param;
use crate::error::{Fallible, check_positive};
use std::f64::consts::PI;

const REL_TOL: f64 = 1e-14;

/// The Bingham noise-angle law with concentration κ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BinghamAngle {
    kappa: f64,
    normaliser: f64,
}

impl BinghamAngle {
    /// The law for concentration `kappa` (finite, > 0).
    pub fn new(kappa: f64) -> Fallible<Self> {
        let kappa = check_positive(Param::Concentration, kappa)?;
        let mut law = BinghamAngle { kappa, normaliser: 1.0 };
        law.normaliser = law.integral(PI, &|_| 1.0);
        Ok(law)
    }

    /// Z(κ) = ∫₀^π sin²(θ/2)·exp(−κ sin²(θ/2)) dθ.
    pub fn normaliser(&self) -> f64 {
        self.normaliser
    }

    fn density(&self, t: f64) -> f64 {
        let s2 = (0.5 * t).sin().powi(2);
        s2 * (-self.kappa * s2).exp()
    }

    fn integral(&self, rho: f64, weight: &dyn Fn(f64) -> f64) -> f64 {
        let scale = (1.0 / self.kappa.sqrt()).min(1.0);
        integrate_peaked(&|t| weight(t) * self.density(t), rho, scale, REL_TOL)
    }
}

impl AngularLaw for BinghamAngle {
    fn pdf(&self, theta: f64) -> f64 {
        if (0.0..=PI).contains(&theta) { self.density(theta) / self.normaliser } else { 0.0 }
    }

    fn cdf(&self, rho: f64) -> f64 {
        if rho <= 0.0 {
            0.0
        } else if rho >= PI {
            1.0
        } else {
            (self.integral(rho, &|_| 1.0) / self.normaliser).min(1.0)
        }
    }

    fn mean(&self) -> f64 {
        self.integral(PI, &|t| t) / self.normaliser
    }

    fn cdf_sorted(&self, sorted: &[f64]) -> Vec<f64> {
        let clipped: Vec<f64> = sorted.iter().map(|x| x.clamp(0.0, PI)).collect();
        let density = |t: f64| self.density(t);
        cumulative(&density, 0.0, &clipped, REL_TOL * self.normaliser / sorted.len().max(1) as f64)
            .into_iter()
            .map(|g| (g / self.normaliser).min(1.0))
            .collect()
    }
}

/// Radius of indistinguishability ρ(ε, p), radians, of the Bingham mechanism at budget ε (κ = 2ε).
pub fn radius(epsilon: f64, p: f64) -> Fallible<f64> {
    BinghamAngle::new(bingham_kappa_for_epsilon(epsilon)?)?.quantile(p)
}

/// The budget ε (per radian; κ = 2ε) at which a fraction `p` of Bingham releases lie within `rho`.
pub fn epsilon_for_radius(rho: f64, p: f64) -> Fallible<f64> {
    angular::epsilon_for_radius(rho, p, |eps| BinghamAngle::new(bingham_kappa_for_epsilon(eps)?))
}

/// Bingham concentration for a budget of ε per radian of φ6: κ = 2ε.
///
/// Bingham(κ) on SO(3) is exactly (κ/2)·φ6-private and no better, so κ = 2ε is the largest (least noisy)
/// concentration that keeps εφ6-privacy. Proof: `docs/proofs/bingham_so3_tight.md`.
pub fn bingham_kappa_for_epsilon(epsilon: f64) -> Fallible<f64> {
    Ok(2.0 * check_positive(Param::Epsilon, epsilon)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_math_md_table() {
        // docs/math.md §1.2: (ε, tight κ=2ε mean / r68, paper κ=ε mean / r68).
        for &(eps, m2, r2, m1, r1) in &[
            (0.5, 2.031, 2.479, 2.124, 2.565),
            (1.0, 1.827, 2.249, 2.031, 2.479),
            (3.5, 0.979, 1.127, 1.507, 1.801),
            (8.0, 0.589, 0.690, 0.893, 1.033),
            (32.0, 0.285, 0.335, 0.407, 0.478),
        ] {
            let tight = BinghamAngle::new(2.0 * eps).unwrap();
            let paper = BinghamAngle::new(eps).unwrap();
            assert!((tight.mean() - m2).abs() < 6e-4 && (tight.quantile(0.683).unwrap() - r2).abs() < 6e-4);
            assert!((paper.mean() - m1).abs() < 6e-4 && (paper.quantile(0.683).unwrap() - r1).abs() < 6e-4);
        }
    }

    #[test]
    fn closed_form_limit_and_inverse() {
        // Concentrated limit: sin²(θ/2) ≈ θ²/4, so X = κθ²/4 ~ Gamma(3/2, 1) (a Maxwell law for θ).
        let kappa = 2e6;
        let law = BinghamAngle::new(kappa).unwrap();
        // θ = 2√(X/κ) and E√X = Γ(2)/Γ(3/2) = 2/√π.
        let maxwell_mean = 2.0 * (2.0 / PI.sqrt()) / kappa.sqrt();
        assert!(((law.mean() - maxwell_mean) / maxwell_mean).abs() < 1e-5);
        let law = BinghamAngle::new(3.0).unwrap();
        let xs = [0.1, 0.5, 1.0, 2.0, 3.0];
        for (x, c) in xs.iter().zip(law.cdf_sorted(&xs)) {
            assert!((law.cdf(*x) - c).abs() < 1e-13);
        }
        for &eps in &[0.01, 1.0, 32.0, 1e4] {
            let rho = radius(eps, 0.683).unwrap();
            let back = epsilon_for_radius(rho, 0.683).unwrap();
            assert!(((back - eps) / eps).abs() < 1e-7, "{eps} {back}");
        }
    }
}
