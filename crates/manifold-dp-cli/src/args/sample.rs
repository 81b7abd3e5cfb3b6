//! `manifold-dp sample`.

use super::MechanismArgs;
use super::common::parse_threads;
use clap::Args;

#[derive(Debug, Args)]
pub struct SampleArgs {
    #[command(flatten)]
    pub mechanism: MechanismArgs,
    /// Number of releases to draw.
    #[arg(short = 'n', long = "count")]
    pub n: u64,
    /// The point to privatize: w,x,y,z (scalar first) on so3 (default: the identity); an angle (30deg,
    /// 0.5rad) on circle; a time (13:30 or 13.5) on timeofday; lat,lon in degrees on latlon; x1,…,xN on
    /// sphere:N (default: the first axis, 0, 00:00, or 0,0). With -n N > 1 the N releases of the point compose:
    /// the summary states their joint guarantee, N times each one's ε (√N·μ for GDP).
    #[arg(long, allow_hyphen_values = true)]
    pub center: Option<String>,
    /// Seed for a reproducible experiment. NOT FOR RELEASES: whoever knows the seed can remove the noise.
    /// Without it, the key of the release is drawn from the operating system. Release i (from 0) draws its
    /// noise from row stream i of the key, as `privatize` does for row i of a file.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Output CSV file, or - for standard output.
    #[arg(long, default_value = "-")]
    pub output: String,
    /// Overwrite an existing output file.
    #[arg(long)]
    pub force: bool,
    /// Worker threads, 1 to 256 (default: all cores). The output does not depend on it.
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
}
