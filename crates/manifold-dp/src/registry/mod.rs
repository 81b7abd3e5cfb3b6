//! The one registry of spaces and mechanisms that every front end (command line, Python, Spark) parses its
//! names with: [`Space`] (`so3`, `circle`, `timeofday`, `latlon`, `sphere:N`, `spd:K`), [`MechanismName`]
//! (`laplace`, `bingham`, `vmf`, `purkayastha`, `wrapped-laplace`), the budget as ε or as "protect a distance
//! at a level" with units ([`Budget`]), and the mechanism they build ([`PointMechanism`]) from one
//! [`PointRequest`] that every front end fills in the same way.

use crate::error::Param;
use crate::error::{Error, Fallible};
use crate::mechanism::scalar::BoundedLaplace;
use crate::mechanism::{Mechanism, So3Kind, So3Mechanism, SphereKind, SphereMechanism};
use crate::privacy::Guarantee;
use std::fmt;
use std::str::FromStr;

pub use crate::space::kind::{DistanceUnit, MAX_SPD_DIM, Space, UnknownName};
pub use request::{ChoiceNote, PointPlan, PointRequest, RadiusPlan, RadiusRequest, Shown, Spelling};

pub mod request;

/// How a private mean estimates where the data lie.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Estimator {
    /// The Fréchet (Karcher) mean of rows in a public ball, noised by the Riemannian Laplace mechanism
    /// (`crate::mechanism::PrivateFrechetMean`).
    #[default]
    Frechet,
    /// The mean of the embedded rows (rotation matrices, unit vectors) with ℓ₂ K-norm noise, projected back onto
    /// the space: no centre or radius, rows anywhere (`crate::mechanism::ExtrinsicMean`; so3 and the spheres).
    Extrinsic,
}

impl FromStr for Estimator {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, UnknownName> {
        match s.trim().to_ascii_lowercase().as_str() {
            "frechet" | "fréchet" => Ok(Estimator::Frechet),
            "extrinsic" => Ok(Estimator::Extrinsic),
            _ => Err(UnknownName(format!(
                "unknown estimator {s:?}: use frechet (the Fréchet mean of rows in a public ball) or extrinsic (the \
                 projected mean of the embedded rows, for data anywhere on so3, sphere:N, latlon, circle, timeofday)"
            ))),
        }
    }
}

impl fmt::Display for Estimator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Estimator::Frechet => "frechet",
            Estimator::Extrinsic => "extrinsic",
        })
    }
}

/// A mechanism's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MechanismName {
    /// Laplace on SO(3): density ∝ exp(−ε·angle).
    Laplace,
    /// Bingham on SO(3) with the tight concentration κ = 2ε.
    Bingham,
    /// von Mises–Fisher on a sphere or circle (κ = ε).
    Vmf,
    /// Purkayastha on a sphere or circle (κ = ε): density ∝ exp(−ε·great-circle angle).
    Purkayastha,
    /// Wrapped Laplace on the circle (the directional paper's baseline).
    WrappedLaplace,
}

impl MechanismName {
    /// Every mechanism, in the order help texts list them.
    pub const ALL: [MechanismName; 5] = [
        MechanismName::Laplace,
        MechanismName::Bingham,
        MechanismName::Vmf,
        MechanismName::Purkayastha,
        MechanismName::WrappedLaplace,
    ];

    /// The name as written (`wrapped-laplace`).
    pub fn as_str(self) -> &'static str {
        match self {
            MechanismName::Laplace => "laplace",
            MechanismName::Bingham => "bingham",
            MechanismName::Vmf => "vmf",
            MechanismName::Purkayastha => "purkayastha",
            MechanismName::WrappedLaplace => "wrapped-laplace",
        }
    }

    /// The SO(3) mechanism this names, if it is one.
    pub fn so3_kind(self) -> Option<So3Kind> {
        match self {
            MechanismName::Laplace => Some(So3Kind::Laplace),
            MechanismName::Bingham => Some(So3Kind::Bingham),
            _ => None,
        }
    }

    /// The directional mechanism this names, if it is one.
    pub fn sphere_kind(self) -> Option<SphereKind> {
        match self {
            MechanismName::Vmf => Some(SphereKind::Vmf),
            MechanismName::Purkayastha => Some(SphereKind::Purkayastha),
            MechanismName::WrappedLaplace => Some(SphereKind::WrappedLaplace),
            _ => None,
        }
    }

    /// Whether this mechanism releases points of `space`.
    pub fn applies_to(self, space: Space) -> bool {
        match (space, self) {
            (Space::So3, m) => m.so3_kind().is_some(),
            (Space::Spd(_), _) => false,
            (Space::Real, m) => m == MechanismName::Laplace,
            (_, MechanismName::WrappedLaplace) => space.sphere_dim() == Some(2),
            (_, m) => m.sphere_kind().is_some(),
        }
    }
}

impl FromStr for MechanismName {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, UnknownName> {
        let t = s.trim().to_ascii_lowercase().replace('_', "-");
        MechanismName::ALL.into_iter().find(|m| m.as_str() == t).ok_or_else(|| {
            UnknownName(format!(
                "unknown mechanism {s:?}: use laplace or bingham (so3), vmf or purkayastha (spheres, circle, \
                 timeofday, latlon) or wrapped-laplace (circle, timeofday)"
            ))
        })
    }
}

impl fmt::Display for MechanismName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mechanism as a user names it: one by its name, or `auto` (the most accurate at the budget).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MechanismChoice {
    /// This mechanism.
    Named(MechanismName),
    /// The mechanism of the space with the smallest expected error at the budget ([`PointMechanism::choose`]).
    Auto,
}

impl FromStr for MechanismChoice {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, UnknownName> {
        if s.trim().eq_ignore_ascii_case("auto") {
            return Ok(MechanismChoice::Auto);
        }
        s.parse::<MechanismName>().map(MechanismChoice::Named).map_err(|e| UnknownName(format!("{e}, or auto")))
    }
}

impl fmt::Display for MechanismChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MechanismChoice::Named(m) => m.fmt(f),
            MechanismChoice::Auto => f.write_str("auto"),
        }
    }
}

/// A mechanism resolved from a [`MechanismChoice`], with the comparison behind it.
#[derive(Debug, Clone)]
pub struct Chosen {
    /// The mechanism.
    pub mechanism: PointMechanism,
    /// Its name.
    pub name: MechanismName,
    /// Whether `auto` chose it.
    pub auto: bool,
    /// Every mechanism of the space at the same budget and its expected error E[ρ(x, release)] in radians,
    /// most accurate first (empty under an explicit Bingham concentration, which has no common budget).
    pub compared: Vec<(MechanismName, f64)>,
}

impl Chosen {
    /// The most accurate mechanism when it moves points on average at most half as far as the chosen one:
    /// its name and how many times farther the chosen one moves them.
    pub fn much_better(&self) -> Option<(MechanismName, f64)> {
        let (best, best_error) = *self.compared.first()?;
        let mine = self.compared.iter().find(|(n, _)| *n == self.name)?.1;
        (best != self.name && mine >= 2.0 * best_error).then_some((best, mine / best_error))
    }

    /// Why this mechanism, for people, with distances in `unit` (e.g. "purkayastha: expected error 10 km;
    /// vmf 224 km (22.4× farther)"). Empty when nothing was compared.
    pub fn comparison(&self, unit: DistanceUnit) -> String {
        let best = self.compared.first().map_or(f64::NAN, |c| c.1);
        let show = |x: f64| crate::numerics::format::short(x / unit.radians);
        self.compared
            .iter()
            .map(|&(n, e)| {
                let times = if n == self.compared[0].0 {
                    String::new()
                } else {
                    format!(" ({}× farther)", crate::numerics::format::short(e / best))
                };
                format!("{n}: expected error {} {}{times}", show(e), unit.name)
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// How much noise: ε per radian, or "protect `radius` (radians) at `level`" (ε = level / radius), or (Bingham
/// only, for reproducing papers) the concentration κ itself.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    /// ε per radian of the space's distance.
    Epsilon(f64),
    /// ε = level / radius, with the radius in radians (see [`Space::parse_distance`]).
    Protect {
        /// The distance to protect, in radians.
        radius: f64,
        /// The level: ε·radius.
        level: f64,
    },
    /// The Bingham concentration κ (guarantee κ/2 per radian).
    Concentration(f64),
}

impl Budget {
    /// ε per radian, or `None` for an explicit concentration.
    pub fn epsilon(self) -> Fallible<Option<f64>> {
        match self {
            Budget::Epsilon(e) => Ok(Some(e)),
            Budget::Protect { radius, level } => {
                let positive = |v: f64| v > 0.0 && v.is_finite();
                if !positive(radius) {
                    return Err(Error::InvalidParameter {
                        name: Param::ProtectionRadius,
                        value: radius,
                        reason: "must be a finite distance > 0",
                    });
                }
                if !positive(level) {
                    return Err(Error::InvalidParameter { name: Param::Level, value: level, reason: "must be > 0" });
                }
                Ok(Some(level / radius))
            }
            Budget::Concentration(_) => Ok(None),
        }
    }
}

/// A mechanism that releases single points, built from the registry's names: on SO(3) or on a sphere.
#[derive(Debug, Clone)]
pub enum PointMechanism {
    /// On SO(3).
    So3(So3Mechanism),
    /// On a sphere or circle.
    Sphere(SphereMechanism),
    /// Plain numbers with public bounds.
    Real(BoundedLaplace),
}

impl PointMechanism {
    /// The Rényi DP curve of one release between any two inputs (vmf, purkayastha, laplace and bingham;
    /// `docs/proofs/renyi_local.md`); refused for the others.
    pub fn renyi_curve(&self) -> Fallible<crate::privacy::renyi::RdpCurve> {
        match self {
            PointMechanism::So3(m) => m.renyi_curve(),
            PointMechanism::Sphere(m) => m.renyi_curve(),
            PointMechanism::Real(_) => Err(Error::NotApplicable(
                "no Rényi curve is computed for bounded real values; their pure guarantee composes linearly".into(),
            )),
        }
    }

    /// The same mechanism with releases rounded again onto a coarser public grid whose step is the largest
    /// power of two no larger than `radians` (per chart coordinate): post-processing of the float-safe
    /// release, so the guarantee and its ε₀ are unchanged; the guarantee names the coarser grid. Errors if the
    /// step is finer than the float-safe grid or coarser than a quarter of the chart.
    pub fn with_output_step(self, radians: f64) -> Fallible<Self> {
        Ok(match self {
            PointMechanism::So3(m) => PointMechanism::So3(m.with_output_step(radians)?),
            PointMechanism::Sphere(m) => PointMechanism::Sphere(m.with_output_step(radians)?),
            PointMechanism::Real(_) => {
                return Err(Error::NotApplicable("a coarser output grid applies to so3 and directions".into()));
            }
        })
    }

    /// The mechanism `name` on `space` with `budget`; refuses a mechanism of another space, a concentration for
    /// anything but Bingham, and SPD (whose releases are means, not points).
    pub fn new(space: Space, name: MechanismName, budget: Budget) -> Fallible<Self> {
        if space == Space::Real {
            return Err(Error::NotApplicable(
                "space real needs public bounds for its values: build it with PointMechanism::bounded".into(),
            ));
        }
        if !name.applies_to(space) {
            let why = match (space, name.so3_kind()) {
                (Space::Spd(_), _) => format!("{name}: space {space} has private means only, no per-row release"),
                (Space::So3, None) => format!("{name} is for spheres; on space so3 use laplace or bingham"),
                (_, Some(_)) => format!("{name} is for rotations; on space {space} use vmf or purkayastha"),
                _ => format!("{name} works on the circle only (space circle or timeofday)"),
            };
            return Err(Error::NotApplicable(format!("mechanism {why}")));
        }
        match (budget.epsilon()?, name) {
            (None, MechanismName::Bingham) => {
                let Budget::Concentration(kappa) = budget else { unreachable!("only a concentration has no ε") };
                Ok(PointMechanism::So3(So3Mechanism::bingham_with_concentration(kappa)?))
            }
            (None, _) => {
                Err(Error::NotApplicable(format!("a concentration applies to bingham only; give {name} an epsilon")))
            }
            (Some(eps), _) => match (space.sphere_dim(), name.so3_kind(), name.sphere_kind()) {
                (None, Some(kind), _) => Ok(PointMechanism::So3(So3Mechanism::for_epsilon(kind, eps)?)),
                (Some(dim), _, Some(kind)) => Ok(PointMechanism::Sphere(SphereMechanism::for_epsilon(kind, dim, eps)?)),
                _ => unreachable!("applies_to checked the pairing"),
            },
        }
    }

    /// Resolves `choice` on `space` at `budget`: a named mechanism as [`PointMechanism::new`] builds it, or
    /// for [`MechanismChoice::Auto`] the mechanism with the smallest expected error E[ρ(x, release)], from the
    /// exact laws. Every candidate carries the same ε per radian of the space's distance (vmf's guarantee in
    /// chordal distance implies it), so the comparison is at one guarantee.
    pub fn choose(space: Space, choice: MechanismChoice, budget: Budget) -> Fallible<Chosen> {
        let explicit_concentration = matches!(budget, Budget::Concentration(_));
        let mut compared = Vec::new();
        if !explicit_concentration {
            for name in MechanismName::ALL.into_iter().filter(|m| m.applies_to(space)) {
                compared.push((name, PointMechanism::new(space, name, budget)?.mean_angle()));
            }
            compared.sort_by(|a, b| a.1.total_cmp(&b.1));
        }
        let (name, auto) = match choice {
            MechanismChoice::Named(name) => (name, false),
            MechanismChoice::Auto if explicit_concentration => {
                return Err(Error::NotApplicable(
                    "auto compares mechanisms at one epsilon; a concentration names bingham's own parameter".into(),
                ));
            }
            MechanismChoice::Auto => match compared.first() {
                Some(&(best, _)) => (best, true),
                None => return Err(Error::NotApplicable(format!("space {space} has no per-row mechanism"))),
            },
        };
        Ok(Chosen { mechanism: PointMechanism::new(space, name, budget)?, name, auto, compared })
    }

    /// Laplace on rows of `columns` plain numbers clamped to [`lo`, `hi`] (space `real`), each row pure ε-DP
    /// for `budget` = ε (a protection distance has no meaning for a pure guarantee).
    pub fn bounded(lo: f64, hi: f64, columns: usize, budget: Budget) -> Fallible<Self> {
        match budget {
            Budget::Epsilon(e) => Ok(PointMechanism::Real(BoundedLaplace::new(lo, hi, columns, e)?)),
            _ => Err(Error::NotApplicable(
                "space real takes an epsilon per row (pure DP over values clamped to the bounds)".into(),
            )),
        }
    }

    /// The `real` mechanism with every released value clamped back into its bounds
    /// ([`BoundedLaplace::clamping_releases`]: post-processing, the guarantee unchanged); refused elsewhere.
    pub fn clamping_releases(self) -> Fallible<Self> {
        match self {
            PointMechanism::Real(m) => Ok(PointMechanism::Real(m.clamping_releases())),
            _ => Err(Error::NotApplicable(
                "clamping releases into the bounds applies to space real only (plain numbers with bounds)".into(),
            )),
        }
    }

    /// The mechanism's name as written (`laplace`, `purkayastha`).
    pub fn name(&self) -> &'static str {
        match self {
            PointMechanism::So3(m) => m.name(),
            PointMechanism::Sphere(m) => m.name(),
            PointMechanism::Real(m) => m.name(),
        }
    }

    /// The guarantee of each released point.
    pub fn guarantee(&self) -> Guarantee {
        match self {
            PointMechanism::So3(m) => m.guarantee(),
            PointMechanism::Sphere(m) => m.guarantee(),
            PointMechanism::Real(m) => m.guarantee(),
        }
    }

    /// Radius of indistinguishability at level p, in radians (on `real`: per value, in its unit).
    pub fn radius(&self, p: f64) -> Fallible<f64> {
        match self {
            PointMechanism::So3(m) => m.radius(p),
            PointMechanism::Sphere(m) => m.radius(p),
            PointMechanism::Real(m) => m.radius(p),
        }
    }

    /// The expected distance (radians) between a release and its input (on `real`: per value, from the
    /// clamped value).
    pub fn mean_angle(&self) -> f64 {
        match self {
            PointMechanism::So3(m) => m.mean_angle(),
            PointMechanism::Sphere(m) => m.mean_angle(),
            PointMechanism::Real(m) => m.mean_error(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::sphere::EARTH_RADIUS_KM;
    use std::f64::consts::PI;

    #[test]
    fn spaces_parse_and_print() {
        assert_eq!("sphere:5".parse::<Space>().unwrap(), Space::Sphere(5));
        assert_eq!("SO3".parse::<Space>().unwrap(), Space::So3);
        assert_eq!("spd:2".parse::<Space>().unwrap(), Space::Spd(2));
        assert!("sphere:1".parse::<Space>().is_err());
        assert!("spd:0".parse::<Space>().is_err());
        assert_eq!("sphere:10000".parse::<Space>().unwrap(), Space::Sphere(10_000));
        for huge in ["sphere:10001", "sphere:10000000000000", "sphere:18446744073709551615", "sphere:1e13", "spd:65"] {
            assert!(huge.parse::<Space>().is_err(), "{huge}");
        }
        assert!("torus".parse::<Space>().is_err());
        for s in ["so3", "circle", "timeofday", "latlon", "sphere:7", "spd:3"] {
            assert_eq!(s.parse::<Space>().unwrap().to_string(), s);
        }
    }

    #[test]
    fn distances_with_units() {
        let h = Space::TimeOfDay;
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-15 * b.abs().max(1e-300);
        assert!(close(h.parse_distance("1h").unwrap(), PI / 12.0));
        assert!(close(h.parse_distance("1 H").unwrap(), PI / 12.0));
        assert!(close(h.parse_distance("30min").unwrap(), PI / 24.0));
        assert!(close(h.parse_distance("90s").unwrap(), PI / 12.0 / 40.0));
        assert!(close(h.parse_distance("15deg").unwrap(), PI / 12.0));
        assert!(h.parse_distance("1").is_err());
        let e = Space::LatLon;
        assert!(close(e.parse_distance("2km").unwrap(), 2.0 / EARTH_RADIUS_KM));
        assert!(close(e.parse_distance("5 KM").unwrap(), 5.0 / EARTH_RADIUS_KM));
        assert!(close(e.parse_distance("500m").unwrap(), 0.5 / EARTH_RADIUS_KM));
        assert!(close(e.parse_distance("3mi").unwrap(), 3.0 * 1.609344 / EARTH_RADIUS_KM));
        assert!(e.parse_distance("2").is_err());
        assert!(e.parse_distance("2h").is_err());
        assert_eq!(Space::Circle.parse_distance("0.5").unwrap(), 0.5);
        assert!(close(Space::So3.parse_distance("10DEG").unwrap(), 10f64.to_radians()));
        assert!(Space::Circle.parse_distance("1h").is_err());
        assert!(Space::So3.parse_distance("infdeg").is_err());
    }

    #[test]
    fn auto_picks_the_most_accurate_mechanism_and_says_why() {
        let at_5km = Budget::Protect { radius: Space::LatLon.parse_distance("5km").unwrap(), level: 1.0 };
        let c = PointMechanism::choose(Space::LatLon, "auto".parse().unwrap(), at_5km).unwrap();
        assert!(c.auto && c.name == MechanismName::Purkayastha, "{c:?}");
        // At 5 km, vmf moves points about 22 times farther (224 km against 10 km).
        let vmf = PointMechanism::choose(Space::LatLon, MechanismChoice::Named(MechanismName::Vmf), at_5km).unwrap();
        let (better, times) = vmf.much_better().unwrap();
        assert!(better == MechanismName::Purkayastha && (20.0..25.0).contains(&times), "{times}");
        assert!(c.much_better().is_none());
        let why = c.comparison(Space::LatLon.natural_unit());
        assert!(
            why.starts_with("purkayastha: expected error 9.99") && why.contains("vmf: expected error 223"),
            "{why}"
        );
        // On SO(3) at ε = 1 Laplace wins; a concentration cannot be compared.
        let eps = Budget::Epsilon(1.0);
        assert_eq!(
            PointMechanism::choose(Space::So3, MechanismChoice::Auto, eps).unwrap().name,
            MechanismName::Laplace
        );
        assert!(PointMechanism::choose(Space::So3, MechanismChoice::Auto, Budget::Concentration(2.0)).is_err());
        assert!(PointMechanism::choose(Space::Spd(2), MechanismChoice::Auto, eps).is_err());
        assert_eq!("AUTO".parse::<MechanismChoice>().unwrap(), MechanismChoice::Auto);
        assert!("gauss".parse::<MechanismChoice>().unwrap_err().0.contains("or auto"));
        // The circle compares three mechanisms, every one at the same budget.
        assert_eq!(PointMechanism::choose(Space::Circle, MechanismChoice::Auto, eps).unwrap().compared.len(), 3);
    }

    #[test]
    fn mechanisms_by_name_and_space() {
        for m in MechanismName::ALL {
            assert_eq!(m.as_str().parse::<MechanismName>().unwrap(), m);
        }
        assert!("gauss".parse::<MechanismName>().is_err());
        let eps = Budget::Epsilon(1.0);
        assert!(PointMechanism::new(Space::So3, MechanismName::Laplace, eps).is_ok());
        assert!(PointMechanism::new(Space::So3, MechanismName::Vmf, eps).is_err());
        assert!(PointMechanism::new(Space::LatLon, MechanismName::WrappedLaplace, eps).is_err());
        assert!(PointMechanism::new(Space::TimeOfDay, MechanismName::WrappedLaplace, eps).is_ok());
        assert!(PointMechanism::new(Space::Spd(2), MechanismName::Laplace, eps).is_err());
        assert!(PointMechanism::new(Space::So3, MechanismName::Laplace, Budget::Concentration(2.0)).is_err());
        let b = PointMechanism::new(Space::So3, MechanismName::Bingham, Budget::Concentration(2.0)).unwrap();
        assert_eq!(b.guarantee().epsilon(), Some(1.0));
        let p = Budget::Protect { radius: 2.0, level: 1.0 };
        assert_eq!(p.epsilon().unwrap(), Some(0.5));
        assert!(Budget::Protect { radius: 0.0, level: 1.0 }.epsilon().is_err());
    }
}
