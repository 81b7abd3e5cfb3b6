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
use crate::sample::{open_unit, small_sin_cos};
use nalgebra::{Quaternion, UnitQuaternion};
use rand::distr::Distribution;
use rand::{Rng, RngExt};
use std::f64::consts::PI;
use std::sync::LazyLock;

/// Number of equal steps of [0, π] in the stepped envelope.
pub const STEPS: usize = 256;

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

/// Width of one step, h = π/STEPS.
const STEP: f64 = PI / STEPS as f64;

/// (sin, cos) of the half step starts fl(k·h/2), k < STEPS: θ/2 is then evaluated by the addition formulas
/// with a short polynomial for the rest (no libm call per draw).
static HALF_STARTS: LazyLock<[(f64, f64); STEPS]> = LazyLock::new(|| std::array::from_fn(|k| half_start(k).sin_cos()));

/// fl(k·h/2), the k-th half step start.
#[inline]
fn half_start(k: usize) -> f64 {
    0.5 * STEP * k as f64
}

/// (sin t, cos t) for t ∈ [0, π/2]: the tabulated start A = fl(k·h/2) at or just below t, rotated by r = t − A.
/// The subtraction is exact (Sterbenz: A ≤ t ≤ 2A for k ≥ 1, r = t for k = 0, and an index one off at a step
/// boundary leaves |r| ≤ h/2 + ulps, within `small_sin_cos`'s range), so the error is the table's rounding and
/// the polynomial's, a few ulps (`docs/proofs/laplace_so3.md`).
#[inline]
fn half_sin_cos(t: f64) -> (f64, f64) {
    let k = ((t * (2.0 / STEP)) as usize).min(STEPS - 1);
    let (sin_a, cos_a) = HALF_STARTS[k];
    let (sin_r, cos_r) = small_sin_cos(t - half_start(k));
    (sin_a * cos_r + cos_a * sin_r, cos_a * cos_r - sin_a * sin_r)
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
            let (s, c) = half_sin_cos(half);
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

    /// The largest error of `sin_cos` against libm's over `ts`, in units of 2^-53 (half an ulp of 1).
    fn worst_error(ts: &[f64], sin_cos: impl Fn(f64) -> (f64, f64)) -> f64 {
        ts.iter()
            .map(|&t| {
                let (s, c) = sin_cos(t);
                let (s0, c0) = t.sin_cos();
                (s - s0).abs().max((c - c0).abs()) / f64::EPSILON * 2.0
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn gamma_branch_half_angle_matches_libm() {
        // Every step boundary and its neighbours (where the index may be one off), the ends, and a fine sweep.
        let mut ts: Vec<f64> = (0..=STEPS)
            .flat_map(|k| {
                let a = half_start(k);
                [a, a.next_up(), a.next_down().max(0.0)]
            })
            .collect();
        ts.extend((0..=200_000).map(|i| 0.5 * PI * i as f64 / 200_000.0));
        ts.retain(|&t| (0.0..=0.5 * PI).contains(&t));
        let err = worst_error(&ts, half_sin_cos);
        println!("largest error: {err} × 2^-53");
        assert!(err <= 8.0, "error {err} × 2^-53");
        // Negative control: the table entry of the next step, rotated by the same rest, is far off.
        let shifted = |t: f64| {
            let k = ((t * (2.0 / STEP)) as usize).min(STEPS - 2) + 1;
            let (sin_a, cos_a) = HALF_STARTS[k];
            let (sin_r, cos_r) = small_sin_cos(t - half_start(k - 1));
            (sin_a * cos_r + cos_a * sin_r, cos_a * cos_r - sin_a * sin_r)
        };
        assert!(worst_error(&ts, shifted) > 1e10, "the control was not caught");
    }
}
