//! Geometry of the spaces the mechanisms act on. This release: the rotation group SO(3).

pub mod euler;
pub mod representation;
pub mod so3;
pub mod so3_metric;

pub use representation::{AngleUnit, Representation};
pub use so3::Tolerance;
