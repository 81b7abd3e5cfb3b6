//! The empirical privacy auditor and the statistical checks of samplers (`docs/audit.md`).
//!
//! - [`auditor`]: a lower confidence bound ε̂ on the privacy loss a mechanism really has, from likelihood-
//!   ratio and geometric events fixed in advance, exact Clopper–Pearson bounds and a union bound; a
//!   VIOLATION verdict has false-alarm probability ≤ α by construction (docs/math.md §5).
//! - [`clopper_pearson`]: exact binomial tails and one-sided Clopper–Pearson bounds.
//! - [`events`]: the test events and how a pilot sample fixes them.
//! - [`pairs`]: input pairs per space, edge cases included.
//! - [`controls`]: negative controls (broken samplers the auditor must flag), outside [`crate::mechanism`].
//! - [`catalog`]: every mechanism and control as a target chosen by name (the command line's `audit`).
//! - [`gof`]: Kolmogorov–Smirnov goodness of fit with exact (DKW–Massart) critical values.
//! - [`log_euclidean_gaussian`]: the log-Euclidean Gaussian mean of SPD(k) as an audit target, and its pairs.

pub mod auditor;
pub mod catalog;
pub mod clopper_pearson;
pub mod controls;
pub mod events;
pub mod gof;
pub mod log_euclidean_gaussian;
pub mod pairs;

pub use auditor::{
    AuditConfig, AuditPoint, AuditReport, AuditTarget, Auditable, GofReport, InputPair, PairSummary, ReferenceLaw,
    TestOutcome, Verdict,
};
pub use catalog::{AuditRequest, AuditSpace};
