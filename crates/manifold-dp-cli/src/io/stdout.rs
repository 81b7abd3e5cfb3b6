//! Standard output written fallibly. `println!` panics when standard output fails (a full disk, a closed
//! descriptor); here the failure is an error, and one that says whether a release was already recorded.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set once this run has recorded a release in a ledger: its budget is spent whatever is printed after.
static RECORDED: AtomicBool = AtomicBool::new(false);

/// Notes that this run recorded a release (called by the ledger's charge).
pub fn note_recorded() {
    RECORDED.store(true, Ordering::SeqCst);
}

/// The error of a failed write to standard output, its cause kept (a closed pipe stays recognisable).
pub fn failed(e: std::io::Error) -> anyhow::Error {
    let spent = if RECORDED.load(Ordering::SeqCst) {
        "; the release was recorded in the ledger before printing, so its budget is spent (the ledger's record \
         shows it; do not run it again expecting a free retry)"
    } else {
        ""
    };
    anyhow::Error::new(e).context(format!("cannot print the result to standard output{spent}"))
}

/// `println!` that returns [`failed`]'s error from the enclosing function instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            return Err($crate::io::stdout::failed(e).into());
        }
    }};
}
pub(crate) use outln;

/// `print!` that returns [`failed`]'s error from the enclosing function instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = write!(std::io::stdout().lock(), $($arg)*) {
            return Err($crate::io::stdout::failed(e).into());
        }
    }};
}
pub(crate) use out;
