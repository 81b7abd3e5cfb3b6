//! Command-line interface definition (clap derive). Spellings follow DESIGN.md's CLI contract.

use crate::BadInput;
use crate::table::FileFormat;
use clap::{Args, Parser, Subcommand, ValueEnum};
use manifold_dp::mechanism::{So3Kind, So3Mechanism};

/// Differential privacy for rotations (SO(3)), with exact samplers and guarantees you can state.
///
/// Every epsilon is per radian of the geodesic rotation angle: a mechanism is epsilon-private when
/// the probability of any output changes by at most a factor exp(epsilon * angle) between two inputs that
/// are `angle` radians apart. "Protect 10deg at level 1" means epsilon = 1 / (10deg in rad) = 5.73.
#[derive(Debug, Parser)]
#[command(name = "manifold-dp", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Draw private releases of one rotation (noise around --center) as CSV w,x,y,z.
    ///
    /// Example: manifold-dp sample --space so3 --mechanism laplace --epsilon 8 -n 5 --seed 1
    Sample(SampleArgs),
    /// Radius of indistinguishability: the angle within which a fraction --level of releases fall
    /// (given --epsilon), or the epsilon that achieves a given --radius.
    ///
    /// Examples:
    ///   manifold-dp radius --space so3 --mechanism laplace --epsilon 8 --level 0.683
    ///   manifold-dp radius --space so3 --mechanism laplace --radius 10deg --level 0.683 --json
    Radius(RadiusArgs),
    /// Privatize a CSV or Parquet file of rotations; every other column passes through unchanged.
    ///
    /// Reads the rotation columns (by default w,x,y,z for quat-wxyz; see --format and --columns), releases
    /// each row with independent exact noise, and writes the same table with the rotations replaced. The
    /// output appears only when every row succeeded (or was set aside with --skip-invalid).
    ///
    /// Examples:
    ///   manifold-dp privatize --mechanism laplace --protect 10deg --level 1 --input imu.parquet --output private.parquet
    ///   manifold-dp privatize --mechanism laplace --epsilon 5.7 --input poses.csv --output out.csv \
    ///       --format euler:ZYX:deg --columns yaw,pitch,roll --report report.json
    Privatize(PrivatizeArgs),
    /// Reproduce a paper's figures with exact samplers beside the paper's own (CSV + SVG into --out).
    #[command(subcommand)]
    Reproduce(ReproduceCommand),
    /// Privatize the bundled wrist-IMU example (3000 orientations) and show what it costs in accuracy.
    Demo(DemoArgs),
}

/// The space the data live in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Space {
    /// 3-D rotations.
    So3,
}

/// The mechanism.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MechanismArg {
    /// Laplace on SO(3): density ∝ exp(−ε·angle); the most accurate at every epsilon.
    Laplace,
    /// Bingham on SO(3) with the tight concentration κ = 2ε (or --concentration κ).
    Bingham,
}

impl MechanismArg {
    /// The library's name for this mechanism.
    pub fn kind(self) -> So3Kind {
        match self {
            MechanismArg::Laplace => So3Kind::Laplace,
            MechanismArg::Bingham => So3Kind::Bingham,
        }
    }
}

/// Which mechanism and how much noise.
#[derive(Debug, Args)]
pub struct MechanismArgs {
    /// The space of the data.
    #[arg(long, value_enum, default_value_t = Space::So3)]
    pub space: Space,
    /// The mechanism.
    #[arg(long, value_enum)]
    pub mechanism: MechanismArg,
    /// Privacy budget per radian of rotation angle (> 0). Smaller is more private and noisier.
    #[arg(long, allow_hyphen_values = true)]
    pub epsilon: Option<f64>,
    /// Bingham only, for reproducing papers: the concentration κ itself (the SO(3) paper's "epsilon").
    /// The guarantee reported is then κ/2 per radian.
    #[arg(long, conflicts_with = "epsilon", allow_hyphen_values = true)]
    pub concentration: Option<f64>,
}

impl MechanismArgs {
    /// Builds the mechanism; `None` when neither --epsilon nor --concentration was given.
    pub fn build(&self) -> anyhow::Result<Option<So3Mechanism>> {
        match (self.epsilon, self.concentration) {
            (Some(eps), _) => Ok(Some(So3Mechanism::for_epsilon(self.mechanism.kind(), eps)?)),
            (None, Some(kappa)) => {
                if self.mechanism != MechanismArg::Bingham {
                    return Err(BadInput("--concentration applies to --mechanism bingham only".into()).into());
                }
                Ok(Some(So3Mechanism::bingham_with_concentration(kappa)?))
            }
            (None, None) => Ok(None),
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
    /// The rotation to privatize, as w,x,y,z (scalar first). Default: the identity.
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

#[derive(Debug, Args)]
pub struct PrivatizeArgs {
    #[command(flatten)]
    pub mechanism: MechanismArgs,
    /// Budget as a protection radius instead of --epsilon: rotations within this angle (10deg, 0.2rad) are
    /// indistinguishable at privacy level --level, i.e. epsilon = level / radius.
    #[arg(long, conflicts_with_all = ["epsilon", "concentration"], requires = "level", allow_hyphen_values = true)]
    pub protect: Option<String>,
    /// Privacy level ℓ for --protect: outputs change in probability by at most a factor exp(ℓ) between
    /// rotations --protect apart.
    #[arg(long, requires = "protect", allow_hyphen_values = true)]
    pub level: Option<f64>,
    /// Input file (.csv or .parquet; - reads CSV from standard input).
    #[arg(long)]
    pub input: String,
    /// Output file (.csv or .parquet; - writes CSV to standard output).
    #[arg(long)]
    pub output: String,
    /// Input file format, when the extension does not say.
    #[arg(long, value_enum)]
    pub input_format: Option<FileFormat>,
    /// Output file format, when the extension does not say.
    #[arg(long, value_enum)]
    pub output_format: Option<FileFormat>,
    /// How rotations are written: quat-wxyz, quat-xyzw, matrix (r11…r33 row-major), rotvec (radians),
    /// euler:SEQ (degrees; euler:SEQ:rad for radians). SEQ: xyz, zyx, zxz… lowercase extrinsic, uppercase
    /// intrinsic, as in scipy.
    #[arg(long, default_value = "quat-wxyz")]
    pub format: String,
    /// The input's rotation columns, in the order of --format (default: w,x,y,z; x,y,z,w; r11,…,r33;
    /// rx,ry,rz; angle1,angle2,angle3).
    #[arg(long, value_delimiter = ',')]
    pub columns: Option<Vec<String>>,
    /// Write the noisy rotations in another representation (same spellings as --format), under its default
    /// column names.
    #[arg(long)]
    pub output_as: Option<String>,
    /// Set invalid rows aside, unchanged, in this file (.csv or .parquet) instead of stopping at the first.
    #[arg(long, value_name = "REJECTS")]
    pub skip_invalid: Option<String>,
    /// Also write the summary as JSON to this file.
    #[arg(long)]
    pub report: Option<String>,
    /// Overwrite existing output, rejects and report files.
    #[arg(long)]
    pub force: bool,
    /// Seed for a reproducible experiment. NOT FOR RELEASES: whoever knows the seed can remove the noise.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads (default: all cores). The output does not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// No summary on standard error (errors are still reported).
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct RadiusArgs {
    #[command(flatten)]
    pub mechanism: MechanismArgs,
    /// Find the epsilon for which a fraction --level of releases fall within this angle (10deg, 0.2rad).
    #[arg(long, conflicts_with_all = ["epsilon", "concentration"])]
    pub radius: Option<String>,
    /// Probability level p, e.g. 0.683 or 68.3%.
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
