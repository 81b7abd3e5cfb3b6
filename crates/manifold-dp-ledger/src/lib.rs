//! # manifold-dp-ledger
//!
//! A privacy ledger for `manifold-dp` releases, kept in an embedded SQLite database (SQLite is compiled in:
//! there is no server to start and no system library to install). It records each release of a data set
//! (time, mechanism, every guarantee the mechanism reported), holds a budget per notion and data set, and
//! refuses, in the same transaction that would record it, a release that would take a total over its budget.
//!
//! ```no_run
//! use manifold_dp::privacy::Guarantee;
//! use manifold_dp_ledger::Ledger;
//!
//! let ledger = Ledger::create("privacy.sqlite")?;
//! ledger.set_budget("patients.csv", Guarantee::pure(1.0))?;
//! let receipt = ledger.record("patients.csv", "mean so3", &[Guarantee::pure(0.4)], None)?;
//! println!("release #{} at {}", receipt.release.id, receipt.release.at);
//! // May I release once more with ε = 0.7? No: 0.4 + 0.7 > 1.
//! assert!(ledger.check("patients.csv", &[Guarantee::pure(0.7)]).unwrap_err().is_refusal());
//! # Ok::<(), manifold_dp_ledger::LedgerError>(())
//! ```
//!
//! **What is promised.** A crash (even `kill -9` mid-transaction) or any number of concurrent writers never
//! loses or duplicates an entry and never lets a total pass its budget: every write is one `BEGIN IMMEDIATE`
//! transaction in SQLite's rollback-journal mode with `synchronous = FULL`. A file that is not a ledger, or a
//! damaged one, is reported and left untouched; nothing here ever recreates or resets an existing file.
//!
//! **Accounting.** One model ([`accounts`]; `docs/proofs/accounting.md`): after a data set's releases, two data
//! sets that differ in one row moved by d are indistinguishable up to
//! ε ≤ (Σ local ε per unit)·d + (Σ central ε) + (Σ additive costs). A label holds a local budget (metric DP per
//! unit, with an additive allowance) and central budgets (pure, approximate, zCDP, GDP, Rao) side by side, and
//! optionally an overall pure cap; every release is charged to every account its guarantee implies, and a
//! release that implies nothing for a budgeted account, or of a kind the label has no budget for, is refused.
//! Totals come from `manifold_dp::privacy::accounting` (composition rounded up). Each total is shown with a
//! standard guarantee beside it (see [`NotionSpent::standard`]), so a Rao number is never alone, and
//! [`Spent::combined`] states the model's ε for the whole data set.
//!
//! **Adaptivity.** Releases are admitted one by one against what is left, each chosen after the results of
//! the ones before, so a budget is a privacy *filter*. Every account uses a rule proven valid as a filter:
//! Σε for pure and metric DP, the basic (Σε, Σδ) for approximate DP (Rogers, Roth, Ullman & Vadhan 2016),
//! Σρ for zCDP (the Rényi filter, Feldman & Zrnic 2021), √Σμ² for GDP (Smith & Thakurta 2022);
//! `docs/proofs/accounting.md`, "The ledger is a filter". The ledger never composes in parallel. An optional
//! local (ε, δ) budget ([`Account::LocalRdp`]) composes the local releases' Rényi curves order by order and
//! admits while some public order α has Σρ(α) ≤ ε − ln(|Λ|/δ)/(α − 1), the Rényi filter with a union bound
//! over the orders (`docs/proofs/accounting.md`, "Local releases in Rényi DP").
//!
//! **Journal mode.** The default rollback journal, not WAL: the ledger stays one self-contained file that can be
//! copied or backed up at any moment between transactions (a WAL file holds committed entries outside the main
//! file until a checkpoint), and it works where WAL's shared memory does not (network file systems). Writes are
//! rare, so WAL's concurrency is not needed; readers wait at most a commit's length (the busy timeout covers it).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod accounts;
mod charge;
mod error;
mod ledger;
mod report;

pub use accounts::{
    Account, DECIMAL_SLACK, DEFAULT_ADDITIVE_ALLOWANCE, REPORT_DELTA, ReleaseKind, diameter, with_allowance,
};
pub use charge::Charge;
pub use error::{LedgerError, Overdraft};
pub use ledger::{APPLICATION_ID, Admission, DEFAULT_BUSY_TIMEOUT, FileId, Ledger, SCHEMA_VERSION};
pub use report::{BudgetChange, BudgetEntry, Combined, DatasetExport, Export, NotionSpent, Receipt, Release, Spent};
