//! Tables in files: CSV or Parquet in, CSV or Parquet out, streamed as arrow `RecordBatch`es so that memory
//! stays constant whatever the file size. Nothing here knows about rotations.

pub mod format;
pub mod reader;
pub mod writer;

pub use format::{FileFormat, parse_delimiter};
pub use reader::{InputBatch, TableReader};
pub use writer::TableWriter;

/// Rows per batch (noise is keyed by row, so batching never changes a release).
pub const BATCH_ROWS: usize = 65_536;
