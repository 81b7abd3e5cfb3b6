//! The Purkayastha mechanism on S^{n−1}: release a draw with density ∝ exp(−κ d∠(x, z)). The normaliser
//! does not depend on x (rotation invariance) and |d∠(x, z) − d∠(x′, z)| ≤ d∠(x, x′), so κ = ε gives
//! εd∠-privacy (`docs/proofs/purkayastha_sphere.md`).

use crate::analysis::SphereAngle;
use crate::error::Fallible;
use crate::mechanism::Mechanism;
use crate::mechanism::Unprotected;
use crate::mechanism::sphere::{
    check_point_dim, draw_on_circle, release_each, release_on_circle, snap_drawn_on_circle,
};
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
        let epsilon = crate::error::check_epsilon_range("epsilon", epsilon)?;
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

impl PurkayasthaSphere {
    /// On the circle: the drawn offset in turns ([`PurkayasthaNoise::sample_offset_turns`]).
    #[inline(always)]
    fn offset<R: CryptoRng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.noise.sample_offset_turns(rng)
    }

    /// The raw draw from the same words, for inputs off the angle's path.
    #[inline(always)]
    fn rotate<R: CryptoRng + ?Sized>(&self, mu: &[f64], out: &mut [f64], rng: &mut R) {
        self.noise.sample_into(mu, out, rng)
    }
}

impl Mechanism for PurkayasthaSphere {
    type Point = DVector<f64>;

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

    /// On the circle, the release snapped from its angle ([`release_on_circle`]); elsewhere the raw draw snapped.
    fn privatize<R: CryptoRng + ?Sized>(&self, x: &DVector<f64>, rng: &mut R) -> DVector<f64> {
        check_point_dim(x, self.dim());
        if self.dim() == 2 {
            let mut z = x.clone();
            release_on_circle(
                &self.rounding,
                z.as_mut_slice(),
                rng,
                |r| self.offset(r),
                |mu, out, r| self.rotate(mu, out, r),
            );
            return z;
        }
        let mut z = self.noise.sample_around(x, rng);
        self.snap(&mut z);
        z
    }

    /// On the circle, every angle drawn first, then every snap ([`draw_on_circle`]).
    fn privatize_slice<R: CryptoRng + ?Sized>(&self, xs: &mut [DVector<f64>], rng: &mut R) {
        if self.dim() == 2 {
            for x in xs.iter_mut() {
                check_point_dim(x, 2);
                draw_on_circle(
                    &self.rounding,
                    x.as_mut_slice(),
                    rng,
                    |r| self.offset(r),
                    |mu, out, r| self.rotate(mu, out, r),
                );
            }
            for x in xs {
                snap_drawn_on_circle(&self.rounding, x.as_mut_slice());
            }
            return;
        }
        self.privatize_slice_unprotected(xs, rng, Unprotected::INTERNAL);
        for x in xs {
            self.snap(x);
        }
    }

    fn privatize_each<R: CryptoRng>(&self, xs: &mut [DVector<f64>], mut rng: impl FnMut(usize) -> R) {
        if self.dim() == 2 {
            for (i, x) in xs.iter_mut().enumerate() {
                check_point_dim(x, 2);
                let r = &mut rng(i);
                draw_on_circle(
                    &self.rounding,
                    x.as_mut_slice(),
                    r,
                    |r| self.offset(r),
                    |mu, out, r| self.rotate(mu, out, r),
                );
            }
            for x in xs {
                snap_drawn_on_circle(&self.rounding, x.as_mut_slice());
            }
            return;
        }
        for (i, x) in xs.iter_mut().enumerate() {
            self.privatize_slice_unprotected(std::slice::from_mut(x), &mut rng(i), Unprotected::INTERNAL);
        }
        for x in xs {
            self.snap(x);
        }
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
