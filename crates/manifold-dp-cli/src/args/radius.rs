//! `manifold-dp radius`.

use super::MechanismArgs;
use clap::Args;

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
