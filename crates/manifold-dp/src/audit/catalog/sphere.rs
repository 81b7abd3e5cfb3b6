//! The targets of spheres (the circle and latlon included): VMF, Purkayastha, the planar, wrapped and
//! Riemannian Laplace, the uniform release, the Gaussian Fréchet mean's noise, and their controls.

use super::{
    AuditName, AuditRequest, AuditSpace, Calibrated, claim_distance, claimed_gdp, need_epsilon, target, unknown,
};
use crate::analysis::{AngularLaw, SphereAngle, WrappedLaplaceAngle};
use crate::audit::auditor::{Auditable, CdfSorted, ReferenceLaw};
use crate::audit::controls::{self, Miscalibrated};
use crate::audit::pairs;
use crate::error::{Error, Fallible, Param};
use crate::manifold::Sphere;
use crate::mechanism::Unprotected;
use crate::mechanism::{
    Mechanism, PurkayasthaSphere, RiemannianLaplace, TangentPlanarLaplace, UniformSphere, VmfSphere,
    WrappedLaplaceCircle,
};
use crate::privacy::Guarantee;
use crate::privacy::Metric;
use crate::space::sphere::{chordal_distance, surface_distance};
use nalgebra::DVector;
use statrs::function::beta::beta_reg;
use statrs::function::gamma::gamma_lr;
use std::f64::consts::PI;

/// The CDF of the great-circle angle of a uniform point of S^{dim−1} from a fixed point: (1 − cos θ)/2 =
/// sin²(θ/2) ~ Beta((dim − 1)/2, (dim − 1)/2).
pub(super) fn uniform_angle_cdf(dim: usize) -> impl Fn(&[f64]) -> Vec<f64> + Send + Sync {
    let a = 0.5 * (dim - 1) as f64;
    move |s: &[f64]| s.iter().map(|&t| beta_reg(a, a, (0.5 * t.clamp(0.0, PI)).sin().powi(2).min(1.0))).collect()
}

/// The CDF of the great-circle angle from the reference point of a planar-Laplace release of it: the tangent
/// radius r ~ Gamma(dim − 1, rate ε) folded onto [0, π], P[angle ≤ a] = Σ_k G(2πk + a) − G(2πk − a).
pub(super) fn folded_gamma_cdf(dim: usize, epsilon: f64) -> impl Fn(&[f64]) -> Vec<f64> + Send + Sync {
    let shape = (dim - 1) as f64;
    move |s: &[f64]| {
        let g = |r: f64| if r <= 0.0 { 0.0 } else { gamma_lr(shape, epsilon * r) };
        s.iter()
            .map(|&a| {
                let a = a.clamp(0.0, PI);
                let mut total = 0.0;
                for k in 0..100_000 {
                    let c = 2.0 * PI * k as f64;
                    let piece = g(c + a) - g(c - a);
                    total += piece;
                    if 1.0 - g(c + a) < 1e-17 {
                        break;
                    }
                }
                total.clamp(0.0, 1.0)
            })
            .collect()
    }
}

fn sphere_target<M>(
    dim: usize,
    mechanism: M,
    label: String,
    epsilon_for_pairs: f64,
    distance: impl Fn(&DVector<f64>, &DVector<f64>) -> f64,
    reference: Option<(&'static str, CdfSorted)>,
) -> Box<dyn Auditable>
where
    M: Mechanism<Point = DVector<f64>> + Send + Sync + 'static,
{
    let g = mechanism.guarantee();
    let epsilon = g.epsilon().unwrap_or(0.0);
    let pairs = pairs::sphere_pairs(dim, epsilon_for_pairs, &distance);
    let north = pairs[0].x.clone();
    let reference = reference.map(|(quantity, cdf_sorted)| ReferenceLaw {
        quantity,
        center: north,
        cdf_sorted,
        distance: surface_distance,
    });
    target(mechanism, label, epsilon, g.to_string(), pairs, reference)
}

/// The Riemannian Gaussian Fréchet mean's noise on S^{dim−1} (the release of
/// [`crate::mechanism::GaussianFrechetMean`] at a footpoint: the exact draw at σ, rounded onto its grid),
/// claiming an (ε, δ) pair its μ-GDP certificate implies. The auditor tests (ε, δ) claims, not trade-off curves,
/// so the μ-GDP guarantee is audited through one point of its curve, ε = the GDP curve's ε at δ.
#[derive(Debug, Clone)]
pub struct GaussianMeanNoise {
    sphere: Sphere,
    noise: crate::sample::riemannian_gaussian::GaussianNoise,
    rounding: crate::privacy::float_safety::Rounding,
    claim: Guarantee,
}

impl GaussianMeanNoise {
    /// The noise at `sigma` on S^{dim−1}, with the grid the mean's release uses at that σ, claiming `claim`.
    pub fn new(dim: usize, sigma: f64, claim: Guarantee) -> Fallible<Self> {
        use crate::mechanism::GaussianManifold;
        let sphere = Sphere::new(dim)?;
        let noise = crate::sample::riemannian_gaussian::GaussianNoise::new(sphere.gaussian_space(), sigma)?;
        let rounding = sphere.gaussian_rounding(&noise);
        Ok(GaussianMeanNoise { sphere, noise, rounding, claim })
    }

    /// σ.
    pub fn sigma(&self) -> f64 {
        self.noise.sigma()
    }
}

impl Mechanism for GaussianMeanNoise {
    type Point = DVector<f64>;

    /// The (ε, δ) the certified μ implies, for neighbouring footpoints (at most Δ apart).
    fn guarantee(&self) -> Guarantee {
        self.claim
    }

    fn privatize_unprotected<R: rand::CryptoRng + ?Sized>(
        &self,
        x: &DVector<f64>,
        rng: &mut R,
        _: Unprotected,
    ) -> DVector<f64> {
        self.noise.sample_around(x, rng)
    }

    fn snap(&self, z: &mut DVector<f64>) {
        use crate::mechanism::LaplaceManifold;
        self.sphere.snap_point(&self.rounding, z);
    }

    /// −d(z, x)²/(2σ²), w.r.t. the Riemannian volume.
    fn log_density(&self, z: &DVector<f64>, x: &DVector<f64>) -> f64 {
        let u = surface_distance(z, x) / self.noise.sigma();
        -0.5 * u * u
    }

    fn name(&self) -> &'static str {
        "riemannian-gaussian-mean"
    }
}

/// `riemannian-gaussian-mean` (and its control with σ halved) on S^{dim−1}: the Gaussian mean of Jiang et al.'s
/// setting (n = 10 points in a ball of radius π/8) at the largest μ that is (ε, δ)-DP, audited at that (ε, δ)
/// on footpoints at most its Δ apart.
fn build_gaussian_mean(
    request: &AuditRequest,
    dim: usize,
    name: AuditName,
    label: String,
) -> Fallible<Box<dyn Auditable>> {
    let (eps, delta, mu) = claimed_gdp(request)?;
    let sphere = Sphere::new(dim)?;
    let radius = (PI / 8.0).min(0.9 * crate::manifold::max_radius(&sphere));
    let mut north = DVector::zeros(dim);
    north[dim - 1] = 1.0;
    let mean = crate::mechanism::GaussianFrechetMean::new(sphere, north, radius, 10, mu)?;
    // The (ε, δ) the certified μ implies (at most the ε asked).
    let claim = Guarantee::ApproxDp {
        epsilon: crate::analysis::gaussian_dp::gdp_epsilon(mean.certificate().mu, delta)?,
        delta,
    };
    let claimed = GaussianMeanNoise::new(dim, mean.sigma(), claim)?;
    let pairs = pairs::sphere_neighbour_pairs(dim, mean.sensitivity());
    let short = crate::numerics::format::short;
    let what = format!(
        "for footpoints at most Delta = {} apart (the Gaussian Frechet mean of 10 points in a ball of radius {}), \
         Riemannian Gaussian sigma = {} certified {}-GDP",
        short(mean.sensitivity()),
        short(radius),
        short(mean.sigma()),
        short(mean.certificate().mu)
    );
    Ok(match name {
        AuditName::RiemannianGaussianMean => target(claimed, label, eps, format!("{claim} {what}"), pairs, None),
        _ => {
            let actual = GaussianMeanNoise::new(dim, 0.5 * mean.sigma(), claim)?;
            let m = controls::Miscalibrated::new(claimed, actual);
            target(m, label, eps, format!("{claim} {what}, sampled with sigma/2"), pairs, None)
        }
    })
}

fn law_cdf<L: AngularLaw + Send + Sync + 'static>(law: L) -> CdfSorted {
    Box::new(move |s| law.cdf_sorted(s))
}

pub(super) fn build_sphere(
    request: &AuditRequest,
    dim: usize,
    name: AuditName,
    label: String,
) -> Fallible<Box<dyn Auditable>> {
    if name.takes_delta(AuditSpace::Sphere { dim }) {
        return build_gaussian_mean(request, dim, name, label);
    }
    let angle = "great-circle angle";
    let metric = |g: &Guarantee| claim_distance(*g, sphere_metric);
    if name == AuditName::Uniform {
        let m = UniformSphere::new(dim)?;
        let g = m.guarantee();
        let scale = request.epsilon.unwrap_or(1.0);
        return Ok(sphere_target(dim, m, label, scale, metric(&g), Some((angle, Box::new(uniform_angle_cdf(dim))))));
    }
    let eps = need_epsilon(request)?;
    crate::error::check_positive(Param::Epsilon, eps)?;
    Ok(match name {
        AuditName::Vmf => {
            let m = VmfSphere::new(dim, eps)?;
            let g = m.guarantee();
            let law = m.angle_law();
            sphere_target(dim, m, label, eps, metric(&g), Some((angle, law_cdf(law))))
        }
        AuditName::Purkayastha => {
            let m = PurkayasthaSphere::new(dim, eps)?;
            let g = m.guarantee();
            let law = m.angle_law();
            sphere_target(dim, m, label, eps, metric(&g), Some((angle, law_cdf(law))))
        }
        AuditName::RiemannianLaplace => {
            let m = RiemannianLaplace::new(Sphere::new(dim)?, 1.0 / eps)?;
            let g = m.guarantee();
            let law = SphereAngle::purkayastha(dim, eps)?;
            sphere_target(dim, m, label, eps, metric(&g), Some((angle, law_cdf(law))))
        }
        AuditName::WrappedLaplace if dim == 2 => {
            let m = WrappedLaplaceCircle::new(eps)?;
            let g = m.guarantee();
            let law = WrappedLaplaceAngle::new(eps)?;
            sphere_target(dim, m, label, eps, metric(&g), Some((angle, law_cdf(law))))
        }
        AuditName::WrappedLaplace => {
            return Err(Error::NotApplicable(
                "wrapped-laplace works on the circle only (space circle or timeofday)".into(),
            ));
        }
        AuditName::PlanarLaplace => {
            let mut north = DVector::zeros(dim);
            north[dim - 1] = 1.0;
            let m = TangentPlanarLaplace::new(north, eps)?;
            let tangent = m.clone();
            let d = move |a: &DVector<f64>, b: &DVector<f64>| (tangent.log_map(a) - tangent.log_map(b)).norm();
            sphere_target(dim, m, label, eps, d, Some((angle, Box::new(folded_gamma_cdf(dim, eps)))))
        }
        AuditName::Unsnapped => {
            let m = PurkayasthaSphere::new(dim, eps)?;
            let g = m.guarantee();
            let law = m.angle_law();
            sphere_target(dim, controls::Unsnapped(m), label, eps, metric(&g), Some((angle, law_cdf(law))))
        }
        AuditName::Vmf2Eps => {
            let m = controls::vmf_2eps(dim, eps)?;
            let g = m.guarantee();
            let law = m.claimed().angle_law();
            sphere_target(dim, m, label, eps, metric(&g), Some((angle, law_cdf(law))))
        }
        AuditName::Miscalibrated { base: Calibrated::Vmf, factor: c } => {
            let claimed = VmfSphere::new(dim, eps)?;
            let (g, law) = (claimed.guarantee(), claimed.angle_law());
            let m = Miscalibrated::new(claimed, VmfSphere::new(dim, c * eps)?);
            sphere_target(dim, m, label, eps, metric(&g), Some((angle, law_cdf(law))))
        }
        AuditName::Miscalibrated { base: Calibrated::Purkayastha, factor: c } => {
            let claimed = PurkayasthaSphere::new(dim, eps)?;
            let (g, law) = (claimed.guarantee(), claimed.angle_law());
            let m = Miscalibrated::new(claimed, PurkayasthaSphere::new(dim, c * eps)?);
            sphere_target(dim, m, label, eps, metric(&g), Some((angle, law_cdf(law))))
        }
        _ => return Err(unknown(request)),
    })
}

fn sphere_metric(m: Metric, a: &DVector<f64>, b: &DVector<f64>) -> f64 {
    match m {
        Metric::SphereChordal => chordal_distance(a, b),
        _ => surface_distance(a, b),
    }
}
