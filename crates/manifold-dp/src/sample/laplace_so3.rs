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
use crate::error::Param;
use crate::error::{Error, Fallible, check_positive};
use crate::numerics::trig::{self, STEP, half_start, sin_cos_from_start, sin_cos_quarter};
use crate::sample::alias::AliasTable;
use crate::sample::sphere::uniform_s2;
use crate::sample::uniform::exp1;
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use rand::distr::Distribution;
use rand::{Rng, RngExt};
use std::f64::consts::PI;

/// Number of equal steps of [0, π] in the stepped envelope (the steps of [`crate::numerics::trig`]'s table).
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
            name: Param::Epsilon,
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
        let epsilon = check_positive(Param::Epsilon, epsilon)?;
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

    /// The half angle θ/2 of an exact draw by the Gamma(3, ε) proposal at every ε (exact for every ε > 0; its
    /// acceptance 2ε³Z(ε) is above 0.9 from ε ≈ 4 and → 1), and the axis, for the private means'
    /// relative-error release (`docs/proofs/float_safety.md` §3i): θ̂ within 18·2^-53 of itself (§3f), the
    /// axis within 10·2^-53 of the exact unit axis of the same uniforms (§4: the circle's point 5.5, the radius
    /// 1.51 + 1, the height 1, in units of 2^-53). The test is `half_angle_gamma`'s, so its α is §3f's.
    pub fn sample_half_angle_and_axis<R: Rng + ?Sized>(&self, rng: &mut R) -> (f64, Vector3<f64>) {
        let half = loop {
            let theta = (exp1(rng) + exp1(rng) + exp1(rng)) / self.epsilon;
            if theta > PI {
                continue;
            }
            let half = 0.5 * theta;
            let (s, _) = sin_cos_quarter(half);
            let ratio = if half > 0.0 { s / half } else { 1.0 };
            if rng.random::<f64>() < ratio * ratio {
                break half;
            }
        };
        (half, uniform_s2(rng))
    }

    /// (cos(θ/2), sin(θ/2)) of an exact draw of the angle, by the stepped envelope: pick step k, draw
    /// δ uniform on [0, h), accept θ = a_k + δ with probability sin²(θ/2)e^{−εδ}/c_k.
    #[inline]
    fn half_angle_stepped<R: Rng + ?Sized>(&self, env: &SteppedEnvelope, rng: &mut R) -> (f64, f64) {
        loop {
            let k = env.pick.sample(rng);
            let delta = STEP * rng.random::<f64>();
            // θ/2 = A_k + δ/2 exactly (the drawn angle); its sine and cosine within 3.6·2^-53.
            let (s, c) = sin_cos_from_start(k, 0.5 * delta);
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
        noise_quaternion(c, s, uniform_s2(rng))
    }
}

/// The noise rotation (cos(θ/2), sin(θ/2)·a) from the computed half-angle cosine `c` and sine `s` and the axis
/// `a` (unit up to its rounding). Against the exact point (cos(θ/2), sin(θ/2)·a/‖a‖) it errs by at most
/// [`NOISE_QUATERNION_ERROR`] (`docs/proofs/float_safety.md` §4).
#[inline]
pub(crate) fn noise_quaternion(c: f64, s: f64, axis: Vector3<f64>) -> UnitQuaternion<f64> {
    UnitQuaternion::new_unchecked(Quaternion::from_parts(c, axis * s))
}

/// A bound on ‖n̂ − n*‖ for the Laplace noise quaternion n̂ and its exact point n* = (cos(θ/2), sin(θ/2)·a/‖a‖):
/// 14·2^-53. With c, s within e = 3.6·2^-53 of cos(θ/2), sin(θ/2) (`trig::sin_cos_from_start`), the axis's
/// norm within ν = 8.1·2^-53 of 1 (`uniform_s2`: the circle's point within 5.5·2^-53 of a unit vector, the
/// radius 2√(x(1 − x)) within 1.51·2^-53 relative, one rounding per product, the height within 2^-53
/// relative), and one rounding per product a_i·s: the scalar part errs by e, the vector part by at most
/// 2^-53(1 + ν)(1 + e) + (1 + ν)e + ν ≤ 12.8·2^-53, together √(3.6² + 12.8²)·2^-53 ≤ 14·2^-53. The non-unit norm
/// of n̂ is part of this error; the rotation's product adds its own (`docs/proofs/float_safety.md` §4).
pub const NOISE_QUATERNION_ERROR: f64 = 14.0 * (f64::EPSILON / 2.0);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numerics::trig::STEPS;
    use crate::sample::double_double::{Dd, norm};
    use crate::sample::rng::seeded_rng_for_experiments;

    const U: f64 = f64::EPSILON / 2.0;

    /// (‖n̂ − n*‖, the chord between n̂/‖n̂‖ and n*) in units of 2^-53, for n* the exact point of the half angle
    /// A_k + r (a real sum) and the axis a/‖a‖, computed in double-double.
    fn error(n: [f64; 4], k: usize, r: f64, axis: &Vector3<f64>) -> (f64, f64) {
        let (sin, cos) = Dd::sum(half_start(k), r).sin_cos();
        let a: Vec<Dd> = axis.iter().map(|&x| Dd::new(x)).collect();
        let len = norm(&a);
        let exact = [cos, sin.mul(a[0]).div(len), sin.mul(a[1]).div(len), sin.mul(a[2]).div(len)];
        let distance = exact.iter().zip(n).map(|(e, x)| e.minus_from(x).powi(2)).sum::<f64>().sqrt();
        let computed: Vec<Dd> = n.iter().map(|&x| Dd::new(x)).collect();
        let n_len = norm(&computed);
        let chord = exact.iter().zip(&computed).map(|(e, x)| x.div(n_len).sub(*e).hi.powi(2)).sum::<f64>().sqrt();
        (distance / U, chord / U)
    }

    /// Half angles as both proposals form them: (k, r) with r = δ/2, δ uniform on [0, h) (stepped), and r = t − A_k
    /// for t uniform on [0, π/2] and at every step boundary and its neighbours (Gamma, `sin_cos_quarter`).
    fn half_angles(rng: &mut impl Rng, draws: usize) -> Vec<(usize, f64)> {
        let mut out: Vec<(usize, f64)> = (0..draws).map(|i| (i % STEPS, 0.5 * (STEP * rng.random::<f64>()))).collect();
        let quarter = |t: f64| {
            let k = ((t * (2.0 / STEP)) as usize).min(STEPS - 1);
            (k, t - half_start(k))
        };
        out.extend((0..draws).map(|_| quarter(rng.random::<f64>() * std::f64::consts::FRAC_PI_2)));
        out.extend((0..=STEPS).flat_map(|k| {
            let a = half_start(k).min(std::f64::consts::FRAC_PI_2);
            [quarter(a), quarter(a.next_up()), quarter(a.next_down().max(0.0))]
        }));
        out
    }

    /// The noise quaternion the sampler forms, (c, s·a) from `sin_cos_from_start` and `uniform_s2`'s axis, is
    /// within [`NOISE_QUATERNION_ERROR`] (14·2^-53) of its exact point, non-unit norm included, and so is its
    /// direction; the pieces are within their stated bounds (c, s: 3.6·2^-53; |‖a‖ − 1|: 8.1·2^-53). Negative control: the
    /// same quaternion with its sine taken as √(1 − c²), a common shortcut, fails the bound.
    #[test]
    fn the_noise_quaternion_is_within_its_stated_error() {
        let mut rng = seeded_rng_for_experiments(37);
        let (mut worst, mut worst_chord, mut worst_trig, mut worst_axis, mut worst_control) =
            (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for (k, r) in half_angles(&mut rng, 200_000) {
            let (s, c) = sin_cos_from_start(k, r);
            let (sin, cos) = Dd::sum(half_start(k), r).sin_cos();
            worst_trig = worst_trig.max(sin.minus_from(s).abs().max(cos.minus_from(c).abs()) / U);
            let axis = uniform_s2(&mut rng);
            let a: Vec<Dd> = axis.iter().map(|&x| Dd::new(x)).collect();
            worst_axis = worst_axis.max(norm(&a).minus_from(1.0).abs() / U);
            let q = noise_quaternion(c, s, axis).into_inner();
            let (e, chord) = error([q.w, q.i, q.j, q.k], k, r, &axis);
            worst = worst.max(e);
            worst_chord = worst_chord.max(chord);
            let shortcut = noise_quaternion(c, (1.0 - c * c).sqrt(), axis).into_inner();
            worst_control = worst_control.max(error([shortcut.w, shortcut.i, shortcut.j, shortcut.k], k, r, &axis).0);
        }
        println!(
            "noise quaternion (units of 2^-53): ‖n̂ − n*‖ ≤ {worst:.3}, chord ≤ {worst_chord:.3}, c and s ≤ \
             {worst_trig:.3}, |‖a‖ − 1| ≤ {worst_axis:.3}; control {worst_control:.3e}"
        );
        assert!(worst_trig <= 3.6 && worst_axis <= 8.1, "{worst_trig} {worst_axis}");
        assert!(
            worst * U <= NOISE_QUATERNION_ERROR && worst_chord * U <= NOISE_QUATERNION_ERROR,
            "{worst} {worst_chord}"
        );
        assert!(worst_control * U > NOISE_QUATERNION_ERROR, "the control was not caught: {worst_control}");
    }
}

#[cfg(test)]
mod acceptance_tests {
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
