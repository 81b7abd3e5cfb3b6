//! Exact sampler of the Laplace noise rotation on SO(3): axis uniform on S², angle θ ∈ [0, π] with density
//! f(θ) ∝ sin²(θ/2)·e^{−εθ} (docs/math.md §1.1; proof of exactness in `docs/proofs/laplace_so3.md`).
//!
//! Two rejection samplers of the angle, each exact for every ε; the constructor computes both exact
//! acceptance rates and keeps the higher one:
//!
//! - **Stepped proposal** (small and moderate ε): split [0, π] into [`STEPS`] equal steps [a_k, a_k + h]; on
//!   step k the envelope is the constant c_k·e^{−εa_k} with c_k = sin²((a_k + h)/2), the largest value of
//!   sin²(θ/2) on the step. Pick a step by an alias table, draw θ uniformly in it, accept with probability
//!   sin²(θ/2)e^{−ε(θ−a_k)}/c_k (a precomputed squeeze skips the exponential most of the time). Acceptance → 0.99
//!   as ε → 0.
//! - **Gamma proposal** (large ε): θ ~ Gamma(3, rate ε) as −ln(u₁u₂u₃)/ε, reject if θ > π, accept with
//!   probability (sin(θ/2)/(θ/2))² ∈ [4/π², 1]. Acceptance 2ε³·Z(ε) → 1 as ε → ∞.
//!
//! A uniform axis completes the rotation. The worst acceptance over all ε is where the two rates cross
//! (tested in `analysis::laplace_so3`: above 0.9). No loop is capped: the number of proposals is geometric.

use crate::analysis::laplace_so3::LaplaceAngle;
use crate::error::{Error, Fallible, check_positive};
use crate::sample::alias::AliasTable;
use crate::sample::sphere::uniform_s2;
use crate::sample::trig::{self, HALF_STARTS, STEP, half_start, sin_cos_quarter};
use crate::sample::{open_unit, small_sin_cos};
use nalgebra::{Quaternion, UnitQuaternion};
use rand::distr::Distribution;
use rand::{Rng, RngExt};
use std::f64::consts::PI;

/// Number of equal steps of [0, π] in the stepped envelope (the steps of [`crate::sample::trig`]'s table).
pub const STEPS: usize = trig::STEPS;

/// Which exact proposal a [`LaplaceSo3Noise`] uses (whichever accepts more often at its ε).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaplaceProposal {
    /// Step-function envelope times e^{−εθ} on [0, π].
    Stepped,
    /// Gamma(3, ε) with the (sin(θ/2)/(θ/2))² correction.
    Gamma,
}

/// The step-function envelope: on step k = [a_k, a_k + h] it is the constant c_k·e^{−εa_k} with
/// c_k = sin²((a_k + h)/2), which bounds sin²(θ/2)e^{−εθ} there because both factors are monotone.
#[derive(Debug, Clone)]
struct SteppedEnvelope {
    pick: AliasTable,
    /// 1/c_k.
    inv_cap: Box<[f64; STEPS]>,
    /// sin²(a_k/2)·e^{−εh}/c_k: a lower bound of the acceptance probability on step k (squeeze).
    squeeze: Box<[f64; STEPS]>,
}

impl SteppedEnvelope {
    /// Step weights c_k·e^{−εa_k} (the envelope's mass on step k is h times this).
    fn weights(epsilon: f64) -> [f64; STEPS] {
        std::array::from_fn(|k| (0.5 * STEP * (k + 1) as f64).sin().powi(2) * (-epsilon * STEP * k as f64).exp())
    }

    /// Exact acceptance Z(ε)/∫envelope.
    fn acceptance(epsilon: f64, z: f64) -> f64 {
        z / (STEP * Self::weights(epsilon).iter().sum::<f64>())
    }

    fn new(epsilon: f64) -> Fallible<Self> {
        let pick = AliasTable::new(&Self::weights(epsilon)).ok_or(Error::InvalidParameter {
            name: "epsilon",
            value: epsilon,
            reason: "step weights underflow",
        })?;
        let inv_cap = Box::new(std::array::from_fn(|k| (0.5 * STEP * (k + 1) as f64).sin().powi(-2)));
        let decay = (-epsilon * STEP).exp();
        let squeeze = Box::new(std::array::from_fn(|k| half_start(k).sin().powi(2) * decay * inv_cap[k]));
        Ok(SteppedEnvelope { pick, inv_cap, squeeze })
    }
}

/// The Laplace noise distribution on SO(3) at the identity, with ε per radian.
#[derive(Debug, Clone)]
pub struct LaplaceSo3Noise {
    epsilon: f64,
    acceptance: f64,
    /// `None`: the Gamma proposal.
    stepped: Option<SteppedEnvelope>,
}

impl PartialEq for LaplaceSo3Noise {
    fn eq(&self, other: &Self) -> bool {
        self.epsilon == other.epsilon
    }
}

impl LaplaceSo3Noise {
    /// Noise for budget `epsilon` (finite, > 0).
    pub fn new(epsilon: f64) -> Fallible<Self> {
        let epsilon = check_positive("epsilon", epsilon)?;
        let z = LaplaceAngle::new(epsilon)?.normaliser();
        let gamma = 2.0 * epsilon.powi(3) * z;
        let stepped = SteppedEnvelope::acceptance(epsilon, z);
        if stepped > gamma {
            Ok(LaplaceSo3Noise { epsilon, acceptance: stepped, stepped: Some(SteppedEnvelope::new(epsilon)?) })
        } else {
            Ok(LaplaceSo3Noise { epsilon, acceptance: gamma, stepped: None })
        }
    }

    /// ε per radian.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// The proposal in use.
    pub fn proposal(&self) -> LaplaceProposal {
        if self.stepped.is_some() { LaplaceProposal::Stepped } else { LaplaceProposal::Gamma }
    }

    /// Probability that one proposal is accepted (exact, from the closed-form normaliser).
    pub fn acceptance_rate(&self) -> f64 {
        self.acceptance
    }

    /// (cos(θ/2), sin(θ/2)) of an exact draw of the angle, by the stepped envelope: pick step k, draw
    /// δ uniform on [0, h), accept θ = a_k + δ with probability sin²(θ/2)e^{−εδ}/c_k.
    #[inline]
    fn half_angle_stepped<R: Rng + ?Sized>(&self, env: &SteppedEnvelope, rng: &mut R) -> (f64, f64) {
        loop {
            let k = env.pick.sample(rng);
            let delta = STEP * rng.random::<f64>();
            let (sin_a, cos_a) = HALF_STARTS[k];
            let (sin_d, cos_d) = small_sin_cos(0.5 * delta);
            let s = sin_a * cos_d + cos_a * sin_d;
            let c = cos_a * cos_d - sin_a * sin_d;
            let v: f64 = rng.random();
            if v < env.squeeze[k] || v < s * s * (-self.epsilon * delta).exp() * env.inv_cap[k] {
                return (c, s);
            }
        }
    }

    /// (cos(θ/2), sin(θ/2)) of an exact draw of the angle, by the Gamma(3, ε) proposal.
    #[inline]
    fn half_angle_gamma<R: Rng + ?Sized>(&self, rng: &mut R) -> (f64, f64) {
        loop {
            let theta = -(open_unit(rng) * open_unit(rng) * open_unit(rng)).ln() / self.epsilon;
            if theta > PI {
                continue;
            }
            let half = 0.5 * theta;
            let (s, c) = sin_cos_quarter(half);
            let ratio = if half > 0.0 { s / half } else { 1.0 };
            if rng.random::<f64>() < ratio * ratio {
                return (c, s);
            }
        }
    }
}

impl Distribution<UnitQuaternion<f64>> for LaplaceSo3Noise {
    #[inline]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> UnitQuaternion<f64> {
        let (c, s) = match &self.stepped {
            Some(env) => self.half_angle_stepped(env, rng),
            None => self.half_angle_gamma(rng),
        };
        UnitQuaternion::new_unchecked(Quaternion::from_parts(c, uniform_s2(rng) * s))
    }
}
