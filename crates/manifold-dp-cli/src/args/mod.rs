//! Command-line interface definition (clap derive). Spellings are a contract with the tools that call it: keep them.
//!
//! One file per command: its clap definitions and the resolution of its flags into library types. What
//! several commands share (the mechanism flags, value parsers) is in `common`; `commands/` runs them.

pub mod audit;
pub mod budget;
pub mod common;
pub mod demo;
pub mod ledger;
pub mod mean;
pub mod privatize;
pub mod radius;
pub mod reproduce;
pub mod sample;
pub mod units;

pub use audit::{AuditArgs, parse_space};
pub use budget::{BudgetCommand, ComposeArgs, ConvertArgs, GuaranteeContext, MAX_RELEASES, NotionArg};
pub use common::MechanismArgs;
pub use demo::DemoArgs;
pub use ledger::{AddArgs, ExportArgs, InitArgs, LedgerArgs, LedgerCommand, LedgerUse, LimitArgs, ShowArgs};
pub use mean::{ConditioningArg, EstimatorArg, MeanArgs, MeanBounds, OutsideArg, SpdMetricArg};
pub use privatize::PrivatizeArgs;
pub use radius::RadiusArgs;
pub use reproduce::{DirectionalMeanArgs, ReproduceArgs, ReproduceCommand, RiemannianMeanArgs};
pub use sample::SampleArgs;

use clap::{Parser, Subcommand};

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

/// `mean` alone, flattened into [`Command`] and parsed by itself by [`parse`].
#[derive(Debug, Subcommand)]
pub enum MeanCommand {
    #[command(verbatim_doc_comment)]
    /// Release the Fréchet mean of a whole file of rotations, unit vectors or SPD (covariance) matrices with
    /// pure epsilon-DP (the central model), by the Riemannian Laplace mechanism (or mu-GDP by the Riemannian
    /// Gaussian: --mechanism gaussian --mu M, below).
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
    ///
    /// Data spread over the whole space (no ball holds it): --estimator extrinsic averages the embedded rows
    /// (rotation matrices, unit vectors; Δ = 2√2/n on so3, 2/n on spheres), adds l2 K-norm noise and projects
    /// back (nearest rotation; normalisation), with no --center or --radius:
    ///   manifold-dp mean --space so3 --estimator extrinsic --epsilon 1 --input frames.csv
    ///
    /// μ-Gaussian DP instead of pure ε-DP (spheres, latlon, circle, timeofday, so3): --mechanism gaussian
    /// --mu M draws Riemannian Gaussian noise (density ∝ exp(−d²/2σ²)) at the smallest σ whose certified μ is at
    /// most M (docs/proofs/riemannian_gaussian.md). μ = 1 means telling two neighbouring data sets apart is as
    /// hard as telling N(0, 1) from N(1, 1); k releases at μ_i compose to √(Σ μ_i²); --epsilon E --delta D
    /// instead of --mu gives the largest μ that is (E, D)-DP (the exact GDP curve). On S² at n = 10, r = π/8
    /// and μ = 1 its error is about half that of the Laplace at the same privacy (docs/riemannian_gaussian.md):
    ///   manifold-dp mean --space latlon --center 48.86,2.34 --radius 200km --mechanism gaussian --mu 1 \
    ///       --input examples/checkins.csv
    ///   manifold-dp mean --space so3 --center identity --radius 30deg --mechanism gaussian --epsilon 1 \
    ///       --delta 1e-6 --input poses.csv --json
    ///
    /// SPD(K), K ≤ 8, under --metric log-euclidean: both means work in the flat log domain (isometric
    /// coordinates of log X), Δ = 2r/n: the Laplace with l2 K-norm noise (pure ε-DP), the Gaussian with exact
    /// per-coordinate Gaussian cells (μ-GDP, no rounding cost; docs/proofs/spd_log_euclidean_mean.md):
    ///   manifold-dp mean --space spd:4 --metric log-euclidean --center identity --radius 1.5 \
    ///       --mechanism gaussian --mu 1 --input covs.csv
    Mean(MeanArgs),
}

/// The command line with only `mean` defined, for [`parse`].
#[derive(Debug, Parser)]
#[command(name = "manifold-dp", version, propagate_version = true)]
struct MeanOnly {
    #[command(subcommand)]
    command: MeanCommand,
}

/// Parses the command line (exits with clap's message and code on an error, or after --help/--version).
/// `manifold-dp mean …` is parsed by a command that defines `mean` alone: building every subcommand's
/// arguments takes about 0.25 ms, a tenth of a `mean` over a small file. Its help, errors and version are
/// those of the full command (one definition, [`MeanCommand`]; tested).
pub fn parse() -> Cli {
    if std::env::args_os().nth(1).is_some_and(|a| a == "mean") {
        return Cli { command: Command::Mean(MeanOnly::parse().command) };
    }
    Cli::parse()
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
    #[command(flatten)]
    Mean(MeanCommand),
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
    Audit(AuditArgs),
    /// Reproduce a paper's figures with exact samplers beside the paper's own (CSV + SVG into --out).
    #[command(subcommand)]
    Reproduce(ReproduceCommand),
    /// Privatize the bundled wrist-IMU example (3000 orientations) and show what it costs in accuracy.
    Demo(DemoArgs),
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn mean_of(mut top: clap::Command) -> clap::Command {
        top.build();
        top.find_subcommand("mean").expect("a mean subcommand").clone()
    }

    /// The fast path for `mean` shows the same help, usage and version, and fails the same way.
    #[test]
    fn mean_alone_is_the_full_commands_mean() {
        let (mut alone, mut full) = (mean_of(MeanOnly::command()), mean_of(Cli::command()));
        assert_eq!(alone.render_long_help().to_string(), full.render_long_help().to_string());
        assert_eq!(alone.render_help().to_string(), full.render_help().to_string());
        assert_eq!(alone.render_usage().to_string(), full.render_usage().to_string());
        assert_eq!(alone.render_long_version(), full.render_long_version());
        for argv in [
            &["manifold-dp", "mean"][..],
            &["manifold-dp", "mean", "--bogus"],
            &["manifold-dp", "mean", "--space", "so3", "--epsilon", "x", "--input", "a.csv"],
            &["manifold-dp", "mean", "--help"],
            &["manifold-dp", "mean", "--version"],
        ] {
            let (a, b) = (MeanOnly::try_parse_from(argv).unwrap_err(), Cli::try_parse_from(argv).unwrap_err());
            assert_eq!((a.kind(), a.to_string()), (b.kind(), b.to_string()), "{argv:?}");
        }
        let argv = ["manifold-dp", "mean", "--space", "so3", "--center", "identity", "--radius", "1", "--epsilon"];
        let argv: Vec<&str> = argv.into_iter().chain(["1", "--input", "a.csv"]).collect();
        let alone = format!("{:?}", MeanOnly::try_parse_from(&argv).unwrap().command);
        let Command::Mean(full) = Cli::try_parse_from(&argv).unwrap().command else { panic!("not mean") };
        assert_eq!(alone, format!("{full:?}"));
    }
}
