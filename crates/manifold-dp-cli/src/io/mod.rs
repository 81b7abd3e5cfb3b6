//! Files: CSV and Parquet tables streamed in batches, atomic outputs, and removal of temporary files on
//! interrupts; standard output written without panicking; the read → work → write stages of a streamed run, and
//! the file invalid rows are set aside in.

pub mod cleanup;
pub mod decimal;
pub mod output;
pub mod pipeline;
pub mod rejects;
pub mod stdout;
pub mod table;
