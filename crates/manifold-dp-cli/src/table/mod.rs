//! Tables in files: CSV or Parquet in, CSV or Parquet out, streamed as arrow `RecordBatch`es so that memory
//! stays constant whatever the file size. Nothing here knows about rotations.

pub mod format;
pub mod reader;
pub mod writer;

pub use format::FileFormat;
pub use reader::{InputBatch, TableReader};
pub use writer::TableWriter;

/// Rows per batch: a multiple of the library's rows per noise stream, so streams align with batches.
pub const BATCH_ROWS: usize = 16 * manifold_dp::mechanism::batch::ROWS_PER_STREAM as usize;
