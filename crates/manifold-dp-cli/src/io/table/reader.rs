//! Streaming readers. CSV columns are read as text, so that every column the tool does not privatize is
//! written back exactly as it was; Parquet columns keep their types.

use super::{BATCH_ROWS, FileFormat};
use crate::BadInput;
use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use std::cell::Cell;
use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Once};

/// Rows a CSV batch's column builders make room for at first; they grow as rows come. A full batch
/// (`BATCH_ROWS`) up front would map and unmap megabytes per column for a small file.
const INITIAL_ROWS: usize = 1024;

/// Bytes per field the builders make room for at first: a number written in full (`%.17g`, 17 digits, sign,
/// point and exponent) fits, so a column of numbers is not copied into ever larger buffers as it fills.
/// Room that is never written costs nothing (the pages are not touched).
const INITIAL_FIELD_BYTES: usize = 32;

thread_local! {
    /// Set while this thread runs the parquet crate's decoder under [`contained`].
    static CONTAINED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` (a call into the parquet crate) and turns a panic into an error message. The crate asserts on
/// some corrupt pages (a dictionary-encoded page without a dictionary, found by fuzzing) instead of
/// returning an error; a file is user input, so that must not crash the tool. The panic's default report
/// is silenced on this thread only while `f` runs; panics anywhere else still print.
fn contained<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CONTAINED.with(Cell::get) {
                default(info)
            }
        }));
    });
    CONTAINED.with(|c| c.set(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    CONTAINED.with(|c| c.set(false));
    result.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the decoder failed".into())
    })
}

/// A CSV record whose number of fields differs from the header's (kept raw for a rejects file).
#[derive(Debug, Clone)]
pub struct Malformed {
    /// 1-based data row number (the header is row 0).
    pub row: u64,
    /// 1-based line number in the file.
    pub line: u64,
    /// The fields as read.
    pub fields: Vec<String>,
    /// A blank line between rows (which the CSV parser would otherwise skip, shifting every later row).
    pub blank: bool,
}

impl Malformed {
    /// What is wrong with the record, for people; `width` is the header's number of fields.
    pub fn reason(&self, width: usize) -> String {
        if self.blank {
            "a blank line where a row should be".into()
        } else {
            format!("{} fields but the header has {width}", self.fields.len())
        }
    }
}

/// A batch of rows and where they came from.
#[derive(Debug)]
pub struct InputBatch {
    /// The well-formed rows.
    pub batch: RecordBatch,
    /// 1-based data row number of each row of `batch`.
    pub rows: Vec<u64>,
    /// Line number of each row of `batch` (CSV only).
    pub lines: Option<Vec<u64>>,
    /// Records with the wrong number of fields (CSV only; only collected when the caller skips invalid rows).
    pub malformed: Vec<Malformed>,
    /// Progress after this batch, in the unit of [`TableReader::progress_total`].
    pub progress: u64,
}

impl InputBatch {
    /// "row R (line L)" or "row R", for messages about row `i` of the batch.
    pub fn locate(&self, i: usize) -> String {
        match &self.lines {
            Some(lines) => format!("row {} (line {})", self.rows[i], lines[i]),
            None => format!("row {}", self.rows[i]),
        }
    }
}

/// A table being read batch by batch.
pub enum TableReader {
    /// CSV with a header row.
    Csv(CsvTable),
    /// Parquet.
    Parquet { reader: ParquetRecordBatchReader, schema: SchemaRef, total_rows: u64, next_row: u64, path: String },
}

/// CSV reader state.
pub struct CsvTable {
    reader: csv::Reader<Box<dyn Read + Send>>,
    schema: SchemaRef,
    next_row: u64,
    path: String,
    total_bytes: Option<u64>,
    keep_malformed: bool,
    /// The line where the next record starts unless blank lines come first.
    next_line: u64,
}

/// Bytes the CSV parser reads at a time: a file is read in system calls of this size.
const CSV_BUFFER: usize = 64 << 10;

/// The longest record a CSV input may have: 16 MiB. A row of 10 000 coordinates takes a few hundred kB; without
/// a bound, an input with no newline (`/dev/zero`, a binary file), or a quoted field that never closes, grows
/// one record until memory runs out.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// Passes bytes through and fails, as a read error, once a record exceeds [`MAX_LINE_BYTES`]: bytes are
/// counted since the last newline outside quotes (a newline inside a quoted field does not end the record).
struct LineCap<R> {
    inner: R,
    /// Bytes since the last record-ending newline.
    run: usize,
    /// Inside a quoted field (an escaped quote `""` toggles twice, so it leaves the state unchanged).
    quoted: bool,
}

impl<R> LineCap<R> {
    fn new(inner: R) -> Self {
        LineCap { inner, run: 0, quoted: false }
    }
}

impl<R: Read> Read for LineCap<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        // Only quotes and newlines change the state: jump between them (memchr2 scans a vector at a time; a
        // byte-by-byte loop was a twentieth of a small `mean`'s instructions).
        let mut from = 0;
        for at in memchr::memchr2_iter(b'"', b'\n', &buf[..n]) {
            if buf[at] == b'"' {
                self.quoted = !self.quoted;
            } else if !self.quoted {
                self.run = 0;
                from = at + 1;
                continue;
            }
            self.run += at + 1 - from;
            from = at + 1;
        }
        self.run += n - from;
        if self.run > MAX_LINE_BYTES {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "a record is longer than {} MiB (is this a CSV file? a quoted field that never closes?)",
                    MAX_LINE_BYTES >> 20
                ),
            ));
        }
        Ok(n)
    }
}

fn check_unique(names: &[String], path: &str) -> Result<(), BadInput> {
    let mut seen = HashSet::new();
    for name in names {
        if !seen.insert(name.as_str()) {
            return Err(BadInput(format!(
                "{path}: column name {name:?} appears more than once in the header; rename one of them"
            )));
        }
    }
    Ok(())
}

impl TableReader {
    /// Opens `path` (`-`: standard input, CSV only). `keep_malformed`: collect CSV records with the wrong
    /// number of fields instead of failing on the first.
    pub fn open(path: &str, format: FileFormat, delimiter: Option<u8>, keep_malformed: bool) -> Result<Self, BadInput> {
        let open = || File::open(path).map_err(|e| BadInput(format!("cannot read {path}: {e}")));
        match format {
            FileFormat::Csv | FileFormat::Tsv => {
                let delimiter = format.delimiter(delimiter).unwrap_or(b',');
                let (source, total_bytes): (Box<dyn Read + Send>, Option<u64>) = if path == "-" {
                    (Box::new(LineCap::new(std::io::stdin())), None)
                } else {
                    let file = open()?;
                    let len = file.metadata().ok().map(|m| m.len());
                    (Box::new(LineCap::new(file)), len)
                };
                // The parser's own buffer is the only one (a second, larger one in front of it copied every byte
                // once more, and mapped a fresh megabyte per file).
                let mut reader = csv::ReaderBuilder::new()
                    .flexible(true)
                    .delimiter(delimiter)
                    .buffer_capacity(CSV_BUFFER)
                    .from_reader(source);
                let header = reader.headers().map_err(|e| BadInput(format!("cannot read {path}: {e}")))?;
                if header.is_empty() {
                    return Err(BadInput(format!("{path} is empty: expected a header row naming the columns")));
                }
                let names: Vec<String> = header.iter().map(str::to_string).collect();
                let next_line = 2 + names.iter().map(|n| n.matches('\n').count() as u64).sum::<u64>();
                check_unique(&names, path)?;
                let fields: Vec<Field> = names.iter().map(|n| Field::new(n, DataType::Utf8, false)).collect();
                Ok(TableReader::Csv(CsvTable {
                    reader,
                    schema: Arc::new(Schema::new(fields)),
                    next_row: 1,
                    path: path.to_string(),
                    total_bytes,
                    keep_malformed,
                    next_line,
                }))
            }
            FileFormat::Parquet => {
                if path == "-" {
                    return Err(BadInput("Parquet cannot be read from standard input; give a file".into()));
                }
                let corrupt = |e: parquet::errors::ParquetError| {
                    BadInput(format!("{path} is not a readable Parquet file (truncated or corrupt?): {e}"))
                };
                let file = open()?;
                let builder = contained(|| ParquetRecordBatchReaderBuilder::try_new(file))
                    .map_err(|m| BadInput(format!("{path} is not a readable Parquet file (corrupt metadata: {m})")))?
                    .map_err(corrupt)?;
                // The parquet crate asserts (panics) on negative column offsets or sizes when it reads a column
                // chunk; a corrupt footer can hold them, so they are refused here first (found by fuzzing).
                for (g, group) in builder.metadata().row_groups().iter().enumerate() {
                    for column in group.columns() {
                        let start = column.dictionary_page_offset().unwrap_or(column.data_page_offset());
                        if start < 0 || column.compressed_size() < 0 || group.num_rows() < 0 {
                            return Err(BadInput(format!(
                                "{path} is not a readable Parquet file (corrupt metadata: row group {g} has a negative \
                                 offset, size or row count)"
                            )));
                        }
                    }
                }
                let total_rows = builder.metadata().file_metadata().num_rows().max(0) as u64;
                let schema = builder.schema().clone();
                let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
                check_unique(&names, path)?;
                let reader = contained(|| builder.with_batch_size(BATCH_ROWS).build())
                    .map_err(|m| BadInput(format!("{path} is not a readable Parquet file (corrupt metadata: {m})")))?
                    .map_err(corrupt)?;
                Ok(TableReader::Parquet { reader, schema, total_rows, next_row: 1, path: path.to_string() })
            }
        }
    }

    /// The table's schema (CSV: every column as text).
    pub fn schema(&self) -> SchemaRef {
        match self {
            TableReader::Csv(t) => t.schema.clone(),
            TableReader::Parquet { schema, .. } => schema.clone(),
        }
    }

    /// What progress is measured in, and the total: rows for Parquet, bytes for a CSV file.
    pub fn progress_total(&self) -> Option<(u64, &'static str)> {
        match self {
            TableReader::Csv(t) => t.total_bytes.map(|b| (b, "bytes")),
            TableReader::Parquet { total_rows, .. } => Some((*total_rows, "rows")),
        }
    }

    /// The next batch, or `None` at the end.
    pub fn next_batch(&mut self) -> Result<Option<InputBatch>, BadInput> {
        match self {
            TableReader::Csv(t) => t.next_batch(),
            TableReader::Parquet { reader, next_row, path, .. } => match contained(|| reader.next()) {
                Err(m) => {
                    Err(BadInput(format!("{path}: cannot read rows after row {} (corrupt file: {m})", *next_row - 1)))
                }
                Ok(None) => Ok(None),
                Ok(Some(Err(e))) => Err(BadInput(format!(
                    "{path}: cannot read rows after row {} (truncated or corrupt file?): {e}",
                    *next_row - 1
                ))),
                Ok(Some(Ok(batch))) => {
                    let n = batch.num_rows() as u64;
                    let rows = (*next_row..*next_row + n).collect();
                    *next_row += n;
                    Ok(Some(InputBatch { batch, rows, lines: None, malformed: Vec::new(), progress: *next_row - 1 }))
                }
            },
        }
    }
}

impl CsvTable {
    fn next_batch(&mut self) -> Result<Option<InputBatch>, BadInput> {
        let width = self.schema.fields().len();
        let mut builders: Vec<StringBuilder> = (0..width)
            .map(|_| StringBuilder::with_capacity(INITIAL_ROWS, INITIAL_ROWS * INITIAL_FIELD_BYTES))
            .collect();
        let (mut rows, mut lines, mut malformed) = (Vec::new(), Vec::new(), Vec::new());
        let mut record = csv::StringRecord::new();
        while rows.len() < BATCH_ROWS {
            // The line after the previous record: where this one starts unless blank lines come first.
            let start = self.reader.position().line();
            let more = self
                .reader
                .read_record(&mut record)
                .map_err(|e| BadInput(format!("{}: cannot read row {}: {e}", self.path, self.next_row)))?;
            if !more {
                break;
            }
            // The parser skips empty lines (and reports the record at the line where it began looking). The
            // line ends consumed, less the record's own, are blank lines before it; each is reported as a row of
            // its own, since a value silently missing would shift every later row. Blank lines after the last
            // row are ignored. (The parser consumes a record's line end with the record, or with the next one
            // after a CR LF, so one line end per record is counted either way.)
            let consumed = self.reader.position().line() - start;
            // The fields lie end to end in one buffer: one count instead of a search per field.
            let inner = record.as_byte_record().as_slice().iter().filter(|&&b| b == b'\n').count() as u64;
            let blanks = consumed.saturating_sub(inner + 1);
            let line = self.next_line + blanks;
            self.next_line = line + inner + 1;
            for blank in line - blanks..line {
                let row = self.next_row;
                self.next_row += 1;
                if !self.keep_malformed {
                    return Err(BadInput(format!(
                        "{}: row {row} (line {blank}) is a blank line; remove it (every line after the header must be \
                         a row), or pass --skip-invalid REJECTS.csv to set such rows aside",
                        self.path
                    )));
                }
                malformed.push(Malformed { row, line: blank, fields: vec![String::new()], blank: true });
            }
            let row = self.next_row;
            self.next_row += 1;
            if record.len() != width {
                if !self.keep_malformed {
                    return Err(BadInput(format!(
                        "{}: row {row} (line {line}) has {} fields but the header has {width}; fix the row or pass \
                         --skip-invalid REJECTS.csv to set such rows aside",
                        self.path,
                        record.len()
                    )));
                }
                malformed.push(Malformed {
                    row,
                    line,
                    fields: record.iter().map(str::to_string).collect(),
                    blank: false,
                });
                continue;
            }
            for (builder, field) in builders.iter_mut().zip(record.iter()) {
                builder.append_value(field);
            }
            rows.push(row);
            lines.push(line);
        }
        if rows.is_empty() && malformed.is_empty() {
            return Ok(None);
        }
        let columns: Vec<ArrayRef> = builders.into_iter().map(|mut b| Arc::new(b.finish()) as ArrayRef).collect();
        let batch =
            RecordBatch::try_new(self.schema.clone(), columns).map_err(|e| BadInput(format!("{}: {e}", self.path)))?;
        let progress = self.reader.position().byte();
        Ok(Some(InputBatch { batch, rows, lines: Some(lines), malformed, progress }))
    }
}
