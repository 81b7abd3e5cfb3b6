//! Rotations SO(3) as nalgebra [`UnitQuaternion`]s: validated construction from quaternions (both
//! component orders), rotation matrices and rotation vectors, and canonical output (w ≥ 0).
//!
//! # Tolerance policy
//!
//! Data on disk are rounded, so exact unit norm or orthonormality cannot be demanded. With the default
//! [`Tolerance`] (1e-4):
//! - a quaternion with |‖q‖ − 1| ≤ 1e-4 is renormalised; beyond that it is rejected with
//!   [`Error::NotUnit`] (a wrong column order or a non-rotation, not rounding);
//! - a matrix with max |RᵀR − I| ≤ 1e-4 and det > 0 is projected onto SO(3) (through its quaternion,
//!   renormalised); beyond that [`Error::NotOrthonormal`], and an orthonormal matrix with det < 0 gives
//!   [`Error::NotProperRotation`];
//! - non-finite components are always rejected ([`Error::NonFinite`]), naming the component.
//!
//! Six printed decimals leave a norm error of about 1e-6, float32 storage about 1e-7, so rounded but
//! genuine rotations pass, while swapped columns or unnormalised vectors do not.

use crate::error::{Error, Fallible};
use nalgebra::{Matrix3, Quaternion, Rotation3, UnitQuaternion, Vector3};

/// Default tolerance on |‖q‖ − 1| and on max |RᵀR − I| (see the module docs).
pub const DEFAULT_TOLERANCE: f64 = 1e-4;

/// How far from unit norm / orthonormality input may be before it is rejected rather than repaired.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Largest accepted |‖q‖ − 1| for quaternions.
    pub unit_norm: f64,
    /// Largest accepted max |RᵀR − I| (entrywise) for matrices; |det − 1| must also be within it.
    pub orthonormal: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance { unit_norm: DEFAULT_TOLERANCE, orthonormal: DEFAULT_TOLERANCE }
    }
}

pub(crate) fn check_finite(values: &[f64]) -> Fallible<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(component) => Err(Error::NonFinite { component, value: values[component] }),
        None => Ok(()),
    }
}

/// Returns the representative of `q` with w ≥ 0 (q and −q are the same rotation). Ties at w = 0 are
/// broken like scipy's `Rotation.as_quat(canonical=True)`: the first non-zero of x, y, z is positive.
pub fn canonical(q: &UnitQuaternion<f64>) -> UnitQuaternion<f64> {
    let c = q.quaternion();
    let key = [c.w, c.i, c.j, c.k];
    let first_nonzero = key.iter().copied().find(|v| *v != 0.0).unwrap_or(1.0);
    if first_nonzero < 0.0 { UnitQuaternion::new_unchecked(-*c) } else { *q }
}

/// Builds a rotation from a quaternion given scalar-first, `[w, x, y, z]`.
pub fn from_quat_wxyz(c: [f64; 4], tol: &Tolerance) -> Fallible<UnitQuaternion<f64>> {
    check_finite(&c)?;
    let q = Quaternion::new(c[0], c[1], c[2], c[3]);
    let norm = q.norm();
    // A zero quaternion is never a rotation, whatever tolerance the caller chose.
    if norm == 0.0 || (norm - 1.0).abs() > tol.unit_norm {
        return Err(Error::NotUnit { norm, tolerance: tol.unit_norm });
    }
    Ok(UnitQuaternion::new_unchecked(q / norm))
}

/// Builds a rotation from a quaternion given scalar-last, `[x, y, z, w]` (scipy's default order).
pub fn from_quat_xyzw(c: [f64; 4], tol: &Tolerance) -> Fallible<UnitQuaternion<f64>> {
    // Checked here so that a non-finite component is reported at its index in the caller's order.
    check_finite(&c)?;
    from_quat_wxyz([c[3], c[0], c[1], c[2]], tol)
}

/// `[w, x, y, z]` of the canonical representative (w ≥ 0).
pub fn to_quat_wxyz(q: &UnitQuaternion<f64>) -> [f64; 4] {
    let c = canonical(q);
    [c.w, c.i, c.j, c.k]
}

/// `[x, y, z, w]` of the canonical representative (w ≥ 0).
pub fn to_quat_xyzw(q: &UnitQuaternion<f64>) -> [f64; 4] {
    let [w, x, y, z] = to_quat_wxyz(q);
    [x, y, z, w]
}

/// Builds a rotation from a 3×3 matrix given row-major, `[r11, r12, r13, r21, …, r33]`, validated per the
/// module's tolerance policy.
pub fn from_matrix_row_major(m: [f64; 9], tol: &Tolerance) -> Fallible<UnitQuaternion<f64>> {
    check_finite(&m)?;
    let r = Matrix3::from_row_slice(&m);
    let deviation = (r.transpose() * r - Matrix3::identity()).abs().max();
    let det = r.determinant();
    if deviation > tol.orthonormal {
        return Err(Error::NotOrthonormal { deviation, tolerance: tol.orthonormal });
    }
    if det < 0.0 {
        return Err(Error::NotProperRotation { det });
    }
    if (det - 1.0).abs() > tol.orthonormal {
        return Err(Error::NotOrthonormal { deviation: (det - 1.0).abs(), tolerance: tol.orthonormal });
    }
    let q = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(r));
    Ok(UnitQuaternion::new_normalize(q.into_inner()))
}

/// The rotation matrix, row-major.
pub fn to_matrix_row_major(q: &UnitQuaternion<f64>) -> [f64; 9] {
    let m = q.to_rotation_matrix().into_inner();
    [m[(0, 0)], m[(0, 1)], m[(0, 2)], m[(1, 0)], m[(1, 1)], m[(1, 2)], m[(2, 0)], m[(2, 1)], m[(2, 2)]]
}

/// Builds a rotation from a rotation vector (axis × angle in radians). Any finite vector is a rotation;
/// angles beyond π wrap around.
pub fn from_rotvec(v: [f64; 3]) -> Fallible<UnitQuaternion<f64>> {
    check_finite(&v)?;
    let v = Vector3::from(v);
    let angle = v.norm();
    let half = 0.5 * angle;
    // sin(half)/angle → 1/2 as angle → 0; the series avoids 0/0.
    let scale = if angle < 1e-4 { 0.5 - angle * angle / 48.0 } else { half.sin() / angle };
    let q = Quaternion::from_parts(half.cos(), v * scale);
    Ok(UnitQuaternion::new_normalize(q))
}

/// The rotation vector of the canonical representative: angle in [0, π] times the unit axis (scipy's
/// `as_rotvec`).
pub fn to_rotvec(q: &UnitQuaternion<f64>) -> [f64; 3] {
    let c = canonical(q);
    let v = c.imag();
    let s = v.norm();
    // angle = 2·atan2(‖v‖, w) is accurate at every angle, unlike 2·acos(w) near 0.
    let angle = 2.0 * s.atan2(c.w);
    let scale = if s < 1e-8 { 2.0 / c.w } else { angle / s };
    (v * scale).into()
}

/// Convenience: the rotation angle of `q` in [0, π], computed stably.
pub fn rotation_angle(q: &UnitQuaternion<f64>) -> f64 {
    2.0 * q.imag().norm().atan2(q.w.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_policy() {
        let tol = Tolerance::default();
        let q = from_quat_wxyz([1.00005, 0.0, 0.0, 0.0], &tol).unwrap();
        assert!((q.quaternion().norm() - 1.0).abs() < 1e-15);
        assert!(matches!(from_quat_wxyz([1.001, 0.0, 0.0, 0.0], &tol), Err(Error::NotUnit { .. })));
        assert!(matches!(from_quat_wxyz([0.0; 4], &tol), Err(Error::NotUnit { .. })));
        let lax = Tolerance { unit_norm: 2.0, ..tol };
        assert!(matches!(from_quat_wxyz([0.0; 4], &lax), Err(Error::NotUnit { .. })));
        assert!(matches!(from_quat_xyzw([0.0, f64::NAN, 0.0, 1.0], &tol), Err(Error::NonFinite { component: 1, .. })));
        let reflect = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0];
        assert!(matches!(from_matrix_row_major(reflect, &tol), Err(Error::NotProperRotation { .. })));
        let skewed = [1.0, 0.01, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        assert!(matches!(from_matrix_row_major(skewed, &tol), Err(Error::NotOrthonormal { .. })));
        let nearly = [1.0, 1e-5, 0.0, -1e-5, 1.0, 0.0, 0.0, 0.0, 1.0];
        assert!(from_matrix_row_major(nearly, &tol).is_ok());
        assert!(matches!(from_rotvec([0.0, f64::INFINITY, 0.0]), Err(Error::NonFinite { component: 1, .. })));
    }

    #[test]
    fn canonical_sign() {
        let q = from_quat_wxyz([-0.5, 0.5, -0.5, 0.5], &Tolerance::default()).unwrap();
        assert_eq!(to_quat_wxyz(&q), [0.5, -0.5, 0.5, -0.5]);
        let half_turn = from_quat_wxyz([0.0, -1.0, 0.0, 0.0], &Tolerance::default()).unwrap();
        assert_eq!(to_quat_wxyz(&half_turn), [0.0, 1.0, 0.0, 0.0]);
    }

    #[test]
    fn rotvec_of_half_turn_and_identity() {
        let q = from_rotvec([std::f64::consts::PI, 0.0, 0.0]).unwrap();
        let v = to_rotvec(&q);
        assert!((v[0] - std::f64::consts::PI).abs() < 1e-12 && v[1].abs() < 1e-12);
        assert_eq!(to_rotvec(&UnitQuaternion::identity()), [0.0, 0.0, 0.0]);
        let tiny = from_rotvec([1e-12, 0.0, 0.0]).unwrap();
        assert!((to_rotvec(&tiny)[0] - 1e-12).abs() < 1e-27);
    }
}
