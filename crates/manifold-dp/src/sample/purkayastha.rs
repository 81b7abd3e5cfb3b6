//! Exact sampler of the Purkayastha distribution on S^{n−1}: density ∝ exp(−κ d∠(μ, x)) (docs/math.md §2). Its
//! angle θ = d∠(μ, X) has density ∝ e^{h(θ)}, h(θ) = k ln sin θ − κθ, k = n − 2, on [0, π]; the direction
//! orthogonal to μ is uniform.
//!
//! - k = 0 (the circle): θ is exponential truncated to [0, π], drawn by inversion.
//! - k ≥ 1: h is concave (h'' = −k/sin²θ), so the density is log-concave with mode m = atan(k/κ). Exact
//!   rejection from a three-piece envelope: the constant e^{h(m)} on [a, b], where h(a) = h(b) = h(m) − 1, and
//!   the tangent lines of h at a and b (which lie above a concave h) on [0, a] and [b, π]. Each piece is
//!   sampled by inversion; a proposal θ is accepted with probability e^{h(θ) − envelope(θ)}.

use crate::error::Fallible;
use crate::sample::sphere::point_at_angle_into;
use nalgebra::DVector;
use rand::{Rng, RngExt};
use std::f64::consts::PI;

/// The three-piece envelope of e^{h − h(m)} for k ≥ 1.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Envelope {
    a: f64,
    b: f64,
    /// h'(a) > 0 and h'(b) < 0.
    slope_a: f64,
    slope_b: f64,
    /// h(a) − h(m) and h(b) − h(m) (both −1 up to rounding).
    ha: f64,
    hb: f64,
    /// Masses of the left, middle and right pieces (relative to e^{h(m)}), and their sum.
    left: f64,
    middle: f64,
    right: f64,
    total: f64,
    h_mode: f64,
}

/// The Purkayastha distribution's angle on S^{dim−1}, and whole points around a centre.
#[derive(Debug, Clone, PartialEq)]
pub struct PurkayasthaNoise {
    dim: usize,
    kappa: f64,
    envelope: Option<Envelope>,
}

impl PurkayasthaNoise {
    /// Purkayastha on S^{dim−1} (dim ≥ 2) with concentration `kappa` (finite, > 0).
    pub fn new(dim: usize, kappa: f64) -> Fallible<Self> {
        let kappa = crate::error::check_concentration(kappa, 1e6, "must be at most 1e6, where the sampler is tested")?;
        let dim = crate::space::sphere::check_dim(dim)?;
        let envelope = (dim > 2).then(|| Envelope::new((dim - 2) as f64, kappa));
        Ok(PurkayasthaNoise { dim, kappa, envelope })
    }

    /// The concentration κ.
    pub fn kappa(&self) -> f64 {
        self.kappa
    }

    /// One draw of the angle θ ∈ [0, π].
    pub fn sample_angle<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.sample_angle_and_sin(rng).0
    }

    /// One draw of θ, with sin θ (which the rejection test computes anyway).
    #[inline]
    fn sample_angle_and_sin<R: Rng + ?Sized>(&self, rng: &mut R) -> (f64, f64) {
        let Some(e) = self.envelope else {
            // Inverse CDF of e^{−κθ} on [0, π]; u < 1 keeps the logarithm finite.
            let u: f64 = rng.random();
            let theta = (-(u * (-self.kappa * PI).exp_m1()).ln_1p() / self.kappa).min(PI);
            return (theta, theta.sin());
        };
        let k = (self.dim - 2) as f64;
        loop {
            let pick = rng.random::<f64>() * e.total;
            let v: f64 = rng.random();
            let (theta, log_envelope) = if pick < e.left {
                // Density ∝ e^{s(θ − a)} on [0, a].
                let t = e.a + (v * (-e.slope_a * e.a).exp_m1()).ln_1p() / e.slope_a;
                (t, e.ha + e.slope_a * (t - e.a))
            } else if pick < e.left + e.middle {
                (e.a + v * (e.b - e.a), 0.0)
            } else {
                // Density ∝ e^{s(θ − b)} on [b, π], s < 0.
                let t = e.b + (v * (e.slope_b * (PI - e.b)).exp_m1()).ln_1p() / e.slope_b;
                (t, e.hb + e.slope_b * (t - e.b))
            };
            if !(theta > 0.0 && theta < PI) {
                continue; // an endpoint, where the density is 0
            }
            let sin = theta.sin();
            let log_target = k * sin.ln() - self.kappa * theta - e.h_mode;
            let u = 1.0 - rng.random::<f64>();
            if u.ln() <= log_target - log_envelope {
                return (theta, sin);
            }
        }
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
        let (theta, sin) = self.sample_angle_and_sin(rng);
        point_at_angle_into(mu, theta.cos(), sin, out, rng);
    }

    /// The ambient dimension n.
    pub fn dim(&self) -> usize {
        self.dim
    }
}

impl Envelope {
    fn new(k: f64, kappa: f64) -> Self {
        let h = |t: f64| k * t.sin().ln() - kappa * t;
        let dh = |t: f64| k / t.tan() - kappa;
        let mode = k.atan2(kappa);
        let h_mode = h(mode);
        // h increases on (0, m) and decreases on (m, π), from and to −∞: bisect h = h(m) − 1 on each side.
        let solve = |mut lo: f64, mut hi: f64, increasing: bool| {
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if mid <= lo || mid >= hi {
                    break;
                }
                let above = h(mid) > h_mode - 1.0;
                if above == increasing { hi = mid } else { lo = mid }
            }
            0.5 * (lo + hi)
        };
        let a = solve(0.0, mode, true);
        let b = solve(mode, PI, false);
        let (slope_a, slope_b) = (dh(a), dh(b));
        // The tangent lines use the computed h(a), h(b), so they lie above h whatever the bisection's rounding.
        let (ha, hb) = (h(a) - h_mode, h(b) - h_mode);
        let left = ha.exp() * -(-slope_a * a).exp_m1() / slope_a;
        let right = hb.exp() * -(slope_b * (PI - b)).exp_m1() / -slope_b;
        let middle = b - a;
        Envelope { a, b, slope_a, slope_b, ha, hb, left, middle, right, total: left + middle + right, h_mode }
    }
}
