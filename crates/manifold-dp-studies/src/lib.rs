//! The papers' simulation studies behind `manifold-dp reproduce`: data generators, the experiments, asymptotic
//! formulas and extrinsic baselines. Each study takes its budget (samples, repetitions) and a seed, and returns
//! its results as typed rows; it reads and writes no files and prints nothing, so the front end decides how the
//! tables, figures and reports look.
//!
//! - [`so3`]: Hildebrandt et al., metric DP on SO(3): Figures 2 and 3 and the throughput comparison.
//! - [`directional`]: Weggenmann & Kerschbaum, DP for directional data: the circular-mean headline.
//! - [`riemannian`]: Reimherr, Bharath & Soto, DP Riemannian manifold summaries: Figure 1, plus SO(3).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod directional;
pub mod riemannian;
pub mod so3;

/// What can stop a study.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The library refused a parameter or a computation failed.
    #[error(transparent)]
    Library(#[from] manifold_dp::Error),
    /// A study parameter outside its range (too few repetitions to estimate a standard error, …).
    #[error("{0}")]
    InvalidStudy(String),
    /// A draw the study cannot score (probability ~0), e.g. generated data whose mean is undefined.
    #[error("{0}")]
    Degenerate(&'static str),
}

impl Error {
    /// Whether the caller's parameters caused the error, as opposed to a failure of a computation.
    pub fn is_bad_input(&self) -> bool {
        match self {
            Error::Library(e) => e.is_bad_input(),
            Error::InvalidStudy(_) => true,
            Error::Degenerate(_) => false,
        }
    }
}

/// Result type of the studies.
pub type Result<T> = std::result::Result<T, Error>;

/// Checks that a study has enough repetitions to estimate a standard error.
fn check_repetitions(repetitions: usize) -> Result<()> {
    if repetitions >= 2 {
        Ok(())
    } else {
        Err(Error::InvalidStudy(format!("at least 2 repetitions are needed, got {repetitions}")))
    }
}
