//! The angle law of the wrapped Laplace baseline on the circle: the circular distance d ∈ [0, π] between
//! input and release when Laplace(1/ε) noise is added to the angle and wrapped. Its density is
//! ε·cosh(ε(π − d))/sinh(επ), so F(ρ) = 1 − sinh(ε(π − ρ))/sinh(επ) and E\[d\] = tanh(επ/2)/ε
//! (`docs/proofs/wrapped_laplace_circle.md`).

use crate::analysis::angular::AngularLaw;
use crate::error::Param;
use crate::error::{Fallible, check_positive};
use std::f64::consts::PI;

/// The law of the circular distance between a wrapped-Laplace release and its input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WrappedLaplaceAngle {
    epsilon: f64,
}

impl WrappedLaplaceAngle {
    /// The law for Laplace noise of scale 1/ε (ε finite, > 0, per radian).
    pub fn new(epsilon: f64) -> Fallible<Self> {
        Ok(WrappedLaplaceAngle { epsilon: check_positive(Param::Epsilon, epsilon)? })
    }

    /// sinh(ε(π − ρ))/sinh(επ) = P[d > ρ], as e^{−ερ}(1 − e^{−2ε(π−ρ)})/(1 − e^{−2επ}) (no overflow).
    fn survival(&self, rho: f64) -> f64 {
        let e = self.epsilon;
        (-e * rho).exp() * (-2.0 * e * (PI - rho)).exp_m1() / (-2.0 * e * PI).exp_m1()
    }
}

impl AngularLaw for WrappedLaplaceAngle {
    fn pdf(&self, d: f64) -> f64 {
        if !(0.0..=PI).contains(&d) {
            return 0.0;
        }
        // ε cosh(ε(π − d))/sinh(επ) = ε e^{−εd}(1 + e^{−2ε(π−d)})/(1 − e^{−2επ}).
        let e = self.epsilon;
        e * (-e * d).exp() * (1.0 + (-2.0 * e * (PI - d)).exp()) / -(-2.0 * e * PI).exp_m1()
    }

    fn cdf(&self, rho: f64) -> f64 {
        if rho <= 0.0 {
            0.0
        } else if rho >= PI {
            1.0
        } else {
            (1.0 - self.survival(rho)).clamp(0.0, 1.0)
        }
    }

    fn mean(&self) -> f64 {
        (0.5 * self.epsilon * PI).tanh() / self.epsilon
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::quadrature::integrate;

    #[test]
    fn closed_forms_agree_with_quadrature() {
        for eps in [1e-3, 0.3, 1.0, 5.0, 200.0] {
            let law = WrappedLaplaceAngle::new(eps).unwrap();
            let total = integrate(&|t| law.pdf(t), 0.0, PI, 1e-13);
            assert!((total - 1.0).abs() < 1e-10, "{eps}: {total}");
            for rho in [0.01, 0.5, 2.0, 3.1] {
                let q = integrate(&|t| law.pdf(t), 0.0, rho, 1e-13);
                assert!((law.cdf(rho) - q).abs() < 1e-10, "{eps} {rho}");
            }
            let mean = integrate(&|t| t * law.pdf(t), 0.0, PI, 1e-13);
            assert!((law.mean() - mean).abs() < 1e-10 * mean.max(1e-3), "{eps}: {} vs {mean}", law.mean());
            let r = law.quantile(0.683).unwrap();
            assert!((law.cdf(r) - 0.683).abs() < 1e-12);
        }
    }
}
