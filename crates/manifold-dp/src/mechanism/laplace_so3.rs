//! The Laplace mechanism on SO(3): release x∘n with n isotropic, angle density ∝ sin²(θ/2)e^{−εθ}.
//! Output density ∝ exp(−ε·θ(z, x)) w.r.t. Haar measure, with a normaliser independent of x, so the
//! triangle inequality gives εφ6-privacy (`docs/proofs/laplace_so3.md`).

use crate::analysis::LaplaceAngle;
use crate::error::Fallible;
use crate::error::Param;
use crate::mechanism::Mechanism;
use crate::mechanism::Unprotected;
use crate::privacy::float_safety::Rounding;
use crate::privacy::{Guarantee, Metric};
use crate::sample::laplace_so3::LaplaceSo3Noise;
use crate::space::so3_metric::geodesic;
use nalgebra::UnitQuaternion;
use rand::CryptoRng;
use rand::distr::Distribution;

/// The Laplace mechanism on SO(3), εφ6-private with ε per radian.
#[derive(Debug, Clone, PartialEq)]
pub struct LaplaceSo3 {
    noise: LaplaceSo3Noise,
    rounding: Rounding,
}

impl LaplaceSo3 {
    /// The same mechanism with releases rounded again onto a coarser public grid of step at most `radians`
    /// ([`crate::privacy::float_safety::Rounding::coarsened`]): post-processing, the guarantee is unchanged
    /// but names the coarser grid.
    pub fn with_output_step(mut self, radians: f64) -> crate::error::Fallible<Self> {
        self.rounding = self.rounding.coarsened(radians)?;
        Ok(self)
    }

    /// The mechanism for budget `epsilon` per radian; ε must be finite and > 0.
    pub fn new(epsilon: f64) -> Fallible<Self> {
        let epsilon = crate::error::check_epsilon_range(Param::Epsilon, epsilon)?;
        let noise = LaplaceSo3Noise::new(epsilon)?;
        // The output density e^{−εθ} is ε-log-Lipschitz per radian of θ; the sampler's acceptance test errs by a
        // factor within e^{±α} (float_safety.md §3f).
        let rounding = Rounding::for_rotations(epsilon, epsilon).with_acceptance_error(noise.acceptance_error());
        Ok(LaplaceSo3 { noise, rounding })
    }

    /// ε per radian.
    pub fn epsilon(&self) -> f64 {
        self.noise.epsilon()
    }

    /// The exact noise sampler (noise rotation at the identity).
    pub fn noise(&self) -> &LaplaceSo3Noise {
        &self.noise
    }

    /// The law of the angle between release and input.
    pub fn angle_law(&self) -> LaplaceAngle {
        LaplaceAngle::new(self.epsilon()).expect("epsilon validated at construction")
    }

    /// The noise law's family and parameters, which its guarantee carries for the ledger's Rényi account.
    pub fn family(&self) -> crate::analysis::renyi_local::LocalFamily {
        crate::analysis::renyi_local::LocalFamily::LaplaceSo3 { epsilon: self.epsilon() }
    }

    /// The release's Rényi DP curve between any two inputs (the local model's neighbours), its float-safety
    /// term included: [`crate::privacy::renyi::RdpCurve::of_release`] with the diameter π
    /// (`docs/proofs/renyi_local.md`).
    pub fn renyi_curve(&self) -> Fallible<crate::privacy::renyi::RdpCurve> {
        crate::privacy::renyi::RdpCurve::of_release(self.family(), &self.guarantee(), std::f64::consts::PI)
    }
}

impl Mechanism for LaplaceSo3 {
    type Point = UnitQuaternion<f64>;

    fn guarantee(&self) -> Guarantee {
        // The noise law, from which the ledger computes the release's Rényi curve (`renyi_local.md` §6).
        self.rounding.guarantee(self.epsilon(), Metric::So3Geodesic).with_renyi(self.family())
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
        -self.epsilon() * geodesic(z, x)
    }

    fn name(&self) -> &'static str {
        "laplace"
    }
}
