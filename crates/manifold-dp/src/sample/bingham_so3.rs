//! Exact sampler of the Bingham noise on SO(3): a unit quaternion q with density ∝ exp(−κ(1 − w²)) =
//! exp(−κ sin²(θ/2)) with respect to the uniform measure on S³ (docs/math.md §1.2).
//!
//! Kent, Ganeiber & Mardia (2013), "A new method to simulate the Bingham and related distributions",
//! with its optimal angular-central-Gaussian envelope. Here A = κ·diag(1, 1, 1, 0) on (x, y, z, w) (smallest
//! eigenvalue already 0); b ∈ (0, 4] solves 3/(b + 2κ) + 1/b = 1, i.e. b² + (2κ − 4)b − 2κ = 0;
//! Ω = I + 2A/b; propose y ~ N(0, Ω⁻¹), x = y/‖y‖; accept when U < exp(−xᵀAx)·(xᵀΩx)²/M* with
//! M* = e^{−(4−b)/2}(4/b)². Since (xᵀΩx)·‖y‖² = ‖z‖² for the underlying standard normal z, the test needs
//! no matrix products. The envelope bound is Kent et al.'s inequality e^{−t} ≤ e^{−(q−b)/2}(q/b)^{q/2}
//! (1 + 2t/b)^{−q/2} with q = 4; exactness argued in `docs/proofs/bingham_so3_tight.md`.
//! Acceptance ([`BinghamSo3Noise::acceptance_rate`], exact): 1 as κ → 0, falling to 0.446 as κ → ∞;
//! the measured rate is tested against it.

use crate::analysis::BinghamAngle;
use crate::error::Fallible;
use crate::sample::normal::normal_pair;
use nalgebra::{Quaternion, UnitQuaternion};
use rand::Rng;
use rand::distr::Distribution;

/// The Bingham noise distribution at the identity with concentration κ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BinghamSo3Noise {
    kappa: f64,
    /// 1/√(1 + 2κ/b): standard deviation of the proposal's vector part.
    vec_scale: f64,
    /// ln M*.
    log_m_star: f64,
}

/// The positive root b of b² + (2κ − 4)b − 2κ = 0, evaluated without cancellation.
pub fn optimal_b(kappa: f64) -> f64 {
    let p = 2.0 * kappa - 4.0;
    let root = (p * p + 8.0 * kappa).sqrt();
    if p >= 0.0 { 4.0 * kappa / (p + root) } else { 0.5 * (root - p) }
}

impl BinghamSo3Noise {
    /// Noise with concentration `kappa` (finite, > 0). For a budget ε per radian use κ = 2ε
    /// ([`crate::analysis::bingham_so3::bingham_kappa_for_epsilon`]).
    pub fn new(kappa: f64) -> Fallible<Self> {
        let kappa = crate::error::check_concentration(kappa, 2e6, "must be at most 2e6, where the sampler is tested")?;
        let b = optimal_b(kappa);
        let vec_scale = 1.0 / (1.0 + 2.0 * kappa / b).sqrt();
        let log_m_star = -(4.0 - b) / 2.0 + 2.0 * (4.0 / b).ln();
        Ok(BinghamSo3Noise { kappa, vec_scale, log_m_star })
    }

    /// The concentration κ.
    pub fn kappa(&self) -> f64 {
        self.kappa
    }

    /// A bound on the probability, per draw, of the noise-only events where the float bounds are not claimed:
    /// δ_N of the proposal's four normals (`docs/proofs/float_safety.md` §3f, Lemma N "Directions"; §6).
    pub fn negligible_event_probability(&self) -> f64 {
        crate::sample::normal::DIRECTION_EVENT_PROBABILITY
    }

    /// Exact probability that one proposal is accepted:
    /// ∫f*/(M*∫g*) = [Z(κ)/(π/2)]·√det Ω / M*, where Z(κ)/(π/2) = E_uniform[exp(−κ sin²(θ/2))] (the Haar angle
    /// density is sin²(θ/2)/(π/2)) and ∫_{S³}(xᵀΩx)^{−2}dσ = |S³|/√det Ω, det Ω = (1 + 2κ/b)³.
    pub fn acceptance_rate(&self) -> f64 {
        let z = BinghamAngle::new(self.kappa).expect("kappa validated").normaliser();
        let det_omega_sqrt = self.vec_scale.powi(-3);
        z / std::f64::consts::FRAC_PI_2 * det_omega_sqrt * (-self.log_m_star).exp()
    }

    /// One proposal: returns the candidate and whether it was accepted.
    #[inline]
    fn propose<R: Rng + ?Sized>(&self, rng: &mut R) -> (Quaternion<f64>, bool) {
        // Through the trait, which LLVM inlines (`rng.sample` stayed an out-of-line call); the same values.
        let ((z0, z1), (z2, z3)) = (normal_pair(rng), normal_pair(rng));
        let z = [z0, z1, z2, z3];
        let (y, v2, n2) = proposal_point(&z, self.vec_scale);
        let z2 = z[0] * z[0] + z[1] * z[1] + z[2] * z[2] + z[3] * z[3];
        // ln[exp(−xᵀAx)(xᵀΩx)²/M*] with xᵀAx = κ v²/‖y‖² and xᵀΩx = ‖z‖²/‖y‖².
        let log_ratio = -self.kappa * v2 / n2 + 2.0 * (z2 / n2).ln() - self.log_m_star;
        let accept = crate::sample::uniform::ln_unit(rng) < log_ratio;
        (on_s3(y, n2), accept)
    }

    /// A bound on |ln(â/a)|, the computed acceptance probability against the exact one at every proposal
    /// (`docs/proofs/float_safety.md` §3f, Lemma R): u·(83κ + 215 + 8·ln(1 + 2κ)), u = 2^-53, times 1.01 for
    /// second-order terms. Each proposal coordinate is within 17u of its own size (Lemma N, and the scaling by
    /// the vector part's standard deviation), so v², ‖y‖² and ‖z‖² are within 38u, the term κv²/‖y‖² within
    /// 77u·κ, 2 ln(‖z‖²/‖y‖²) within 150u + 4u·ln(1 + 2κ/b) (b ≥ 1), ln M* (|ln M*| ≤ 5) within 30u, the two sums
    /// and the comparison with a full-precision ln U ((5 + 4|ℓ|)u, |ℓ| ≤ κ + 5) the rest. 1.9e-8 at κ = 2·10⁶.
    pub fn acceptance_error(&self) -> f64 {
        let u = f64::EPSILON / 2.0;
        1.01 * u * (83.0 * self.kappa + 215.0 + 8.0 * (2.0 * self.kappa).ln_1p())
    }

    /// Measured acceptance over `n` proposals (diagnostics and tests).
    pub fn measure_acceptance<R: Rng + ?Sized>(&self, rng: &mut R, n: usize) -> f64 {
        (0..n).filter(|_| self.propose(rng).1).count() as f64 / n as f64
    }
}

/// The proposal's point y = (z₃; vs·z₀, vs·z₁, vs·z₂), the squared norm of its vector part, and ‖y‖².
#[inline]
fn proposal_point(z: &[f64; 4], vec_scale: f64) -> (Quaternion<f64>, f64, f64) {
    let y = Quaternion::new(z[3], z[0] * vec_scale, z[1] * vec_scale, z[2] * vec_scale);
    let v2 = y.i * y.i + y.j * y.j + y.k * y.k;
    (y, v2, v2 + y.w * y.w)
}

/// The noise rotation y/‖y‖ from the computed ‖y‖² `n2`. Its direction is within [`NOISE_QUATERNION_ERROR`] of
/// the exact point y*/‖y*‖ (y* the exact products): each component is off by one rounding of its product and
/// one of the division (relative 2^-53 each), while the error of ‖y‖ scales every component alike and does
/// not move the direction (`docs/proofs/float_safety.md` §4).
#[inline]
fn on_s3(y: Quaternion<f64>, n2: f64) -> Quaternion<f64> {
    y / n2.sqrt()
}

/// A bound on the chord between the direction of the Bingham noise quaternion and its exact point: 2.01·2^-53
/// (two relative roundings per component, `on_s3`).
pub const NOISE_QUATERNION_ERROR: f64 = 2.01 * (f64::EPSILON / 2.0);

impl Distribution<UnitQuaternion<f64>> for BinghamSo3Noise {
    #[inline]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> UnitQuaternion<f64> {
        loop {
            let (q, accepted) = self.propose(rng);
            if accepted {
                return UnitQuaternion::new_unchecked(q);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::double_double::{Dd, norm};
    use crate::sample::rng::seeded_rng_for_experiments;

    /// The chord, in units of 2^-53, between the direction of `q` and y*/‖y*‖, y* = (z₃; vs·z₀, vs·z₁, vs·z₂)
    /// computed exactly (double-double).
    fn chord(q: Quaternion<f64>, z: &[f64; 4], vs: f64) -> f64 {
        let vs = Dd::new(vs);
        let exact = [Dd::new(z[3]), Dd::new(z[0]).mul(vs), Dd::new(z[1]).mul(vs), Dd::new(z[2]).mul(vs)];
        let computed = [q.w, q.i, q.j, q.k].map(Dd::new);
        let (le, lc) = (norm(&exact), norm(&computed));
        let d2: f64 = exact.iter().zip(&computed).map(|(e, c)| c.div(lc).sub(e.div(le)).hi.powi(2)).sum();
        d2.sqrt() / (f64::EPSILON / 2.0)
    }

    /// The Bingham noise quaternion's direction is within [`NOISE_QUATERNION_ERROR`] (2.01·2^-53) of its exact
    /// point, at concentrations from 10⁻³ to 2·10⁶. Negative control: its vector part rounded to f32 fails.
    #[test]
    fn the_noise_quaternion_is_within_its_stated_error() {
        let mut rng = seeded_rng_for_experiments(38);
        let (mut worst, mut worst_control) = (0.0f64, 0.0f64);
        for kappa in [1e-3, 0.5, 3.0, 40.0, 1e3, 2e6] {
            let vs = BinghamSo3Noise::new(kappa).unwrap().vec_scale;
            for _ in 0..100_000 {
                let ((z0, z1), (z2, z3)) = (normal_pair(&mut rng), normal_pair(&mut rng));
                let z = [z0, z1, z2, z3];
                let (y, _, n2) = proposal_point(&z, vs);
                worst = worst.max(chord(on_s3(y, n2), &z, vs));
                let coarse = Quaternion::new(y.w, y.i as f32 as f64, y.j as f32 as f64, y.k as f32 as f64);
                worst_control = worst_control.max(chord(on_s3(coarse, n2), &z, vs));
            }
        }
        println!("Bingham noise quaternion: chord ≤ {worst:.3} × 2^-53; control {worst_control:.3e}");
        assert!(worst * (f64::EPSILON / 2.0) <= NOISE_QUATERNION_ERROR, "{worst}");
        assert!(worst_control * (f64::EPSILON / 2.0) > NOISE_QUATERNION_ERROR, "the control was not caught");
    }
}
