//! `manifold-dp budget ledger …`, and `--ledger FILE` on `privatize` and `mean`.

use super::{GuaranteeContext, NotionArg};
use crate::BadInput;
use clap::{Args, Subcommand};
use manifold_dp::privacy::Guarantee;
use serde_json::Value;

/// `manifold-dp budget ledger`: a privacy ledger that records each release of a data set, holds a budget per
/// notion, and refuses a release that would go over one.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  manifold-dp budget ledger --db privacy.sqlite init --dataset poses.csv --pure 3
  manifold-dp budget ledger --db privacy.sqlite limit --dataset airports --pure 2 \\
      --metric-dp 0.5 --metric sphere_surface --unit km
  manifold-dp budget ledger --db privacy.sqlite add --dataset poses.csv --mechanism 'mean so3' --pure 1
  manifold-dp budget ledger --db privacy.sqlite show --dataset poses.csv --pure 1.5
  manifold-dp mean --space so3 --center identity --radius 30deg --epsilon 1 --input poses.csv --ledger privacy.sqlite
  manifold-dp budget ledger --db privacy.sqlite export --output ledger.json

Exit codes: 0 done, 2 bad input (including a missing, foreign or damaged ledger file), 4 refused by a budget
(nothing recorded), 1 other failures.")]
pub struct LedgerArgs {
    /// The ledger file (SQLite). `init` creates it; every other command needs it to exist.
    #[arg(long, global = true, value_name = "F.sqlite")]
    pub db: Option<String>,
    #[command(subcommand)]
    pub command: LedgerCommand,
}

/// What to do with the ledger.
#[derive(Debug, Subcommand)]
pub enum LedgerCommand {
    /// Create a new ledger file (never overwrites one), optionally with budgets for a data set.
    #[command(after_help = "\
Examples:
  # a central budget for means, and a local one for per-row releases of latitude/longitude (per km)
  manifold-dp budget ledger init --db budget.sqlite --dataset trips --pure 2 --metric-dp 0.5 --metric latlon
  # the same local budget spelled out, as reports print it
  manifold-dp budget ledger init --db budget.sqlite --dataset trips --metric-dp 0.5 --metric sphere_surface --unit km")]
    Init(InitArgs),
    /// Set or change budgets of a data set: central ones (--pure, --approx, --zcdp, --gdp, --rao), a local one
    /// (--metric-dp per --unit of --metric, with --additive-allowance), an --overall-pure cap, and a local
    /// (epsilon, delta) budget composed in Rényi DP (--local-approx). A budget can
    /// be raised, or lowered down to what was spent.
    Limit(LimitArgs),
    /// Record a release (every guarantee its mechanism reported), or refuse it (exit 4) when a total would pass
    /// a budget. With --dry-run, only answer whether it would be accepted.
    Add(AddArgs),
    /// What has each data set spent under each notion, and may it release once more? Give a candidate release
    /// (--pure, --zcdp, … as for add) with --dataset to ask about that release.
    Show(ShowArgs),
    /// Write the whole ledger (data sets, budgets, releases with times and guarantees, totals, budget history)
    /// as JSON, for reports.
    Export(ExportArgs),
}

/// Guarantees (of a release, a budget or a candidate) on the command line. Several may be given at once.
#[derive(Debug, Args)]
pub struct GuaranteeArgs {
    /// Pure epsilon-DP.
    #[arg(long, value_name = "EPSILON")]
    pub pure: Option<String>,
    /// Approximate (epsilon, delta)-DP, written epsilon,delta (1,1e-6).
    #[arg(long, value_name = "EPSILON,DELTA")]
    pub approx: Option<String>,
    /// rho-zCDP.
    #[arg(long, value_name = "RHO")]
    pub zcdp: Option<String>,
    /// mu-Gaussian DP.
    #[arg(long, value_name = "MU")]
    pub gdp: Option<String>,
    /// theta-Rao DP in the --family (default gaussian).
    #[arg(long, value_name = "THETA")]
    pub rao: Option<String>,
    /// Metric DP: epsilon per --unit of --metric (default so3_geodesic, per rad).
    #[arg(long, value_name = "EPSILON")]
    pub metric_dp: Option<String>,
    /// A guarantee as the JSON that reports print, e.g. '{"notion":"pure_dp","epsilon":0.5}'. Repeatable.
    #[arg(long, value_name = "JSON")]
    pub guarantee: Vec<String>,
    #[command(flatten)]
    pub context: GuaranteeContext,
}

impl GuaranteeArgs {
    /// The guarantees given, in a fixed order; empty when none.
    pub fn parse(&self) -> Result<Vec<Guarantee>, BadInput> {
        let mut out = Vec::new();
        let flags = [
            (NotionArg::Pure, &self.pure),
            (NotionArg::Approx, &self.approx),
            (NotionArg::Zcdp, &self.zcdp),
            (NotionArg::Gdp, &self.gdp),
            (NotionArg::Rao, &self.rao),
            (NotionArg::Metric, &self.metric_dp),
        ];
        for (notion, value) in flags {
            if let Some(v) = value {
                out.push(self.context.parse(notion, v)?);
            }
        }
        for text in &self.guarantee {
            let value: Value =
                serde_json::from_str(text).map_err(|e| BadInput(format!("--guarantee {text:?} is not JSON: {e}")))?;
            let g = <Guarantee as serde::Deserialize>::deserialize(value).map_err(|e| {
                BadInput(format!(
                    "--guarantee {text:?}: {e}; write e.g. {{\"notion\":\"pure_dp\",\"epsilon\":0.5}} or \
                     {{\"notion\":\"zcdp\",\"rho\":0.1}}"
                ))
            })?;
            out.push(g.validate().map_err(|e| BadInput(format!("--guarantee {text:?}: {e}")))?);
        }
        Ok(out)
    }
}

/// What a label's budgets hold besides one guarantee per account: the local budget's additive allowance and
/// the overall standard-DP cap.
#[derive(Debug, Args)]
pub struct BudgetExtras {
    /// The local (--metric-dp) budget's additive allowance: the most the rounding costs of its local releases
    /// may add up to (default 0.1). They are part of the combined guarantee, never of a central budget.
    #[arg(long, value_name = "EPSILON0", requires = "metric_dp")]
    pub additive_allowance: Option<f64>,
    /// An overall cap in pure epsilon over every release of the data set: central releases at their epsilon,
    /// local ones at epsilon times the metric's diameter plus their additive cost.
    #[arg(long, value_name = "EPSILON")]
    pub overall_pure: Option<String>,
    /// An (epsilon, delta) budget, written epsilon,delta (8,1e-6), of the local releases composed in Rényi DP:
    /// each release of VMF, Purkayastha, SO(3) Laplace or Bingham is charged by its Rényi curve (any other
    /// local release in a bounded space by its pure epsilon's), so many repeated releases fit where the
    /// --metric-dp budget, which adds epsilons, would refuse them.
    #[arg(long, value_name = "EPSILON,DELTA")]
    pub local_approx: Option<String>,
}

impl BudgetExtras {
    /// The budgets of `guarantees` with these added: the allowance on the metric budget, the overall cap, the
    /// local Rényi budget.
    pub fn apply(&self, guarantees: Vec<Guarantee>) -> Result<Vec<(manifold_dp_ledger::Account, Guarantee)>, BadInput> {
        let mut out = Vec::new();
        for g in guarantees {
            let g = match (g, self.additive_allowance) {
                (Guarantee::MetricDp { epsilon, metric, unit, .. }, Some(a)) => {
                    if !(a.is_finite() && a > 0.0) {
                        return Err(BadInput(format!("--additive-allowance {a}: give a number > 0")));
                    }
                    Guarantee::metric_dp_in(epsilon, metric, unit, a)
                }
                (g, _) => g,
            };
            out.push((manifold_dp_ledger::Account::of(&g), g));
        }
        if let Some(v) = &self.overall_pure {
            let epsilon = v
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|e| e.is_finite() && *e >= 0.0)
                .ok_or_else(|| BadInput(format!("--overall-pure {v:?}: give a number >= 0")))?;
            out.push((manifold_dp_ledger::Account::Overall, Guarantee::pure(epsilon)));
        }
        if let Some(v) = &self.local_approx {
            let bad =
                || BadInput(format!("--local-approx {v:?}: give epsilon,delta with epsilon >= 0 and delta in (0, 1)"));
            let (e, d) = v.split_once(',').ok_or_else(bad)?;
            let (epsilon, delta) =
                (e.trim().parse::<f64>().map_err(|_| bad())?, d.trim().parse::<f64>().map_err(|_| bad())?);
            if !(epsilon.is_finite() && epsilon >= 0.0 && delta > 0.0 && delta < 1.0) {
                return Err(bad());
            }
            out.push((manifold_dp_ledger::Account::LocalRdp, Guarantee::ApproxDp { epsilon, delta }));
        }
        Ok(out)
    }
}

/// Arguments of `ledger init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// A data set to give budgets to now (also possible later with `limit`).
    #[arg(long, value_name = "LABEL")]
    pub dataset: Option<String>,
    #[command(flatten)]
    pub budgets: GuaranteeArgs,
    #[command(flatten)]
    pub extras: BudgetExtras,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ledger limit`.
#[derive(Debug, Args)]
pub struct LimitArgs {
    /// The data set (its label in the ledger; `privatize` and `mean` default to the input file's name).
    #[arg(long, value_name = "LABEL")]
    pub dataset: String,
    #[command(flatten)]
    pub budgets: GuaranteeArgs,
    #[command(flatten)]
    pub extras: BudgetExtras,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ledger add`.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// The data set the release was computed from.
    #[arg(long, value_name = "LABEL")]
    pub dataset: String,
    /// What released it (free text, e.g. 'mean so3' or 'laplace count').
    #[arg(long)]
    pub mechanism: String,
    #[command(flatten)]
    pub guarantees: GuaranteeArgs,
    /// An id that makes a retry idempotent: adding the same release with the same id again records nothing.
    #[arg(long, value_name = "ID")]
    pub request_id: Option<String>,
    /// Only answer whether the release would be accepted (exit 0) or refused (exit 4); record nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Record the release even if the data set has no budget (by default refused with exit code 4, so that a
    /// mistyped label cannot escape its budget).
    #[arg(long)]
    pub allow_unbudgeted: bool,
    /// Print one JSON object (also when refused).
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ledger show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Only this data set (default: all).
    #[arg(long, value_name = "LABEL")]
    pub dataset: Option<String>,
    /// A candidate release to ask about ("may I release this once more?"); needs --dataset.
    #[command(flatten)]
    pub candidate: GuaranteeArgs,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ledger export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Where to write the JSON (- for standard output).
    #[arg(long, default_value = "-")]
    pub output: String,
    /// Overwrite an existing output file.
    #[arg(long)]
    pub force: bool,
}

/// `--ledger FILE` (with `--dataset`, `--request-id`, `--allow-unbudgeted`) on `privatize` and `mean`.
#[derive(Debug, Clone, Default, Args)]
pub struct LedgerUse {
    /// Record this release in the privacy ledger FILE (made by `manifold-dp budget ledger --db FILE init`).
    /// It is checked against the data set's budgets before any work, and recorded just before the result is
    /// published; a release over budget, or against a data set with no budget, is refused with exit code 4 and
    /// writes nothing.
    #[arg(long, value_name = "FILE")]
    pub ledger: Option<String>,
    /// The data set label charged in the ledger (default: the input file's name, without its directory). It
    /// must have a budget in the ledger, unless --allow-unbudgeted.
    #[arg(long, value_name = "LABEL", requires = "ledger")]
    pub dataset: Option<String>,
    /// An id for this release, used once: a second run with an id the ledger already holds is refused (exit 4)
    /// before anything is read or written, whatever its input and parameters, because it would draw new noise
    /// and so be a second, independent release. A retry after a failure that recorded nothing goes through.
    #[arg(long, value_name = "ID", requires = "ledger")]
    pub request_id: Option<String>,
    /// Record the release even if the data set label has no budget in the ledger (by default refused with exit
    /// code 4, so that a mistyped or defaulted label cannot escape its data set's budget).
    #[arg(long, requires = "ledger")]
    pub allow_unbudgeted: bool,
}
