//! The targets of SO(3): the Laplace, Bingham and Riemannian Laplace releases and their controls.

use super::{AuditName, AuditRequest, Calibrated, claim_distance, need_epsilon, target, unknown};
use crate::analysis::{AngularLaw, BinghamAngle, LaplaceAngle};
use crate::audit::auditor::{Auditable, ReferenceLaw};
use crate::audit::controls::{self, LaplaceWithoutSin2, Miscalibrated, PaperNaive, TruncatedTail};
use crate::audit::pairs;
use crate::error::{Error, Fallible, Param};
use crate::manifold::So3;
use crate::mechanism::{BinghamSo3, LaplaceSo3, Mechanism, RiemannianLaplace};
use crate::privacy::Metric;
use crate::space::so3_metric::geodesic;
use nalgebra::UnitQuaternion;

fn so3_target<M>(mechanism: M, label: String, reference_law: Option<Box<dyn AngularLawBox>>) -> Box<dyn Auditable>
where
    M: Mechanism<Point = UnitQuaternion<f64>> + Send + Sync + 'static,
{
    let g = mechanism.guarantee();
    let epsilon = g.epsilon().unwrap_or(0.0);
    let pairs = pairs::so3_pairs(epsilon, &claim_distance(g, so3_metric));
    let reference = reference_law.map(|law| ReferenceLaw {
        quantity: "rotation angle",
        center: UnitQuaternion::identity(),
        cdf_sorted: Box::new(move |s| law.cdf_sorted_boxed(s)),
        distance: geodesic,
    });
    target(mechanism, label, epsilon, g.to_string(), pairs, reference)
}

/// An angular law behind a box (the laws are different types).
trait AngularLawBox: Send + Sync {
    fn cdf_sorted_boxed(&self, s: &[f64]) -> Vec<f64>;
}

impl<L: AngularLaw + Send + Sync> AngularLawBox for L {
    fn cdf_sorted_boxed(&self, s: &[f64]) -> Vec<f64> {
        self.cdf_sorted(s)
    }
}

fn boxed<L: AngularLaw + Send + Sync + 'static>(law: L) -> Option<Box<dyn AngularLawBox>> {
    Some(Box::new(law))
}

pub(super) fn build_so3(request: &AuditRequest, name: AuditName, label: String) -> Fallible<Box<dyn Auditable>> {
    if let Some(kappa) = request.concentration {
        let mech = BinghamSo3::with_concentration(kappa)?;
        let epsilon = match request.epsilon {
            Some(e) if e.is_finite() && e >= 0.0 => e,
            Some(e) => {
                return Err(Error::InvalidParameter {
                    name: Param::Epsilon,
                    value: e,
                    reason: "must be finite and >= 0",
                });
            }
            None => mech.epsilon(),
        };
        let g = mech.guarantee();
        let pairs = pairs::so3_pairs(epsilon, &claim_distance(g, so3_metric));
        let claim = format!(
            "metric DP, epsilon = {} per rad of the geodesic rotation angle, claimed for Bingham with \
             concentration kappa = {} (its tight guarantee is kappa/2 = {} per rad)",
            crate::numerics::format::short_up(epsilon),
            crate::numerics::format::short(kappa),
            crate::numerics::format::short_up(mech.epsilon())
        );
        let reference = angle_reference("rotation angle", UnitQuaternion::identity(), mech.angle_law(), geodesic);
        return Ok(target(
            mech,
            format!("bingham (kappa = {}) on so3", crate::numerics::format::short(kappa)),
            epsilon,
            claim,
            pairs,
            reference,
        ));
    }
    let eps = need_epsilon(request)?;
    Ok(match name {
        AuditName::Laplace => so3_target(LaplaceSo3::new(eps)?, label, boxed(LaplaceAngle::new(eps)?)),
        AuditName::Unsnapped => {
            so3_target(controls::Unsnapped(LaplaceSo3::new(eps)?), label, boxed(LaplaceAngle::new(eps)?))
        }
        AuditName::Bingham => {
            let m = BinghamSo3::new(eps)?;
            let law = BinghamAngle::new(m.kappa())?;
            so3_target(m, label, boxed(law))
        }
        AuditName::RiemannianLaplace => {
            so3_target(RiemannianLaplace::new(So3, 1.0 / eps)?, label, boxed(LaplaceAngle::new(eps)?))
        }
        AuditName::Bingham4Eps => {
            let m = controls::bingham_4eps(eps)?;
            let law = BinghamAngle::new(m.claimed().kappa())?;
            so3_target(m, label, boxed(law))
        }
        AuditName::LaplaceNoSin2 => so3_target(LaplaceWithoutSin2::new(eps)?, label, boxed(LaplaceAngle::new(eps)?)),
        AuditName::TruncatedTail => {
            so3_target(TruncatedTail::new(eps, controls::TRUNCATED_TAIL_MASS)?, label, boxed(LaplaceAngle::new(eps)?))
        }
        AuditName::PaperNaive => so3_target(PaperNaive::new(eps)?, label, boxed(LaplaceAngle::new(eps)?)),
        AuditName::Miscalibrated { base: Calibrated::Laplace, factor: c } => so3_target(
            Miscalibrated::new(LaplaceSo3::new(eps)?, LaplaceSo3::new(c * eps)?),
            label,
            boxed(LaplaceAngle::new(eps)?),
        ),
        AuditName::Miscalibrated { base: Calibrated::Bingham, factor: c } => {
            let claimed = BinghamSo3::new(eps)?;
            let law = BinghamAngle::new(claimed.kappa())?;
            so3_target(Miscalibrated::new(claimed, BinghamSo3::new(c * eps)?), label, boxed(law))
        }
        _ => return Err(unknown(request)),
    })
}

fn so3_metric(_: Metric, a: &UnitQuaternion<f64>, b: &UnitQuaternion<f64>) -> f64 {
    geodesic(a, b)
}

fn angle_reference<P, L: AngularLaw + Send + Sync + 'static>(
    quantity: &'static str,
    center: P,
    law: L,
    distance: fn(&P, &P) -> f64,
) -> Option<ReferenceLaw<P>> {
    Some(ReferenceLaw { quantity, center, cdf_sorted: Box::new(move |s| law.cdf_sorted(s)), distance })
}
