//! What the ledger answers with: releases, budgets, per-notion totals, receipts and the export document.
//! Everything serialises to JSON with snake_case keys.

use manifold_dp::privacy::{Guarantee, Notion};
use serde::Serialize;

/// One recorded release.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Release {
    /// Its number in the ledger (increasing, never reused).
    pub id: i64,
    /// When it was recorded: UTC, ISO 8601 with milliseconds (`2026-11-21T10:35:41.924Z`), from SQLite's clock.
    pub at: String,
    /// The data set it was computed from.
    pub dataset: String,
    /// What released it (`privatize so3 laplace`, `mean so3` …), free text.
    pub mechanism: String,
    /// Every guarantee the mechanism reported.
    pub guarantees: Vec<Guarantee>,
    /// The caller's id for this release, which makes a retried record idempotent.
    pub request_id: Option<String>,
}

/// A data set's budget in one account.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BudgetEntry {
    /// The data set.
    pub dataset: String,
    /// The account (`pure`, `approx`, `zcdp`, `gdp`, `rao`, `metric:METRIC:UNIT`).
    pub account: String,
    /// The budget: the largest total allowed.
    pub budget: Guarantee,
    /// When it was set (UTC, ISO 8601).
    pub set_at: String,
}

/// A data set's spending in one account.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotionSpent {
    /// The account (`pure`, `approx`, `zcdp`, `gdp`, `rao`, `metric:METRIC:UNIT`).
    pub account: String,
    /// Its notion.
    pub notion: Notion,
    /// The composed total of all releases, rounded up; `None` when some release cannot be expressed here.
    pub total: Option<Guarantee>,
    /// Why there is no total.
    pub not_accountable: Option<String>,
    /// The budget, if one is set.
    pub budget: Option<Guarantee>,
    /// What is left of the budget (rounded down).
    pub remaining: Option<Guarantee>,
    /// Whether the total is within the budget (always, unless the ledger was edited by hand).
    pub within_budget: Option<bool>,
    /// A standard guarantee beside the total: (ε, δ) at δ = 1e-6 for zCDP, GDP and Gaussian Rao totals, pure
    /// ε·diameter for metric totals, the pure (or else approximate) total beside a non-Gaussian Rao total.
    pub standard: Option<Guarantee>,
    /// The samplers' negligible δ beside a zCDP or GDP total (serialised only when > 0): Σ over its releases
    /// of their pure guarantees' δ, a bound on the total variation between the view and one the total bounds
    /// (pure, approximate and metric totals carry their δ themselves; `docs/proofs/accounting.md`, "The
    /// negligible δ").
    #[serde(skip_serializing_if = "is_zero")]
    pub negligible_delta: f64,
    /// Whether the notion bounds every test between neighbouring inputs (false for Rao DP: a distance).
    pub testing_meaning: bool,
}

/// A data set's releases as one guarantee (the ledger's model, `docs/proofs/accounting.md`): two data sets that
/// differ in one row, moved by d in the label's metric, are indistinguishable up to
/// ε ≤ (Σ local ε per unit)·d + (Σ central ε) + (Σ additive costs) = `local`·d + `constant` (with δ = `delta`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Combined {
    /// Σ local ε per unit of the label's metric and unit (a metric-DP total; its `additive_epsilon` is Σε₀ of
    /// the local releases). `None` when the label has no metric account.
    pub local: Option<Guarantee>,
    /// Σ central ε: the central releases' pure total, or their (ε, δ) total when one of them states no pure ε.
    pub central: Guarantee,
    /// ε at d = 0: the central ε plus the local releases' additive costs, rounded up.
    pub constant: f64,
    /// The central total's δ (for a pure total, its releases' negligible δ; usually 0).
    pub delta: f64,
    /// The largest d, in the local unit, where the metric is bounded (π rad, half the Earth's circumference …).
    pub diameter: Option<f64>,
    /// The standard-DP reading at d ≤ `diameter`: pure (or (ε, δ)) ε = local·diameter + constant; `None` where
    /// the metric is unbounded.
    pub standard: Option<Guarantee>,
}

/// What a data set has spent, under each notion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spent {
    /// The data set.
    pub dataset: String,
    /// Number of releases recorded.
    pub releases: u64,
    /// When the last one was recorded.
    pub last_release_at: Option<String>,
    /// One entry per account: pure, approx, zcdp, gdp, rao, then each metric account with a budget or a release,
    /// then the overall cap when one is set.
    pub notions: Vec<NotionSpent>,
    /// Every release as one guarantee: local ε per unit times d plus a constant, and its standard-DP reading.
    pub combined: Option<Combined>,
}

impl Spent {
    /// The entry of an account (`pure`, `metric:so3_geodesic:rad` …).
    pub fn get(&self, account: &str) -> Option<&NotionSpent> {
        self.notions.iter().find(|n| n.account == account)
    }
}

/// The answer to a successful [`crate::Ledger::record`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Receipt {
    /// The release as recorded.
    pub release: Release,
    /// True when the request id had already been recorded with the same release: nothing new was written.
    pub replayed: bool,
    /// The data set's spending with this release.
    pub spent: Spent,
}

/// One data set in an [`Export`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DatasetExport {
    /// The data set.
    pub dataset: String,
    /// Its budgets.
    pub budgets: Vec<BudgetEntry>,
    /// Its releases, oldest first.
    pub releases: Vec<Release>,
    /// Its totals under each notion.
    pub spent: Spent,
}

/// A budget as it was set at some time (the ledger keeps every change).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BudgetChange {
    /// The data set.
    pub dataset: String,
    /// The account.
    pub account: String,
    /// The budget set.
    pub budget: Guarantee,
    /// When.
    pub at: String,
}

/// The whole ledger as one JSON document, for reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Export {
    /// Always `manifold-dp-ledger`.
    pub format: &'static str,
    /// The ledger's schema version.
    pub schema_version: i64,
    /// When the export was made (UTC, ISO 8601).
    pub exported_at: String,
    /// When the ledger was created.
    pub created_at: String,
    /// The ledger file.
    pub ledger: String,
    /// The δ at which zCDP, GDP and Gaussian Rao totals are restated as (ε, δ).
    pub report_delta: f64,
    /// Every data set with a budget or a release, by label.
    pub datasets: Vec<DatasetExport>,
    /// Every budget ever set, oldest first.
    pub budget_history: Vec<BudgetChange>,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}
