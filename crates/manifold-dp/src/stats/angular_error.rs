//! How far releases moved from their inputs: mean, 95th percentile and maximum of the geodesic angle.

use crate::space::so3_metric::geodesic;
use nalgebra::UnitQuaternion;

/// Summary of the angles (radians) between inputs and their releases.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct AngularErrorSummary {
    /// Number of pairs.
    pub count: usize,
    /// Mean angle.
    pub mean_rad: f64,
    /// 95th percentile (nearest-rank).
    pub p95_rad: f64,
    /// Largest angle.
    pub max_rad: f64,
}

impl AngularErrorSummary {
    /// Summarises the pairwise angles between `inputs[i]` and `outputs[i]`; `None` when empty.
    pub fn of_pairs(inputs: &[UnitQuaternion<f64>], outputs: &[UnitQuaternion<f64>]) -> Option<Self> {
        let mut angles: Vec<f64> = inputs.iter().zip(outputs).map(|(a, b)| geodesic(a, b)).collect();
        if angles.is_empty() {
            return None;
        }
        angles.sort_by(f64::total_cmp);
        let n = angles.len();
        let rank = ((0.95 * n as f64).ceil() as usize).clamp(1, n);
        Some(AngularErrorSummary {
            count: n,
            mean_rad: angles.iter().sum::<f64>() / n as f64,
            p95_rad: angles[rank - 1],
            max_rad: angles[n - 1],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector3;

    #[test]
    fn summarises_known_angles() {
        let inputs = vec![UnitQuaternion::identity(); 20];
        let outputs: Vec<_> =
            (1..=20).map(|i| UnitQuaternion::from_scaled_axis(Vector3::new(0.01 * i as f64, 0.0, 0.0))).collect();
        let s = AngularErrorSummary::of_pairs(&inputs, &outputs).unwrap();
        assert!((s.mean_rad - 0.105).abs() < 1e-12);
        assert!((s.p95_rad - 0.19).abs() < 1e-12 && (s.max_rad - 0.2).abs() < 1e-12);
        assert!(AngularErrorSummary::of_pairs(&[], &[]).is_none());
    }
}
