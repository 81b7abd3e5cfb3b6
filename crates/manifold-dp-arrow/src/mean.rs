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

use crate::columns::{DECODE_CHUNK, Decoded, PointColumns, Problem};
use crate::{DirectionColumns, Error, RotationColumns, SpdColumns};
use arrow_array::{Array, ArrayRef, Float64Array, RecordBatch};
use manifold_dp::Error as LibError;
use manifold_dp::analysis::riemannian_gdp::gdp_mu_for_approx;
use manifold_dp::manifold::ball::{Outside, Placed as PlacedRow, place};
use manifold_dp::manifold::float_error::{PairwiseSum, sum_log_pairwise};
use manifold_dp::manifold::sensitivity::check_radius;
use manifold_dp::manifold::{
    KarcherOptions, KarcherStep, KarcherStop, Manifold, So3, SpdAffine, SpdLogEuclidean, Sphere, StepLengths,
    karcher_newton_step, karcher_step, karcher_step_of_length,
};
use manifold_dp::mechanism::{
    AffineGaussianMean, Conditioning, GaussianFrechetMean, GaussianManifold, LaplaceManifold, LogEuclideanGaussianMean,
    PrivateFrechetMean, check_affine_gaussian_mean_k, check_log_euclidean_mean_k,
};
use manifold_dp::privacy::guarantee::Neighbouring;
use manifold_dp::privacy::{Grid, Guarantee, StatedGuarantee};
use manifold_dp::registry::{Shown, Space, Spelling};
use manifold_dp::space::representation::Representation;
use manifold_dp::space::so3::Tolerance;
use manifold_dp::space::spd::{DEFAULT_SYMMETRY_TOLERANCE, spd_from_row_major, to_row_major};
use nalgebra::{DMatrix, DVector, Quaternion, UnitQuaternion};
use rand::CryptoRng;
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

    /// The mean of each of the numeric `columns` (default `value`) over rows whose values lie in the public
    /// bounds [`lo`, `hi`]; a value outside them is refused, its row dropped, or clamped (`Outside::Clip`).
    /// The release adds Laplace noise at ℓ₁ sensitivity k·(hi − lo)/n (docs/proofs/scalar_mechanisms.md §7).
    pub fn bounded(columns: Option<&[String]>, lo: f64, hi: f64, outside: Outside) -> Result<Self, Error> {
        Self::real(columns.map(<[String]>::to_vec), &[(lo, hi)], outside)
    }

    /// The mean of each of the numeric `columns`, each over its own public bounds (`bounds[k]` for
    /// `columns[k]`; one pair per column): the release adds Laplace noise at ℓ₁ sensitivity Σ_k (hi_k − lo_k)/n
    /// to every column (docs/proofs/scalar_mechanisms.md §7). One shared pair for columns of different ranges
    /// either clips the narrow ones' outliers to a range far too wide or noises them as if they were as wide
    /// as the widest.
    pub fn bounded_per_column(columns: &[String], bounds: &[(f64, f64)], outside: Outside) -> Result<Self, Error> {
        if columns.is_empty() || columns.len() != bounds.len() {
            return Err(not_applicable(&format!(
                "give one pair of bounds per column: {} columns, {} pairs of bounds",
                columns.len(),
                bounds.len()
            )));
        }
        Self::real(Some(columns.to_vec()), bounds, outside)
    }

    fn real(columns: Option<Vec<String>>, bounds: &[(f64, f64)], outside: Outside) -> Result<Self, Error> {
        let mut checked = Vec::with_capacity(bounds.len());
        for &(lo, hi) in bounds {
            let (lo, hi) = manifold_dp::mechanism::scalar::bounded::check_bounds(lo, hi)?;
            if !(hi - lo).is_finite() {
                return Err(not_applicable("the bounds are too far apart: hi − lo overflows"));
            }
            checked.push((lo, hi));
        }
        let radius = checked.iter().map(|(lo, hi)| hi - lo).fold(0.0, f64::max);
        Ok(MeanPlan {
            space: Space::Real,
            geometry: Geometry::Real { bounds: checked.into() },
            format: None,
            columns,
            radius,
            outside,
            options: KarcherOptions::default(),
        })
    }

    /// The bounds of column `k` of a real mean (its own pair, or the one pair every column shares).
    fn bounds_of(bounds: &[(f64, f64)], k: usize) -> (f64, f64) {
        bounds[if bounds.len() == 1 { 0 } else { k }]
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
    /// ([`KarcherStop::holds`]); else the centre ([`MeanPlan::start`]). Only the path of the iteration depends
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

    /// One pass over `batch` at the base point `base` (coordinates from [`MeanPlan::start`] or a
    /// [`MeanStep::Next`]). Rows are summed `DECODE_CHUNK` at a time in parallel and the chunk sums added in
    /// order, so the result does not depend on the number of threads.
    pub fn pass(&self, batch: &RecordBatch, base: &[f64]) -> Result<MeanPass, Error> {
        self.pass_with(batch, base, false)
    }

    /// [`MeanPlan::pass`] with the Hessian sum as well ([`MeanPass::hessian`]) on spheres and SO(3), so that
    /// [`MeanPlan::step`] takes Newton steps: two or three passes over the data instead of six or more, for a
    /// mean computed in passes (Spark). Elsewhere the same as [`MeanPlan::pass`].
    pub fn newton_pass(&self, batch: &RecordBatch, base: &[f64]) -> Result<MeanPass, Error> {
        self.pass_with(batch, base, true)
    }

    fn pass_with(&self, batch: &RecordBatch, base: &[f64], hessian: bool) -> Result<MeanPass, Error> {
        let columns = self.columns.as_deref();
        let schema = batch.schema();
        match &self.geometry {
            Geometry::So3 { repr, center } => {
                let cols = RotationColumns::locate(&schema, *repr, columns, *repr)?;
                self.sum_pass(&So3, center, cols.decode(batch)?, base, hessian)
            }
            Geometry::Sphere { m, center } => {
                let cols = DirectionColumns::locate(&schema, self.space, self.format.as_deref(), columns)?;
                self.sum_pass(m, center, cols.decode(batch)?, base, hessian)
            }
            Geometry::SpdAffine { m, center } => {
                self.sum_pass(m, center, SpdColumns::locate(&schema, m.k(), columns)?.decode(batch)?, base, hessian)
            }
            Geometry::SpdLogEuclidean { m, center } => {
                self.sum_pass(m, center, SpdColumns::locate(&schema, m.k(), columns)?.decode(batch)?, base, hessian)
            }
            Geometry::Real { bounds } => {
                let cols = crate::RealColumns::locate(&schema, columns)?;
                self.real_pass(bounds, cols.decode(batch)?, base)
            }
        }
    }

    /// A pass on `real`: Σ (x − base) over the rows used, each value refused, its row dropped, or clamped
    /// outside its column's bounds.
    fn real_pass(&self, bounds: &[(f64, f64)], decoded: Decoded<Vec<f64>>, base: &[f64]) -> Result<MeanPass, Error> {
        if bounds.len() > 1 && bounds.len() != base.len() {
            return Err(wrong_length(bounds.len(), base.len()));
        }
        if let Some(first) = decoded.problems.into_iter().next() {
            return Ok(MeanPass { problem: Some(first), ..MeanPass::default() });
        }
        let mut pass = MeanPass::default();
        let mut sum = vec![0.0; base.len()];
        for (row, x) in decoded.points.iter().enumerate() {
            if x.len() != base.len() {
                return Err(wrong_length(base.len(), x.len()));
            }
            // The value farthest outside its column's bounds, and those bounds.
            let (outside, (lo, hi)) = x
                .iter()
                .enumerate()
                .map(|(k, &v)| {
                    let (lo, hi) = Self::bounds_of(bounds, k);
                    ((lo - v).max(v - hi), (lo, hi))
                })
                .fold((f64::NEG_INFINITY, (0.0, 0.0)), |a, b| if b.0 > a.0 { b } else { a });
            if outside > 0.0 {
                match self.outside {
                    Outside::Error => {
                        let reason = format!(
                            "a value is {} outside the bounds [{lo}, {hi}]",
                            manifold_dp::privacy::guarantee::short(outside)
                        );
                        pass.problem = Some((row, Problem { column: None, reason }));
                        pass.outside_distance = Some(outside);
                        return Ok(pass);
                    }
                    Outside::Drop => {
                        pass.dropped += 1;
                        continue;
                    }
                    Outside::Clip => pass.clipped += 1,
                }
            }
            for (k, (s, (&v, &b))) in sum.iter_mut().zip(x.iter().zip(base)).enumerate() {
                let (lo, hi) = Self::bounds_of(bounds, k);
                *s += v.clamp(lo, hi) - b;
            }
            pass.used += 1;
        }
        if pass.used > 0 {
            pass.sum = Some(sum);
        }
        Ok(pass)
    }

    fn sum_pass<M: Coordinates>(
        &self,
        m: &M,
        center: &M::Point,
        decoded: Decoded<M::Point>,
        base: &[f64],
        hessian: bool,
    ) -> Result<MeanPass, Error> {
        let placed = self.place_rows(m, center, decoded);
        if placed.pass.problem.is_some() {
            return Ok(placed.pass);
        }
        let base = m.point_at(base)?;
        let (sum, depth) = sum_chunks(m, &base, &placed.chunks).unzip();
        let hessian = if hessian { hessian_chunks(m, &base, &placed.chunks) } else { None };
        Ok(MeanPass { sum, depth: depth.unwrap_or(0), hessian, ..placed.pass })
    }

    /// Places every row of `decoded` in the ball (refused, dropped, clipped or used as it is), `DECODE_CHUNK`
    /// rows at a time in parallel: the rows used, chunk by chunk, and the counts (no sum yet). A chunk stops at
    /// its first problem; the first problem in row order is the one kept.
    fn place_rows<M: Coordinates>(&self, m: &M, center: &M::Point, decoded: Decoded<M::Point>) -> Placed<M::Point> {
        if let Some(first) = decoded.problems.into_iter().next() {
            return Placed { chunks: Vec::new(), pass: MeanPass { problem: Some(first), ..MeanPass::default() } };
        }
        let place_chunk = |(c, chunk): (usize, Vec<M::Point>)| {
            let mut pass = MeanPass::default();
            let mut used = Vec::with_capacity(chunk.len());
            for (i, x) in chunk.into_iter().enumerate() {
                match place(m, center, self.radius, &x, self.outside) {
                    PlacedRow::Inside => used.push(x),
                    PlacedRow::Clipped(y) => {
                        pass.clipped += 1;
                        used.push(y);
                    }
                    PlacedRow::Dropped => pass.dropped += 1,
                    PlacedRow::Refused(distance) => {
                        let reason = format!(
                            "the point is at distance {} from the centre, outside the radius {}",
                            manifold_dp::privacy::guarantee::short(distance),
                            manifold_dp::privacy::guarantee::short(self.radius)
                        );
                        pass.problem = Some((c * DECODE_CHUNK + i, Problem { column: None, reason }));
                        pass.outside_distance = Some(distance);
                        return (Vec::new(), pass);
                    }
                }
            }
            pass.used = used.len() as u64;
            (used, pass)
        };
        let chunks = into_chunks(decoded.points);
        // One chunk is placed on this thread: waking rayon's pool costs more than a small batch takes.
        let placed: Vec<(Vec<M::Point>, MeanPass)> = if chunks.len() == 1 {
            chunks.into_iter().enumerate().map(place_chunk).collect()
        } else {
            chunks.into_par_iter().enumerate().map(place_chunk).collect()
        };
        let mut total = MeanPass::default();
        let mut chunks = Vec::with_capacity(placed.len());
        for (used, pass) in placed {
            total.merge(pass);
            chunks.push(used);
        }
        Placed { chunks, pass: total }
    }

    /// The Karcher step at `base` from the merged pass over all rows, after `iterations` earlier steps.
    /// Errors: a pass with a problem, or no row used; [`LibError::NotConverged`] after the iteration limit.
    pub fn step(&self, base: &[f64], pass: &MeanPass, iterations: usize) -> Result<MeanStep, Error> {
        if let Some((row, p)) = &pass.problem {
            return Err(not_applicable(&format!("row {row} is not usable ({}): no step is taken", p.reason)));
        }
        let sum = pass.sum.as_ref().filter(|_| pass.used > 0).ok_or_else(no_rows)?;
        if let Geometry::Real { .. } = self.geometry {
            // The mean is exact after one step from zero: base + Σ(x − base)/n = Σx/n.
            if iterations > 0 {
                return Ok(MeanStep::Converged { gradient_norm: 0.0 });
            }
            return Ok(MeanStep::Next(base.iter().zip(sum).map(|(b, s)| b + s / pass.used as f64).collect()));
        }
        with_geometry!(&self.geometry, |m, c| {
            let base = m.point_at(base)?;
            let gradient = DVector::from_column_slice(sum) / pass.used as f64;
            let stop = self.stop(m, c, pass.used)?;
            let step = match &pass.hessian {
                Some(h) if h.len() == gradient.len() * gradient.len() => {
                    let h = DMatrix::from_column_slice(gradient.len(), gradient.len(), h) / pass.used as f64;
                    karcher_newton_step(m, &base, &gradient, &h, pass.depth, iterations, &stop)?
                }
                _ => karcher_step(m, &base, &gradient, pass.depth, iterations, &stop)?,
            };
            Ok(match step {
                KarcherStep::Converged { gradient_norm, .. } => MeanStep::Converged { gradient_norm },
                KarcherStep::Next(p) => MeanStep::Next(m.coordinates(&p)),
            })
        })
    }

    /// The Karcher stop test for `used` rows in this plan's ball: the one [`MeanPlan::release`]'s sensitivity
    /// accounts for.
    fn stop<M: Manifold>(&self, m: &M, center: &M::Point, used: u64) -> Result<KarcherStop<M::Point>, Error> {
        let used = usize::try_from(used).map_err(|_| not_applicable("too many rows"))?;
        Ok(KarcherStop::in_ball(m, center, self.radius, used, self.options)?)
    }

    /// The exact mean of the rows of `batches` on one machine: passes and steps until converged. Stops at the
    /// first problem, returned in the fit's pass (its row counted from the first batch's first row).
    ///
    /// Each batch is decoded and placed in the ball once, not once per pass, and the iteration starts at the
    /// data's extrinsic mean ([`Manifold::extrinsic_mean`]) rather than the centre: the same mean as
    /// [`MeanPlan::pass`]/[`MeanPlan::step`] from [`MeanPlan::start`] up to the tolerance (both stop at a
    /// gradient norm ≤ 1e-12), in two to three fewer passes, each without decoding, and fewer again on SPD by
    /// Barzilai–Borwein step lengths ([`StepLengths`]). Sums are still taken `DECODE_CHUNK` rows at a time and
    /// added in order, so the result does not depend on the thread count.
    pub fn fit(&self, batches: &[RecordBatch]) -> Result<MeanFit, Error> {
        self.fit_with(batches, false)
    }

    /// A start for a mean computed in passes ([`MeanPlan::start_from`]), not a mean: the rows' extrinsic mean
    /// followed by one Newton step (spheres, SO(3); a unit step elsewhere), with no stop test, at about two
    /// sums over the rows where [`MeanPlan::fit`] takes five or more. Within ~10⁻¹⁰ of the exact mean of
    /// concentrated rows; only the path of the passes depends on it.
    pub fn rough_fit(&self, batches: &[RecordBatch]) -> Result<MeanFit, Error> {
        self.fit_with(batches, true)
    }

    fn fit_with(&self, batches: &[RecordBatch], rough: bool) -> Result<MeanFit, Error> {
        let columns = self.columns.as_deref();
        match &self.geometry {
            Geometry::So3 { repr, center } => self.fit_placed(&So3, center, batches, rough, |batch| {
                RotationColumns::locate(&batch.schema(), *repr, columns, *repr)?.decode(batch)
            }),
            Geometry::Sphere { m, center } => self.fit_placed(m, center, batches, rough, |batch| {
                DirectionColumns::locate(&batch.schema(), self.space, self.format.as_deref(), columns)?.decode(batch)
            }),
            Geometry::SpdAffine { m, center } => self.fit_placed(m, center, batches, rough, |batch| {
                SpdColumns::locate(&batch.schema(), m.k(), columns)?.decode(batch)
            }),
            Geometry::SpdLogEuclidean { m, center } => self.fit_placed(m, center, batches, rough, |batch| {
                SpdColumns::locate(&batch.schema(), m.k(), columns)?.decode(batch)
            }),
            Geometry::Real { .. } => self.fit_by_passes(batches),
        }
    }

    /// [`MeanPlan::fit`] on a manifold: place every batch once, start at the extrinsic mean, then sum and step.
    fn fit_placed<M: Coordinates>(
        &self,
        m: &M,
        center: &M::Point,
        batches: &[RecordBatch],
        rough: bool,
        decode: impl Fn(&RecordBatch) -> Result<Decoded<M::Point>, Error>,
    ) -> Result<MeanFit, Error> {
        let mut pass = MeanPass::default();
        let mut chunks = Vec::new();
        let mut offset = 0;
        for batch in batches {
            let mut placed = self.place_rows(m, center, decode(batch)?);
            if let Some((row, p)) = placed.pass.problem.take() {
                pass.problem = Some((offset + row, p));
                pass.outside_distance = placed.pass.outside_distance;
                return Ok(MeanFit { mean: self.start(), iterations: 0, pass });
            }
            pass.merge(placed.pass);
            chunks.extend(placed.chunks);
            offset += batch.num_rows();
        }
        let used = usize::try_from(pass.used).map_err(|_| not_applicable("too many rows"))?;
        // Through coordinates, as every later base point is, so that a step sums and steps at the same point.
        let start = self.extrinsic_start(m, center, &chunks, used).unwrap_or_else(|| center.clone());
        let mut base = m.point_at(&m.coordinates(&start))?;
        if rough {
            let (sum, _) = sum_chunks(m, &base, &chunks).unzip();
            let sum = sum.filter(|_| pass.used > 0).ok_or_else(no_rows)?;
            let gradient = DVector::from_column_slice(&sum) / pass.used as f64;
            let step = hessian_chunks(m, &base, &chunks)
                .and_then(|h| {
                    let d = gradient.len();
                    let h = DMatrix::from_column_slice(d, d, &h) / pass.used as f64;
                    m.newton_direction(&base, &gradient, &h)
                })
                .filter(|d| d.norm() <= self.radius)
                .unwrap_or(gradient);
            let mean = m.coordinates(&m.exp(&base, &step));
            return Ok(MeanFit { mean, iterations: 1, pass });
        }
        let mut iterations = 0;
        // On one machine the iteration may choose its step lengths (fewer passes on SPD); the mean is still
        // the first point whose gradient norm is within the tolerance.
        let mut lengths = StepLengths::for_curvature(m.curvature_bound());
        let stop = self.stop(m, center, pass.used)?;
        loop {
            let (sum, depth) = sum_chunks(m, &base, &chunks).unzip();
            (pass.sum, pass.depth) = (sum, depth.unwrap_or(0));
            let sum = pass.sum.as_ref().filter(|_| pass.used > 0).ok_or_else(no_rows)?;
            let gradient = DVector::from_column_slice(sum) / pass.used as f64;
            // An undone step returns to the previous point, whose sum had the same depth (same chunks).
            let (at, gradient, length) = lengths.next(base, gradient, stop.tolerance());
            match karcher_step_of_length(m, &at, &gradient, pass.depth, length, iterations, &stop)? {
                // Only ever at the point just summed (a step is undone only while above the tolerance), so the
                // pass returned is that point's.
                KarcherStep::Converged { .. } => {
                    return Ok(MeanFit { mean: m.coordinates(&at), iterations, pass });
                }
                KarcherStep::Next(next) => base = m.point_at(&m.coordinates(&next))?,
            }
            iterations += 1;
        }
    }

    /// The extrinsic mean of the used rows ([`Manifold::extrinsic_mean`]), summed chunk by chunk in order.
    fn extrinsic_start<M: Coordinates>(
        &self,
        m: &M,
        center: &M::Point,
        chunks: &[Vec<M::Point>],
        used: usize,
    ) -> Option<M::Point> {
        let sum = |chunk: &Vec<M::Point>| m.extrinsic_sum(chunk, center);
        let sums: Vec<Option<DVector<f64>>> = if chunks.len() == 1 {
            chunks.iter().filter(|chunk| !chunk.is_empty()).map(sum).collect()
        } else {
            chunks.par_iter().filter(|chunk| !chunk.is_empty()).map(sum).collect()
        };
        let mut total: Option<DVector<f64>> = None;
        for sum in sums {
            total = Some(match total {
                Some(t) => t + sum?,
                None => sum?,
            });
        }
        m.extrinsic_mean(&total?, used)
    }

    /// [`MeanPlan::fit`] by whole passes from [`MeanPlan::start`] (the real line, whose mean is one step).
    fn fit_by_passes(&self, batches: &[RecordBatch]) -> Result<MeanFit, Error> {
        let mut base = self.start();
        let mut iterations = 0;
        loop {
            let mut pass = MeanPass::default();
            let mut offset = 0;
            for batch in batches {
                let mut part = self.pass(batch, &base)?;
                if let Some((row, p)) = part.problem.take() {
                    pass.problem = Some((offset + row, p));
                    pass.outside_distance = part.outside_distance;
                    return Ok(MeanFit { mean: base, iterations, pass });
                }
                pass.merge(part);
                offset += batch.num_rows();
            }
            match self.step(&base, &pass, iterations)? {
                MeanStep::Converged { .. } => return Ok(MeanFit { mean: base, iterations, pass }),
                MeanStep::Next(next) => base = next,
            }
            iterations += 1;
        }
    }

    /// Whether a release over `n` rows at pure `epsilon` can be planned, without any data: builds the release
    /// [`MeanPlan::release`] would (noise, grid, rounding cost) and returns its refusal, if any. Front ends call
    /// it once the row count is known and before the Karcher iteration, so that a release refused
    /// for its parameters is refused at once.
    #[allow(clippy::clone_on_copy)]
    pub fn check(&self, n: u64, epsilon: f64, conditioning: Conditioning) -> Result<(), Error> {
        if n == 0 || matches!(self.geometry, Geometry::Real { .. }) {
            return Ok(());
        }
        let n_usize = usize::try_from(n).map_err(|_| not_applicable("too many rows"))?;
        with_geometry!(&self.geometry, |m, c| {
            PrivateFrechetMean::with_options(*m, c.clone(), self.radius, n_usize, epsilon, conditioning, self.options)?;
            Ok(())
        })
    }

    /// Releases the mean at `mean` (the converged base point of a fit over `n` rows) with pure `epsilon`:
    /// the noise is drawn once, from `rng`.
    // The centre is Copy on SO(3) only; the macro clones it for every geometry.
    #[allow(clippy::clone_on_copy)]
    pub fn release<R: CryptoRng + ?Sized>(
        &self,
        mean: &[f64],
        n: u64,
        epsilon: f64,
        conditioning: Conditioning,
        rng: &mut R,
    ) -> Result<MeanRelease, Error> {
        if n == 0 {
            return Err(no_rows());
        }
        let n_usize = usize::try_from(n).map_err(|_| not_applicable("too many rows"))?;
        if let Geometry::Real { bounds } = &self.geometry {
            // Replacing one of n rows moves column k's mean by at most (hi_k − lo_k)/n: ℓ₁ Σ_k (hi_k − lo_k)/n
            // (k·(hi − lo)/n for one shared pair, as before).
            let widths: f64 = match &bounds[..] {
                [(lo, hi)] => mean.len() as f64 * (hi - lo),
                each => each.iter().map(|(lo, hi)| hi - lo).sum(),
            };
            let sensitivity = widths / n as f64;
            let laplace = manifold_dp::mechanism::scalar::ScalarLaplace::for_epsilon(sensitivity, epsilon)?;
            let guarantee = self.guarantee(laplace.epsilon());
            return Ok(MeanRelease {
                mean: laplace.release(mean, rng)?,
                stated: self.stated_if_dropped(guarantee, n, "values within the public bounds".into()),
                guarantee,
                sensitivity,
                sigma: laplace.scale(),
                expected_error: laplace.scale(),
                conditioned: false,
                n,
                grid: None,
                rounding_cost: 0.0,
                noise_epsilon: laplace.epsilon(),
                mu: None,
            });
        }
        with_geometry!(&self.geometry, |m, c| {
            let mech = PrivateFrechetMean::with_options(
                *m,
                c.clone(),
                self.radius,
                n_usize,
                epsilon,
                conditioning,
                self.options,
            )?;
            let private = mech.release_mean(&m.point_at(mean)?, rng)?;
            let domain =
                format!("rows within {} (the public radius, in the space's distance unit) of the centre", self.radius);
            // The mechanism's δ of its sampler's negligible events travels with the release.
            let guarantee =
                self.guarantee(mech.guarantee().epsilon().unwrap_or(epsilon)).with_delta(mech.guarantee().delta());
            Ok(MeanRelease {
                mean: self.table_form(&m.coordinates(&private))?,
                stated: self.stated_if_dropped(guarantee, n, domain),
                guarantee,
                sensitivity: mech.sensitivity(),
                sigma: mech.sigma(),
                expected_error: mech.expected_error(),
                conditioned: mech.conditioned(),
                n,
                grid: mech.rounding().map(|r| r.grid()),
                rounding_cost: mech.rounding_cost(),
                noise_epsilon: mech.noise_epsilon(),
                mu: None,
            })
        })
    }

    /// The guarantee a release with `noise` states, and what a ledger is charged before the release (the rows
    /// unknown): [`MeanPlan::guarantee`] for the Laplace with the δ of its sampler's negligible events,
    /// δ_B·(1 + e^ε) at the largest δ_B any row count gives (`LaplaceManifold::negligible_event_bound`: the
    /// release's own δ_B where the rows do not change the sampler, and above it, a weaker true charge, where
    /// they do: the circle and spheres past κ = 10⁶, the SPD chamber proposal); the Gaussian's
    /// `{"notion": "gdp", "mu": μ}` with its δ on spheres and SO(3) (`riemannian_gdp::RELEASE_DELTA`).
    pub fn guarantee_for(&self, noise: &MeanNoise) -> Guarantee {
        use manifold_dp::privacy::float_safety::negligible_delta;
        match *noise {
            MeanNoise::Laplace { epsilon, .. } => {
                let bound = match &self.geometry {
                    Geometry::Real { .. } => 0.0,
                    geometry => with_geometry!(geometry, |m, _c| m.negligible_event_bound()),
                };
                self.guarantee(epsilon).with_delta(negligible_delta(bound, epsilon))
            }
            MeanNoise::Gaussian { mu } => match self.geometry {
                Geometry::So3 { .. } | Geometry::Sphere { .. } => {
                    Guarantee::gdp_with_delta(mu, manifold_dp::analysis::riemannian_gdp::RELEASE_DELTA)
                }
                _ => Guarantee::gdp(mu),
            },
        }
    }

    /// [`MeanPlan::check`] for either noise: whether a release over `n` rows can be planned, without any data
    /// (for the Gaussian: the space is a sphere or SO(3), and a σ is certified for μ at n rows and the radius).
    pub fn check_noise(&self, n: u64, noise: &MeanNoise) -> Result<(), Error> {
        match *noise {
            MeanNoise::Laplace { epsilon, conditioning } => self.check(n, epsilon, conditioning),
            MeanNoise::Gaussian { mu } => {
                self.gaussian_geometry()?;
                if n > 0 {
                    self.gaussian(n, mu)?;
                }
                Ok(())
            }
        }
    }

    /// [`MeanPlan::check_noise`] at the data's `rows`, before the Karcher iteration, with a refusal that says
    /// what to change in the user's terms: the rows, the radius as the user gave it (`radius`) and the budget,
    /// options written as `spell` writes them. One text for every front end.
    pub fn check_rows(&self, rows: u64, noise: &MeanNoise, radius: &str, spell: &dyn Spelling) -> Result<(), Error> {
        let Err(e) = self.check_noise(rows, noise) else { return Ok(()) };
        let Error::Library(LibError::NumericalLimit(why)) = e else { return Err(e) };
        let opt = |name: &str, value: Shown<'_>| spell.option(name, value);
        let radius = opt("radius", Shown::Text(radius));
        let advice = match *noise {
            MeanNoise::Laplace { epsilon, .. } => format!(
                "{rows} rows, {radius}, {}; the cost grows with the rows and shrinks as {} or {} grows",
                opt("epsilon", Shown::Number(&manifold_dp::privacy::guarantee::short(epsilon))),
                opt("epsilon", Shown::Bare),
                opt("radius", Shown::Bare)
            ),
            MeanNoise::Gaussian { mu } => format!(
                "no noise scale is certified for {} at {rows} rows and {radius}: the certificate reaches μ of about \
                 6, and σ = Δ/μ down to about 1e-5 rad (below it the rounding's cost grows past what μ allows); a \
                 smaller {}, a larger {} or a random subsample of the rows certifies",
                opt("mu", Shown::Number(&manifold_dp::privacy::guarantee::short(mu))),
                opt("mu", Shown::Bare),
                opt("radius", Shown::Bare)
            ),
        };
        Err(Error::Library(LibError::NumericalLimit(format!(
            "{why}\nNothing was released (checked before computing the mean): {advice}"
        ))))
    }

    /// [`MeanPlan::release`] for either noise: the Gaussian draws once from the Riemannian Gaussian at the
    /// σ certified for μ ([`GaussianFrechetMean::release_mean`]), rounded onto its public grid.
    pub fn release_with<R: CryptoRng>(
        &self,
        mean: &[f64],
        n: u64,
        noise: &MeanNoise,
        rng: &mut R,
    ) -> Result<MeanRelease, Error> {
        let mu = match *noise {
            MeanNoise::Laplace { epsilon, conditioning } => return self.release(mean, n, epsilon, conditioning, rng),
            MeanNoise::Gaussian { mu } => mu,
        };
        self.gaussian_geometry()?;
        if n == 0 {
            return Err(no_rows());
        }
        let domain =
            format!("rows within {} (the public radius, in the space's distance unit) of the centre", self.radius);
        let m = self.gaussian(n, mu)?;
        let guarantee = m.guarantee();
        Ok(MeanRelease {
            mean: self.table_form(&m.release_at(mean, rng)?)?,
            stated: self.stated_if_dropped(guarantee, n, domain),
            guarantee,
            sensitivity: m.sensitivity(),
            sigma: m.sigma(),
            expected_error: m.expected_error(),
            conditioned: false,
            n,
            grid: Some(m.grid()),
            rounding_cost: m.rounding_cost(),
            noise_epsilon: f64::NAN,
            mu: Some(mu),
        })
    }

    /// Refuses a Gaussian mean on a space without a Gaussian sampler (SPD(k) under the affine-invariant metric for
    /// k > 3, the real line).
    fn gaussian_geometry(&self) -> Result<(), Error> {
        match self.geometry {
            Geometry::So3 { .. } | Geometry::Sphere { .. } | Geometry::SpdLogEuclidean { .. } => Ok(()),
            Geometry::SpdAffine { m, .. } => match check_affine_gaussian_mean_k(m.k()) {
                Ok(_) => Ok(()),
                Err(_) => Err(not_applicable(&format!(
                    "the Gaussian mean on {} under the affine-invariant metric is offered for k ≤ 3 (its chart's \
                     float-error bounds are certified there): choose the log-Euclidean metric (k ≤ 8), or use the \
                     Laplace mean (pure ε-DP)",
                    self.space
                ))),
            },
            Geometry::Real { .. } => Err(not_applicable(&format!(
                "the Gaussian mean is on spheres (sphere:N, latlon, circle, timeofday), so3 and spd:K, not {}: use \
                 the Laplace mean (pure ε-DP) there",
                self.space
            ))),
        }
    }

    /// The Gaussian release over `n` rows at `mu` on this plan's ball (σ certified for μ at Δ).
    fn gaussian(&self, n: u64, mu: f64) -> Result<Box<dyn GaussianRelease>, Error> {
        let n = usize::try_from(n).map_err(|_| not_applicable("too many rows"))?;
        Ok(match &self.geometry {
            Geometry::So3 { center, .. } => {
                Box::new(GaussianFrechetMean::with_options(So3, *center, self.radius, n, mu, self.options)?)
            }
            Geometry::Sphere { m, center } => {
                Box::new(GaussianFrechetMean::with_options(*m, center.clone(), self.radius, n, mu, self.options)?)
            }
            Geometry::SpdLogEuclidean { m, center } => Box::new(LogEuclideanGaussianMean::with_options(
                m.k(),
                center.clone(),
                self.radius,
                n,
                mu,
                self.options,
            )?),
            Geometry::SpdAffine { m, center } => {
                Box::new(AffineGaussianMean::with_options(m.k(), center.clone(), self.radius, n, mu, self.options)?)
            }
            Geometry::Real { .. } => return Err(not_applicable("the Gaussian mean is on spheres, so3 and spd:K only")),
        })
    }

    /// With `outside = drop`, the guarantee stated with what it does not protect
    /// ([`StatedGuarantee::dropped_outside`]); `None` otherwise (every row is protected).
    fn stated_if_dropped(&self, guarantee: Guarantee, kept: u64, domain: String) -> Option<StatedGuarantee> {
        (self.outside == Outside::Drop).then(|| StatedGuarantee::dropped_outside(guarantee, kept, domain))
    }

    /// Coordinates in the table's form.
    fn table_form(&self, coordinates: &[f64]) -> Result<Vec<f64>, Error> {
        Ok(match &self.geometry {
            Geometry::So3 { repr, .. } => repr.encode(&So3.point_at(coordinates)?),
            Geometry::Sphere { .. } => direction_values(self.space, self.format.as_deref(), coordinates)?,
            Geometry::SpdAffine { .. } | Geometry::SpdLogEuclidean { .. } | Geometry::Real { .. } => {
                coordinates.to_vec()
            }
        })
    }
}

/// A Gaussian mean's release seen through coordinates, so one body serves SO(3) and the spheres.
trait GaussianRelease {
    fn release_at(&self, mean: &[f64], rng: &mut dyn rand::CryptoRng) -> Result<Vec<f64>, Error>;
    fn guarantee(&self) -> Guarantee;
    fn sensitivity(&self) -> f64;
    fn sigma(&self) -> f64;
    fn expected_error(&self) -> f64;
    fn grid(&self) -> Grid;
    /// The rounding's ε₀, inside the certified μ.
    fn rounding_cost(&self) -> f64;
}

impl<M: GaussianManifold + Coordinates> GaussianRelease for GaussianFrechetMean<M> {
    fn release_at(&self, mean: &[f64], rng: &mut dyn rand::CryptoRng) -> Result<Vec<f64>, Error> {
        let m = self.manifold();
        Ok(m.coordinates(&self.release_mean(&m.point_at(mean)?, rng)))
    }
    fn guarantee(&self) -> Guarantee {
        GaussianFrechetMean::guarantee(self)
    }
    fn sensitivity(&self) -> f64 {
        GaussianFrechetMean::sensitivity(self)
    }
    fn sigma(&self) -> f64 {
        GaussianFrechetMean::sigma(self)
    }
    fn expected_error(&self) -> f64 {
        GaussianFrechetMean::expected_error(self)
    }
    fn grid(&self) -> Grid {
        self.rounding().grid()
    }
    fn rounding_cost(&self) -> f64 {
        self.certificate().additive_epsilon
    }
}

impl GaussianRelease for LogEuclideanGaussianMean {
    fn release_at(&self, mean: &[f64], rng: &mut dyn rand::CryptoRng) -> Result<Vec<f64>, Error> {
        let m = self.manifold();
        Ok(m.coordinates(&self.release_mean(&m.point_at(mean)?, rng)))
    }
    fn guarantee(&self) -> Guarantee {
        LogEuclideanGaussianMean::guarantee(self)
    }
    fn sensitivity(&self) -> f64 {
        LogEuclideanGaussianMean::sensitivity(self)
    }
    fn sigma(&self) -> f64 {
        LogEuclideanGaussianMean::sigma(self)
    }
    fn expected_error(&self) -> f64 {
        LogEuclideanGaussianMean::expected_error(self)
    }
    fn grid(&self) -> Grid {
        LogEuclideanGaussianMean::grid(self)
    }
    fn rounding_cost(&self) -> f64 {
        LogEuclideanGaussianMean::rounding_cost(self)
    }
}

impl GaussianRelease for AffineGaussianMean {
    fn release_at(&self, mean: &[f64], rng: &mut dyn rand::CryptoRng) -> Result<Vec<f64>, Error> {
        let m = self.manifold();
        Ok(m.coordinates(&self.release_mean(&m.point_at(mean)?, rng)))
    }
    fn guarantee(&self) -> Guarantee {
        AffineGaussianMean::guarantee(self)
    }
    fn sensitivity(&self) -> f64 {
        AffineGaussianMean::sensitivity(self)
    }
    fn sigma(&self) -> f64 {
        AffineGaussianMean::sigma(self)
    }
    fn expected_error(&self) -> f64 {
        AffineGaussianMean::expected_error(self)
    }
    fn grid(&self) -> Grid {
        AffineGaussianMean::grid(self)
    }
    fn rounding_cost(&self) -> f64 {
        AffineGaussianMean::rounding_cost(self)
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

/// The rows of one batch placed in the ball: the points used, `DECODE_CHUNK` rows of the batch per chunk,
/// and the pass's counts and first problem (its `sum` still `None`).
struct Placed<P> {
    chunks: Vec<Vec<P>>,
    pass: MeanPass,
}

/// `points` cut into `DECODE_CHUNK`-long chunks without copying a point twice (cut from the back, so each
/// `split_off` moves only the chunk it returns).
fn into_chunks<P>(mut points: Vec<P>) -> Vec<Vec<P>> {
    let mut chunks = Vec::with_capacity(points.len().div_ceil(DECODE_CHUNK));
    while !points.is_empty() {
        let last = (points.len() - 1) / DECODE_CHUNK * DECODE_CHUNK;
        chunks.push(points.split_off(last));
    }
    chunks.reverse();
    chunks
}

/// Σ log_base(x_i) over the used rows of `chunks` and its summation depth: each chunk summed in parallel by
/// [`sum_log_pairwise`], the chunk sums then added pairwise in chunk order ([`PairwiseSum`]), so the result
/// depends on neither the number of threads nor how rayon splits the work, and its depth grows like log n.
/// `None` when no row is used.
/// Σ of the Hessians of ½ρ²(·, x) at `base` over the chunks ([`Manifold::hessian_sum`]), column by column;
/// `None` where the manifold has none or no row was used. Only the path of the iteration depends on it, not
/// what its stop certifies, so a plain sum will do.
fn hessian_chunks<M: Manifold>(m: &M, base: &M::Point, chunks: &[Vec<M::Point>]) -> Option<Vec<f64>> {
    let sum = |chunk: &Vec<M::Point>| if chunk.is_empty() { None } else { m.hessian_sum(base, chunk) };
    let sums: Vec<Option<DMatrix<f64>>> =
        if chunks.len() == 1 { chunks.iter().map(sum).collect() } else { chunks.par_iter().map(sum).collect() };
    sums.into_iter().flatten().reduce(|a, b| a + b).map(|h| h.as_slice().to_vec())
}

fn sum_chunks<M: Manifold>(m: &M, base: &M::Point, chunks: &[Vec<M::Point>]) -> Option<(Vec<f64>, u32)> {
    let sum = |chunk: &Vec<M::Point>| (!chunk.is_empty()).then(|| sum_log_pairwise(m, base, chunk));
    // One chunk is summed on this thread (the same sum; no pool to wake).
    let sums: Vec<Option<(DVector<f64>, u32)>> =
        if chunks.len() == 1 { chunks.iter().map(sum).collect() } else { chunks.par_iter().map(sum).collect() };
    let mut total = PairwiseSum::new();
    for (s, depth) in sums.into_iter().flatten() {
        total.push(s, depth);
    }
    total.finish().map(|(s, depth)| (s.as_slice().to_vec(), depth))
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

#[cfg(test)]
mod tests {
    use super::*;
    use manifold_dp::manifold::frechet_mean;
    use manifold_dp::sample::rng::seeded_rng_for_experiments;

    fn batch(columns: &[(&str, Vec<f64>)]) -> RecordBatch {
        RecordBatch::try_from_iter(
            columns.iter().map(|(n, v)| (n.to_string(), Arc::new(Float64Array::from(v.clone())) as ArrayRef)),
        )
        .unwrap()
    }

    /// n unit vectors near (0.6, 0.8, 0) within about 0.2 rad, as x1, x2, x3 columns.
    fn directions(n: usize) -> (RecordBatch, Vec<DVector<f64>>) {
        let points: Vec<DVector<f64>> = (0..n)
            .map(|i| {
                let t = 0.927 + 0.15 * ((i as f64) * 0.37).sin();
                let z = 0.1 * ((i as f64) * 1.3).cos();
                DVector::from_vec(vec![t.cos(), t.sin(), z]).normalize()
            })
            .collect();
        let col = |j: usize| points.iter().map(|p| p[j]).collect::<Vec<f64>>();
        (batch(&[("x1", col(0)), ("x2", col(1)), ("x3", col(2))]), points)
    }

    fn plan(outside: Outside, radius: f64) -> MeanPlan {
        MeanPlan::new(Space::Sphere(3), None, None, Some(&[0.6, 0.8, 0.0]), radius, outside, SpdMetric::Affine).unwrap()
    }

    #[test]
    fn the_fit_is_the_library_mean_and_batching_changes_only_rounding() {
        let (b, points) = directions(10_000);
        let p = plan(Outside::Error, 0.5);
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        assert_eq!(fit.pass.used, 10_000);
        let s2 = Sphere::new(3).unwrap();
        let c = DVector::from_vec(vec![0.6, 0.8, 0.0]);
        let exact = frechet_mean(&s2, &points, &c, KarcherOptions::default()).unwrap();
        assert!(s2.distance(&exact.mean, &DVector::from_vec(fit.mean.clone())) < 1e-12);
        // The same rows in three batches: the same mean up to the order of additions.
        let parts = [b.slice(0, 1234), b.slice(1234, 5000), b.slice(6234, 3766)];
        let split = p.fit(&parts).unwrap();
        assert!(s2.distance(&DVector::from_vec(split.mean), &DVector::from_vec(fit.mean.clone())) < 1e-12);
        // Threads never change a pass: chunks are summed in order.
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let serial = one.install(|| p.pass(&b, &fit.mean)).unwrap();
        assert_eq!(serial, p.pass(&b, &fit.mean).unwrap());
    }

    /// The fit (rows placed once, extrinsic start, fixed-size sums) against the distributed protocol (pass
    /// and step from the centre): the same mean to the tolerance, on SPD(2), SPD(3), SO(3) and S², and the
    /// same bits on one thread as on many.
    #[test]
    fn the_fit_is_the_pass_and_step_mean_from_the_centre_and_threads_change_nothing() {
        fn by_passes(p: &MeanPlan, b: &RecordBatch) -> Vec<f64> {
            let (mut base, mut iterations) = (p.start(), 0);
            loop {
                match p.step(&base, &p.pass(b, &base).unwrap(), iterations).unwrap() {
                    MeanStep::Converged { gradient_norm } => {
                        assert!(gradient_norm.is_finite());
                        return base;
                    }
                    MeanStep::Next(next) => base = next,
                }
                iterations += 1;
            }
        }
        let n = 9000; // three DECODE_CHUNKs, the last one partial
        let wiggle = |i: usize, j: usize| ((i as f64) * 12.9898 + (j as f64) * 78.233).sin();
        for k in [2, 3] {
            let names: Vec<String> = (1..=k).flat_map(|r| (1..=k).map(move |c| format!("m{r}{c}"))).collect();
            let rows: Vec<DMatrix<f64>> = (0..n)
                .map(|i| {
                    let g = DMatrix::from_fn(k, k, |r, c| 0.3 * wiggle(i, r * k + c) + if r == c { 1.0 } else { 0.0 });
                    &g * g.transpose()
                })
                .collect();
            let columns: Vec<(&str, Vec<f64>)> = names
                .iter()
                .enumerate()
                .map(|(j, name)| (name.as_str(), rows.iter().map(|x| x[(j / k, j % k)]).collect()))
                .collect();
            let b = batch(&columns);
            let p = MeanPlan::new(Space::Spd(k), None, None, None, 3.0, Outside::Error, SpdMetric::Affine).unwrap();
            let fit = p.fit(std::slice::from_ref(&b)).unwrap();
            let m = SpdAffine::new(k).unwrap();
            let at = |v: &[f64]| spd_from_row_major(v, k, DEFAULT_SYMMETRY_TOLERANCE).unwrap();
            // Both stop within the certified tolerance τ (h = 1) of the exact mean; on SPD τ exceeds 1e-12.
            let tolerance = KarcherStop::in_ball(&m, &DMatrix::identity(k, k), 3.0, n, KarcherOptions::default())
                .unwrap()
                .tolerance();
            let d = m.distance(&at(&fit.mean), &at(&by_passes(&p, &b)));
            assert!(d <= 2.0 * tolerance, "SPD({k}): {d:e} against τ = {tolerance:e}");
            let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            assert_eq!(one.install(|| p.fit(std::slice::from_ref(&b))).unwrap(), fit, "SPD({k})");
        }
        let q: Vec<UnitQuaternion<f64>> = (0..n)
            .map(|i| UnitQuaternion::from_scaled_axis(nalgebra::Vector3::from_fn(|j, _| 0.5 * wiggle(i, j))))
            .collect();
        // Half of them written as −q: the same rotations.
        let sign = |i: usize| if i.is_multiple_of(2) { 1.0 } else { -1.0 };
        let b = batch(&[
            ("w", q.iter().enumerate().map(|(i, x)| sign(i) * x.w).collect()),
            ("x", q.iter().enumerate().map(|(i, x)| sign(i) * x.i).collect()),
            ("y", q.iter().enumerate().map(|(i, x)| sign(i) * x.j).collect()),
            ("z", q.iter().enumerate().map(|(i, x)| sign(i) * x.k).collect()),
        ]);
        let p = MeanPlan::new(Space::So3, None, None, None, 1.5, Outside::Error, SpdMetric::Affine).unwrap();
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let d = So3.distance(&So3.point_at(&fit.mean).unwrap(), &So3.point_at(&by_passes(&p, &b)).unwrap());
        assert!(d < 1e-12, "SO(3): {d}");
        let (b, _) = directions(n);
        let p = plan(Outside::Error, 0.5);
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let s2 = Sphere::new(3).unwrap();
        let d = s2.distance(&DVector::from_vec(fit.mean.clone()), &DVector::from_vec(by_passes(&p, &b)));
        assert!(d < 1e-12, "S²: {d}");
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        assert_eq!(one.install(|| p.fit(std::slice::from_ref(&b))).unwrap(), fit);
    }

    /// The distributed mean's Newton passes (the Spark path: local fits for a start, then Newton steps) stop
    /// at the same mean as gradient passes from the centre, within the certified tolerance, in at most three
    /// passes where gradient steps from the centre need five or more; a Hessian that is not positive definite
    /// or a step out of the ball falls back to the unit step.
    #[test]
    fn newton_passes_from_local_fits_reach_the_mean_in_few_passes() {
        fn passes(p: &MeanPlan, parts: &[RecordBatch], mut base: Vec<f64>, newton: bool) -> (Vec<f64>, usize) {
            let mut iterations = 0;
            loop {
                let each: Vec<MeanPass> = parts
                    .iter()
                    .map(|b| if newton { p.newton_pass(b, &base) } else { p.pass(b, &base) }.unwrap())
                    .collect();
                match p.step(&base, &MeanPass::merge_all(each), iterations).unwrap() {
                    MeanStep::Converged { .. } => return (base, iterations + 1),
                    MeanStep::Next(next) => base = next,
                }
                iterations += 1;
            }
        }
        let wiggle = |i: usize, j: usize| ((i as f64) * 12.9898 + (j as f64) * 78.233).sin();
        let n = 6000;
        // SO(3): rotations within about 35° of a rotation 25° from the centre (the identity).
        let off = UnitQuaternion::from_scaled_axis(nalgebra::Vector3::new(0.3, -0.25, 0.2));
        let q: Vec<UnitQuaternion<f64>> = (0..n)
            .map(|i| off * UnitQuaternion::from_scaled_axis(nalgebra::Vector3::from_fn(|j, _| 0.35 * wiggle(i, j))))
            .collect();
        let so3_rows = |range: std::ops::Range<usize>| {
            batch(&[
                ("w", q[range.clone()].iter().map(|x| x.w).collect()),
                ("x", q[range.clone()].iter().map(|x| x.i).collect()),
                ("y", q[range.clone()].iter().map(|x| x.j).collect()),
                ("z", q[range].iter().map(|x| x.k).collect()),
            ])
        };
        let parts: Vec<RecordBatch> = (0..4).map(|k| so3_rows(k * 1500..(k + 1) * 1500)).collect();
        let p = MeanPlan::new(Space::So3, None, None, None, 1.5, Outside::Error, SpdMetric::Affine).unwrap();
        let (slow, slow_passes) = passes(&p, &parts, p.start(), false);
        let fits: Vec<(Vec<f64>, u64)> = parts
            .iter()
            .map(|b| {
                let fit = p.rough_fit(std::slice::from_ref(b)).unwrap();
                // A rough fit is close to the part's exact mean, not on it.
                let exact = p.fit(std::slice::from_ref(b)).unwrap();
                let d = So3.distance(&So3.point_at(&fit.mean).unwrap(), &So3.point_at(&exact.mean).unwrap());
                assert!(d < 1e-8, "{d:e}");
                (fit.mean, fit.pass.used)
            })
            .collect();
        let start = p.start_from(&fits);
        let (fast, fast_passes) = passes(&p, &parts, start.clone(), true);
        let d = So3.distance(&So3.point_at(&slow).unwrap(), &So3.point_at(&fast).unwrap());
        assert!(d < 2e-12, "SO(3): {d:e}");
        assert!(slow_passes >= 5 && fast_passes <= 3, "SO(3): {slow_passes} gradient passes, {fast_passes} Newton");
        // From the centre, Newton steps alone still beat gradient steps.
        let (_, centre_passes) = passes(&p, &parts, p.start(), true);
        assert!(centre_passes < slow_passes, "{centre_passes} vs {slow_passes}");
        // S²: the same.
        let (b, _) = directions(n);
        let p = plan(Outside::Error, 0.5);
        let (slow, slow_passes) = passes(&p, std::slice::from_ref(&b), p.start(), false);
        let fit = p.rough_fit(std::slice::from_ref(&b)).unwrap();
        let (fast, fast_passes) =
            passes(&p, std::slice::from_ref(&b), p.start_from(&[(fit.mean, fit.pass.used)]), true);
        let s2 = Sphere::new(3).unwrap();
        let d = s2.distance(&DVector::from_vec(slow), &DVector::from_vec(fast));
        assert!(d < 2e-12 && fast_passes <= 2 && slow_passes >= 4, "S²: {d:e}, {slow_passes} vs {fast_passes}");
        // A start outside the ball is not used; no parts leave the centre.
        assert_eq!(p.start_from(&[(vec![-0.6, -0.8, 0.0], 10)]), p.start());
        assert_eq!(p.start_from(&[]), p.start());
    }

    /// A step whose Newton direction is unusable is the unit step: a Hessian that is not positive definite, or
    /// one that would send the iterate out of the ball.
    #[test]
    fn unusable_newton_directions_fall_back_to_the_unit_step() {
        let (b, _) = directions(3000);
        let p = plan(Outside::Error, 0.5);
        let base = p.start();
        let plain = p.pass(&b, &base).unwrap();
        let unit = p.step(&base, &plain, 0).unwrap();
        for bad in [-1.0, 1e-9] {
            // −H (not positive definite) or H/10⁹ (a step 10⁹ times too long, far out of the ball).
            let mut pass = p.newton_pass(&b, &base).unwrap();
            pass.hessian = pass.hessian.map(|h| h.iter().map(|x| x * bad).collect());
            assert_eq!(p.step(&base, &pass, 0).unwrap(), unit, "scale {bad}");
        }
        let newton = p.step(&base, &p.newton_pass(&b, &base).unwrap(), 0).unwrap();
        assert_ne!(newton, unit, "the control: a usable Hessian changes the step");
    }

    /// A pass carries its summation depth: ~64 + log₂ of the rows within a pass, +1 per merge, ⌈log₂ k⌉ over k
    /// passes merged pairwise. A step whose sum is too deep for the certified bound to reach the tolerance is
    /// refused at once (the old stop test used the computed norm alone and stopped).
    #[test]
    fn passes_carry_their_depth_and_too_deep_a_sum_is_refused() {
        let (b, _) = directions(9000);
        let p = plan(Outside::Error, 0.5);
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let pass = p.pass(&b, &fit.mean).unwrap();
        assert!(pass.depth > 64 && pass.depth <= 64 + 8 + 3, "{}", pass.depth);
        let parts: Vec<MeanPass> = (0..8).map(|_| pass.clone()).collect();
        let merged = MeanPass::merge_all(parts.clone());
        assert_eq!((merged.depth, merged.used), (pass.depth + 3, 8 * pass.used));
        let mut sequential = MeanPass::default();
        parts.into_iter().for_each(|q| sequential.merge(q));
        assert_eq!(sequential.depth, pass.depth + 7);
        assert!(matches!(p.step(&fit.mean, &pass, 0).unwrap(), MeanStep::Converged { .. }));
        // γ_d·T ≥ 1e-12 once d ≳ 10⁴/T: a sum merged a million times one after another.
        let deep = MeanPass { depth: 1_000_000, ..pass };
        let e = p.step(&fit.mean, &deep, 0).unwrap_err().to_string();
        assert!(e.contains("cannot certify"), "{e}");
    }

    #[test]
    fn rows_outside_the_ball_are_refused_dropped_or_clipped() {
        let (b, _) = directions(100);
        // Every row lies within 0.2 rad or so; a radius of 0.1 puts some of them outside.
        let start = plan(Outside::Error, 0.1).start();
        let refused = plan(Outside::Error, 0.1).pass(&b, &start).unwrap();
        let (row, problem) = refused.problem.clone().unwrap();
        assert!(problem.reason.contains("outside the radius"), "{}", problem.reason);
        assert!(plan(Outside::Error, 0.1).step(&start, &refused, 0).is_err());
        let c = DVector::from_vec(vec![0.6, 0.8, 0.0]);
        let first_outside = (0..100)
            .find(|&i| {
                let x = DVector::from_vec((1..=3).map(|j| column_value(&b, &format!("x{j}"), i)).collect());
                Sphere::new(3).unwrap().distance(&c, &x) > 0.1
            })
            .unwrap();
        assert_eq!(row, first_outside);
        let dropped = plan(Outside::Drop, 0.1).pass(&b, &start).unwrap();
        let clipped = plan(Outside::Clip, 0.1).pass(&b, &start).unwrap();
        assert!(dropped.dropped > 0 && dropped.used + dropped.dropped == 100 && dropped.clipped == 0);
        assert_eq!((clipped.clipped, clipped.used, clipped.dropped), (dropped.dropped, 100, 0));
        // Every clipped row sits on the ball's edge, so the clipped mean stays within the radius.
        let fit = plan(Outside::Clip, 0.1).fit(std::slice::from_ref(&b)).unwrap();
        assert!(Sphere::new(3).unwrap().distance(&c, &DVector::from_vec(fit.mean)) <= 0.1);
        // Nothing in the ball: no mean.
        let none = plan(Outside::Drop, 1e-9).fit(std::slice::from_ref(&b));
        assert!(none.unwrap_err().to_string().contains("no rows lie in the ball"));
    }

    fn column_value(b: &RecordBatch, name: &str, i: usize) -> f64 {
        b.column_by_name(name).unwrap().as_any().downcast_ref::<Float64Array>().unwrap().value(i)
    }

    #[test]
    fn every_space_releases_in_its_own_form() {
        let mut rng = seeded_rng_for_experiments(5);
        let eps = 1e4; // noise far below the tolerances checked
        // Latitude/longitude in degrees around (45 N, 10 E), radius 300 km.
        let b = batch(&[("lat", vec![44.5, 45.0, 45.5, 45.0]), ("lon", vec![10.0, 9.5, 10.0, 10.5])]);
        let r = Space::LatLon.parse_distance("300km").unwrap();
        let p = MeanPlan::new(Space::LatLon, None, None, Some(&[45.0, 10.0]), r, Outside::Error, SpdMetric::Affine)
            .unwrap();
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let out = p.release(&fit.mean, fit.pass.used, eps, Conditioning::Auto, &mut rng).unwrap();
        assert!((out.mean[0] - 45.0).abs() < 0.01 && (out.mean[1] - 10.0).abs() < 0.01, "{:?}", out.mean);
        // Hours on the time-of-day circle, across midnight: the mean of 23:00 and 01:00 is midnight.
        let b = batch(&[("time", vec![23.0, 1.0, 23.5, 0.5])]);
        let r = Space::TimeOfDay.parse_distance("2h").unwrap();
        let p =
            MeanPlan::new(Space::TimeOfDay, None, None, Some(&[0.0]), r, Outside::Error, SpdMetric::Affine).unwrap();
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let h = p.release(&fit.mean, 4, eps, Conditioning::Auto, &mut rng).unwrap().mean[0];
        assert!(!(0.01..=23.99).contains(&h), "{h}");
        // Degrees on the circle.
        let b = batch(&[("angle", vec![350.0, 10.0, 0.0])]);
        let p = MeanPlan::new(Space::Circle, Some("deg"), None, Some(&[0.0]), 0.5, Outside::Error, SpdMetric::Affine)
            .unwrap();
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let a = p.release(&fit.mean, 3, eps, Conditioning::Auto, &mut rng).unwrap().mean[0];
        assert!(!(0.01..=359.99).contains(&a), "{a}");
        // Rotations in quat-xyzw, and SPD matrices in both metrics.
        let b = batch(&[("x", vec![0.0, 0.1]), ("y", vec![0.0; 2]), ("z", vec![0.0; 2]), ("w", vec![1.0, 0.995])]);
        let p =
            MeanPlan::new(Space::So3, Some("quat-xyzw"), None, None, 1.0, Outside::Error, SpdMetric::Affine).unwrap();
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let q = p.release(&fit.mean, 2, eps, Conditioning::Auto, &mut rng).unwrap();
        assert!(q.mean[0] > 0.04 && q.mean[0] < 0.06 && q.mean[3] > 0.99, "{:?}", q.mean);
        // The float-safe rounding's small ε₀ is part of the guarantee.
        assert!(matches!(q.guarantee, Guarantee::PureDp { epsilon, .. } if epsilon >= eps && epsilon < eps * 1.001));
        for metric in [SpdMetric::Affine, SpdMetric::LogEuclidean] {
            let b =
                batch(&[("m11", vec![2.0, 2.0]), ("m12", vec![0.5; 2]), ("m21", vec![0.5; 2]), ("m22", vec![1.0; 2])]);
            let p = MeanPlan::new(Space::Spd(2), None, None, None, 2.0, Outside::Error, metric).unwrap();
            let fit = p.fit(std::slice::from_ref(&b)).unwrap();
            let m = p.release(&fit.mean, 2, eps, Conditioning::Auto, &mut rng).unwrap().mean;
            assert!((m[0] - 2.0).abs() < 1e-2 && (m[1] - 0.5).abs() < 1e-2 && (m[3] - 1.0).abs() < 1e-2, "{m:?}");
        }
    }

    /// SPD(k) under the log-Euclidean metric, k ≤ 8: the Gaussian mean (μ-GDP, exact cells in the log domain, no
    /// rounding cost) and the Laplace mean through the same plan; k = 9 refused for both.
    #[test]
    fn log_euclidean_means_up_to_k_8() {
        let mut rng = seeded_rng_for_experiments(8);
        let k = 4;
        let names: Vec<String> = (1..=k).flat_map(|i| (1..=k).map(move |j| format!("m{i}{j}"))).collect();
        let cols: Vec<(&str, Vec<f64>)> = names
            .iter()
            .enumerate()
            .map(|(e, n)| (n.as_str(), vec![if e % (k + 1) == 0 { 1.5 } else { 0.0 }; 3]))
            .collect();
        let b = batch(&cols);
        let p = MeanPlan::new(Space::Spd(k), None, None, None, 1.5, Outside::Error, SpdMetric::LogEuclidean).unwrap();
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let noise = MeanNoise::Gaussian { mu: 1e4 };
        p.check_noise(3, &noise).unwrap();
        let out = p.release_with(&fit.mean, 3, &noise, &mut rng).unwrap();
        assert_eq!(out.guarantee, Guarantee::gdp(1e4));
        assert_eq!(p.guarantee_for(&noise), out.guarantee);
        assert_eq!(out.mu, Some(1e4));
        assert_eq!(out.rounding_cost, 0.0);
        assert_eq!(out.grid.map(|g| g.chart), Some(manifold_dp::space::grid::Chart::LogDomain));
        assert!((out.sigma - out.sensitivity / 1e4).abs() <= 1e-15 * out.sigma, "{} {}", out.sigma, out.sensitivity);
        assert!((out.sensitivity / (2.0 * 1.5 / 3.0) - 1.0).abs() < 1e-6, "{}", out.sensitivity);
        assert_eq!(out.mean.len(), k * k);
        for (e, v) in out.mean.iter().enumerate() {
            let want = if e % (k + 1) == 0 { 1.5 } else { 0.0 };
            assert!((v - want).abs() < 1e-2, "{:?}", out.mean);
        }
        let laplace = p.release(&fit.mean, 3, 1e4, Conditioning::Auto, &mut rng).unwrap();
        assert!((laplace.mean[0] - 1.5).abs() < 1e-2, "{:?}", laplace.mean);
        let err =
            MeanPlan::new(Space::Spd(9), None, None, None, 1.5, Outside::Error, SpdMetric::LogEuclidean).unwrap_err();
        assert!(err.to_string().contains("k ≤ 8"), "{err}");
    }

    /// The Gaussian mean: planned, checked and released through the same plan as the Laplace, with a μ-GDP
    /// guarantee on spheres and SO(3) and refusals that name the arguments as the front end spells them.
    #[test]
    fn gaussian_means_on_spheres_and_so3() {
        let flag = |a: &str| format!("--{a}");
        let parse = |m: Option<&str>, e, d, u| MeanNoise::from_arguments(m, e, d, u, Conditioning::Auto, flag);
        let noise = parse(Some("gaussian"), None, None, Some(1.0)).unwrap();
        assert_eq!(noise, MeanNoise::Gaussian { mu: 1.0 });
        // From (ε, δ): the largest μ whose curve is (ε, δ)-DP.
        let MeanNoise::Gaussian { mu } = parse(Some("gaussian"), Some(1.0), Some(1e-5), None).unwrap() else {
            panic!()
        };
        assert!(mu > 0.2 && mu < 0.3, "{mu}");
        for (m, e, d, u, needle) in [
            (None, None, None, Some(1.0), "--mu goes with --mechanism gaussian"),
            (Some("gaussian"), Some(1.0), None, None, "--epsilon alone"),
            (Some("gaussian"), None, None, None, "--mechanism gaussian needs a budget: --mu M"),
            (Some("gaussian"), Some(1.0), Some(1e-5), Some(1.0), "not both"),
            (Some("gaussian"), None, None, Some(-1.0), "--mu -1: must be"),
            (None, Some(1.0), Some(1e-5), None, "--delta goes with"),
            (Some("cauchy"), Some(1.0), None, None, "laplace (pure ε-DP) and gaussian"),
        ] {
            let err = parse(m, e, d, u).unwrap_err().to_string();
            assert!(err.contains(needle), "{err}");
        }
        let keyword = |a: &str| format!("{a}=");
        let err = MeanNoise::from_arguments(None, Some(1.0), None, Some(1.0), Conditioning::Auto, keyword)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("mu= goes with mechanism= gaussian"), "{err}");
        let err = MeanNoise::from_arguments(Some("gaussian"), None, None, Some(1.0), Conditioning::Ball, flag)
            .unwrap_err()
            .to_string();
        assert!(err.contains("--conditioning"), "{err}");

        let mut rng = seeded_rng_for_experiments(8);
        let b = batch(&[("lat", vec![44.5, 45.0, 45.5, 45.0]), ("lon", vec![10.0, 9.5, 10.0, 10.5])]);
        let r = Space::LatLon.parse_distance("300km").unwrap();
        let p = MeanPlan::new(Space::LatLon, None, None, Some(&[45.0, 10.0]), r, Outside::Error, SpdMetric::Affine)
            .unwrap();
        let big = MeanNoise::Gaussian { mu: 5.0 };
        p.check_noise(4, &big).unwrap();
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let out = p.release_with(&fit.mean, 4, &big, &mut rng).unwrap();
        // μ-GDP up to the certificate's tail and the proposal's far piece (riemannian_gaussian.md §2, §5).
        let with_delta = Guarantee::gdp_with_delta(5.0, manifold_dp::analysis::riemannian_gdp::RELEASE_DELTA);
        assert_eq!((out.guarantee, out.mu, out.conditioned), (with_delta, Some(5.0), false));
        assert_eq!(p.guarantee_for(&big), out.guarantee);
        assert!((out.mean[0] - 45.0).abs() < 2.0 && (out.mean[1] - 10.0).abs() < 2.0, "{:?}", out.mean);
        assert!(out.sigma >= out.sensitivity / 5.0 && out.grid.is_some() && out.rounding_cost > 0.0);
        // σ ≈ Δ/μ: E[d] ≈ σ√(π/2) on S².
        let ratio = out.expected_error / (out.sigma * (std::f64::consts::PI / 2.0).sqrt());
        assert!((ratio - 1.0).abs() < 0.01, "{ratio}");
        // SO(3), in quat-xyzw.
        let b = batch(&[("x", vec![0.0, 0.1]), ("y", vec![0.0; 2]), ("z", vec![0.0; 2]), ("w", vec![1.0, 0.995])]);
        let p =
            MeanPlan::new(Space::So3, Some("quat-xyzw"), None, None, 1.0, Outside::Error, SpdMetric::Affine).unwrap();
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let q = p.release_with(&fit.mean, 2, &big, &mut rng).unwrap();
        assert!(q.mean[3] > 0.9, "{:?}", q.mean);
        assert_eq!((q.guarantee, p.guarantee_for(&big)), (with_delta, with_delta));
        // SPD(k) under the affine-invariant metric: the wrapped Gaussian at the centre for k ≤ 3, refused beyond
        // (before any pass).
        let p = MeanPlan::new(Space::Spd(2), None, None, None, 2.0, Outside::Error, SpdMetric::Affine).unwrap();
        p.check_noise(2, &big).unwrap();
        let out = p.release_with(&[2.0, 0.5, 0.5, 1.0], 2, &big, &mut rng).unwrap();
        assert_eq!((out.guarantee, out.mu), (Guarantee::gdp(5.0), Some(5.0)));
        assert_eq!(p.guarantee_for(&big), out.guarantee);
        assert_eq!(out.grid.map(|g| g.chart), Some(manifold_dp::space::grid::Chart::SpdLogAtCenter));
        assert!(out.sigma >= out.sensitivity / 5.0 && out.rounding_cost == 0.0);
        let y = nalgebra::DMatrix::from_row_slice(2, 2, &out.mean);
        assert!(out.mean[1] == out.mean[2] && y.cholesky().is_some(), "{:?}", out.mean);
        let p = MeanPlan::new(Space::Spd(4), None, None, None, 2.0, Outside::Error, SpdMetric::Affine).unwrap();
        let err = p.check_noise(2, &big).unwrap_err().to_string();
        assert!(err.contains("affine-invariant metric is offered for k ≤ 3"), "{err}");
    }

    /// What a ledger is charged before a Laplace mean's release (the rows unknown) is what the release records,
    /// δ of the sampler's negligible events included, on every space whose sampler the rows do not change; and
    /// never below it where they do (the circle past κ = 10⁶).
    #[test]
    fn the_laplace_pre_charge_is_the_recorded_guarantee() {
        let mut rng = seeded_rng_for_experiments(9);
        let epsilon = 1.0;
        let noise = MeanNoise::Laplace { epsilon, conditioning: Conditioning::Auto };
        let check = |p: &MeanPlan, mean: &[f64], n: u64, rng: &mut _, equal: bool| {
            let out = p.release_with(mean, n, &noise, rng).unwrap();
            let prepared = p.guarantee_for(&noise);
            if equal {
                assert_eq!(prepared, out.guarantee);
            } else {
                assert!(prepared.epsilon() == out.guarantee.epsilon() && prepared.delta() >= out.guarantee.delta());
            }
            out.guarantee
        };
        // S² (the strips: δ_LC), S³ (+ δ_N), SO(3) (none), the circle (none below κ = 10⁶), SPD(2) log-Euclidean
        // (δ_N) and affine-invariant (δ_P on the polynomial scheme).
        let s2 = MeanPlan::new(Space::LatLon, None, None, Some(&[45.0, 10.0]), 0.05, Outside::Error, SpdMetric::Affine)
            .unwrap();
        let g = check(&s2, &s2.start(), 100, &mut rng, true);
        assert!(g.delta() > 0.0, "{g}");
        let s3 = MeanPlan::new(
            Space::Sphere(4),
            None,
            None,
            Some(&[1.0, 0.0, 0.0, 0.0]),
            0.5,
            Outside::Error,
            SpdMetric::Affine,
        )
        .unwrap();
        let g = check(&s3, &s3.start(), 100, &mut rng, true);
        assert!(g.delta() > s2.guarantee_for(&noise).delta(), "{g}");
        let so3 =
            MeanPlan::new(Space::So3, Some("quat-xyzw"), None, None, 0.5, Outside::Error, SpdMetric::Affine).unwrap();
        assert_eq!(check(&so3, &so3.start(), 100, &mut rng, true).delta(), 0.0);
        let le = MeanPlan::new(Space::Spd(2), None, None, None, 1.5, Outside::Error, SpdMetric::LogEuclidean).unwrap();
        assert!(check(&le, &le.start(), 100, &mut rng, true).delta() > 0.0);
        let affine = MeanPlan::new(Space::Spd(2), None, None, None, 1.5, Outside::Error, SpdMetric::Affine).unwrap();
        check(&affine, &affine.start(), 100, &mut rng, true);
        let circle =
            MeanPlan::new(Space::Circle, None, None, Some(&[0.0]), 0.5, Outside::Error, SpdMetric::Affine).unwrap();
        assert_eq!(check(&circle, &circle.start(), 100, &mut rng, false).delta(), 0.0);
        assert!(circle.guarantee_for(&noise).delta() > 0.0);
    }

    #[test]
    fn bounded_means_of_plain_numbers() {
        let b = batch(&[("depth", vec![10.0, 20.0, 30.0, 700.0]), ("mag", vec![4.0, 5.0, 6.0, 5.0])]);
        let cols = ["depth".to_string(), "mag".to_string()];
        let plan = |outside| MeanPlan::bounded(Some(&cols), 0.0, 100.0, outside).unwrap();
        let refused = plan(Outside::Error).fit(std::slice::from_ref(&b)).unwrap();
        let (row, p) = refused.pass.problem.unwrap();
        assert_eq!(row, 3);
        assert!(p.reason.contains("600 outside the bounds [0, 100]"), "{}", p.reason);
        let clipped = plan(Outside::Clip).fit(std::slice::from_ref(&b)).unwrap();
        assert_eq!((clipped.mean.clone(), clipped.pass.used, clipped.pass.clipped), (vec![40.0, 5.0], 4, 1));
        let dropped = plan(Outside::Drop).fit(std::slice::from_ref(&b)).unwrap();
        assert_eq!((dropped.mean.clone(), dropped.pass.used, dropped.pass.dropped), (vec![20.0, 5.0], 3, 1));
        // Two columns of width 100 over 4 rows: Δ₁ = 2·100/4 = 50, b = Δ/ε.
        let mut rng = seeded_rng_for_experiments(2);
        let out = plan(Outside::Clip).release(&clipped.mean, 4, 10.0, Conditioning::Auto, &mut rng).unwrap();
        assert_eq!((out.sensitivity, out.sigma, out.guarantee), (50.0, 5.0, Guarantee::pure(10.0)));
        assert!(MeanPlan::bounded(Some(&cols), 1.0, 1.0, Outside::Error).is_err());
        assert!(MeanPlan::new(Space::Real, None, None, None, 1.0, Outside::Error, SpdMetric::Affine).is_err());
    }

    /// Columns of different ranges, each with its own bounds (one shared 0,700 for depth and mag
    /// gave a mean magnitude of 8.42 against 4.62): each column is clamped to its own bounds and Δ₁ is the sum of
    /// the widths over n; the count of bounds must match the columns.
    #[test]
    fn per_column_bounds_clamp_each_column_and_add_their_widths() {
        let b = batch(&[("depth", vec![10.0, 20.0, 30.0, 700.0]), ("mag", vec![4.0, 5.0, 6.0, 9.0])]);
        let cols = ["depth".to_string(), "mag".to_string()];
        let plan = |outside| MeanPlan::bounded_per_column(&cols, &[(0.0, 700.0), (4.0, 7.0)], outside).unwrap();
        let refused = plan(Outside::Error).fit(std::slice::from_ref(&b)).unwrap();
        let (row, p) = refused.pass.problem.unwrap();
        assert_eq!(row, 3);
        assert!(p.reason.contains("2 outside the bounds [4, 7]"), "{}", p.reason);
        let clipped = plan(Outside::Clip).fit(std::slice::from_ref(&b)).unwrap();
        assert_eq!((clipped.mean.clone(), clipped.pass.clipped), (vec![190.0, 5.5], 1));
        let mut rng = seeded_rng_for_experiments(3);
        let out = plan(Outside::Clip).release(&clipped.mean, 4, 1.0, Conditioning::Auto, &mut rng).unwrap();
        assert_eq!(out.sensitivity, (700.0 + 3.0) / 4.0);
        assert_eq!(plan(Outside::Clip).describe(), "the real line (depth in [0, 700], mag in [4, 7])");
        assert!(MeanPlan::bounded_per_column(&cols, &[(0.0, 700.0)], Outside::Error).is_err());
        assert!(MeanPlan::bounded_per_column(&cols, &[(0.0, 700.0), (7.0, 4.0)], Outside::Error).is_err());
    }

    #[test]
    fn bad_parameters_are_refused_before_any_pass() {
        let new = |space, center: Option<&[f64]>, radius, metric| {
            MeanPlan::new(space, None, None, center, radius, Outside::Error, metric).map(|_| ())
        };
        assert!(new(Space::LatLon, None, 0.1, SpdMetric::Affine).unwrap_err().to_string().contains("lat,lon"));
        assert!(new(Space::LatLon, Some(&[95.0, 0.0]), 0.1, SpdMetric::Affine).is_err());
        assert!(new(Space::Sphere(3), Some(&[1.0, 0.0]), 0.1, SpdMetric::Affine).is_err());
        // Beyond r* = π/4 on a sphere.
        assert!(new(Space::Sphere(3), Some(&[1.0, 0.0, 0.0]), 1.0, SpdMetric::Affine).is_err());
        assert!(new(Space::So3, None, 0.5, SpdMetric::LogEuclidean).is_err());
        assert!("cholesky".parse::<SpdMetric>().is_err());
    }
}
