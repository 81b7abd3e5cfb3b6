//! Exact sampler of the von Mises–Fisher distribution VMF(μ, κ) on S^{n−1}, n ≥ 2: density ∝ exp(κ μ·x)
//! (docs/math.md §2). The component along μ, W = μ·X, has density ∝ e^{κw}(1 − w²)^{(n−3)/2} on [−1, 1]; the
//! direction orthogonal to μ is uniform. Everything is computed in terms of t = 1 − W, which keeps full
//! relative accuracy when κ is large and X is close to μ.
//!
//! - n = 3: t = 1 − W has density ∝ e^{−κt} on [0, 2], an exponential truncated at 2. For κ ≥ 1/2, t = (E mod
//!   2κ)/κ with E ~ Exp(1) (ziggurat, one 64-bit word per try), which is exactly that law (memorylessness); E is
//!   redrawn when E ≥ 4κ (probability e^{−4κ} ≤ 0.14), so that the reduction is one exact subtraction. For
//!   κ < 1/2, Jakob's inversion t = −ln(1 + (1 − U)(e^{−2κ} − 1))/κ, constants precomputed. Both exact, and
//!   both compute t without cancellation near t = 0.
//! - n ≥ 4 (κ ≤ 1e100): t has density ∝ e^{−κt}(t(2 − t))^{(n−3)/2} on [0, 2], log-concave with mode
//!   t* = (n − 3)/(κ + (n − 3)/2 + √(κ² + ((n − 3)/2)²)) (cancellation-free): exact rejection from the strip
//!   table of [`crate::sample::log_concave`], about two 64-bit words per draw and no logarithm on the hot path.
//! - n = 2, and n ≥ 4 beyond κ = 1e100 (where the strips would approach the smallest normal floats): Wood's
//!   (1994) rejection sampler with the cancellation-free b = m/(√(4κ² + m²) + 2κ), m = n − 1,
//!   t = 2bZ/(1 − (1 − b)Z) with Z ~ Beta(m/2, m/2), and the acceptance test rewritten in t (below), so it
//!   stays exact for κ up to 1e10 (scipy's form loses the test to cancellation there).
//! - Tangent direction ([`point_at_angle_into`]): for n ≥ 4, n − 1 normalised Gaussians carried onto μ^⊥ by a
//!   Householder reflection whose sign keeps it well-conditioned everywhere (O(n), no n×n matrix); on S², a
//!   uniform point of the circle from one 64-bit word in a branch-free orthonormal basis of the plane ⊥ μ; on
//!   the circle, a Gaussian projected orthogonally to μ.

use crate::error::{Error, Fallible, check_positive};
use crate::sample::log_concave::{LogConcave, LogConcaveTable};
use crate::sample::sphere::{point_at_angle_into, s2_point_at_angle, uniform_circle};
use nalgebra::DVector;
use rand::Rng;
use rand::RngExt;
use rand_distr::{Beta, Distribution, Exp1};

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
    /// n = 3, κ ≥ 1/2: t = (E mod 2κ)/κ, E ~ Exp(1) conditioned on E < 4κ.
    TruncatedExp { two_kappa: f64, inv_kappa: f64 },
    /// n = 3, κ < 1/2: inversion, t = −ln(1 + v(e^{−2κ} − 1))/κ with v ~ U(0, 1].
    Inversion { expm1_minus_two_kappa: f64, inv_kappa: f64 },
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
    fn ln_density(&self, t: f64) -> f64 {
        self.a * (t * (2.0 - t)).ln() - self.kappa * t
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
    beta: Beta<f64>,
}

impl Wood {
    /// One draw of t (kept out of line: the S² samplers above are inlined into their callers).
    #[inline(never)]
    fn sample_t<R: Rng + ?Sized>(&self, kappa: f64, rng: &mut R) -> f64 {
        loop {
            let z: f64 = self.beta.sample(rng);
            let t = 2.0 * self.b * z / (1.0 - (1.0 - self.b) * z);
            // Wood's test κW + m ln(1 − x0 W) − c ≥ ln U with c = κx0 + m ln(1 − x0²), in terms of t:
            // κ(1 − x0 − t) + m[ln(1 + x0 t/(1 − x0)) − ln(1 + x0)].
            let log_ratio = kappa * (self.one_minus_x0 - t)
                + self.m * ((self.x0 * t / self.one_minus_x0).ln_1p() - self.ln_one_plus_x0);
            let u = 1.0 - rng.random::<f64>();
            if log_ratio >= u.ln() {
                return t.clamp(0.0, 2.0);
            }
        }
    }
}

impl VmfNoise {
    /// VMF on S^{dim−1} ⊂ R^dim (dim ≥ 2) with concentration `kappa` (finite, > 0).
    pub fn new(dim: usize, kappa: f64) -> Fallible<Self> {
        let kappa = check_positive("concentration", kappa)?;
        let dim = crate::space::sphere::check_dim(dim)?;
        let radial = if dim == 3 {
            if kappa >= 0.5 {
                Radial::TruncatedExp { two_kappa: 2.0 * kappa, inv_kappa: 1.0 / kappa }
            } else {
                Radial::Inversion { expm1_minus_two_kappa: (-2.0 * kappa).exp_m1(), inv_kappa: 1.0 / kappa }
            }
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
            let beta = Beta::new(0.5 * m, 0.5 * m).map_err(|_| Error::InvalidParameter {
                name: "dimension",
                value: dim as f64,
                reason: "too large",
            })?;
            Radial::Wood(Wood { m, b, x0, one_minus_x0: 2.0 * b / (1.0 + b), ln_one_plus_x0: x0.ln_1p(), beta })
        };
        Ok(VmfNoise { dim, kappa, radial })
    }

    /// The ambient dimension n.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The concentration κ.
    pub fn kappa(&self) -> f64 {
        self.kappa
    }

    /// One draw of t = 1 − μ·X ∈ [0, 2].
    #[inline(always)]
    pub fn sample_one_minus_cos<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match &self.radial {
            &Radial::TruncatedExp { two_kappa, inv_kappa } => loop {
                // E mod 2κ is Exp(1) truncated to [0, 2κ) (memorylessness); it is taken for E < 4κ, where
                // E − 2κ is exact (Sterbenz), without a branch. E ≥ 4κ (probability e^{−4κ}) is redrawn.
                let e: f64 = Exp1.sample(rng);
                let e = e - two_kappa * f64::from(u8::from(e >= two_kappa));
                if e < two_kappa {
                    return (e * inv_kappa).min(2.0);
                }
            },
            &Radial::Inversion { expm1_minus_two_kappa, inv_kappa } => {
                // Inverse CDF of W (density ∝ e^{κw} on [−1, 1]); 1 − U ∈ (0, 1] keeps the logarithm finite.
                let v = 1.0 - rng.random::<f64>();
                (-(v * expm1_minus_two_kappa).ln_1p() * inv_kappa).clamp(0.0, 2.0)
            }
            Radial::Table(table) => table.1.sample(&table.0, rng).x.clamp(0.0, 2.0),
            Radial::Wood(w) => w.sample_t(self.kappa, rng),
        }
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
            let t = self.sample_one_minus_cos(rng);
            let p = s2_point_at_angle([x, y, z], 1.0 - t, (t * (2.0 - t)).sqrt(), dir);
            (*o0, *o1, *o2) = (p[0], p[1], p[2]);
        } else {
            let t = self.sample_one_minus_cos(rng);
            // W = 1 − t and √(1 − W²) = √(t(2 − t)).
            point_at_angle_into(mu, 1.0 - t, (t * (2.0 - t)).sqrt(), out, rng);
        }
    }
}
