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
    let mut out = DVector::zeros(mu.len());
    point_at_angle_into(mu.as_slice(), cos, sin, out.as_mut_slice(), rng);
    out
}

/// [`point_at_angle`] written into `out` (same length as `mu`), without allocating.
pub fn point_at_angle_into<R: Rng + ?Sized>(mu: &[f64], cos: f64, sin: f64, out: &mut [f64], rng: &mut R) {
    debug_assert_eq!(mu.len(), out.len());
    loop {
        let (mut gg, mut gm) = (0.0, 0.0);
        for (o, &m) in out.iter_mut().zip(mu) {
            let g: f64 = rng.sample(StandardNormal);
            *o = g;
            gg += g * g;
            gm += g * m;
        }
        // v = g − (μ·g)μ; ‖v‖² = ‖g‖² − (μ·g)² (μ is a unit vector), recomputed below for accuracy.
        let mut vv = 0.0;
        for (o, &m) in out.iter_mut().zip(mu) {
            *o -= gm * m;
            vv += *o * *o;
        }
        // The projection vanishes with probability 0; redraw rather than divide by ~0.
        if vv > 1e-24 * gg {
            let scale = sin / vv.sqrt();
            let mut xx = 0.0;
            for (o, &m) in out.iter_mut().zip(mu) {
                *o = m * cos + *o * scale;
                xx += *o * *o;
            }
            let inv = 1.0 / xx.sqrt();
            out.iter_mut().for_each(|o| *o *= inv);
            return;
        }
    }
}
