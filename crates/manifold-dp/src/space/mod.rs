//! Geometry of the spaces the mechanisms act on: the rotation group SO(3), spheres S^{n−1} and SPD matrices.

pub mod euler;
pub mod grid;
pub mod kind;
pub mod metric;
pub mod representation;
pub mod so3;
pub mod so3_metric;
pub mod spd;
pub mod sphere;

pub use representation::{AngleUnit, Representation};
pub use so3::Tolerance;
