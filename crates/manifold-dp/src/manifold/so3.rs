//! SO(3) with the geodesic (rotation-angle) metric θ: isometric to RP³ of radius 2, so sectional curvature
//! 1/4 and injectivity radius π; Theorem 2 needs data within r < r* = π/2 (docs/math.md §3).

use super::Manifold;
use crate::space::metric::Metric;
use crate::space::so3::to_rotvec;
use crate::space::so3_metric::geodesic;
use nalgebra::{DVector, UnitQuaternion, Vector3};

/// The rotation group; points are unit quaternions (q and −q are the same rotation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct So3;

impl Manifold for So3 {
    type Point = UnitQuaternion<f64>;

    fn describe(&self) -> String {
        "SO(3) (rotation angle metric)".into()
    }

    fn dimension(&self) -> usize {
        3
    }

    fn distance(&self, a: &UnitQuaternion<f64>, b: &UnitQuaternion<f64>) -> f64 {
        geodesic(a, b)
    }

    fn metric(&self) -> Metric {
        Metric::So3Geodesic
    }

    /// The body rotation vector of q⁻¹x (angle in [0, π] times the axis): its norm is θ(q, x).
    fn log(&self, q: &UnitQuaternion<f64>, x: &UnitQuaternion<f64>) -> DVector<f64> {
        DVector::from_column_slice(&to_rotvec(&(q.inverse() * x)))
    }

    /// q·exp(v) for a body rotation vector v.
    fn exp(&self, q: &UnitQuaternion<f64>, v: &DVector<f64>) -> UnitQuaternion<f64> {
        q * UnitQuaternion::from_scaled_axis(Vector3::new(v[0], v[1], v[2]))
    }

    /// [`So3::log`] summed into one fixed-size vector ([`crate::manifold::fixed`]), q⁻¹ computed once.
    fn sum_log(&self, q: &UnitQuaternion<f64>, xs: &[UnitQuaternion<f64>]) -> DVector<f64> {
        DVector::from_column_slice(crate::manifold::fixed::so3_sum_log(q, xs).as_slice())
    }

    /// Quaternions (w, x, y, z) summed with the sign that puts each in `near`'s hemisphere (q and −q are
    /// the same rotation).
    fn extrinsic_sum(&self, xs: &[UnitQuaternion<f64>], near: &UnitQuaternion<f64>) -> Option<DVector<f64>> {
        let near = near.quaternion();
        let sum = xs.iter().fold(nalgebra::Vector4::zeros(), |acc, x| {
            let q = x.quaternion();
            if q.dot(near) < 0.0 { acc - q.coords } else { acc + q.coords }
        });
        Some(DVector::from_column_slice(&[sum[3], sum[0], sum[1], sum[2]]))
    }

    fn extrinsic_mean(&self, sum: &DVector<f64>, _n: usize) -> Option<UnitQuaternion<f64>> {
        let q = nalgebra::Quaternion::new(*sum.get(0)?, *sum.get(1)?, *sum.get(2)?, *sum.get(3)?);
        let norm = q.norm();
        (norm > 0.0 && norm.is_finite() && sum.len() == 4).then(|| UnitQuaternion::new_normalize(q))
    }

    /// Σ P_v + c(θ)·(I − P_v) with v = log_q x, θ = ‖v‖ and c = (θ/2)·cot(θ/2) ([`super::newton`]).
    fn hessian_sum(&self, q: &UnitQuaternion<f64>, xs: &[UnitQuaternion<f64>]) -> Option<nalgebra::DMatrix<f64>> {
        let inverse = q.inverse();
        let logs = xs.iter().map(|x| to_rotvec(&(inverse * x)));
        // c = (θ/2)·cot(θ/2); the Hessian steers only the path, so libm's tan will do.
        Some(super::newton::hessian_sum3(logs, |t| super::newton::t_cot_t(0.5 * t), None))
    }

    fn newton_direction(
        &self,
        _q: &UnitQuaternion<f64>,
        gradient: &DVector<f64>,
        hessian: &nalgebra::DMatrix<f64>,
    ) -> Option<DVector<f64>> {
        super::newton::solve_positive(hessian, gradient)
    }

    /// The angle is 4·atan2(‖a − b‖, ‖a + b‖) of unit quaternions: twice the sphere's distance on S³, at half
    /// the reach (counted with D = 8 to cover the quaternion product of the log as well).
    fn distance_error(&self, _near: &UnitQuaternion<f64>, _offset: f64, reach: f64) -> f64 {
        2.0 * super::float_error::sphere_distance_error(8, 0.5 * reach)
    }

    /// The rotation vector is twice the log on S³ of q⁻¹x at the identity ([`So3::log`]); q⁻¹x is a product
    /// of four-term dot products (absolute error ≤ 2γ₄, inside the D = 8 allowance).
    fn log_error(&self, _near: &UnitQuaternion<f64>, _offset: f64, reach: f64) -> super::LogError {
        let per_log = 2.0 * super::float_error::sphere_log_error(8, 0.5 * reach).per_log;
        super::LogError { per_log, term: crate::numerics::rounding::add_up(reach, per_log) }
    }

    fn injectivity_radius(&self) -> f64 {
        std::f64::consts::PI
    }

    fn curvature_bound(&self) -> f64 {
        0.25
    }

    fn footpoint_independent_normaliser(&self) -> bool {
        true
    }
}
