//! Temporary files are removed when a run is interrupted (SIGINT, SIGTERM, SIGHUP, SIGQUIT): they may hold a partial
//! release or, with `--skip-invalid`, raw rejected rows, and must not outlive the run. A thread waits for
//! those signals (through `signal-hook`, so nothing unsafe runs inside a signal handler), removes every
//! registered file and exits with 128 + the signal's number, as a shell reports a process killed by it.
//!
//! The thread starts with the first temporary file, before it is created: a run that writes none (`mean`,
//! `radius`, printing to stdout) never pays for it, and an interrupt before that point leaves nothing behind
//! either way.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The temporary files that exist now. A file is created and registered under this lock, and the signal
/// thread holds it from cleaning until the process exits, so no file can appear unregistered in between.
static TEMP_FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Set once the signal thread runs.
static WATCHING: OnceLock<()> = OnceLock::new();

/// Starts the thread that cleans up on SIGINT, SIGTERM, SIGHUP and SIGQUIT. Called once, with the `TEMP_FILES` lock
/// held, before the first temporary file is created.
fn install() -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP, SIGQUIT])?;
    std::thread::Builder::new().name("manifold-dp-signals".into()).spawn(move || {
        if let Some(signal) = signals.forever().next() {
            let files = TEMP_FILES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            for path in files.iter() {
                let _ = std::fs::remove_file(path);
            }
            // Exits with the lock held: no temporary file can be created after the clean-up.
            std::process::exit(128 + signal);
        }
    })?;
    Ok(())
}

/// A registered temporary file: removed by the signal thread on an interrupt, forgotten when dropped (by
/// then it was renamed onto its target, or deleted by its own destructor).
#[derive(Debug)]
pub struct Registered(PathBuf);

impl Drop for Registered {
    fn drop(&mut self) {
        let mut files = TEMP_FILES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(i) = files.iter().position(|p| *p == self.0) {
            files.swap_remove(i);
        }
    }
}

/// Creates a temporary file in `dir` with `builder` and registers it, atomically with respect to the
/// signal thread.
pub fn temp_file_in(
    builder: &tempfile::Builder<'_, '_>,
    dir: &Path,
) -> io::Result<(tempfile::NamedTempFile, Registered)> {
    let mut files = TEMP_FILES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if WATCHING.get().is_none() {
        install().map_err(|e| io::Error::new(e.kind(), format!("cannot watch for interrupts: {e}")))?;
        let _ = WATCHING.set(());
    }
    let tmp = builder.tempfile_in(dir)?;
    // Absolute, so that the clean-up does not depend on the working directory.
    let path = std::path::absolute(tmp.path()).unwrap_or_else(|_| tmp.path().to_path_buf());
    files.push(path.clone());
    Ok((tmp, Registered(path)))
}
