//! `manifold-dp budget ledger --db F.sqlite init|limit|add|show|export`, and `--ledger FILE` on `privatize`
//! and `mean`: a privacy ledger in an SQLite file (crate `manifold-dp-ledger`). This file parses and prints.
//!
//! Exit codes: 0 done; 2 bad input (bad arguments, a missing, foreign, damaged or too new ledger file, a budget
//! below what was spent); 4 a release refused by the ledger (over a budget, or not expressible in a budgeted
//! notion), with nothing recorded; 1 anything else (I/O, a lock held past the 30 s busy timeout).

use crate::BadInput;
use crate::args::{AddArgs, ExportArgs, InitArgs, LedgerArgs, LedgerCommand, LedgerUse, LimitArgs, ShowArgs};
use crate::io::output::Output;
use anyhow::Result;
use manifold_dp::privacy::guarantee::{Rounding, short_rounded};
use manifold_dp::privacy::{Guarantee, RaoFamily};
use manifold_dp_ledger::{Admission, Ledger, LedgerError, NotionSpent, REPORT_DELTA, ReleaseKind, Spent};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

/// Runs `manifold-dp budget ledger …`.
pub fn run(args: &LedgerArgs) -> Result<()> {
    let db = args.db.as_deref().ok_or_else(|| {
        BadInput("give the ledger file: manifold-dp budget ledger --db F.sqlite init|limit|add|show|export".into())
    })?;
    match &args.command {
        LedgerCommand::Init(a) => init(db, a),
        LedgerCommand::Limit(a) => limit(db, a),
        LedgerCommand::Add(a) => add(db, a),
        LedgerCommand::Show(a) => show(db, a),
        LedgerCommand::Export(a) => export(db, a),
    }
}

fn init(db: &str, args: &InitArgs) -> Result<()> {
    let budgets = args.extras.apply(args.budgets.parse()?)?;
    if !budgets.is_empty() && args.dataset.is_none() {
        return Err(BadInput("budgets need a --dataset LABEL to apply to".into()).into());
    }
    if budgets.is_empty() && args.dataset.is_some() {
        return Err(BadInput("--dataset given without a budget (--pure, --zcdp, …)".into()).into());
    }
    let ledger = Ledger::create(db)?;
    let spent = match &args.dataset {
        Some(d) => Some(ledger.set_budgets_in(d, &budgets)?),
        None => None,
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let obj = json!({
            "created": db,
            "schema_version": manifold_dp_ledger::SCHEMA_VERSION,
            "journal_mode": "delete",
            "synchronous": "full",
            "datasets": spent.iter().collect::<Vec<_>>(),
        });
        writeln!(out, "{obj}")?;
        return Ok(());
    }
    writeln!(out, "Created the privacy ledger {db} (SQLite, rollback journal, synchronous=FULL).")?;
    if let Some(spent) = &spent {
        writeln!(out, "Budgets of data set {:?}:", spent.dataset)?;
        for n in spent.notions.iter().filter(|n| n.budget.is_some()) {
            writeln!(out, "  {:<8} {}", n.account, n.budget.map(|b| brief(&b)).unwrap_or_default())?;
        }
    }
    Ok(())
}

fn limit(db: &str, args: &LimitArgs) -> Result<()> {
    let budgets = args.extras.apply(args.budgets.parse()?)?;
    if budgets.is_empty() {
        return Err(BadInput(
            "give at least one budget: --pure E, --approx E,D, --zcdp R, --gdp MU, --rao T, \
                             --metric-dp E, --overall-pure E, --local-approx E,D or --guarantee JSON"
                .into(),
        )
        .into());
    }
    let ledger = Ledger::open(db)?;
    let spent = ledger.set_budgets_in(&args.dataset, &budgets)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let list: Vec<Value> = budgets.iter().map(|(a, b)| json!({ "account": a.key(), "budget": b })).collect();
        writeln!(out, "{}", json!({ "ledger": db, "dataset": args.dataset, "budgets": list, "spent": spent }))?;
        return Ok(());
    }
    let set: Vec<String> = budgets
        .iter()
        .map(|(a, b)| match a {
            manifold_dp_ledger::Account::Overall => format!("overall cap: {b}"),
            manifold_dp_ledger::Account::LocalRdp => format!("local releases in Rényi DP: {b}"),
            _ => b.to_string(),
        })
        .collect();
    writeln!(out, "Budget of data set {:?} set: {}.", args.dataset, set.join("; "))?;
    write_spent(&mut out, &spent)?;
    Ok(())
}

/// The refusal as JSON, for `--json` callers.
fn refusal_json(err: &LedgerError) -> Value {
    match err {
        LedgerError::OverBudget(o) => json!({
            "kind": "over_budget", "notion": o.notion, "total": o.total, "budget": o.budget, "spent": o.spent,
            "message": err.to_string(),
        }),
        LedgerError::Unaccountable { notion, which, reason, .. } => json!({
            "kind": "unaccountable", "notion": notion, "which": which, "reason": reason, "message": err.to_string(),
        }),
        LedgerError::NoBudget { dataset } => json!({
            "kind": "no_budget", "dataset": dataset, "message": err.to_string(),
        }),
        LedgerError::NoBudgetForKind { dataset, kind, .. } => json!({
            "kind": "no_budget_for_kind", "dataset": dataset, "release_kind": kind, "message": err.to_string(),
        }),
        LedgerError::RequestIdUsed { request_id, id, .. } => json!({
            "kind": "request_id_used", "request_id": request_id, "release": id, "message": err.to_string(),
        }),
        other => json!({ "kind": "error", "message": other.to_string() }),
    }
}

fn add(db: &str, args: &AddArgs) -> Result<()> {
    let guarantees = args.guarantees.parse()?;
    if guarantees.is_empty() {
        return Err(BadInput(
            "give the release's guarantees: --pure E, --approx E,D, --zcdp R, --gdp MU, --rao T, \
                             --metric-dp E or --guarantee JSON (all that its mechanism reports)"
                .into(),
        )
        .into());
    }
    let ledger = Ledger::open(db)?;
    let mut out = std::io::stdout().lock();
    // Budgets are never removed, so a data set that has one now still has it when the release is recorded.
    let unbudgeted = !args.allow_unbudgeted && ledger.budgets(Some(&args.dataset))?.is_empty();
    let result = if unbudgeted {
        Err(LedgerError::NoBudget { dataset: args.dataset.clone() })
    } else if args.dry_run {
        ledger.check(&args.dataset, &guarantees).map(|after| (None, after))
    } else {
        ledger
            .record(&args.dataset, &args.mechanism, &guarantees, args.request_id.as_deref())
            .map(|r| (Some((r.release, r.replayed)), r.spent))
    };
    let (recorded, spent) = match result {
        Ok(v) => v,
        Err(err) => {
            if args.json && err.is_refusal() {
                let obj = json!({ "recorded": false, "allowed": false, "dry_run": args.dry_run,
                                  "refusal": refusal_json(&err) });
                writeln!(out, "{obj}")?;
            }
            return Err(explain_refusal(err, db));
        }
    };
    if args.json {
        let mut obj = json!({ "recorded": recorded.is_some(), "allowed": true, "dry_run": args.dry_run });
        if let Some((release, replayed)) = &recorded {
            obj["release"] = json!(release);
            obj["replayed"] = json!(replayed);
        }
        obj[if args.dry_run { "spent_after" } else { "spent" }] = json!(spent);
        writeln!(out, "{obj}")?;
        return Ok(());
    }
    let what: Vec<String> = guarantees.iter().map(|g| g.to_string()).collect();
    match &recorded {
        None => writeln!(
            out,
            "Would be accepted: a release with {} on data set {:?} fits every budget (nothing was recorded).",
            what.join(" and "),
            args.dataset
        )?,
        Some((r, true)) => writeln!(
            out,
            "Already recorded as release #{} at {} (request id {:?}); nothing was added.",
            r.id,
            r.at,
            r.request_id.as_deref().unwrap_or_default()
        )?,
        Some((r, false)) => writeln!(
            out,
            "Recorded release #{} of data set {:?} at {}: {}.",
            r.id,
            r.dataset,
            r.at,
            what.join(" and ")
        )?,
    }
    if args.dry_run {
        writeln!(out, "After it:")?;
    }
    write_spent(&mut out, &spent)?;
    Ok(())
}

fn show(db: &str, args: &ShowArgs) -> Result<()> {
    let candidate = args.candidate.parse()?;
    if !candidate.is_empty() && args.dataset.is_none() {
        return Err(BadInput("a candidate release (--pure, --zcdp, …) needs --dataset LABEL".into()).into());
    }
    let ledger = Ledger::open(db)?;
    let datasets = match &args.dataset {
        Some(d) => vec![d.clone()],
        None => ledger.datasets()?,
    };
    let spent: Vec<Spent> = datasets.iter().map(|d| ledger.spent(d)).collect::<Result<_, _>>()?;
    let check = match (&args.dataset, candidate.is_empty()) {
        (Some(d), false) => Some(match ledger.check(d, &candidate) {
            Ok(after) => Ok(after),
            Err(e) if e.is_refusal() => Err(e),
            Err(e) => return Err(e.into()),
        }),
        _ => None,
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let mut obj = json!({ "ledger": db, "report_delta": REPORT_DELTA, "datasets": spent });
        if let Some(c) = &check {
            obj["check"] = match c {
                Ok(after) => json!({ "guarantees": candidate, "allowed": true, "spent_after": after }),
                Err(e) => json!({ "guarantees": candidate, "allowed": false, "refusal": refusal_json(e) }),
            };
        }
        writeln!(out, "{obj}")?;
        return Ok(());
    }
    if spent.is_empty() {
        writeln!(out, "The ledger {db} has no data sets yet (add budgets with `limit`, releases with `add`).")?;
        return Ok(());
    }
    for (i, s) in spent.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write_spent(&mut out, s)?;
        let answer = match &check {
            Some(Ok(after)) => {
                let what: Vec<String> = candidate.iter().map(|g| g.to_string()).collect();
                let left: Vec<String> = after
                    .notions
                    .iter()
                    .filter_map(|n| Some(format!("{} {} left", n.account, brief_left(&n.remaining?))))
                    .collect();
                let left =
                    if left.is_empty() { String::new() } else { format!(" It would leave {}.", left.join(", ")) };
                format!("Yes: a release with {} fits every budget.{left}", what.join(" and "))
            }
            Some(Err(e)) => format!("No: {e}"),
            None => may_release(s),
        };
        writeln!(out, "May it release once more? {answer}")?;
    }
    Ok(())
}

/// The answer without a candidate: exhausted or uncheckable budgets say no; otherwise what is left.
fn may_release(s: &Spent) -> String {
    let budgeted: Vec<&NotionSpent> = s.notions.iter().filter(|n| n.budget.is_some()).collect();
    if budgeted.is_empty() {
        return "Yes: no budget is set for this data set, so the ledger refuses nothing (set one with `limit`).".into();
    }
    if let Some(n) = budgeted.iter().find(|n| n.total.is_none()) {
        return format!(
            "No: its {} budget cannot be checked ({}).",
            n.account,
            n.not_accountable.as_deref().unwrap_or("no total")
        );
    }
    let spent: Vec<&NotionSpent> =
        budgeted.iter().copied().filter(|n| n.remaining.is_some_and(|r| is_zero(&r))).collect();
    let left: Vec<String> = budgeted
        .iter()
        .filter(|n| !spent.iter().any(|s| s.account == n.account))
        .filter_map(|n| match (n.remaining, n.total, n.budget) {
            (Some(r), _, _) => Some(format!("{} {}", n.account, brief_left(&r))),
            // A Rényi budget states no difference (its room is per order): what is spent, of what.
            (None, Some(t), Some(b)) => Some(format!("{} {} spent of {}", n.account, brief(&t), brief(&b))),
            _ => None,
        })
        .collect();
    if let Some(n) = spent.first() {
        // Budgets hold one kind of release each: a spent central budget leaves local releases their own.
        let kind = |n: &NotionSpent| manifold_dp_ledger::Account::from_key(&n.account).and_then(|a| a.kind());
        let other_kind_left = budgeted
            .iter()
            .any(|o| !spent.iter().any(|s| s.account == o.account) && kind(o).is_some() && kind(o) != kind(n));
        let what = match kind(n) {
            Some(k) if other_kind_left && !spent.iter().any(|s| kind(s) != Some(k)) => format!("{k} releases"),
            _ => return format!("No: its {} budget is spent.", n.account),
        };
        return format!(
            "No {what}: its {} budget is spent. Others within what is left: {}.",
            n.account,
            left.join(", ")
        );
    }
    format!(
        "Yes, within what is left: {}. Ask about a given release with --pure E (or --zcdp, --gdp, …).",
        left.join(", ")
    )
}

fn is_zero(g: &Guarantee) -> bool {
    match *g {
        Guarantee::ApproxDp { epsilon, delta } => epsilon == 0.0 || delta == 0.0,
        Guarantee::Zcdp { rho } => rho == 0.0,
        Guarantee::Gdp { mu, .. } => mu == 0.0,
        Guarantee::RaoDp { theta, .. } => theta == 0.0,
        Guarantee::PureDp { epsilon, .. } | Guarantee::MetricDp { epsilon, .. } => epsilon == 0.0,
    }
}

fn export(db: &str, args: &ExportArgs) -> Result<()> {
    Output::check(&args.output, args.force).map_err(|e| BadInput(format!("--output: {e}")))?;
    crate::io::output::check_distinct(None, &[("--output", &args.output)], Some(db))?;
    let ledger = Ledger::open(db)?;
    let doc = ledger.export()?;
    let mut out = Output::open(&args.output, args.force)?;
    serde_json::to_writer_pretty(&mut out, &doc)?;
    writeln!(out)?;
    let target = out.describe();
    out.finish()?;
    if args.output != "-" {
        eprintln!(
            "Exported {} data sets and {} releases to {target}.",
            doc.datasets.len(),
            doc.datasets.iter().map(|d| d.releases.len()).sum::<usize>()
        );
    }
    Ok(())
}

/// A guarantee's numbers, briefly: `epsilon = 1.2`, `(epsilon = 1.2, delta = 1e-6)`, `rho = 0.5` …, rounded up
/// in the last digit (a cost or a budget is never printed smaller than it is).
fn brief(g: &Guarantee) -> String {
    brief_rounded(g, Rounding::Up)
}

/// [`brief`] for what is left of a budget: rounded down, so that the printed remainder is never more than it is.
fn brief_left(g: &Guarantee) -> String {
    brief_rounded(g, Rounding::Down)
}

fn brief_rounded(g: &Guarantee, rounding: Rounding) -> String {
    let sig = |x: f64| short_rounded(x, rounding);
    let mut text = brief_main(g, rounding);
    // The samplers' negligible δ of metric, pure and GDP totals, stated beside ε (never hidden, never charged); a
    // metric one per pair of inputs d apart, δ_B·(1 + e^{ε·d + ε₀}).
    let relation = if rounding == Rounding::Up { "≤" } else { "=" };
    match *g {
        Guarantee::MetricDp { additive_epsilon, delta_base, .. } if delta_base > 0.0 => {
            text += &format!(", delta(d) {relation} {}·(1 + exp(epsilon·d", sig(delta_base));
            if additive_epsilon > 0.0 {
                text += &format!(" + {}", sig(additive_epsilon));
            }
            text += "))";
        }
        Guarantee::PureDp { delta, .. } | Guarantee::Gdp { delta, .. } if delta > 0.0 => {
            text += &format!(", delta {relation} {}", sig(delta))
        }
        _ => {}
    }
    text
}

fn brief_main(g: &Guarantee, rounding: Rounding) -> String {
    let sig = |x: f64| short_rounded(x, rounding);
    match *g {
        Guarantee::PureDp { epsilon, .. } => format!("epsilon = {}", sig(epsilon)),
        Guarantee::ApproxDp { epsilon, delta } => format!("(epsilon = {}, delta = {})", sig(epsilon), sig(delta)),
        Guarantee::Zcdp { rho } => format!("rho = {}", sig(rho)),
        Guarantee::Gdp { mu, .. } => format!("mu = {}", sig(mu)),
        Guarantee::RaoDp { theta, family } => {
            let family = match family {
                RaoFamily::Gaussian => "Gaussian".to_string(),
                RaoFamily::Laplace => "Laplace".to_string(),
                RaoFamily::GeneralizedGaussian { order } => format!("generalized Gaussian N = {order}"),
                RaoFamily::Mixed => "mixed families".to_string(),
            };
            format!("theta = {} ({family})", sig(theta))
        }
        Guarantee::MetricDp { epsilon, unit, additive_epsilon, .. } if additive_epsilon > 0.0 => {
            format!("epsilon = {} per {unit} + {}", sig(epsilon), sig(additive_epsilon))
        }
        Guarantee::MetricDp { epsilon, unit, .. } => format!("epsilon = {} per {unit}", sig(epsilon)),
    }
}

/// A data set's spending, one line per notion.
fn write_spent(out: &mut impl Write, s: &Spent) -> std::io::Result<()> {
    let last = s.last_release_at.as_deref().map(|t| format!(", the last at {t}")).unwrap_or_default();
    let plural = if s.releases == 1 { "" } else { "s" };
    writeln!(out, "Data set {:?}: {} release{plural}{last}", s.dataset, s.releases)?;
    // Only what means something for this label: accounts with a budget, and the pure and metric totals of its
    // releases; the other views (approx, zcdp, gdp, rao without a budget) are one `--json` away.
    // A metric total beside a metric budget is the same local spending again (another unit, or the chordal
    // distance that the budget's great-circle account also charges).
    let metric_of = |account: &str| account.rsplit_once(':').map(|(m, _)| m.to_string());
    let budgeted_metrics: Vec<String> =
        s.notions.iter().filter(|n| n.budget.is_some()).filter_map(|n| metric_of(&n.account)).collect();
    let shown = |n: &&NotionSpent| {
        n.budget.is_some()
            || (n.total.as_ref().is_some_and(|t| !is_zero(t))
                && (n.account == "pure" || (n.account.starts_with("metric:") && budgeted_metrics.is_empty())))
    };
    let hidden: Vec<&str> = s.notions.iter().filter(|n| !shown(n)).map(|n| n.account.as_str()).collect();
    let width = s.notions.iter().filter(shown).map(|n| n.account.len()).max().unwrap_or(6);
    for n in s.notions.iter().filter(shown) {
        let mut line = match (&n.total, &n.not_accountable) {
            (Some(t), _) if n.negligible_delta > 0.0 => {
                // A zCDP or GDP total's negligible δ: the view is within this total variation of one it bounds.
                format!("spent {}, delta ≤ {}", brief(t), short_rounded(n.negligible_delta, Rounding::Up))
            }
            (Some(t), _) => format!("spent {}", brief(t)),
            (None, why) => format!("not accountable: {}", why.as_deref().unwrap_or("no total")),
        };
        match (&n.budget, &n.remaining) {
            (Some(b), Some(r)) => line += &format!(" of {}, {} left", brief(b), brief_left(r)),
            (Some(b), None) => line += &format!("; budget {}", brief(b)),
            (None, _) => line += ", no budget",
        }
        if let Some(std) = &n.standard {
            let label = match std {
                Guarantee::ApproxDp { .. } => "as (epsilon, delta)",
                _ => "as pure DP",
            };
            line += &format!("; {label}: {}", brief(std));
        }
        if !n.testing_meaning && n.total.is_some() {
            line += " [a Fisher-Rao distance, not a bound on tests]";
        }
        writeln!(out, "  {:<width$}  {line}", n.account)?;
    }
    if !hidden.is_empty() {
        writeln!(out, "  (not shown, no budget of their own: {}; --json lists every notion)", hidden.join(", "))?;
    }
    if let Some(c) = &s.combined {
        writeln!(out, "  Combined: {}", combined_text(c))?;
    }
    Ok(())
}

/// The model's guarantee for the whole data set, in the local budget's unit:
/// `epsilon <= 0.2 per km · d + 2.0004 between data sets that differ in one row moved by d; as standard DP (d up to
/// 20015.1 km): epsilon <= 4005.03`.
fn combined_text(c: &manifold_dp_ledger::Combined) -> String {
    let up = |x: f64| short_rounded(x, Rounding::Up);
    let mut delta = if c.delta > 0.0 { format!(", delta = {}", up(c.delta)) } else { String::new() };
    let Some(Guarantee::MetricDp { epsilon: per, unit, additive_epsilon, delta_base, .. }) = c.local else {
        return format!("epsilon <= {}{delta} between data sets that differ in one row", up(c.constant));
    };
    if delta_base > 0.0 {
        // The local releases' negligible δ, per pair d apart: δ_B·(1 + e^{ε_L·d + Σε₀}), beside the central δ.
        let central = if c.delta > 0.0 { format!("{} + ", up(c.delta)) } else { String::new() };
        delta =
            format!(", delta(d) <= {central}{}·(1 + exp({}·d + {}))", up(delta_base), up(per), up(additive_epsilon));
    }
    let std_delta = match c.standard {
        Some(std) if std.delta() > 0.0 => format!(", delta = {}", up(std.delta())),
        _ => String::new(),
    };
    let head = format!(
        "epsilon <= {} per {unit} · d + {}{delta} between data sets that differ in one row moved by d",
        up(per),
        up(c.constant)
    );
    match (c.standard, c.diameter) {
        (Some(std), Some(d)) => {
            let eps = std.epsilon().unwrap_or(f64::INFINITY);
            format!("{head}; as standard DP (d up to {} {unit}): epsilon <= {}{std_delta}", up(d), up(eps))
        }
        _ => format!("{head}; no standard-DP reading (the metric has no finite diameter)"),
    }
}

/// A release to be charged to a ledger (the ledger crate's [`manifold_dp_ledger::Charge`]), with what the
/// command line adds: the data set label defaulted from the input file, errors naming the ledger and the
/// flag that would change the answer, and a line on standard error when the release is recorded.
pub struct Charge {
    inner: manifold_dp_ledger::Charge,
    db: String,
}

impl Charge {
    /// `None` without `--ledger`. Otherwise opens the ledger and checks (a dry run) that a release with
    /// `guarantees` would be recorded (a budget that it fits, an unused request id), so that a refusal comes
    /// before any work.
    pub fn prepare(
        opt: &LedgerUse,
        input: &str,
        mechanism: String,
        guarantees: &[Guarantee],
    ) -> Result<Option<Charge>> {
        let Some(db) = &opt.ledger else { return Ok(None) };
        let dataset = match &opt.dataset {
            Some(d) => d.clone(),
            None => Path::new(input)
                .file_name()
                .filter(|_| input != "-")
                .map(|n| n.to_string_lossy().into_owned())
                .ok_or_else(|| {
                    BadInput(format!("--ledger: give --dataset LABEL (the input {input:?} has no file name)"))
                })?,
        };
        let admission = Admission { allow_unbudgeted: opt.allow_unbudgeted };
        let inner = manifold_dp_ledger::Charge::prepare(
            Ledger::open(db)?,
            &dataset,
            &mechanism,
            guarantees,
            opt.request_id.as_deref(),
            admission,
        )
        .map_err(|e| explain_refusal(e, db))?;
        Ok(Some(Charge { inner, db: db.clone() }))
    }

    /// Whether the release has been recorded.
    pub fn is_recorded(&self) -> bool {
        self.inner.is_recorded()
    }

    /// Records the release with the guarantees its mechanism reports (once; later calls do nothing), just
    /// before its result is published, and says so on standard error unless `quiet`. Refused over budget, or
    /// if another run took the request id meanwhile.
    pub fn record(&self, guarantees: &[Guarantee], quiet: bool) -> Result<()> {
        let db = &self.db;
        let Some(receipt) = self.inner.record(guarantees).map_err(|e| explain_refusal(e, db))? else {
            return Ok(());
        };
        crate::io::stdout::note_recorded();
        if !quiet {
            let r = &receipt.release;
            let budgets: Vec<String> = receipt
                .spent
                .notions
                .iter()
                .filter_map(|n| Some(format!("{} spent {} of {}", n.account, brief(&n.total?), brief(&n.budget?))))
                .collect();
            let budgets = if budgets.is_empty() { String::new() } else { format!(" ({})", budgets.join("; ")) };
            eprintln!("ledger {db}: recorded as release #{} of data set {:?}{budgets}", r.id, r.dataset);
        }
        Ok(())
    }
}

/// A ledger error with the ledger's name, and for a refusal the flag that would change the answer.
fn explain_refusal(e: LedgerError, db: &str) -> anyhow::Error {
    let hint: String = match &e {
        LedgerError::NoBudget { .. } => " (give the data set a budget with `manifold-dp budget ledger --db DB limit \
                                          --dataset LABEL …`, or pass --allow-unbudgeted)"
            .into(),
        LedgerError::RequestIdUsed { .. } => " (a new release needs a new --request-id)".into(),
        LedgerError::NoBudgetForKind { kind: ReleaseKind::Central, .. } => {
            " (add a central budget with `manifold-dp budget ledger --db DB limit --dataset LABEL --pure E` (or \
             --approx E,D, --zcdp R, --gdp MU))"
                .into()
        }
        LedgerError::NoBudgetForKind { kind: ReleaseKind::Local, release, .. } => {
            let (metric, unit) = release
                .iter()
                .find_map(|g| match g {
                    Guarantee::MetricDp { metric, unit, .. } => {
                        Some((manifold_dp_ledger::accounts::metric_name(*metric), *unit))
                    }
                    _ => None,
                })
                .unwrap_or_else(|| ("sphere_surface".into(), "rad"));
            format!(
                " (add a local budget with `manifold-dp budget ledger --db DB limit --dataset LABEL --metric-dp E \
                 --metric {metric} --unit {unit}` (or another unit of that distance: km, deg, h …))"
            )
        }
        LedgerError::OverBudget(o) if o.notion.starts_with("metric:") && o.total.epsilon() <= o.budget.epsilon() => {
            " (the local releases' additive costs would pass the budget's allowance: raise it with `limit \
             --metric-dp E --additive-allowance E0`)"
                .into()
        }
        LedgerError::Unaccountable { notion, .. } if notion.starts_with("metric:") => {
            " (a local budget holds releases in its own distance; give this kind of release a data set label of \
             its own, with its own budgets)"
                .into()
        }
        _ => String::new(),
    };
    anyhow::Error::new(e).context(format!("ledger {db}{hint}"))
}
