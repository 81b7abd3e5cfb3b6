//! `manifold-dp sample`.

use super::MechanismArgs;
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
