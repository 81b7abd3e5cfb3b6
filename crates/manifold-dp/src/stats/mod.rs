//! Summaries of privatized data.

pub mod angular_error;
pub mod circular;
pub mod histogram;

pub use angular_error::AngularErrorSummary;
pub use circular::{
    CellBounds, CircularHistogram, LatLonGrid, MeanDirection, MeanDirectionAccumulator, central_mean_direction,
    circular_distance, circular_mean, local_mean_direction, mean_direction,
};
pub use histogram::Histogram;
