//! Exact sampler of the Riemannian Laplace distribution on SPD(k) with the affine-invariant metric
//! ⟨A, B⟩_P = tr(P⁻¹AP⁻¹B), k ∈ {2, 3} (docs/math.md §3; proof in `docs/proofs/spd_laplace.md`).
//!
//! The law with footpoint P̄ and scale σ has density ∝ exp(−ρ(Y, P̄)/σ) w.r.t. the Riemannian volume, where
//! ρ(P, Q) = ‖log(P^{−½}QP^{−½})‖_F. A draw is
//!
//!   Y = P̄^{½} U diag(e^{r}) Uᵀ P̄^{½},
//!
//! with U Haar on SO(k) and, independently, r ∈ R^k with density ∝ e^{−‖r‖/σ} ∏_{i<j} sinh(|r_i − r_j|/2) (the
//! volume element in these polar coordinates is ∝ ∏ sinh(|r_i − r_j|/2) dr dU and ρ(Y, P̄) = ‖r‖). Untruncated,
//! this is normalisable iff σ < 2/c_k = 2√3/√(k(k² − 1)) ([`SpdLaplaceNoise::normalisable_below`]: √2 for k = 2,
//! 1/√2 for k = 3); conditioned on the ball ‖r‖ ≤ t_max it exists for every σ.
//!
//! r is drawn at the identity by one of two exact rejection samplers; the constructor computes both exact
//! acceptance rates (from the normaliser in [`crate::analysis::spd_radial`]) and keeps the higher one:
//!
//! - **Polynomial** (small σ, and balls): r = t·u with u uniform on S^{k−1}, accepted with probability
//!   (P(u)/P_max)^w (P = ∏|u_i − u_j|, P_max = √2 for k = 2 and 1/√2 for k = 3; w = j/m for the best
//!   j ∈ {0, …, m}, m = k(k − 1)/2), and t ~ Gamma(k + j, rate), rate = max(1/σ − θc_k/2, (k + j)/t_max), from
//!   the bound sinh x ≤ 2^{w−1}x^w e^{θx} (θ = 1; for w = 1 in a ball, θ = ln(sinh X/X)/X with X = t_max/√2, the
//!   chord of the convex ln(sinh x/x)). t is accepted if t ≤ t_max and with probability
//!   e^{−tilt·(t_max − t)}·e^{θt(Σ|u_i − u_j| − c_k)/2}·∏ e^{(1−θ)y/2}(1 − e^{−y})/y^w, y = t|u_i − u_j|.
//! - **Chamber** (moderate and large σ): on the chamber r₁ < … < r_k, ∏ sinh = 2^{−m}e^{⟨v, r⟩/2}∏(1 − e^{−(r_j − r_i)})
//!   with v = (2i − k − 1)_i, so the target is below 2^{−m}e^{−a‖r‖ + ⟨v, r⟩/2} (a ≥ 1/σ, tilted when truncated).
//!   That law is a Lorentz boost of e^{−q‖r′‖}(1 + ξ·r′/‖r′‖): a Gamma(k, q) radius, a direction drawn by one
//!   reflection, and the boost. r is accepted if it is sorted, inside the ball, and with probability
//!   e^{−(a − 1/σ)(t_max − ‖r‖)}∏(1 − e^{−(r_j − r_i)}). Near the threshold its acceptance tends to 1.
//!
//! No loop is capped; parameters whose acceptance rate is below [`MIN_ACCEPTANCE`] are refused. Proposals never
//! see the footpoint: the noise is drawn at the identity and then moved.
//!
//! **Float safety** (`docs/proofs/float_safety.md` §3h). Every radius is Lemma N's Gamma
//! ([`gamma_integer`]: relative accuracy near 0 and in the tail); the polynomial scheme's direction is drawn from
//! the nearest zero of a gap ([`direction_with_gaps`]), so each gap |u_a − u_b| — and each y = t·|u_a − u_b| in its
//! acceptance — is relative even next to a wall; the chamber's reflection coin compares a full-precision uniform
//! with the computed (1 + ξc)/2 (exactly that probability), and its gaps, differences that cancel near the walls,
//! are covered by shifting the draw by s·v. [`SpdLaplaceNoise::acceptance_error`] bounds the computed acceptance
//! against the exact one (an α for ε₀) and [`SpdLaplaceNoise::log_eigenvalue_error`] the computed r against the
//! exact r of the same real uniforms (for the chart's η), both on the draws within a given radius.

use crate::analysis::spd_radial::{SpdRadialLaw, pair_sum_max};
use crate::error::Param;
use crate::error::{Error, Fallible};
use crate::sample::double_double::Dd;
use crate::sample::normal::{gamma_integer, gamma_relative_error_units};
use crate::sample::sphere::{uniform_circle, uniform_circle_dd, uniform_s2, uniform_s3, uniform_s3_dd};
use crate::sample::uniform::{ln_unit, unit};
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use rand::distr::Distribution;
use std::f64::consts::{FRAC_1_SQRT_2, FRAC_PI_4, FRAC_PI_6, LN_2, PI, SQRT_2};
use std::sync::Arc;

/// The constructor refuses parameters whose expected acceptance rate is below this.
pub const MIN_ACCEPTANCE: f64 = 1e-6;

/// Which exact proposal a [`SpdLaplaceNoise`] uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpdProposal {
    /// Uniform direction thinned by (P(u)/P_max)^w, Gamma(k + m·w) radius; `w` = j/m.
    Polynomial {
        /// The exponent w ∈ [0, 1] of the sinh bound sinh x ≤ 2^{w−1}x^w e^x.
        w: f64,
    },
    /// Boosted Laplace proposal on the sorted chamber.
    Chamber,
}

#[derive(Debug, Clone, PartialEq)]
enum Scheme {
    Polynomial {
        /// j = m·w, so that the Gamma shape k + j is an integer.
        j: usize,
        w: f64,
        /// The exponential rate θ ∈ (0, 1] of the bound sinh x ≤ x e^{θx} (w = 1 in a ball), else 1.
        theta: f64,
        /// Gamma rate of t.
        rate: f64,
        /// rate − λ ≥ 0 (only when truncated).
        tilt: f64,
        log_p_max: f64,
    },
    Chamber {
        /// q = √(a'² − β²), the Gamma rate of the boosted radius.
        q: f64,
        /// |ξ| = β/a', the boost speed, and γ = a'/q.
        xi: f64,
        gamma: f64,
        /// a' − 1/σ ≥ 0 (only when truncated).
        tilt: f64,
    },
}

/// δ_P: a bound on the probability, per release, that the polynomial scheme draws a gap or rate·t below 2^-400,
/// where its logarithms are not bounded (`docs/proofs/float_safety.md` §3h, "Excluded"; §6).
pub const POLYNOMIAL_GAP_EVENT_PROBABILITY: f64 = 1e-50;

/// The Laplace noise on SPD(k) at the identity, with scale σ, optionally conditioned on ρ(Y, I) ≤ t_max.
#[derive(Debug, Clone)]
pub struct SpdLaplaceNoise {
    k: usize,
    sigma: f64,
    t_max: Option<f64>,
    acceptance: f64,
    scheme: Scheme,
    /// The law of ρ(Y, footpoint) the constructor computed for the acceptance rates, kept for the expected
    /// error and the ball's acceptance bound (building it again would double the set-up). Shared by clones.
    law: Arc<SpdRadialLaw>,
}

/// Equal parameters and proposal; the radial law is a function of (k, σ, t_max).
impl PartialEq for SpdLaplaceNoise {
    fn eq(&self, other: &Self) -> bool {
        (self.k, self.sigma, self.t_max, self.acceptance, &self.scheme)
            == (other.k, other.sigma, other.t_max, other.acceptance, &other.scheme)
    }
}

/// The largest value of P(u) = ∏_{i<j}|u_i − u_j| on the unit sphere: √2 (k = 2), 1/√2 (k = 3).
fn p_max(k: usize) -> f64 {
    if k == 2 { SQRT_2 } else { FRAC_1_SQRT_2 }
}

/// |S^{k−1}|.
fn sphere_area(k: usize) -> f64 {
    if k == 2 { 2.0 * PI } else { 4.0 * PI }
}

/// The unit vector v/‖v‖ of the chamber tilt, v = (2i − k − 1)_i.
fn tilt_direction(k: usize) -> [f64; 3] {
    if k == 2 { [-FRAC_1_SQRT_2, FRAC_1_SQRT_2, 0.0] } else { [-FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2] }
}

/// ln(sinh x/x) for x > 0, to ~1e-14 relative: the Taylor series x²/6 − x⁴/180 + x⁶/2835 − x⁸/37800 + x¹⁰/467775
/// below 0.1 (next term < 1e-16 relative), else x + ln((1 − e^{−2x})/(2x)).
fn log_sinhc(x: f64) -> f64 {
    if x < 0.1 {
        let x2 = x * x;
        x2 * (1.0 / 6.0 - x2 * (1.0 / 180.0 - x2 * (1.0 / 2835.0 - x2 * (1.0 / 37800.0 - x2 / 467775.0))))
    } else {
        x + (-(-2.0 * x).exp_m1() / (2.0 * x)).ln()
    }
}

fn ln_factorial(n: usize) -> f64 {
    (2..=n).map(|i| (i as f64).ln()).sum()
}

impl SpdLaplaceNoise {
    /// Noise on SPD(k), k ∈ {2, 3}, with scale `sigma` (finite, ≥ 1e-50), conditioned on ρ(Y, footpoint) ≤ `t_max`
    /// when given (finite, > 0). Costs a few milliseconds (the exact normaliser, by quadrature).
    ///
    /// Errors: [`Error::InvalidParameter`] for a bad k, σ or t_max, and for σ ≥ [`Self::normalisable_below`]`(k)`
    /// without `t_max` (the law does not exist: condition on a ball); [`Error::NumericalLimit`] when the exact
    /// acceptance rate would be below [`MIN_ACCEPTANCE`].
    pub fn new(k: usize, sigma: f64, t_max: Option<f64>) -> Fallible<Self> {
        // The radial law validates k, σ and t_max, and refuses σ ≥ 2/c_k when untruncated.
        let law = SpdRadialLaw::new(k, sigma, t_max)?;
        let (sigma, t_max) = (law.sigma(), law.t_max());
        let log_z = law.log_normaliser();
        let m = k * (k - 1) / 2;
        let a = 1.0 / sigma;
        let beta = 0.5 * pair_sum_max(k);
        let mut best: Option<(f64, Scheme)> = None;
        let mut consider = |log_acc: f64, scheme: Scheme| {
            if log_acc.is_finite() && best.as_ref().is_none_or(|(b, _)| log_acc > *b) {
                best = Some((log_acc, scheme));
            }
        };
        // Polynomial envelopes, w = j/m.
        for j in 0..=m {
            let w = j as f64 / m as f64;
            let shape = k + j;
            // With w = 1 and a ball, the chord of the convex ln(sinh x/x) on [0, X], X = t_max/√2 (the largest
            // x = t|u_i − u_j|/2), gives sinh x ≤ x e^{θx} with θ = ln(sinh X/X)/X < 1 (rounded up: any larger θ
            // is valid too).
            let theta = match t_max {
                Some(t) if j == m => (log_sinhc(t * FRAC_1_SQRT_2) / (t * FRAC_1_SQRT_2) + 1e-12).min(1.0),
                _ => 1.0,
            };
            let lambda_theta = a - theta * beta;
            let rate = match t_max {
                Some(t) => lambda_theta.max(shape as f64 / t),
                None => lambda_theta,
            };
            let tilt = rate - lambda_theta;
            let tilt_cost = t_max.map_or(0.0, |t| tilt * t);
            let log_env =
                -(m as f64) * LN_2 + w * p_max(k).ln() + ln_factorial(shape - 1) - shape as f64 * rate.ln() + tilt_cost;
            consider(log_z - log_env, Scheme::Polynomial { j, w, theta, rate, tilt, log_p_max: p_max(k).ln() });
        }
        // The chamber envelope 2^{−m}e^{δ t_max}e^{−a'‖r‖ + ⟨v, r⟩/2}, a' = 1/σ + δ > β = ‖v‖/2.
        let a_prime = match t_max {
            None => a,
            Some(t) => a.max(best_chamber_rate(k, beta, t)),
        };
        let q = ((a_prime - beta) * (a_prime + beta)).sqrt();
        let tilt = a_prime - a;
        // ∫ e^{−a'‖r‖ + ⟨v, r⟩/2} dr over R^k = |S^{k−1}|(k − 1)!·(a'/q)/q^k.
        let log_mass = sphere_area(k).ln() + ln_factorial(k - 1) + (a_prime / q).ln() - k as f64 * q.ln();
        let log_env = -(m as f64) * LN_2 + t_max.map_or(0.0, |t| tilt * t) + log_mass;
        let log_target_on_chamber = sphere_area(k).ln() + log_z - ln_factorial(k);
        consider(log_target_on_chamber - log_env, Scheme::Chamber { q, xi: beta / a_prime, gamma: a_prime / q, tilt });
        let (log_acc, scheme) = best.ok_or(Error::InvalidParameter {
            name: Param::Sigma,
            value: sigma,
            reason: "no exact proposal could be set up (normaliser not finite)",
        })?;
        let acceptance = log_acc.exp();
        if acceptance.is_nan() || acceptance < MIN_ACCEPTANCE {
            return Err(Error::NumericalLimit(format!(
                "the exact SPD Laplace sampler would accept only {acceptance:.3e} of its proposals at k = {k}, \
                 sigma = {sigma}, t_max = {t_max:?}; use a smaller ball (t_max) or a smaller sigma"
            )));
        }
        Ok(SpdLaplaceNoise { k, sigma, t_max, acceptance: acceptance.min(1.0), scheme, law: Arc::new(law) })
    }

    /// The σ below which the untruncated law is normalisable: 2/c_k = 2√3/√(k(k² − 1)), with
    /// c_k = max over unit u of Σ_{i<j}|u_i − u_j|. √2 for k = 2, 1/√2 for k = 3.
    pub fn normalisable_below(k: usize) -> f64 {
        2.0 / pair_sum_max(k)
    }

    /// k (the matrices are k×k).
    pub fn k(&self) -> usize {
        self.k
    }

    /// The scale σ (the density is ∝ exp(−ρ/σ)).
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// The radius of the ball the law is conditioned on, if any.
    pub fn t_max(&self) -> Option<f64> {
        self.t_max
    }

    /// The law of ρ(Y, footpoint) under this noise (the same σ and t_max), as the constructor computed it.
    pub fn radial_law(&self) -> &SpdRadialLaw {
        &self.law
    }

    /// The exact probability that one proposal is accepted (the number of proposals per draw is geometric with
    /// mean 1/rate).
    pub fn acceptance_rate(&self) -> f64 {
        self.acceptance
    }

    /// A bound on the probability, per draw, of the noise-only events where the float bounds are not claimed:
    /// δ_P of the polynomial scheme (a gap or rate·t below 2^-400, < 10^-50 at the at most 10⁶ expected
    /// proposals; `docs/proofs/float_safety.md` §3h, "Excluded"; §6), 0 for the chamber scheme.
    pub fn negligible_event_probability(&self) -> f64 {
        match self.scheme {
            Scheme::Polynomial { .. } => POLYNOMIAL_GAP_EVENT_PROBABILITY,
            Scheme::Chamber { .. } => 0.0,
        }
    }

    /// The proposal in use.
    pub fn proposal(&self) -> SpdProposal {
        match self.scheme {
            Scheme::Polynomial { w, .. } => SpdProposal::Polynomial { w },
            Scheme::Chamber { .. } => SpdProposal::Chamber,
        }
    }

    /// A bound α on |ln â − ln a| for the proposals whose exact log-eigenvalues have ‖r‖ ≤ `radius` (â the
    /// computed probability that a proposal is accepted — thinning, reflection coin and final test together — and
    /// a the exact one of the same real uniforms, for the exact law of scale σ), plus what the computed sampler's
    /// normaliser may differ from the exact one by (its tail, ball shell and walls, relative to the exact
    /// acceptance rate). Releases whose kept cells hold only draws within `radius` add 4α to ε₀
    /// ([`crate::privacy::float_safety::Rounding::with_acceptance_error`]; `docs/proofs/float_safety.md` §3h).
    /// Infinite where the bound does not hold (a Gamma rate beyond 2^200).
    pub fn acceptance_error(&self, radius: f64) -> f64 {
        let u = f64::EPSILON / 2.0;
        let k = self.k;
        let m = (k * (k - 1) / 2) as f64;
        let t_max = self.t_max.unwrap_or(0.0);
        // The exact acceptance rate, as the normaliser's scale (the quadrature is good to ~1e-12).
        let z = 0.99 * self.acceptance;
        match self.scheme {
            Scheme::Polynomial { j, w, theta, rate, tilt, .. } => {
                if rate.is_nan() || rate > 2f64.powi(200) {
                    return f64::INFINITY;
                }
                let shape = k + j;
                // Radii beyond which the proposal's mass is below 1e-30: every draw counted in the normaliser.
                let big_t = radius.max(gamma_tail_point(shape, 1e-30) / rate);
                let e_t = gamma_relative_error_units(shape) + 1.0;
                let e_g = GAP_RELATIVE_ERROR_UNITS;
                let e_y = e_t + e_g + 1.0;
                let c_k = pair_sum_max(k);
                // |ln g| on the good event g ≥ 2^-400 (δ_P), |ln y| for y = t·g with rate·t ≥ 2^-400 too.
                let lam_g = 400.0 * LN_2;
                let lam_y = (2.0 * lam_g + rate.ln().abs()).max((SQRT_2 * big_t).ln().abs());
                let y_max = SQRT_2 * big_t;
                let thin_l = w * (m * lam_g + 0.35);
                let thinning =
                    if j > 0 { m * (e_g + 2.0 * lam_g + 1.0) + (m + 2.0) * thin_l + 5.0 + 4.0 * thin_l } else { 0.0 };
                let main_l = 0.5 * theta * big_t * c_k
                    + tilt * t_max
                    + m * ((1.0 + y_max).ln() + (1.0 - w) * lam_y + 0.5 * (1.0 - theta) * y_max);
                let per_pair = (e_y + 3.0)
                    + 2.0 * (1.0 + y_max).ln()
                    + (1.0 - w) * (e_y + 3.0 * lam_y + 1.0)
                    + if w < 1.0 { lam_y } else { 0.0 }
                    + 0.5 * (1.0 - theta) * y_max * (e_y + 3.0);
                let main = 0.5 * theta * big_t * c_k * (e_g + e_t + m + 5.0)
                    + tilt * (e_t * big_t + 3.0 * t_max)
                    + m * per_pair
                    + (m + 3.0) * main_l
                    + 5.0
                    + 4.0 * main_l;
                // The scale the exact-arithmetic sampler draws with its computed rate, θ and tilt: 1/σ' within
                // u(1.5/σ + 2.5θβ + tilt) of 1/σ, a density ratio e^{±|Δ|‖r‖} on ‖r‖ ≤ radius.
                let scale = (1.5 / self.sigma + 1.25 * theta * c_k + tilt) * big_t;
                let alpha = 1.01 * u * (thinning + main + scale);
                let shell = if self.t_max.is_some() { 2.02 * e_t * u * gamma_shell_bound(shape) } else { 0.0 };
                alpha + 1.01 * (1e-30 + shell) / z
            }
            Scheme::Chamber { q, xi, gamma, tilt } => {
                let a_prime = gamma * q;
                let beta = 0.5 * pair_sum_max(k);
                let slow = 1.0 / (1.0 - xi);
                // ‖r‖ ≤ γt(1 + ξ): radii beyond which the proposal's mass is below 1e-30.
                let big_t = radius.max(gamma_tail_point(k, 1e-30) / q * gamma * (1.0 + xi));
                let (e_t, e_c) = (gamma_relative_error_units(k) + 1.0, 20.0);
                let e_n = e_t + 6.0 + (xi * e_c + 4.0) * slow;
                let l_gap = 746.0;
                let total_l = m * l_gap + tilt * t_max;
                let eval = m * (2.0 + 2.0 * l_gap)
                    + tilt * (e_n * big_t + 3.0 * t_max)
                    + (m + 1.0) * total_l
                    + 5.0
                    + 4.0 * total_l;
                let coin = (2.0 * xi * e_c + 4.0) * slow;
                // The proposal the exact-arithmetic sampler draws with its computed q, ξ (and the exact boost of ξ̂):
                // ∝ e^{−A‖r‖ + B d·r} with A − tilt within u((a' + β)(6 + 2/(1 − ξ)) + tilt + 1.5/σ) of 1/σ and B of β.
                let consistency = ((a_prime + beta) * (6.0 + 2.0 * slow) + tilt + 1.5 / self.sigma) * big_t;
                // The walls: every gap within E_g of the exact one; shifting r by s·v (s = E_g/2) covers it, at a
                // cost (a' + β + tilt)·s‖v‖ in the proposal's density (the release moves by s‖v‖: η).
                let shift = (a_prime + beta + tilt) * self.chamber_shift(radius) * 2.0 * beta;
                let alpha = 1.01 * u * (eval + coin + consistency) + 1.01 * shift;
                // The normaliser: walls (E_g at the mean radius k/q), ball shell and tail.
                let walls = m * self.chamber_gap_error(k as f64 / q, gamma * k as f64 / q);
                let shell = if self.t_max.is_some() { 2.02 * e_n * u * gamma_shell_bound(k) } else { 0.0 };
                alpha + 1.01 * (1e-30 + shell + walls) / z
            }
        }
    }

    /// The chamber's bound E_g on the absolute error of a gap r_b − r_a, for a draw of radius t and γt (§3h):
    /// every coordinate of r within E_r = u(t(72 + 2e_t) + γt(e_c + 27 + 2e_t + 4/(1 − ξ))), e_t and e_c the
    /// radius's and the cosine's error units, so a gap within 2E_r + 2u(t + 2γt).
    fn chamber_coordinate_error(&self, t: f64, gamma_t: f64) -> f64 {
        let u = f64::EPSILON / 2.0;
        let xi = match self.scheme {
            Scheme::Chamber { xi, .. } => xi,
            Scheme::Polynomial { .. } => 0.0,
        };
        let e_t = gamma_relative_error_units(self.k) + 1.0;
        u * (t * (72.0 + 2.0 * e_t) + gamma_t * (20.0 + 27.0 + 2.0 * e_t + 4.0 / (1.0 - xi)))
    }

    fn chamber_gap_error(&self, t: f64, gamma_t: f64) -> f64 {
        let u = f64::EPSILON / 2.0;
        2.0 * self.chamber_coordinate_error(t, gamma_t) + 2.0 * u * (t + 2.0 * gamma_t)
    }

    /// s = E_g/2 at the largest t and γt a draw with ‖r‖ ≤ `radius` can have (γt ≤ ‖r‖/(1 − ξ), t ≤ γt).
    fn chamber_shift(&self, radius: f64) -> f64 {
        let xi = match self.scheme {
            Scheme::Chamber { xi, .. } => xi,
            Scheme::Polynomial { .. } => return 0.0,
        };
        let gamma_t = radius / (1.0 - xi);
        0.5 * self.chamber_gap_error(gamma_t, gamma_t)
    }

    /// A bound, in ρ, on how far the computed log-eigenvalues r̂ (sorted) may lie from the exact ones of the same
    /// real uniforms, for draws with ‖r‖ ≤ `radius`, plus (chamber) the shift s‖v‖ that covers its walls: the
    /// distance between the computed and exact release at the same Haar rotation (they commute), to be added to
    /// the chart's η (`docs/proofs/float_safety.md` §3h). Polynomial: √k·u·(e_u + e_t + 2)·radius.
    pub fn log_eigenvalue_error(&self, radius: f64) -> f64 {
        let u = f64::EPSILON / 2.0;
        let kf = self.k as f64;
        let bound = match self.scheme {
            Scheme::Polynomial { j, .. } => {
                let e_t = gamma_relative_error_units(self.k + j) + 1.0;
                kf.sqrt() * u * (DIRECTION_ERROR_UNITS + e_t + 2.0) * radius
            }
            Scheme::Chamber { xi, .. } => {
                let gamma_t = radius / (1.0 - xi);
                let beta = 0.5 * pair_sum_max(self.k);
                kf.sqrt() * self.chamber_coordinate_error(gamma_t, gamma_t) + self.chamber_shift(radius) * 2.0 * beta
            }
        };
        bound * 1.01
    }

    /// A uniform point of S^{k−1} in the first k entries (the chamber scheme's direction before its reflection).
    #[inline]
    fn uniform_direction<R: Rng + ?Sized>(&self, rng: &mut R) -> [f64; 3] {
        if self.k == 2 {
            let (c, s) = uniform_circle(rng);
            [c, s, 0.0]
        } else {
            let v = uniform_s2(rng);
            [v.x, v.y, v.z]
        }
    }

    /// One proposal: the candidate r (sorted ascending) and the log of its acceptance probability, or `None`
    /// when it is rejected before that (outside the ball, not sorted, thinned direction).
    fn candidate<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<([f64; 3], f64)> {
        let k = self.k;
        let t_max = self.t_max.unwrap_or(f64::INFINITY);
        match self.scheme {
            Scheme::Polynomial { j, w, theta, rate, tilt, log_p_max } => {
                let (u, gaps) = direction_with_gaps(k, rng);
                let gaps = &gaps[..k * (k - 1) / 2];
                if j > 0 {
                    let log_p: f64 = gaps.iter().map(|g| g.ln()).sum();
                    if ln_unit(rng) > w * (log_p - log_p_max) {
                        return None;
                    }
                }
                // Gamma(k + j) with relative accuracy at both ends (Lemma N), so every y = t·g below is relative.
                let t = gamma_integer(k + j, rng) / rate;
                if t > t_max {
                    return None;
                }
                let sum: f64 = gaps.iter().sum();
                let mut log_acc = 0.5 * theta * t * (sum - pair_sum_max(k));
                if tilt > 0.0 {
                    log_acc -= tilt * (t_max - t);
                }
                for &g in gaps {
                    let y = t * g;
                    // ln[sinh(y/2)e^{−θy/2}/(2^{w−1}(y/2)^w)] = ln((1 − e^{−y})/y) + (1 − w) ln y + (1 − θ)y/2; the
                    // first term lies in [−ln(1 + y), 0], so nothing cancels when y is small.
                    log_acc += (-(-y).exp_m1() / y).ln() + 0.5 * (1.0 - theta) * y;
                    if w < 1.0 {
                        log_acc += (1.0 - w) * y.ln();
                    }
                }
                let mut r = [t * u[0], t * u[1], t * u[2]];
                r[..k].sort_by(f64::total_cmp);
                Some((r, log_acc))
            }
            Scheme::Chamber { q, xi, gamma, tilt } => {
                let t = gamma_integer(k, rng) / q;
                let d = tilt_direction(k);
                let mut u = self.uniform_direction(rng);
                let mut c = d[0] * u[0] + d[1] * u[1] + d[2] * u[2];
                // Direction density ∝ 1 + ξc: keep u with probability p = (1 + ξc)/2, else reflect it (c → −c). A
                // full-precision uniform Ũ = ⌈U⌉ satisfies Ũ ≤ p̂ exactly when U ≤ p̂, so both branches have exactly
                // the computed p̂ and 1 − p̂, each within a relative 2(ξ·20 + 2)u/(1 − ξ) of the exact one (§3h).
                if unit(rng) > 0.5 * (1.0 + xi * c) {
                    for (ui, di) in u.iter_mut().zip(d) {
                        *ui -= 2.0 * c * di;
                    }
                    c = -c;
                }
                let norm = gamma * t * (1.0 + xi * c);
                if norm > t_max {
                    return None;
                }
                let r = boost_back(t, &u, c, xi, gamma, &d);
                if !(r[..k].windows(2).all(|w| w[0] < w[1])) {
                    return None;
                }
                let mut log_acc = 0.0;
                if tilt > 0.0 {
                    log_acc -= tilt * (t_max - norm);
                }
                for a in 0..k {
                    for b in a + 1..k {
                        log_acc += (-(-(r[b] - r[a])).exp_m1()).ln();
                    }
                }
                Some((r, log_acc))
            }
        }
    }

    /// One exact draw of the log-eigenvalues r of the noise at the identity, sorted ascending (the law of the
    /// sorted vector: density ∝ e^{−‖r‖/σ} ∏_{i<j} sinh((r_j − r_i)/2) on r₁ ≤ … ≤ r_k, within the ball if
    /// truncated). ‖r‖ = ρ(Y, footpoint).
    pub fn sample_log_eigenvalues<R: Rng + ?Sized>(&self, rng: &mut R) -> DVector<f64> {
        loop {
            if let Some((r, log_acc)) = self.candidate(rng)
                && ln_unit(rng) <= log_acc
            {
                return DVector::from_column_slice(&r[..self.k]);
            }
        }
    }

    /// One draw N = U diag(e^{r}) Uᵀ of the noise at the identity (U Haar on SO(k)); exactly symmetric. Its entries
    /// overflow when the largest r_i exceeds ~709, which has a non-negligible probability only for σ within a few
    /// per cent of [`Self::normalisable_below`] untruncated (P[‖r‖ > 709] = 4.5e-4 at 99 % of it for k = 3).
    ///
    /// # Example
    /// ```
    /// use manifold_dp::sample::rng::seeded_rng_for_experiments;
    /// use manifold_dp::sample::spd_laplace::SpdLaplaceNoise;
    ///
    /// let noise = SpdLaplaceNoise::new(3, 0.2, None).unwrap(); // untruncated: σ < 1/√2 for k = 3
    /// let mut rng = seeded_rng_for_experiments(1); // use `os_rng()` for releases
    /// let n = noise.sample_at_identity(&mut rng);
    /// assert_eq!(n, n.transpose());
    /// assert!(n.clone().cholesky().is_some());
    /// ```
    pub fn sample_at_identity<R: Rng + ?Sized>(&self, rng: &mut R) -> DMatrix<f64> {
        let r = self.sample_log_eigenvalues(rng);
        self.rotate(&r, rng)
    }

    /// A Haar-distributed rotation U ∈ SO(k): a uniform angle for k = 2, a uniform unit quaternion's matrix for
    /// k = 3.
    pub(crate) fn haar_rotation<R: Rng + ?Sized>(&self, rng: &mut R) -> DMatrix<f64> {
        if self.k == 2 {
            let (c, s) = uniform_circle(rng);
            DMatrix::from_row_slice(2, 2, &[c, -s, s, c])
        } else {
            let m = uniform_s3(rng).to_rotation_matrix().into_inner();
            DMatrix::from_fn(3, 3, |i, j| m[(i, j)])
        }
    }

    /// [`Self::haar_rotation`] in double-double, reading the same uniforms (row-major, k·k entries): the rotation
    /// of `uniform_circle_dd`'s point for k = 2 and of `uniform_s3_dd`'s quaternion (w, x, y, z) for k = 3, the
    /// rotation v ↦ q·v·q̄ as nalgebra's (its diagonal written 1 − 2(y² + z²), …). Within [`HAAR_ROTATION_DD_ERROR`]
    /// (Frobenius) of the exact rotation of the real uniforms read (`docs/proofs/float_safety.md` §3e, "In
    /// double-double").
    ///
    /// [`HAAR_ROTATION_DD_ERROR`]: crate::privacy::float_safety::HAAR_ROTATION_DD_ERROR
    pub(crate) fn haar_rotation_dd<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<Dd> {
        if self.k == 2 {
            let (c, s) = uniform_circle_dd(rng);
            vec![c, s.neg(), s, c]
        } else {
            let [w, x, y, z] = uniform_s3_dd(rng);
            let one = Dd::new(1.0);
            let two = |a: Dd| a.add(a);
            let (xx, yy, zz) = (x.mul(x), y.mul(y), z.mul(z));
            let (xy, xz, yz, wx, wy, wz) = (x.mul(y), x.mul(z), y.mul(z), w.mul(x), w.mul(y), w.mul(z));
            vec![
                one.sub(two(yy.add(zz))),
                two(xy.sub(wz)),
                two(xz.add(wy)),
                two(xy.add(wz)),
                one.sub(two(xx.add(zz))),
                two(yz.sub(wx)),
                two(xz.sub(wy)),
                two(yz.add(wx)),
                one.sub(two(xx.add(yy))),
            ]
        }
    }

    /// U diag(e^{r}) Uᵀ with a fresh Haar U.
    fn rotate<R: Rng + ?Sized>(&self, r: &DVector<f64>, rng: &mut R) -> DMatrix<f64> {
        let k = self.k;
        let u = self.haar_rotation(rng);
        let e: Vec<f64> = r.iter().map(|x| x.exp()).collect();
        let mut y = DMatrix::zeros(k, k);
        for a in 0..k {
            for b in a..k {
                let v: f64 = (0..k).map(|i| e[i] * u[(a, i)] * u[(b, i)]).sum();
                y[(a, b)] = v;
                y[(b, a)] = v;
            }
        }
        y
    }

    /// One draw around the footpoint P̄, given a square root A of it (A Aᵀ = P̄: the symmetric P̄^{½} or a Cholesky
    /// factor): A N Aᵀ with N from [`Self::sample_at_identity`], symmetrised. ρ(A N Aᵀ, P̄) = ‖r‖ because
    /// Y ↦ AYAᵀ is an isometry. It draws r first (exactly as [`Self::sample_log_eigenvalues`] does), then U.
    ///
    /// # Panics
    /// If `footpoint_sqrt` is not k×k.
    pub fn sample_around<R: Rng + ?Sized>(&self, footpoint_sqrt: &DMatrix<f64>, rng: &mut R) -> DMatrix<f64> {
        assert_eq!(footpoint_sqrt.shape(), (self.k, self.k), "the footpoint's square root must be k×k");
        let n = self.sample_at_identity(rng);
        let y = footpoint_sqrt * n * footpoint_sqrt.transpose();
        (&y + y.transpose()) * 0.5
    }
}

impl Distribution<DMatrix<f64>> for SpdLaplaceNoise {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> DMatrix<f64> {
        self.sample_at_identity(rng)
    }
}

/// The chamber's boost back to r: the part of t·u along d becomes γt(c + ξ), the rest t(u − c·d) is kept.
#[inline]
fn boost_back(t: f64, u: &[f64; 3], c: f64, xi: f64, gamma: f64, d: &[f64; 3]) -> [f64; 3] {
    let along = gamma * t * (c + xi);
    std::array::from_fn(|i| t * (u[i] - c * d[i]) + along * d[i])
}

/// √3/2 and 1/√3, 1/√6 (each the double nearest).
const HALF_SQRT_3: f64 = 0.866_025_403_784_438_6;
const FRAC_1_SQRT_3: f64 = 0.577_350_269_189_625_8;
const FRAC_1_SQRT_6: f64 = 0.408_248_290_463_863;

/// Relative error bound, in units of u = 2^-53, of each gap |u_a − u_b| that [`direction_with_gaps`] returns,
/// against the gaps of the exact direction of the real uniforms it reads (`docs/proofs/float_safety.md` §3h).
pub const GAP_RELATIVE_ERROR_UNITS: f64 = 20.0;

/// Absolute error bound, in units of u, of each coordinate of [`direction_with_gaps`]'s direction (§3h).
pub const DIRECTION_ERROR_UNITS: f64 = 24.0;

/// A uniform direction u on S^{k−1} (k ∈ {2, 3}, in the first k entries) and its pairwise gaps |u_a − u_b|
/// (m = k(k − 1)/2 of them, in the first m entries, in no particular order), each gap within
/// [`GAP_RELATIVE_ERROR_UNITS`] of its own size, the coordinates within [`DIRECTION_ERROR_UNITS`]·u
/// (`docs/proofs/float_safety.md` §3h). The angle is measured from the nearest zero of a gap, so that the gap
/// that vanishes there is a sine of a full-precision offset:
///
/// - k = 2: u = (cos φ, sin φ), φ = π/4 + jπ/2 + δ with j uniform on {0, 1, 2, 3} and δ = ±(π/4)V uniform on
///   [−π/4, π/4]; |u₁ − u₂| = √2|sin(jπ/2 + δ)| = √2|sin δ| (j even) or √2 cos δ (j odd).
/// - k = 3: u = z·n + ρ(cos φ·e₁ + sin φ·e₂), n = (1, 1, 1)/√3, e₁ = (1, −1, 0)/√2, e₂ = (1, 1, −2)/√6, with z
///   uniform on [−1, 1] (Archimedes) read as ±(1 − V), ρ = √(1 − z²) = √(V(2 − V)), and φ = π/6 + jπ/3 + δ with
///   j uniform on {0, …, 5} and δ = ±(π/6)V′ uniform on [−π/6, π/6]. The gaps are √2ρ|cos(φ − iπ/3)|, i = 0, 1, 2;
///   at φ = π/6 + jπ/3 one of them vanishes, and as a multiset they are √2ρ·{|sin δ|, cos(π/6 + δ), cos(π/6 − δ)},
///   the last two at least √2ρ/2.
///
/// V, V′ are full-precision uniforms ([`unit()`]); j and the signs are exact coins.
pub fn direction_with_gaps<R: Rng + ?Sized>(k: usize, rng: &mut R) -> ([f64; 3], [f64; 3]) {
    direction_with_gaps_warped(k, rng, |v| v)
}

/// [`direction_with_gaps`] with the offset's uniform V replaced by `warp`(V) (the identity for the sampler; the
/// tests' negative control warps it).
fn direction_with_gaps_warped<R: Rng + ?Sized>(
    k: usize,
    rng: &mut R,
    warp: impl Fn(f64) -> f64,
) -> ([f64; 3], [f64; 3]) {
    if k == 2 {
        let bits = rng.next_u32();
        return direction_from(2, (bits >> 1) & 3, bits & 1 != 0, false, 1.0, warp(unit(rng)));
    }
    // Six sectors by rejection on three fair bits (exactly uniform), a sign for z and one for δ.
    let (j, bits) = loop {
        let bits = rng.next_u32();
        if bits & 7 < 6 {
            break (bits & 7, bits >> 3);
        }
    };
    let v = unit(rng);
    let offset = warp(unit(rng));
    direction_from(3, j, bits & 2 != 0, bits & 1 != 0, v, offset)
}

/// The direction and gaps of [`direction_with_gaps`] from its draws: sector `j`, the signs of δ and z, the
/// height's uniform V (k = 3: z = ±(1 − V)) and the offset's uniform V′ (δ = ±(π/4)V′ for k = 2, ±(π/6)V′ for
/// k = 3).
fn direction_from(
    k: usize,
    j: u32,
    negative_offset: bool,
    negative_z: bool,
    v: f64,
    offset: f64,
) -> ([f64; 3], [f64; 3]) {
    if k == 2 {
        let (s, c) = (FRAC_PI_4 * offset).sin_cos();
        let s = if negative_offset { -s } else { s };
        // (cos, sin)(π/4 + δ), then rotated by jπ/2 (exact swaps and signs).
        let (a, b) = ((c - s) * FRAC_1_SQRT_2, (c + s) * FRAC_1_SQRT_2);
        let (x, y) = match j {
            0 => (a, b),
            1 => (-b, a),
            2 => (-a, -b),
            _ => (b, -a),
        };
        let gap = SQRT_2 * if j.is_multiple_of(2) { s.abs() } else { c };
        return ([x, y, 0.0], [gap, 0.0, 0.0]);
    }
    let z = if negative_z { v - 1.0 } else { 1.0 - v };
    let rho = (v * (2.0 - v)).sqrt();
    let (s, c) = (FRAC_PI_6 * offset).sin_cos();
    let s = if negative_offset { -s } else { s };
    // (cos, sin)(π/6 + jπ/3), exact up to the rounding of √3/2.
    let (cj, sj) = match j {
        0 => (HALF_SQRT_3, 0.5),
        1 => (0.0, 1.0),
        2 => (-HALF_SQRT_3, 0.5),
        3 => (-HALF_SQRT_3, -0.5),
        4 => (0.0, -1.0),
        _ => (HALF_SQRT_3, -0.5),
    };
    let (cos_phi, sin_phi) = (cj * c - sj * s, sj * c + cj * s);
    let (mid, along_e1, along_e2) =
        (z * FRAC_1_SQRT_3, rho * (cos_phi * FRAC_1_SQRT_2), rho * (sin_phi * FRAC_1_SQRT_6));
    let u = [mid + (along_e1 + along_e2), mid + (along_e2 - along_e1), mid - 2.0 * along_e2];
    let scale = SQRT_2 * rho;
    let gaps = [scale * s.abs(), scale * (HALF_SQRT_3 * c - 0.5 * s), scale * (HALF_SQRT_3 * c + 0.5 * s)];
    (u, gaps)
}

/// An x > 0 with P(Gamma(shape, 1) > x) ≤ `p` by Chernoff's bound e^{s − x}(x/s)^s (x > s).
fn gamma_tail_point(shape: usize, p: f64) -> f64 {
    let s = shape as f64;
    let mut x = s + 1.0;
    while s - x + s * (x / s).ln() > p.ln() {
        x *= 1.1;
    }
    x
}

/// sup_t t·f(t) for the Gamma(shape) density f: s^s e^{−s}/(s − 1)! ≤ √s (a bound on the mass of a thin relative
/// shell {|t − T| ≤ εT}: at most 2ε√s).
fn gamma_shell_bound(shape: usize) -> f64 {
    (shape as f64).sqrt()
}

/// The chamber rate a' > β minimising e^{a't_max}·a'/(a'² − β²)^{(k+1)/2} (the truncated envelope's mass up to
/// a constant): the root of t_max + 1/a' − (k + 1)a'/(a'² − β²), which is increasing in a'.
fn best_chamber_rate(k: usize, beta: f64, t_max: f64) -> f64 {
    let slope = |a: f64| t_max + 1.0 / a - (k + 1) as f64 * a / ((a - beta) * (a + beta));
    let mut step = 1.0 / t_max;
    while slope(beta + step) <= 0.0 {
        step *= 2.0;
    }
    let (mut lo, mut hi) = (beta, beta + step);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if slope(mid) > 0.0 { hi = mid } else { lo = mid }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::rng::seeded_rng_for_experiments;
    use rand::RngExt;

    /// (cos, sin) of the lattice angle π(j + f)/256 of one circle word, in 2^-400 fixed point.
    fn lattice_circle(
        bits: u64,
        pi: &crate::sample::double_double::exact::Fx,
    ) -> [crate::sample::double_double::exact::Fx; 2] {
        use crate::sample::double_double::exact::Fx;
        let j = (bits >> 55) as i64;
        let frac = (((bits << 9) as i64) >> 11) as f64 / (1u64 << 53) as f64;
        let (quarter, rest) = (j / 128, (j % 128) as f64);
        let (s, c) = pi.mul(&Fx::from_f64(rest).add(&Fx::from_f64(frac))).div(&Fx::from_f64(256.0)).sin_cos();
        let neg = |x: Fx| Fx(-x.0);
        match quarter {
            0 => [c, s],
            1 => [neg(s), c],
            2 => [neg(c), neg(s)],
            _ => [s, neg(c)],
        }
    }

    /// The rotation of the lattice values `haar_rotation` reads, in 2^-400 fixed point (row-major).
    fn lattice_rotation(
        k: usize,
        rng: &mut crate::sample::rng::ReleaseRng,
    ) -> Vec<crate::sample::double_double::exact::Fx> {
        use crate::sample::double_double::exact::Fx;
        let f = Fx::from_f64;
        let pi = Fx::pi();
        if k == 2 {
            let [c, s] = lattice_circle(rng.next_u64(), &pi);
            return vec![c.clone(), Fx(-s.0.clone()), s, c];
        }
        let x = 0.5 * crate::sample::uniform::unit(rng);
        let near_first = rng.random::<bool>();
        let [c1, s1] = lattice_circle(rng.next_u64(), &pi);
        let [c2, s2] = lattice_circle(rng.next_u64(), &pi);
        let (near, far) = (f(x).sqrt(), f(1.0).sub(&f(x)).sqrt());
        let (a, b) = if near_first { (near, far) } else { (far, near) };
        let (w, x, y, z) = (a.mul(&c1), a.mul(&s1), b.mul(&c2), b.mul(&s2));
        let two = |p: &Fx, q: &Fx| Fx(p.mul(q).0 * 2);
        let one = f(1.0);
        vec![
            one.sub(&two(&y, &y)).sub(&two(&z, &z)),
            two(&x, &y).sub(&two(&w, &z)),
            two(&x, &z).add(&two(&w, &y)),
            two(&x, &y).add(&two(&w, &z)),
            one.sub(&two(&x, &x)).sub(&two(&z, &z)),
            two(&y, &z).sub(&two(&w, &x)),
            two(&x, &z).sub(&two(&w, &y)),
            two(&y, &z).add(&two(&w, &x)),
            one.sub(&two(&x, &x)).sub(&two(&y, &y)),
        ]
    }

    /// `haar_rotation_dd` reads the same uniforms as `haar_rotation` (the generators agree afterwards), lies
    /// within Lemma H's 100u of it, and within 2^-90 (Frobenius) of the rotation of the same lattice values in
    /// 2^-400 fixed point, on SO(2) and SO(3) (§3e, "In double-double"; the lattice's own ≤ 2.92u to the real
    /// uniforms is analytic). Control: the f64 rotation is off that reference by far more than 2^-90.
    #[test]
    fn haar_rotations_in_double_double_are_the_lattice_rotation_to_2_pow_minus_90() {
        use crate::sample::double_double::exact::Fx;
        for k in [2usize, 3] {
            let noise = SpdLaplaceNoise::new(k, 0.2, None).unwrap();
            let mut seeds = seeded_rng_for_experiments(93 + k as u64);
            let (mut worst, mut worst_f64, mut control) = (0.0f64, 0.0f64, f64::INFINITY);
            for _ in 0..3000 {
                let seed = seeds.next_u64();
                let (mut a, mut b, mut c) = (
                    seeded_rng_for_experiments(seed),
                    seeded_rng_for_experiments(seed),
                    seeded_rng_for_experiments(seed),
                );
                let dd = noise.haar_rotation_dd(&mut a);
                let plain = noise.haar_rotation(&mut b);
                let exact = lattice_rotation(k, &mut c);
                let next = a.next_u64();
                assert_eq!((next, next), (b.next_u64(), c.next_u64()), "the same uniforms, read by all three");
                let frobenius = |entry: &dyn Fn(usize) -> Fx| {
                    (0..k * k)
                        .fold(Fx::from_f64(0.0), |acc, i| {
                            let d = entry(i).sub(&exact[i]);
                            acc.add(&d.mul(&d))
                        })
                        .sqrt()
                        .to_f64()
                };
                worst = worst.max(frobenius(&|i| Fx::dd(dd[i])));
                let f64_error = frobenius(&|i| Fx::from_f64(plain[(i / k, i % k)]));
                worst_f64 = worst_f64.max(f64_error);
                control = control.min(f64_error.max(1e-300));
                let agree = (0..k * k).map(|i| (dd[i].hi - plain[(i / k, i % k)]).powi(2)).sum::<f64>().sqrt();
                assert!(agree <= crate::privacy::float_safety::HAAR_ROTATION_ERROR * (k as f64).sqrt(), "{agree:e}");
            }
            let u = f64::EPSILON / 2.0;
            eprintln!("SO({k}): double-double within {:.1} u², f64 within {:.2} u", worst / (u * u), worst_f64 / u);
            assert!(worst <= 2f64.powi(-90), "{worst:e}");
            assert!(worst_f64 > 2f64.powi(-70), "the control: {worst_f64:e}");
        }
    }

    const CONFIGS: [(usize, f64, Option<f64>); 12] = [
        (2, 0.01, None),
        (2, 0.3, None),
        (2, 1.0, None),
        (2, 1.3, None),
        (2, 5.0, Some(3.0)),
        (2, 0.3, Some(0.5)),
        (3, 0.01, None),
        (3, 0.3, None),
        (3, 0.5, None),
        (3, 0.65, None),
        (3, 5.0, Some(3.0)),
        (3, 0.3, Some(1.0)),
    ];

    #[test]
    fn empirical_acceptance_matches_the_exact_rate_and_ratios_never_exceed_one() {
        // Counting accepted proposals among M: Binomial(M, rate). Hoeffding at 1e-8 per configuration.
        let m = 200_000;
        let margin = ((2e8f64).ln() / (2.0 * m as f64)).sqrt();
        for (i, &(k, sigma, t_max)) in CONFIGS.iter().enumerate() {
            let noise = SpdLaplaceNoise::new(k, sigma, t_max).unwrap();
            let mut rng = seeded_rng_for_experiments(900 + i as u64);
            let mut accepted = 0usize;
            for _ in 0..m {
                if let Some((_, log_acc)) = noise.candidate(&mut rng) {
                    assert!(log_acc <= 1e-12, "k = {k} σ = {sigma}: acceptance ratio e^{log_acc} > 1");
                    if ln_unit(&mut rng) <= log_acc {
                        accepted += 1;
                    }
                }
            }
            let rate = accepted as f64 / m as f64;
            println!(
                "k = {k} σ = {sigma} t_max = {t_max:?}: {:?} exact {:.4} empirical {rate:.4}",
                noise.proposal(),
                noise.acceptance_rate()
            );
            assert!(
                (rate - noise.acceptance_rate()).abs() < margin,
                "k = {k} σ = {sigma} t_max = {t_max:?}: empirical {rate} vs exact {}",
                noise.acceptance_rate()
            );
        }
    }

    /// The adapted directions are uniform on S^{k−1}: every projection u·a onto a unit vector a follows the arcsine
    /// law 1 − arccos(x)/π on the circle and the uniform law on [−1, 1] on S² (Archimedes). KS at 1e-8 per axis
    /// (7 checks: false failure below 1e-7). Negative control: the offset's uniform warped to √V (too few draws
    /// near each sector's centre) fails on some axis, for k = 2 and k = 3.
    #[test]
    fn adapted_directions_are_uniform_and_a_warped_offset_is_caught() {
        let n = 200_000;
        let axes2 = [[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [FRAC_1_SQRT_2, -FRAC_1_SQRT_2, 0.0]];
        let t = 1.0 / 3f64.sqrt();
        let axes3 = [[1.0, 0.0, 0.0], [0.0, 0.6, 0.8], [FRAC_1_SQRT_2, -FRAC_1_SQRT_2, 0.0], [t, t, t]];
        let mut rng = seeded_rng_for_experiments(910);
        for k in [2usize, 3] {
            let axes: &[[f64; 3]] = if k == 2 { &axes2 } else { &axes3 };
            let cdf =
                |x: f64| if k == 2 { 1.0 - x.clamp(-1.0, 1.0).acos() / PI } else { (0.5 * (x + 1.0)).clamp(0.0, 1.0) };
            for warped in [false, true] {
                let draws: Vec<[f64; 3]> = (0..n)
                    .map(|_| {
                        let warp = |v: f64| if warped { v.sqrt() } else { v };
                        direction_with_gaps_warped(k, &mut rng, warp).0
                    })
                    .collect();
                let passed: Vec<bool> = axes
                    .iter()
                    .map(|a| {
                        let mut xs: Vec<f64> = draws.iter().map(|u| u[0] * a[0] + u[1] * a[1] + u[2] * a[2]).collect();
                        crate::audit::gof::ks_test(&mut xs, |s| s.iter().map(|&x| cdf(x)).collect(), 1e-8).passed()
                    })
                    .collect();
                if warped {
                    assert!(passed.iter().any(|p| !p), "k = {k}: the warped control must fail");
                } else {
                    assert!(passed.iter().all(|&p| p), "k = {k}: {passed:?}");
                }
            }
        }
    }

    /// Each gap of [`direction_from`] is within (GAP_RELATIVE_ERROR_UNITS − 3)u of its own size of a double-double
    /// reference computed from the same draws (the lattice of the full-precision uniforms is the other 3u), and
    /// each coordinate within (DIRECTION_ERROR_UNITS − 3)u, at offsets down to 1e-300 (draws pressed against a
    /// wall) and at random. Control: the gap as the difference of computed coordinates, as before §3h, is off by
    /// far more than the bound next to a wall.
    #[test]
    fn gaps_are_relative_next_to_the_walls_and_coordinate_differences_are_not() {
        use crate::sample::double_double::Dd;
        let u = f64::EPSILON / 2.0;
        let pi_4 = Dd { hi: FRAC_PI_4, lo: 3.061_616_997_868_383e-17 };
        let pi_6 = pi_4.mul(Dd::new(2.0)).div(Dd::new(3.0));
        let sqrt2 = Dd::new(2.0).sqrt();
        let half_sqrt3 = Dd::new(3.0).sqrt().mul(Dd::new(0.5));
        let inv_sqrt3 = Dd::new(1.0).div(Dd::new(3.0).sqrt());
        let inv_sqrt6 = Dd::new(1.0).div(Dd::new(6.0).sqrt());
        let abs = |x: Dd| if x.hi < 0.0 { x.neg() } else { x };
        let mut rng = seeded_rng_for_experiments(911);
        let mut offsets = vec![1e-300, 1e-200, 1e-30, 1e-15, 1e-8, 0.3, 0.999, 1.0];
        offsets.extend((0..300).map(|_| unit(&mut rng)));
        let heights = [1e-300, 1e-16, 1e-3, 0.5, 1.0, unit(&mut rng), unit(&mut rng)];
        let (mut worst_gap, mut worst_coord, mut worst_control) = (0.0f64, 0.0f64, 0.0f64);
        for k in [2usize, 3] {
            for j in 0..if k == 2 { 4 } else { 6 } {
                for &offset in &offsets {
                    for &v in if k == 2 { &heights[4..5] } else { &heights[..] } {
                        for (neg_off, neg_z) in [(false, false), (true, false), (false, true), (true, true)] {
                            let (coords, gaps) = direction_from(k, j, neg_off, neg_z, v, offset);
                            let (sd, cd) = (if k == 2 { pi_4 } else { pi_6 }).mul(Dd::new(offset)).sin_cos();
                            let sd = if neg_off { sd.neg() } else { sd };
                            let (want_gaps, want_coords): (Vec<Dd>, Vec<Dd>) = if k == 2 {
                                let g = sqrt2.mul(if j % 2 == 0 { abs(sd) } else { cd });
                                let (a, b) = (cd.sub(sd).div(sqrt2), cd.add(sd).div(sqrt2));
                                let (x, y) = match j {
                                    0 => (a, b),
                                    1 => (b.neg(), a),
                                    2 => (a.neg(), b.neg()),
                                    _ => (b, a.neg()),
                                };
                                (vec![g], vec![x, y])
                            } else {
                                let rho = Dd::new(v).mul(Dd::sum(2.0, -v)).sqrt();
                                let scale = sqrt2.mul(rho);
                                let half_s = sd.mul(Dd::new(0.5));
                                let hc = half_sqrt3.mul(cd);
                                let g = vec![scale.mul(abs(sd)), scale.mul(hc.sub(half_s)), scale.mul(hc.add(half_s))];
                                let (cj, sj) = match j {
                                    0 => (half_sqrt3, Dd::new(0.5)),
                                    1 => (Dd::new(0.0), Dd::new(1.0)),
                                    2 => (half_sqrt3.neg(), Dd::new(0.5)),
                                    3 => (half_sqrt3.neg(), Dd::new(-0.5)),
                                    4 => (Dd::new(0.0), Dd::new(-1.0)),
                                    _ => (half_sqrt3, Dd::new(-0.5)),
                                };
                                let cos_phi = cj.mul(cd).sub(sj.mul(sd));
                                let sin_phi = sj.mul(cd).add(cj.mul(sd));
                                let z = if neg_z { Dd::sum(v, -1.0) } else { Dd::sum(1.0, -v) };
                                let mid = z.mul(inv_sqrt3);
                                let e1 = rho.mul(cos_phi).div(sqrt2);
                                let e2 = rho.mul(sin_phi).mul(inv_sqrt6);
                                let c = vec![mid.add(e1).add(e2), mid.sub(e1).add(e2), mid.sub(e2.mul(Dd::new(2.0)))];
                                (g, c)
                            };
                            for (got, want) in gaps.iter().zip(&want_gaps) {
                                // Gaps below 2^-400 are §3h's excluded event δ_P (the product may underflow).
                                if want.hi < 2f64.powi(-400) {
                                    continue;
                                }
                                let rel = want.minus_from(*got).abs() / (u * want.hi.abs());
                                worst_gap = worst_gap.max(rel);
                                assert!(
                                    rel <= GAP_RELATIVE_ERROR_UNITS - 3.0,
                                    "k {k} j {j} δ-uniform {offset:e} V {v:e}: gap off by {rel:.2}u"
                                );
                            }
                            for (got, want) in coords.iter().zip(&want_coords) {
                                let err = want.minus_from(*got).abs() / u;
                                worst_coord = worst_coord.max(err);
                                assert!(err <= DIRECTION_ERROR_UNITS - 3.0, "k {k} j {j}: coordinate off by {err:.2}u");
                            }
                            // The control: |u_a − u_b| from the coordinates, next to a wall.
                            if offset <= 1e-15 && v >= 1e-3 {
                                let (a, b) = if k == 2 {
                                    (0, 1)
                                } else {
                                    // The pair whose gap vanishes at φ = π/6 + jπ/3: (2, 3), (1, 2), (1, 3), …
                                    [(1, 2), (0, 1), (0, 2)][j as usize % 3]
                                };
                                if k == 2 && j % 2 == 1 {
                                    continue;
                                }
                                let diff = (coords[a] - coords[b]).abs();
                                let rel = want_gaps[0].minus_from(diff).abs() / (u * want_gaps[0].hi);
                                worst_control = worst_control.max(rel);
                            }
                        }
                    }
                }
            }
        }
        println!(
            "worst gap {worst_gap:.2}u, coordinate {worst_coord:.2}u, coordinate differences {worst_control:.3e}u"
        );
        assert!(worst_control > 1e6 * GAP_RELATIVE_ERROR_UNITS, "the control must fail: {worst_control:e}u");
    }

    /// The chamber's r from given t, u (as doubles) is within E_r(t, γt) per coordinate of a double-double
    /// reference of the exact boost (γ* = 1/√(1 − ξ²) of the computed ξ, d = (2i − k − 1)_i/‖v‖ exact), on random
    /// draws and on draws pressed against a wall (c + ξ within 1e-12 of 0), at ξ from 0.1 to 0.99; so every gap is
    /// within E_g. The measured error is printed in units of u·(t + γt).
    #[test]
    fn chamber_coordinates_are_within_their_stated_error() {
        use crate::sample::double_double::Dd;
        let u = f64::EPSILON / 2.0;
        let mut rng = seeded_rng_for_experiments(912);
        let mut worst = 0.0f64;
        for k in [2usize, 3] {
            let inv_norm_v = Dd::new(1.0).div(Dd::new(2.0).sqrt());
            let d_exact = [
                inv_norm_v.neg(),
                if k == 2 { inv_norm_v } else { Dd::new(0.0) },
                if k == 2 { Dd::new(0.0) } else { inv_norm_v },
            ];
            for &sigma_share in &[0.1, 0.5, 0.9, 0.99] {
                let sigma = sigma_share * SpdLaplaceNoise::normalisable_below(k);
                // A noise forced to the chamber scheme, with its own constants.
                let beta = 0.5 * pair_sum_max(k);
                let a = 1.0 / sigma;
                let q = ((a - beta) * (a + beta)).sqrt();
                let (xi, gamma) = (beta / a, a / q);
                let noise = SpdLaplaceNoise {
                    scheme: Scheme::Chamber { q, xi, gamma, tilt: 0.0 },
                    ..SpdLaplaceNoise::new(k, 0.3, None).unwrap()
                };
                let xi_dd = Dd::new(xi);
                let gamma_exact = Dd::new(1.0).div(Dd::new(1.0).sub(xi_dd.mul(xi_dd)).sqrt());
                let d = tilt_direction(k);
                for i in 0..4000 {
                    let t = gamma_integer(k, &mut rng) / q;
                    let mut uu = noise.uniform_direction(&mut rng);
                    if i % 2 == 1 {
                        // Against a wall: c = −ξ(1 + tiny) (the part ⊥ d scaled to keep ‖u‖ = 1).
                        let c_target = -xi * (1.0 + 1e-12 * unit(&mut rng));
                        let c0 = d[0] * uu[0] + d[1] * uu[1] + d[2] * uu[2];
                        let perp: Vec<f64> = (0..3).map(|j| uu[j] - c0 * d[j]).collect();
                        let n = perp.iter().map(|x| x * x).sum::<f64>().sqrt();
                        let scale = (1.0 - c_target * c_target).sqrt() / n;
                        uu = std::array::from_fn(|j| c_target * d[j] + scale * perp[j]);
                    }
                    let c = d[0] * uu[0] + d[1] * uu[1] + d[2] * uu[2];
                    let r = boost_back(t, &uu, c, xi, gamma, &d);
                    // Reference: c from the same u exactly, then the exact boost.
                    let c_dd = (0..k).fold(Dd::new(0.0), |acc, j| acc.add(d_exact[j].mul(Dd::new(uu[j]))));
                    let t_dd = Dd::new(t);
                    let along = gamma_exact.mul(t_dd).mul(c_dd.add(xi_dd));
                    let gamma_t = gamma * t;
                    let bound = noise.chamber_coordinate_error(t, gamma_t);
                    for j in 0..k {
                        let want = t_dd.mul(Dd::new(uu[j]).sub(c_dd.mul(d_exact[j]))).add(along.mul(d_exact[j]));
                        let err = want.minus_from(r[j]).abs();
                        worst = worst.max(err / (u * (t + gamma_t)));
                        assert!(err <= bound, "k {k} ξ {xi}: coordinate off by {err:e} > {bound:e}");
                    }
                }
            }
        }
        println!("chamber coordinates: worst {worst:.2}·u·(t + γt)");
    }

    /// The proven errors are small where releases use them: α (both schemes, every configuration of the
    /// acceptance test, at the radius holding all but 1e-10 of the law) and the log-eigenvalues' error per unit
    /// of radius.
    #[test]
    fn the_acceptance_and_log_eigenvalue_errors_are_small() {
        for &(k, sigma, t_max) in &CONFIGS {
            let noise = SpdLaplaceNoise::new(k, sigma, t_max).unwrap();
            let radius = noise.radial_law().quantile(1.0 - 1e-10).unwrap();
            let alpha = noise.acceptance_error(radius);
            let eta = noise.log_eigenvalue_error(radius);
            println!(
                "k = {k} σ = {sigma} t_max = {t_max:?} {:?}: radius {radius:.3}, α = {alpha:.3e}, η_r = {eta:.3e}",
                noise.proposal()
            );
            assert!(alpha > 0.0 && alpha < 1e-9, "α = {alpha:e}");
            assert!(eta > 0.0 && eta < 1e-11 * radius.max(1.0), "η_r = {eta:e}");
        }
    }

    #[test]
    fn boost_has_the_null_cone_jacobian() {
        // r(r') = r' + [(γ − 1)(d·r') + γξ‖r'‖]d has |det ∂r/∂r'| = ‖r‖/‖r'‖ (dr/‖r‖ is boost-invariant).
        let (xi, k) = (0.7f64, 3);
        let gamma = 1.0 / (1.0 - xi * xi).sqrt();
        let d = tilt_direction(k);
        let map = |x: [f64; 3]| -> [f64; 3] {
            let n = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
            let c = d[0] * x[0] + d[1] * x[1] + d[2] * x[2];
            std::array::from_fn(|i| x[i] + ((gamma - 1.0) * c + gamma * xi * n) * d[i])
        };
        let mut rng = seeded_rng_for_experiments(5);
        for _ in 0..20 {
            let x: [f64; 3] = std::array::from_fn(|_| rng.random::<f64>() * 4.0 - 2.0);
            let h = 1e-6;
            let jac = nalgebra::Matrix3::from_fn(|i, j| {
                let (mut p, mut m) = (x, x);
                p[j] += h;
                m[j] -= h;
                (map(p)[i] - map(m)[i]) / (2.0 * h)
            });
            let y = map(x);
            let ratio =
                (y[0] * y[0] + y[1] * y[1] + y[2] * y[2]).sqrt() / (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
            assert!((jac.determinant().abs() - ratio).abs() < 1e-6 * ratio);
            // And ‖r‖ = γ(‖r'‖ + ξ d·r').
            let n = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
            let c = d[0] * x[0] + d[1] * x[1] + d[2] * x[2];
            assert!((ratio * n - gamma * (n + xi * c)).abs() < 1e-12 * n);
        }
    }

    #[test]
    fn gap_product_bound_holds_and_is_attained() {
        let noise2 = SpdLaplaceNoise::new(2, 0.1, None).unwrap();
        let noise3 = SpdLaplaceNoise::new(3, 0.1, None).unwrap();
        let mut rng = seeded_rng_for_experiments(6);
        for noise in [noise2, noise3] {
            let k = noise.k;
            let mut best = 0.0f64;
            for _ in 0..200_000 {
                let u = noise.uniform_direction(&mut rng);
                let mut p = 1.0;
                for a in 0..k {
                    for b in a + 1..k {
                        p *= (u[a] - u[b]).abs();
                    }
                }
                assert!(p <= p_max(k) * (1.0 + 1e-14));
                best = best.max(p);
            }
            assert!(best > 0.999 * p_max(k), "k = {k}: max {best} vs bound {}", p_max(k));
        }
    }

    #[test]
    fn log_sinhc_is_accurate_on_both_branches() {
        for x in [1e-8, 1e-3, 0.05, 0.0999, 0.1, 0.5, 3.0, 50.0f64] {
            // sinh x/x by its own series for small x.
            let direct = if x < 1.0 {
                let mut term = 1.0;
                let mut tail = 0.0;
                for n in 1..30 {
                    term *= x * x / ((2 * n) as f64 * (2 * n + 1) as f64);
                    tail += term;
                }
                tail.ln_1p()
            } else {
                (x.sinh() / x).ln()
            };
            assert!((log_sinhc(x) - direct).abs() <= 1e-13 * direct.abs(), "{x}: {} vs {direct}", log_sinhc(x));
        }
    }

    #[test]
    fn refuses_what_cannot_be_sampled() {
        assert!((SpdLaplaceNoise::normalisable_below(2) - SQRT_2).abs() < 1e-15);
        assert!((SpdLaplaceNoise::normalisable_below(3) - FRAC_1_SQRT_2).abs() < 1e-15);
        assert!(matches!(SpdLaplaceNoise::new(2, 1.5, None), Err(Error::InvalidParameter { .. })));
        assert!(matches!(SpdLaplaceNoise::new(3, 0.75, None), Err(Error::InvalidParameter { .. })));
        assert!(SpdLaplaceNoise::new(3, 0.75, Some(2.0)).is_ok());
        assert!(SpdLaplaceNoise::new(4, 0.1, None).is_err());
        assert!(SpdLaplaceNoise::new(2, 0.0, None).is_err());
        assert!(SpdLaplaceNoise::new(2, 0.1, Some(-1.0)).is_err());
        // A huge ball at a huge scale: the mass sits at the rim, the acceptance collapses.
        let r = SpdLaplaceNoise::new(3, 1e3, Some(1e8));
        assert!(matches!(r, Err(Error::NumericalLimit(_))), "{r:?}");
    }
}
