//! Every mechanism of the library, and every negative control, as an audit target chosen by name at run
//! time: what `manifold-dp audit` and the table in `docs/audit.md` use.
//!
//! A target bundles the mechanism, the ε it claims, the input pairs of its space ([`crate::audit::pairs`])
//! with distances in the claim's metric, and the exact law of the release's distance to its input (for the
//! goodness-of-fit companion).

use crate::audit::auditor::{
    AuditConfig, AuditTarget, Auditable, DEFAULT_LLR_RESOLUTION, InputPair, MAX_AUDIT_SAMPLES, MIN_AUDIT_ALPHA,
    ReferenceLaw,
};
use crate::error::{Error, Fallible, Param};
use crate::manifold::SpdAffine;
use crate::mechanism::Mechanism;
use crate::numerics::format::short;
use crate::privacy::{Guarantee, Metric};
use crate::registry::{Budget, Shown, Space, Spelling};

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
        if epsilon.is_none() && self.concentration.is_none() && self.mechanism.parse() != Ok(AuditName::Uniform) {
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

/// The mechanisms that can be audited on `space` (controls included, as `control:NAME`; any of `laplace`,
/// `bingham`, `vmf`, `purkayastha` can also be audited miscalibrated as `control:NAME-xC`, claimed at ε and
/// sampled at C·ε), spelled as the command line takes them ([`AuditName::on`]).
pub fn mechanism_names(space: AuditSpace) -> Vec<&'static str> {
    AuditName::on(space).into_iter().filter_map(AuditName::spelling).collect()
}

pub(super) fn unknown(request: &AuditRequest) -> Error {
    Error::NotApplicable(format!(
        "no mechanism {:?} to audit on {}; choose one of: {}",
        request.mechanism,
        request.space,
        mechanism_names(request.space).join(", ")
    ))
}

/// The (ε, δ) a Gaussian mean is audited at (δ by default [`DEFAULT_AUDIT_DELTA`]) and the largest μ whose GDP
/// curve is (ε, δ)-DP there.
pub(super) fn claimed_gdp(request: &AuditRequest) -> Fallible<(f64, f64, f64)> {
    let eps = need_epsilon(request)?;
    crate::error::check_positive(Param::Epsilon, eps)?;
    let delta = request.delta.unwrap_or(DEFAULT_AUDIT_DELTA);
    if !(delta > 0.0 && delta < 1.0) {
        return Err(Error::InvalidParameter { name: Param::Delta, value: delta, reason: "must lie in (0, 1)" });
    }
    Ok((eps, delta, crate::analysis::riemannian_gdp::gdp_mu_for_approx(eps, delta)?))
}

pub(super) fn need_epsilon(request: &AuditRequest) -> Fallible<f64> {
    request
        .epsilon
        .ok_or_else(|| Error::Incomplete(format!("auditing {} needs the claimed epsilon", request.mechanism)))
}

/// The distance of a metric between two points of a space, for the pairs (1 for a pure-DP claim: every
/// pair is a pair of neighbouring).
pub(super) fn claim_distance<P>(
    g: Guarantee,
    metric_distance: impl Fn(Metric, &P, &P) -> f64,
) -> impl Fn(&P, &P) -> f64 {
    move |a, b| match g {
        Guarantee::MetricDp { metric, .. } => metric_distance(metric, a, b),
        _ => 1.0,
    }
}

pub(super) fn target<M>(
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

/// Builds the audit target of `request`. Errors name the valid mechanisms, or the parameter that is out of
/// range.
pub fn build(request: &AuditRequest) -> Fallible<Box<dyn Auditable>> {
    let space = request.space;
    let name: AuditName = request.mechanism.parse().map_err(|()| unknown(request))?;
    if request.concentration.is_some() && name != AuditName::Bingham {
        return Err(Error::NotApplicable("a concentration applies to the bingham mechanism only".into()));
    }
    if request.delta.is_some() && !name.takes_delta(space) {
        return Err(Error::NotApplicable(format!(
            "a delta applies to {} on the real line, {} on spheres and {} on spd:K only",
            AuditName::with_delta(AuditSpace::Real).join(", "),
            AuditName::with_delta(AuditSpace::Sphere { dim: 3 }).join(", "),
            AuditName::with_delta(AuditSpace::Spd { k: 2 }).join(", ")
        )));
    }
    if request.order.is_some() && !(space == AuditSpace::Real && name == AuditName::GeneralizedGaussian) {
        return Err(Error::NotApplicable(
            "an order applies to the generalized-gaussian mechanism on the real line only".into(),
        ));
    }
    // The space's size is validated before anything is allocated for it (k×k matrices, pairs of n-vectors).
    match space {
        AuditSpace::Sphere { dim } => {
            crate::analysis::sphere_angle::check_dim(dim)?;
        }
        AuditSpace::Spd { k } => {
            SpdAffine::new(k)?;
        }
        AuditSpace::So3 | AuditSpace::Real => {}
    }
    // The label keeps the name as typed (`control:vmf-x2`, not a reformatted factor).
    let label = format!("{} on {space}", request.mechanism);
    match space {
        AuditSpace::So3 => build_so3(request, name, label),
        AuditSpace::Sphere { dim } => build_sphere(request, dim, name, label),
        AuditSpace::Spd { k } => build_spd(request, k, name, label),
        AuditSpace::Real => build_real(request, name, label),
    }
}

mod names;
mod real;
mod so3;
mod spd;
mod sphere;
#[cfg(test)]
mod tests;

pub use names::{AuditName, Calibrated};
use real::build_real;
pub use real::{GaussianOnReals, GeneralizedGaussianOnReals, ScalarLaplaceOnReals};
use so3::build_so3;
use spd::build_spd;
pub use sphere::GaussianMeanNoise;
use sphere::build_sphere;
