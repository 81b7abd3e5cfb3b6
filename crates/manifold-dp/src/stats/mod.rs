//! Summaries of privatized data.

pub mod angular_error;

pub use angular_error::AngularErrorSummary;
