//! Files: CSV and Parquet tables streamed in batches, atomic outputs, and removal of temporary files on
//! interrupts; standard output written without panicking.

pub mod cleanup;
pub mod decimal;
pub mod output;
pub mod stdout;
pub mod table;
