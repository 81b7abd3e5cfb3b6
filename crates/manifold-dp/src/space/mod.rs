//! Geometry of the spaces the mechanisms act on: the rotation group SO(3) and spheres S^{n−1}.

pub mod euler;
pub mod representation;
pub mod so3;
pub mod so3_metric;
pub mod sphere;

pub use representation::{AngleUnit, Representation};
pub use so3::Tolerance;
