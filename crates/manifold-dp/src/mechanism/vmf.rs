//! The von Mises–Fisher mechanism on S^{n−1}: release a draw of VMF(x, κ), density ∝ exp(κ x·z).
//! The log-ratio for inputs x, x′ is κ(x − x′)·z ≤ κ‖x − x′‖ and the normaliser does not depend on x, so
//! κ = ε gives εd₂-privacy, hence εd∠ (d₂ ≤ d∠) (`docs/proofs/vmf_sphere.md`).

use crate::analysis::SphereAngle;
use crate::error::Fallible;
use crate::error::Param;
use crate::mechanism::Mechanism;
use crate::mechanism::Unprotected;
use crate::mechanism::sphere::{check_point_dim, release_each};
use crate::privacy::float_safety::Rounding;
use crate::privacy::{Guarantee, Metric};
use crate::sample::vmf::VmfNoise;
use nalgebra::DVector;
use rand::CryptoRng;

/// The VMF mechanism on S^{n−1}, εd₂-private (ε per unit of chordal distance, so also per radian).
#[derive(Debug, Clone)]
pub struct VmfSphere {
    noise: VmfNoise,
    rounding: Rounding,
}

impl VmfSphere {
    /// The same mechanism with releases rounded again onto a coarser public grid of step at most `radians`
    /// ([`crate::privacy::float_safety::Rounding::coarsened`]): post-processing, the guarantee is unchanged
    /// but names the coarser grid.
    pub fn with_output_step(mut self, radians: f64) -> crate::error::Fallible<Self> {
        self.rounding = self.rounding.coarsened(radians)?;
        Ok(self)
    }

    /// The mechanism on S^{dim−1} ⊂ R^dim (dim ≥ 2) for budget `epsilon` (finite, > 0) per unit of chordal
    /// distance: κ = ε.
    pub fn new(dim: usize, epsilon: f64) -> Fallible<Self> {
        let epsilon = crate::error::check_epsilon_range(Param::Epsilon, epsilon)?;
        let noise = VmfNoise::new(dim, epsilon)?;
        // e^{κ μ·z} is κ-log-Lipschitz in the chord, hence per radian.
        let rounding = Rounding::for_directions(dim, epsilon, epsilon).with_acceptance_error(noise.acceptance_error());
        Ok(VmfSphere { noise, rounding })
    }

    /// ε per unit of chordal distance (= κ).
    pub fn epsilon(&self) -> f64 {
        self.noise.kappa()
    }

    /// The ambient dimension n.
    pub fn dim(&self) -> usize {
        self.noise.dim()
    }

    /// The exact sampler.
    pub fn noise(&self) -> &VmfNoise {
        &self.noise
    }

    /// The law of the great-circle angle between release and input.
    pub fn angle_law(&self) -> SphereAngle {
        SphereAngle::new(self.dim(), self.epsilon()).expect("parameters validated at construction")
    }

    /// The noise law's family and parameters, which its guarantee carries for the ledger's Rényi account.
    pub fn family(&self) -> crate::analysis::renyi_local::LocalFamily {
        crate::analysis::renyi_local::LocalFamily::Vmf { dim: self.dim(), kappa: self.epsilon() }
    }

    /// The release's Rényi DP curve between any two inputs (the local model's neighbours), its float-safety
    /// term included: [`crate::privacy::renyi::RdpCurve::of_release`] with the chordal diameter 2
    /// (`docs/proofs/renyi_local.md`).
    pub fn renyi_curve(&self) -> Fallible<crate::privacy::renyi::RdpCurve> {
        crate::privacy::renyi::RdpCurve::of_release(self.family(), &self.guarantee(), 2.0)
    }
}

impl Mechanism for VmfSphere {
    type Point = DVector<f64>;

    fn check_input(&self, x: &DVector<f64>) -> crate::Fallible<()> {
        crate::mechanism::sphere::check_sphere_input(x, self.dim())
    }

    fn guarantee(&self) -> Guarantee {
        // δ_B of the sampler's negligible events, per pair δ_B·(1 + e^{ε·d + ε₀}) (`float_safety.md` §6).
        crate::privacy::float_safety::with_negligible_events(
            self.rounding.guarantee(self.epsilon(), Metric::SphereChordal),
            self.noise.negligible_event_probability(),
        )
        // The noise law, from which the ledger computes the release's Rényi curve (`renyi_local.md` §6).
        .with_renyi(self.family())
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
        self.epsilon() * x.dot(z)
    }

    fn name(&self) -> &'static str {
        "vmf"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::vmf::VmfNoise;

    /// On the circle, Wood's acceptance test errs by a proven α_W (`float_safety.md` §3f), and the guarantee's
    /// ε₀ carries 4α_W on top of the rounding's own cost; S² (inversion, no test) carries nothing extra.
    #[test]
    fn woods_acceptance_error_is_paid_in_the_circles_guarantee() {
        for epsilon in [1e-3, 1.0, 1e3, 1e6] {
            let alpha = VmfNoise::new(2, epsilon).unwrap().acceptance_error();
            assert!(alpha > 0.0 && alpha <= 8.8e-9, "{epsilon}: {alpha}");
            let rounding = Rounding::for_directions(2, epsilon, epsilon);
            let paid = VmfSphere::new(2, epsilon).unwrap().rounding.additive_epsilon();
            assert!(paid >= rounding.additive_epsilon() + 4.0 * alpha * (1.0 - 1e-12), "{epsilon}");
            assert_eq!(VmfNoise::new(3, epsilon).unwrap().acceptance_error(), 0.0);
        }
    }
}
