//! SO(3) with the geodesic (rotation-angle) metric θ: isometric to RP³ of radius 2, so sectional curvature
//! 1/4 and injectivity radius π; Theorem 2 needs data within r < r* = π/2 (docs/math.md §3).

use super::Manifold;
use crate::privacy::Metric;
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
