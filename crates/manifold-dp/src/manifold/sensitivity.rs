//! Global sensitivity of the Fréchet mean (Reimherr, Bharath & Soto, Theorem 2; docs/math.md §3).
//!
//! Data sets of n points in an open ball B_r(m0) with r < r* = ½·min{inj M, π/(2√κ)} (κ an upper bound on the
//! sectional curvatures; the second term is absent when κ ≤ 0) have unique Fréchet means, and replacing one
//! point moves the mean by at most
//!
//! Δ = 2r(2 − h)/(n·h),  h = 2r√κ·cot(2r√κ) for κ > 0,  h = 1 for κ ≤ 0.
//!
//! S^d: κ = 1, inj = π, r* = π/4. SO(3) (angle metric): κ = 1/4, inj = π, r* = π/2. SPD(k): κ ≤ 0, r* = ∞,
//! Δ = 2r/n. Proof and the numerical-tolerance term in `docs/proofs/frechet_mean_sensitivity.md`.

use super::Manifold;
use crate::Fallible;
use crate::error::Param;
use crate::error::{Error, check_positive};
use std::f64::consts::PI;

/// r* = ½·min{inj M, π/(2√κ)}: the largest radius Theorem 2 allows (exclusive).
pub fn max_radius<M: Manifold + ?Sized>(m: &M) -> f64 {
    let kappa = m.curvature_bound();
    let curvature_limit = if kappa > 0.0 { PI / (2.0 * kappa.sqrt()) } else { f64::INFINITY };
    0.5 * m.injectivity_radius().min(curvature_limit)
}

/// h(r, κ) = 2r√κ·cot(2r√κ) for κ > 0 (in (0, 1] when r < r*), 1 for κ ≤ 0: the lower bound on the
/// Fréchet function's second derivative along geodesics in B_r(m0).
pub fn h_factor(radius: f64, kappa: f64) -> f64 {
    if kappa > 0.0 {
        let a = 2.0 * radius * kappa.sqrt();
        if a < 1e-4 { 1.0 - a * a / 3.0 } else { a / a.tan() }
    } else {
        1.0
    }
}

/// Checks that `radius` is finite, > 0 and below r* of `m`.
pub fn check_radius<M: Manifold + ?Sized>(m: &M, radius: f64) -> Fallible<f64> {
    let radius = check_positive(Param::Radius, radius)?;
    if radius >= max_radius(m) {
        return Err(Error::InvalidParameter {
            name: Param::Radius,
            value: radius,
            reason: "must be below r* = ½·min{injectivity radius, π/(2√κ)} (π/4 on spheres, π/2 on SO(3)), where \
                     the Fréchet mean is unique and its sensitivity bounded",
        });
    }
    Ok(radius)
}

/// Δ = 2r(2 − h)/(n·h) for n points within `radius` of a centre on `m` (Theorem 2).
pub fn frechet_sensitivity<M: Manifold + ?Sized>(m: &M, radius: f64, n: usize) -> Fallible<f64> {
    let radius = check_radius(m, radius)?;
    if n == 0 {
        return Err(Error::InvalidParameter { name: Param::N, value: 0.0, reason: "a mean needs at least one point" });
    }
    let h = h_factor(radius, m.curvature_bound());
    Ok(2.0 * radius * (2.0 - h) / (n as f64 * h))
}

/// The empirical spread max_{i,j} ‖log_{x₀}(x_i) − log_{x₀}(x_j)‖ over points x_i (x₀ = the first), the
/// quantity Theorem 2 bounds by 2r(2 − h) when the points fill the boundary of B_r(m0). Reimherr et al.
/// (Appendix B.1) calibrate their sphere simulations with it instead of the bound. It is **not** a proven
/// bound (a grid can miss the worst configuration); `reproduce riemannian-mean` reports it beside the bound.
pub fn empirical_log_spread<M: Manifold + ?Sized>(m: &M, points: &[M::Point]) -> f64 {
    let Some(base) = points.first() else { return 0.0 };
    let logs: Vec<_> = points.iter().map(|x| m.log(base, x)).collect();
    let mut worst: f64 = 0.0;
    for (i, a) in logs.iter().enumerate() {
        for b in &logs[i + 1..] {
            worst = worst.max((a - b).norm());
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifold::{So3, SpdAffine, Sphere};

    #[test]
    fn radii_and_bounds_per_manifold() {
        assert!((max_radius(&Sphere::new(3).unwrap()) - PI / 4.0).abs() < 1e-15);
        assert!((max_radius(&So3) - PI / 2.0).abs() < 1e-15);
        assert!(max_radius(&SpdAffine::new(2).unwrap()).is_infinite());
        // S², r = π/8: h = (π/4)·cot(π/4) = π/4.
        let d = frechet_sensitivity(&Sphere::new(3).unwrap(), PI / 8.0, 10).unwrap();
        let h = PI / 4.0;
        assert!((d - 2.0 * PI / 8.0 * (2.0 - h) / (10.0 * h)).abs() < 1e-15);
        assert_eq!(frechet_sensitivity(&SpdAffine::new(2).unwrap(), 1.5, 30).unwrap(), 0.1);
        assert!(frechet_sensitivity(&Sphere::new(3).unwrap(), PI / 4.0, 10).is_err());
        assert!(frechet_sensitivity(&So3, 0.0, 10).is_err());
        assert!(frechet_sensitivity(&So3, 1.0, 0).is_err());
        // The series branch agrees with the cotangent.
        assert!((h_factor(0.5e-4, 1.0) - (1e-4 / 1e-4f64.tan())).abs() < 1e-15);
    }
}
