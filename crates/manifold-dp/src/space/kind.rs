//! The spaces data live in, as every front end names them (`so3`, `circle`, `timeofday`, `latlon`,
//! `sphere:N`, `spd:K`, `real`), with the units a distance on each may be written in.

use crate::analysis::sphere_angle::MAX_SPHERE_DIM;
use crate::space::metric::Metric;
use crate::space::sphere::{EARTH_RADIUS_KM, Periodic};
use std::f64::consts::PI;
use std::fmt;
use std::str::FromStr;

/// The largest K of `spd:K` a name may give (the release refuses K > 3 where no exact sampler exists).
pub const MAX_SPD_DIM: usize = 64;

/// A name that is not in the registry, with what the valid names are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnknownName(pub String);

/// A space the data live in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// Rotations SO(3).
    So3,
    /// Angles on the circle S¹.
    Circle,
    /// Times of day on a 24 h circle.
    TimeOfDay,
    /// Latitude/longitude on the Earth (S²).
    LatLon,
    /// Unit vectors of R^N, i.e. points of S^{N−1}.
    Sphere(usize),
    /// K×K symmetric positive definite matrices.
    Spd(usize),
    /// Plain numbers with public bounds: each row holds one or more values, clamped to the bounds.
    Real,
}

impl FromStr for Space {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, UnknownName> {
        let t = s.trim().to_ascii_lowercase();
        let dim = |prefix: &str, lo: usize, hi: usize| {
            t.strip_prefix(prefix).and_then(|n| n.parse::<usize>().ok()).filter(|n| (lo..=hi).contains(n))
        };
        match t.as_str() {
            "so3" => Ok(Space::So3),
            "circle" => Ok(Space::Circle),
            "timeofday" => Ok(Space::TimeOfDay),
            "latlon" => Ok(Space::LatLon),
            "real" => Ok(Space::Real),
            _ => {
                if let Some(n) = dim("sphere:", 2, MAX_SPHERE_DIM) {
                    Ok(Space::Sphere(n))
                } else if let Some(k) = dim("spd:", 1, MAX_SPD_DIM) {
                    Ok(Space::Spd(k))
                } else {
                    Err(UnknownName(format!(
                        "unknown space {s:?}: use so3, circle, timeofday, latlon, sphere:N (unit vectors of R^N, \
                         2 <= N <= {MAX_SPHERE_DIM}; sphere:3 is the ordinary sphere), spd:K (K×K covariance \
                         matrices, 1 <= K <= {MAX_SPD_DIM}) or real (plain numbers with public bounds)"
                    )))
                }
            }
        }
    }
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Space::So3 => f.write_str("so3"),
            Space::Circle => f.write_str("circle"),
            Space::TimeOfDay => f.write_str("timeofday"),
            Space::LatLon => f.write_str("latlon"),
            Space::Sphere(n) => write!(f, "sphere:{n}"),
            Space::Spd(k) => write!(f, "spd:{k}"),
            Space::Real => f.write_str("real"),
        }
    }
}

/// A unit of distance on a space: its name and how many radians one unit is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DistanceUnit {
    /// How the unit is written (`deg`, `h`, `km`).
    pub name: &'static str,
    /// Radians per unit.
    pub radians: f64,
}

/// The units a distance may be written in on each space, longest spelling first (so `min` wins over `m`).
/// Hours and minutes need a 24 h circle, km, m and mi the Earth; degrees and radians go everywhere.
fn units(space: Space) -> Vec<(&'static str, f64)> {
    let mut u = vec![("degrees", PI / 180.0), ("deg", PI / 180.0), ("°", PI / 180.0), ("rad", 1.0)];
    let hour = Periodic::HOURS_OF_DAY.radians_per_unit();
    match space {
        Space::TimeOfDay => {
            u.extend([("hours", hour), ("hour", hour), ("min", hour / 60.0), ("h", hour), ("s", hour / 3600.0)])
        }
        Space::LatLon => u.extend([
            ("km", 1.0 / EARTH_RADIUS_KM),
            ("miles", 1.609344 / EARTH_RADIUS_KM),
            ("mile", 1.609344 / EARTH_RADIUS_KM),
            ("mi", 1.609344 / EARTH_RADIUS_KM),
            ("m", 1e-3 / EARTH_RADIUS_KM),
        ]),
        _ => {}
    }
    u.sort_by_key(|(name, _)| std::cmp::Reverse(name.len()));
    u
}

impl Space {
    /// The ambient dimension n of the sphere S^{n−1} (None for SO(3) and SPD).
    pub fn sphere_dim(self) -> Option<usize> {
        match self {
            Space::So3 | Space::Spd(_) | Space::Real => None,
            Space::Circle | Space::TimeOfDay => Some(2),
            Space::LatLon => Some(3),
            Space::Sphere(n) => Some(n),
        }
    }

    /// The metric its per-row (local) releases are stated in: the rotation angle on so3, the great-circle
    /// distance on the circle, time of day, latlon and spheres; `None` where no per-row release states a
    /// metric guarantee (spd:K, real).
    pub fn local_metric(self) -> Option<Metric> {
        match self {
            Space::So3 => Some(Metric::So3Geodesic),
            Space::Circle | Space::TimeOfDay | Space::LatLon | Space::Sphere(_) => Some(Metric::SphereSurface),
            Space::Spd(_) | Space::Real => None,
        }
    }

    /// The unit a local budget on this space is per when none is named: hours on a time of day, km on the
    /// Earth, the metric's own (radians) elsewhere.
    pub fn budget_unit(self) -> &'static str {
        match self {
            Space::TimeOfDay | Space::LatLon => self.natural_unit().name,
            _ => self.local_metric().map_or("unit", Metric::unit),
        }
    }

    /// The unit people think in on this space (reports give distances and ε per this unit too).
    pub fn natural_unit(self) -> DistanceUnit {
        match self {
            Space::TimeOfDay => DistanceUnit { name: "h", radians: Periodic::HOURS_OF_DAY.radians_per_unit() },
            Space::LatLon => DistanceUnit { name: "km", radians: 1.0 / EARTH_RADIUS_KM },
            Space::Real => DistanceUnit { name: "unit", radians: 1.0 },
            _ => DistanceUnit { name: "deg", radians: PI / 180.0 },
        }
    }

    /// A distance in radians from text with a unit, case-insensitive and with an optional space: `10deg`,
    /// `10°`, `0.2 rad` everywhere; `1h`, `30min`, `90s` on a time-of-day circle; `2km`, `500 m`, `3mi` on the
    /// Earth. A bare number is radians on SO(3), the circle and spheres, and refused where a unit is expected
    /// (hours, km).
    pub fn parse_distance(self, s: &str) -> Result<f64, UnknownName> {
        let t = s.trim().to_lowercase();
        let examples = match self {
            Space::TimeOfDay => "1h, 30min or 90s",
            Space::LatLon => "2km or 500m (also 3mi, 0.1deg)",
            _ => "10deg or 0.2rad",
        };
        let (number, per_unit) = match units(self).into_iter().find(|(u, _)| t.ends_with(u)) {
            Some((u, per)) => (t[..t.len() - u.len()].trim_end(), per),
            None => match self {
                Space::TimeOfDay | Space::LatLon => {
                    return Err(UnknownName(format!("{s:?}: give a distance with its unit, e.g. {examples}")));
                }
                _ => (t.as_str(), 1.0),
            },
        };
        let value: f64 = number.parse().map_err(|_| {
            UnknownName(format!("cannot read distance {s:?}: write a number with a unit, e.g. {examples}"))
        })?;
        if !value.is_finite() {
            return Err(UnknownName(format!("distance {s:?} is not finite")));
        }
        Ok(value * per_unit)
    }
}
