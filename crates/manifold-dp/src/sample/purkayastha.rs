//! Exact sampler of the Purkayastha distribution on S^{n−1}: density ∝ exp(−κ d∠(μ, x)) (docs/math.md §2). Its
//! angle θ = d∠(μ, X) has density ∝ e^{h(θ)}, h(θ) = k ln sin θ − κθ, k = n − 2, on [0, π]; the direction
//! orthogonal to μ is uniform.
//!
//! - k = 0 (the circle): θ is exponential truncated to [0, π], drawn by inversion.
//! - k ≥ 1: h is concave (h'' = −k/sin²θ), so the density is log-concave with mode m = atan(k/κ): exact
//!   rejection from the strip table of [`crate::sample::log_concave`] (254 equal strips with a squeeze, two
//!   exponential tails), in half turns s = θ/π ∈ [0, 1] so that the end is exact and π − θ = π(1 − s) keeps its
//!   relative accuracy near the antipode (`docs/proofs/float_safety.md` §3f). cos θ and sin θ come from the
//!   strip's start, tabulated once, rotated by the offset in the strip with short Taylor polynomials
//!   ([`small_sin_cos`]), so the hot path has no transcendental call.

use crate::error::{Error, Fallible};
use crate::sample::log_concave::{Draw, LogConcave, LogConcaveTable, STRIPS};
use crate::sample::small_sin_cos;
use crate::sample::sphere::point_at_angle_into;
use crate::sample::trig::sin_cos_half_turn;
use crate::sample::uniform::TruncatedExp;
use nalgebra::DVector;
use rand::Rng;
use std::f64::consts::PI;

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
    /// `None` on the circle (k = 0).
    strips: Option<Strips>,
    /// The circle's angle law, Exp(κ) truncated to [0, π], drawn by inversion at full precision (§3f).
    circle: TruncatedExp,
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
    /// Purkayastha on S^{dim−1} (dim ≥ 2) with concentration `kappa` (finite, > 0).
    pub fn new(dim: usize, kappa: f64) -> Fallible<Self> {
        let kappa = crate::error::check_concentration(kappa, 1e6, "must be at most 1e6, where the sampler is tested")?;
        let dim = crate::space::sphere::check_dim(dim)?;
        let strips = if dim > 2 {
            let k = (dim - 2) as f64;
            let shape = Angle { k, kappa_pi: kappa * PI };
            let table = LogConcaveTable::new(&shape, k.atan2(kappa) / PI, 1.0).ok_or(Error::InvalidParameter {
                name: "concentration",
                value: kappa,
                reason: "gives a degenerate angle law",
            })?;
            let start = Box::new(std::array::from_fn(|j| (PI * table.left(j)).sin_cos()));
            Some(Strips { shape, table, start })
        } else {
            None
        };
        Ok(PurkayasthaNoise { dim, kappa, strips, circle: TruncatedExp::new(kappa, PI)? })
    }

    /// The concentration κ.
    pub fn kappa(&self) -> f64 {
        self.kappa
    }

    /// One draw of the angle θ ∈ [0, π].
    pub fn sample_angle<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match &self.strips {
            None => self.circle_angle(rng),
            Some(s) => PI * s.table.sample(&s.shape, rng).x,
        }
    }

    /// A bound on |ln(â/a)| of the angle sampler's acceptance test at every proposal (`docs/proofs/
    /// float_safety.md` §3f, Lemma R), for `Rounding::with_acceptance_error`: the strip table's for n ≥ 3, 0 on
    /// the circle (inversion, no test).
    pub fn acceptance_error(&self) -> f64 {
        self.strips.as_ref().map_or(0.0, |s| s.table.acceptance_error())
    }

    /// On the circle: the inverse CDF of e^{−κθ} on [0, π], from a uniform read at full precision at both ends
    /// (within 40·2^-53·π of the exact inverse of the real uniform, tails included: float_safety.md §3f).
    fn circle_angle<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.circle.sample(rng)
    }

    /// (cos θ, sin θ) of one draw of θ: from the strip's tabulated start rotated by the offset, or from θ
    /// itself (libm in the tails; on the circle `sample::trig`'s table, within 9·2^-53).
    #[inline]
    fn sample_cos_sin<R: Rng + ?Sized>(&self, rng: &mut R) -> (f64, f64) {
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
}
