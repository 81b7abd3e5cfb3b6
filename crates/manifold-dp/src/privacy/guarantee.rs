//! Guarantees as data: every mechanism returns one, the CLI prints it and writes it into reports.

use serde::Serialize;
use std::fmt;

/// The distance a metric-DP guarantee is stated in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Geodesic distance on SO(3): the rotation angle θ(x, x′) ∈ [0, π] between two rotations
    /// (Huynh's φ6 = ‖log(R1 R2ᵀ)‖), in radians.
    So3Geodesic,
}

impl Metric {
    /// Unit the metric is measured in.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::So3Geodesic => "rad",
        }
    }

    /// Human description.
    pub fn describe(self) -> &'static str {
        match self {
            Metric::So3Geodesic => "geodesic rotation angle on SO(3) (phi6)",
        }
    }
}

/// A privacy guarantee, as a value.
///
/// Later releases add the standard notions (pure, approximate, zCDP, GDP, Rao) beside metric DP.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "notion", rename_all = "snake_case")]
pub enum Guarantee {
    /// Metric (ε·d) differential privacy: `P[M(x) ∈ Z] ≤ exp(ε·d(x, x′))·P[M(x′) ∈ Z]` for all inputs
    /// x, x′ and events Z, with ε per unit of `metric`.
    MetricDp {
        /// Privacy loss per unit of distance.
        epsilon: f64,
        /// The distance d.
        metric: Metric,
        /// Unit of d (and so ε is "per" this unit).
        unit: &'static str,
    },
}

impl Guarantee {
    /// Metric DP with `epsilon` per unit of `metric`.
    pub fn metric_dp(epsilon: f64, metric: Metric) -> Self {
        Guarantee::MetricDp { epsilon, metric, unit: metric.unit() }
    }

    /// The ε of the guarantee.
    pub fn epsilon(&self) -> f64 {
        match *self {
            Guarantee::MetricDp { epsilon, .. } => epsilon,
        }
    }
}

/// Six significant digits without trailing zeros (the exact value is in the JSON form).
fn short(x: f64) -> String {
    let s = format!("{x:.*}", (5 - x.abs().log10().floor() as i32).clamp(0, 12) as usize);
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
}

impl fmt::Display for Guarantee {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Guarantee::MetricDp { epsilon, metric, unit } => {
                write!(f, "metric DP, epsilon = {} per {unit} of {}", short(epsilon), metric.describe())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_and_serialises() {
        let g = Guarantee::metric_dp(5.729577951308232, Metric::So3Geodesic);
        assert_eq!(g.to_string(), "metric DP, epsilon = 5.72958 per rad of geodesic rotation angle on SO(3) (phi6)");
        assert_eq!(
            Guarantee::metric_dp(8.0, Metric::So3Geodesic).to_string().split(',').nth(1).unwrap(),
            " epsilon = 8 per rad of geodesic rotation angle on SO(3) (phi6)"
        );
        let json = serde_json::to_string(&g).unwrap();
        assert_eq!(json, r#"{"notion":"metric_dp","epsilon":5.729577951308232,"metric":"so3_geodesic","unit":"rad"}"#);
    }
}
