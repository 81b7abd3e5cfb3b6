//! The `--space` argument: which space the data live in, its dimension, and the units its distances are
//! written in (degrees, hours on a 24 h circle, km on the Earth).

use crate::BadInput;
use manifold_dp::space::sphere::{EARTH_RADIUS_KM, MAX_SPHERE_DIM, Periodic};
use std::f64::consts::PI;
use std::fmt;
use std::str::FromStr;

/// A `--space` value: `so3`, `circle`, `timeofday`, `latlon` or `sphere:N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpaceArg {
    /// Rotations.
    So3,
    /// Angles on the circle S¹.
    Circle,
    /// Times of day on a 24 h circle.
    TimeOfDay,
    /// Latitude/longitude on the Earth (S²).
    LatLon,
    /// Unit vectors of R^N, i.e. points of S^{N−1}.
    Sphere(usize),
}

impl FromStr for SpaceArg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "so3" => Ok(SpaceArg::So3),
            "circle" => Ok(SpaceArg::Circle),
            "timeofday" => Ok(SpaceArg::TimeOfDay),
            "latlon" => Ok(SpaceArg::LatLon),
            _ => match s.strip_prefix("sphere:").map(str::parse::<usize>) {
                Some(Ok(n)) if (2..=MAX_SPHERE_DIM).contains(&n) => Ok(SpaceArg::Sphere(n)),
                _ => Err(format!(
                    "unknown space {s:?}: use so3, circle, timeofday, latlon or sphere:N (unit vectors of R^N, \
                     2 <= N <= {MAX_SPHERE_DIM}; sphere:3 is the ordinary sphere)"
                )),
            },
        }
    }
}

impl fmt::Display for SpaceArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpaceArg::So3 => f.write_str("so3"),
            SpaceArg::Circle => f.write_str("circle"),
            SpaceArg::TimeOfDay => f.write_str("timeofday"),
            SpaceArg::LatLon => f.write_str("latlon"),
            SpaceArg::Sphere(n) => write!(f, "sphere:{n}"),
        }
    }
}

/// A unit of distance on a space: its name and how many radians one unit is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DistanceUnit {
    pub name: &'static str,
    pub radians: f64,
}

impl SpaceArg {
    /// The ambient dimension n of the sphere S^{n−1} (None for SO(3)).
    pub fn sphere_dim(self) -> Option<usize> {
        match self {
            SpaceArg::So3 => None,
            SpaceArg::Circle | SpaceArg::TimeOfDay => Some(2),
            SpaceArg::LatLon => Some(3),
            SpaceArg::Sphere(n) => Some(n),
        }
    }

    /// The unit people think in on this space (reports give distances and ε per this unit too).
    pub fn natural_unit(self) -> DistanceUnit {
        match self {
            SpaceArg::TimeOfDay => DistanceUnit { name: "h", radians: Periodic::HOURS_OF_DAY.radians_per_unit() },
            SpaceArg::LatLon => DistanceUnit { name: "km", radians: 1.0 / EARTH_RADIUS_KM },
            _ => DistanceUnit { name: "deg", radians: PI / 180.0 },
        }
    }

    /// A distance in radians from text with a unit: `10deg`, `10°`, `0.2rad` everywhere; `1h`, `30min`,
    /// `90s` on a time-of-day circle; `2km`, `500m` on the Earth. A bare number is radians on SO(3), the
    /// circle and spheres, and refused where a unit is expected (hours, km).
    pub fn parse_distance(self, s: &str) -> Result<f64, BadInput> {
        let t = s.trim();
        let hour = Periodic::HOURS_OF_DAY.radians_per_unit();
        let (number, per_unit) = if let Some(n) = t.strip_suffix("deg").or_else(|| t.strip_suffix('°')) {
            (n, PI / 180.0)
        } else if let Some(n) = t.strip_suffix("rad") {
            (n, 1.0)
        } else if self == SpaceArg::TimeOfDay && t.ends_with("min") {
            (&t[..t.len() - 3], hour / 60.0)
        } else if self == SpaceArg::TimeOfDay && t.ends_with('h') {
            (&t[..t.len() - 1], hour)
        } else if self == SpaceArg::TimeOfDay && t.ends_with('s') {
            (&t[..t.len() - 1], hour / 3600.0)
        } else if self == SpaceArg::LatLon && t.ends_with("km") {
            (&t[..t.len() - 2], 1.0 / EARTH_RADIUS_KM)
        } else if self == SpaceArg::LatLon && t.ends_with('m') {
            (&t[..t.len() - 1], 1e-3 / EARTH_RADIUS_KM)
        } else {
            match self {
                SpaceArg::TimeOfDay => {
                    return Err(BadInput(format!("{s:?}: give a time with its unit, e.g. 1h, 30min or 90s")));
                }
                SpaceArg::LatLon => {
                    return Err(BadInput(format!("{s:?}: give a distance with its unit, e.g. 2km or 500m")));
                }
                _ => (t, 1.0),
            }
        };
        let examples = match self {
            SpaceArg::TimeOfDay => "1h, 30min or 15deg",
            SpaceArg::LatLon => "2km, 500m or 0.1deg",
            _ => "10deg or 0.2rad",
        };
        let value: f64 = number.trim().parse().map_err(|_| {
            BadInput(format!("cannot read distance {s:?}: write a number with a unit, e.g. {examples}"))
        })?;
        if !value.is_finite() {
            return Err(BadInput(format!("distance {s:?} is not finite")));
        }
        Ok(value * per_unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spaces_and_distances() {
        assert_eq!("sphere:5".parse::<SpaceArg>().unwrap(), SpaceArg::Sphere(5));
        assert!("sphere:1".parse::<SpaceArg>().is_err());
        assert_eq!("sphere:10000".parse::<SpaceArg>().unwrap(), SpaceArg::Sphere(10_000));
        for huge in ["sphere:10001", "sphere:10000000000000", "sphere:18446744073709551615", "sphere:1e13"] {
            assert!(huge.parse::<SpaceArg>().is_err(), "{huge}");
        }
        assert!("torus".parse::<SpaceArg>().is_err());
        assert_eq!(SpaceArg::Sphere(7).to_string(), "sphere:7");
        let h = SpaceArg::TimeOfDay;
        assert!((h.parse_distance("1h").unwrap() - PI / 12.0).abs() < 1e-15);
        assert!((h.parse_distance("30min").unwrap() - PI / 24.0).abs() < 1e-15);
        assert!((h.parse_distance("90s").unwrap() - PI / 12.0 / 40.0).abs() < 1e-15);
        assert!((h.parse_distance("15deg").unwrap() - PI / 12.0).abs() < 1e-15);
        assert!(h.parse_distance("1").is_err());
        let e = SpaceArg::LatLon;
        assert!((e.parse_distance("2km").unwrap() - 2.0 / EARTH_RADIUS_KM).abs() < 1e-18);
        assert!((e.parse_distance("500m").unwrap() - 0.5 / EARTH_RADIUS_KM).abs() < 1e-18);
        assert!(e.parse_distance("2").is_err());
        assert!(e.parse_distance("2h").is_err());
        assert_eq!(SpaceArg::Circle.parse_distance("0.5").unwrap(), 0.5);
        assert!(SpaceArg::Circle.parse_distance("1h").is_err());
    }
}
