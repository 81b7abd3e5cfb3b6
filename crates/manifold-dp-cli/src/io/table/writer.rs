//! Streaming writers into an [`Output`]: a temporary file beside the target that replaces it only when the
//! whole table was written (see `output.rs`), so a failure leaves no partial file.

use super::FileFormat;
use crate::BadInput;
use crate::io::output::{Output, Readers};
use anyhow::{Context, Result};
use arrow_array::RecordBatch;
use arrow_schema::{DataType, SchemaRef};
use manifold_dp_arrow::zone::zoned_timestamps_as_text;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

/// A table being written.
pub enum TableWriter {
    /// CSV with a header row; the flag says whether the output is a stream ([`Output::is_stream`]).
    Csv(Box<arrow_csv::Writer<Output>>, bool),
    /// Parquet (Snappy-compressed, like pyarrow's default).
    Parquet(Box<ArrowWriter<Output>>),
}

impl TableWriter {
    /// Creates `path` (refusing an existing file unless `force`) for tables of `schema`, to be read by
    /// `readers` once finished.
    ///
    /// Parquet: dictionary encoding only for text and binary columns (numbers rarely repeat enough to pay for
    /// the hashing), and `noisy_columns` uncompressed (noisy floats do not compress; Snappy would only cost
    /// time, and their min/max statistics would only say "about −1 to 1").
    pub fn create(
        path: &str,
        format: FileFormat,
        delimiter: Option<u8>,
        schema: SchemaRef,
        force: bool,
        noisy_columns: &[String],
        readers: Readers,
    ) -> Result<Self> {
        let out = Output::open_for(path, force, readers)?;
        match format {
            FileFormat::Csv | FileFormat::Tsv => {
                let stream = out.is_stream();
                let delimiter = format.delimiter(delimiter).unwrap_or(b',');
                let mut w = arrow_csv::WriterBuilder::new().with_header(true).with_delimiter(delimiter).build(out);
                // Writes the header even if no row follows.
                let header = RecordBatch::new_empty(schema.clone());
                w.write(&zoned_timestamps_as_text(&header).map_err(flat)?).context("cannot write the CSV header")?;
                Ok(TableWriter::Csv(Box::new(w), stream))
            }
            FileFormat::Parquet => {
                if matches!(out, Output::Stdout(_)) {
                    return Err(BadInput("Parquet cannot be written to standard output; give a file".into()).into());
                }
                let mut props = WriterProperties::builder().set_compression(Compression::SNAPPY);
                for field in schema.fields() {
                    let textual = matches!(
                        field.data_type(),
                        DataType::Utf8
                            | DataType::LargeUtf8
                            | DataType::Utf8View
                            | DataType::Binary
                            | DataType::LargeBinary
                    );
                    let path = ColumnPath::from(field.name().as_str());
                    if !textual && !field.data_type().is_nested() {
                        props = props.set_column_dictionary_enabled(path.clone(), false);
                    }
                    // Ids, counters and timestamps: delta encoding packs them tightly at a fraction of Snappy's cost.
                    if matches!(
                        field.data_type(),
                        DataType::Int32
                            | DataType::Int64
                            | DataType::Timestamp(..)
                            | DataType::Date32
                            | DataType::Date64
                    ) {
                        props = props
                            .set_column_encoding(path.clone(), Encoding::DELTA_BINARY_PACKED)
                            .set_column_compression(path, Compression::UNCOMPRESSED);
                    }
                }
                for name in noisy_columns {
                    let path = ColumnPath::from(name.as_str());
                    props = props
                        .set_column_compression(path.clone(), Compression::UNCOMPRESSED)
                        .set_column_statistics_enabled(path, EnabledStatistics::None);
                }
                let w =
                    ArrowWriter::try_new(out, schema, Some(props.build())).context("cannot start the Parquet file")?;
                Ok(TableWriter::Parquet(Box::new(w)))
            }
        }
    }

    /// Whether rows appear at once (standard output, a device, a FIFO) rather than when the file is finished.
    pub fn is_stream(&self) -> bool {
        match self {
            TableWriter::Csv(_, stream) => *stream,
            TableWriter::Parquet(w) => w.inner().is_stream(),
        }
    }

    /// Appends a batch.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        match self {
            TableWriter::Csv(w, _) => {
                w.write(&zoned_timestamps_as_text(batch).map_err(flat)?).context("cannot write CSV rows")
            }
            TableWriter::Parquet(w) => w.write(batch).context("cannot write Parquet rows"),
        }
    }

    /// Completes the file and moves it onto its target.
    pub fn finish(self) -> Result<()> {
        let out = match self {
            TableWriter::Csv(w, _) => w.into_inner(),
            TableWriter::Parquet(w) => w.into_inner().context("cannot finish the Parquet file")?,
        };
        out.finish()
    }
}

/// A table error as the command line prints it: its message alone, which already quotes Arrow's error (printing
/// the chain would repeat it). It stays bad input (exit code 2).
fn flat(e: manifold_dp_arrow::Error) -> BadInput {
    BadInput(e.to_string())
}
