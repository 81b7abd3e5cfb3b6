//! `manifold-dp mean`.

use super::LedgerUse;
use super::common::parse_bounds;

/// The public bounds of a mean on `real`: one pair for every value column (`LO,HI`), or one per named column
/// (`depth=0:700,mag=4:7`, which also names the columns).
#[derive(Debug, Clone, PartialEq)]
pub enum MeanBounds {
    /// LO,HI for every column.
    Shared(f64, f64),
    /// (column, LO, HI) for each column, in order.
    PerColumn(Vec<(String, f64, f64)>),
}

impl MeanBounds {
    /// As the command line takes it (for the ledger's record and messages).
    pub fn text(&self) -> String {
        match self {
            MeanBounds::Shared(lo, hi) => format!("{lo},{hi}"),
            MeanBounds::PerColumn(each) => {
                each.iter().map(|(c, lo, hi)| format!("{c}={lo}:{hi}")).collect::<Vec<_>>().join(",")
            }
        }
    }

    /// For people: `values in [0, 700]`, or `depth in [0, 700], mag in [4, 7]`.
    pub fn describe(&self) -> String {
        match self {
            MeanBounds::Shared(lo, hi) => format!("values in [{lo}, {hi}]"),
            MeanBounds::PerColumn(each) => {
                each.iter().map(|(c, lo, hi)| format!("{c} in [{lo}, {hi}]")).collect::<Vec<_>>().join(", ")
            }
        }
    }
}

/// `LO,HI`, or `NAME=LO:HI,NAME=LO:HI,…` (one pair per column, each LO < HI, names distinct).
pub fn parse_mean_bounds(s: &str) -> Result<MeanBounds, String> {
    if !s.contains('=') {
        return parse_bounds(s).map(|(lo, hi)| MeanBounds::Shared(lo, hi));
    }
    let mut each: Vec<(String, f64, f64)> = Vec::new();
    for part in s.split(',').map(str::trim) {
        let bad = || format!("{part:?}: give each column's bounds as NAME=LO:HI (e.g. depth=0:700,mag=4:7)");
        let (name, range) = part.split_once('=').ok_or_else(bad)?;
        let (lo, hi) = range.split_once(':').ok_or_else(bad)?;
        let (lo, hi) = parse_bounds(&format!("{lo},{hi}")).map_err(|e| format!("{part:?}: {e}"))?;
        let name = name.trim();
        if name.is_empty() || each.iter().any(|(c, _, _)| c == name) {
            return Err(format!("{part:?}: each column is named once, with a name"));
        }
        each.push((name.to_string(), lo, hi));
    }
    Ok(MeanBounds::PerColumn(each))
}
use crate::io::table::{FileFormat, parse_delimiter};
use clap::{Args, ValueEnum};

/// Whether the Laplace draw of `mean` is conditioned on the data ball.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConditioningArg {
    /// Unconditioned (σ = Δ/ε) where the Laplace law exists, else conditioned on the ball (σ = 2Δ/ε).
    Auto,
    /// Unconditioned, σ = Δ/ε; refused on spd:K when σ is too large for the law to exist.
    None,
    /// Conditioned on the ball (their Theorem 3): the release always lies within --radius of --center, at
    /// twice the noise scale, σ = 2Δ/ε.
    Ball,
}

/// What `mean` does with a row outside the ball of --radius around --center.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutsideArg {
    /// Refuse the file, naming the row; nothing is released.
    Error,
    /// Leave such rows out: the mean is over the rows inside, and their number sets the noise. Whether a row
    /// lies outside (and how many do) is then not protected.
    Drop,
    /// Move such a row onto the ball, along the geodesic from --center towards it. The guarantee covers every
    /// row unchanged.
    Clip,
}

/// How `mean` estimates where the data lie.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EstimatorArg {
    /// The Fréchet mean of rows within --radius of --center, with Riemannian Laplace noise (the default; best
    /// for concentrated data, whose ball gives a small sensitivity).
    Frechet,
    /// The mean of the embedded rows (rotation matrices in R^9; unit vectors in R^N, latlon in R^3, circle and
    /// timeofday in R^2) with l2 K-norm noise (sensitivity 2*sqrt(2)/n on so3, 2/n on spheres), projected back
    /// onto the space: no --center or --radius, rows anywhere (data spread over the whole space). so3,
    /// sphere:N, latlon, circle and timeofday only.
    Extrinsic,
}

/// The metric on spd:K.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SpdMetricArg {
    /// Affine-invariant: ρ(P, Q) = ‖log(P^-1/2 Q P^-1/2)‖_F (invariant under P ↦ G P Gᵀ).
    Affine,
    /// Log-Euclidean: ‖log P − log Q‖_F (flat; the mean is exp of the mean logarithm). Means for K ≤ 8, by the
    /// Laplace (--epsilon) or the Gaussian (--mechanism gaussian --mu M), both in the log domain.
    LogEuclidean,
}

#[derive(Debug, Args)]
pub struct MeanArgs {
    /// The space: so3 (rotations), sphere:N (unit vectors of R^N), latlon (latitude, longitude in degrees),
    /// circle (angles), timeofday (hours or clock times), spd:K (K×K symmetric positive definite matrices, one
    /// per row as K·K row-major columns).
    #[arg(long)]
    pub space: String,
    /// The public centre of the data ball (chosen without looking at the data): on so3 `identity` or a
    /// rotation in --format (w,x,y,z by default); on sphere:N the N coordinates of a unit vector; on latlon
    /// lat,lon in degrees; on circle an angle in --format (rad by default); on timeofday hours or a clock
    /// time (08:30); on spd:K `identity` or K·K row-major entries.
    /// Not used by --estimator extrinsic (refused there).
    #[arg(long, allow_hyphen_values = true, required_unless_present_any = ["bounds", "estimator"])]
    pub center: Option<String>,
    /// The public radius: every point used lies within it of --center. An angle on so3, spheres and the
    /// circle (30deg, 0.5rad; below 90deg on so3 and the circle and 45deg on spheres, where the mean is
    /// unique), a distance on latlon (300km, 50mi), a duration on timeofday (2h, 90min; below 6h); a number on
    /// spd:K (the affine-invariant distance √Σ ln²λ, λ the eigenvalues of C⁻¹X, e.g. 1.5 allows eigenvalue
    /// ratios up to e^1.5 ≈ 4.5; with --metric log-euclidean ‖log X − log C‖_F).
    /// Not used by --estimator extrinsic (refused there).
    #[arg(long, required_unless_present_any = ["bounds", "estimator"])]
    pub radius: Option<String>,
    /// What to do with a row outside the radius (on real: outside --bounds): refuse the file (error), leave
    /// the row out (drop), or move it onto the ball (clip; on real: clamp).
    #[arg(long, value_enum, default_value = "error")]
    pub outside: OutsideArg,
    /// Space real only: the public bounds LO,HI of every value, or each column's own as
    /// NAME=LO:HI,NAME=LO:HI (e.g. depth=0:700,mag=4:7; these name the columns), chosen without looking at the
    /// data; with --radius and --center unused (give any, e.g. 0).
    #[arg(long, value_parser = parse_mean_bounds, allow_hyphen_values = true)]
    pub bounds: Option<MeanBounds>,
    /// The noise: laplace (the default: Riemannian Laplace, pure ε-DP, --epsilon E) or gaussian (Riemannian
    /// Gaussian, μ-Gaussian DP, --mu M; on so3, sphere:N, latlon, circle and timeofday, --estimator frechet; on
    /// spd:K, K ≤ 8, with --metric log-euclidean: a Gaussian in the flat log domain, docs/spd_log_euclidean.md).
    /// μ-GDP composes as √(Σμ²) and is (ε, δ)-DP for every ε with δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2);
    /// at the same privacy the Gaussian's error is about half the Laplace's on S². Example:
    /// `mean --space latlon --center 48.86,2.34 --radius 200km --mechanism gaussian --mu 1 --input checkins.csv`
    /// (see docs/riemannian_gaussian.md).
    #[arg(long)]
    pub mechanism: Option<String>,
    /// Pure differential privacy budget for the whole data set (neighbouring data sets differ in one row). With
    /// --mechanism gaussian only together with --delta: the release is then μ-GDP at the largest μ whose
    /// Gaussian trade-off curve is (ε, δ)-DP (the exact GDP curve, not the classical σ = Δ√(2 ln(1.25/δ))/ε).
    #[arg(long, allow_hyphen_values = true)]
    pub epsilon: Option<f64>,
    /// With --mechanism gaussian and --epsilon: the δ of an (ε, δ) budget, converted to μ (see --epsilon).
    #[arg(long, allow_hyphen_values = true)]
    pub delta: Option<f64>,
    /// With --mechanism gaussian: the μ of μ-Gaussian DP (GDP) for the whole data set, e.g. 1 (distinguishing
    /// two neighbouring data sets is as hard as telling N(0, 1) from N(μ, 1)); certified up to about μ = 6.
    #[arg(long, allow_hyphen_values = true)]
    pub mu: Option<f64>,
    /// Input CSV or Parquet file.
    #[arg(long)]
    pub input: String,
    /// Input file format (default: from the extension: .csv, .tsv, .parquet).
    #[arg(long, value_enum)]
    pub input_format: Option<FileFormat>,
    /// The field separator of a CSV input (default: a comma; a tab for .tsv): one character such as ; or |,
    /// or tab.
    #[arg(long, value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
    /// How rotations are written (so3): quat-wxyz (default), quat-xyzw, matrix, rotvec, euler:SEQ[:deg]; how
    /// angles are written (circle): rad (default) or deg.
    #[arg(long)]
    pub format: Option<String>,
    /// The value columns, in order (default: w,x,y,z / x1,…,xN / lat,lon / angle / time / m11,m12,…,mKK).
    #[arg(long, value_delimiter = ',')]
    pub columns: Option<Vec<String>>,
    /// Condition the Laplace draw on the ball (see the values).
    #[arg(long, value_enum, default_value = "auto")]
    pub conditioning: ConditioningArg,
    /// The estimator (see the values): frechet needs --center and --radius; extrinsic needs neither and
    /// takes rows anywhere on so3, sphere:N, latlon, circle or timeofday. Its release states, at 95 %
    /// confidence, how far it may lie from the exact extrinsic mean's projection, and warns when the noisy
    /// mean of the embedded rows is too close to degenerate (0, or on so3 rank-deficient) for the projection
    /// to mean anything.
    #[arg(long, value_enum, default_value = "frechet")]
    pub estimator: EstimatorArg,
    /// The metric on spd:K.
    #[arg(long, value_enum, default_value = "affine")]
    pub metric: SpdMetricArg,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Seed for a reproducible experiment. NOT FOR RELEASES: whoever knows the seed can remove the noise.
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub ledger: LedgerUse,
}
