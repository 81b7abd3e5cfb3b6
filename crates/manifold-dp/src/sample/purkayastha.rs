//! Exact sampler of the Purkayastha distribution on S^{n−1}: density ∝ exp(−κ d∠(μ, x)) (docs/math.md §2). Its
//! angle θ = d∠(μ, X) has density ∝ e^{h(θ)}, h(θ) = k ln sin θ − κθ, k = n − 2, on [0, π]; the direction
//! orthogonal to μ is uniform.
//!
//! - k = 0 (the circle): θ is exponential truncated to [0, π], drawn by inversion.
//! - k ≥ 1: h is concave (h'' = −k/sin²θ), so the density is log-concave with mode m = atan(k/κ): exact
//!   rejection from the strip table of `crate::sample::log_concave` (254 equal strips with a squeeze, two
//!   exponential tails), in half turns s = θ/π ∈ [0, 1] so that the end is exact and π − θ = π(1 − s) keeps its
//!   relative accuracy near the antipode (`docs/proofs/float_safety.md` §3f). cos θ and sin θ come from the
//!   strip's start, tabulated once, rotated by the offset in the strip with short Taylor polynomials
//!   (`small_sin_cos`), so the hot path has no transcendental call.
//! - k ≥ 1 and κ > [`STRIPS_UP_TO`] (the private means of many rows): the law is all but planar, θ ≈ Gamma(k + 1,
//!   κ). Exact rejection from that Gamma proposal (a pairwise sum of k + 1 full-precision exponentials, divided
//!   by κ), rejected past π, accepted with probability (sin θ/θ)^k ∈ (0, 1], tested in logarithms against a
//!   full-precision uniform. Scale-free: tested up to [`MAX_CONCENTRATION`] (`docs/proofs/float_safety.md`
//!   §3g).

use crate::error::Param;
use crate::error::{Error, Fallible};
use crate::numerics::trig::sin_cos_half_turn;
use crate::sample::double_double::Dd;
use crate::sample::log_concave::{Draw, LogConcave, LogConcaveTable, STRIPS};
use crate::sample::normal::{gamma_integer, gamma_integer_dd, gamma_relative_error_units};
use crate::sample::small_sin_cos;
use crate::sample::sphere::point_at_angle_into;
use crate::sample::uniform::TruncatedExp;
use nalgebra::DVector;
use rand::{Rng, RngExt};
use std::f64::consts::PI;

/// The largest concentration the strip tables serve (their α_LC is tested up to here, §3f); beyond it the
/// Gamma proposal does, whose bits are its own.
pub const STRIPS_UP_TO: f64 = 1e6;

/// The largest concentration the sampler accepts, and where its end-of-range test runs: the private means of
/// 10⁷ rows within a few metres at ε = 10⁶ stay below it, and beyond it the noise (θ ~ (n − 1)/κ < 10⁻¹²) is
/// finer than any float-safe grid can resolve (their pipeline errors are ~10⁻¹⁴), so the rounding's cost
/// refuses such releases before any draw.
pub const MAX_CONCENTRATION: f64 = 1e16;

/// δ_G, rounded up to the smallest normal double: the probability, per release, of a Gamma proposal beyond
/// π/2 (κ > [`STRIPS_UP_TO`]), where its acceptance ratio is not bounded: ≤ P(Gamma(k + 1, 1) ≥ κπ/2)
/// < 10^-650000 (Chernoff; `docs/proofs/float_safety.md` §3g). A larger bound is a weaker, still true claim.
pub const GAMMA_FAR_EVENT_PROBABILITY: f64 = f64::MIN_POSITIVE;

/// The Gamma proposal's acceptance-test error α_G (`docs/proofs/float_safety.md` §3g) for k = n − 2: the
/// proposal θ̂ within r·u of itself (r = [`gamma_relative_error_units`]`(k + 1)` plus the division by κ),
/// which moves k ln(sin θ/θ) by at most k·r·u (|θ cot θ − 1| ≤ 1 for θ ≤ π/2); sin θ̂/θ̂ within 3.01u (libm's
/// sine 2u, the division u), its logarithm 2u of its size (|ln(sin θ/θ)| ≤ ln(π/2) < 0.46), the product by k one
/// rounding; the comparison with a full-precision ln V adds (5 + 4|ℓ|)u (Lemma R). Times 1.01.
fn gamma_acceptance_error(k: f64) -> f64 {
    let u = f64::EPSILON / 2.0;
    let r = gamma_relative_error_units(k as usize + 1) + 1.0;
    let ell = 0.46 * k;
    1.01 * u * (k * (r + 3.01) + 3.0 * ell + 5.0 + 4.0 * ell)
}

/// The angle's log-density in half turns s = θ/π ∈ [0, 1]: k ln sin(πs) − κπs, k = n − 2 ≥ 1 (the Jacobian π
/// is a constant). sin(πs) is taken from the nearer end, sin(π·min(s, 1 − s)), so it keeps its relative
/// accuracy near both.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Angle {
    k: f64,
    /// κπ.
    kappa_pi: f64,
}

impl LogConcave for Angle {
    #[inline]
    fn ln_density(&self, s: f64, rest: f64) -> f64 {
        self.k * (PI * s.min(rest)).sin().ln() - self.kappa_pi * s
    }

    /// sin(πm) (m = min(s, rest) within `rel` of itself, π·m one rounding and fl(π)'s 0.4u, libm's sine 2u) is
    /// within rel + 3.4u of its own size (πm ≤ π/2, so πm·cot(πm) ≤ 1); its logarithm adds 2u of its size and
    /// the product by k one rounding; κπ (computed, so the law's rate errs by at most u·κπ) times s adds
    /// κπ·s·(rel_s + 2u); the difference one rounding (`docs/proofs/float_safety.md` §3f).
    fn ln_density_error(&self, s: f64, rest: f64, rel_s: f64, rel_rest: f64) -> f64 {
        let u = f64::EPSILON / 2.0;
        let rel = if s <= rest { rel_s } else { rel_rest };
        let ln_sin = (PI * s.min(rest)).sin().ln().abs();
        1.01 * (self.k * (rel + 3.4 * u)
            + 3.0 * u * self.k * ln_sin
            + self.kappa_pi * s * (rel_s + 3.0 * u)
            + u * (self.k * ln_sin + self.kappa_pi * s))
    }
}

/// The strip table of the angle's law for k ≥ 1, and (sin, cos) of each strip's start.
#[derive(Debug, Clone)]
struct Strips {
    shape: Angle,
    table: LogConcaveTable,
    start: Box<[(f64, f64); STRIPS]>,
}

/// The Purkayastha distribution's angle on S^{dim−1}, and whole points around a centre.
#[derive(Debug, Clone)]
pub struct PurkayasthaNoise {
    dim: usize,
    kappa: f64,
    /// `None` on the circle (k = 0) and beyond [`STRIPS_UP_TO`].
    strips: Option<Strips>,
    /// k = n − 2 ≥ 0 beyond [`STRIPS_UP_TO`]: the Gamma(k + 1, κ) proposal.
    gamma: Option<usize>,
    /// The circle's angle law up to [`STRIPS_UP_TO`], Exp(κ) truncated to [0, π], drawn by inversion at full
    /// precision (§3f).
    circle: Option<TruncatedExp>,
}

impl PartialEq for PurkayasthaNoise {
    fn eq(&self, other: &Self) -> bool {
        (self.dim, self.kappa) == (other.dim, other.kappa)
    }
}

impl Strips {
    /// (cos θ, sin θ) of a draw: the strip's start rotated by the offset (within 3.5 ulps), or libm in a tail.
    #[inline]
    fn cos_sin(&self, d: Draw) -> (f64, f64) {
        if d.strip < STRIPS {
            let (sin_a, cos_a) = self.start[d.strip];
            let (sin_d, cos_d) = small_sin_cos(PI * d.offset);
            (cos_a * cos_d - sin_a * sin_d, sin_a * cos_d + cos_a * sin_d)
        } else if d.x <= 0.5 {
            let (sin, cos) = (PI * d.x).sin_cos();
            (cos, sin)
        } else {
            // From the antipode's side: sin θ = sin(π·rest), cos θ = −cos(π·rest).
            let (sin, cos) = (PI * d.rest).sin_cos();
            (-cos, sin)
        }
    }
}

impl PurkayasthaNoise {
    /// Purkayastha on S^{dim−1} (dim ≥ 2) with concentration `kappa` (finite, > 0, at most
    /// [`MAX_CONCENTRATION`]).
    pub fn new(dim: usize, kappa: f64) -> Fallible<Self> {
        let kappa = crate::error::check_concentration(
            kappa,
            MAX_CONCENTRATION,
            "must be at most 1e16, where the sampler is tested",
        )?;
        let dim = crate::analysis::sphere_angle::check_dim(dim)?;
        let gamma = (kappa > STRIPS_UP_TO).then_some(dim - 2);
        let strips = if dim > 2 && gamma.is_none() {
            let k = (dim - 2) as f64;
            let shape = Angle { k, kappa_pi: kappa * PI };
            let table = LogConcaveTable::new(&shape, k.atan2(kappa) / PI, 1.0).ok_or(Error::InvalidParameter {
                name: Param::Concentration,
                value: kappa,
                reason: "gives a degenerate angle law",
            })?;
            let start = Box::new(std::array::from_fn(|j| (PI * table.left(j)).sin_cos()));
            Some(Strips { shape, table, start })
        } else {
            None
        };
        let circle = if dim == 2 && gamma.is_none() { Some(TruncatedExp::new(kappa, PI)?) } else { None };
        Ok(PurkayasthaNoise { dim, kappa, strips, gamma, circle })
    }

    /// The concentration κ.
    pub fn kappa(&self) -> f64 {
        self.kappa
    }

    /// The largest [`PurkayasthaNoise::negligible_event_probability`] over every concentration on S^{dim−1}:
    /// δ_LC (the strips, dim > 2) or δ_G (the Gamma proposal, the circle's only one), + δ_N for dim ≥ 4. What a
    /// release's guarantee is charged before its κ is known (it grows with the rows).
    pub fn negligible_event_bound(dim: usize) -> f64 {
        let end = if dim > 2 { crate::sample::log_concave::END_EVENT_PROBABILITY } else { GAMMA_FAR_EVENT_PROBABILITY };
        let p = crate::numerics::rounding::add_up(0.0, end.max(GAMMA_FAR_EVENT_PROBABILITY));
        if dim >= 4 {
            crate::numerics::rounding::add_up(p, crate::sample::normal::DIRECTION_EVENT_PROBABILITY)
        } else {
            p
        }
    }

    /// A bound on the probability, per draw, of the noise-only events where the float bounds are not claimed
    /// (`docs/proofs/float_safety.md` §6): δ_LC for the strip table (n ≥ 3, κ ≤ [`STRIPS_UP_TO`]), δ_G for
    /// the Gamma proposal (κ beyond it), δ_N for the direction (n ≥ 4), summed.
    pub fn negligible_event_probability(&self) -> f64 {
        let mut p = 0.0;
        if self.strips.is_some() {
            p = crate::numerics::rounding::add_up(p, crate::sample::log_concave::END_EVENT_PROBABILITY);
        }
        if self.gamma.is_some() {
            p = crate::numerics::rounding::add_up(p, GAMMA_FAR_EVENT_PROBABILITY);
        }
        if self.dim >= 4 {
            p = crate::numerics::rounding::add_up(p, crate::sample::normal::DIRECTION_EVENT_PROBABILITY);
        }
        // Rounded up at each sum (exact for one term).
        p
    }

    /// One draw of the angle θ ∈ [0, π].
    pub fn sample_angle<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match (&self.strips, self.gamma) {
            (_, Some(k)) => self.gamma_angle(k, rng),
            (None, None) => self.circle_angle(rng),
            (Some(s), None) => PI * s.table.sample(&s.shape, rng).x,
        }
    }

    /// Beyond [`STRIPS_UP_TO`]: θ ~ Gamma(k + 1, κ) proposed, rejected past π, accepted when
    /// ln V < k·ln(sin θ/θ) for a full-precision uniform V (`docs/proofs/float_safety.md` §3g). The number of
    /// proposals is geometric (acceptance above 0.99 at κ > 10⁶ for k ≤ 100, about 0.85 at k = 9998).
    fn gamma_angle<R: Rng + ?Sized>(&self, k: usize, rng: &mut R) -> f64 {
        self.gamma_proposal(k, rng, |rng| Dd::new(gamma_integer(k + 1, rng) / self.kappa)).hi
    }

    /// §3g's proposal loop, the angle proposed by `propose` (a Gamma(k + 1, κ) draw); the rejection past π and
    /// the acceptance test read its leading double.
    fn gamma_proposal<R: Rng + ?Sized>(&self, k: usize, rng: &mut R, mut propose: impl FnMut(&mut R) -> Dd) -> Dd {
        loop {
            let proposed = propose(rng);
            let theta = proposed.hi;
            if theta > PI {
                continue;
            }
            // On the circle (k = 0) every proposal within π is kept: Exp(κ) conditioned on [0, π].
            if k == 0 {
                return proposed;
            }
            let ell = if theta > 0.0 { k as f64 * (theta.sin() / theta).ln() } else { 0.0 };
            if crate::sample::uniform::ln_unit(rng) < ell {
                return proposed;
            }
        }
    }

    /// One draw of the angle θ by the Gamma proposal at every κ (exact for every κ > 0, §3g), for the private
    /// means' relative-error release (`docs/proofs/float_safety.md` §3i): θ̂ is within
    /// [`PurkayasthaNoise::gamma_angle_relative_error`] of its own size of the exact draw of the same uniforms.
    /// Needs n ≥ 3 (k = n − 2 ≥ 1).
    pub fn sample_angle_by_gamma<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.gamma_angle(self.dim - 2, rng)
    }

    /// [`PurkayasthaNoise::sample_angle_by_gamma`] with the Gamma summed and divided by κ in double-double
    /// ([`gamma_integer_dd`]): θ̂ within [`PurkayasthaNoise::gamma_angle_dd_relative_error`] of its own size of
    /// the exact draw of the same uniforms, for the relative-error release on the circle and S^{n−1}, n ≥ 4
    /// (`docs/proofs/float_safety.md` §3i). The same law, proposals and test; the test reads θ̂'s leading
    /// double, within (16 + 10⁻⁹)u of θ, inside the (30 + ⌈log₂(k + 1)⌉ + 3)u that α_G allows. On the circle
    /// (k = 0) every proposal within π is kept (§3i, "The circle").
    pub(crate) fn sample_angle_by_gamma_dd<R: Rng + ?Sized>(&self, rng: &mut R) -> Dd {
        let k = self.dim - 2;
        let kappa = Dd::new(self.kappa);
        self.gamma_proposal(k, rng, |rng| gamma_integer_dd(k + 1, rng).div(kappa))
    }

    /// The relative error of the double-double Gamma proposal's θ̂ (`sample_angle_by_gamma_dd`) as a fraction: 15·2^-53 (the
    /// exponentials, Lemma U) + (3.05(k + 1) + 18)·2^-106 (the double-double sum and quotient, Lemma DD),
    /// rounded up by 1 %.
    pub fn gamma_angle_dd_relative_error(&self) -> f64 {
        let u = f64::EPSILON / 2.0;
        1.01 * (15.0 * u + (3.05 * (self.dim - 1) as f64 + 18.0) * u * u)
    }

    /// The Gamma proposal's relative error in θ, as a fraction (not units): §3g's proven
    /// (17 + ⌈log₂(k + 1)⌉)·2^-53 (Lemma N's pairwise sum of k + 1 exponentials, each within 15u, and the division
    /// by κ), plus one unit (the acceptance test's [`gamma_relative_error_units`] keeps more room, unneeded here).
    pub fn gamma_angle_relative_error(&self) -> f64 {
        let depth = f64::from(usize::BITS - (self.dim - 1).leading_zeros());
        (18.0 + depth) * (f64::EPSILON / 2.0)
    }

    /// The Gamma proposal's acceptance-test error α_G (§3g), for θ ≤ π/2.
    pub fn gamma_acceptance_error(&self) -> f64 {
        gamma_acceptance_error((self.dim - 2) as f64)
    }

    /// A bound on |ln(â/a)| of the angle sampler's acceptance test at every proposal (`docs/proofs/
    /// float_safety.md` §3f, Lemma R), for `Rounding::with_acceptance_error`: the strip table's for n ≥ 3, 0 on
    /// the circle (inversion, no test).
    pub fn acceptance_error(&self) -> f64 {
        match (&self.strips, self.gamma) {
            (_, Some(0)) => 0.0,
            (_, Some(k)) => gamma_acceptance_error(k as f64),
            (Some(s), None) => s.table.acceptance_error(),
            (None, None) => 0.0,
        }
    }

    /// On the circle: the inverse CDF of e^{−κθ} on [0, π], from a uniform read at full precision at both ends
    /// (within 40·2^-53·π of the exact inverse of the real uniform, tails included: float_safety.md §3f).
    fn circle_angle<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match &self.circle {
            Some(circle) => circle.sample(rng),
            None => self.gamma_angle(0, rng),
        }
    }

    /// (cos θ, sin θ) of one draw of θ: from the strip's tabulated start rotated by the offset, or from θ
    /// itself (libm in the tails; on the circle `sample::trig`'s table, within 9·2^-53).
    #[inline]
    fn sample_cos_sin<R: Rng + ?Sized>(&self, rng: &mut R) -> (f64, f64) {
        if let Some(k) = self.gamma {
            let (sin, cos) = self.gamma_angle(k, rng).sin_cos();
            return (cos, sin);
        }
        let Some(s) = &self.strips else {
            let (sin, cos) = sin_cos_half_turn(self.circle_angle(rng));
            return (cos, sin);
        };
        s.cos_sin(s.table.sample(&s.shape, rng))
    }

    /// A draw of Purkayastha(μ, κ); `mu` must be a unit vector of length n.
    pub fn sample_around<R: Rng + ?Sized>(&self, mu: &DVector<f64>, rng: &mut R) -> DVector<f64> {
        let mut out = DVector::zeros(mu.len());
        self.sample_into(mu.as_slice(), out.as_mut_slice(), rng);
        out
    }

    /// A draw of Purkayastha(μ, κ) written into `out` (same length n as the unit vector `mu`), without
    /// allocating.
    pub fn sample_into<R: Rng + ?Sized>(&self, mu: &[f64], out: &mut [f64], rng: &mut R) {
        debug_assert_eq!(mu.len(), self.dim);
        let (cos, sin) = self.sample_cos_sin(rng);
        point_at_angle_into(mu, cos, sin, out, rng);
    }

    /// On the circle (n = 2): the drawn signed offset ±θ/2π in turns, from the same random words, in the same
    /// order, as [`PurkayasthaNoise::sample_into`] (the angle θ, then the fair sign of the rotation), so a
    /// release snapped from the input's angle plus this offset has the law of the rotated point's. Within
    /// 2^-53 turns of ±θ̂/2π for the drawn θ̂ (`docs/proofs/float_safety.md` §4, "The circle by its angle").
    #[inline]
    pub fn sample_offset_turns<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        debug_assert_eq!(self.dim, 2);
        let turns = self.sample_angle(rng) * (1.0 / std::f64::consts::TAU);
        if rng.random::<bool>() { turns } else { -turns }
    }

    /// The ambient dimension n.
    pub fn dim(&self) -> usize {
        self.dim
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::rng::seeded_rng_for_experiments;

    /// cos θ and sin θ from the strip tables agree with libm at θ = fl(a_j + δ) to within the 3.5 ulps of
    /// the proof plus θ's own rounding (docs/proofs/purkayastha_sphere.md).
    #[test]
    fn tabulated_cos_sin_match_the_drawn_angle() {
        for (dim, kappa) in [(3, 1e-6), (3, 1.0), (3, 100.0), (10, 1.0), (100, 1e4), (3, 1e6)] {
            let noise = PurkayasthaNoise::new(dim, kappa).unwrap();
            let s = noise.strips.as_ref().unwrap();
            let mut rng = seeded_rng_for_experiments(dim as u64);
            for _ in 0..100_000 {
                let d = s.table.sample(&s.shape, &mut rng);
                let (cos, sin) = s.cos_sin(d);
                let (s0, c0) = (PI * d.x).sin_cos();
                let tol = 4.0 * f64::EPSILON / 2.0 + 2.0 * PI * d.x * f64::EPSILON;
                assert!((cos - c0).abs() <= tol && (sin - s0).abs() <= tol, "n {dim}, kappa {kappa}, theta {}", d.x);
                assert!((cos * cos + sin * sin - 1.0).abs() < 1e-15);
            }
        }
    }

    /// sup_x |F_n(x) − F(x)| of sorted draws against a continuous CDF.
    fn ks(draws: &mut [f64], cdf: impl Fn(f64) -> f64) -> f64 {
        draws.sort_by(f64::total_cmp);
        let n = draws.len() as f64;
        draws.iter().enumerate().fold(0.0f64, |d, (i, &x)| {
            let f = cdf(x);
            d.max((f - i as f64 / n).abs()).max(((i + 1) as f64 / n - f).abs())
        })
    }

    /// Gamma(m, 1)'s CDF for integer m: 1 − e^{−x} Σ_{j<m} x^j/j!.
    fn gamma_cdf(m: usize, x: f64) -> f64 {
        let (mut term, mut sum) = (1.0, 1.0);
        for j in 1..m {
            term *= x / j as f64;
            sum += term;
        }
        1.0 - (-x).exp() * sum
    }

    /// The ends of the sampler's range beyond the strips (docs/proofs/float_safety.md §3g), with exact critical
    /// values (DKW, false failure ≤ 1e-6 per check): for κ ≥ 10⁶ the angle's exact law is Gamma(n − 1, κ) times
    /// (sin θ/θ)^{n−2} = 1 − O((n − 2)n²/κ²), so κθ's CDF is Gamma(n − 1, 1)'s within 1e-10, far below the test's
    /// resolution. Checked at the cap κ = 1e16 and just past the strips (κ = 1.000001e6, the Gamma path) on the
    /// circle, S² and S³, and just below them (κ = 1e6, the strips). Negative control: a law 5 % wider (κ·0.95)
    /// is rejected by the same threshold.
    #[test]
    fn the_angle_law_holds_at_both_ends_of_the_gamma_range() {
        use crate::sample::exact_cell::test_support::dkw_threshold;
        const DRAWS: usize = 200_000;
        let threshold = dkw_threshold(DRAWS, 1e-6) + 1e-10;
        let mut seed = 0;
        for dim in [2usize, 3, 4] {
            for kappa in [1e16, 1.000001e6, 1e6] {
                seed += 1;
                let noise = PurkayasthaNoise::new(dim, kappa).unwrap();
                assert_eq!(noise.gamma.is_some(), kappa > STRIPS_UP_TO);
                let mut rng = seeded_rng_for_experiments(seed);
                let mut scaled: Vec<f64> = (0..DRAWS).map(|_| noise.sample_angle(&mut rng) * kappa).collect();
                let d = ks(&mut scaled, |x| gamma_cdf(dim - 1, x));
                assert!(d < threshold, "n {dim}, κ {kappa}: KS {d} ≥ {threshold}");
                let control = ks(&mut scaled, |x| gamma_cdf(dim - 1, 0.95 * x));
                assert!(control > threshold, "n {dim}, κ {kappa}: the 5 % wider law is not rejected ({control})");
            }
        }
        assert!(PurkayasthaNoise::new(3, 1.01e16).is_err());
    }

    /// The Gamma path's α_G (§3g) stays tiny at every dimension, and the cos, sin it feeds the point are libm's
    /// of the drawn angle.
    #[test]
    fn the_gamma_acceptance_error_is_small_at_every_dimension() {
        for k in [1.0, 2.0, 100.0, 9998.0] {
            assert!(gamma_acceptance_error(k) < 1e-10, "k {k}: {}", gamma_acceptance_error(k));
        }
        let noise = PurkayasthaNoise::new(3, 1e12).unwrap();
        assert!(noise.acceptance_error() > 0.0 && noise.acceptance_error() < 1e-13);
        let mut rng = seeded_rng_for_experiments(9);
        for _ in 0..1000 {
            let (c, s) = noise.sample_cos_sin(&mut rng);
            assert!(s > 0.0 && s < 1e-10 && c == 1.0);
        }
    }
}
