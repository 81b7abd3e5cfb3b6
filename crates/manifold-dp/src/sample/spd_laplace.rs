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

use crate::analysis::spd_radial::{SpdRadialLaw, pair_sum_max};
use crate::error::{Error, Fallible};
use crate::sample::sphere::{uniform_circle, uniform_s2, uniform_s3};
use crate::sample::uniform::ln_unit;
use nalgebra::{DMatrix, DVector};
use rand::distr::Distribution;
use rand::{Rng, RngExt};
use std::f64::consts::{FRAC_1_SQRT_2, LN_2, PI, SQRT_2};
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
            name: "sigma",
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

    /// The proposal in use.
    pub fn proposal(&self) -> SpdProposal {
        match self.scheme {
            Scheme::Polynomial { w, .. } => SpdProposal::Polynomial { w },
            Scheme::Chamber { .. } => SpdProposal::Chamber,
        }
    }

    /// A uniform point of S^{k−1} in the first k entries.
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
                let u = self.uniform_direction(rng);
                let mut gaps = [0.0; 3];
                let mut n = 0;
                for a in 0..k {
                    for b in a + 1..k {
                        gaps[n] = (u[a] - u[b]).abs();
                        n += 1;
                    }
                }
                let gaps = &gaps[..n];
                if j > 0 {
                    let log_p: f64 = gaps.iter().map(|g| g.ln()).sum();
                    if ln_unit(rng) > w * (log_p - log_p_max) {
                        return None;
                    }
                }
                let t = -(0..k + j).map(|_| ln_unit(rng)).sum::<f64>() / rate;
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
                    // ln[sinh(y/2)e^{−θy/2}/(2^{w−1}(y/2)^w)] = ln(1 − e^{−y}) − w ln y + (1 − θ)y/2.
                    log_acc += (-(-y).exp_m1()).ln() + 0.5 * (1.0 - theta) * y;
                    if w > 0.0 {
                        log_acc -= w * y.ln();
                    }
                }
                let mut r = [t * u[0], t * u[1], t * u[2]];
                r[..k].sort_by(f64::total_cmp);
                Some((r, log_acc))
            }
            Scheme::Chamber { q, xi, gamma, tilt } => {
                let t = -(0..k).map(|_| ln_unit(rng)).sum::<f64>() / q;
                let d = tilt_direction(k);
                let mut u = self.uniform_direction(rng);
                let mut c = d[0] * u[0] + d[1] * u[1] + d[2] * u[2];
                // Direction density ∝ 1 + ξc: keep u with probability (1 + ξc)/2, else reflect it (c → −c).
                if rng.random::<f64>() >= 0.5 * (1.0 + xi * c) {
                    for (ui, di) in u.iter_mut().zip(d) {
                        *ui -= 2.0 * c * di;
                    }
                    c = -c;
                }
                let norm = gamma * t * (1.0 + xi * c);
                if norm > t_max {
                    return None;
                }
                // Boost back: the part along d is γt(c + ξ), the rest t(u − c·d).
                let along = gamma * t * (c + xi);
                let r: [f64; 3] = std::array::from_fn(|i| t * (u[i] - c * d[i]) + along * d[i]);
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
