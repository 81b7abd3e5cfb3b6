//! Summaries of privatized data.

pub mod angular_error;
pub mod histogram;

pub use angular_error::AngularErrorSummary;
pub use histogram::Histogram;
