//! The targets of SPD(k): the affine-invariant and log-Euclidean Laplace and the Gaussian means' noise.

use super::{AuditName, AuditRequest, AuditSpace, claim_distance, claimed_gdp, need_epsilon, target, unknown};
use crate::analysis::spd_radial::SpdRadialLaw;
use crate::audit::auditor::{Auditable, ReferenceLaw};
use crate::audit::controls::{self};
use crate::audit::pairs;
use crate::error::{Error, Fallible, Param};
use crate::manifold::{SpdAffine, SpdLogEuclidean};
use crate::mechanism::{Mechanism, RiemannianLaplace};
use crate::privacy::Guarantee;
use crate::privacy::Metric;
use crate::space::spd::{affine_invariant_distance, log_euclidean_distance};
use nalgebra::DMatrix;
use statrs::function::gamma::gamma_lr;

/// The public ball the affine-invariant SPD Laplace is audited in (around I).
const SPD_AUDIT_RADIUS: f64 = 2.0;

/// `log-euclidean-gaussian-mean` (and its control with σ halved) on SPD(k), k ≤ 8: the log-Euclidean Gaussian
/// mean of n = 40 rows within 1.5 of I at the largest μ that is (ε, δ)-DP, audited at that (ε, δ) on footpoints
/// at most its Δ apart.
fn build_log_euclidean_gaussian(
    request: &AuditRequest,
    k: usize,
    name: AuditName,
    label: String,
) -> Fallible<Box<dyn Auditable>> {
    use crate::audit::log_euclidean_gaussian::{LogEuclideanGaussianNoise, audited_mean, neighbour_pairs};
    if k < 2 {
        return Err(Error::NotApplicable(format!("{name} is audited on spd:K for 2 ≤ K ≤ 8 (its pairs need K ≥ 2)")));
    }
    let (eps, delta, mu) = claimed_gdp(request)?;
    let mean = audited_mean(k, mu)?;
    // μ-GDP exactly (no rounding cost): the (ε, δ) on its curve.
    let claim = Guarantee::ApproxDp { epsilon: crate::analysis::gaussian_dp::gdp_epsilon(mu, delta)?, delta };
    let grid = mean.grid().spacing_log2;
    let claimed = LogEuclideanGaussianNoise::new(k, mean.sigma(), grid, claim)?;
    let pairs = neighbour_pairs(k, mean.sensitivity());
    let short = crate::numerics::format::short;
    let what = format!(
        "for footpoints at most Delta = {} apart (the log-Euclidean Gaussian mean of 40 matrices within 1.5 of I), \
         sigma = {} in the log coordinates, {}-GDP",
        short(mean.sensitivity()),
        short(mean.sigma()),
        short(mu)
    );
    Ok(match name {
        AuditName::LogEuclideanGaussianMean => target(claimed, label, eps, format!("{claim} {what}"), pairs, None),
        _ => {
            let actual = LogEuclideanGaussianNoise::new(k, 0.5 * mean.sigma(), grid - 1, claim)?;
            let m = controls::Miscalibrated::new(claimed, actual);
            target(m, label, eps, format!("{claim} {what}, sampled with sigma/2"), pairs, None)
        }
    })
}

/// `affine-gaussian-mean` (and its control with σ halved, `control:affine-gaussian-mean-half-sigma`) on SPD(k),
/// 2 ≤ k ≤ 3: the affine-invariant Gaussian mean of n = 40 rows within 1.5 of I at the largest μ that is
/// (ε, δ)-DP, audited at that (ε, δ) on footpoints at most its Δ apart in the affine-invariant metric. The control
/// is the same mean at 2μ (σ/2, its own grid) under the same claim.
fn build_affine_gaussian(
    request: &AuditRequest,
    k: usize,
    name: AuditName,
    label: String,
) -> Fallible<Box<dyn Auditable>> {
    use crate::audit::affine_gaussian::{AffineGaussianNoise, audited_mean, neighbour_pairs};
    if !(2..=3).contains(&k) {
        return Err(Error::NotApplicable(format!("{name} is audited on spd:K for 2 ≤ K ≤ 3")));
    }
    let (eps, delta, mu) = claimed_gdp(request)?;
    let mean = audited_mean(k, mu)?;
    let claim = Guarantee::ApproxDp { epsilon: crate::analysis::gaussian_dp::gdp_epsilon(mu, delta)?, delta };
    let pairs = neighbour_pairs(k, mean.sensitivity());
    let short = crate::numerics::format::short;
    let what = format!(
        "for footpoints at most Delta = {} apart (the affine-invariant Gaussian mean of 40 matrices within 1.5 of \
         I), sigma = {} in the chart at I, {}-GDP",
        short(mean.sensitivity()),
        short(mean.sigma()),
        short(mu)
    );
    Ok(match name {
        AuditName::AffineGaussianMean => {
            target(AffineGaussianNoise::new(mean, claim), label, eps, format!("{claim} {what}"), pairs, None)
        }
        _ => {
            let actual = AffineGaussianNoise::new(audited_mean(k, 2.0 * mu)?, claim);
            let m = controls::Miscalibrated::new(AffineGaussianNoise::new(mean, claim), actual);
            target(m, label, eps, format!("{claim} {what}, sampled with sigma/2"), pairs, None)
        }
    })
}

pub(super) fn build_spd(
    request: &AuditRequest,
    k: usize,
    name: AuditName,
    label: String,
) -> Fallible<Box<dyn Auditable>> {
    if matches!(name, AuditName::AffineGaussianMean | AuditName::AffineGaussianMeanHalfSigma) {
        return build_affine_gaussian(request, k, name, label);
    }
    if name.takes_delta(AuditSpace::Spd { k }) {
        return build_log_euclidean_gaussian(request, k, name, label);
    }
    let eps = need_epsilon(request)?;
    crate::error::check_positive(Param::Epsilon, eps)?;
    let sigma = 1.0 / eps;
    let id = DMatrix::<f64>::identity(k, k);
    match name {
        AuditName::RiemannianLaplace => {
            // Float-safe releases need a public ball: inputs within SPD_AUDIT_RADIUS of I (farther pairs are
            // moved onto it, a 1-Lipschitz map, so their claim still binds).
            let m = RiemannianLaplace::in_ball(SpdAffine::new(k)?, sigma, &id, SPD_AUDIT_RADIUS)?;
            let g = m.guarantee();
            let pairs = pairs::spd_pairs(k, eps, &claim_distance(g, spd_metric));
            let law = SpdRadialLaw::new(k, sigma, None)?;
            let reference = ReferenceLaw {
                quantity: "affine-invariant distance",
                center: id,
                cdf_sorted: Box::new(move |s| law.cdf_sorted(s)),
                distance: affine_invariant_distance,
            };
            Ok(target(m, label, eps, g.to_string(), pairs, Some(reference)))
        }
        AuditName::LogEuclideanLaplace => {
            let m = RiemannianLaplace::new(SpdLogEuclidean::new(k)?, sigma)?;
            let g = m.guarantee();
            let pairs = pairs::spd_pairs(k, eps, &claim_distance(g, spd_metric));
            // ‖log Y − log η‖ is the radius of an isotropic Laplace in k(k + 1)/2 dimensions: Gamma(D, scale σ).
            let shape = (k * (k + 1) / 2) as f64;
            let reference = ReferenceLaw {
                quantity: "log-Euclidean distance",
                center: id,
                cdf_sorted: Box::new(move |s: &[f64]| {
                    s.iter().map(|&r| if r <= 0.0 { 0.0 } else { gamma_lr(shape, r / sigma) }).collect()
                }),
                distance: log_euclidean_distance,
            };
            Ok(target(m, label, eps, g.to_string(), pairs, Some(reference)))
        }
        _ => Err(unknown(request)),
    }
}

fn spd_metric(m: Metric, a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    match m {
        // ‖log a − log b‖_F from the computed logarithms: the computed log coordinates' distance.
        Metric::SpdLogEuclidean | Metric::SpdComputedLogCoordinates => log_euclidean_distance(a, b),
        _ => affine_invariant_distance(a, b),
    }
}
