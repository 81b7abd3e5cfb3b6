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
use crate::sample::small_sin_cos;
use crate::sample::sphere::uniform_s2;
use crate::sample::trig::{self, HALF_STARTS, STEP, half_start, sin_cos_quarter};
use crate::sample::uniform::exp1;
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

/// Bound on |ln(â/a)| for one acceptance test, both proposals (float_safety.md §3f: the Gamma proposal's
/// ≤ 80·2^-53; the stepped one's logarithmic test ≤ (14 + 5|ℓ|)·2^-53 with |ℓ| ≤ 1510 for every θ ≥ 2^-1074).
const ACCEPTANCE_ERROR: f64 = 1e-12;

/// The step-function envelope: on step k = [a_k, a_k + h] it is the constant c_k·e^{−εa_k} with
/// c_k = sin²((a_k + h)/2), which bounds sin²(θ/2)e^{−εθ} there because both factors are monotone.
#[derive(Debug, Clone)]
struct SteppedEnvelope {
    pick: AliasTable,
    /// ln(1/c_k), for the acceptance test in logarithms where the squeeze fails.
    ln_inv_cap: Box<[f64; STEPS]>,
    /// max_k |ln(p̂_k/p_k)|: how far the alias table's exact step probabilities p̂_k (its thresholds are
    /// rounded to 2^-53) are from the envelope's p_k ∝ c_k e^{−εa_k} (float_safety.md §3f).
    alias_error: f64,
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
        let inv_cap: [f64; STEPS] = std::array::from_fn(|k| (0.5 * STEP * (k + 1) as f64).sin().powi(-2));
        let decay = (-epsilon * STEP).exp();
        let squeeze = Box::new(std::array::from_fn(|k| half_start(k).sin().powi(2) * decay * inv_cap[k]));
        let ln_inv_cap = Box::new(inv_cap.map(f64::ln));
        let weights = Self::weights(epsilon);
        let total: f64 = weights.iter().sum();
        let alias_error =
            pick.probabilities().iter().zip(weights).map(|(p, w)| (p / (w / total)).ln().abs()).fold(0.0, f64::max);
        Ok(SteppedEnvelope { pick, ln_inv_cap, squeeze, alias_error })
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

    /// A bound on |ln(â/a)|, the computed acceptance against the exact one at every proposal, with the alias
    /// table's own rounding for the stepped proposal (`docs/proofs/float_safety.md` §3f, Lemma R): 1e-12, plus
    /// the table's deviation from the envelope.
    pub fn acceptance_error(&self) -> f64 {
        ACCEPTANCE_ERROR + self.stepped.as_ref().map_or(0.0, |env| 2.0 * env.alias_error)
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
            // V at full precision, and the full test in logarithms: the acceptance sin²(θ/2)e^{−εδ}/c_k goes to 0
            // at θ = 0, where a 53-bit V's comparison would be off by up to 2^-53/acceptance (§3f).
            let v = crate::sample::uniform::unit(rng);
            if v < env.squeeze[k] || v.ln() < 2.0 * s.ln() - self.epsilon * delta + env.ln_inv_cap[k] {
                return (c, s);
            }
        }
    }

    /// (cos(θ/2), sin(θ/2)) of an exact draw of the angle, by the Gamma(3, ε) proposal.
    #[inline]
    fn half_angle_gamma<R: Rng + ?Sized>(&self, rng: &mut R) -> (f64, f64) {
        loop {
            // Three exponentials with relative accuracy everywhere (§3f): the proposal reaches every θ ≤ π at every
            // ε, where −ln(U₁U₂U₃) of 53-bit uniforms stopped at 110/ε.
            let theta = (exp1(rng) + exp1(rng) + exp1(rng)) / self.epsilon;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The acceptance error reported to the guarantee (§3f) is small at every ε of the stepped proposal, and
    /// the alias table's own deviation from the envelope is part of it (measured: below 1e-11).
    #[test]
    fn acceptance_error_counts_the_alias_table_and_stays_small() {
        for epsilon in [1e-6, 0.1, 1.0, 3.0, 4.0] {
            let noise = LaplaceSo3Noise::new(epsilon).unwrap();
            assert_eq!(noise.proposal(), LaplaceProposal::Stepped, "{epsilon}");
            let env = noise.stepped.as_ref().unwrap();
            assert!(env.alias_error > 0.0 && env.alias_error < 1e-11, "{epsilon}: {}", env.alias_error);
            assert!(noise.acceptance_error() > ACCEPTANCE_ERROR && noise.acceptance_error() < 1e-10);
        }
        let gamma = LaplaceSo3Noise::new(100.0).unwrap();
        assert_eq!(gamma.proposal(), LaplaceProposal::Gamma);
        assert_eq!(gamma.acceptance_error(), ACCEPTANCE_ERROR);
    }
}
