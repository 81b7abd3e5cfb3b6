//! What people see: reports (text and JSON), progress bars and SVG figures.

pub mod plot;
pub mod progress;
pub mod report;
