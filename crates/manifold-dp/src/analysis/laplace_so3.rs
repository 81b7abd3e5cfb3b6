//! The Laplace noise angle on SO(3): density f(θ) = sin²(θ/2)·e^{−εθ}/Z(ε) on [0, π] (docs/math.md §1.1).
//!
//! Closed forms (derivation in `docs/proofs/laplace_so3.md`): with sin²(t/2) = Σ_{k≥1} (−1)^{k+1}
//! t^{2k}/(2·(2k)!) and I_n(ρ) = (1/n!)∫₀^ρ tⁿe^{−εt}dt ([`scaled_lower_gamma`]),
//!
//! - G(ρ) = ∫₀^ρ sin²(t/2)e^{−εt}dt = Σ_k (−1)^{k+1} I_{2k}(ρ)/2, and F(ρ) = G(ρ)/G(π);
//! - ∫₀^π t·sin²(t/2)e^{−εt}dt = Σ_k (−1)^{k+1}(2k+1)·I_{2k+1}(π)/2, so E\[θ\] is that over G(π).
//!
//! These equal the elementary form G(ρ) = ½[(1 − e^{−ερ})/ε − (e^{−ερ}(sin ρ − ε cos ρ) + ε)/(1 + ε²)]
//! (tested), but unlike it they keep full relative precision for large ε, where the elementary form
//! cancels ~2·log₁₀ε digits. The series converges for every ε > 0, ρ ∈ [0, π] (terms are bounded by
//! ρ^{2k+1}/(2k+1)!).

use crate::analysis::angular::{self, AngularLaw};
use crate::analysis::special::scaled_lower_gamma;
use crate::error::Param;
use crate::error::{Fallible, check_positive};
use std::f64::consts::PI;

/// The Laplace noise-angle law for ε per radian.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaplaceAngle {
    epsilon: f64,
    normaliser: f64,
}

/// Σ_k (−1)^{k+1} c(k)·I_{2k+j}(ρ), summed until terms are negligible.
fn sin2_series(eps: f64, rho: f64, j: u32, coef: impl Fn(u32) -> f64) -> f64 {
    let mut sum = 0.0;
    for k in 1..=80u32 {
        let term = coef(k) * scaled_lower_gamma(2 * k + j, eps, rho);
        sum += if k % 2 == 1 { term } else { -term };
        if term.abs() <= 1e-17 * sum.abs() {
            break;
        }
    }
    sum
}

impl LaplaceAngle {
    /// The law for budget `epsilon` (finite, > 0).
    pub fn new(epsilon: f64) -> Fallible<Self> {
        let epsilon = check_positive(Param::Epsilon, epsilon)?;
        let normaliser = sin2_series(epsilon, PI, 0, |_| 0.5);
        Ok(LaplaceAngle { epsilon, normaliser })
    }

    /// Z(ε) = ∫₀^π sin²(θ/2)e^{−εθ}dθ.
    pub fn normaliser(&self) -> f64 {
        self.normaliser
    }

    /// G(ρ) = ∫₀^ρ sin²(t/2)e^{−εt}dt.
    fn partial(&self, rho: f64) -> f64 {
        sin2_series(self.epsilon, rho.clamp(0.0, PI), 0, |_| 0.5)
    }
}

impl AngularLaw for LaplaceAngle {
    fn pdf(&self, theta: f64) -> f64 {
        if !(0.0..=PI).contains(&theta) {
            return 0.0;
        }
        let s = (0.5 * theta).sin();
        s * s * (-self.epsilon * theta).exp() / self.normaliser
    }

    fn cdf(&self, rho: f64) -> f64 {
        if rho <= 0.0 {
            0.0
        } else if rho >= PI {
            1.0
        } else {
            (self.partial(rho) / self.normaliser).min(1.0)
        }
    }

    fn mean(&self) -> f64 {
        sin2_series(self.epsilon, PI, 1, |k| 0.5 * f64::from(2 * k + 1)) / self.normaliser
    }
}

/// Radius of indistinguishability ρ(ε, p) of the Laplace mechanism, in radians.
pub fn radius(epsilon: f64, p: f64) -> Fallible<f64> {
    LaplaceAngle::new(epsilon)?.quantile(p)
}

/// The ε (per radian) at which a fraction `p` of Laplace releases lie within `rho` radians.
pub fn epsilon_for_radius(rho: f64, p: f64) -> Fallible<f64> {
    angular::epsilon_for_radius(rho, p, LaplaceAngle::new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::quadrature::integrate;

    fn elementary_g(eps: f64, rho: f64) -> f64 {
        let e = (-eps * rho).exp();
        0.5 * (-(-eps * rho).exp_m1() / eps - (e * (rho.sin() - eps * rho.cos()) + eps) / (1.0 + eps * eps))
    }

    #[test]
    fn series_matches_elementary_form_and_quadrature() {
        for &eps in &[1e-6, 0.1, 0.683, 1.0, 3.5, 8.0] {
            let law = LaplaceAngle::new(eps).unwrap();
            for &rho in &[0.3, 1.0, 2.0, PI] {
                let a = law.partial(rho);
                let b = elementary_g(eps, rho);
                assert!(((a - b) / b).abs() < 1e-10, "eps={eps} rho={rho}: {a} vs {b}");
            }
        }
        for &eps in &[32.0, 1000.0, 1e6] {
            let law = LaplaceAngle::new(eps).unwrap();
            let f = |t: f64| (0.5 * t).sin().powi(2) * (-eps * t).exp();
            let q = crate::analysis::quadrature::integrate_peaked(&f, PI, 1.0 / eps, 1e-14);
            assert!(((law.normaliser() - q) / q).abs() < 1e-10, "eps={eps}");
            let m = crate::analysis::quadrature::integrate_peaked(&|t| t * f(t), PI, 1.0 / eps, 1e-14) / q;
            assert!(((law.mean() - m) / m).abs() < 1e-10, "eps={eps}");
        }
        let law = LaplaceAngle::new(1.0).unwrap();
        let m = integrate(&|t| t * law.pdf(t), 0.0, PI, 1e-15);
        assert!((law.mean() - m).abs() < 1e-12);
    }

    #[test]
    fn matches_math_md_table() {
        // docs/math.md §1.2 table, Laplace column: E[θ] / r68.
        for &(eps, mean, r68) in
            &[(0.5, 1.981, 2.412), (1.0, 1.731, 2.119), (3.5, 0.813, 0.958), (8.0, 0.371, 0.436), (32.0, 0.094, 0.110)]
        {
            let law = LaplaceAngle::new(eps).unwrap();
            assert!((law.mean() - mean).abs() < 6e-4, "eps={eps} mean {}", law.mean());
            assert!((law.quantile(0.683).unwrap() - r68).abs() < 6e-4, "eps={eps}");
        }
    }

    #[test]
    fn radius_and_inverse_round_trip() {
        for &eps in &[1e-3, 0.5, 1.0, 8.0, 1000.0, 1e5] {
            for &p in &[0.05, 0.5, 0.683, 0.99] {
                let rho = radius(eps, p).unwrap();
                let back = epsilon_for_radius(rho, p).unwrap();
                assert!(((back - eps) / eps).abs() < 1e-8, "eps={eps} p={p}: {back}");
                assert!((LaplaceAngle::new(eps).unwrap().cdf(rho) - p).abs() < 1e-12);
            }
        }
        assert!(epsilon_for_radius(3.0, 0.5).is_err()); // uniform noise already does this
        assert!(epsilon_for_radius(1e-9, 0.5).is_err()); // nothing up to 1e6 does this
        assert!(radius(1.0, 1.0).is_err());
        assert!(radius(-1.0, 0.5).is_err());
    }

    #[test]
    fn sampler_acceptance_at_least_0_94_everywhere() {
        use crate::sample::laplace_so3::{LaplaceProposal, LaplaceSo3Noise};
        let (mut worst, mut at) = (f64::INFINITY, 0.0);
        let mut switches = 0;
        let mut eps: f64 = 1e-6;
        let mut previous = LaplaceProposal::Stepped;
        while eps <= 1e6 {
            let noise = LaplaceSo3Noise::new(eps).unwrap();
            if noise.acceptance_rate() < worst {
                (worst, at) = (noise.acceptance_rate(), eps);
            }
            switches += usize::from(noise.proposal() != previous);
            previous = noise.proposal();
            eps *= 1.02;
        }
        // One switch, stepped → Gamma, near ε = 4.3, where both accept about 0.949.
        assert_eq!(switches, 1);
        assert!(worst > 0.94 && (4.0..4.6).contains(&at), "worst acceptance {worst} at eps = {at}");
    }
}
