//! `manifold-dp audit`: an empirical lower bound on the privacy a mechanism really loses, against the ε it
//! claims, with a stated confidence (the method and what a pass means: `docs/audit.md`). The computation is
//! the library's [`manifold_dp::audit`]; this file parses arguments, shows progress and prints the summary.
//!
//! Exit codes: 0 no violation found; 3 VIOLATION (the privacy claim is refuted with confidence 1 − α) or LAW
//! MISMATCH (the sampler does not follow the claimed mechanism's exact law); 2 bad arguments.

use crate::args::common::Flags;
use crate::args::{AuditArgs, parse_space};
use crate::render::progress::Progress;
use anyhow::{Context, Result};
use manifold_dp::audit::catalog::{AuditRequest, AuditSpace};
use manifold_dp::audit::{AuditReport, TestOutcome, Verdict};
use manifold_dp::privacy::Guarantee;
use manifold_dp::privacy::guarantee::{short, short_down, short_up};
use manifold_dp::sample::rng::StreamKey;
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

/// Exit code of a flagged audit.
pub const EXIT_FLAGGED: u8 = 3;

/// Runs the audit and returns the exit code (0 or 3); errors are bad arguments or internal failures.
pub fn run(args: AuditArgs) -> Result<ExitCode> {
    let space = parse_space(&args.space)?;
    let request = AuditRequest {
        concentration: args.concentration,
        delta: args.delta,
        order: args.order,
        protect: args.protect.clone(),
        level: args.level,
        samples: args.samples,
        alpha: args.alpha,
        llr_resolution: args.llr_resolution,
        ..AuditRequest::named(&args.space, args.mechanism.trim(), args.epsilon)?
    };
    let (target, config) = request.plan(&Flags)?;
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
