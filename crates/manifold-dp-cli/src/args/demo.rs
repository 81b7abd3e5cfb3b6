//! `manifold-dp demo`.

use clap::Args;

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
