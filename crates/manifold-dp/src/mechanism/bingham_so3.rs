//! The Bingham mechanism on SO(3): release a quaternion with density ∝ exp(−κ(1 − (q·x)²)) =
//! exp(−κ sin²(θ/2)) around the input x.
//!
//! Bingham(κ) is exactly (κ/2)·φ6-private and no better (`docs/proofs/bingham_so3_tight.md`), so
//! [`BinghamSo3::new`] uses κ = 2ε. The paper's parametrisation (κ = its ε) is reachable only through
//! [`BinghamSo3::with_concentration`], whose guarantee is then reported as κ/2.

use crate::analysis::BinghamAngle;
use crate::error::Fallible;
use crate::error::Param;
use crate::mechanism::Mechanism;
use crate::mechanism::Unprotected;
use crate::privacy::calibration::{bingham_epsilon_for_kappa, bingham_kappa_for_epsilon};
use crate::privacy::float_safety::Rounding;
use crate::privacy::{Guarantee, Metric};
use crate::sample::bingham_so3::BinghamSo3Noise;
use nalgebra::UnitQuaternion;
use rand::CryptoRng;
use rand::distr::Distribution;

/// The Bingham mechanism on SO(3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BinghamSo3 {
    noise: BinghamSo3Noise,
    rounding: Rounding,
}

impl BinghamSo3 {
    /// The same mechanism with releases rounded again onto a coarser public grid of step at most `radians`
    /// ([`crate::privacy::float_safety::Rounding::coarsened`]): post-processing, the guarantee is unchanged
    /// but names the coarser grid.
    pub fn with_output_step(mut self, radians: f64) -> crate::error::Fallible<Self> {
        self.rounding = self.rounding.coarsened(radians)?;
        Ok(self)
    }

    /// The mechanism for budget `epsilon` per radian of φ6, with the tight κ = 2ε.
    pub fn new(epsilon: f64) -> Fallible<Self> {
        Self::with_concentration(bingham_kappa_for_epsilon(epsilon)?)
    }

    /// The mechanism with an explicit concentration κ (e.g. the paper's κ = ε, for reproduction). Its
    /// guarantee is κ/2 per radian, whatever the caller intended.
    pub fn with_concentration(kappa: f64) -> Fallible<Self> {
        // The guarantee is κ/2 per radian: it must lie in the range every mechanism is held to.
        if !(kappa.is_finite()
            && (crate::mechanism::MIN_EPSILON..=crate::mechanism::MAX_EPSILON).contains(&(kappa / 2.0)))
        {
            return Err(crate::Error::InvalidParameter {
                name: Param::Concentration,
                value: kappa,
                reason: "must lie in [2e-6, 2e6] (epsilon = concentration/2 in [1e-6, 1e6], the range the samplers \
                         are proven exact and tested for)",
            });
        }
        let noise = BinghamSo3Noise::new(kappa)?;
        // The output log-density −κ sin²(θ/2) has derivative −(κ/2) sin θ: κ/2-log-Lipschitz per radian of θ.
        let epsilon = bingham_epsilon_for_kappa(kappa)?;
        let rounding = Rounding::for_rotations(epsilon, kappa / 2.0).with_acceptance_error(noise.acceptance_error());
        Ok(BinghamSo3 { noise, rounding })
    }

    /// κ.
    pub fn kappa(&self) -> f64 {
        self.noise.kappa()
    }

    /// ε per radian that this κ guarantees (κ/2).
    pub fn epsilon(&self) -> f64 {
        bingham_epsilon_for_kappa(self.kappa()).expect("kappa validated at construction")
    }

    /// The exact noise sampler.
    pub fn noise(&self) -> &BinghamSo3Noise {
        &self.noise
    }

    /// The law of the angle between release and input.
    pub fn angle_law(&self) -> BinghamAngle {
        BinghamAngle::new(self.kappa()).expect("kappa validated at construction")
    }

    /// The noise law's family and parameters, which its guarantee carries for the ledger's Rényi account.
    pub fn family(&self) -> crate::analysis::renyi_local::LocalFamily {
        crate::analysis::renyi_local::LocalFamily::BinghamSo3 { kappa: self.kappa() }
    }

    /// The release's Rényi DP curve between any two inputs (the local model's neighbours), its float-safety
    /// term included: [`crate::privacy::renyi::RdpCurve::of_release`] with the diameter π
    /// (`docs/proofs/renyi_local.md`).
    pub fn renyi_curve(&self) -> Fallible<crate::privacy::renyi::RdpCurve> {
        crate::privacy::renyi::RdpCurve::of_release(self.family(), &self.guarantee(), std::f64::consts::PI)
    }
}

impl Mechanism for BinghamSo3 {
    type Point = UnitQuaternion<f64>;

    fn guarantee(&self) -> Guarantee {
        // δ_B of the proposal's negligible events, per pair δ_B·(1 + e^{ε·d + ε₀}) (`float_safety.md` §6).
        crate::privacy::float_safety::with_negligible_events(
            self.rounding.guarantee(self.epsilon(), Metric::So3Geodesic),
            self.noise.negligible_event_probability(),
        )
        // The noise law, from which the ledger computes the release's Rényi curve (`renyi_local.md` §6).
        .with_renyi(self.family())
    }

    #[inline]
    fn privatize_unprotected<R: CryptoRng + ?Sized>(
        &self,
        x: &UnitQuaternion<f64>,
        rng: &mut R,
        _: Unprotected,
    ) -> UnitQuaternion<f64> {
        x * self.noise.sample(rng)
    }

    fn snap(&self, z: &mut UnitQuaternion<f64>) {
        self.rounding.snap_rotation(z)
    }

    fn log_density(&self, z: &UnitQuaternion<f64>, x: &UnitQuaternion<f64>) -> f64 {
        let c = z.quaternion().dot(x.quaternion());
        self.kappa() * (c * c - 1.0)
    }

    fn name(&self) -> &'static str {
        "bingham"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kent et al.'s acceptance test errs by a proven α_B (`float_safety.md` §3f, at most 1.9e-8 at κ = 2·10⁶)
    /// and the guarantee's ε₀ carries 4α_B on top of the rounding's own cost.
    #[test]
    fn binghams_acceptance_error_is_paid_in_the_guarantee() {
        for kappa in [2e-6, 1.0, 2e3, 2e6] {
            let m = BinghamSo3::with_concentration(kappa).unwrap();
            let alpha = m.noise.acceptance_error();
            assert!(alpha > 0.0 && alpha <= 1.9e-8, "{kappa}: {alpha}");
            let rounding = Rounding::for_rotations(m.epsilon(), kappa / 2.0);
            assert!(m.rounding.additive_epsilon() >= rounding.additive_epsilon() + 4.0 * alpha * (1.0 - 1e-12));
        }
    }
}
