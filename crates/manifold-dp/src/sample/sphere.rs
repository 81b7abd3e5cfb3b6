//! Uniform points on S² (random axes) and S³ (Haar-random rotations), by Marsaglia's (1972) methods:
//! a few uniforms and one square root, no trigonometry; and points of S^{n−1} at a given angle from a centre
//! in a uniformly random direction, for the rotationally symmetric laws on spheres.

use nalgebra::{DVector, Quaternion, UnitQuaternion, Vector3};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;

/// A uniform unit vector on S².
#[inline]
pub fn uniform_s2<R: Rng + ?Sized>(rng: &mut R) -> Vector3<f64> {
    loop {
        let u = 2.0 * rng.random::<f64>() - 1.0;
        let v = 2.0 * rng.random::<f64>() - 1.0;
        let s = u * u + v * v;
        if s < 1.0 {
            let r = 2.0 * (1.0 - s).sqrt();
            return Vector3::new(u * r, v * r, 1.0 - 2.0 * s);
        }
    }
}

#[inline]
fn point_in_unit_disk<R: Rng + ?Sized>(rng: &mut R) -> (f64, f64, f64) {
    loop {
        let u = 2.0 * rng.random::<f64>() - 1.0;
        let v = 2.0 * rng.random::<f64>() - 1.0;
        let s = u * u + v * v;
        if s < 1.0 && s > 0.0 {
            return (u, v, s);
        }
    }
}

/// A uniform unit quaternion on S³, i.e. a Haar-distributed rotation.
#[inline]
pub fn uniform_s3<R: Rng + ?Sized>(rng: &mut R) -> UnitQuaternion<f64> {
    let (x1, x2, s1) = point_in_unit_disk(rng);
    let (x3, x4, s2) = point_in_unit_disk(rng);
    let f = ((1.0 - s1) / s2).sqrt();
    UnitQuaternion::new_unchecked(Quaternion::new(x1, x2, x3 * f, x4 * f))
}

/// The point cos θ·μ + sin θ·v of S^{n−1}, with v uniform on the unit sphere orthogonal to the unit vector `mu`:
/// a standard Gaussian vector projected orthogonally to μ and normalised. O(n), no n×n matrix, no special case
/// near ±e₁.
pub fn point_at_angle<R: Rng + ?Sized>(mu: &DVector<f64>, cos: f64, sin: f64, rng: &mut R) -> DVector<f64> {
    let tangent = loop {
        let g = DVector::<f64>::from_fn(mu.len(), |_, _| rng.sample(StandardNormal));
        let v = &g - mu * mu.dot(&g);
        let norm = v.norm();
        // The projection vanishes with probability 0; redraw rather than divide by ~0.
        if norm > 1e-12 * g.norm() {
            break v / norm;
        }
    };
    let x = mu * cos + tangent * sin;
    let n = x.norm();
    x / n
}
