//! A private Fréchet mean of the rows of Arrow batches, computed in passes that any number of workers can
//! share. One Karcher step is one pass: each worker sums log_base(x_i) over its rows ([`MeanPlan::pass`]),
//! the sums are added ([`MeanPass::merge`]), and the coordinator steps ([`MeanPlan::step`]). When the step
//! converges, the coordinator draws the noise once ([`MeanPlan::release`]). On one machine
//! [`MeanPlan::fit`] runs the same loop over batches held in memory, so both give the same mean up to the
//! order of floating-point additions.
//!
//! Points travel between workers as plain coordinates: a quaternion (w, x, y, z), a unit vector, or an SPD
//! matrix row by row. The mean is returned in the table's own form (the rotation format, degrees of
//! latitude/longitude, an angle, hours, a matrix row by row).
//!
//! Files: the plan and its parts here; the passes, the ball placement and the Karcher loop in `fit.rs`; the
//! checks, guarantee and noise of a release in `release.rs`; the bounded numeric (`real`) mean in `real.rs`.

use crate::columns::{PointColumns, Problem};
use crate::{DirectionColumns, Error};
use arrow_array::{Array, ArrayRef, Float64Array, RecordBatch};
use manifold_dp::Error as LibError;
use manifold_dp::analysis::riemannian_gdp::gdp_mu_for_approx;
use manifold_dp::manifold::ball::Outside;
use manifold_dp::manifold::sensitivity::check_radius;
use manifold_dp::manifold::{KarcherOptions, Manifold, So3, SpdAffine, SpdLogEuclidean, Sphere};
use manifold_dp::mechanism::{Conditioning, LaplaceManifold, check_log_euclidean_mean_k};
use manifold_dp::privacy::guarantee::Neighbouring;
use manifold_dp::privacy::{Grid, Guarantee, StatedGuarantee};
use manifold_dp::registry::Space;
use manifold_dp::space::representation::Representation;
use manifold_dp::space::so3::Tolerance;
use manifold_dp::space::spd::{DEFAULT_SYMMETRY_TOLERANCE, spd_from_row_major, to_row_major};
use nalgebra::{DMatrix, DVector, Quaternion, UnitQuaternion};
use rayon::prelude::*;
use std::sync::Arc;

/// The metric of SPD(K) a mean is taken in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpdMetric {
    /// The affine-invariant metric ‖log(P^{-1/2} Q P^{-1/2})‖_F.
    #[default]
    Affine,
    /// The log-Euclidean metric ‖log P − log Q‖_F.
    LogEuclidean,
}

impl std::str::FromStr for SpdMetric {
    type Err = LibError;

    fn from_str(s: &str) -> Result<Self, LibError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "affine" => Ok(SpdMetric::Affine),
            "log-euclidean" => Ok(SpdMetric::LogEuclidean),
            _ => Err(LibError::NotApplicable(format!("SPD metric {s:?}: use affine or log-euclidean"))),
        }
    }
}

/// The noise a Fréchet mean is released with, and the budget it is calibrated to: one rule for every front end
/// ([`MeanNoise::from_arguments`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MeanNoise {
    /// The Riemannian Laplace at pure ε (the default), its draw conditioned on the ball or not.
    Laplace {
        /// The pure ε asked.
        epsilon: f64,
        /// Whether the draw is conditioned on the ball.
        conditioning: Conditioning,
    },
    /// The Riemannian Gaussian at μ-GDP (spheres and SO(3); `docs/proofs/riemannian_gaussian.md`).
    Gaussian {
        /// The μ asked (given, or from (ε, δ) through the exact GDP curve).
        mu: f64,
    },
}

impl MeanNoise {
    /// The noise from a front end's arguments: `mechanism` (`laplace`, the default, or `gaussian`), `epsilon`,
    /// `delta`, `mu` and `conditioning` (`Conditioning::Auto` when not given). The Laplace takes `epsilon`
    /// alone; the Gaussian takes `mu`, or `epsilon` with `delta`, converted to the largest μ whose GDP curve
    /// is (ε, δ)-DP ([`gdp_mu_for_approx`]). A refusal names the arguments as `name` spells them
    /// (`--mu` on the command line, `mu=` in Python), and says what to give instead.
    pub fn from_arguments(
        mechanism: Option<&str>,
        epsilon: Option<f64>,
        delta: Option<f64>,
        mu: Option<f64>,
        conditioning: Conditioning,
        name: impl Fn(&str) -> String,
    ) -> Result<Self, Error> {
        let (m, e, d, u) = (name("mechanism"), name("epsilon"), name("delta"), name("mu"));
        let positive = |arg: &str, v: f64| -> Result<f64, Error> {
            if v.is_finite() && v > 0.0 {
                Ok(v)
            } else {
                Err(not_applicable(&format!(
                    "{} {}: must be a finite number > 0",
                    name(arg),
                    manifold_dp::privacy::guarantee::short(v)
                )))
            }
        };
        match mechanism.map(|s| s.trim().to_ascii_lowercase()).as_deref().unwrap_or("laplace") {
            "laplace" => {
                if mu.is_some() {
                    return Err(not_applicable(&format!(
                        "{u} goes with {m} gaussian (μ-GDP): the Laplace mean takes {e} E alone (pure ε-DP); give \
                         {m} gaussian {u} M, or drop {u}"
                    )));
                }
                if delta.is_some() {
                    return Err(not_applicable(&format!(
                        "{d} goes with {m} gaussian (calibrated from (ε, δ)): the Laplace mean is pure ε-DP and \
                         takes {e} E alone; drop {d}, or give {m} gaussian"
                    )));
                }
                let epsilon = epsilon.ok_or_else(|| {
                    not_applicable(&format!(
                        "give {e} E (pure ε-DP), or {m} gaussian with {u} M (μ-GDP) for the Gaussian mean"
                    ))
                })?;
                Ok(MeanNoise::Laplace { epsilon: positive("epsilon", epsilon)?, conditioning })
            }
            "gaussian" => {
                if conditioning != Conditioning::Auto {
                    return Err(not_applicable(&format!(
                        "{} conditions the Laplace draw: the Gaussian draw is never conditioned; drop it",
                        name("conditioning")
                    )));
                }
                match (mu, epsilon, delta) {
                    (Some(mu), None, None) => Ok(MeanNoise::Gaussian { mu: positive("mu", mu)? }),
                    (Some(_), _, _) => Err(not_applicable(&format!(
                        "give the Gaussian mean one budget: {u} M, or {e} E with {d} D (converted to μ), not both"
                    ))),
                    (None, Some(epsilon), Some(delta)) => {
                        let epsilon = positive("epsilon", epsilon)?;
                        if !(delta > 0.0 && delta < 1.0) {
                            return Err(not_applicable(&format!(
                                "{d} {}: must lie in (0, 1)",
                                manifold_dp::privacy::guarantee::short(delta)
                            )));
                        }
                        let mu = gdp_mu_for_approx(epsilon, delta)
                            .map_err(|err| not_applicable(&format!("{e} {epsilon} {d} {delta}: {err}")))?;
                        Ok(MeanNoise::Gaussian { mu })
                    }
                    (None, Some(_), None) => Err(not_applicable(&format!(
                        "{e} alone is a pure-DP budget, which the Gaussian mean cannot meet: give {u} M (μ-GDP), \
                         or {e} E with {d} D (converted to μ through the exact GDP curve), or use {m} laplace"
                    ))),
                    (None, None, Some(_)) => {
                        Err(not_applicable(&format!("{d} needs {e}: give {e} E with {d} D, or {u} M (μ-GDP)")))
                    }
                    (None, None, None) => Err(not_applicable(&format!(
                        "{m} gaussian needs a budget: {u} M (μ-GDP), or {e} E with {d} D (converted to μ)"
                    ))),
                }
            }
            other => Err(not_applicable(&format!(
                "{m} {other:?}: the Fréchet mean's mechanisms are laplace (pure ε-DP) and gaussian (μ-GDP)"
            ))),
        }
    }

    /// The guarantee's parameter for people and ledgers' records: `epsilon E` or `mu M`.
    pub fn budget_text(&self) -> String {
        match self {
            MeanNoise::Laplace { epsilon, .. } => format!("epsilon {epsilon}"),
            MeanNoise::Gaussian { mu } => format!("mu {mu}"),
        }
    }
}

/// The geometry of a mean and its public centre.
#[derive(Debug, Clone)]
enum Geometry {
    So3 {
        repr: Representation,
        center: UnitQuaternion<f64>,
    },
    Sphere {
        m: Sphere,
        center: DVector<f64>,
    },
    SpdAffine {
        m: SpdAffine,
        center: DMatrix<f64>,
    },
    SpdLogEuclidean {
        m: SpdLogEuclidean,
        center: DMatrix<f64>,
    },
    /// Plain numbers in public bounds: the mean of each column, clamped or refused outside its bounds. One pair
    /// bounds every column; otherwise there is one pair per column, in order.
    Real {
        bounds: Box<[(f64, f64)]>,
    },
}

/// Points as the coordinates that travel between workers.
trait Coordinates: LaplaceManifold {
    fn coordinates(&self, p: &Self::Point) -> Vec<f64>;
    fn point_at(&self, v: &[f64]) -> Result<Self::Point, Error>;
}

fn wrong_length(expected: usize, got: usize) -> Error {
    Error::Library(LibError::WrongLength { expected, got })
}

impl Coordinates for So3 {
    fn coordinates(&self, q: &UnitQuaternion<f64>) -> Vec<f64> {
        vec![q.w, q.i, q.j, q.k]
    }
    fn point_at(&self, v: &[f64]) -> Result<UnitQuaternion<f64>, Error> {
        match v {
            &[w, i, j, k] => Ok(UnitQuaternion::new_normalize(Quaternion::new(w, i, j, k))),
            _ => Err(wrong_length(4, v.len())),
        }
    }
}

impl Coordinates for Sphere {
    fn coordinates(&self, p: &DVector<f64>) -> Vec<f64> {
        p.as_slice().to_vec()
    }
    fn point_at(&self, v: &[f64]) -> Result<DVector<f64>, Error> {
        if v.len() != self.ambient() {
            return Err(wrong_length(self.ambient(), v.len()));
        }
        Ok(manifold_dp::space::sphere::unit_vector_default(v)?)
    }
}

macro_rules! spd_coordinates {
    ($t:ty) => {
        impl Coordinates for $t {
            fn coordinates(&self, p: &DMatrix<f64>) -> Vec<f64> {
                to_row_major(p)
            }
            fn point_at(&self, v: &[f64]) -> Result<DMatrix<f64>, Error> {
                Ok(spd_from_row_major(v, self.k(), DEFAULT_SYMMETRY_TOLERANCE)?)
            }
        }
    };
}
spd_coordinates!(SpdAffine);
spd_coordinates!(SpdLogEuclidean);

/// Runs `$body` with `$m` the manifold and `$c` the centre of the plan's geometry.
macro_rules! with_geometry {
    ($geometry:expr, |$m:ident, $c:ident| $body:expr) => {
        match $geometry {
            Geometry::So3 { center: $c, .. } => {
                let $m = &So3;
                $body
            }
            Geometry::Sphere { m: $m, center: $c } => $body,
            Geometry::SpdAffine { m: $m, center: $c } => $body,
            Geometry::SpdLogEuclidean { m: $m, center: $c } => $body,
            Geometry::Real { .. } => unreachable!("the real space is handled before the manifolds"),
        }
    };
}

/// One pass over some rows: Σ log_base(x_i) over the rows used, and what became of the others.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeanPass {
    /// Σ log_base(x_i) in the manifold's tangent coordinates; `None` when no row was used.
    pub sum: Option<Vec<f64>>,
    /// Rows used (in the ball, or clipped onto it).
    pub used: u64,
    /// Rows left out ([`Outside::Drop`]).
    pub dropped: u64,
    /// Rows moved onto the ball ([`Outside::Clip`]); they are counted in `used` too.
    pub clipped: u64,
    /// The first row that is not a point, or (with [`Outside::Error`]) lies outside the ball: its index in the
    /// batch and what is wrong. A pass with a problem must not be used for a release.
    pub problem: Option<(usize, Problem)>,
    /// The problem row's distance from the centre, when the problem is that it lies outside the ball.
    pub outside_distance: Option<f64>,
    /// The summation depth of `sum`: the most additions any row's log went through (the Karcher stop test
    /// bounds the sum's f64 error by γ_depth per unit of the terms, `docs/proofs/frechet_mean_sensitivity.md`).
    /// Merging two sums adds one.
    pub depth: u32,
    /// Σ of the Hessians of ½ρ²(·, x_i) at the base over the rows used (a d×d matrix in the log's
    /// coordinates, column by column), when the pass was asked for it ([`MeanPlan::newton_pass`]): then
    /// [`MeanPlan::step`] takes Newton steps.
    pub hessian: Option<Vec<f64>>,
}

impl MeanPass {
    /// Adds `other` (a later part of the data) to this pass. Merging in a fixed order gives a fixed result;
    /// each merge of two sums adds one to the depth, so many parts are best merged pairwise.
    pub fn merge(&mut self, other: MeanPass) {
        (self.sum, self.depth) = match (self.sum.take(), other.sum) {
            (Some(mut a), Some(b)) => {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                (Some(a), self.depth.max(other.depth) + 1)
            }
            (Some(a), None) => (Some(a), self.depth),
            (None, b) => (b, other.depth),
        };
        self.hessian = match (self.hessian.take(), other.hessian) {
            (Some(mut a), Some(b)) => {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                Some(a)
            }
            (a, b) => a.or(b),
        };
        self.used += other.used;
        self.dropped += other.dropped;
        self.clipped += other.clipped;
        if self.problem.is_none() {
            self.problem = other.problem;
            self.outside_distance = other.outside_distance;
        }
    }
}

impl MeanPass {
    /// The passes of consecutive parts of the data merged pairwise (adjacent pairs, level by level), so the
    /// depth grows by ⌈log₂ k⌉ over k passes instead of k − 1; the first problem in order is kept, as by
    /// [`MeanPass::merge`] in order.
    pub fn merge_all(passes: Vec<MeanPass>) -> MeanPass {
        let mut level = passes;
        while level.len() > 1 {
            let mut next = Vec::with_capacity(level.len().div_ceil(2));
            let mut it = level.into_iter();
            while let Some(mut a) = it.next() {
                if let Some(b) = it.next() {
                    a.merge(b);
                }
                next.push(a);
            }
            level = next;
        }
        level.pop().unwrap_or_default()
    }
}

/// The outcome of a Karcher step on the merged pass.
#[derive(Debug, Clone, PartialEq)]
pub enum MeanStep {
    /// The base point is the mean (a certified bound on the exact gradient norm within the tolerance the
    /// sensitivity accounts for).
    Converged {
        /// ‖(1/n) Σ log_base x_i‖ as computed.
        gradient_norm: f64,
    },
    /// The next base point, as coordinates.
    Next(Vec<f64>),
}

/// A released mean and what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct MeanRelease {
    /// The private mean in the table's form (rotation format, lat/lon degrees, angle, hours, matrix row by row).
    pub mean: Vec<f64>,
    /// Pure ε-DP (the Laplace) or μ-GDP (the Gaussian) for data sets of n rows in the ball that differ in one
    /// row.
    pub guarantee: Guarantee,
    /// Δ (Reimherr et al., Theorem 2, plus the Karcher tolerance term).
    pub sensitivity: f64,
    /// The noise scale σ (the Laplace's, or the Gaussian's standard deviation parameter).
    pub sigma: f64,
    /// E[ρ(release, exact mean)] (at the centre when conditioned).
    pub expected_error: f64,
    /// Whether the draw is conditioned on the ball.
    pub conditioned: bool,
    /// n, the rows the mean is over.
    pub n: u64,
    /// The public grid the release lies on (`docs/proofs/float_safety.md`), or `None` on the real line (whose
    /// release is drawn exactly on a power-of-two grid).
    pub grid: Option<Grid>,
    /// What the rounding costs of the pure ε, taken inside the ε asked (the guarantee is that ε, exactly): its
    /// ε₀, twice when conditioned (on SPD unconditioned, plus what keeping the release in a wide public ball
    /// costs).
    pub rounding_cost: f64,
    /// The ε′ the noise is calibrated at: the ε asked less the rounding cost (ε′ + cost ≤ ε, rounded up); NaN
    /// for the Gaussian, whose budget is μ.
    pub noise_epsilon: f64,
    /// The Gaussian's μ (the guarantee's), `None` for the Laplace.
    pub mu: Option<f64>,
    /// With `outside = drop`: the guarantee with its neighbouring relation and what it does not protect
    /// (whether a row lies outside, and the in-ball count σ reveals); what front ends print then.
    pub stated: Option<StatedGuarantee>,
}

/// A single-machine fit: the exact (non-private) mean and the pass at it.
#[derive(Debug, Clone, PartialEq)]
pub struct MeanFit {
    /// The mean's coordinates.
    pub mean: Vec<f64>,
    /// Karcher steps taken.
    pub iterations: usize,
    /// The last pass (counts of used, dropped and clipped rows; a problem stops the fit early).
    pub pass: MeanPass,
}

/// A private Fréchet mean of the rows of a table: where the points are, the public ball B_r(m0) and what to do
/// with a row outside it.
#[derive(Debug, Clone)]
pub struct MeanPlan {
    space: Space,
    geometry: Geometry,
    format: Option<String>,
    columns: Option<Vec<String>>,
    radius: f64,
    outside: Outside,
    options: KarcherOptions,
}

impl MeanPlan {
    /// A mean on `space` of the columns `columns` (else the space's defaults) written as `format` (so3: a
    /// rotation format, default quat-wxyz; circle: rad or deg), with public centre `center` in the table's
    /// form (`None`: the identity on so3 and spd:K) and radius `radius` in the space's distance unit (radians
    /// on so3, the circle, time of day, latitude/longitude and spheres; the metric's unit on spd:K).
    pub fn new(
        space: Space,
        format: Option<&str>,
        columns: Option<&[String]>,
        center: Option<&[f64]>,
        radius: f64,
        outside: Outside,
        metric: SpdMetric,
    ) -> Result<Self, Error> {
        let geometry = match space {
            Space::So3 => {
                let repr: Representation = format.unwrap_or("quat-wxyz").parse()?;
                let center = match center {
                    Some(c) => repr.decode(c, &Tolerance::default())?,
                    None => UnitQuaternion::identity(),
                };
                Geometry::So3 { repr, center }
            }
            Space::Spd(k) => {
                if format.is_some() {
                    return Err(not_applicable("a format applies to so3 and circle only"));
                }
                let center = match center {
                    Some(c) => spd_from_row_major(c, k, DEFAULT_SYMMETRY_TOLERANCE)?,
                    None => DMatrix::identity(k, k),
                };
                match metric {
                    SpdMetric::Affine => Geometry::SpdAffine { m: SpdAffine::new(k)?, center },
                    // The log-Euclidean means (Laplace and Gaussian) are offered where (E) is measured, k ≤ 8.
                    SpdMetric::LogEuclidean => {
                        Geometry::SpdLogEuclidean { m: SpdLogEuclidean::new(check_log_euclidean_mean_k(k)?)?, center }
                    }
                }
            }
            Space::Real => {
                return Err(not_applicable("space real needs public bounds: build its mean with MeanPlan::bounded"));
            }
            Space::Circle | Space::TimeOfDay | Space::LatLon | Space::Sphere(_) => {
                let names = crate::direction::default_names(space);
                let values = center.ok_or_else(|| {
                    not_applicable(&format!("a direction has no identity: give the centre as {}", names.join(",")))
                })?;
                let center = direction_point(space, format, values)?;
                Geometry::Sphere { m: Sphere::new(center.len())?, center }
            }
        };
        if metric != SpdMetric::Affine && !matches!(space, Space::Spd(_)) {
            return Err(not_applicable("a metric applies to spd:K only"));
        }
        let plan = MeanPlan {
            space,
            geometry,
            format: format.map(str::to_string),
            columns: columns.map(<[String]>::to_vec),
            radius,
            outside,
            options: KarcherOptions::default(),
        };
        // The radius is checked against the space's limit r* now, not after a pass over the data.
        with_geometry!(&plan.geometry, |m, _c| check_radius(m, radius))?;
        Ok(plan)
    }

    /// The space.
    pub fn space(&self) -> Space {
        self.space
    }

    /// The manifold, for people: `S^2 (unit vectors of R^3)`, `SO(3) (rotation angle metric)`.
    pub fn describe(&self) -> String {
        if let Geometry::Real { bounds } = &self.geometry {
            return match (&bounds[..], &self.columns) {
                ([(lo, hi)], _) => format!("the real line (values in [{lo}, {hi}])"),
                (_, Some(names)) => {
                    let each: Vec<String> =
                        names.iter().zip(bounds.iter()).map(|(c, (lo, hi))| format!("{c} in [{lo}, {hi}]")).collect();
                    format!("the real line ({})", each.join(", "))
                }
                (_, None) => "the real line".into(),
            };
        }
        with_geometry!(&self.geometry, |m, _c| m.describe())
    }

    /// The public radius r.
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// Where the Karcher iteration starts: the centre's coordinates (zeros on `real`).
    pub fn start(&self) -> Vec<f64> {
        if let Geometry::Real { .. } = self.geometry {
            return vec![0.0; self.columns.as_ref().map_or(1, Vec::len)];
        }
        with_geometry!(&self.geometry, |m, c| m.coordinates(c))
    }

    /// The guarantee a release of this plan at `epsilon` states, and what a ledger is charged: pure ε-DP for
    /// data sets that differ in one row; with [`Outside::Drop`] only for those with the same rows outside the
    /// ball (or bounds) ([`Neighbouring::ReplaceOneRowInBall`], `docs/proofs/mean_outside_ball.md` §2).
    pub fn guarantee(&self, epsilon: f64) -> Guarantee {
        let neighbouring = match self.outside {
            Outside::Drop => Neighbouring::ReplaceOneRowInBall,
            Outside::Error | Outside::Clip => Neighbouring::ReplaceOneRow,
        };
        Guarantee::PureDp { epsilon, neighbouring, delta: 0.0 }
    }

    /// A start for a mean computed in passes, from the exact means of parts of the data (each part's
    /// [`MeanPlan::fit`], as coordinates, with the number of rows it used): their extrinsic mean weighted by
    /// rows ([`Manifold::extrinsic_mean`]), where it lies in the ball by the certified test
    /// ([`manifold_dp::manifold::KarcherStop::holds`]); else the centre ([`MeanPlan::start`]). Only the path of the iteration depends
    /// on the start, not what its stop certifies; a close start saves passes over the data.
    pub fn start_from(&self, parts: &[(Vec<f64>, u64)]) -> Vec<f64> {
        if let Geometry::Real { .. } = self.geometry {
            return self.start();
        }
        with_geometry!(&self.geometry, |m, c| {
            let mut total: Option<DVector<f64>> = None;
            let mut used = 0u64;
            for (coordinates, n) in parts.iter().filter(|(_, n)| *n > 0) {
                let Some(sum) = m.point_at(coordinates).ok().and_then(|p| m.extrinsic_sum(&[p], c)) else {
                    return self.start();
                };
                let sum = sum * *n as f64;
                total = Some(match total {
                    Some(t) => t + sum,
                    None => sum,
                });
                used += n;
            }
            let usize_used = usize::try_from(used).unwrap_or(usize::MAX);
            let start = total.and_then(|t| m.extrinsic_mean(&t, usize_used));
            match (start, self.stop(m, c, used.max(1))) {
                (Some(p), Ok(stop)) if stop.holds(m, &p) => m.coordinates(&p),
                _ => m.coordinates(c),
            }
        })
    }
}

/// r*, the largest radius (exclusive) a mean on `space` accepts: where the Fréchet mean is unique and its
/// sensitivity bounded (π/4 on spheres and the Earth, π/2 on SO(3), the circle and time of day, ∞ on SPD).
pub fn max_radius(space: Space) -> f64 {
    match space {
        Space::So3 => manifold_dp::manifold::max_radius(&So3),
        Space::Spd(_) => f64::INFINITY,
        _ => space
            .sphere_dim()
            .and_then(|n| Sphere::new(n).ok())
            .map_or(f64::NAN, |m| manifold_dp::manifold::max_radius(&m)),
    }
}

fn not_applicable(why: &str) -> Error {
    Error::Library(LibError::NotApplicable(why.to_string()))
}

fn no_rows() -> Error {
    not_applicable("no rows lie in the ball (or the table is empty): there is no mean to release")
}

/// A one-row table of `values` in `space`'s default columns.
fn one_row(space: Space, values: &[f64]) -> Result<RecordBatch, Error> {
    let names = crate::direction::default_names(space);
    if values.len() != names.len() {
        return Err(Error::ColumnCount { what: format!("a point of {space}"), needed: names.len(), given: names });
    }
    let columns =
        names.iter().zip(values).map(|(n, &v)| (n.clone(), Arc::new(Float64Array::from(vec![v])) as ArrayRef));
    Ok(RecordBatch::try_from_iter(columns)?)
}

/// The unit vector of a direction given in the table's form (angle, hours, lat/lon degrees, coordinates).
fn direction_point(space: Space, format: Option<&str>, values: &[f64]) -> Result<DVector<f64>, Error> {
    let names = crate::direction::default_names(space);
    if values.len() != names.len() {
        return Err(not_applicable(&format!(
            "the centre needs {} coordinate{} on {space} ({}), got {}",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            names.join(","),
            values.len()
        )));
    }
    let batch = one_row(space, values)?;
    let decoded = DirectionColumns::locate(&batch.schema(), space, format, None)?.decode(&batch)?;
    if let Some((_, p)) = decoded.problems.into_iter().next() {
        return Err(not_applicable(&format!("the centre: {}", p.reason)));
    }
    Ok(decoded.points.into_iter().next().expect("one row"))
}

/// A unit vector in the table's form.
pub(crate) fn direction_values(space: Space, format: Option<&str>, x: &[f64]) -> Result<Vec<f64>, Error> {
    let names = crate::direction::default_names(space);
    let batch = one_row(space, &vec![0.0; names.len()])?;
    let cols = DirectionColumns::locate(&batch.schema(), space, format, None)?;
    let out = cols.encode(&batch, &[DVector::from_column_slice(x)])?;
    Ok(out
        .columns()
        .iter()
        .map(|c| c.as_any().downcast_ref::<Float64Array>().map_or(f64::NAN, |a| a.value(0)))
        .collect())
}

mod fit;
mod real;
mod release;
#[cfg(test)]
mod tests;
