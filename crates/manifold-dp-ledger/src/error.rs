//! What can go wrong with a ledger: a file that is not one (reported, never reset), a release that the budget
//! refuses, bad arguments, and the database's own failures.

use manifold_dp::privacy::Guarantee;
use std::path::PathBuf;
use thiserror::Error;

/// What a refused release would have spent: [`LedgerError::OverBudget`].
#[derive(Debug, Clone, PartialEq)]
pub struct Overdraft {
    /// The data set label.
    pub dataset: String,
    /// The account whose budget would be exceeded (`pure`, `zcdp`, `metric:so3_geodesic:rad` …).
    pub notion: String,
    /// The total with the release, composed and rounded up.
    pub total: Guarantee,
    /// The budget.
    pub budget: Guarantee,
    /// The total before the release.
    pub spent: Guarantee,
    /// The guarantees of the release that was refused.
    pub release: Vec<Guarantee>,
}

impl std::fmt::Display for Overdraft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "refused: a release with {} on data set {:?} would bring its {} total to {}, over its budget of {} \
             (spent before it: {}). Nothing was recorded",
            list(&self.release),
            self.dataset,
            self.notion,
            self.total,
            self.budget,
            self.spent
        )
    }
}

/// Everything [`crate::Ledger`] can report. Nothing in this crate panics on a bad file or bad arguments.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LedgerError {
    /// `open` was given a path with no file.
    #[error(
        "{path}: no such ledger; create it first (it is never created implicitly)",
        path = .path.display()
    )]
    NotFound {
        /// The path given.
        path: PathBuf,
    },
    /// `create` was given a path that already exists (it is never overwritten).
    #[error(
        "{path} already exists; a ledger is never overwritten (choose another name, or open this one)",
        path = .path.display()
    )]
    AlreadyExists {
        /// The path given.
        path: PathBuf,
    },
    /// The file is not an SQLite database at all (random bytes, a CSV, a directory, a truncated header).
    #[error("{path} is not a privacy ledger: {reason}; the file was left as it is", path = .path.display())]
    NotALedger {
        /// The path given.
        path: PathBuf,
        /// What SQLite said about it.
        reason: String,
    },
    /// An SQLite database that belongs to something else (another application's file, or an empty database).
    #[error(
        "{path} is an SQLite database but not a manifold-dp ledger ({what}); the file was left as it is",
        path = .path.display()
    )]
    Foreign {
        /// The path given.
        path: PathBuf,
        /// What it seems to be.
        what: String,
    },
    /// A ledger whose contents fail SQLite's integrity check or do not have the ledger's shape.
    #[error(
        "{path} is a damaged ledger: {detail}; nothing was changed (restore it from a backup; do not delete it)",
        path = .path.display()
    )]
    Corrupt {
        /// The path given.
        path: PathBuf,
        /// What the check found.
        detail: String,
    },
    /// A ledger written by a newer version of this library, with a schema this version does not know.
    #[error(
        "{path} uses ledger schema version {found}, newer than the {supported} this manifold-dp knows; upgrade \
         manifold-dp",
        path = .path.display()
    )]
    NewerSchema {
        /// The path given.
        path: PathBuf,
        /// Schema version in the file.
        found: i64,
        /// Newest version this library reads.
        supported: i64,
    },
    /// The release would take a data set's total in one notion over its budget. Nothing was recorded.
    #[error("{0}")]
    OverBudget(Box<Overdraft>),
    /// A budget in a notion that a release already recorded for the data set cannot be expressed in, so the
    /// ledger could never check it.
    #[error(
        "cannot set a {notion} budget for data set {dataset:?}: {which} cannot be expressed in {notion} ({reason}); \
         nothing was changed"
    )]
    BudgetUnaccountable {
        /// The data set label.
        dataset: String,
        /// The account.
        notion: String,
        /// `release #ID (mechanism)`.
        which: String,
        /// Why not.
        reason: String,
    },
    /// A budget below what the data set has already spent.
    #[error(
        "a {notion} budget of {budget} for data set {dataset:?} is below what it has already spent ({total}); a \
         budget can be lowered only down to the total"
    )]
    BelowSpent {
        /// The data set label.
        dataset: String,
        /// The account.
        notion: String,
        /// The total so far (boxed: a guarantee with its grid would make every ledger error large).
        total: Box<Guarantee>,
        /// The budget asked for.
        budget: Box<Guarantee>,
    },
    /// A release (the new one, or one already recorded) cannot be expressed in a notion the data set has a
    /// budget in, so the budget could not be checked. Nothing was recorded.
    #[error(
        "refused: data set {dataset:?} has a {notion} budget, but {which} cannot be expressed in it: {reason}. Nothing \
         was recorded"
    )]
    Unaccountable {
        /// The data set label.
        dataset: String,
        /// The account.
        notion: String,
        /// `the new release`, or `release #ID (mechanism)`.
        which: String,
        /// Why not.
        reason: String,
    },
    /// A guarantee, budget, label or other argument that is not valid.
    #[error("{0}")]
    Invalid(String),
    /// A request id already used by a different release.
    #[error(
        "request id {request_id:?} was already used for release #{id}, which differs from this one ({differs}); \
         nothing was recorded"
    )]
    RequestIdConflict {
        /// The request id.
        request_id: String,
        /// The release that has it.
        id: i64,
        /// What differs.
        differs: String,
    },
    /// A release drawn for a request id that the ledger already holds ([`crate::Ledger::record_new`]): the
    /// first release with that id was drawn and published (or lost) with its own noise, and a second draw would
    /// be a second, independent release of the data. Nothing was recorded.
    #[error(
        "refused: request id {request_id:?} was already used by release #{id} ({mechanism}, recorded at {at}); a \
         new run would draw new noise, which is a second, independent release, not a retry of that one. Nothing \
         was recorded"
    )]
    RequestIdUsed {
        /// The request id.
        request_id: String,
        /// The release that has it.
        id: i64,
        /// Its mechanism label.
        mechanism: String,
        /// When it was recorded.
        at: String,
    },
    /// A release against a data set that has no budget in this ledger, refused because the caller did not
    /// allow unbudgeted data sets ([`crate::Admission`]): a mistyped or new label must not escape its budget.
    /// Nothing was recorded.
    #[error(
        "refused: data set {dataset:?} has no budget in this ledger (a mistyped or new label?); set its budget \
         first, or allow releases of unbudgeted data sets explicitly. Nothing was recorded"
    )]
    NoBudget {
        /// The data set label.
        dataset: String,
    },
    /// A release of a kind (local or central) for which a data set that has budgets has none: it would be
    /// limited by nothing. Nothing was recorded.
    #[error(
        "refused: data set {dataset:?} has budgets, but none for {kind} releases, so a release with {release} \
         would be limited by nothing; {fix}. Nothing was recorded",
        release = list(release),
        fix = match kind {
            crate::ReleaseKind::Local => "give the data set a local budget (metric DP per unit of the release's \
                                           distance) first",
            crate::ReleaseKind::Central => "give the data set a central budget (pure, approximate, zCDP or \
                                             Gaussian DP) first",
        }
    )]
    NoBudgetForKind {
        /// The data set label.
        dataset: String,
        /// The kind of release that has no budget.
        kind: crate::ReleaseKind,
        /// The release's guarantees.
        release: Vec<Guarantee>,
    },
    /// The ledger file at the path is no longer the file this handle opened (it was moved, replaced or
    /// deleted): charging it would charge another ledger, or none.
    #[error(
        "{path} is no longer the ledger that was opened there (it was moved, replaced or deleted); nothing was \
         recorded. Open the ledger again",
        path = .path.display()
    )]
    Replaced {
        /// The path.
        path: PathBuf,
    },
    /// A file-system failure outside SQLite (creating the file).
    #[error("{path}: {source}", path = .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The failure.
        #[source]
        source: std::io::Error,
    },
    /// SQLite failed (disk full, permission denied, a lock held longer than the busy timeout …).
    #[error("{path}: {source}", path = .path.display())]
    Sqlite {
        /// The ledger's path.
        path: PathBuf,
        /// The failure.
        #[source]
        source: Box<rusqlite::Error>,
    },
}

impl LedgerError {
    /// Whether this is a refusal of a release ([`LedgerError::OverBudget`], [`LedgerError::Unaccountable`],
    /// [`LedgerError::NoBudget`], [`LedgerError::NoBudgetForKind`], [`LedgerError::RequestIdUsed`]): the release was well formed, and the ledger
    /// said no (the CLI exits with code 4).
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            LedgerError::OverBudget(_)
                | LedgerError::Unaccountable { .. }
                | LedgerError::NoBudget { .. }
                | LedgerError::RequestIdUsed { .. }
                | LedgerError::NoBudgetForKind { .. }
        )
    }

    /// Whether the fault lies in what the caller gave: a missing, existing, foreign, damaged or too new file, an
    /// invalid argument, or a reused request id (the CLI exits with code 2).
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            LedgerError::NotFound { .. }
                | LedgerError::AlreadyExists { .. }
                | LedgerError::NotALedger { .. }
                | LedgerError::Foreign { .. }
                | LedgerError::Corrupt { .. }
                | LedgerError::NewerSchema { .. }
                | LedgerError::Invalid(_)
                | LedgerError::BelowSpent { .. }
                | LedgerError::BudgetUnaccountable { .. }
                | LedgerError::RequestIdConflict { .. }
                | LedgerError::Replaced { .. }
        )
    }
}

/// Guarantees joined with "and".
fn list(gs: &[Guarantee]) -> String {
    gs.iter().map(Guarantee::to_string).collect::<Vec<_>>().join(" and ")
}
