//! Exact samplers of the Riemannian Gaussian law, density ∝ exp(−d(z, x)²/2σ²) w.r.t. the Riemannian volume,
//! on S^{n−1} and SO(3) (`docs/proofs/riemannian_gaussian.md` §1–§2).
//!
//! The law is isotropic about x: θ = d(z, x) has density ∝ e^{−θ²/2σ²}·sin^k θ on [0, π] (S^{k+1}) or
//! ∝ e^{−θ²/2σ²}·sin²(θ/2) (SO(3), the rotation angle), and the direction (the tangent direction on S^{n−1}, the
//! axis on SO(3)) is uniform and independent of θ. The angle is drawn by exact rejection, from one of two
//! proposals chosen from public parameters (the one with the larger acceptance rate):
//!
//! - **chi**: θ = σ·√(2G), G ~ Gamma((k + 1)/2) (σ·χ_{k+1}), whose density ∝ e^{−θ²/2σ²}θ^k dominates the target
//!   since sin θ ≤ θ. On SO(3) k = 2 and the test is (sin(θ/2)/(θ/2))² ≥ 4/π²; on the circle there is no test.
//!   On S^{k+1}, k ≥ 1, the test (sin θ/θ)^k vanishes at π, where a computed θ cannot resolve π − θ; so the
//!   envelope has two pieces: the chi law on [0, π/2] (test (sin θ/θ)^k ≥ (2/π)^k) and, on [π/2, π],
//!   e^{−π²/8σ²}·sin^k θ (the uniform law's angle, drawn as π − s with s the angle of a Gaussian vector from an
//!   axis, so π − θ is known to its own precision; test e^{−(θ² − π²/4)/2σ²}). The piece is picked with
//!   probability proportional to its mass, computed in logarithms (no underflow however small σ is).
//! - **uniform**: θ the angle of a uniform point (of S^{k+1}, or twice the half-angle of a Haar rotation), test
//!   e^{−θ²/2σ²} ≥ e^{−π²/2σ²}: the better choice for σ of order 1 and beyond.
//!
//! Every uniform is read at full precision ([`crate::sample::uniform`], [`crate::sample::normal`]) and every
//! test compares [`ln_unit`] with the log acceptance; the loops are uncapped. The tests' computed values are
//! within a factor e^{±α} of the exact ones, α = [`GaussianNoise::acceptance_error`] (Lemma R of
//! `docs/proofs/float_safety.md` §3f: the release's ε₀ grows by 4α).

use crate::analysis::riemannian_gdp::GaussianSpace;
use crate::error::Param;
use crate::error::{Error, Fallible, check_positive};
use crate::sample::laplace_so3::noise_quaternion;
use crate::sample::normal::{gamma_half_integer, gamma_relative_error_units, normal};
use crate::sample::sphere::{point_at_angle_into, uniform_s2};
use crate::sample::uniform::ln_unit;
use nalgebra::{DVector, UnitQuaternion};
use rand::Rng;
use std::f64::consts::{FRAC_PI_2, PI};

const U: f64 = f64::EPSILON / 2.0;

/// The smallest σ accepted (the crate's ε range for the Laplace laws, read as a scale: 10⁻⁶ rad).
pub const MIN_SIGMA: f64 = 1e-6;

/// The largest σ accepted (far beyond it the law is uniform to within 10⁻¹² anyway).
pub const MAX_SIGMA: f64 = 1e6;

/// Which proposal a [`GaussianNoise`] draws from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GaussianProposal {
    /// σ·χ_{k+1}; on S^{k+1}, k ≥ 1, with the second piece on [π/2, π] picked with log-probability `ln_far`.
    Chi {
        /// ln P(the far piece) (−∞ where there is none).
        ln_far: f64,
        /// ln P(the chi piece).
        ln_near: f64,
    },
    /// The uniform (Haar) law's angle.
    Uniform,
}

/// The Riemannian Gaussian's noise with scale σ on S^{n−1} or SO(3): an exact sampler of the angle and the
/// point (`docs/proofs/riemannian_gaussian.md` §1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaussianNoise {
    space: GaussianSpace,
    sigma: f64,
    proposal: GaussianProposal,
}

/// lnΓ(j/2) for j ≥ 1, by the recurrence from Γ(½) = √π and Γ(1) = 1: a sum of at most j/2 logarithms, within
/// (j + 2)·2u·(1 + lnΓ(j/2)) of the exact value.
fn ln_gamma_half(j: usize) -> f64 {
    let mut acc = if j % 2 == 1 { 0.5 * PI.ln() } else { 0.0 };
    let mut x = if j % 2 == 1 { 0.5 } else { 1.0 };
    while 2.0 * x < j as f64 {
        acc += x.ln();
        x += 1.0;
    }
    acc
}

/// ln(e^a + e^b).
fn ln_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if hi == f64::NEG_INFINITY { hi } else { hi + (lo - hi).exp().ln_1p() }
}

/// Below this log-probability a proposal piece's arithmetic is not bounded (its mass is at most e^-690 < 2.2·10⁻³⁰⁰:
/// a δ, part of the release's printed `riemannian_gdp::RELEASE_DELTA`, proof §2).
const NEGLIGIBLE_LN: f64 = -690.0;

impl GaussianNoise {
    /// The sampler for scale σ from [`MIN_SIGMA`] to [`MAX_SIGMA`] on `space`.
    pub fn new(space: GaussianSpace, sigma: f64) -> Fallible<Self> {
        let sigma = check_positive(Param::Sigma, sigma)?;
        if !(MIN_SIGMA..=MAX_SIGMA).contains(&sigma) {
            return Err(Error::InvalidParameter { name: Param::Sigma, value: sigma, reason: "must be in [1e-6, 1e6]" });
        }
        let k = space.radial_power();
        // Envelope masses: chi M1 = ∫₀^∞ e^{−θ²/2σ²}θ^k (times ½ on SO(3): 1 − cos θ ≤ θ²/2), uniform W.
        let (ln_m1, ln_w, ln_m2) = match space {
            GaussianSpace::So3 => {
                let ln_m1 = 3.0 * sigma.ln() + 0.5 * 2f64.ln() + ln_gamma_half(3) - 2f64.ln();
                (ln_m1, PI.ln(), f64::NEG_INFINITY)
            }
            GaussianSpace::Sphere { .. } => {
                let kf = k as f64;
                let ln_m1 = (kf + 1.0) * sigma.ln() + 0.5 * (kf - 1.0) * 2f64.ln() + ln_gamma_half(k + 1);
                let ln_w = 0.5 * PI.ln() + ln_gamma_half(k + 1) - ln_gamma_half(k + 2);
                let ln_m2 =
                    if k == 0 { f64::NEG_INFINITY } else { -PI * PI / (8.0 * sigma * sigma) + ln_w - 2f64.ln() };
                (ln_m1, ln_w, ln_m2)
            }
        };
        let ln_chi = ln_add(ln_m1, ln_m2);
        let proposal = if ln_chi <= ln_w {
            GaussianProposal::Chi { ln_far: ln_m2 - ln_chi, ln_near: ln_m1 - ln_chi }
        } else {
            GaussianProposal::Uniform
        };
        Ok(GaussianNoise { space, sigma, proposal })
    }

    /// The scale σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// The space.
    pub fn space(&self) -> GaussianSpace {
        self.space
    }

    /// The proposal in use.
    pub fn proposal(&self) -> GaussianProposal {
        self.proposal
    }

    /// One exact draw of (θ, cos θ, sin θ) on S^{n−1}, or of (θ, cos(θ/2), sin(θ/2)) on SO(3).
    pub fn sample_angle_parts<R: Rng + ?Sized>(&self, rng: &mut R) -> (f64, f64, f64) {
        let k = self.space.radial_power();
        let two_var = 2.0 * self.sigma * self.sigma;
        let so3 = self.space == GaussianSpace::So3;
        loop {
            match self.proposal {
                GaussianProposal::Uniform => {
                    // The angle of a Gaussian vector (g₁, ρ·w) from the first axis: density ∝ sin^k on [0, π];
                    // on SO(3) the half-angle of a Haar rotation, folded onto [0, π/2] (q ≡ −q).
                    let rho = (2.0 * gamma_half_integer(if so3 { 3 } else { k + 1 }, rng)).sqrt();
                    let g = normal(rng);
                    let g = if so3 { g.abs() } else { g };
                    let hyp = rho.hypot(g);
                    let angle = rho.atan2(g);
                    let theta = if so3 { 2.0 * angle } else { angle };
                    if ln_unit(rng) < -(theta * theta) / two_var {
                        return (theta, g / hyp, rho / hyp);
                    }
                }
                GaussianProposal::Chi { ln_far, .. } => {
                    if ln_far > f64::NEG_INFINITY && ln_unit(rng) < ln_far {
                        // The far piece on [π/2, π]: θ = π − s, s the angle of a Gaussian vector from an axis
                        // with |g₁|, density ∝ sin^k s on [0, π/2].
                        let rho = (2.0 * gamma_half_integer(k + 1, rng)).sqrt();
                        let g = normal(rng).abs();
                        let hyp = rho.hypot(g);
                        let s = rho.atan2(g);
                        let theta = PI - s;
                        let ell = -((theta - FRAC_PI_2) * (theta + FRAC_PI_2)) / two_var;
                        if ln_unit(rng) < ell {
                            return (theta, -(g / hyp), rho / hyp);
                        }
                        continue;
                    }
                    let shape = if so3 { 3 } else { k + 1 };
                    let theta = self.sigma * (2.0 * gamma_half_integer(shape, rng)).sqrt();
                    if so3 {
                        if theta > PI {
                            continue;
                        }
                        let half = 0.5 * theta;
                        let ell = if half > 0.0 { 2.0 * (half.sin() / half).ln() } else { 0.0 };
                        if ln_unit(rng) < ell {
                            let (s, c) = half.sin_cos();
                            return (theta, c, s);
                        }
                    } else if k == 0 {
                        if theta <= PI {
                            let (s, c) = theta.sin_cos();
                            return (theta, c, s);
                        }
                    } else {
                        if theta > FRAC_PI_2 {
                            continue;
                        }
                        let ell = if theta > 0.0 { k as f64 * (theta.sin() / theta).ln() } else { 0.0 };
                        if ln_unit(rng) < ell {
                            let (s, c) = theta.sin_cos();
                            return (theta, c, s);
                        }
                    }
                }
            }
        }
    }

    /// One exact draw of the angle θ = d(z, x).
    pub fn sample_angle<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.sample_angle_parts(rng).0
    }

    /// A draw of the law at the unit vector `mu` (S^{n−1}: the angle, then a uniform direction ⊥ μ).
    pub fn sample_around<R: Rng + ?Sized>(&self, mu: &DVector<f64>, rng: &mut R) -> DVector<f64> {
        let (_, cos, sin) = self.sample_angle_parts(rng);
        let mut out = DVector::zeros(mu.len());
        point_at_angle_into(mu.as_slice(), cos, sin, out.as_mut_slice(), rng);
        out
    }

    /// A noise rotation at the identity (SO(3): (cos(θ/2), sin(θ/2)·a), a uniform axis); the release at x is x∘n.
    pub fn sample_rotation<R: Rng + ?Sized>(&self, rng: &mut R) -> UnitQuaternion<f64> {
        let (_, c, s) = self.sample_angle_parts(rng);
        noise_quaternion(c, s, uniform_s2(rng))
    }

    /// A bound α on |ln(â/a)| of every acceptance test against the exact one at the same uniforms (and on the
    /// piece probabilities' error), for `Rounding::with_acceptance_error` (proof §2).
    pub fn acceptance_error(&self) -> f64 {
        let k = self.space.radial_power() as f64;
        let so3 = self.space == GaussianSpace::So3;
        let shape = if so3 { 3 } else { self.space.radial_power() + 1 };
        let g_units = gamma_relative_error_units(shape.div_ceil(2));
        let inv_var = 1.0 / (self.sigma * self.sigma);
        // An angle from atan2 of (ρ, g): ρ within g_units/2 + 1, g within 16 units relative, atan2 one ulp:
        // within (g_units/2 + 20)·u·π absolute (twice on SO(3), the half-angle doubled).
        let angle_err = (0.5 * g_units + 20.0) * U * PI * if so3 { 2.0 } else { 1.0 };
        // ℓ = −θ²/2σ² (or −(θ² − π²/4)/2σ²): θ·Δθ/σ², its own three roundings, and ln_unit's (5 + 4|ℓ|)u.
        let big_ell = PI * PI * 0.5 * inv_var;
        let quadratic = PI * angle_err * inv_var + 3.0 * U * big_ell + (5.0 + 4.0 * big_ell) * U;
        let alpha = match self.proposal {
            GaussianProposal::Uniform => quadratic,
            GaussianProposal::Chi { ln_far, .. } => {
                // θ relative within g_units/2 + 2; ℓ = k·ln(sin θ/θ) has |dℓ/dθ|·θ ≤ k on [0, π/2] (SO(3): 2 on
                // [0, π] for the half angle), sin and the division 2u, ln 2u of |ℓ| ≤ 0.46k; ln_unit (5 + 4|ℓ|)u.
                let kk = if so3 { 2.0 } else { k };
                let near = U * (kk * (0.5 * g_units + 2.0 + 6.0) + 5.0 + 4.0 * 0.92 * kk + 1.0);
                if ln_far > NEGLIGIBLE_LN {
                    // The pieces' log-probabilities: (k + 4) logarithms of lnΓ, (k + 1)·ln σ, π²/8σ², each a few
                    // u of its size, doubled for the normalisation.
                    let e_m = 4.0
                        * U
                        * ((k + 4.0) * (1.0 + (k + 2.0).ln())
                            + (k + 1.0) * self.sigma.ln().abs()
                            + PI * PI / 8.0 * inv_var
                            + 10.0);
                    near.max(quadratic) + 2.0 * e_m
                } else {
                    // The far piece's mass is below 2.2·10⁻³⁰⁰ (a δ, printed); ln P(near) errs by at most that much.
                    near + 1e-300
                }
            }
        };
        1.01 * alpha
    }
}

#[cfg(test)]
mod tests;
