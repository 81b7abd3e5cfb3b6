//! `manifold-dp audit`: an empirical lower bound on the privacy a mechanism really loses, against the ε it
//! claims, with a stated confidence (the method and what a pass means: `docs/audit.md`). The computation is
//! the library's [`manifold_dp::audit`]; this file parses arguments, shows progress and prints the summary.
//!
//! Exit codes: 0 no violation found; 3 VIOLATION (the privacy claim is refuted with confidence 1 − α) or LAW
//! MISMATCH (the sampler does not follow the claimed mechanism's exact law); 2 bad arguments.

use crate::BadInput;
use crate::render::progress::Progress;
use anyhow::{Context, Result};
use clap::Args;
use manifold_dp::audit::auditor::{DEFAULT_LLR_RESOLUTION, MAX_AUDIT_SAMPLES, MIN_AUDIT_ALPHA};
use manifold_dp::audit::catalog::{self, AuditRequest, AuditSpace};
use manifold_dp::audit::{AuditConfig, AuditReport, TestOutcome, Verdict};
use manifold_dp::privacy::Guarantee;
use manifold_dp::privacy::guarantee::{short, short_down, short_up};
use manifold_dp::sample::rng::StreamKey;
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

/// Default draws per input: every negative control is flagged at ε = 1 and ε = 8 with margin, and an audit on
/// SO(3) or a sphere takes a few seconds on two cores.
pub const DEFAULT_SAMPLES: u64 = 200_000;

/// Default draws per input on spd:K, where each draw costs several eigendecompositions.
pub const DEFAULT_SPD_SAMPLES: u64 = 20_000;

/// Default bound on the probability of flagging a mechanism that meets its claim.
pub const DEFAULT_ALPHA: f64 = 1e-6;

/// Exit code of a flagged audit.
pub const EXIT_FLAGGED: u8 = 3;

/// `manifold-dp audit` arguments.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// The space: so3, circle (or timeofday), latlon (= sphere:3), sphere:N, spd:K, real.
    #[arg(long)]
    pub space: String,
    /// The mechanism: on so3 laplace, bingham, riemannian-laplace; on circle and sphere:N vmf, purkayastha,
    /// wrapped-laplace (circle only), planar-laplace, uniform, riemannian-laplace; on spd:K riemannian-laplace,
    /// log-euclidean-laplace; on real laplace, and gaussian, generalized-gaussian ((epsilon, delta) claims, see
    /// --delta). Negative controls (broken samplers that must be flagged):
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
    /// on real only (default 0.01: an audit with n draws per input can refute only delta of order 1/n or
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
    #[arg(long, value_parser = crate::args::parse_threads)]
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
pub(crate) fn parse_count(s: &str) -> std::result::Result<u64, String> {
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
pub(crate) fn parse_space(s: &str) -> Result<AuditSpace, BadInput> {
    s.parse().map_err(|e: manifold_dp::registry::UnknownName| BadInput(e.to_string()))
}

/// Runs the audit and returns the exit code (0 or 3); errors are bad arguments or internal failures.
pub fn run(args: AuditArgs) -> Result<ExitCode> {
    let space = parse_space(&args.space)?;
    if !(args.alpha >= MIN_AUDIT_ALPHA && args.alpha < 1.0) {
        return Err(BadInput(format!(
            "--alpha {} must lie in [1e-100, 1) (a smaller false-alarm bound cannot be split over the tests)",
            short(args.alpha)
        ))
        .into());
    }
    let samples = args.samples.unwrap_or(match space {
        AuditSpace::Spd { .. } => DEFAULT_SPD_SAMPLES,
        _ => DEFAULT_SAMPLES,
    });
    if samples < 1000 {
        return Err(BadInput(format!("--samples {samples} is too small: use at least 1000 draws per input")).into());
    }
    if !(args.llr_resolution >= 0.0 && args.llr_resolution < 1.0) {
        return Err(BadInput(format!("--llr-resolution {} must lie in [0, 1)", args.llr_resolution)).into());
    }
    let epsilon = match (&args.protect, args.level) {
        (Some(distance), Some(level)) => {
            let registry: manifold_dp::registry::Space = args.space.parse().map_err(BadInput::from)?;
            let radius = registry.parse_distance(distance).map_err(BadInput::from)?;
            manifold_dp::registry::Budget::Protect { radius, level }
                .epsilon()
                .map_err(|e| BadInput(format!("--protect {distance} --level {level}: {e}")))?
        }
        _ => args.epsilon,
    };
    let request = AuditRequest {
        concentration: args.concentration,
        delta: args.delta,
        order: args.order,
        ..AuditRequest::new(space, args.mechanism.trim(), epsilon)
    };
    if epsilon.is_none() && args.concentration.is_none() && request.mechanism != "uniform" {
        return Err(BadInput("give the claimed --epsilon (or --concentration K for bingham)".into()).into());
    }
    let target = catalog::build(&request)?;
    let mut config = AuditConfig::with_samples(samples, args.alpha);
    config.llr_resolution = args.llr_resolution;
    let key = match args.seed {
        Some(seed) => StreamKey::from_seed_for_experiments(seed),
        None => StreamKey::from_os()?,
    };

    let total = target.total_draws(&config);
    let progress = Progress::new(Some((total, "draws")));
    let done = AtomicU64::new(0);
    let tick = |n: u64| progress.set(done.fetch_add(n, Ordering::Relaxed) + n);
    let run = || target.run(&config, &key, &tick);
    let report = match args.threads {
        Some(t) => rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .context("could not start the worker threads")?
            .install(run)?,
        None => run()?,
    };
    progress.finish();

    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", to_json(&report, space))?;
    } else {
        write_summary(&mut out, &report)?;
    }
    out.flush()?;
    Ok(if report.verdict.flagged() { ExitCode::from(EXIT_FLAGGED) } else { ExitCode::SUCCESS })
}

fn to_json(r: &AuditReport, space: AuditSpace) -> serde_json::Value {
    let mut obj = serde_json::to_value(r).unwrap_or_else(|_| json!({}));
    obj["space"] = json!(space.to_string());
    obj["flagged"] = json!(r.verdict.flagged());
    obj["verdict_text"] = json!(r.verdict.to_string());
    obj["pair"] = json!(r.strongest.pair);
    obj["pair_distance"] = json!(r.strongest.distance);
    obj["event"] = json!(r.strongest.event);
    obj["epsilon_lower_bound_ratio"] = json!(r.ratio);
    obj
}

fn hits(t: &TestOutcome, n: u64) -> String {
    let (a, b) = if t.event_detail.forward { ("x", "x'") } else { ("x'", "x") };
    format!("{} of {n} draws from {a}, {} of {n} from {b}", t.hits_a, t.hits_b)
}

fn write_summary(out: &mut impl Write, r: &AuditReport) -> std::io::Result<()> {
    let n = r.samples;
    writeln!(out, "manifold-dp audit: {}", r.mechanism)?;
    writeln!(out, "claim        {}", r.claim)?;
    writeln!(
        out,
        "budget       {n} draws per input (+{} pilot) x 2 inputs x {} pairs; {} tests; alpha = {:e}",
        r.pilot_samples, r.pairs_tested, r.tests, r.alpha
    )?;
    let verdict = match r.verdict {
        Verdict::NoViolationFound => "no violation found (evidence, not proof: see docs/audit.md)".to_string(),
        Verdict::Violation => format!("VIOLATION: the claim is false with confidence 1 - {:e}", r.alpha_privacy),
        Verdict::LawMismatch => format!(
            "LAW MISMATCH: the releases do not follow the claimed mechanism's law (confidence 1 - {:e})",
            r.alpha - r.alpha_privacy
        ),
    };
    writeln!(out, "verdict      {verdict}")?;
    let ratio = r.ratio.map_or(String::new(), |q| format!(" = {} x claim", short_down(q)));
    let unit = match r.guarantee {
        Guarantee::MetricDp { unit, .. } => unit,
        _ => "unit",
    };
    let claim_delta = if r.delta > 0.0 { format!(" at delta = {:e}", r.delta) } else { String::new() };
    writeln!(
        out,
        "epsilon      >= {} per {unit} with confidence 1 - {:e}{ratio}  (claim {}{claim_delta})",
        short_down(r.epsilon_lower_bound),
        r.alpha_privacy,
        short_up(r.epsilon)
    )?;
    let point = r.epsilon_point_estimate.map_or("n/a (a count is 0)".to_string(), short);
    let contrast = if r.delta > 0.0 { "(k_a/n - delta)/(k_b/n)" } else { "k_a/k_b" };
    writeln!(out, "point est.   {point} ({contrast} of the strongest test)")?;
    let s = &r.strongest;
    writeln!(out, "strongest    {} (d = {})", s.pair, short(s.distance))?;
    writeln!(out, "             {}; {}", s.event, hits(s, n))?;
    if let Some(v) = &r.violating {
        writeln!(out, "violation    {} (d = {})", v.pair, short(v.distance))?;
        let bound = if r.delta > 0.0 { "ln((P_a lower - delta)/P_b upper)" } else { "ln-ratio bound" };
        writeln!(
            out,
            "             {}; {}; {bound} {} > epsilon*d = {}",
            v.event,
            hits(v, n),
            short(v.log_ratio_lower_bound),
            short(r.epsilon * v.distance)
        )?;
    }
    match &r.gof {
        Some(g) => writeln!(
            out,
            "GOF          {}: KS D = {:.2e} {} {:.2e} (DKW, alpha {:e}, {} draws): {}",
            g.quantity,
            g.statistic,
            if g.passed { "<=" } else { ">" },
            g.critical,
            g.alpha,
            g.samples,
            if g.passed { "consistent with the exact law" } else { "NOT the claimed law" }
        )?,
        None => writeln!(out, "GOF          (no exact law to compare with)")?,
    }
    writeln!(out, "per pair     {:>10}  {:>10}  pair", "d", "eps >=")?;
    for p in &r.per_pair {
        let flag = if p.violation { "  <- VIOLATION" } else { "" };
        writeln!(
            out,
            "             {:>10}  {:>10}  {}{flag}",
            short(p.distance),
            short_down(p.epsilon_lower_bound),
            p.pair
        )?;
    }
    Ok(())
}
