//! The rotation metrics φ2…φ6 of Huynh (2009), in quaternion and matrix form. All are functions of the
//! rotation angle θ ∈ [0, π] between the two rotations (`../../docs/proofs/so3_metrics.md`):
//!
//! | metric | formula | as a function of θ |
//! |---|---|---|
//! | φ2 | min ‖q1 ∓ q2‖ | 2 sin(θ/4) |
//! | φ3 | arccos |q1·q2| | θ/2 |
//! | φ4 | 1 − |q1·q2| | 1 − cos(θ/2) |
//! | φ5 | ‖I − R1 R2ᵀ‖_F | 2√2 sin(θ/2) |
//! | φ6 | ‖log(R1 R2ᵀ)‖ | θ (the geodesic distance) |
//!
//! The project's ε is always per radian of φ6.

use nalgebra::{Matrix3, UnitQuaternion};

/// The geodesic angle θ(q1, q2) ∈ [0, π], computed stably as 4·atan2(‖q1 − s·q2‖, ‖q1 + s·q2‖) with
/// s = sign(q1·q2); `2·acos|q1·q2|` loses half the digits near 0.
pub fn geodesic(q1: &UnitQuaternion<f64>, q2: &UnitQuaternion<f64>) -> f64 {
    let (a, b) = (q1.quaternion(), q2.quaternion());
    let s = if a.dot(b) < 0.0 { -1.0 } else { 1.0 };
    4.0 * (a - b * s).norm().atan2((a + b * s).norm())
}

/// φ2 = min(‖q1 − q2‖, ‖q1 + q2‖) = 2 sin(θ/4).
pub fn phi2(q1: &UnitQuaternion<f64>, q2: &UnitQuaternion<f64>) -> f64 {
    let (a, b) = (q1.quaternion(), q2.quaternion());
    (a - b).norm().min((a + b).norm())
}

/// φ3 = arccos|q1·q2| = θ/2 (evaluated stably through [`geodesic`]).
pub fn phi3(q1: &UnitQuaternion<f64>, q2: &UnitQuaternion<f64>) -> f64 {
    0.5 * geodesic(q1, q2)
}

/// φ4 = 1 − |q1·q2| = 1 − cos(θ/2) = 2 sin²(θ/4) (the last form has no cancellation).
pub fn phi4(q1: &UnitQuaternion<f64>, q2: &UnitQuaternion<f64>) -> f64 {
    let s = (0.25 * geodesic(q1, q2)).sin();
    2.0 * s * s
}

/// φ5 = ‖I − R1 R2ᵀ‖_F = 2√2 sin(θ/2), from quaternions.
pub fn phi5(q1: &UnitQuaternion<f64>, q2: &UnitQuaternion<f64>) -> f64 {
    2.0 * std::f64::consts::SQRT_2 * (0.5 * geodesic(q1, q2)).sin()
}

/// φ6 = θ, the geodesic distance (alias of [`geodesic`]).
pub fn phi6(q1: &UnitQuaternion<f64>, q2: &UnitQuaternion<f64>) -> f64 {
    geodesic(q1, q2)
}

/// φ5 in matrix form: the Frobenius norm of I − R1 R2ᵀ.
pub fn phi5_matrix(r1: &Matrix3<f64>, r2: &Matrix3<f64>) -> f64 {
    (Matrix3::identity() - r1 * r2.transpose()).norm()
}

/// φ6 in matrix form: the angle of R = R1 R2ᵀ, atan2(sin θ, cos θ) with sin θ = ‖vee(R − Rᵀ)‖/2 and
/// cos θ = (tr R − 1)/2 (equal to ‖log R‖_F/√2).
pub fn phi6_matrix(r1: &Matrix3<f64>, r2: &Matrix3<f64>) -> f64 {
    let r = r1 * r2.transpose();
    let v = nalgebra::Vector3::new(r[(2, 1)] - r[(1, 2)], r[(0, 2)] - r[(2, 0)], r[(1, 0)] - r[(0, 1)]);
    (0.5 * v.norm()).atan2(0.5 * (r.trace() - 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geodesic_is_accurate_for_tiny_angles() {
        let q = UnitQuaternion::from_scaled_axis(nalgebra::Vector3::new(1e-9, 0.0, 0.0));
        let d = geodesic(&UnitQuaternion::identity(), &q);
        assert!((d - 1e-9).abs() < 1e-22, "{d}");
        // q and −q are the same rotation.
        let neg = UnitQuaternion::new_unchecked(-q.into_inner());
        assert!((geodesic(&q, &neg)).abs() < 1e-15);
    }
}
