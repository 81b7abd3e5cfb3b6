//! Every mechanism of the library, and every negative control, as an audit target chosen by name at run
//! time: what `manifold-dp audit` and the table in `docs/audit.md` use.
//!
//! A target bundles the mechanism, the ε it claims, the input pairs of its space ([`crate::audit::pairs`])
//! with distances in the claim's metric, and the exact law of the release's distance to its input (for the
//! goodness-of-fit companion).

use crate::analysis::spd_radial::SpdRadialLaw;
use crate::analysis::{AngularLaw, BinghamAngle, LaplaceAngle, SphereAngle, WrappedLaplaceAngle};
use crate::audit::auditor::{
    AuditConfig, AuditTarget, Auditable, CdfSorted, DEFAULT_LLR_RESOLUTION, InputPair, MAX_AUDIT_SAMPLES,
    MIN_AUDIT_ALPHA, ReferenceLaw,
};
use crate::audit::controls::{self, LaplaceWithoutSin2, Miscalibrated, PaperNaive, TruncatedTail};
use crate::audit::pairs;
use crate::error::Param;
use crate::error::{Error, Fallible};
use crate::manifold::{So3, SpdAffine, SpdLogEuclidean, Sphere};
use crate::mechanism::Unprotected;
use crate::mechanism::scalar::{Gaussian, GeneralizedGaussian, ScalarLaplace, generalized_gaussian_epsilon};
use crate::mechanism::{
    BinghamSo3, LaplaceSo3, Mechanism, PurkayasthaSphere, RiemannianLaplace, TangentPlanarLaplace, UniformSphere,
    VmfSphere, WrappedLaplaceCircle,
};
use crate::numerics::format::short;
use crate::privacy::{Guarantee, Metric};
use crate::registry::{Budget, Shown, Space, Spelling};
use crate::space::so3_metric::geodesic;
use crate::space::spd::{affine_invariant_distance, log_euclidean_distance};
use crate::space::sphere::{chordal_distance, surface_distance};
use nalgebra::{DMatrix, DVector, UnitQuaternion};
use statrs::function::beta::beta_reg;
use statrs::function::erf::erf;
use statrs::function::gamma::gamma_lr;
use std::f64::consts::PI;

/// The space an audit runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuditSpace {
    /// Rotations.
    So3,
    /// Unit vectors of R^dim (dim = 2: the circle).
    Sphere {
        /// The ambient dimension n of S^{n−1}.
        dim: usize,
    },
    /// k×k symmetric positive definite matrices.
    Spd {
        /// k.
        k: usize,
    },
    /// The real line (scalar queries of sensitivity 1: pure ε-DP there is ε·|x − x′|-metric DP).
    Real,
}

impl std::str::FromStr for AuditSpace {
    type Err = crate::registry::UnknownName;

    /// The registry's spaces ([`crate::space::kind::Space`]: so3, circle, timeofday, latlon, sphere:N, spd:K,
    /// real).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        use crate::space::kind::Space;
        Ok(match s.parse::<Space>()? {
            Space::Real => AuditSpace::Real,
            Space::So3 => AuditSpace::So3,
            Space::Circle | Space::TimeOfDay => AuditSpace::Sphere { dim: 2 },
            Space::LatLon => AuditSpace::Sphere { dim: 3 },
            Space::Sphere(dim) => AuditSpace::Sphere { dim },
            Space::Spd(k) => AuditSpace::Spd { k },
        })
    }
}

impl std::fmt::Display for AuditSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuditSpace::So3 => f.write_str("so3"),
            AuditSpace::Sphere { dim: 2 } => f.write_str("circle"),
            AuditSpace::Sphere { dim } => write!(f, "sphere:{dim}"),
            AuditSpace::Spd { k } => write!(f, "spd:{k}"),
            AuditSpace::Real => f.write_str("real"),
        }
    }
}

/// What to audit: a mechanism named as on the command line, its budget and (Bingham only) a concentration.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditRequest {
    /// The space.
    pub space: AuditSpace,
    /// A name from [`mechanism_names`].
    pub mechanism: String,
    /// ε per radian (or per unit of the mechanism's metric); required except for `uniform` and for `bingham`
    /// with a concentration, where it is the ε claimed (default κ/2).
    pub epsilon: Option<f64>,
    /// Bingham only: audit Bingham(κ) itself.
    pub concentration: Option<f64>,
    /// The δ of an (ε, δ) claim: `gaussian`, `generalized-gaussian` and `control:gaussian-half-sigma` on the
    /// real line only (default [`DEFAULT_AUDIT_DELTA`]).
    pub delta: Option<f64>,
    /// The degree N of `generalized-gaussian` (default [`DEFAULT_GG_ORDER`]).
    pub order: Option<u32>,
    /// Instead of `epsilon`: a distance with its unit (`10deg`, `2km`, `1h`) protected at `level`, so the ε
    /// claimed is level / distance, as for a release.
    pub protect: Option<String>,
    /// The level of `protect`.
    pub level: Option<f64>,
    /// Counting draws per input, at least [`MIN_AUDIT_SAMPLES`] (default [`DEFAULT_AUDIT_SAMPLES`], or
    /// [`DEFAULT_SPD_AUDIT_SAMPLES`] on spd:K).
    pub samples: Option<u64>,
    /// The bound on the probability of a false VIOLATION, in [`MIN_AUDIT_ALPHA`], 1).
    pub alpha: f64,
    /// The likelihood-ratio events' resolution relative to ε·d, in [0, 1) (0: raw, `docs/audit.md`).
    pub llr_resolution: f64,
    /// The space as the user named it, whose units `protect` is read in (km on latlon, h on timeofday).
    pub units: Space,
}

impl AuditRequest {
    /// A request for `mechanism` on `space` at `epsilon`, without the mechanism-specific options.
    pub fn new(space: AuditSpace, mechanism: &str, epsilon: Option<f64>) -> Self {
        AuditRequest {
            space,
            mechanism: mechanism.into(),
            epsilon,
            concentration: None,
            delta: None,
            order: None,
            protect: None,
            level: None,
            samples: None,
            alpha: DEFAULT_AUDIT_ALPHA,
            llr_resolution: DEFAULT_LLR_RESOLUTION,
            units: match space {
                AuditSpace::So3 => Space::So3,
                AuditSpace::Sphere { dim: 2 } => Space::Circle,
                AuditSpace::Sphere { dim } => Space::Sphere(dim),
                AuditSpace::Spd { k } => Space::Spd(k),
                AuditSpace::Real => Space::Real,
            },
        }
    }

    /// A request on the space named `space` as the registry spells it (`latlon`, `timeofday`, `sphere:4`, …),
    /// so that `protect` is read in that space's units.
    pub fn named(space: &str, mechanism: &str, epsilon: Option<f64>) -> Fallible<Self> {
        let units: Space = space.parse().map_err(|e: crate::registry::UnknownName| Error::NotApplicable(e.0))?;
        let audited: AuditSpace = space.parse().map_err(|e: crate::registry::UnknownName| Error::NotApplicable(e.0))?;
        Ok(AuditRequest { units, ..AuditRequest::new(audited, mechanism, epsilon) })
    }

    /// Applies the audit's rules and builds what runs it: the ranges of `samples`, `alpha` and
    /// `llr_resolution`, the default number of draws per space, `protect` with `level` resolved to ε in the
    /// space's units, a claimed ε required except for `uniform` and a Bingham concentration, then [`build`].
    /// A refusal names the options as `spell` writes them.
    pub fn plan(&self, spell: &dyn Spelling) -> Fallible<(Box<dyn Auditable>, AuditConfig)> {
        let opt = |name: &str, value: Shown<'_>| spell.option(name, value);
        let refuse = |m: String| Error::NotApplicable(m);
        if !(self.alpha >= MIN_AUDIT_ALPHA && self.alpha < 1.0) {
            return Err(refuse(format!(
                "{} must lie in [1e-100, 1) (a smaller false-alarm bound cannot be split over the tests)",
                opt("alpha", Shown::Number(&short(self.alpha)))
            )));
        }
        let samples = self.samples.unwrap_or(match self.space {
            AuditSpace::Spd { .. } => DEFAULT_SPD_AUDIT_SAMPLES,
            _ => DEFAULT_AUDIT_SAMPLES,
        });
        if !(MIN_AUDIT_SAMPLES..=MAX_AUDIT_SAMPLES).contains(&samples) {
            return Err(refuse(format!(
                "{} is out of range: use from 1000 to 1e9 draws per input",
                opt("samples", Shown::Number(&samples.to_string()))
            )));
        }
        if !(self.llr_resolution >= 0.0 && self.llr_resolution < 1.0) {
            return Err(refuse(format!(
                "{} must lie in [0, 1)",
                opt("llr_resolution", Shown::Number(&short(self.llr_resolution)))
            )));
        }
        let epsilon = self.claimed_epsilon(spell)?;
        if epsilon.is_none() && self.concentration.is_none() && self.mechanism != "uniform" {
            return Err(refuse(format!(
                "give the claimed {} (or {} for bingham)",
                opt("epsilon", Shown::Number("E")),
                opt("concentration", Shown::Number("K"))
            )));
        }
        let target = build(&AuditRequest { epsilon, ..self.clone() })?;
        let mut config = AuditConfig::with_samples(samples, self.alpha);
        config.llr_resolution = self.llr_resolution;
        Ok((target, config))
    }

    /// The ε claimed: `epsilon`, or `level` / `protect` read in the named space's units.
    pub fn claimed_epsilon(&self, spell: &dyn Spelling) -> Fallible<Option<f64>> {
        let opt = |name: &str, value: Shown<'_>| spell.option(name, value);
        Ok(match (&self.protect, self.level, self.epsilon) {
            (Some(distance), Some(level), None) => {
                let with = |e: Error| {
                    Error::NotApplicable(format!(
                        "{} {}: {e}",
                        opt("protect", Shown::Text(distance)),
                        opt("level", Shown::Number(&short(level)))
                    ))
                };
                let radius = self.units.parse_distance(distance).map_err(|e| with(Error::NotApplicable(e.0)))?;
                Budget::Protect { radius, level }.epsilon().map_err(with)?
            }
            (None, None, epsilon) => epsilon,
            (Some(_), None, _) | (None, Some(_), _) => {
                return Err(Error::NotApplicable(format!(
                    "{} and {} go together (epsilon = level / distance)",
                    opt("protect", Shown::Text("DISTANCE")),
                    opt("level", Shown::Number("L"))
                )));
            }
            (Some(_), Some(_), Some(_)) => {
                return Err(Error::NotApplicable(format!(
                    "give the claim once: {} or {} {}",
                    opt("epsilon", Shown::Number("E")),
                    opt("protect", Shown::Text("DISTANCE")),
                    opt("level", Shown::Number("L"))
                )));
            }
        })
    }
}

/// The false-alarm bound of an audit unless the request gives its own.
pub const DEFAULT_AUDIT_ALPHA: f64 = 1e-6;

/// Default draws per input: every negative control is flagged at ε = 1 and ε = 8 with margin, and an audit on
/// SO(3) or a sphere takes a few seconds on two cores.
pub const DEFAULT_AUDIT_SAMPLES: u64 = 200_000;

/// Default draws per input on spd:K, where each draw costs several eigendecompositions.
pub const DEFAULT_SPD_AUDIT_SAMPLES: u64 = 20_000;

/// The fewest draws per input an audit accepts.
pub const MIN_AUDIT_SAMPLES: u64 = 1000;

/// The δ at which the (ε, δ) mechanisms are audited unless the request gives its own. An audit with n draws
/// per input can only refute claims with δ of order 1/n or more (`docs/audit.md`), so the default is a δ
/// that a feasible audit resolves, not the 10⁻⁶ a deployment would use.
pub const DEFAULT_AUDIT_DELTA: f64 = 1e-2;

/// The degree of `generalized-gaussian` unless the request gives its own.
pub const DEFAULT_GG_ORDER: u32 = 3;

/// The mechanisms that take `delta` (an (ε, δ) claim).
const APPROX_DP_NAMES: [&str; 3] = ["gaussian", "generalized-gaussian", "control:gaussian-half-sigma"];

/// The mechanisms of spheres that take `delta`: the Gaussian Fréchet mean's noise, audited as an (ε, δ) claim.
const SPHERE_APPROX_DP_NAMES: [&str; 2] = ["riemannian-gaussian-mean", "control:gaussian-mean-half-sigma"];

/// The mechanisms of spd:K that take `delta`: the log-Euclidean and the affine-invariant Gaussian means' noise,
/// (ε, δ) claims.
const SPD_APPROX_DP_NAMES: [&str; 4] = [
    "log-euclidean-gaussian-mean",
    "control:gaussian-mean-half-sigma",
    "affine-gaussian-mean",
    "control:affine-gaussian-mean-half-sigma",
];

/// The affine-invariant Gaussian mean's names among [`SPD_APPROX_DP_NAMES`].
const SPD_AFFINE_GAUSSIAN_NAMES: [&str; 2] = ["affine-gaussian-mean", "control:affine-gaussian-mean-half-sigma"];

/// The mechanisms that can be audited on `space` (controls included, as `control:NAME`; any of `laplace`,
/// `bingham`, `vmf`, `purkayastha` can also be audited miscalibrated as `control:NAME-xC`, claimed at ε and
/// sampled at C·ε).
pub fn mechanism_names(space: AuditSpace) -> Vec<&'static str> {
    match space {
        AuditSpace::So3 => vec![
            "laplace",
            "bingham",
            "riemannian-laplace",
            "control:bingham-4eps",
            "control:laplace-no-sin2",
            "control:truncated-tail",
            "control:paper-naive",
            "control:unsnapped",
        ],
        AuditSpace::Sphere { dim } => {
            let mut v =
                vec!["vmf", "purkayastha", "planar-laplace", "uniform", "riemannian-laplace", "control:vmf-2eps"];
            v.push("control:unsnapped");
            v.extend(SPHERE_APPROX_DP_NAMES);
            if dim == 2 {
                v.insert(2, "wrapped-laplace");
            }
            v
        }
        AuditSpace::Spd { .. } => {
            let mut v = vec!["riemannian-laplace", "log-euclidean-laplace"];
            v.extend(SPD_APPROX_DP_NAMES);
            v
        }
        AuditSpace::Real => {
            vec!["laplace", "gaussian", "generalized-gaussian", "control:gaussian-half-sigma", "control:unsnapped"]
        }
    }
}

fn unknown(request: &AuditRequest) -> Error {
    Error::NotApplicable(format!(
        "no mechanism {:?} to audit on {}; choose one of: {}",
        request.mechanism,
        request.space,
        mechanism_names(request.space).join(", ")
    ))
}

/// The (ε, δ) a Gaussian mean is audited at (δ by default [`DEFAULT_AUDIT_DELTA`]) and the largest μ whose GDP
/// curve is (ε, δ)-DP there.
fn claimed_gdp(request: &AuditRequest) -> Fallible<(f64, f64, f64)> {
    let eps = need_epsilon(request)?;
    crate::error::check_positive(Param::Epsilon, eps)?;
    let delta = request.delta.unwrap_or(DEFAULT_AUDIT_DELTA);
    if !(delta > 0.0 && delta < 1.0) {
        return Err(Error::InvalidParameter { name: Param::Delta, value: delta, reason: "must lie in (0, 1)" });
    }
    Ok((eps, delta, crate::analysis::riemannian_gdp::gdp_mu_for_approx(eps, delta)?))
}

fn need_epsilon(request: &AuditRequest) -> Fallible<f64> {
    request
        .epsilon
        .ok_or_else(|| Error::Incomplete(format!("auditing {} needs the claimed epsilon", request.mechanism)))
}

/// The distance of a metric between two points of a space, for the pairs (1 for a pure-DP claim: every
/// pair is a pair of neighbouring).
fn claim_distance<P>(g: Guarantee, metric_distance: impl Fn(Metric, &P, &P) -> f64) -> impl Fn(&P, &P) -> f64 {
    move |a, b| match g {
        Guarantee::MetricDp { metric, .. } => metric_distance(metric, a, b),
        _ => 1.0,
    }
}

fn so3_metric(_: Metric, a: &UnitQuaternion<f64>, b: &UnitQuaternion<f64>) -> f64 {
    geodesic(a, b)
}

fn sphere_metric(m: Metric, a: &DVector<f64>, b: &DVector<f64>) -> f64 {
    match m {
        Metric::SphereChordal => chordal_distance(a, b),
        _ => surface_distance(a, b),
    }
}

fn spd_metric(m: Metric, a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    match m {
        // ‖log a − log b‖_F from the computed logarithms: the computed log coordinates' distance.
        Metric::SpdLogEuclidean | Metric::SpdComputedLogCoordinates => log_euclidean_distance(a, b),
        _ => affine_invariant_distance(a, b),
    }
}

fn angle_reference<P, L: AngularLaw + Send + Sync + 'static>(
    quantity: &'static str,
    center: P,
    law: L,
    distance: fn(&P, &P) -> f64,
) -> Option<ReferenceLaw<P>> {
    Some(ReferenceLaw { quantity, center, cdf_sorted: Box::new(move |s| law.cdf_sorted(s)), distance })
}

fn target<M>(
    mechanism: M,
    label: String,
    epsilon: f64,
    claim: String,
    pairs: Vec<InputPair<M::Point>>,
    reference: Option<ReferenceLaw<M::Point>>,
) -> Box<dyn Auditable>
where
    M: Mechanism + Send + Sync + 'static,
    M::Point: crate::audit::auditor::AuditPoint + 'static,
{
    Box::new(AuditTarget { mechanism, label, epsilon, claim, pairs, reference })
}

/// A miscalibration suffix `-xC`: (base name, C).
fn split_factor(name: &str) -> Option<(&str, f64)> {
    let (base, factor) = name.rsplit_once("-x")?;
    let c: f64 = factor.parse().ok()?;
    (c.is_finite() && c > 0.0).then_some((base, c))
}

/// Builds the audit target of `request`. Errors name the valid mechanisms, or the parameter that is out of
/// range.
pub fn build(request: &AuditRequest) -> Fallible<Box<dyn Auditable>> {
    if request.concentration.is_some() && request.mechanism != "bingham" {
        return Err(Error::NotApplicable("a concentration applies to the bingham mechanism only".into()));
    }
    let approx = (request.space == AuditSpace::Real && APPROX_DP_NAMES.contains(&request.mechanism.as_str()))
        || (matches!(request.space, AuditSpace::Sphere { .. })
            && SPHERE_APPROX_DP_NAMES.contains(&request.mechanism.as_str()))
        || (matches!(request.space, AuditSpace::Spd { .. })
            && SPD_APPROX_DP_NAMES.contains(&request.mechanism.as_str()));
    if request.delta.is_some() && !approx {
        return Err(Error::NotApplicable(format!(
            "a delta applies to {} on the real line, {} on spheres and {} on spd:K only",
            APPROX_DP_NAMES.join(", "),
            SPHERE_APPROX_DP_NAMES.join(", "),
            SPD_APPROX_DP_NAMES.join(", ")
        )));
    }
    if request.order.is_some() && !(request.space == AuditSpace::Real && request.mechanism == "generalized-gaussian") {
        return Err(Error::NotApplicable(
            "an order applies to the generalized-gaussian mechanism on the real line only".into(),
        ));
    }
    // The space's size is validated before anything is allocated for it (k×k matrices, pairs of n-vectors).
    match request.space {
        AuditSpace::Sphere { dim } => {
            crate::analysis::sphere_angle::check_dim(dim)?;
        }
        AuditSpace::Spd { k } => {
            SpdAffine::new(k)?;
        }
        AuditSpace::So3 | AuditSpace::Real => {}
    }
    let name = request.mechanism.as_str();
    let label = format!("{name} on {}", request.space);
    match request.space {
        AuditSpace::So3 => build_so3(request, name, label),
        AuditSpace::Sphere { dim } => build_sphere(request, dim, name, label),
        AuditSpace::Spd { k } => build_spd(request, k, name, label),
        AuditSpace::Real => build_real(request, name, label),
    }
}

/// [`ScalarLaplace`] on one real value as a metric-DP mechanism on ℝ: a query of sensitivity Δ released
/// with Laplace(b) noise is pure (Δ/b)-DP, i.e. (1/b)·|x − x′|-private for values x, x′ of the query.
#[derive(Debug, Clone)]
pub struct ScalarLaplaceOnReals {
    inner: ScalarLaplace,
}

impl ScalarLaplaceOnReals {
    /// The wrapped mechanism.
    pub fn new(inner: ScalarLaplace) -> Self {
        ScalarLaplaceOnReals { inner }
    }

    /// ε per unit of |x − x′|: 1/b.
    pub fn epsilon_per_unit(&self) -> f64 {
        1.0 / self.inner.scale()
    }
}

impl Mechanism for ScalarLaplaceOnReals {
    type Point = f64;
    const EXACT_RELEASE: bool = true;

    /// The pure-DP guarantee for neighbouring (values at most Δ apart).
    fn guarantee(&self) -> Guarantee {
        Guarantee::pure(self.inner.epsilon())
    }

    fn privatize_unprotected<R: rand::CryptoRng + ?Sized>(&self, x: &f64, rng: &mut R, _: Unprotected) -> f64 {
        use rand::distr::Distribution;
        x + self.inner.noise().sample(rng)
    }

    /// Rounds onto the release grid (for callers that snap raw values themselves).
    fn snap(&self, z: &mut f64) {
        *z = crate::space::grid::round_to_grid(*z, self.inner.rounded().grid_log2());
    }

    /// The library's release: the exact cell of x + L, drawn with integer coins (not a rounded f64 draw).
    fn privatize<R: rand::CryptoRng + ?Sized>(&self, x: &f64, rng: &mut R) -> Fallible<f64> {
        Ok(self.inner.rounded().sample_at(*x, rng))
    }

    /// −|z − x|/b.
    fn log_density(&self, z: &f64, x: &f64) -> f64 {
        -(z - x).abs() / self.inner.scale()
    }

    fn name(&self) -> &'static str {
        "scalar-laplace"
    }
}

/// The `ApproxDp` guarantee in a list (the claim of an (ε, δ) audit).
fn approx_dp(guarantees: &[Guarantee]) -> Fallible<Guarantee> {
    guarantees
        .iter()
        .copied()
        .find(|g| matches!(g, Guarantee::ApproxDp { .. }))
        .ok_or_else(|| Error::NotApplicable("the mechanism reports no (epsilon, delta) guarantee".into()))
}

/// The [`Gaussian`] mechanism on one real value (a query of the mechanism's sensitivity), claiming the
/// `ApproxDp { ε, δ }` guarantee it reports, for neighbouring values.
#[derive(Debug, Clone)]
pub struct GaussianOnReals {
    inner: Gaussian,
    claim: Guarantee,
}

impl GaussianOnReals {
    /// The wrapped mechanism, claiming its reported (ε, δ).
    pub fn new(inner: Gaussian) -> Fallible<Self> {
        let claim = approx_dp(&inner.guarantees())?;
        Ok(GaussianOnReals { inner, claim })
    }

    /// The wrapped mechanism.
    pub fn inner(&self) -> &Gaussian {
        &self.inner
    }
}

impl Mechanism for GaussianOnReals {
    type Point = f64;
    const EXACT_RELEASE: bool = true;

    /// `ApproxDp { ε, δ }` for neighbouring (values at most the sensitivity apart).
    fn guarantee(&self) -> Guarantee {
        self.claim
    }

    fn privatize_unprotected<R: rand::CryptoRng + ?Sized>(&self, x: &f64, rng: &mut R, _: Unprotected) -> f64 {
        x + self.inner.unprotected_noise(rng)
    }

    /// Rounds onto the release grid (for callers that snap raw values themselves).
    fn snap(&self, z: &mut f64) {
        *z = crate::space::grid::round_to_grid(*z, self.inner.rounded().grid_log2());
    }

    /// The library's release: the exact cell of x + σZ (Karney's exact sampler), not a rounded f64 draw.
    fn privatize<R: rand::CryptoRng + ?Sized>(&self, x: &f64, rng: &mut R) -> Fallible<f64> {
        Ok(self.inner.rounded().sample_at(*x, rng))
    }

    /// −(z − x)²/(2σ²).
    fn log_density(&self, z: &f64, x: &f64) -> f64 {
        let u = (z - x) / self.inner.sigma();
        -0.5 * u * u
    }

    fn name(&self) -> &'static str {
        "gaussian"
    }
}

/// The [`GeneralizedGaussian`] mechanism on one real value, claiming the `ApproxDp { ε, δ }` guarantee it
/// reports at its standard δ, for neighbouring values.
#[derive(Debug, Clone)]
pub struct GeneralizedGaussianOnReals {
    inner: GeneralizedGaussian,
    claim: Guarantee,
}

impl GeneralizedGaussianOnReals {
    /// The wrapped mechanism (one coordinate), claiming its reported (ε, δ).
    pub fn new(inner: GeneralizedGaussian) -> Fallible<Self> {
        if inner.dimension() != 1 {
            return Err(Error::NotApplicable("the audit on the real line needs a one-coordinate mechanism".into()));
        }
        let claim = approx_dp(&inner.guarantees())?;
        Ok(GeneralizedGaussianOnReals { inner, claim })
    }

    /// The scale s whose reported (ε, δ) guarantee on a query of sensitivity 1 has ε ≤ `epsilon`, as large as
    /// bisection finds it: the largest shift d = 1/s with [`generalized_gaussian_epsilon`](N, d, δ) ≤ ε,
    /// inverted with upward rounding (a larger scale only lowers ε).
    pub fn calibrate(order: u32, epsilon: f64, delta: f64) -> Fallible<Self> {
        crate::error::check_positive(Param::Epsilon, epsilon)?;
        let ok = |d: f64| generalized_gaussian_epsilon(order, d, delta).is_ok_and(|e| e <= epsilon);
        let (mut lo, mut hi) = (1.0, 1.0);
        while ok(hi) {
            hi *= 2.0;
            if hi > 1e150 {
                return Err(Error::NumericalLimit(format!(
                    "no scale reaches epsilon = {}",
                    crate::numerics::format::short(epsilon)
                )));
            }
        }
        while !ok(lo) {
            lo *= 0.5;
            if lo < 1e-150 {
                return Err(Error::NumericalLimit(format!(
                    "no scale reaches epsilon = {}",
                    crate::numerics::format::short(epsilon)
                )));
            }
        }
        let d = crate::analysis::gaussian_dp::bisect(lo, hi.max(2.0 * lo), false, ok);
        let scale = crate::numerics::rounding::div_up(1.0, d);
        Self::new(GeneralizedGaussian::new(order, 1.0, scale)?.with_standard_delta(delta)?)
    }

    /// The wrapped mechanism.
    pub fn inner(&self) -> &GeneralizedGaussian {
        &self.inner
    }
}

impl Mechanism for GeneralizedGaussianOnReals {
    type Point = f64;
    const EXACT_RELEASE: bool = true;

    /// `ApproxDp { ε, δ }` for neighbouring (values at most the sensitivity apart).
    fn guarantee(&self) -> Guarantee {
        self.claim
    }

    fn privatize_unprotected<R: rand::CryptoRng + ?Sized>(&self, x: &f64, rng: &mut R, _: Unprotected) -> f64 {
        use rand::distr::Distribution;
        x + self.inner.noise().sample(rng)
    }

    /// Rounds onto the release grid (for callers that snap raw values themselves).
    fn snap(&self, z: &mut f64) {
        *z = crate::space::grid::round_to_grid(*z, self.inner.rounded().grid_log2());
    }

    /// The library's release: the exact cell of x + X (`docs/proofs/float_safety.md` §8c), not a rounded f64
    /// draw.
    fn privatize<R: rand::CryptoRng + ?Sized>(&self, x: &f64, rng: &mut R) -> Fallible<f64> {
        Ok(self.inner.rounded().sample_at(*x, rng))
    }

    /// −(|z − x|/s)^N (up to the normalising constant).
    fn log_density(&self, z: &f64, x: &f64) -> f64 {
        self.inner.noise().ln_density(z - x)
    }

    fn name(&self) -> &'static str {
        "generalized-gaussian"
    }
}

/// The law of |z − x| of a Gaussian release, for the goodness-of-fit companion.
fn half_normal_reference(sigma: f64) -> ReferenceLaw<f64> {
    ReferenceLaw {
        quantity: "absolute noise |z - x|",
        center: 0.0,
        cdf_sorted: Box::new(move |s: &[f64]| {
            s.iter().map(|&t| erf(t.max(0.0) / (sigma * std::f64::consts::SQRT_2))).collect()
        }),
        distance: |a: &f64, b: &f64| (a - b).abs(),
    }
}

fn approx_claim_text(g: &Guarantee, what: String) -> String {
    format!("{g} for neighbouring values |x - x'| <= 1 (a query of sensitivity 1), {what}")
}

fn build_real_approx(request: &AuditRequest, name: &str, label: String) -> Fallible<Box<dyn Auditable>> {
    let eps = need_epsilon(request)?;
    crate::error::check_positive(Param::Epsilon, eps)?;
    let delta = request.delta.unwrap_or(DEFAULT_AUDIT_DELTA);
    if !(delta > 0.0 && delta < 1.0) {
        return Err(Error::InvalidParameter { name: Param::Delta, value: delta, reason: "must lie in (0, 1)" });
    }
    let pairs = pairs::real_neighbour_pairs(1.0);
    Ok(match name {
        "gaussian" => {
            let m = GaussianOnReals::new(Gaussian::analytic(1.0, eps, delta)?)?;
            let g = m.guarantee();
            let sigma = m.inner().sigma();
            let claim = approx_claim_text(
                &g,
                format!(
                    "Gaussian noise sigma = {} (analytic calibration; outputs on the grid of spacing 2^{})",
                    crate::numerics::format::short(sigma),
                    m.inner().rounded().grid_log2()
                ),
            );
            target(m, label, eps, claim, pairs, Some(half_normal_reference(sigma)))
        }
        "control:gaussian-half-sigma" => {
            let claimed = GaussianOnReals::new(Gaussian::analytic(1.0, eps, delta)?)?;
            let sigma = claimed.inner().sigma();
            let actual = GaussianOnReals::new(Gaussian::new(1.0, 0.5 * sigma)?)?;
            let m = controls::Miscalibrated::new(claimed, actual);
            let g = m.guarantee();
            let claim = approx_claim_text(
                &g,
                format!("claimed for sigma = {}, sampled with sigma/2", crate::numerics::format::short(sigma)),
            );
            target(m, label, eps, claim, pairs, Some(half_normal_reference(sigma)))
        }
        "generalized-gaussian" => {
            let order = request.order.unwrap_or(DEFAULT_GG_ORDER);
            let m = GeneralizedGaussianOnReals::calibrate(order, eps, delta)?;
            let g = m.guarantee();
            let epsilon = g.epsilon().unwrap_or(eps);
            let noise = m.inner().noise().clone();
            let claim = approx_claim_text(
                &g,
                format!(
                    "generalized Gaussian of degree {order}, scale s = {} (outputs on the grid of spacing 2^{})",
                    noise.scale(),
                    m.inner().rounded().grid_log2()
                ),
            );
            let reference = ReferenceLaw {
                quantity: "absolute noise |z - x|",
                center: 0.0,
                cdf_sorted: Box::new(move |s: &[f64]| s.iter().map(|&t| 1.0 - noise.tail(t.max(0.0))).collect()),
                distance: |a: &f64, b: &f64| (a - b).abs(),
            };
            target(m, label, epsilon, claim, pairs, Some(reference))
        }
        _ => return Err(unknown(request)),
    })
}

fn build_real(request: &AuditRequest, name: &str, label: String) -> Fallible<Box<dyn Auditable>> {
    if APPROX_DP_NAMES.contains(&name) {
        return build_real_approx(request, name, label);
    }
    let eps = need_epsilon(request)?;
    if name != "laplace" && name != "control:unsnapped" {
        return Err(unknown(request));
    }
    let m = ScalarLaplaceOnReals::new(ScalarLaplace::for_epsilon(1.0, eps)?);
    let per_unit = m.epsilon_per_unit();
    let scale = m.inner.scale();
    let claim = format!(
        "metric DP on the real line, epsilon = {per_unit} per unit of |x - x'| (pure epsilon-DP with epsilon = {eps} \
         for a query of sensitivity 1; outputs on the grid of spacing 2^{})",
        m.inner.rounded().grid_log2()
    );
    let reference = ReferenceLaw {
        quantity: "absolute noise |z - x|",
        center: 0.0,
        cdf_sorted: Box::new(move |s: &[f64]| s.iter().map(|&t| -(-t.max(0.0) / scale).exp_m1()).collect()),
        distance: |a: &f64, b: &f64| (a - b).abs(),
    };
    let pairs = pairs::real_pairs(per_unit);
    Ok(if name == "laplace" {
        target(m, label, per_unit, claim, pairs, Some(reference))
    } else {
        target(controls::Unsnapped(m), label, per_unit, claim, pairs, Some(reference))
    })
}

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

fn build_so3(request: &AuditRequest, name: &str, label: String) -> Fallible<Box<dyn Auditable>> {
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
        "laplace" => so3_target(LaplaceSo3::new(eps)?, label, boxed(LaplaceAngle::new(eps)?)),
        "control:unsnapped" => {
            so3_target(controls::Unsnapped(LaplaceSo3::new(eps)?), label, boxed(LaplaceAngle::new(eps)?))
        }
        "bingham" => {
            let m = BinghamSo3::new(eps)?;
            let law = BinghamAngle::new(m.kappa())?;
            so3_target(m, label, boxed(law))
        }
        "riemannian-laplace" => {
            so3_target(RiemannianLaplace::new(So3, 1.0 / eps)?, label, boxed(LaplaceAngle::new(eps)?))
        }
        "control:bingham-4eps" => {
            let m = controls::bingham_4eps(eps)?;
            let law = BinghamAngle::new(m.claimed().kappa())?;
            so3_target(m, label, boxed(law))
        }
        "control:laplace-no-sin2" => so3_target(LaplaceWithoutSin2::new(eps)?, label, boxed(LaplaceAngle::new(eps)?)),
        "control:truncated-tail" => {
            so3_target(TruncatedTail::new(eps, controls::TRUNCATED_TAIL_MASS)?, label, boxed(LaplaceAngle::new(eps)?))
        }
        "control:paper-naive" => so3_target(PaperNaive::new(eps)?, label, boxed(LaplaceAngle::new(eps)?)),
        _ => match name.strip_prefix("control:").and_then(split_factor) {
            Some(("laplace", c)) => so3_target(
                Miscalibrated::new(LaplaceSo3::new(eps)?, LaplaceSo3::new(c * eps)?),
                label,
                boxed(LaplaceAngle::new(eps)?),
            ),
            Some(("bingham", c)) => {
                let claimed = BinghamSo3::new(eps)?;
                let law = BinghamAngle::new(claimed.kappa())?;
                so3_target(Miscalibrated::new(claimed, BinghamSo3::new(c * eps)?), label, boxed(law))
            }
            _ => return Err(unknown(request)),
        },
    })
}

/// The CDF of the great-circle angle of a uniform point of S^{dim−1} from a fixed point: (1 − cos θ)/2 =
/// sin²(θ/2) ~ Beta((dim − 1)/2, (dim − 1)/2).
fn uniform_angle_cdf(dim: usize) -> impl Fn(&[f64]) -> Vec<f64> + Send + Sync {
    let a = 0.5 * (dim - 1) as f64;
    move |s: &[f64]| s.iter().map(|&t| beta_reg(a, a, (0.5 * t.clamp(0.0, PI)).sin().powi(2).min(1.0))).collect()
}

/// The CDF of the great-circle angle from the reference point of a planar-Laplace release of it: the tangent
/// radius r ~ Gamma(dim − 1, rate ε) folded onto [0, π], P[angle ≤ a] = Σ_k G(2πk + a) − G(2πk − a).
fn folded_gamma_cdf(dim: usize, epsilon: f64) -> impl Fn(&[f64]) -> Vec<f64> + Send + Sync {
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
fn build_gaussian_mean(request: &AuditRequest, dim: usize, name: &str, label: String) -> Fallible<Box<dyn Auditable>> {
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
        "riemannian-gaussian-mean" => target(claimed, label, eps, format!("{claim} {what}"), pairs, None),
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

fn build_sphere(request: &AuditRequest, dim: usize, name: &str, label: String) -> Fallible<Box<dyn Auditable>> {
    if SPHERE_APPROX_DP_NAMES.contains(&name) {
        return build_gaussian_mean(request, dim, name, label);
    }
    let angle = "great-circle angle";
    let metric = |g: &Guarantee| claim_distance(*g, sphere_metric);
    if name == "uniform" {
        let m = UniformSphere::new(dim)?;
        let g = m.guarantee();
        let scale = request.epsilon.unwrap_or(1.0);
        return Ok(sphere_target(dim, m, label, scale, metric(&g), Some((angle, Box::new(uniform_angle_cdf(dim))))));
    }
    let eps = need_epsilon(request)?;
    crate::error::check_positive(Param::Epsilon, eps)?;
    Ok(match name {
        "vmf" => {
            let m = VmfSphere::new(dim, eps)?;
            let g = m.guarantee();
            let law = m.angle_law();
            sphere_target(dim, m, label, eps, metric(&g), Some((angle, law_cdf(law))))
        }
        "purkayastha" => {
            let m = PurkayasthaSphere::new(dim, eps)?;
            let g = m.guarantee();
            let law = m.angle_law();
            sphere_target(dim, m, label, eps, metric(&g), Some((angle, law_cdf(law))))
        }
        "riemannian-laplace" => {
            let m = RiemannianLaplace::new(Sphere::new(dim)?, 1.0 / eps)?;
            let g = m.guarantee();
            let law = SphereAngle::purkayastha(dim, eps)?;
            sphere_target(dim, m, label, eps, metric(&g), Some((angle, law_cdf(law))))
        }
        "wrapped-laplace" if dim == 2 => {
            let m = WrappedLaplaceCircle::new(eps)?;
            let g = m.guarantee();
            let law = WrappedLaplaceAngle::new(eps)?;
            sphere_target(dim, m, label, eps, metric(&g), Some((angle, law_cdf(law))))
        }
        "wrapped-laplace" => {
            return Err(Error::NotApplicable(
                "wrapped-laplace works on the circle only (space circle or timeofday)".into(),
            ));
        }
        "planar-laplace" => {
            let mut north = DVector::zeros(dim);
            north[dim - 1] = 1.0;
            let m = TangentPlanarLaplace::new(north, eps)?;
            let tangent = m.clone();
            let d = move |a: &DVector<f64>, b: &DVector<f64>| (tangent.log_map(a) - tangent.log_map(b)).norm();
            sphere_target(dim, m, label, eps, d, Some((angle, Box::new(folded_gamma_cdf(dim, eps)))))
        }
        "control:unsnapped" => {
            let m = PurkayasthaSphere::new(dim, eps)?;
            let g = m.guarantee();
            let law = m.angle_law();
            sphere_target(dim, controls::Unsnapped(m), label, eps, metric(&g), Some((angle, law_cdf(law))))
        }
        "control:vmf-2eps" => {
            let m = controls::vmf_2eps(dim, eps)?;
            let g = m.guarantee();
            let law = m.claimed().angle_law();
            sphere_target(dim, m, label, eps, metric(&g), Some((angle, law_cdf(law))))
        }
        _ => match name.strip_prefix("control:").and_then(split_factor) {
            Some(("vmf", c)) => {
                let claimed = VmfSphere::new(dim, eps)?;
                let (g, law) = (claimed.guarantee(), claimed.angle_law());
                let m = Miscalibrated::new(claimed, VmfSphere::new(dim, c * eps)?);
                sphere_target(dim, m, label, eps, metric(&g), Some((angle, law_cdf(law))))
            }
            Some(("purkayastha", c)) => {
                let claimed = PurkayasthaSphere::new(dim, eps)?;
                let (g, law) = (claimed.guarantee(), claimed.angle_law());
                let m = Miscalibrated::new(claimed, PurkayasthaSphere::new(dim, c * eps)?);
                sphere_target(dim, m, label, eps, metric(&g), Some((angle, law_cdf(law))))
            }
            _ => return Err(unknown(request)),
        },
    })
}

/// The public ball the affine-invariant SPD Laplace is audited in (around I).
const SPD_AUDIT_RADIUS: f64 = 2.0;

/// `log-euclidean-gaussian-mean` (and its control with σ halved) on SPD(k), k ≤ 8: the log-Euclidean Gaussian
/// mean of n = 40 rows within 1.5 of I at the largest μ that is (ε, δ)-DP, audited at that (ε, δ) on footpoints
/// at most its Δ apart.
fn build_log_euclidean_gaussian(
    request: &AuditRequest,
    k: usize,
    name: &str,
    label: String,
) -> Fallible<Box<dyn Auditable>> {
    use super::log_euclidean_gaussian::{LogEuclideanGaussianNoise, audited_mean, neighbour_pairs};
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
        "log-euclidean-gaussian-mean" => target(claimed, label, eps, format!("{claim} {what}"), pairs, None),
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
fn build_affine_gaussian(request: &AuditRequest, k: usize, name: &str, label: String) -> Fallible<Box<dyn Auditable>> {
    use super::affine_gaussian::{AffineGaussianNoise, audited_mean, neighbour_pairs};
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
        "affine-gaussian-mean" => {
            target(AffineGaussianNoise::new(mean, claim), label, eps, format!("{claim} {what}"), pairs, None)
        }
        _ => {
            let actual = AffineGaussianNoise::new(audited_mean(k, 2.0 * mu)?, claim);
            let m = controls::Miscalibrated::new(AffineGaussianNoise::new(mean, claim), actual);
            target(m, label, eps, format!("{claim} {what}, sampled with sigma/2"), pairs, None)
        }
    })
}

fn build_spd(request: &AuditRequest, k: usize, name: &str, label: String) -> Fallible<Box<dyn Auditable>> {
    if SPD_AFFINE_GAUSSIAN_NAMES.contains(&name) {
        return build_affine_gaussian(request, k, name, label);
    }
    if SPD_APPROX_DP_NAMES.contains(&name) {
        return build_log_euclidean_gaussian(request, k, name, label);
    }
    let eps = need_epsilon(request)?;
    crate::error::check_positive(Param::Epsilon, eps)?;
    let sigma = 1.0 / eps;
    let id = DMatrix::<f64>::identity(k, k);
    match name {
        "riemannian-laplace" => {
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
        "log-euclidean-laplace" => {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes options as `<name|value>`.
    struct Marked;

    impl Spelling for Marked {
        fn option(&self, name: &str, value: Shown<'_>) -> String {
            match value {
                Shown::Number(v) | Shown::Text(v) => format!("<{name}|{v}>"),
                _ => format!("<{name}>"),
            }
        }
    }

    #[test]
    fn an_audit_request_applies_the_front_ends_common_rules() {
        let refusal = |r: AuditRequest| r.plan(&Marked).err().map(|e| e.to_string()).unwrap_or_default();
        let so3 = AuditRequest::named("so3", "laplace", Some(1.0)).unwrap();
        assert!(refusal(AuditRequest { samples: Some(500), ..so3.clone() }).contains("<samples|500> is out of range"));
        assert!(refusal(AuditRequest { alpha: 0.0, ..so3.clone() }).contains("<alpha|0> must lie in"));
        assert!(refusal(AuditRequest { llr_resolution: 1.0, ..so3.clone() }).contains("<llr_resolution|1>"));
        let bare = AuditRequest::named("so3", "laplace", None).unwrap();
        assert!(refusal(bare.clone()).contains("give the claimed <epsilon|E>"));
        let half = AuditRequest { protect: Some("10deg".into()), ..bare.clone() };
        assert!(refusal(half).contains("go together"));
        // protect is read in the named space's units: 2 km on latlon is ε = R/2 per radian.
        let latlon = AuditRequest {
            protect: Some("2km".into()),
            level: Some(1.0),
            ..AuditRequest::named("latlon", "purkayastha", None).unwrap()
        };
        let eps = latlon.claimed_epsilon(&Marked).unwrap().unwrap();
        assert!((eps / (crate::space::sphere::EARTH_RADIUS_KM / 2.0) - 1.0).abs() < 1e-12, "{eps}");
        assert_eq!(latlon.plan(&Marked).map(|(_, c)| c.samples).ok(), Some(DEFAULT_AUDIT_SAMPLES));
        let spd = AuditRequest::named("spd:2", "log-euclidean-laplace", Some(1.0)).unwrap();
        assert_eq!(spd.plan(&Marked).map(|(_, c)| c.samples).ok(), Some(DEFAULT_SPD_AUDIT_SAMPLES));
        assert!(AuditRequest::named("torus", "laplace", Some(1.0)).is_err());
    }

    #[test]
    fn audit_spaces_are_the_registry_s_and_real() {
        for (text, space) in [
            ("so3", AuditSpace::So3),
            ("SO3", AuditSpace::So3),
            ("timeofday", AuditSpace::Sphere { dim: 2 }),
            ("circle", AuditSpace::Sphere { dim: 2 }),
            ("latlon", AuditSpace::Sphere { dim: 3 }),
            ("sphere:10", AuditSpace::Sphere { dim: 10 }),
            ("spd:1", AuditSpace::Spd { k: 1 }),
            (" real ", AuditSpace::Real),
        ] {
            assert_eq!(text.parse::<AuditSpace>().unwrap(), space, "{text}");
        }
        for bad in ["bogus", "spd:65", "sphere:1", "spd:4294967296", ""] {
            let e = bad.parse::<AuditSpace>().unwrap_err().to_string();
            assert!(e.contains("or real"), "{bad}: {e}");
        }
        // The catalog refuses what the samplers do not cover, with the library's reason.
        assert!(build(&AuditRequest::new(AuditSpace::Spd { k: 1 }, "riemannian-laplace", Some(1.0))).is_err());
    }

    #[test]
    fn refusals_are_classified() {
        let refused = |r: AuditRequest| build(&r).err().expect("refused");
        let laplace = |eps| AuditRequest::new(AuditSpace::So3, "laplace", eps);
        assert!(matches!(refused(AuditRequest::new(AuditSpace::So3, "nope", Some(1.0))), Error::NotApplicable(_)));
        assert!(matches!(
            refused(AuditRequest { concentration: Some(2.0), ..laplace(Some(1.0)) }),
            Error::NotApplicable(_)
        ));
        assert!(matches!(refused(laplace(None)), Error::Incomplete(_)));
    }

    #[test]
    fn every_listed_name_builds_and_unknown_names_are_refused() {
        for space in [
            AuditSpace::So3,
            AuditSpace::Sphere { dim: 2 },
            AuditSpace::Sphere { dim: 3 },
            AuditSpace::Spd { k: 2 },
            AuditSpace::Real,
        ] {
            for name in mechanism_names(space) {
                let r = AuditRequest::new(space, name, Some(2.0));
                assert!(build(&r).is_ok(), "{name} on {space}");
            }
            let r = AuditRequest::new(space, "nope", Some(1.0));
            assert!(build(&r).is_err());
        }
        let r = AuditRequest::new(AuditSpace::So3, "control:laplace-x1.5", Some(1.0));
        assert!(build(&r).is_ok());
        // The log-Euclidean Gaussian mean: 2 ≤ K ≤ 8, with or without a delta.
        for k in [2, 5, 8] {
            let mut r = AuditRequest::new(AuditSpace::Spd { k }, "log-euclidean-gaussian-mean", Some(1.0));
            assert!(build(&r).is_ok(), "{k}");
            r.delta = Some(1e-3);
            assert!(build(&r).is_ok(), "{k}");
        }
        for k in [1, 9] {
            let r = AuditRequest::new(AuditSpace::Spd { k }, "log-euclidean-gaussian-mean", Some(1.0));
            assert!(build(&r).is_err(), "{k}");
        }
        // The affine-invariant Gaussian mean: 2 ≤ K ≤ 3.
        for (k, ok) in [(1, false), (2, true), (3, true), (4, false)] {
            for name in ["affine-gaussian-mean", "control:affine-gaussian-mean-half-sigma"] {
                let r = AuditRequest::new(AuditSpace::Spd { k }, name, Some(1.0));
                assert_eq!(build(&r).is_ok(), ok, "{name} on spd:{k}");
            }
        }
        // --delta and --order only where they mean something.
        let mut r = AuditRequest::new(AuditSpace::Real, "laplace", Some(1.0));
        r.delta = Some(1e-3);
        assert!(build(&r).is_err());
        let mut r = AuditRequest::new(AuditSpace::Real, "gaussian", Some(1.0));
        r.order = Some(4);
        assert!(build(&r).is_err());
        for delta in [0.0, 1.0, f64::NAN] {
            r = AuditRequest::new(AuditSpace::Real, "gaussian", Some(1.0));
            r.delta = Some(delta);
            assert!(build(&r).is_err(), "{delta}");
        }
    }

    #[test]
    fn generalized_gaussian_calibration_claims_at_most_the_requested_epsilon() {
        for order in [2, 3, 8] {
            let m = GeneralizedGaussianOnReals::calibrate(order, 1.0, 1e-2).unwrap();
            let Guarantee::ApproxDp { epsilon, delta } = m.guarantee() else { panic!("{:?}", m.guarantee()) };
            assert_eq!(delta, 1e-2);
            assert!(epsilon <= 1.0 && epsilon > 1.0 - 1e-6, "order {order}: {epsilon}");
        }
    }

    #[test]
    fn reference_cdfs_are_distribution_functions() {
        let u = uniform_angle_cdf(2);
        let v = u(&[0.0, PI / 2.0, PI]);
        assert!((v[1] - 0.5).abs() < 1e-12 && v[0] == 0.0 && (v[2] - 1.0).abs() < 1e-12);
        // S²: uniform angle has CDF (1 − cos θ)/2.
        let u3 = uniform_angle_cdf(3);
        assert!((u3(&[1.0])[0] - (1.0 - 1f64.cos()) / 2.0).abs() < 1e-12);
        // Circle: the folded exponential is the wrapped Laplace angle law.
        let folded = folded_gamma_cdf(2, 0.7);
        let wrapped = WrappedLaplaceAngle::new(0.7).unwrap();
        for a in [0.1, 1.0, 2.5, PI] {
            assert!((folded(&[a])[0] - wrapped.cdf(a)).abs() < 1e-12, "{a}");
        }
    }
}
