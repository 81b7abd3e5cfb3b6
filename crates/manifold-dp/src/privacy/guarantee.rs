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
        Guarantee::MetricDp {
            epsilon,
            metric,
            unit: metric.unit(),
        }
    }

    /// The ε of the guarantee.
    pub fn epsilon(&self) -> f64 {
        match *self {
            Guarantee::MetricDp { epsilon, .. } => epsilon,
        }
    }
}

impl fmt::Display for Guarantee {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Guarantee::MetricDp {
                epsilon,
                metric,
                unit,
            } => write!(
                f,
                "{epsilon}·d-private (metric DP), epsilon = {epsilon} per {unit} of {}",
                metric.describe()
            ),
        }
    }
}
