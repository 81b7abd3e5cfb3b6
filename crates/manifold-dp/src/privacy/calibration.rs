//! Calibration: from a user's budget to a mechanism parameter. Each function links its proof.

use crate::error::Param;
use crate::error::{Fallible, check_positive};

pub use crate::analysis::bingham_so3::bingham_kappa_for_epsilon;

/// The φ6 budget ε = κ/2 that Bingham(κ) satisfies (`docs/proofs/bingham_so3_tight.md`).
pub fn bingham_epsilon_for_kappa(kappa: f64) -> Fallible<f64> {
    Ok(check_positive(Param::Concentration, kappa)? / 2.0)
}

/// "Privacy level ℓ within a protection radius r": inputs closer than r are ℓ-indistinguishable,
/// so ε = ℓ / r per unit of r (`docs/proofs/laplace_so3.md`, last section).
pub fn epsilon_for_level_within_radius(level: f64, radius: f64) -> Fallible<f64> {
    Ok(check_positive(Param::Level, level)? / check_positive(Param::Radius, radius)?)
}

/// The ε per unit of distance that gives pure ε-DP for whole records on a space of the given diameter
/// (the largest distance between two inputs): ε / diameter. Metric DP with ε′ per unit bounds the loss
/// between any two inputs by ε′·d ≤ ε′·diameter (`docs/proofs/vmf_sphere.md`, "Pure DP").
pub fn epsilon_per_unit_for_pure_dp(epsilon: f64, diameter: f64) -> Fallible<f64> {
    Ok(check_positive(Param::Epsilon, epsilon)? / check_positive(Param::Diameter, diameter)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_budgets() {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(bingham_kappa_for_epsilon(bad).is_err());
            assert!(bingham_epsilon_for_kappa(bad).is_err());
            assert!(epsilon_for_level_within_radius(bad, 1.0).is_err());
            assert!(epsilon_for_level_within_radius(1.0, bad).is_err());
        }
        assert_eq!(bingham_kappa_for_epsilon(3.0).unwrap(), 6.0);
        assert_eq!(bingham_epsilon_for_kappa(6.0).unwrap(), 3.0);
        assert!((epsilon_for_level_within_radius(1.0, 10f64.to_radians()).unwrap() - 5.729577951308232).abs() < 1e-12);
    }
}
