//! Statistics of directional data (points of S^{n−1}, angles, times of day, latitude/longitude), for
//! summarising privatized releases: the mean direction and mean resultant length, the circular mean of
//! angles, the circular distance, the local and central models of a private mean direction, and histograms
//! on the circle and on a latitude × longitude grid.
//!
//! # Local versus central model
//!
//! In the **local** model ([`local_mean_direction`]) every record is privatized on its own and the mean
//! direction is computed from the releases. A rotationally symmetric mechanism shrinks the expected release
//! towards its input, E[z | x] = A·x with A = E[cos θ] (θ the angle between release and input), so the
//! resultant of n releases is ≈ A·(Σ x_i) plus noise of size √n: the angular error of the private mean falls
//! like 1/(A R̄ √n) (R̄ the mean resultant length of the data).
//!
//! In the **central** model ([`central_mean_direction`]) a trusted curator computes the exact mean direction
//! and privatizes it once. But the sensitivity of the mean direction is the whole diameter of the sphere:
//! one changed record can move the mean direction of a data set anywhere (take a data set whose resultant is
//! nearly zero), so a pure ε-DP release must be calibrated to the diameter, and its noise does **not** shrink
//! with n. Its error is the mechanism's mean angle at ε per diameter: on the circle at ε = 1, 1.26 rad (VMF)
//! to 1.45 rad (wrapped Laplace), for every n. For directional statistics the local model therefore beats the
//! central one once n is more than a handful (Weggenmann & Kerschbaum 2021, §1: "for such directional
//! statistics, local DP is necessarily more accurate than central DP"); `docs/reproduce_directional.md`
//! measures the local model ahead from n = 10 on.

use crate::error::Param;
use crate::error::{Error, Fallible};
use crate::mechanism::{Mechanism, SphereKind, SphereMechanism};
use crate::privacy::Guarantee;
use crate::space::so3::{DEFAULT_TOLERANCE, check_finite};
use crate::space::sphere::{Periodic, check_dim, normalise_longitude_deg, to_angle, to_lat_lon_deg};
use crate::stats::Histogram;
use nalgebra::DVector;
use rand::CryptoRng;
use std::f64::consts::{PI, TAU};

/// A resultant no longer than this fraction of n unit vectors is treated as zero: the mean direction is
/// undefined. With compensated summation the rounding error of the resultant is a few units in the last
/// place of each input, so anything below 16 ulp of one unit vector per record is indistinguishable from 0.
const ZERO_RESULTANT: f64 = 16.0 * f64::EPSILON;

/// The mean direction of points of S^{n−1} and how concentrated they are.
#[derive(Debug, Clone, PartialEq)]
pub struct MeanDirection {
    /// The normalised vector mean x̄ / ‖x̄‖ with x̄ = (1/N) Σ x_i (a unit vector).
    pub direction: DVector<f64>,
    /// The mean resultant length R̄ = ‖x̄‖ ∈ [0, 1]: 1 when all points coincide, near 0 when they spread
    /// evenly.
    pub resultant_length: f64,
    /// The number N of points.
    pub count: usize,
}

impl MeanDirection {
    /// The circular variance 1 − R̄ ∈ [0, 1].
    pub fn circular_variance(&self) -> f64 {
        1.0 - self.resultant_length
    }

    /// On the circle S¹ (2 coordinates), the mean angle in [0, 2π); `None` in higher dimensions.
    pub fn angle(&self) -> Option<f64> {
        (self.direction.len() == 2).then(|| to_angle(&self.direction))
    }
}

/// Checks that `x` is a point of a sphere of ambient dimension `dim` (or of any dimension ≥ 2 if `dim` is
/// `None`): finite components and unit norm within the library's tolerance (1e-4). `index` names the record.
fn check_point(x: &DVector<f64>, dim: Option<usize>, index: usize) -> Fallible<()> {
    match dim {
        Some(d) if x.len() != d => {
            return Err(Error::Degenerate(format!(
                "point {index} has {} coordinates but the first has {d}: all points must lie on the same sphere",
                x.len()
            )));
        }
        _ => {
            check_dim(x.len())?;
        }
    }
    check_finite(x.as_slice())?;
    let norm = x.norm();
    if (norm - 1.0).abs() > DEFAULT_TOLERANCE {
        return Err(Error::NotUnitVector { norm, tolerance: DEFAULT_TOLERANCE });
    }
    Ok(())
}

/// A running resultant Σ x_i of points of S^{n−1}, so that the mean direction of every prefix of a stream
/// can be read off as the stream goes (what a collector of local releases does). Sums are compensated
/// (Neumaier), so the result does not drift with N.
#[derive(Debug, Clone, PartialEq)]
pub struct MeanDirectionAccumulator {
    sum: Vec<f64>,
    compensation: Vec<f64>,
    count: usize,
}

impl MeanDirectionAccumulator {
    /// An empty accumulator for points of S^{dim−1} ⊂ R^dim (dim ≥ 2).
    pub fn new(dim: usize) -> Fallible<Self> {
        let dim = check_dim(dim)?;
        Ok(MeanDirectionAccumulator { sum: vec![0.0; dim], compensation: vec![0.0; dim], count: 0 })
    }

    /// The ambient dimension.
    pub fn dim(&self) -> usize {
        self.sum.len()
    }

    /// The number of points added.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Adds one point; rejects (and does not add) a point of another dimension, with non-finite components or
    /// with a norm further than 1e-4 from 1.
    pub fn push(&mut self, x: &DVector<f64>) -> Fallible<()> {
        check_point(x, Some(self.dim()), self.count)?;
        for ((s, c), &v) in self.sum.iter_mut().zip(self.compensation.iter_mut()).zip(x.iter()) {
            let t = *s + v;
            *c += if s.abs() >= v.abs() { (*s - t) + v } else { (v - t) + *s };
            *s = t;
        }
        self.count += 1;
        Ok(())
    }

    /// The resultant vector Σ x_i.
    pub fn resultant(&self) -> DVector<f64> {
        DVector::from_iterator(self.dim(), self.sum.iter().zip(&self.compensation).map(|(s, c)| s + c))
    }

    /// The mean direction of the points added so far. Errors: none added ([`Error::InvalidParameter`]), or a
    /// resultant of length ≤ 16·2⁻⁵² per point, where the mean direction is undefined
    /// ([`Error::Degenerate`]).
    pub fn mean(&self) -> Fallible<MeanDirection> {
        if self.count == 0 {
            return Err(Error::InvalidParameter {
                name: Param::NumberOfPoints,
                value: 0.0,
                reason: "the mean direction of no points is undefined",
            });
        }
        let s = self.resultant();
        let norm = s.norm();
        let n = self.count as f64;
        if norm.is_nan() || norm <= ZERO_RESULTANT * n {
            return Err(Error::Degenerate(format!(
                "the resultant of the {} points is zero up to rounding (mean resultant length {:e}): the points \
                 balance out and their mean direction is undefined",
                self.count,
                norm / n
            )));
        }
        Ok(MeanDirection { direction: s / norm, resultant_length: (norm / n).min(1.0), count: self.count })
    }
}

/// The mean direction of points of S^{n−1}: x̄/‖x̄‖ with x̄ = (1/N) Σ x_i, and the mean resultant length
/// R̄ = ‖x̄‖ (Mardia & Jupp 2000, §9.2).
///
/// Errors: no points; points of different dimensions, with non-finite components or not of unit norm
/// (within 1e-4); or a resultant that is zero up to rounding, where the mean direction is undefined
/// (e.g. two antipodal points). The errors are typed [`Error`]s naming the problem.
pub fn mean_direction(points: &[DVector<f64>]) -> Fallible<MeanDirection> {
    let Some(first) = points.first() else {
        return Err(Error::InvalidParameter {
            name: Param::NumberOfPoints,
            value: 0.0,
            reason: "the mean direction of no points is undefined",
        });
    };
    check_point(first, None, 0)?;
    let mut acc = MeanDirectionAccumulator::new(first.len())?;
    for x in points {
        acc.push(x)?;
    }
    acc.mean()
}

/// The circular mean of angles in radians: atan2(Σ sin θ_i, Σ cos θ_i), in [0, 2π).
///
/// Errors as for [`mean_direction`]: no angles, a non-finite angle, or angles that balance out (sum of
/// unit vectors zero up to rounding, e.g. 0 and π).
pub fn circular_mean(angles_rad: &[f64]) -> Fallible<f64> {
    let mut acc = MeanDirectionAccumulator::new(2)?;
    for (i, &a) in angles_rad.iter().enumerate() {
        if !a.is_finite() {
            return Err(Error::NonFinite { component: i, value: a });
        }
        let (s, c) = a.sin_cos();
        acc.push(&DVector::from_column_slice(&[c, s]))?;
    }
    Ok(to_angle(&acc.mean()?.direction))
}

/// The circular (great-circle) distance between two angles in radians: min(|a − b| mod 2π, 2π − …) ∈ [0, π].
/// NaN if either is not finite.
pub fn circular_distance(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(TAU);
    d.min(TAU - d)
}

/// The local model: every point is privatized on its own by `mech` (with independent noise), then the mean
/// direction of the releases is taken (post-processing). The guarantee returned is the mechanism's, **per
/// record**: each person's release is private whatever the others do, and no curator is trusted.
///
/// The points are validated first (as in [`mean_direction`]); they must have the mechanism's dimension (a
/// mechanism panics on a point of another sphere; that is a programming error, not a data error). Fails only
/// on invalid points or if the releases balance out exactly (a zero resultant, of probability ~0).
pub fn local_mean_direction<M, R>(
    mech: &M,
    points: &[DVector<f64>],
    rng: &mut R,
) -> Fallible<(MeanDirection, Guarantee)>
where
    M: Mechanism<Point = DVector<f64>>,
    R: CryptoRng + ?Sized,
{
    let Some(first) = points.first() else {
        return Err(Error::InvalidParameter {
            name: Param::NumberOfPoints,
            value: 0.0,
            reason: "the mean direction of no points is undefined",
        });
    };
    let dim = first.len();
    for (i, x) in points.iter().enumerate() {
        check_point(x, Some(dim), i)?;
    }
    let mut acc = MeanDirectionAccumulator::new(dim)?;
    for x in points {
        acc.push(&mech.privatize(x, rng)?)?;
    }
    Ok((acc.mean()?, mech.guarantee()))
}

/// The central model: a trusted curator computes the exact mean direction and releases it once through the
/// `kind` mechanism calibrated for pure `epsilon`-DP over whole data sets
/// ([`SphereMechanism::for_pure_dp`]: ε per unit divided by the metric's diameter).
///
/// **Why the diameter.** The sensitivity of the mean direction is the diameter of the sphere: for a data set
/// whose other records nearly balance out, changing one record can move the mean direction to any point. So
/// the release is pure ε-DP under replace-one adjacency (`Guarantee::PureDp { epsilon, .. }`), but its noise
/// does not shrink as N grows: at ε = 1 on the circle the expected error is 1.26–1.45 rad for any N, while
/// the local model's error falls like 1/√N. For directional statistics local DP beats central DP (see the
/// module documentation).
///
/// A data set whose mean direction is undefined (zero resultant) releases the noisy first basis vector
/// e₁ instead of failing: failing would reveal that the resultant is zero, which is not private. Errors come
/// only from invalid parameters (ε, or wrapped Laplace off the circle) and invalid points (empty, mixed
/// dimensions, non-finite, not unit).
pub fn central_mean_direction<R: CryptoRng + ?Sized>(
    kind: SphereKind,
    epsilon: f64,
    points: &[DVector<f64>],
    rng: &mut R,
) -> Fallible<(DVector<f64>, Guarantee)> {
    let Some(first) = points.first() else {
        return Err(Error::InvalidParameter {
            name: Param::NumberOfPoints,
            value: 0.0,
            reason: "the mean direction of no points is undefined",
        });
    };
    check_point(first, None, 0)?;
    let dim = first.len();
    let mech = SphereMechanism::for_pure_dp(kind, dim, epsilon)?;
    let mut acc = MeanDirectionAccumulator::new(dim)?;
    for x in points {
        acc.push(x)?;
    }
    let centre = match acc.mean() {
        Ok(m) => m.direction,
        Err(_) => {
            let mut e1 = DVector::zeros(dim);
            e1[0] = 1.0;
            e1
        }
    };
    Ok((mech.privatize(&centre, rng)?, Guarantee::pure(epsilon)))
}

/// A histogram of a periodic quantity over `bins` equal arcs of one period: angles in radians on [0, 2π),
/// hours of a day on [0, 24), … Values are reduced modulo the period before counting, so −1 h counts as
/// 23 h; non-finite values are counted as outside.
#[derive(Debug, Clone, PartialEq)]
pub struct CircularHistogram {
    period: f64,
    hist: Histogram,
}

impl CircularHistogram {
    /// `bins` (≥ 1) equal arcs of a period `period` (finite, > 0).
    pub fn new(period: f64, bins: usize) -> Fallible<Self> {
        let period = crate::error::check_positive(Param::Period, period)?;
        let hist = Histogram::new(0.0, period, bins).ok_or(Error::InvalidParameter {
            name: Param::Bins,
            value: bins as f64,
            reason: "must be at least 1",
        })?;
        Ok(CircularHistogram { period, hist })
    }

    /// Angles in radians over [0, 2π).
    pub fn radians(bins: usize) -> Fallible<Self> {
        Self::new(TAU, bins)
    }

    /// Times of day in hours over [0, 24) (24 bins: one per hour).
    pub fn hours_of_day(bins: usize) -> Fallible<Self> {
        Self::for_periodic(Periodic::HOURS_OF_DAY, bins)
    }

    /// Values of a [`Periodic`] quantity (hours of a day, days of a week…).
    pub fn for_periodic(periodic: Periodic, bins: usize) -> Fallible<Self> {
        Self::new(periodic.period, bins)
    }

    /// The period.
    pub fn period(&self) -> f64 {
        self.period
    }

    /// Counts values (in the period's unit), each reduced modulo the period.
    pub fn add_values(&mut self, values: impl IntoIterator<Item = f64>) {
        let p = self.period;
        self.hist.add_all(values.into_iter().map(|v| {
            let r = v.rem_euclid(p);
            // A tiny negative value rounds to exactly one period: it belongs to the first bin.
            if r >= p { 0.0 } else { r }
        }));
    }

    /// Counts points of S¹ (2 coordinates), each at its angle scaled to the period (angle · period / 2π).
    /// Rejects all of them (counting none) if one is not a finite unit vector of R².
    pub fn add_points(&mut self, points: &[DVector<f64>]) -> Fallible<()> {
        for (i, x) in points.iter().enumerate() {
            if x.len() != 2 {
                return Err(Error::WrongLength { expected: 2, got: x.len() });
            }
            check_point(x, Some(2), i)?;
        }
        let scale = self.period / TAU;
        self.add_values(points.iter().map(|x| to_angle(x) * scale));
        Ok(())
    }

    /// Counts per bin.
    pub fn counts(&self) -> &[u64] {
        self.hist.counts()
    }

    /// Number of values counted (inside and outside).
    pub fn total(&self) -> u64 {
        self.hist.total()
    }

    /// `(start, end)` of bin k, in the period's unit.
    pub fn edges(&self, k: usize) -> (f64, f64) {
        self.hist.edges(k)
    }

    /// Density per unit of the period's unit (count / (total · width)).
    pub fn density(&self) -> Vec<f64> {
        self.hist.density()
    }

    /// The underlying [`Histogram`] on [0, period].
    pub fn histogram(&self) -> &Histogram {
        &self.hist
    }
}

/// The bounds of one latitude × longitude cell, in degrees: lat ∈ [lat_min, lat_max), lon ∈ [lon_min,
/// lon_max) (the northernmost row also holds lat = 90, and lon = 180 is lon = −180).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellBounds {
    /// Southern edge.
    pub lat_min: f64,
    /// Northern edge.
    pub lat_max: f64,
    /// Western edge.
    pub lon_min: f64,
    /// Eastern edge.
    pub lon_max: f64,
}

impl CellBounds {
    /// The cell's share of the sphere's area: (sin lat_max − sin lat_min)·Δlon / (4π), Δlon in radians.
    pub fn area_fraction(&self) -> f64 {
        (self.lat_max.to_radians().sin() - self.lat_min.to_radians().sin()) * (self.lon_max - self.lon_min).to_radians()
            / (4.0 * PI)
    }
}

/// Counts of points of S² in latitude × longitude cells of `cell_deg` degrees: rows from the south pole
/// (row 0 starts at −90°) to the north pole, columns from −180° eastwards. If `cell_deg` does not divide 180
/// (or 360) the last row (column) is narrower. Latitude 90° falls in the last row, longitude 180° is −180°
/// (column 0).
#[derive(Debug, Clone, PartialEq)]
pub struct LatLonGrid {
    cell_deg: f64,
    rows: usize,
    cols: usize,
    counts: Vec<u64>,
}

/// The largest number of cells a grid may have (2²⁴, 128 MiB of counts).
const MAX_CELLS: usize = 1 << 24;

impl LatLonGrid {
    /// A grid of `cell_deg`-degree cells (finite, in (0, 180], and at most 2²⁴ cells in all, i.e. cells of
    /// at least ≈ 0.063°).
    pub fn new(cell_deg: f64) -> Fallible<Self> {
        if !(cell_deg.is_finite() && cell_deg > 0.0 && cell_deg <= 180.0) {
            return Err(Error::InvalidParameter {
                name: Param::CellSizeDegrees,
                value: cell_deg,
                reason: "must be a finite number in (0, 180]",
            });
        }
        // A cell size that divides 180 up to rounding gives exactly 180/cell rows.
        let count = |span: f64| {
            let q = span / cell_deg;
            if (q - q.round()).abs() < 1e-9 * q { q.round() as usize } else { q.ceil() as usize }
        };
        let (rows, cols) = (count(180.0), count(360.0));
        if rows.saturating_mul(cols) > MAX_CELLS {
            return Err(Error::InvalidParameter {
                name: Param::CellSizeDegrees,
                value: cell_deg,
                reason: "too small: the grid would have more than 2^24 cells",
            });
        }
        Ok(LatLonGrid { cell_deg, rows, cols, counts: vec![0; rows * cols] })
    }

    /// The cell size in degrees.
    pub fn cell_deg(&self) -> f64 {
        self.cell_deg
    }

    /// Number of latitude rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of longitude columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The `(row, col)` of the cell holding latitude `lat` ∈ [−90, 90] and any finite longitude `lon` (taken
    /// modulo 360), in degrees.
    pub fn cell_of(&self, lat: f64, lon: f64) -> Fallible<(usize, usize)> {
        if !lat.is_finite() {
            return Err(Error::NonFinite { component: 0, value: lat });
        }
        if !lon.is_finite() {
            return Err(Error::NonFinite { component: 1, value: lon });
        }
        if !(-90.0..=90.0).contains(&lat) {
            return Err(Error::LatitudeOutOfRange(lat));
        }
        let lon = normalise_longitude_deg(lon);
        let row = (((lat + 90.0) / self.cell_deg).floor() as usize).min(self.rows - 1);
        let col = (((lon + 180.0) / self.cell_deg).floor() as usize).min(self.cols - 1);
        Ok((row, col))
    }

    /// Counts one location given in degrees.
    pub fn add_lat_lon_deg(&mut self, lat: f64, lon: f64) -> Fallible<()> {
        let (r, c) = self.cell_of(lat, lon)?;
        self.counts[r * self.cols + c] += 1;
        Ok(())
    }

    /// Counts points of S² ⊂ R³ (unit vectors, x towards (0°, 0°), z to the north pole). Rejects all of them
    /// (counting none) if one is not a finite unit vector of R³.
    pub fn add_points(&mut self, points: &[DVector<f64>]) -> Fallible<()> {
        for (i, x) in points.iter().enumerate() {
            if x.len() != 3 {
                return Err(Error::WrongLength { expected: 3, got: x.len() });
            }
            check_point(x, Some(3), i)?;
        }
        for x in points {
            let (lat, lon) = to_lat_lon_deg(x);
            self.add_lat_lon_deg(lat.clamp(-90.0, 90.0), lon)?;
        }
        Ok(())
    }

    /// The count in cell `(row, col)`. Panics if out of range.
    pub fn count(&self, row: usize, col: usize) -> u64 {
        assert!(row < self.rows && col < self.cols, "cell ({row}, {col}) outside a {}×{} grid", self.rows, self.cols);
        self.counts[row * self.cols + col]
    }

    /// All counts, row by row from the south (index row · cols + col).
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Number of points counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The bounds of cell `(row, col)` in degrees (the last row and column end at 90° and 180°). Panics if
    /// out of range.
    pub fn cell_bounds(&self, row: usize, col: usize) -> CellBounds {
        assert!(row < self.rows && col < self.cols, "cell ({row}, {col}) outside a {}×{} grid", self.rows, self.cols);
        let c = self.cell_deg;
        CellBounds {
            lat_min: -90.0 + c * row as f64,
            lat_max: if row + 1 == self.rows { 90.0 } else { -90.0 + c * (row + 1) as f64 },
            lon_min: -180.0 + c * col as f64,
            lon_max: if col + 1 == self.cols { 180.0 } else { -180.0 + c * (col + 1) as f64 },
        }
    }

    /// Every cell with its bounds and count, row by row from the south.
    pub fn cells(&self) -> impl Iterator<Item = (usize, usize, CellBounds, u64)> + '_ {
        (0..self.rows).flat_map(move |r| (0..self.cols).map(move |c| (r, c, self.cell_bounds(r, c), self.count(r, c))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanism::{PurkayasthaSphere, UniformSphere, VmfSphere, WrappedLaplaceCircle};
    use crate::sample::rng::seeded_rng_for_experiments;
    use crate::space::sphere::{from_angle, from_lat_lon_deg};

    fn circle(angles: &[f64]) -> Vec<DVector<f64>> {
        angles.iter().map(|&a| from_angle(a).unwrap()).collect()
    }

    #[test]
    fn mean_direction_of_known_points() {
        // 10°, 20°, 30°: mean 20°, R̄ = (1 + 2 cos 10°)/3.
        let pts = circle(&[10f64.to_radians(), 20f64.to_radians(), 30f64.to_radians()]);
        let m = mean_direction(&pts).unwrap();
        assert!((m.angle().unwrap() - 20f64.to_radians()).abs() < 1e-15);
        assert!((m.resultant_length - (1.0 + 2.0 * 10f64.to_radians().cos()) / 3.0).abs() < 1e-15);
        assert_eq!(m.count, 3);
        assert_eq!(m.circular_variance(), 1.0 - m.resultant_length);
        // Across 0: 350° and 10° average to 0°, not 180°.
        let m = mean_direction(&circle(&[350f64.to_radians(), 10f64.to_radians()])).unwrap();
        assert!(circular_distance(m.angle().unwrap(), 0.0) < 1e-15);
        // On S²: the mean of the three axes is (1,1,1)/√3 with R̄ = 1/√3.
        let axes: Vec<DVector<f64>> =
            (0..3).map(|i| DVector::from_fn(3, |j, _| if i == j { 1.0 } else { 0.0 })).collect();
        let m = mean_direction(&axes).unwrap();
        assert!((m.direction.clone() - DVector::from_element(3, 1.0 / 3f64.sqrt())).norm() < 1e-15);
        assert!((m.resultant_length - 1.0 / 3f64.sqrt()).abs() < 1e-15);
        assert_eq!(m.angle(), None);
    }

    #[test]
    fn mean_direction_errors_are_typed() {
        assert!(matches!(mean_direction(&[]), Err(Error::InvalidParameter { .. })));
        let mixed = vec![from_angle(0.1).unwrap(), from_lat_lon_deg(0.0, 0.0).unwrap()];
        let e = mean_direction(&mixed).unwrap_err();
        assert!(matches!(&e, Error::Degenerate(msg) if msg.contains("point 1 has 3 coordinates")), "{e}");
        // Antipodal points and three points 120° apart balance out.
        for angles in [vec![0.0, PI], vec![0.0, TAU / 3.0, 2.0 * TAU / 3.0], vec![1.0, 1.0 + PI, 2.0, 2.0 + PI]] {
            let e = mean_direction(&circle(&angles)).unwrap_err();
            assert!(matches!(&e, Error::Degenerate(msg) if msg.contains("undefined")), "{angles:?}: {e}");
            assert!(circular_mean(&angles).is_err());
        }
        let nan = vec![DVector::from_column_slice(&[f64::NAN, 1.0])];
        assert!(matches!(mean_direction(&nan), Err(Error::NonFinite { component: 0, .. })));
        let long = vec![DVector::from_column_slice(&[2.0, 0.0])];
        assert!(matches!(mean_direction(&long), Err(Error::NotUnitVector { .. })));
        let short = vec![DVector::from_column_slice(&[1.0])];
        assert!(matches!(mean_direction(&short), Err(Error::WrongLength { .. })));
        // A nearly balanced but genuinely non-zero resultant is fine.
        let m = mean_direction(&circle(&[0.0, PI - 1e-6])).unwrap();
        assert!(circular_distance(m.angle().unwrap(), (PI - 1e-6) / 2.0) < 1e-9 && m.resultant_length < 1e-6);
    }

    #[test]
    fn accumulator_matches_batch_and_does_not_drift() {
        let mut rng = seeded_rng_for_experiments(5);
        let vmf = VmfSphere::new(3, 2.0).unwrap();
        let centre = from_lat_lon_deg(40.0, -70.0).unwrap();
        let pts: Vec<DVector<f64>> = (0..2000).map(|_| vmf.privatize(&centre, &mut rng).unwrap()).collect();
        let mut acc = MeanDirectionAccumulator::new(3).unwrap();
        for (i, x) in pts.iter().enumerate() {
            acc.push(x).unwrap();
            if i == 99 {
                let prefix = mean_direction(&pts[..100]).unwrap();
                assert!((acc.mean().unwrap().direction - prefix.direction).norm() < 1e-15);
            }
        }
        let m = acc.mean().unwrap();
        assert_eq!(m, mean_direction(&pts).unwrap());
        // E[cos θ] for VMF(κ = 2) on S² is coth 2 − 1/2 ≈ 0.5373; R̄ of 2000 draws is within a few 0.01.
        assert!((m.resultant_length - (1.0 / 2f64.tanh() - 0.5)).abs() < 0.03, "{}", m.resultant_length);
        assert!(acc.push(&from_angle(0.0).unwrap()).is_err());
        assert_eq!(acc.count(), 2000);
        // A million copies of one point: still exactly that point with R̄ = 1.
        let mut acc = MeanDirectionAccumulator::new(2).unwrap();
        let x = from_angle(0.3).unwrap();
        for _ in 0..1_000_000 {
            acc.push(&x).unwrap();
        }
        let m = acc.mean().unwrap();
        assert!((m.direction - &x).norm() < 1e-15 && (m.resultant_length - 1.0).abs() < 1e-15);
    }

    #[test]
    fn circular_mean_and_distance() {
        assert!((circular_mean(&[0.1, 0.3]).unwrap() - 0.2).abs() < 1e-15);
        // −0.1 and 0.1 average to 0 (and never to a value just below 2π by rounding).
        let m = circular_mean(&[-0.1, 0.1]).unwrap();
        assert!((0.0..TAU).contains(&m) && circular_distance(m, 0.0) < 1e-16);
        assert!(circular_distance(circular_mean(&[TAU - 0.2, 0.0, 0.2 + 4.0 * TAU]).unwrap(), 0.0) < 1e-12);
        assert!((circular_mean(&[3.0, 3.5]).unwrap() - 3.25).abs() < 1e-15);
        assert!(matches!(circular_mean(&[]), Err(Error::InvalidParameter { .. })));
        assert!(matches!(circular_mean(&[0.0, f64::INFINITY]), Err(Error::NonFinite { component: 1, .. })));
        assert_eq!(circular_distance(0.0, PI), PI);
        assert!((circular_distance(0.1, TAU - 0.1) - 0.2).abs() < 1e-15);
        assert!((circular_distance(-3.0, 3.0) - (TAU - 6.0)).abs() < 1e-15);
        assert!((circular_distance(1.0, 1.0 + 10.0 * TAU)).abs() < 1e-14);
        assert!(circular_distance(f64::NAN, 0.0).is_nan());
        for (a, b) in [(0.3, 5.9), (-7.0, 2.0), (100.0, -0.5)] {
            let d = circular_distance(a, b);
            assert!((0.0..=PI).contains(&d) && (d - circular_distance(b, a)).abs() < 1e-15);
            let via_points = crate::space::sphere::surface_distance(&from_angle(a).unwrap(), &from_angle(b).unwrap());
            assert!((d - via_points).abs() < 1e-12);
        }
    }

    /// Mean error (rad) of `f` over `reps` seeded runs on `n` points at 13:00 ± von Mises(κ = 8) noise.
    fn mean_error(
        reps: u64,
        n: usize,
        mut f: impl FnMut(&[DVector<f64>], &mut crate::sample::rng::ReleaseRng) -> f64,
    ) -> f64 {
        let data_law = VmfSphere::new(2, 8.0).unwrap();
        let one_pm = Periodic::HOURS_OF_DAY.to_circle(13.0).unwrap();
        let mut total = 0.0;
        for r in 0..reps {
            let mut rng = seeded_rng_for_experiments(100 + r);
            let pts: Vec<DVector<f64>> = (0..n).map(|_| data_law.privatize(&one_pm, &mut rng).unwrap()).collect();
            total += f(&pts, &mut rng);
        }
        total / reps as f64
    }

    #[test]
    fn local_model_error_falls_with_n_and_central_does_not() {
        let pur = SphereMechanism::for_pure_dp(SphereKind::Purkayastha, 2, 1.0).unwrap();
        let local = |n| {
            mean_error(200, n, |pts, rng| {
                let truth = mean_direction(pts).unwrap().direction;
                let (m, g) = local_mean_direction(&pur, pts, rng).unwrap();
                assert_eq!(g, pur.guarantee());
                assert_eq!(m.count, pts.len());
                crate::space::sphere::surface_distance(&m.direction, &truth)
            })
        };
        let central = |n| {
            mean_error(400, n, |pts, rng| {
                let truth = mean_direction(pts).unwrap().direction;
                let (z, g) = central_mean_direction(SphereKind::Purkayastha, 1.0, pts, rng).unwrap();
                assert_eq!(g, Guarantee::pure(1.0));
                crate::space::sphere::surface_distance(&z, &truth)
            })
        };
        let (l100, l1600) = (local(100), local(1600));
        // Error ∝ 1/√n: a 16-fold n gives a ~4-fold smaller error (MAE ≈ 0.27 rad at n = 100).
        assert!(l100 > 0.15 && l100 < 0.45, "{l100}");
        assert!((l100 / l1600 - 4.0).abs() < 1.0, "{l100} {l1600}");
        // Central: the mechanism's mean angle at κ = 1/π, whatever n (≈ 1.31 rad on the circle; the
        // standard error of a mean of 400 is ≈ 0.045).
        let expected = pur.mean_angle();
        for n in [10, 1000] {
            let c = central(n);
            assert!((c - expected).abs() < 0.2, "n = {n}: {c} vs {expected}");
            assert!(c > 3.0 * l100);
        }
    }

    #[test]
    fn local_model_validates_and_works_with_any_mechanism() {
        let mut rng = seeded_rng_for_experiments(1);
        let wl = WrappedLaplaceCircle::new(1e6).unwrap();
        let pts = circle(&[0.2, 0.4]);
        let (m, _) = local_mean_direction(&wl, &pts, &mut rng).unwrap();
        assert!(circular_distance(m.angle().unwrap(), 0.3) < 1e-4);
        let uni = UniformSphere::new(2).unwrap();
        let (_, g) = local_mean_direction(&uni, &pts, &mut rng).unwrap();
        assert_eq!(g, Guarantee::pure(0.0));
        let pur = PurkayasthaSphere::new(2, 1.0).unwrap();
        assert!(local_mean_direction(&pur, &[], &mut rng).is_err());
        let mixed = vec![from_angle(0.0).unwrap(), from_lat_lon_deg(1.0, 1.0).unwrap()];
        assert!(matches!(local_mean_direction(&pur, &mixed, &mut rng), Err(Error::Degenerate(_))));
    }

    #[test]
    fn central_model_handles_a_zero_resultant_and_bad_parameters() {
        let mut rng = seeded_rng_for_experiments(2);
        let balanced = circle(&[0.0, PI]);
        // The largest budget the mechanisms accept (κ = ε/2 = 1e6): noise of about 1e-3 rad.
        let (z, _) = central_mean_direction(SphereKind::Vmf, 2e6, &balanced, &mut rng).unwrap();
        assert!(circular_distance(to_angle(&z), 0.0) < 1e-2, "e1 is released when the mean is undefined");
        assert!(central_mean_direction(SphereKind::Vmf, 0.0, &balanced, &mut rng).is_err());
        assert!(central_mean_direction(SphereKind::Vmf, 1.0, &[], &mut rng).is_err());
        let s2 = vec![from_lat_lon_deg(10.0, 20.0).unwrap()];
        assert!(central_mean_direction(SphereKind::WrappedLaplace, 1.0, &s2, &mut rng).is_err());
        // The largest budget Purkayastha accepts for a whole record: κ = ε/π = 1e6.
        let budget = PI * 1e6;
        let (z, g) = central_mean_direction(SphereKind::Purkayastha, budget, &s2, &mut rng).unwrap();
        assert!((&z - &s2[0]).norm() < 1e-4, "{z}");
        assert!(matches!(g, Guarantee::PureDp { epsilon, .. } if (epsilon / budget - 1.0).abs() < 1e-12), "{g:?}");
    }

    #[test]
    fn circular_histograms_wrap_values() {
        let mut h = CircularHistogram::hours_of_day(24).unwrap();
        h.add_values([0.0, 0.5, 23.99, 24.0, -1.0, 13.2, 48.5, -1e-17, f64::NAN]);
        assert_eq!(h.total(), 9);
        let c = h.counts();
        assert_eq!(c[0], 5, "0, 0.5, 24 ≡ 0, 48.5 ≡ 0.5, and -1e-17 (rounds to 24 ≡ 0): {c:?}");
        assert_eq!((c[23], c[13]), (2, 1), "23.99 and -1 ≡ 23; 13.2");
        assert_eq!(c.iter().sum::<u64>(), 8, "NaN is outside");
        assert_eq!(h.edges(13), (13.0, 14.0));
        assert_eq!(h.period(), 24.0);
        let mut r = CircularHistogram::radians(4).unwrap();
        r.add_points(&circle(&[0.1, PI / 2.0 + 0.1, -0.1, PI])).unwrap();
        assert_eq!(r.counts(), &[1, 1, 1, 1]);
        assert!((r.density()[0] - 1.0 / (4.0 * (TAU / 4.0))).abs() < 1e-15);
        assert!(r.add_points(&[from_lat_lon_deg(0.0, 0.0).unwrap()]).is_err());
        assert_eq!(r.total(), 4);
        let mut hours = CircularHistogram::hours_of_day(24).unwrap();
        hours.add_points(&[Periodic::HOURS_OF_DAY.to_circle(13.5).unwrap()]).unwrap();
        assert_eq!(hours.counts()[13], 1);
        assert!(CircularHistogram::new(0.0, 4).is_err());
        assert!(CircularHistogram::new(24.0, 0).is_err());
        assert_eq!(CircularHistogram::for_periodic(Periodic::DAYS_OF_WEEK, 7).unwrap().histogram().counts().len(), 7);
    }

    #[test]
    fn lat_lon_grid_counts_cells_and_edges() {
        let mut g = LatLonGrid::new(30.0).unwrap();
        assert_eq!((g.rows(), g.cols()), (6, 12));
        assert_eq!(g.cell_of(90.0, 0.0).unwrap(), (5, 6));
        assert_eq!(g.cell_of(-90.0, -180.0).unwrap(), (0, 0));
        assert_eq!(g.cell_of(0.0, 180.0).unwrap(), (3, 0), "lon 180 is lon -180");
        assert_eq!(g.cell_of(0.0, 179.999).unwrap(), (3, 11));
        assert_eq!(g.cell_of(-0.0, 540.0).unwrap(), (3, 0));
        assert_eq!(g.cell_of(48.85, 2.35).unwrap(), (4, 6));
        assert!(matches!(g.cell_of(91.0, 0.0), Err(Error::LatitudeOutOfRange(_))));
        assert!(matches!(g.cell_of(0.0, f64::NAN), Err(Error::NonFinite { component: 1, .. })));
        g.add_lat_lon_deg(48.85, 2.35).unwrap();
        g.add_lat_lon_deg(90.0, 123.0).unwrap();
        let north = from_lat_lon_deg(90.0, 0.0).unwrap();
        let date_line = from_lat_lon_deg(-10.0, 180.0).unwrap();
        g.add_points(&[north, date_line]).unwrap();
        assert_eq!(g.total(), 4);
        assert_eq!(g.count(4, 6), 1);
        assert_eq!(g.count(5, 6) + g.count(5, 10), 2);
        // On the date line rounding decides between the first and last column.
        assert_eq!(g.count(2, 0) + g.count(2, 11), 1);
        assert!(g.add_points(&[from_angle(0.0).unwrap()]).is_err());
        assert!(g.add_points(&[DVector::from_column_slice(&[0.0, 0.0, 2.0])]).is_err());
        assert_eq!(g.total(), 4);
        let b = g.cell_bounds(5, 11);
        assert_eq!((b.lat_min, b.lat_max, b.lon_min, b.lon_max), (60.0, 90.0, 150.0, 180.0));
        let area: f64 = g.cells().map(|(_, _, b, _)| b.area_fraction()).sum();
        assert!((area - 1.0).abs() < 1e-12);
        assert_eq!(g.cells().map(|c| c.3).sum::<u64>(), 4);
        // A size that does not divide 180: a narrower last row and column, still covering the sphere.
        let g = LatLonGrid::new(50.0).unwrap();
        assert_eq!((g.rows(), g.cols()), (4, 8));
        assert_eq!(g.cell_bounds(3, 7), CellBounds { lat_min: 60.0, lat_max: 90.0, lon_min: 170.0, lon_max: 180.0 });
        assert_eq!(g.cell_of(90.0, 179.0).unwrap(), (3, 7));
        // Sizes that divide 180 only up to rounding still give whole rows.
        let g = LatLonGrid::new(0.3).unwrap();
        assert_eq!((g.rows(), g.cols()), (600, 1200));
        for bad in [0.0, -1.0, f64::NAN, 181.0, 0.01] {
            assert!(LatLonGrid::new(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn lat_lon_grid_of_uniform_points_matches_areas() {
        let mut rng = seeded_rng_for_experiments(3);
        let uni = UniformSphere::new(3).unwrap();
        let pts: Vec<DVector<f64>> = (0..60_000).map(|_| uni.sample(&mut rng)).collect();
        let mut g = LatLonGrid::new(45.0).unwrap();
        g.add_points(&pts).unwrap();
        for (_, _, b, c) in g.cells() {
            let expected = b.area_fraction() * 60_000.0;
            // Counts are binomial: within 6 standard deviations.
            assert!((c as f64 - expected).abs() < 6.0 * expected.sqrt(), "{b:?}: {c} vs {expected}");
        }
    }
}
