//! Regenerates the tables of `docs/audit.md`: ε̂/ε for every mechanism of the library, the verdict on every
//! negative control, and the smallest miscalibration the auditor detects.
//!
//! ```text
//! cargo run --release -p manifold-dp --example audit_table -- table    [--samples N] [--seed S] [--filter TEXT]
//! cargo run --release -p manifold-dp --example audit_table -- controls [--samples N] [--seed S]
//! cargo run --release -p manifold-dp --example audit_table -- miscalibration [--samples N] [--seed S]
//! ```
//!
//! `table` (default 10⁷ draws per input) prints one Markdown row per mechanism; `controls` (default 10⁵)
//! one row per negative control; `miscalibration` (default 10⁶) searches, for Laplace and Bingham on SO(3) and
//! VMF and Purkayastha on S², the smallest factor c > 1 such that the mechanism claimed at ε but sampled at
//! c·ε is flagged, and the smallest tail mass whose truncation is flagged. Every run is seeded (default
//! seed 2026), so the tables are reproducible.

use manifold_dp::audit::catalog::{self, AuditRequest, AuditSpace};
use manifold_dp::audit::{AuditConfig, AuditReport, AuditTarget, Auditable, Verdict};
use manifold_dp::sample::rng::StreamKey;
use std::time::Instant;

struct Options {
    mode: String,
    samples: Option<u64>,
    seed: u64,
    filter: Option<String>,
    llr_resolution: Option<f64>,
}

fn options() -> Options {
    let mut o = Options { mode: "table".into(), samples: None, seed: 2026, filter: None, llr_resolution: None };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--samples" => {
                o.samples = Some(args.next().and_then(|v| v.parse::<f64>().ok()).expect("--samples N") as u64)
            }
            "--seed" => o.seed = args.next().and_then(|v| v.parse().ok()).expect("--seed S"),
            "--filter" => o.filter = args.next(),
            "--llr-resolution" => o.llr_resolution = args.next().and_then(|v| v.parse().ok()),
            m => o.mode = m.to_string(),
        }
    }
    o
}

fn request(space: AuditSpace, mechanism: &str, epsilon: f64) -> AuditRequest {
    AuditRequest::new(space, mechanism, Some(epsilon))
}

fn run(target: &dyn Auditable, samples: u64, o: &Options) -> (AuditReport, f64) {
    let seed = o.seed;
    let mut config = AuditConfig::with_samples(samples, 1e-6);
    if let Some(r) = o.llr_resolution {
        config.llr_resolution = r;
    }
    let start = Instant::now();
    let report = target.run(&config, &StreamKey::from_seed_for_experiments(seed), &|_| {}).expect("audit runs");
    (report, start.elapsed().as_secs_f64())
}

fn fmt_opt(x: Option<f64>) -> String {
    x.map_or("–".into(), |v| format!("{v:.3}"))
}

fn gof(r: &AuditReport) -> String {
    r.gof.as_ref().map_or("–".into(), |g| {
        format!("{} D = {:.2e} ({})", if g.passed { "pass" } else { "FAIL" }, g.statistic, g.critical.min(1.0))
    })
}

fn table(o: &Options) {
    let samples = o.samples.unwrap_or(10_000_000);
    let rows: Vec<(AuditSpace, &str, f64)> = vec![
        (AuditSpace::So3, "laplace", 1.0),
        (AuditSpace::So3, "laplace", 8.0),
        (AuditSpace::So3, "bingham", 1.0),
        (AuditSpace::So3, "bingham", 8.0),
        (AuditSpace::So3, "riemannian-laplace", 1.0),
        (AuditSpace::Sphere { dim: 3 }, "vmf", 1.0),
        (AuditSpace::Sphere { dim: 3 }, "purkayastha", 1.0),
        (AuditSpace::Sphere { dim: 3 }, "riemannian-laplace", 1.0),
        (AuditSpace::Sphere { dim: 3 }, "planar-laplace", 1.0),
        (AuditSpace::Sphere { dim: 3 }, "uniform", 1.0),
        (AuditSpace::Sphere { dim: 2 }, "wrapped-laplace", 1.0),
        (AuditSpace::Sphere { dim: 2 }, "vmf", 1.0),
        (AuditSpace::Sphere { dim: 2 }, "purkayastha", 1.0),
        (AuditSpace::Sphere { dim: 10 }, "vmf", 1.0),
        (AuditSpace::Sphere { dim: 10 }, "purkayastha", 1.0),
        (AuditSpace::Spd { k: 2 }, "riemannian-laplace", 1.0),
        (AuditSpace::Spd { k: 2 }, "log-euclidean-laplace", 1.0),
        (AuditSpace::Spd { k: 2 }, "riemannian-laplace", 4.0),
        (AuditSpace::Real, "laplace", 1.0),
    ];
    println!(
        "| space | mechanism | ε | draws/input | verdict | ε̂ (lower bound) | ε̂/ε | point estimate | strongest pair (d) | GOF (KS) | time |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (space, name, eps) in rows {
        let label = format!("{name} on {space}");
        if o.filter.as_ref().is_some_and(|f| !label.contains(f.as_str())) {
            continue;
        }
        // SPD draws cost an eigendecomposition each: a tenth of the budget.
        let n = if matches!(space, AuditSpace::Spd { .. }) { samples / 10 } else { samples };
        let target = catalog::build(&request(space, name, eps)).expect("valid request");
        let (r, secs) = run(target.as_ref(), n, o);
        println!(
            "| {space} | {name} | {eps} | {n:.0e} | {} | {:.4} | {} | {} | {} ({:.3}) | {} | {secs:.0} s |",
            r.verdict,
            r.epsilon_lower_bound,
            fmt_opt(r.ratio),
            fmt_opt(r.epsilon_point_estimate),
            r.strongest.pair,
            r.strongest.distance,
            gof(&r),
        );
        for p in &r.per_pair {
            eprintln!(
                "    {:<70} d = {:>8.4}  eps_lb = {:.4}  [{}]",
                p.pair, p.distance, p.epsilon_lower_bound, p.event
            );
        }
    }
}

fn controls(o: &Options) {
    let samples = o.samples.unwrap_or(100_000);
    let rows: Vec<(AuditSpace, &str, f64)> = vec![
        (AuditSpace::So3, "control:bingham-4eps", 1.0),
        (AuditSpace::So3, "control:laplace-no-sin2", 1.0),
        (AuditSpace::So3, "control:truncated-tail", 1.0),
        (AuditSpace::So3, "control:paper-naive", 1.0),
        (AuditSpace::Sphere { dim: 3 }, "control:vmf-2eps", 1.0),
        (AuditSpace::So3, "control:bingham-4eps", 8.0),
        (AuditSpace::So3, "control:laplace-no-sin2", 8.0),
        (AuditSpace::So3, "control:truncated-tail", 8.0),
        (AuditSpace::So3, "control:paper-naive", 8.0),
        (AuditSpace::Sphere { dim: 3 }, "control:vmf-2eps", 8.0),
        (AuditSpace::So3, "control:bingham-4eps", 32.0),
        (AuditSpace::So3, "control:laplace-no-sin2", 32.0),
        (AuditSpace::So3, "control:truncated-tail", 32.0),
        (AuditSpace::Sphere { dim: 3 }, "control:vmf-2eps", 32.0),
        (AuditSpace::Sphere { dim: 2 }, "control:vmf-2eps", 1.0),
        (AuditSpace::Sphere { dim: 10 }, "control:vmf-2eps", 1.0),
    ];
    println!(
        "| control | ε claimed | draws/input | verdict | ε̂ (lower bound) | ε̂/ε | strongest pair | GOF (KS) | time |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (space, name, eps) in rows {
        let label = format!("{name} on {space} {eps}");
        if o.filter.as_ref().is_some_and(|f| !label.contains(f.as_str())) {
            continue;
        }
        let target = catalog::build(&request(space, name, eps)).expect("valid request");
        let (r, secs) = run(target.as_ref(), samples, o);
        println!(
            "| {name} on {space} | {eps} | {samples:.0e} | {} | {:.3} | {} | {} | {} | {secs:.1} s |",
            r.verdict,
            r.epsilon_lower_bound,
            fmt_opt(r.ratio),
            r.strongest.pair,
            gof(&r)
        );
    }
}

/// (first value flagged at all, with its verdict; first VIOLATION, with ε̂/ε there).
type Found = (Option<(f64, Verdict)>, Option<(f64, f64)>);

/// Walks `grid` (ascending) until an audit is a VIOLATION: (first value flagged at all, with its verdict;
/// first value that is a VIOLATION, with ε̂/ε there).
fn smallest_flagged(grid: &[f64], mut audit: impl FnMut(f64) -> AuditReport) -> Found {
    let mut first = None;
    for &c in grid {
        let r = audit(c);
        eprintln!(
            "    {c}: {} eps_lb/eps = {} gof {:?}",
            r.verdict,
            fmt_opt(r.ratio),
            r.gof.as_ref().map(|g| g.statistic)
        );
        if r.verdict.flagged() && first.is_none() {
            first = Some((c, r.verdict));
        }
        if r.verdict == Verdict::Violation {
            return (first, Some((c, r.ratio.unwrap_or(f64::NAN))));
        }
    }
    (first, None)
}

fn miscalibration(o: &Options) {
    let samples = o.samples.unwrap_or(1_000_000);
    let grid: Vec<f64> = vec![1.005, 1.01, 1.02, 1.03, 1.05, 1.07, 1.1, 1.15, 1.2, 1.3, 1.5, 2.0, 3.0];
    println!(
        "| mechanism | ε claimed | draws/input | smallest c flagged at all (verdict) | smallest c flagged by the privacy tests (VIOLATION) | ε̂/ε there |"
    );
    println!("|---|---|---|---|---|---|");
    for (space, name, eps) in [
        (AuditSpace::So3, "laplace", 1.0),
        (AuditSpace::So3, "laplace", 8.0),
        (AuditSpace::So3, "bingham", 1.0),
        (AuditSpace::So3, "bingham", 8.0),
        (AuditSpace::Sphere { dim: 3 }, "vmf", 1.0),
        (AuditSpace::Sphere { dim: 3 }, "vmf", 8.0),
        (AuditSpace::Sphere { dim: 3 }, "purkayastha", 1.0),
    ] {
        let label = format!("{name} on {space}");
        if o.filter.as_ref().is_some_and(|f| !label.contains(f.as_str())) {
            continue;
        }
        eprintln!("{label} at eps = {eps}");
        let (first, violation) = smallest_flagged(&grid, |c| {
            let t = catalog::build(&request(space, &format!("control:{name}-x{c}"), eps)).expect("valid");
            run(t.as_ref(), samples, o).0
        });
        let first = first.map_or("> 3".to_string(), |(c, v)| format!("{c} ({v})"));
        let (c, ratio) =
            violation.map_or(("> 3".to_string(), "–".to_string()), |(c, r)| (format!("{c}"), format!("{r:.3}")));
        println!("| {label} | {eps} | {samples:.0e} | {first} | {c} | {ratio} |");
    }
    // Truncated tails: the smallest dropped mass that is flagged (privacy tests only: no GOF reference here).
    if o.filter.as_ref().is_some_and(|f| !"truncated".contains(f.as_str())) {
        return;
    }
    let masses = [1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1];
    println!();
    println!("| mechanism | ε claimed | draws/input | smallest tail mass m whose removal the privacy tests flag |");
    println!("|---|---|---|---|");
    for eps in [1.0, 8.0] {
        eprintln!("truncated tail at eps = {eps}");
        let (_, found) = smallest_flagged(&masses, |m| {
            let mech = manifold_dp::audit::controls::TruncatedTail::new(eps, m).expect("valid");
            let t = AuditTarget {
                pairs: manifold_dp::audit::pairs::so3_pairs(eps, &manifold_dp::space::so3_metric::geodesic),
                mechanism: mech,
                label: format!("truncated tail {m}"),
                epsilon: eps,
                claim: String::new(),
                reference: None,
            };
            run(&t, samples, o).0
        });
        println!(
            "| laplace on so3, angle law cut at its 1 − m quantile | {eps} | {samples:.0e} | {} |",
            found.map_or("> 0.1".into(), |(m, _)| format!("m = {m}"))
        );
    }
}

fn main() {
    let o = options();
    match o.mode.as_str() {
        "table" => table(&o),
        "controls" => controls(&o),
        "miscalibration" => miscalibration(&o),
        m => panic!("unknown mode {m:?}: table, controls or miscalibration"),
    }
}
