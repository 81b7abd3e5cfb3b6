//! Negative controls: deliberately broken samplers that the auditor must flag (`docs/audit.md`).
//!
//! Each control implements [`Mechanism`] with the **claimed** mechanism's `guarantee()` and `log_density()`
//! (so the audit's events are those a reviewer would derive from the claim) but releases from a broken law.
//! They live here, outside [`crate::mechanism`]: no constructor of a real mechanism returns one, and nothing
//! that privatizes data can reach them (front ends offer them only to the auditor, by the names `control:…`).
//!
//! | control | claimed | actually sampled | true privacy |
//! |---|---|---|---|
//! | [`bingham_4eps`] | Bingham κ = 2ε (ε per rad) | Bingham κ = 4ε | 2ε per rad |
//! | [`LaplaceWithoutSin2`] | Laplace on SO(3) | angle density ∝ e^{−εθ}, no sin²(θ/2) | none (density ∝ 1/θ² near the input) |
//! | [`vmf_2eps`] | VMF κ = ε | VMF κ = 2ε | 2ε per unit chordal |
//! | [`TruncatedTail`] | Laplace on SO(3) | the exact angle law cut at its 1 − m quantile | none (zero density beyond the cut) |
//! | [`PaperNaive`] | Laplace on SO(3) | the SO(3) paper's naive sampler (wrong Haar angle) | none (density ∝ 1/θ near the input) |
//! | [`Miscalibrated`] | any mechanism | the same mechanism at another parameter | the other parameter's |
//! | [`Unsnapped`] (`control:unsnapped`) | the wrapped mechanism, float-safe | its raw f64 pipeline, never rounded | none at the level of single floats (low bits name the input) |
//! | `control:gaussian-half-sigma` ([`Miscalibrated`], built in [`crate::audit::catalog`]) | Gaussian, analytic (ε, δ) calibration σ | Gaussian with σ/2 | μ = 2/σ-GDP: a δ(ε) far above the claimed δ |

/// Controls are rounded like releases (2^-30 cells), so that only their laws can fail them.
const CONTROL_GRID_LOG2: i32 = -30;

use crate::analysis::{AngularLaw, LaplaceAngle};
use crate::error::Param;
use crate::error::{Error, Fallible};
use crate::mechanism::Unprotected;
use crate::mechanism::{BinghamSo3, LaplaceSo3, Mechanism, VmfSphere};
use crate::privacy::Guarantee;
use crate::sample::paper_baseline::PaperNaiveLaplace;
use crate::sample::sphere::uniform_s2;
use crate::sample::uniform::unit;
use nalgebra::{Quaternion, UnitQuaternion};
use rand::CryptoRng;
use rand::distr::Distribution;

/// The named controls, as the command line spells them after `control:`.
pub const CONTROL_NAMES: [&str; 5] = ["bingham-4eps", "laplace-no-sin2", "vmf-2eps", "truncated-tail", "paper-naive"];

/// The tail mass the named `truncated-tail` control drops (the angle law is cut at its 99 % quantile).
pub const TRUNCATED_TAIL_MASS: f64 = 0.01;

/// Claims `claimed` (its guarantee and density) but releases with `actual`: a mechanism run at the wrong
/// parameter, e.g. Laplace sampled at c·ε while ε is claimed.
#[derive(Debug, Clone)]
pub struct Miscalibrated<M> {
    claimed: M,
    actual: M,
}

impl<M: Mechanism> Miscalibrated<M> {
    /// The control claiming `claimed` and sampling `actual`.
    pub fn new(claimed: M, actual: M) -> Self {
        Miscalibrated { claimed, actual }
    }

    /// The mechanism whose claim is audited.
    pub fn claimed(&self) -> &M {
        &self.claimed
    }

    /// The mechanism actually sampled.
    pub fn actual(&self) -> &M {
        &self.actual
    }
}

impl<M: Mechanism> Mechanism for Miscalibrated<M> {
    type Point = M::Point;

    fn guarantee(&self) -> Guarantee {
        self.claimed.guarantee()
    }

    fn privatize_unprotected<R: CryptoRng + ?Sized>(&self, x: &M::Point, rng: &mut R, _: Unprotected) -> M::Point {
        self.actual.privatize_unprotected(x, rng, Unprotected::INTERNAL)
    }

    fn snap(&self, z: &mut M::Point) {
        self.actual.snap(z)
    }

    fn log_density(&self, z: &M::Point, x: &M::Point) -> f64 {
        self.claimed.log_density(z, x)
    }

    fn name(&self) -> &'static str {
        "control:miscalibrated"
    }
}

/// Claims `M` (its guarantee, grid included, and its density) but releases the raw f64 pipeline
/// ([`Mechanism::privatize_unprotected`]) without rounding: the path every release took before float-safe
/// rounding. Its low bits depend on the input, so raw-bit events (`llr_resolution` 0) must flag it.
#[derive(Debug, Clone)]
pub struct Unsnapped<M>(pub M);

impl<M: Mechanism> Mechanism for Unsnapped<M> {
    type Point = M::Point;

    fn guarantee(&self) -> Guarantee {
        self.0.guarantee()
    }

    fn privatize_unprotected<R: CryptoRng + ?Sized>(&self, x: &M::Point, rng: &mut R, _: Unprotected) -> M::Point {
        self.0.privatize_unprotected(x, rng, Unprotected::INTERNAL)
    }

    /// No rounding: the control's whole point.
    fn snap(&self, _z: &mut M::Point) {}

    fn log_density(&self, z: &M::Point, x: &M::Point) -> f64 {
        self.0.log_density(z, x)
    }

    fn name(&self) -> &'static str {
        "control:unsnapped"
    }
}

/// Bingham claimed at ε per radian (κ = 2ε) but sampled with κ = 4ε (the SO(3) paper's loose κ read the
/// wrong way): truly 2ε per radian.
pub fn bingham_4eps(epsilon: f64) -> Fallible<Miscalibrated<BinghamSo3>> {
    Ok(Miscalibrated::new(BinghamSo3::new(epsilon)?, BinghamSo3::with_concentration(4.0 * epsilon)?))
}

/// VMF on S^{dim−1} claimed at ε (κ = ε) but sampled with κ = 2ε: truly 2ε per unit of chordal distance.
pub fn vmf_2eps(dim: usize, epsilon: f64) -> Fallible<Miscalibrated<VmfSphere>> {
    Ok(Miscalibrated::new(VmfSphere::new(dim, epsilon)?, VmfSphere::new(dim, 2.0 * epsilon)?))
}

/// x∘n for a noise rotation of angle θ about a uniform axis.
fn rotate_by<R: CryptoRng + ?Sized>(x: &UnitQuaternion<f64>, theta: f64, rng: &mut R) -> UnitQuaternion<f64> {
    let (s, c) = (0.5 * theta).sin_cos();
    x * UnitQuaternion::new_unchecked(Quaternion::from_parts(c, uniform_s2(rng) * s))
}

/// The Laplace mechanism on SO(3) with the Haar factor sin²(θ/2) left out of the angle law: θ has density
/// ∝ e^{−εθ} on [0, π] (exact inversion). docs/math.md §1.1 calls this a privacy bug: relative to Haar measure the
/// release density behaves like 1/θ² near the input, so no finite ε holds.
#[derive(Debug, Clone)]
pub struct LaplaceWithoutSin2 {
    claimed: LaplaceSo3,
}

impl LaplaceWithoutSin2 {
    /// The control claiming the Laplace mechanism at `epsilon` per radian.
    pub fn new(epsilon: f64) -> Fallible<Self> {
        Ok(LaplaceWithoutSin2 { claimed: LaplaceSo3::new(epsilon)? })
    }

    fn angle<R: CryptoRng + ?Sized>(&self, rng: &mut R) -> f64 {
        // F(θ) = (1 − e^{−εθ})/(1 − e^{−επ}); θ = −ln(1 − u(1 − e^{−επ}))/ε.
        let e = self.claimed.epsilon();
        let u = 1.0 - unit(rng);
        (-(u * -(-e * std::f64::consts::PI).exp_m1()).ln_1p() / e).min(std::f64::consts::PI)
    }
}

impl Mechanism for LaplaceWithoutSin2 {
    type Point = UnitQuaternion<f64>;

    fn guarantee(&self) -> Guarantee {
        self.claimed.guarantee()
    }

    fn privatize_unprotected<R: CryptoRng + ?Sized>(
        &self,
        x: &UnitQuaternion<f64>,
        rng: &mut R,
        _: Unprotected,
    ) -> UnitQuaternion<f64> {
        let theta = self.angle(rng);
        rotate_by(x, theta, rng)
    }

    fn snap(&self, z: &mut UnitQuaternion<f64>) {
        *z = crate::space::grid::snap_quaternion(z, CONTROL_GRID_LOG2);
    }

    fn log_density(&self, z: &UnitQuaternion<f64>, x: &UnitQuaternion<f64>) -> f64 {
        self.claimed.log_density(z, x)
    }

    fn name(&self) -> &'static str {
        "control:laplace-no-sin2"
    }
}

/// The Laplace mechanism on SO(3) whose angle law is cut off at its (1 − m) quantile: exact draws beyond
/// the cut are rejected and redrawn. Releases farther than the cut from the input have probability 0, so
/// no finite ε holds, yet a fraction 1 − m of releases looks exactly right.
#[derive(Debug, Clone)]
pub struct TruncatedTail {
    claimed: LaplaceSo3,
    max_angle: f64,
    tail_mass: f64,
}

impl TruncatedTail {
    /// The control claiming Laplace at `epsilon` and dropping the top `tail_mass` ∈ (0, 1) of its angle law.
    pub fn new(epsilon: f64, tail_mass: f64) -> Fallible<Self> {
        if !(tail_mass > 0.0 && tail_mass < 1.0) {
            return Err(Error::InvalidParameter {
                name: Param::TailMass,
                value: tail_mass,
                reason: "must lie in (0, 1)",
            });
        }
        let claimed = LaplaceSo3::new(epsilon)?;
        let max_angle = claimed.angle_law().quantile(1.0 - tail_mass)?;
        Ok(TruncatedTail { claimed, max_angle, tail_mass })
    }

    /// The cut: releases are never farther than this (radians) from the input.
    pub fn max_angle(&self) -> f64 {
        self.max_angle
    }

    /// The probability mass removed from the exact law.
    pub fn tail_mass(&self) -> f64 {
        self.tail_mass
    }
}

impl Mechanism for TruncatedTail {
    type Point = UnitQuaternion<f64>;

    fn guarantee(&self) -> Guarantee {
        self.claimed.guarantee()
    }

    fn privatize_unprotected<R: CryptoRng + ?Sized>(
        &self,
        x: &UnitQuaternion<f64>,
        rng: &mut R,
        _: Unprotected,
    ) -> UnitQuaternion<f64> {
        loop {
            let n = self.claimed.noise().sample(rng);
            if crate::space::so3::rotation_angle(&n) <= self.max_angle {
                return x * n;
            }
        }
    }

    fn snap(&self, z: &mut UnitQuaternion<f64>) {
        *z = crate::space::grid::snap_quaternion(z, CONTROL_GRID_LOG2);
    }

    fn log_density(&self, z: &UnitQuaternion<f64>, x: &UnitQuaternion<f64>) -> f64 {
        self.claimed.log_density(z, x)
    }

    fn name(&self) -> &'static str {
        "control:truncated-tail"
    }
}

/// The SO(3) paper's naive Laplace sampler (θ = 2 arccos √(1 − u) proposals, density ½ sin θ instead of the
/// Haar angle law, accepted with probability e^{−εθ}, at most 10 000 proposals) claimed as the Laplace
/// mechanism. Its release density relative to Haar measure behaves like 2/θ near the input (docs/math.md §1.1).
#[derive(Debug, Clone)]
pub struct PaperNaive {
    claimed: LaplaceSo3,
    sampler: PaperNaiveLaplace,
}

impl PaperNaive {
    /// The control claiming the Laplace mechanism at `epsilon` per radian.
    pub fn new(epsilon: f64) -> Fallible<Self> {
        let claimed = LaplaceSo3::new(epsilon)?;
        Ok(PaperNaive { claimed, sampler: PaperNaiveLaplace { epsilon, max_iterations: 10_000 } })
    }
}

impl Mechanism for PaperNaive {
    type Point = UnitQuaternion<f64>;

    fn guarantee(&self) -> Guarantee {
        self.claimed.guarantee()
    }

    fn privatize_unprotected<R: CryptoRng + ?Sized>(
        &self,
        x: &UnitQuaternion<f64>,
        rng: &mut R,
        _: Unprotected,
    ) -> UnitQuaternion<f64> {
        x * self.sampler.sample(rng)
    }

    fn snap(&self, z: &mut UnitQuaternion<f64>) {
        *z = crate::space::grid::snap_quaternion(z, CONTROL_GRID_LOG2);
    }

    fn log_density(&self, z: &UnitQuaternion<f64>, x: &UnitQuaternion<f64>) -> f64 {
        self.claimed.log_density(z, x)
    }

    fn name(&self) -> &'static str {
        "control:paper-naive"
    }
}

/// The exact angle law the claimed Laplace mechanism promises (the goodness-of-fit reference of the SO(3)
/// Laplace controls).
pub fn claimed_laplace_angle(epsilon: f64) -> Fallible<LaplaceAngle> {
    LaplaceAngle::new(epsilon)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::rng::seeded_rng_for_experiments;
    use crate::space::so3_metric::geodesic;

    #[test]
    fn controls_claim_one_law_and_sample_another() {
        let mut rng = seeded_rng_for_experiments(5);
        let x = UnitQuaternion::identity();
        let b = bingham_4eps(2.0).unwrap();
        assert_eq!(b.guarantee(), BinghamSo3::new(2.0).unwrap().guarantee());
        assert_eq!(b.actual().kappa(), 8.0);
        let t = TruncatedTail::new(1.0, 0.01).unwrap();
        for _ in 0..2000 {
            assert!(geodesic(&x, &t.privatize(&x, &mut rng).unwrap()) <= t.max_angle() + 1e-12);
        }
        // Without sin²: far more mass near the input than the claimed law.
        let c = LaplaceWithoutSin2::new(1.0).unwrap();
        let law = claimed_laplace_angle(1.0).unwrap();
        let near =
            (0..4000).filter(|_| geodesic(&x, &c.privatize(&x, &mut rng).unwrap()) < 0.3).count() as f64 / 4000.0;
        assert!(near > 10.0 * law.cdf(0.3), "{near} vs {}", law.cdf(0.3));
        let p = PaperNaive::new(1.0).unwrap();
        assert!(geodesic(&x, &p.privatize(&x, &mut rng).unwrap()).is_finite());
        assert!(vmf_2eps(3, 1.0).is_ok() && TruncatedTail::new(1.0, 1.0).is_err());
    }
}
