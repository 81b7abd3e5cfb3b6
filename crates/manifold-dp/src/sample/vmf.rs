//! Exact sampler of the von Mises–Fisher distribution VMF(μ, κ) on S^{n−1}, n ≥ 2: density ∝ exp(κ μ·x)
//! (docs/math.md §2). The component along μ, W = μ·X, has density ∝ e^{κw}(1 − w²)^{(n−3)/2} on [−1, 1]; the
//! direction orthogonal to μ is uniform. Everything is computed in terms of t = 1 − W, which keeps full
//! relative accuracy when κ is large and X is close to μ.
//!
//! - n = 3: t = 1 − W has density ∝ e^{−κt} on [0, 2], an exponential truncated at 2, drawn by Jakob's
//!   inversion of a uniform read at full precision at both ends ([`TruncatedExp`]): within 52·2^-53 of the exact
//!   inverse of the real uniform, tails included (`docs/proofs/float_safety.md` §3f).
//! - n ≥ 4 (κ ≤ 1e100): t has density ∝ e^{−κt}(t(2 − t))^{(n−3)/2} on [0, 2], log-concave with mode
//!   t* = (n − 3)/(κ + (n − 3)/2 + √(κ² + ((n − 3)/2)²)) (cancellation-free): exact rejection from the strip
//!   table of `crate::sample::log_concave`, about two 64-bit words per draw and no logarithm on the hot path.
//! - n = 2, and n ≥ 4 beyond κ = 1e100 (where the strips would approach the smallest normal floats): Wood's
//!   (1994) rejection sampler with the cancellation-free b = m/(√(4κ² + m²) + 2κ), m = n − 1,
//!   t = 2bZ/(1 − (1 − b)Z) with Z ~ Beta(m/2, m/2), and the acceptance test rewritten in t (below), so it
//!   stays exact for κ up to 1e10 (scipy's form loses the test to cancellation there).
//! - Tangent direction ([`point_at_angle_into`]): for n ≥ 4, n − 1 normalised Gaussians carried onto μ^⊥ by a
//!   Householder reflection whose sign keeps it well-conditioned everywhere (O(n), no n×n matrix); on S², a
//!   uniform point of the circle from one 64-bit word in a branch-free orthonormal basis of the plane ⊥ μ; on
//!   the circle, a Gaussian projected orthogonally to μ.

use crate::error::Param;
use crate::error::{Fallible, check_positive};
use crate::sample::log_concave::{LogConcave, LogConcaveTable};
use crate::sample::normal::symmetric_beta_pair;
use crate::sample::sphere::{point_at_angle_into, s2_point_at_angle, uniform_circle};
use crate::sample::uniform::{TruncatedExp, ln_unit, quarter_turn};
use nalgebra::DVector;
use rand::Rng;

/// The VMF distribution's radial part on S^{n−1}: draws t = 1 − μ·X, and whole points around a mean.
#[derive(Debug, Clone)]
pub struct VmfNoise {
    dim: usize,
    kappa: f64,
    radial: Radial,
}

/// How t = 1 − μ·X is drawn.
#[derive(Debug, Clone)]
enum Radial {
    /// n = 3: t ~ Exp(κ) truncated to [0, 2], by inversion of a full-precision uniform at both ends.
    TruncatedExp(TruncatedExp),
    /// n ≥ 4, κ ≤ [`TABLE_MAX_KAPPA`]: the strip table.
    Table(Box<(Radial4, LogConcaveTable)>),
    /// n = 2, or κ > [`TABLE_MAX_KAPPA`]: Wood's rejection sampler.
    Wood(Wood),
}

/// The largest κ at which n ≥ 4 uses the strip table (its strips, of width ~ 1/κ, stay far above the smallest
/// normal float).
const TABLE_MAX_KAPPA: f64 = 1e100;

/// ln of t's density for n ≥ 4: a·ln(t(2 − t)) − κt, a = (n − 3)/2 > 0.
#[derive(Debug, Clone, Copy)]
struct Radial4 {
    a: f64,
    kappa: f64,
}

impl LogConcave for Radial4 {
    #[inline]
    fn ln_density(&self, t: f64, rest: f64) -> f64 {
        self.a * (t * rest).ln() - self.kappa * t
    }

    /// t·rest within rel_t + rel_rest + u of itself, so its logarithm within that plus 2u of its size; the
    /// product by a one rounding, κt one more and t's own error, the difference one (`docs/proofs/
    /// float_safety.md` §3f).
    fn ln_density_error(&self, t: f64, rest: f64, rel_t: f64, rel_rest: f64) -> f64 {
        let u = f64::EPSILON / 2.0;
        let ln = (t * rest).ln().abs();
        1.01 * (self.a * (rel_t + rel_rest + u)
            + 3.0 * u * self.a * ln
            + self.kappa * t * (rel_t + 2.0 * u)
            + u * (self.a * ln + self.kappa * t))
    }
}

impl Radial4 {
    /// The mode: the root in (0, 1) of κt² − 2(κ + a)t + 2a = 0, in the form without cancellation.
    fn mode(&self) -> f64 {
        2.0 * self.a / (self.kappa + self.a + self.kappa.hypot(self.a))
    }
}

/// Precomputed constants of Wood's sampler.
#[derive(Debug, Clone)]
struct Wood {
    m: f64,
    b: f64,
    x0: f64,
    /// 1 − x0 = 2b/(1 + b), without cancellation.
    one_minus_x0: f64,
    ln_one_plus_x0: f64,
    /// Z ~ Beta(m/2, m/2): for n ≥ 4 (κ > 1e100 only, beyond every release's κ ≤ 1e6) as X/(X + Y) of two
    /// Gamma(m/2) draws ([`symmetric_beta_pair`], given m); the arcsine law by inversion on the circle.
    beta: Option<usize>,
}

impl Wood {
    /// A bound on |ln(â/a)| for Wood's test (`docs/proofs/float_safety.md` §3f, Lemma R), for the proposal's t
    /// within 30u of its own size (u = 2^-53; Lemma A): u·(78κ + m(44 + 9Y) + 5)·1.01, Y = ln(1 + 2/(1 − x0))
    /// the largest ln_1p argument's logarithm. κ(1 − x0 − t) errs by ≤ uκ(4(1 − x0) + 32t) ≤ 68uκ, the
    /// logarithms by ≤ m·u(40 + 4Y), the sum by u(2κ + m(Y + 1)), the comparison with a full-precision ln U by
    /// (5 + 4|ℓ|)u with |ℓ| ≤ 2κ + m(Y + ln 2). On the circle (m = 1) at κ = 10⁶: 8.75e-9.
    fn acceptance_error(&self, kappa: f64) -> f64 {
        let u = f64::EPSILON / 2.0;
        let y = (2.0 / self.one_minus_x0).ln_1p();
        1.01 * u * (78.0 * kappa + self.m * (44.0 + 9.0 * y) + 5.0)
    }

    /// One draw of (t, 2 − t) (kept out of line: the S² samplers above are inlined into their callers).
    #[inline(never)]
    fn sample_t<R: Rng + ?Sized>(&self, kappa: f64, rng: &mut R) -> (f64, f64) {
        loop {
            let (z, one_minus_z) = match self.beta {
                Some(m) => symmetric_beta_pair(m, rng),
                None => arcsine(rng),
            };
            // t = 2bZ/(1 − (1 − b)Z) with the denominator as (1 − Z) + bZ, and 2 − t = 2(1 − Z)/(that): both
            // without cancellation (Z and 1 − Z are each read accurately on the circle).
            let den = one_minus_z + self.b * z;
            let t = (2.0 * self.b * z / den).min(2.0);
            let rest = (2.0 * one_minus_z / den).min(2.0);
            // Wood's test κW + m ln(1 − x0 W) − c ≥ ln U with c = κx0 + m ln(1 − x0²), in terms of t:
            // κ(1 − x0 − t) + m[ln(1 + x0 t/(1 − x0)) − ln(1 + x0)].
            let log_ratio = kappa * (self.one_minus_x0 - t)
                + self.m * ((self.x0 * t / self.one_minus_x0).ln_1p() - self.ln_one_plus_x0);
            // ln U at full precision: the test keeps its relative accuracy however small the acceptance (§3f).
            if log_ratio >= ln_unit(rng) {
                return (t, rest);
            }
        }
    }
}

/// (Z, 1 − Z) for Z ~ Beta(½, ½), the arcsine law: Z = sin²(πV/2) for V uniform, by inversion, with V read near
/// whichever end a fair bit picks ([`quarter_turn`]): Z and 1 − Z are the squares of its sine and cosine, each
/// accurate to a few ulps of its own size, near 0 and near 1 (§3f, Lemma A).
#[inline]
fn arcsine<R: Rng + ?Sized>(rng: &mut R) -> (f64, f64) {
    let (s, c) = quarter_turn(rng);
    (s * s, c * c)
}

impl VmfNoise {
    /// VMF on S^{dim−1} ⊂ R^dim (dim ≥ 2) with concentration `kappa` (finite, > 0).
    pub fn new(dim: usize, kappa: f64) -> Fallible<Self> {
        let kappa = check_positive(Param::Concentration, kappa)?;
        let dim = crate::analysis::sphere_angle::check_dim(dim)?;
        let radial = if dim == 3 {
            Radial::TruncatedExp(TruncatedExp::new(kappa, 2.0)?)
        } else if let Some(table) = (dim >= 4 && kappa <= TABLE_MAX_KAPPA)
            .then(|| {
                let shape = Radial4 { a: 0.5 * (dim - 3) as f64, kappa };
                LogConcaveTable::new(&shape, shape.mode(), 2.0).map(|t| (shape, t))
            })
            .flatten()
        {
            Radial::Table(Box::new(table))
        } else {
            let m = (dim - 1) as f64;
            let b = m / ((4.0 * kappa * kappa + m * m).sqrt() + 2.0 * kappa);
            let x0 = (1.0 - b) / (1.0 + b);
            let beta = (dim > 2).then_some(dim - 1);
            Radial::Wood(Wood { m, b, x0, one_minus_x0: 2.0 * b / (1.0 + b), ln_one_plus_x0: x0.ln_1p(), beta })
        };
        Ok(VmfNoise { dim, kappa, radial })
    }

    /// A bound on the probability, per draw, of the noise-only events where the float bounds are not claimed
    /// (`docs/proofs/float_safety.md` §6): δ_LC for the strip table (n ≥ 4) and δ_N for the direction (n ≥ 4).
    pub fn negligible_event_probability(&self) -> f64 {
        let mut p = 0.0;
        if matches!(self.radial, Radial::Table(_)) {
            p = crate::numerics::rounding::add_up(p, crate::sample::log_concave::END_EVENT_PROBABILITY);
        }
        if self.dim >= 4 {
            p = crate::numerics::rounding::add_up(p, crate::sample::normal::DIRECTION_EVENT_PROBABILITY);
        }
        // Rounded up at each sum (exact for one term).
        p
    }

    /// The ambient dimension n.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The concentration κ.
    pub fn kappa(&self) -> f64 {
        self.kappa
    }

    /// A bound on |ln(â/a)| of the radial sampler's acceptance test at every proposal (§3f, Lemma R), for
    /// `Rounding::with_acceptance_error`: Wood's on the circle (`Wood::acceptance_error`), 0 on S² (inversion,
    /// no test), the strip table's for n ≥ 4.
    pub fn acceptance_error(&self) -> f64 {
        match &self.radial {
            Radial::Wood(w) => w.acceptance_error(self.kappa),
            Radial::Table(table) => table.1.acceptance_error(),
            Radial::TruncatedExp(_) => 0.0,
        }
    }

    /// One draw of t = 1 − μ·X ∈ [0, 2].
    #[inline(always)]
    pub fn sample_one_minus_cos<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.sample_t_pair(rng).0
    }

    /// One draw of (t, 2 − t), the second without cancellation where the law's own sampler gives it (n = 2, 3).
    #[inline(always)]
    fn sample_t_pair<R: Rng + ?Sized>(&self, rng: &mut R) -> (f64, f64) {
        match &self.radial {
            Radial::TruncatedExp(law) => law.sample_with_complement(rng),
            Radial::Table(table) => {
                // t and 2 − t, each accurate to a few ulps of itself (the table draws both, §3f).
                let d = table.1.sample(&table.0, rng);
                (d.x, d.rest)
            }
            Radial::Wood(w) => w.sample_t(self.kappa, rng),
        }
    }

    /// (cos θ, sin θ) = (1 − t, √(t(2 − t))) of one draw, with 1 − t taken as (2 − t) − 1 beyond t = 1.
    #[inline(always)]
    fn sample_cos_sin<R: Rng + ?Sized>(&self, rng: &mut R) -> (f64, f64) {
        let (t, rest) = self.sample_t_pair(rng);
        (if t <= 1.0 { 1.0 - t } else { rest - 1.0 }, (t * rest).sqrt())
    }

    /// A draw of VMF(μ, κ); `mu` must be a unit vector of length n.
    pub fn sample_around<R: Rng + ?Sized>(&self, mu: &DVector<f64>, rng: &mut R) -> DVector<f64> {
        let mut out = DVector::zeros(mu.len());
        self.sample_into(mu.as_slice(), out.as_mut_slice(), rng);
        out
    }

    /// A draw of VMF(μ, κ) written into `out` (same length n as the unit vector `mu`), without allocating.
    #[inline]
    pub fn sample_into<R: Rng + ?Sized>(&self, mu: &[f64], out: &mut [f64], rng: &mut R) {
        debug_assert_eq!(mu.len(), self.dim);
        if let (&[x, y, z], [o0, o1, o2]) = (mu, &mut *out) {
            // S²: point_at_angle_into's construction, with the direction drawn first (its arithmetic is the longer
            // chain, so it starts first and overlaps the radial draw).
            let dir = uniform_circle(rng);
            let (cos, sin) = self.sample_cos_sin(rng);
            let p = s2_point_at_angle([x, y, z], cos, sin, dir);
            (*o0, *o1, *o2) = (p[0], p[1], p[2]);
        } else {
            // W = 1 − t and √(1 − W²) = √(t(2 − t)).
            let (cos, sin) = self.sample_cos_sin(rng);
            point_at_angle_into(mu, cos, sin, out, rng);
        }
    }
}
