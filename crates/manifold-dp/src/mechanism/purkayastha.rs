//! The Purkayastha mechanism on S^{n−1}: release a draw with density ∝ exp(−κ d∠(x, z)). The normaliser
//! does not depend on x (rotation invariance) and |d∠(x, z) − d∠(x′, z)| ≤ d∠(x, x′), so κ = ε gives
//! εd∠-privacy (`docs/proofs/purkayastha_sphere.md`).

use crate::analysis::SphereAngle;
use crate::error::Fallible;
use crate::error::Param;
use crate::mechanism::Mechanism;
use crate::mechanism::Unprotected;
use crate::mechanism::sphere::{check_point_dim, release_each};
use crate::privacy::float_safety::Rounding;
use crate::privacy::{Guarantee, Metric};
use crate::sample::purkayastha::PurkayasthaNoise;
use crate::space::sphere::surface_distance;
use nalgebra::DVector;
use rand::CryptoRng;

/// The Purkayastha mechanism on S^{n−1}, εd∠-private (ε per radian of great-circle distance).
#[derive(Debug, Clone, PartialEq)]
pub struct PurkayasthaSphere {
    noise: PurkayasthaNoise,
    rounding: Rounding,
}

impl PurkayasthaSphere {
    /// The same mechanism with releases rounded again onto a coarser public grid of step at most `radians`
    /// ([`crate::privacy::float_safety::Rounding::coarsened`]): post-processing, the guarantee is unchanged
    /// but names the coarser grid.
    pub fn with_output_step(mut self, radians: f64) -> crate::error::Fallible<Self> {
        self.rounding = self.rounding.coarsened(radians)?;
        Ok(self)
    }

    /// The mechanism on S^{dim−1} ⊂ R^dim (dim ≥ 2) for budget `epsilon` (finite, > 0) per radian: κ = ε.
    pub fn new(dim: usize, epsilon: f64) -> Fallible<Self> {
        let epsilon = crate::error::check_epsilon_range(Param::Epsilon, epsilon)?;
        let noise = PurkayasthaNoise::new(dim, epsilon)?;
        // e^{−κ d∠(z, μ)} is κ-log-Lipschitz per radian.
        let rounding = Rounding::for_directions(dim, epsilon, epsilon).with_acceptance_error(noise.acceptance_error());
        Ok(PurkayasthaSphere { noise, rounding })
    }

    /// ε per radian (= κ).
    pub fn epsilon(&self) -> f64 {
        self.noise.kappa()
    }

    /// The ambient dimension n.
    pub fn dim(&self) -> usize {
        self.noise.dim()
    }

    /// The exact sampler.
    pub fn noise(&self) -> &PurkayasthaNoise {
        &self.noise
    }

    /// The law of the great-circle angle between release and input: density ∝ e^{−εθ} sin^{n−2}θ.
    pub fn angle_law(&self) -> SphereAngle {
        SphereAngle::purkayastha(self.dim(), self.epsilon()).expect("parameters validated at construction")
    }

    /// The release's Rényi DP curve between any two inputs (the local model's neighbours), its float-safety
    /// term included: [`crate::privacy::renyi::RdpCurve::of_release`] with the diameter π
    /// (`docs/proofs/renyi_local.md`).
    pub fn renyi_curve(&self) -> Fallible<crate::privacy::renyi::RdpCurve> {
        crate::privacy::renyi::RdpCurve::of_release(
            crate::analysis::renyi_local::LocalFamily::Purkayastha { dim: self.dim(), kappa: self.epsilon() },
            &self.guarantee(),
            std::f64::consts::PI,
        )
    }
}

impl Mechanism for PurkayasthaSphere {
    type Point = DVector<f64>;

    fn check_input(&self, x: &DVector<f64>) -> crate::Fallible<()> {
        crate::mechanism::sphere::check_sphere_input(x, self.dim())
    }

    fn guarantee(&self) -> Guarantee {
        // δ_B of the sampler's negligible events, per pair δ_B·(1 + e^{ε·d + ε₀}) (`float_safety.md` §6).
        crate::privacy::float_safety::with_negligible_events(
            self.rounding.guarantee(self.epsilon(), Metric::SphereSurface),
            self.noise.negligible_event_probability(),
        )
    }

    /// Panics if `x` does not have the mechanism's dimension (a programming error; validate data with
    /// [`crate::space::sphere::unit_vector`] first).
    fn privatize_unprotected<R: CryptoRng + ?Sized>(
        &self,
        x: &DVector<f64>,
        rng: &mut R,
        _: Unprotected,
    ) -> DVector<f64> {
        check_point_dim(x, self.dim());
        self.noise.sample_around(x, rng)
    }

    fn privatize_slice_unprotected<R: CryptoRng + ?Sized>(&self, xs: &mut [DVector<f64>], rng: &mut R, _: Unprotected) {
        release_each(xs, self.dim(), rng, |mu, out, rng| self.noise.sample_into(mu, out, rng));
    }

    fn snap(&self, z: &mut DVector<f64>) {
        self.rounding.snap_direction(z.as_mut_slice())
    }

    fn log_density(&self, z: &DVector<f64>, x: &DVector<f64>) -> f64 {
        -self.epsilon() * surface_distance(z, x)
    }

    fn name(&self) -> &'static str {
        "purkayastha"
    }
}
