//! The charge protocol every front end follows: check a release against its data set's budgets before any
//! work ([`Charge::prepare`], a dry run), then record it once, just before its result is published
//! ([`Charge::record`]). A refusal at either step means nothing is published; a crash between recording and
//! publishing over-counts (a release recorded but never seen), never under-counts.

use crate::{Admission, Ledger, LedgerError, Receipt};
use manifold_dp::privacy::Guarantee;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// A release to be charged to a ledger: checked when prepared, recorded (once) by [`Charge::record`]. It may
/// be shared between the threads of one release (the first to publish records it).
#[derive(Debug)]
pub struct Charge {
    ledger: Mutex<Ledger>,
    dataset: String,
    mechanism: String,
    request_id: Option<String>,
    admission: Admission,
    recorded: AtomicBool,
}

impl Charge {
    /// Checks (a dry run of [`Ledger::record_new`]) that a release of `dataset` by `mechanism` with
    /// `guarantees` would be recorded: a budget that it fits (or `admission` allowing none), and an unused
    /// `request_id`. The refusal, if any, comes before any work.
    pub fn prepare(
        ledger: Ledger,
        dataset: &str,
        mechanism: &str,
        guarantees: &[Guarantee],
        request_id: Option<&str>,
        admission: Admission,
    ) -> Result<Charge, LedgerError> {
        ledger.check_new(dataset, guarantees, request_id, admission)?;
        Ok(Charge {
            ledger: Mutex::new(ledger),
            dataset: dataset.to_string(),
            mechanism: mechanism.to_string(),
            request_id: request_id.map(str::to_string),
            admission,
            recorded: AtomicBool::new(false),
        })
    }

    /// The data set charged.
    pub fn dataset(&self) -> &str {
        &self.dataset
    }

    /// Whether the release has been recorded.
    pub fn is_recorded(&self) -> bool {
        self.recorded.load(Ordering::SeqCst)
    }

    /// Records the release with the guarantees its mechanism reports, just before its result is published:
    /// the receipt, or `None` if it was already recorded (later calls do nothing). Refused over budget, or if
    /// another release took the request id meanwhile (check and insert are one transaction).
    pub fn record(&self, guarantees: &[Guarantee]) -> Result<Option<Receipt>, LedgerError> {
        let ledger = self.ledger.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if self.recorded.load(Ordering::SeqCst) {
            return Ok(None);
        }
        let receipt = ledger.record_new(
            &self.dataset,
            &self.mechanism,
            guarantees,
            self.request_id.as_deref(),
            self.admission,
        )?;
        self.recorded.store(true, Ordering::SeqCst);
        Ok(Some(receipt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_charge_is_checked_first_and_recorded_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.sqlite");
        let ledger = Ledger::create(&path).unwrap();
        ledger.set_budget("d", Guarantee::pure(1.5)).unwrap();
        let g = [Guarantee::pure(1.0)];
        let admit = Admission::default();
        let charge = Charge::prepare(Ledger::open(&path).unwrap(), "d", "mean", &g, Some("r1"), admit).unwrap();
        assert!(!charge.is_recorded());
        assert!(charge.record(&g).unwrap().is_some());
        assert!(charge.record(&g).unwrap().is_none(), "recorded once");
        assert!(charge.is_recorded());
        assert_eq!(ledger.releases(Some("d")).unwrap().len(), 1);
        // Over budget, a reused request id, or no budget: refused when prepared, before any work.
        let again = Charge::prepare(Ledger::open(&path).unwrap(), "d", "mean", &g, None, admit).unwrap_err();
        assert!(again.is_refusal());
        let reused = Charge::prepare(Ledger::open(&path).unwrap(), "d", "mean", &g, Some("r1"), admit).unwrap_err();
        assert!(reused.is_refusal());
        let none = Charge::prepare(Ledger::open(&path).unwrap(), "typo", "mean", &g, None, admit).unwrap_err();
        assert!(none.is_refusal());
        assert_eq!(ledger.releases(None).unwrap().len(), 1);
    }
}
