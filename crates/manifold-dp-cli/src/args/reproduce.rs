//! `manifold-dp reproduce …`.

use clap::{Args, Subcommand};

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
