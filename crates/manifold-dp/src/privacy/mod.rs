//! What a mechanism guarantees ([`Guarantee`]), how a user's budget becomes a mechanism parameter
//! ([`calibration`]), and how costs add up and convert between notions ([`accounting`]).

pub mod accounting;
pub mod calibration;
pub mod float_safety;
pub mod guarantee;
pub mod renyi;
pub use crate::numerics::rounding;
pub mod rules;
pub mod stated;

pub use accounting::{Notion, Target, compose, compose_advanced, compose_parallel, convert, express, implied};
pub use guarantee::{Chart, Grid, Guarantee, Metric, RaoFamily};
pub use stated::{Neighbouring, StatedGuarantee};
