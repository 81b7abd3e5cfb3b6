//! File formats, chosen by `--input-format`/`--output-format` or by the file's extension.

use crate::BadInput;
use clap::ValueEnum;
use std::path::Path;

/// A table file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FileFormat {
    /// Comma-separated values with a header row.
    Csv,
    /// Apache Parquet.
    Parquet,
}

impl FileFormat {
    /// The format given explicitly, else the one the extension names (`.csv`, `.parquet`, `.pq`).
    pub fn resolve(explicit: Option<FileFormat>, path: &str, flag: &str) -> Result<FileFormat, BadInput> {
        if let Some(f) = explicit {
            return Ok(f);
        }
        // Standard output, and devices or FIFOs (`/dev/null`), which have no extension: CSV unless told.
        if path == "-" || crate::io::output::Output::is_special(path) {
            return Ok(FileFormat::Csv);
        }
        let ext = Path::new(path).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("csv") => Ok(FileFormat::Csv),
            Some("parquet") | Some("pq") => Ok(FileFormat::Parquet),
            _ => Err(BadInput(format!(
                "cannot tell the format of {path} from its extension; name it .csv or .parquet, or pass {flag} csv|parquet"
            ))),
        }
    }
}

impl std::fmt::Display for FileFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FileFormat::Csv => "csv",
            FileFormat::Parquet => "parquet",
        })
    }
}
