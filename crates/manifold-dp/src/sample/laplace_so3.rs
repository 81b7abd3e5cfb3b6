//! Exact sampler of the Laplace noise rotation on SO(3): axis uniform on S², angle θ ∈ [0, π] with density
//! f(θ) ∝ sin²(θ/2)·e^{−εθ} (MATH.md §1.1; proof of exactness in `docs/proofs/laplace_so3.md`).
//!
//! Two rejection samplers, each exact for every ε, chosen by whichever accepts more often:
//!
//! - **Haar proposal** (ε < ε* = π^{−1/3} ≈ 0.683): draw a Haar-uniform rotation q (its angle has density
//!   ∝ sin²(θ/2)) and accept it with probability e^{−εθ}. The accepted q is already the noise rotation.
//!   Acceptance 2·Z(ε)/π, with Z(ε) = ∫₀^π sin²(θ/2)e^{−εθ}dθ.
//! - **Gamma proposal** (ε ≥ ε*): θ ~ Gamma(3, rate ε) as −ln(u₁u₂u₃)/ε, reject if θ > π, accept with
//!   probability (sin(θ/2)/(θ/2))² ∈ [4/π², 1]; then a uniform axis. Acceptance 2ε³·Z(ε).
//!
//! The two acceptance rates are equal at ε* (2/π = 2ε³); the Haar rate falls and the Gamma rate rises with
//! ε, so the minimum over all ε is at ε*, where it is 0.2459 (tested in `analysis::laplace_so3`); it tends to
//! 1 as ε → 0 and as ε → ∞. No loop is capped: the number of proposals is geometric with mean ≤ 4.07.

use crate::analysis::laplace_so3::LaplaceAngle;
use crate::error::{Fallible, check_positive};
use crate::sample::open_unit;
use crate::sample::sphere::{uniform_s2, uniform_s3};
use nalgebra::{Quaternion, UnitQuaternion};
use rand::distr::Distribution;
use rand::{Rng, RngExt};
use std::f64::consts::PI;

/// Below this ε the Haar proposal accepts more often than the Gamma proposal: ε* = π^{−1/3}.
pub fn haar_proposal_below() -> f64 {
    PI.powf(-1.0 / 3.0)
}

/// The Laplace noise distribution on SO(3) at the identity, with ε per radian.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaplaceSo3Noise {
    epsilon: f64,
    use_haar: bool,
}

impl LaplaceSo3Noise {
    /// Noise for budget `epsilon` (finite, > 0).
    pub fn new(epsilon: f64) -> Fallible<Self> {
        let epsilon = check_positive("epsilon", epsilon)?;
        Ok(LaplaceSo3Noise { epsilon, use_haar: epsilon < haar_proposal_below() })
    }

    /// ε per radian.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// Probability that one proposal is accepted (exact, from the closed-form normaliser).
    pub fn acceptance_rate(&self) -> f64 {
        let z = LaplaceAngle::new(self.epsilon).expect("epsilon validated").normaliser();
        if self.use_haar { 2.0 * z / PI } else { 2.0 * self.epsilon.powi(3) * z }
    }

    #[inline]
    fn sample_haar<R: Rng + ?Sized>(&self, rng: &mut R) -> UnitQuaternion<f64> {
        loop {
            let q = uniform_s3(rng);
            let theta = 2.0 * q.imag().norm().atan2(q.w.abs());
            if rng.random::<f64>() < (-self.epsilon * theta).exp() {
                return q;
            }
        }
    }

    #[inline]
    fn sample_gamma<R: Rng + ?Sized>(&self, rng: &mut R) -> UnitQuaternion<f64> {
        loop {
            let theta = -(open_unit(rng) * open_unit(rng) * open_unit(rng)).ln() / self.epsilon;
            if theta > PI {
                continue;
            }
            let half = 0.5 * theta;
            let (s, c) = half.sin_cos();
            let ratio = if half > 0.0 { s / half } else { 1.0 };
            if rng.random::<f64>() < ratio * ratio {
                let axis = uniform_s2(rng);
                return UnitQuaternion::new_unchecked(Quaternion::from_parts(c, axis * s));
            }
        }
    }
}

impl Distribution<UnitQuaternion<f64>> for LaplaceSo3Noise {
    #[inline]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> UnitQuaternion<f64> {
        if self.use_haar { self.sample_haar(rng) } else { self.sample_gamma(rng) }
    }
}
