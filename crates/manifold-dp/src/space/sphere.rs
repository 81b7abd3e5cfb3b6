//! Directions: the unit sphere S^{n−1} ⊂ Rⁿ for every n ≥ 2, with the distances the directional mechanisms
//! are private for, and adapters from the values people have (angles, times of day, latitude/longitude).
//!
//! Points are nalgebra `DVector<f64>`s of unit norm. Validation follows the SO(3) tolerance policy: a vector
//! with |‖x‖ − 1| ≤ tolerance is renormalised, beyond it [`Error::NotUnitVector`]; non-finite components are
//! always rejected, naming the component.

use crate::error::{Error, Fallible};
use crate::space::so3::DEFAULT_TOLERANCE;
use nalgebra::DVector;
use std::f64::consts::{PI, TAU};

/// Mean Earth radius (IUGG), km: the scale of distances on the globe.
pub const EARTH_RADIUS_KM: f64 = 6371.0088;

pub use crate::analysis::sphere_angle::MAX_SPHERE_DIM;
pub(crate) use crate::analysis::sphere_angle::check_dim;

/// A point of S^{n−1} from its n ≥ 2 coordinates, renormalised if within `tolerance` of unit norm.
pub fn unit_vector(values: &[f64], tolerance: f64) -> Fallible<DVector<f64>> {
    check_dim(values.len())?;
    crate::space::so3::check_finite(values)?;
    let x = DVector::from_column_slice(values);
    let norm = x.norm();
    if norm == 0.0 || (norm - 1.0).abs() > tolerance {
        return Err(Error::NotUnitVector { norm, tolerance });
    }
    Ok(x / norm)
}

/// [`unit_vector`] with the default tolerance 1e-4.
pub fn unit_vector_default(values: &[f64]) -> Fallible<DVector<f64>> {
    unit_vector(values, DEFAULT_TOLERANCE)
}

/// Surface (great-circle) distance d∠(x, y) = arccos(x·y) ∈ [0, π], computed as 2·atan2(‖x − y‖, ‖x + y‖),
/// which keeps full relative accuracy for nearly equal and nearly antipodal points (arccos does not).
pub fn surface_distance(x: &DVector<f64>, y: &DVector<f64>) -> f64 {
    2.0 * (x - y).norm().atan2((x + y).norm())
}

/// Chordal (Euclidean) distance d₂(x, y) = ‖x − y‖ = 2 sin(d∠/2) ≤ d∠.
pub fn chordal_distance(x: &DVector<f64>, y: &DVector<f64>) -> f64 {
    (x - y).norm()
}

/// A point of the circle S¹ from an angle in radians (any finite value; angles are taken modulo 2π).
pub fn from_angle(theta: f64) -> Fallible<DVector<f64>> {
    if !theta.is_finite() {
        return Err(Error::NonFinite { component: 0, value: theta });
    }
    let (s, c) = theta.sin_cos();
    Ok(DVector::from_column_slice(&[c, s]))
}

/// The angle of a point of S¹ in [0, 2π).
pub fn to_angle(x: &DVector<f64>) -> f64 {
    let a = x[1].atan2(x[0]);
    if a >= 0.0 {
        return a;
    }
    // A tiny negative angle is 0, not 2π after rounding.
    let wrapped = a + TAU;
    if wrapped >= TAU { 0.0 } else { wrapped }
}

/// A periodic quantity with its period: hours of a day (24), days of a week (7), days of a year (365.25)…
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Periodic {
    /// Length of one cycle in the value's unit.
    pub period: f64,
}

impl Periodic {
    /// Time of day in hours, on a 24 h circle.
    pub const HOURS_OF_DAY: Periodic = Periodic { period: 24.0 };
    /// Day of the week, on a 7-day circle (0 = the first day).
    pub const DAYS_OF_WEEK: Periodic = Periodic { period: 7.0 };
    /// Day of the year, on a circle of 365.25 days (0 = 1 January, 00:00).
    pub const DAYS_OF_YEAR: Periodic = Periodic { period: 365.25 };

    /// Radians per unit of the value: distances on the circle divided by this are in the value's unit.
    pub fn radians_per_unit(&self) -> f64 {
        TAU / self.period
    }

    /// The point of S¹ for `value` ∈ [0, period] (the end point is the start of the next cycle).
    pub fn to_circle(&self, value: f64) -> Fallible<DVector<f64>> {
        if !value.is_finite() {
            return Err(Error::NonFinite { component: 0, value });
        }
        if !(0.0..=self.period).contains(&value) {
            return Err(Error::OutOfPeriod { value, period: self.period });
        }
        from_angle(value * self.radians_per_unit())
    }

    /// The value in [0, period) of a point of S¹.
    pub fn from_circle(&self, x: &DVector<f64>) -> f64 {
        (to_angle(x) / self.radians_per_unit()).min(self.period.next_down())
    }
}

/// A point of S² from latitude and longitude in degrees. Latitudes outside [−90, 90] are rejected (swapped
/// columns, most likely); any finite longitude is accepted and taken modulo 360.
pub fn from_lat_lon_deg(lat: f64, lon: f64) -> Fallible<DVector<f64>> {
    if !lat.is_finite() {
        return Err(Error::NonFinite { component: 0, value: lat });
    }
    if !lon.is_finite() {
        return Err(Error::NonFinite { component: 1, value: lon });
    }
    if !(-90.0..=90.0).contains(&lat) {
        return Err(Error::LatitudeOutOfRange(lat));
    }
    let (sl, cl) = lat.to_radians().sin_cos();
    let (so, co) = lon.to_radians().sin_cos();
    Ok(DVector::from_column_slice(&[cl * co, cl * so, sl]))
}

/// Latitude and longitude in degrees of a point of S², longitude normalised to [−180, 180).
pub fn to_lat_lon_deg(x: &DVector<f64>) -> (f64, f64) {
    let lat = x[2].atan2(x[0].hypot(x[1])).to_degrees();
    let mut lon = x[1].atan2(x[0]).to_degrees();
    if lon >= 180.0 {
        lon -= 360.0;
    }
    (lat, lon)
}

/// Longitude in degrees normalised to [−180, 180).
pub fn normalise_longitude_deg(lon: f64) -> f64 {
    let l = (lon + 180.0).rem_euclid(360.0) - 180.0;
    if l >= 180.0 { l - 360.0 } else { l }
}

/// Great-circle distance in km between two points of S² (as unit vectors) on the Earth.
pub fn earth_distance_km(x: &DVector<f64>, y: &DVector<f64>) -> f64 {
    EARTH_RADIUS_KM * surface_distance(x, y)
}

/// The largest surface distance, π: every budget on a sphere is per radian of this.
pub const DIAMETER: f64 = PI;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn validation_renormalises_within_tolerance_and_rejects_beyond() {
        let x = unit_vector_default(&[0.6, 0.8 + 5e-5]).unwrap();
        assert!((x.norm() - 1.0).abs() < 1e-15);
        assert!(matches!(unit_vector_default(&[0.6, 0.9]), Err(Error::NotUnitVector { .. })));
        assert!(matches!(unit_vector_default(&[0.0, 0.0, 0.0]), Err(Error::NotUnitVector { .. })));
        assert!(matches!(unit_vector_default(&[1.0, f64::NAN]), Err(Error::NonFinite { component: 1, .. })));
        assert!(matches!(unit_vector_default(&[1.0]), Err(Error::WrongLength { .. })));
    }

    #[test]
    fn surface_distance_is_accurate_near_zero_and_pi() {
        let x = from_angle(0.0).unwrap();
        for d in [1e-12, 1e-6, 0.5, PI - 1e-9, PI] {
            let y = from_angle(d).unwrap();
            assert!((surface_distance(&x, &y) - d).abs() <= 4e-16 * d.max(1.0), "{d}");
        }
    }

    #[test]
    fn periodic_values_and_their_errors() {
        let h = Periodic::HOURS_OF_DAY;
        let six = h.to_circle(6.0).unwrap();
        assert!((six[0]).abs() < 1e-15 && (six[1] - 1.0).abs() < 1e-15);
        assert!((h.from_circle(&h.to_circle(23.5).unwrap()) - 23.5).abs() < 1e-12);
        assert!(h.from_circle(&h.to_circle(24.0).unwrap()) < 1e-12);
        // 23:00 and 01:00 are 2 h apart on the circle.
        let d = surface_distance(&h.to_circle(23.0).unwrap(), &h.to_circle(1.0).unwrap()) / h.radians_per_unit();
        assert!((d - 2.0).abs() < 1e-12);
        assert!(matches!(h.to_circle(25.0), Err(Error::OutOfPeriod { .. })));
        assert!(matches!(h.to_circle(-0.5), Err(Error::OutOfPeriod { .. })));
    }

    #[test]
    fn lat_lon_conventions_and_known_distance() {
        assert!(matches!(from_lat_lon_deg(91.0, 0.0), Err(Error::LatitudeOutOfRange(_))));
        assert!(matches!(from_lat_lon_deg(0.0, f64::INFINITY), Err(Error::NonFinite { component: 1, .. })));
        let (lat, lon) = to_lat_lon_deg(&from_lat_lon_deg(45.0, 190.0).unwrap());
        assert!((lat - 45.0).abs() < 1e-12 && (lon + 170.0).abs() < 1e-9);
        assert_eq!(normalise_longitude_deg(180.0), -180.0);
        assert_eq!(normalise_longitude_deg(-540.0), -180.0);
        // A quarter of the equator.
        let d = earth_distance_km(&from_lat_lon_deg(0.0, 0.0).unwrap(), &from_lat_lon_deg(0.0, 90.0).unwrap());
        assert!((d - EARTH_RADIUS_KM * PI / 2.0).abs() < 1e-9);
        // Paris (48.8566, 2.3522) to London (51.5074, -0.1278): 343.5 km on the mean-radius sphere.
        let d = earth_distance_km(
            &from_lat_lon_deg(48.8566, 2.3522).unwrap(),
            &from_lat_lon_deg(51.5074, -0.1278).unwrap(),
        );
        assert!((d - 343.5).abs() < 0.5, "{d}");
    }

    fn point(n: usize) -> impl Strategy<Value = DVector<f64>> {
        proptest::collection::vec(-1.0..1.0f64, n)
            .prop_filter("not too short", |v| v.iter().map(|a| a * a).sum::<f64>() > 1e-6)
            .prop_map(|v| DVector::from_vec(v).normalize())
    }

    proptest! {
        #[test]
        fn distances_are_metrics(x in point(5), y in point(5), z in point(5)) {
            let d = surface_distance;
            prop_assert!(d(&x, &x) == 0.0);
            prop_assert!((d(&x, &y) - d(&y, &x)).abs() < 1e-15);
            prop_assert!(d(&x, &z) <= d(&x, &y) + d(&y, &z) + 1e-12);
            prop_assert!(chordal_distance(&x, &y) <= d(&x, &y) + 1e-15);
            prop_assert!((d(&x, &y) - x.dot(&y).clamp(-1.0, 1.0).acos()).abs() < 1e-7);
        }

        #[test]
        fn lat_lon_round_trip(lat in -90.0..=90.0f64, lon in -180.0..180.0f64) {
            let (a, b) = to_lat_lon_deg(&from_lat_lon_deg(lat, lon).unwrap());
            prop_assert!((a - lat).abs() < 1e-9);
            if lat.abs() < 89.999 {
                let dl = (b - lon).abs();
                prop_assert!(dl < 1e-7 || (dl - 360.0).abs() < 1e-7, "{lon} -> {b}");
            }
        }
    }
}
