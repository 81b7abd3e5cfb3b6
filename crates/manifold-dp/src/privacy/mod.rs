//! What a mechanism guarantees ([`Guarantee`]) and how a user's budget becomes a mechanism parameter
//! ([`calibration`]).

pub mod calibration;
pub mod guarantee;

pub use guarantee::{Guarantee, Metric};
