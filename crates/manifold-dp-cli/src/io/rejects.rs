//! Where `privatize --skip-invalid` sets invalid rows aside: raw CSV records exactly as read, or rows of a
//! Parquet input's schema.

use super::output::{Output, Readers};
use super::table::{FileFormat, InputBatch, TableReader, TableWriter};
use crate::BadInput;
use anyhow::Result;
use arrow_array::{Array, BooleanArray, StringArray};
use arrow_select::filter::filter_record_batch;

/// Where invalid rows go with --skip-invalid.
pub enum Rejects {
    /// Raw CSV records, exactly as read (CSV input).
    Csv(Box<csv::Writer<Output>>),
    /// Rows of the input's schema (Parquet input).
    Table(TableWriter),
}

impl Rejects {
    pub fn create(
        path: &str,
        in_fmt: FileFormat,
        delimiter: Option<u8>,
        reader: &TableReader,
        force: bool,
    ) -> Result<Self> {
        let fmt = FileFormat::resolve(None, path, "--skip-invalid").unwrap_or(in_fmt);
        match in_fmt.delimiter(delimiter) {
            Some(separator) => {
                if fmt == FileFormat::Parquet {
                    return Err(BadInput(format!(
                        "--skip-invalid {path}: rows of a CSV input are set aside as CSV (they may not even have the \
                         right number of fields); name it .csv"
                    ))
                    .into());
                }
                // Rejected rows keep the input's separator, so they can be fixed and fed back as they are.
                let mut w = csv::WriterBuilder::new()
                    .flexible(true)
                    .delimiter(separator)
                    .from_writer(Output::open_for(path, force, Readers::OwnerOnly)?);
                let schema = reader.schema();
                w.write_record(schema.fields().iter().map(|f| f.name().as_str()))?;
                Ok(Rejects::Csv(Box::new(w)))
            }
            None => Ok(Rejects::Table(TableWriter::create(
                path,
                fmt,
                None,
                reader.schema(),
                force,
                &[],
                Readers::OwnerOnly,
            )?)),
        }
    }

    /// Writes the rows of `input` not in `keep`, and its malformed records, in row order.
    pub fn write(&mut self, input: &InputBatch, keep: &BooleanArray) -> Result<()> {
        match self {
            Rejects::Csv(w) => {
                let columns: Vec<&StringArray> = input
                    .batch
                    .columns()
                    .iter()
                    .map(|c| c.as_any().downcast_ref::<StringArray>().expect("CSV columns are text"))
                    .collect();
                let mut rows: Vec<(u64, Vec<&str>)> =
                    input.malformed.iter().map(|m| (m.row, m.fields.iter().map(String::as_str).collect())).collect();
                for i in (0..keep.len()).filter(|&i| !keep.value(i)) {
                    rows.push((input.rows[i], columns.iter().map(|c| c.value(i)).collect()));
                }
                rows.sort_by_key(|r| r.0);
                for (_, fields) in rows {
                    w.write_record(fields)?;
                }
                Ok(())
            }
            Rejects::Table(w) => {
                let rejected = filter_record_batch(&input.batch, &negate(keep))?;
                w.write(&rejected)
            }
        }
    }

    pub fn finish(self) -> Result<()> {
        match self {
            Rejects::Csv(w) => w.into_inner().map_err(|e| e.into_error())?.finish(),
            Rejects::Table(w) => w.finish(),
        }
    }
}

fn negate(mask: &BooleanArray) -> BooleanArray {
    mask.iter().map(|v| Some(!v.unwrap_or(false))).collect()
}
