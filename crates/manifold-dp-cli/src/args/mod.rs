//! Command-line interface definition (clap derive). Spellings follow DESIGN.md's CLI contract.

pub mod units;

use crate::io::table::{FileFormat, parse_delimiter};
use clap::{Args, Parser, Subcommand, ValueEnum};
use manifold_dp::registry::{Budget, Chosen, MechanismChoice, MechanismName, PointMechanism, Space};

/// Differential privacy for rotations (SO(3)) and directions (angles, times of day, latitude/longitude,
/// unit vectors), with exact samplers and guarantees you can state.
///
/// Every epsilon is per radian of distance (the rotation angle on SO(3), the great-circle angle on
/// spheres): a mechanism is epsilon-private when the probability of any output changes by at most a factor
/// exp(epsilon * d) between two inputs d radians apart. "Protect 10deg at level 1" means
/// epsilon = 1 / (10deg in rad) = 5.73; "protect 1h at level 1" on a 24 h clock means epsilon = 3.82 per
/// radian; "protect 2km" on the Earth means epsilon = 3186 per radian (1/2 per km).
#[derive(Debug, Parser)]
#[command(name = "manifold-dp", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    #[command(verbatim_doc_comment)]
    /// Draw private releases of one point (noise around --center) as CSV: w,x,y,z on so3, angle (radians)
    /// on circle, hours on timeofday, lat,lon on latlon, x1,…,xN on sphere:N.
    ///
    /// Examples:
    ///   manifold-dp sample --space so3 --mechanism laplace --epsilon 8 -n 5 --seed 1
    ///   manifold-dp sample --space latlon --mechanism purkayastha --epsilon 3000 --center 48.85,2.35 -n 5
    Sample(SampleArgs),
    #[command(verbatim_doc_comment)]
    /// Radius of indistinguishability: the angle within which a fraction --level of releases fall
    /// (given --epsilon), or the epsilon that achieves a given --radius.
    ///
    /// Examples:
    ///   manifold-dp radius --space so3 --mechanism laplace --epsilon 8 --level 0.683
    ///   manifold-dp radius --space so3 --mechanism laplace --radius 10deg --level 0.683 --json
    ///   manifold-dp radius --space latlon --mechanism purkayastha --radius 2km --level 0.9
    Radius(RadiusArgs),
    #[command(verbatim_doc_comment)]
    /// Privatize a CSV or Parquet file of rotations, angles, times of day, locations or unit vectors; every
    /// other column passes through unchanged.
    ///
    /// Reads the value columns (see --space, --format and --columns), releases each row with independent
    /// exact noise, and writes the same table with the values replaced. The output appears only when every
    /// row succeeded (or was set aside with --skip-invalid).
    ///
    /// Examples:
    ///   manifold-dp privatize --space latlon --mechanism purkayastha --protect 2km --level 1 \
    ///       --input checkins.csv --output private.csv
    ///   manifold-dp privatize --space timeofday --mechanism vmf --protect 1h --level 1 --columns visited_at \
    ///       --input visits.csv --output private.csv
    ///   manifold-dp privatize --mechanism laplace --protect 10deg --level 1 --input imu.parquet --output private.parquet
    ///   manifold-dp privatize --mechanism laplace --epsilon 5.7 --input poses.csv --output out.csv \
    ///       --format euler:ZYX:deg --columns yaw,pitch,roll --report report.json
    Privatize(PrivatizeArgs),
    #[command(verbatim_doc_comment)]
    /// Release the Fréchet mean of a whole file of rotations, unit vectors or SPD (covariance) matrices with
    /// pure epsilon-DP (the central model), by the Riemannian Laplace mechanism.
    ///
    /// Every point must lie within --radius of the public --center (a point outside is an error naming its
    /// row). Two data sets that differ in one row then have Fréchet means at most Δ = 2r(2 − h)/(n h) apart
    /// (Reimherr, Bharath & Soto, Theorem 2), and the mean is released with Laplace noise of scale Δ/ε on the
    /// manifold. Prints the private mean in the input's representation, the guarantee, Δ, σ and the expected
    /// error; --json prints one JSON object.
    ///
    /// Examples:
    ///   manifold-dp mean --space so3 --center identity --radius 30deg --epsilon 1 --input poses.csv
    ///   manifold-dp mean --space sphere:3 --center 0,0,1 --radius 20deg --epsilon 0.5 --input dirs.csv --json
    ///   manifold-dp mean --space spd:2 --center identity --radius 1.5 --epsilon 1 --input covs.csv \
    ///       --columns sxx,sxy,syx,syy
    Mean(MeanArgs),
    /// Privacy accounting: the total cost of several releases, conversions between notions, and a ledger
    /// that records releases and refuses one that would pass a budget.
    ///
    /// Notions: pure epsilon, approximate (epsilon, delta), zCDP rho, Gaussian DP mu, Rao theta (a
    /// Fisher-Rao distance; never reported without a standard guarantee beside it) and metric epsilon per unit.
    ///
    /// Examples:
    ///   manifold-dp budget compose --notion pure 0.1 --times 10
    ///   manifold-dp budget compose --notion gdp 0.5 0.5 0.3 --delta 1e-6
    ///   manifold-dp budget convert --from gdp 1.0 --to approx --delta 1e-6
    ///   manifold-dp budget convert --from metric 5.73 --metric so3_geodesic --to pure --diameter 3.14159
    #[command(subcommand, verbatim_doc_comment)]
    Budget(BudgetCommand),
    #[command(verbatim_doc_comment)]
    /// Audit a mechanism's privacy claim empirically: a lower confidence bound on the privacy it really loses,
    /// from likelihood-ratio events fixed in advance, exact Clopper-Pearson bounds and a union bound (false
    /// alarms <= --alpha), beside a goodness-of-fit check of its noise law. Exits 3 when the claim is refuted.
    ///
    /// Examples:
    ///   manifold-dp audit --space so3 --mechanism laplace --epsilon 1
    ///   manifold-dp audit --space so3 --mechanism bingham --concentration 8 --epsilon 2    (κ = 4ε: refuted)
    ///   manifold-dp audit --space sphere:3 --mechanism control:vmf-2eps --epsilon 1 --json
    Audit(crate::commands::audit::AuditArgs),
    /// Reproduce a paper's figures with exact samplers beside the paper's own (CSV + SVG into --out).
    #[command(subcommand)]
    Reproduce(ReproduceCommand),
    /// Privatize the bundled wrist-IMU example (3000 orientations) and show what it costs in accuracy.
    Demo(DemoArgs),
}

/// `manifold-dp budget …`.
#[derive(Debug, Subcommand)]
pub enum BudgetCommand {
    /// Total cost of several releases in one notion (sequential, or --parallel over disjoint data), with the
    /// standard guarantees the total implies.
    Compose(crate::commands::budget::ComposeArgs),
    /// Convert a guarantee to another notion where that holds (pure → zcdp, gdp, approx; metric → pure with a
    /// diameter; zcdp → approx; gdp → zcdp, approx and the exact (epsilon, delta) curve; Gaussian rao = gdp);
    /// conversions that do not hold are refused with the reason.
    Convert(crate::commands::budget::ConvertArgs),
    /// A privacy ledger (an SQLite file): record releases per data set, hold budgets per notion, refuse a
    /// release over budget (exit 4), and answer "what have I spent, and may I release once more?".
    Ledger(crate::commands::ledger::LedgerArgs),
}

/// The most worker threads `--threads` accepts: far more than any machine's useful parallelism, and few
/// enough that starting them cannot exhaust the system (`--threads 100000` would spend minutes creating threads).
pub const MAX_THREADS: usize = 256;

/// `--threads N`: 1 ≤ N ≤ [`MAX_THREADS`].
pub fn parse_threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(format!("{s:?} is not a thread count: use a whole number from 1 to {MAX_THREADS}")),
    }
}

/// `--epsilon` of a local mechanism: a number in [MIN_EPSILON, MAX_EPSILON], the range the samplers are proven
/// exact and tested for (the library refuses others too; checking here names the flag).
pub fn parse_epsilon(s: &str) -> Result<f64, String> {
    use manifold_dp::mechanism::{MAX_EPSILON, MIN_EPSILON};
    let value: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number"))?;
    if (MIN_EPSILON..=MAX_EPSILON).contains(&value) {
        Ok(value)
    } else {
        Err(format!(
            "epsilon must lie in [{}, {}] per unit, the range the samplers are proven exact and tested for",
            manifold_dp::privacy::guarantee::short(MIN_EPSILON),
            manifold_dp::privacy::guarantee::short(MAX_EPSILON)
        ))
    }
}

/// Which mechanism and how much noise.
#[derive(Debug, Args)]
pub struct MechanismArgs {
    /// The space of the data: so3 (rotations), circle (angles), timeofday (24 h clock), latlon (latitude and
    /// longitude on the Earth, degrees), sphere:N (unit vectors of R^N), real (plain numbers with --bounds;
    /// privatize only).
    #[arg(long, default_value = "so3", value_parser = clap::value_parser!(Space))]
    pub space: Space,
    /// The mechanism. On so3: laplace (density ∝ exp(−ε·angle), the most accurate at every epsilon) or
    /// bingham (tight κ = 2ε, or --concentration κ). On the others: purkayastha (density ∝ exp(−ε·great-circle
    /// angle)), vmf (von Mises–Fisher, κ = ε: ε per unit of chordal distance, so also per radian), or on
    /// circle and timeofday wrapped-laplace (the directional paper's baseline, noisier at the same epsilon).
    /// auto: the one with the smallest expected error at the budget, from the exact laws (the summary says
    /// which and why).
    #[arg(long, value_parser = clap::value_parser!(MechanismChoice))]
    pub mechanism: MechanismChoice,
    /// Privacy budget per radian (of rotation angle on so3, of great-circle distance on spheres; vmf is also
    /// epsilon per unit of chordal distance), from 1e-6 to 1e6. Smaller is more private and noisier. To think
    /// in degrees, hours or km use --protect instead.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_epsilon)]
    pub epsilon: Option<f64>,
    /// Bingham only, for reproducing papers: the concentration κ itself (the SO(3) paper's "epsilon").
    /// The guarantee reported is then κ/2 per radian.
    #[arg(long, conflicts_with = "epsilon", allow_hyphen_values = true)]
    pub concentration: Option<f64>,
}

impl MechanismArgs {
    /// The mechanism for ε per radian on the chosen space (auto resolved); refuses a mechanism of another
    /// space. Says on stderr what auto chose and why, or warns when the named one is 2× or more less accurate.
    pub fn for_epsilon(&self, epsilon: f64) -> anyhow::Result<PointMechanism> {
        let chosen = PointMechanism::choose(self.space, self.mechanism, Budget::Epsilon(epsilon))?;
        self.announce(&chosen);
        Ok(chosen.mechanism)
    }

    /// Builds the mechanism; `None` when neither --epsilon nor --concentration was given.
    pub fn build(&self) -> anyhow::Result<Option<PointMechanism>> {
        let budget = match (self.epsilon, self.concentration) {
            (Some(eps), _) => Budget::Epsilon(eps),
            (None, Some(kappa)) => Budget::Concentration(kappa),
            (None, None) => return Ok(None),
        };
        let chosen = PointMechanism::choose(self.space, self.mechanism, budget).map_err(|e| -> anyhow::Error {
            match e {
                manifold_dp::Error::NotApplicable(m) if self.concentration.is_some() => {
                    crate::BadInput(format!("--concentration: {m}")).into()
                }
                e => e.into(),
            }
        })?;
        self.announce(&chosen);
        Ok(Some(chosen.mechanism))
    }

    /// The named mechanism, refusing auto where mechanisms cannot be compared (`why`: what needs a name).
    pub fn named(&self, why: &str) -> anyhow::Result<MechanismName> {
        match self.mechanism {
            MechanismChoice::Named(m) => Ok(m),
            MechanismChoice::Auto => Err(crate::BadInput(format!("--mechanism auto: {why}; name a mechanism")).into()),
        }
    }

    fn announce(&self, chosen: &Chosen) {
        let unit = self.space.natural_unit();
        if chosen.auto {
            eprintln!("mechanism auto: {} ({})", chosen.name, chosen.comparison(unit));
        } else if let Some((better, times)) = chosen.much_better() {
            eprintln!(
                "warning: {} moves points {}× farther than {better} at this budget ({}); --mechanism {better} \
                 (or auto) gives the same guarantee with less noise",
                chosen.name,
                manifold_dp::privacy::guarantee::short(times),
                chosen.comparison(unit)
            );
        }
    }
}

#[derive(Debug, Args)]
pub struct SampleArgs {
    #[command(flatten)]
    pub mechanism: MechanismArgs,
    /// Number of releases to draw.
    #[arg(short = 'n', long = "count")]
    pub n: u64,
    /// The point to privatize: w,x,y,z (scalar first) on so3 (default: the identity); an angle (30deg,
    /// 0.5rad) on circle; a time (13:30 or 13.5) on timeofday; lat,lon in degrees on latlon; x1,…,xN on
    /// sphere:N (default: the first axis, 0, 00:00, or 0,0).
    #[arg(long, allow_hyphen_values = true)]
    pub center: Option<String>,
    /// Seed for a reproducible experiment. NOT FOR RELEASES: whoever knows the seed can remove the noise.
    /// Without it, the generator is seeded by the operating system.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Output CSV file, or - for standard output.
    #[arg(long, default_value = "-")]
    pub output: String,
    /// Overwrite an existing output file.
    #[arg(long)]
    pub force: bool,
}

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

/// Public bounds LO,HI for --space real.
pub fn parse_bounds(s: &str) -> Result<(f64, f64), String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let [lo, hi] = parts[..] else {
        return Err(format!("{s:?}: give the bounds as LO,HI (e.g. 0,700)"));
    };
    let num = |t: &str| t.parse::<f64>().ok().filter(|v| v.is_finite());
    match (num(lo), num(hi)) {
        (Some(lo), Some(hi)) if lo < hi => Ok((lo, hi)),
        (Some(_), Some(_)) => Err(format!("{s:?}: LO must be below HI")),
        _ => Err(format!("{s:?}: LO and HI must be finite numbers")),
    }
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

/// The metric on spd:K.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SpdMetricArg {
    /// Affine-invariant: ρ(P, Q) = ‖log(P^-1/2 Q P^-1/2)‖_F (invariant under P ↦ G P Gᵀ).
    Affine,
    /// Log-Euclidean: ‖log P − log Q‖_F (flat; the mean is exp of the mean logarithm).
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
    #[arg(long, allow_hyphen_values = true, required_unless_present = "bounds")]
    pub center: Option<String>,
    /// The public radius: every point used lies within it of --center. An angle on so3, spheres and the
    /// circle (30deg, 0.5rad; below 90deg on so3 and the circle and 45deg on spheres, where the mean is
    /// unique), a distance on latlon (300km, 50mi), a duration on timeofday (2h, 90min; below 6h); a number on
    /// spd:K (the affine-invariant distance √Σ ln²λ, λ the eigenvalues of C⁻¹X; e.g. 1.5 allows eigenvalue
    /// ratios up to e^1.5 ≈ 4.5).
    #[arg(long, required_unless_present = "bounds")]
    pub radius: Option<String>,
    /// What to do with a row outside the radius (on real: outside --bounds): refuse the file (error), leave
    /// the row out (drop), or move it onto the ball (clip; on real: clamp).
    #[arg(long, value_enum, default_value = "error")]
    pub outside: OutsideArg,
    /// Space real only: the public bounds LO,HI of every value (chosen without looking at the data); with
    /// --radius and --center unused (give any, e.g. 0).
    #[arg(long, value_parser = parse_bounds, allow_hyphen_values = true)]
    pub bounds: Option<(f64, f64)>,
    /// Pure differential privacy budget for the whole data set (neighbouring data sets differ in one row).
    #[arg(long, allow_hyphen_values = true)]
    pub epsilon: f64,
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
    pub ledger: crate::commands::ledger::LedgerUse,
}

#[derive(Debug, Args)]
pub struct PrivatizeArgs {
    #[command(flatten)]
    pub mechanism: MechanismArgs,
    /// Budget as a protection radius instead of --epsilon: inputs within this distance are
    /// indistinguishable at privacy level --level, i.e. epsilon = level / radius. Angles: 10deg, 0.2rad;
    /// on timeofday also 1h, 30min; on latlon also 2km, 500m.
    #[arg(long, conflicts_with_all = ["epsilon", "concentration"], requires = "level", allow_hyphen_values = true)]
    pub protect: Option<String>,
    /// Privacy level ℓ for --protect: outputs change in probability by at most a factor exp(ℓ) between
    /// inputs --protect apart (a privacy level, not a probability; radius --level is a probability).
    #[arg(long, requires = "protect", allow_hyphen_values = true)]
    pub level: Option<f64>,
    /// Input file (.csv or .parquet; - reads CSV from standard input).
    #[arg(long)]
    pub input: String,
    /// Output file (.csv or .parquet; - writes CSV to standard output). A device or FIFO (/dev/null) is
    /// written directly; a symbolic link is written through to its file. It may not be the input, the ledger
    /// or another output. To a stream, the input is validated before anything is written.
    #[arg(long)]
    pub output: String,
    /// Input file format, when the extension does not say.
    #[arg(long, value_enum)]
    pub input_format: Option<FileFormat>,
    /// Output file format, when the extension does not say.
    #[arg(long, value_enum)]
    pub output_format: Option<FileFormat>,
    /// The field separator of CSV input and output, rejects included (default: a comma; a tab for .tsv): one
    /// character such as ; or |, or tab.
    #[arg(long, value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
    /// How values are written. so3: quat-wxyz (default), quat-xyzw, matrix (r11…r33 row-major), rotvec
    /// (radians), euler:SEQ (degrees; euler:SEQ:rad for radians; SEQ: xyz, zyx, zxz… lowercase extrinsic,
    /// uppercase intrinsic, as in scipy). circle: rad (default) or deg. timeofday: each field may be decimal
    /// hours (13.5), a clock time (13:30, 13:30:15.5) or a timestamp (2024-05-01T13:30:00Z; the date and
    /// offset pass through, only the time of day is privatized), and is written back in the same form; Parquet
    /// TIME and TIMESTAMP columns keep their type, their local date and their offset (the date never moves
    /// across midnight: that would reveal which side of midnight the original lay on). latlon: deg (longitudes
    /// written in [-180, 180)) or deg360 (in [0, 360), for tables in that convention; either is read).
    /// sphere:N: the N coordinates of a unit vector.
    #[arg(long)]
    pub format: Option<String>,
    /// The input's value columns, in the order of --format (so3 default: w,x,y,z; x,y,z,w; r11,…,r33;
    /// rx,ry,rz; angle1,angle2,angle3. circle: angle. timeofday: time. latlon: lat,lon. sphere:N: x1,…,xN).
    #[arg(long, value_delimiter = ',')]
    pub columns: Option<Vec<String>>,
    /// Write the noisy rotations in another representation (same spellings as --format), under its default
    /// column names.
    #[arg(long)]
    pub output_as: Option<String>,
    /// Round the releases onto a coarser public grid, of step at most this distance (1s or 1min on
    /// timeofday, 10m on latlon, 0.01deg elsewhere): the largest power-of-two step no larger, in the grid's
    /// chart. It is post-processing of the float-safe release, so it costs nothing; the guarantee names the
    /// grid. It cannot be finer than the float-safe grid.
    #[arg(long, value_name = "DISTANCE")]
    pub snap: Option<String>,
    /// Space real only: the public bounds LO,HI (chosen without looking at the data). Every value is clamped
    /// into them, then each row gets Laplace noise for pure epsilon-DP per row.
    #[arg(long, value_parser = parse_bounds, allow_hyphen_values = true)]
    pub bounds: Option<(f64, f64)>,
    /// Set invalid rows aside, unchanged, in this file (.csv or .parquet) instead of stopping at the first.
    #[arg(long, value_name = "REJECTS")]
    pub skip_invalid: Option<String>,
    /// Also write the summary as JSON to this file.
    #[arg(long)]
    pub report: Option<String>,
    /// Overwrite existing output, rejects and report files (replaced atomically, keeping their permissions).
    #[arg(long)]
    pub force: bool,
    /// Seed for a reproducible experiment. NOT FOR RELEASES: whoever knows the seed can remove the noise.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads, 1 to 256 (default: all cores). The output does not depend on it.
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// No summary on standard error (errors are still reported).
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub ledger: crate::commands::ledger::LedgerUse,
}

#[derive(Debug, Args)]
pub struct RadiusArgs {
    #[command(flatten)]
    pub mechanism: MechanismArgs,
    /// Find the epsilon for which a fraction --level of releases fall within this distance (10deg, 0.2rad;
    /// 1h on timeofday; 2km on latlon).
    #[arg(long, conflicts_with_all = ["epsilon", "concentration"])]
    pub radius: Option<String>,
    /// Probability level p, e.g. 0.683 or 68.3%: the fraction of releases within the radius (a probability,
    /// not the privacy level of privatize --level).
    #[arg(long)]
    pub level: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What to reproduce.
#[derive(Debug, Subcommand)]
pub enum ReproduceCommand {
    /// Hildebrandt et al., Metric DP on SO(3): Figure 2 (the paper's samplers vs the exact one at ε = 8),
    /// Figure 3 (Laplace vs Bingham at equal ρ), and the throughput comparison across ε.
    So3Figures(ReproduceArgs),
    /// Weggenmann & Kerschbaum, Differential privacy for directional data: the circular-mean error at
    /// ε = 1 versus the number of responses for VMF, Purkayastha and wrapped Laplace, on generated
    /// time-of-day data.
    DirectionalMean(DirectionalMeanArgs),
    /// Reimherr, Bharath & Soto, Differentially private Riemannian manifold summaries: Figure 1 (sensitivity
    /// of the Fréchet mean against n with Theorem 2's bound; error of the intrinsic Riemannian Laplace
    /// against the extrinsic Euclidean Laplace) for SPD(2) and S², plus SO(3).
    RiemannianMean(RiemannianMeanArgs),
}

#[derive(Debug, Args)]
pub struct RiemannianMeanArgs {
    /// Directory for the CSV, text and SVG files.
    #[arg(long, default_value = "reproduce-output/riemannian-mean")]
    pub out: String,
    /// Repetitions per sample size (the paper: 1000).
    #[arg(long, default_value_t = 1000)]
    pub repetitions: usize,
    /// Seed (a reproduction is an experiment, not a release).
    #[arg(long, default_value_t = 2021)]
    pub seed: u64,
}

#[derive(Debug, Args)]
pub struct DirectionalMeanArgs {
    /// Directory for the CSV and SVG files.
    #[arg(long, default_value = "reproduce-output/directional-mean")]
    pub out: String,
    /// Repetitions per number of responses (each draws a fresh data set and fresh noise).
    #[arg(long, default_value_t = 1000)]
    pub repetitions: usize,
    /// Seed (a reproduction is an experiment, not a release).
    #[arg(long, default_value_t = 2021)]
    pub seed: u64,
}

#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Directory for the CSV and SVG files.
    #[arg(long, default_value = "reproduce-output/so3-figures")]
    pub out: String,
    /// Draws per histogram (the paper: 50 000).
    #[arg(long, default_value_t = 50_000)]
    pub samples: usize,
    /// Seed (a reproduction is an experiment, not a release).
    #[arg(long, default_value_t = 2025)]
    pub seed: u64,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Budget per radian. Default: "protect 10deg at level 1", epsilon = 1/(10deg in rad) ≈ 5.73.
    #[arg(long)]
    pub epsilon: Option<f64>,
    /// Seed for a reproducible run (not for releases).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Directory for the demo's files (replaced on every run).
    #[arg(long, default_value = "demo-output")]
    pub out: String,
}
