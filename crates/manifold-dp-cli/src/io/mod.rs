//! Files: CSV and Parquet tables streamed in batches, atomic outputs, and removal of temporary files on
//! interrupts.

pub mod cleanup;
pub mod decimal;
pub mod output;
pub mod table;
