//! `manifold-dp audit`.

use super::common::parse_threads;
use crate::BadInput;
use clap::Args;
use manifold_dp::audit::auditor::{DEFAULT_LLR_RESOLUTION, MAX_AUDIT_SAMPLES};
use manifold_dp::audit::catalog::AuditSpace;

use manifold_dp::audit::catalog::DEFAULT_AUDIT_ALPHA as DEFAULT_ALPHA;

/// `manifold-dp audit` arguments.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// The space: so3, circle (or timeofday), latlon (= sphere:3), sphere:N, spd:K, real.
    #[arg(long)]
    pub space: String,
    /// The mechanism: on so3 laplace, bingham, riemannian-laplace; on circle and sphere:N vmf, purkayastha,
    /// wrapped-laplace (circle only), planar-laplace, uniform, riemannian-laplace; on spd:K riemannian-laplace,
    /// log-euclidean-laplace, log-euclidean-gaussian-mean (K ≤ 8, an (epsilon, delta) claim); on real laplace,
    /// and gaussian, generalized-gaussian ((epsilon, delta) claims, see --delta). Negative controls (broken
    /// samplers that must be flagged): control:gaussian-mean-half-sigma (spheres and spd:K: the Gaussian mean
    /// claimed, sampled with sigma/2),
    /// control:bingham-4eps, control:laplace-no-sin2, control:truncated-tail, control:paper-naive (so3),
    /// control:vmf-2eps (spheres), and control:NAME-xC for laplace, bingham, vmf, purkayastha claimed at
    /// epsilon but sampled at C·epsilon, control:gaussian-half-sigma (real: the analytic Gaussian claimed,
    /// sampled with sigma/2), and control:unsnapped (so3: laplace, spheres: purkayastha, real: laplace,
    /// released from the raw floating-point pipeline without rounding; --llr-resolution 0 flags it on every
    /// space).
    #[arg(long)]
    pub mechanism: String,
    /// The claimed epsilon per radian of the space's distance (per unit on spd:K and real). The mechanism is
    /// built for this budget; with --concentration it is the epsilon claimed for Bingham(κ) (default κ/2).
    #[arg(long, allow_hyphen_values = true)]
    pub epsilon: Option<f64>,
    /// The claim as a protection distance instead of --epsilon, as privatize takes it: inputs this far apart
    /// (10deg, 1h on timeofday, 2km on latlon) are indistinguishable at privacy level --level, i.e.
    /// epsilon = level / distance.
    #[arg(long, conflicts_with = "epsilon", requires = "level", allow_hyphen_values = true)]
    pub protect: Option<String>,
    /// Privacy level for --protect: outputs change in probability by at most a factor exp(level) between
    /// inputs --protect apart (a privacy level, not a probability).
    #[arg(long, requires = "protect", allow_hyphen_values = true)]
    pub level: Option<f64>,
    /// Bingham only: audit Bingham with this concentration κ, against --epsilon (default: its tight κ/2).
    #[arg(long, allow_hyphen_values = true)]
    pub concentration: Option<f64>,
    /// The delta of an (epsilon, delta) claim: gaussian, generalized-gaussian and control:gaussian-half-sigma
    /// on real, the Gaussian means (riemannian-gaussian-mean on spheres, log-euclidean-gaussian-mean on
    /// spd:K) and their control:gaussian-mean-half-sigma (default 0.01: an audit with n draws per input can
    /// refute only delta of order 1/n or
    /// more). The Gaussian is calibrated analytically to (epsilon, delta), the generalized Gaussian to the
    /// largest scale whose exact (epsilon', delta) has epsilon' <= epsilon.
    #[arg(long, allow_hyphen_values = true)]
    pub delta: Option<f64>,
    /// generalized-gaussian only: the degree N of the noise ∝ exp(−(|x|/s)^N), 1 to 256 (default 3).
    #[arg(long)]
    pub order: Option<u32>,
    /// Draws per input of every pair (accepts 2e5), 1000 to 1e9. Default 200000 (20000 on spd:K).
    #[arg(long, value_parser = parse_count)]
    pub samples: Option<u64>,
    /// Bound on the probability of flagging a mechanism that meets its claim (split evenly between the
    /// privacy tests and the goodness-of-fit check).
    #[arg(long, default_value_t = DEFAULT_ALPHA, allow_hyphen_values = true)]
    pub alpha: f64,
    /// Seed for a reproducible audit (without it, the generator is seeded by the operating system).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads, 1 to 256 (default: all cores). The result does not depend on it.
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Resolution of the likelihood-ratio events relative to epsilon·d. 0 is the raw-bit mode, which audits
    /// how the implementation rounds: raw floating-point likelihood ratios, a pair of inputs one ulp apart,
    /// and reachability events (is a release, to the bit, what the pipeline gives from an input?); see
    /// docs/audit.md, "Floating point".
    #[arg(long, default_value_t = DEFAULT_LLR_RESOLUTION)]
    pub llr_resolution: f64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A count such as 200000, 2e5 or 1_000_000.
pub fn parse_count(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim().replace('_', "");
    let n = match t.parse::<u64>() {
        Ok(n) => n,
        Err(_) => match t.parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x <= 1e15 => x as u64,
            _ => return Err(format!("{s:?} is not a whole number of draws (e.g. 200000 or 2e5)")),
        },
    };
    if n > MAX_AUDIT_SAMPLES {
        return Err(format!("{s:?}: at most 1e9 draws per input"));
    }
    Ok(n)
}

/// The space, by the library's registry (and `real`).
pub fn parse_space(s: &str) -> Result<AuditSpace, BadInput> {
    s.parse().map_err(|e: manifold_dp::registry::UnknownName| BadInput(e.to_string()))
}
