//! File formats, chosen by `--input-format`/`--output-format` or by the file's extension.

use crate::BadInput;
use clap::ValueEnum;
use std::path::Path;

/// A table file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FileFormat {
    /// Comma-separated values with a header row (another separator with --delimiter).
    Csv,
    /// Tab-separated values with a header row (CSV with a tab as the delimiter).
    Tsv,
    /// Apache Parquet.
    Parquet,
}

impl FileFormat {
    /// The format given explicitly, else the one the extension names (`.csv`, `.tsv` or `.tab`, `.parquet`,
    /// `.pq`).
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
            Some("tsv") | Some("tab") => Ok(FileFormat::Tsv),
            Some("parquet") | Some("pq") => Ok(FileFormat::Parquet),
            _ => Err(BadInput(format!(
                "cannot tell the format of {path} from its extension; name it .csv, .tsv or .parquet, or pass {flag} \
                 csv|tsv|parquet"
            ))),
        }
    }
}

impl FileFormat {
    /// The field separator of a delimited text format: `delimiter` if given, else the format's own (comma or
    /// tab); `None` for Parquet.
    pub fn delimiter(self, delimiter: Option<u8>) -> Option<u8> {
        match self {
            FileFormat::Csv => Some(delimiter.unwrap_or(b',')),
            FileFormat::Tsv => Some(delimiter.unwrap_or(b'\t')),
            FileFormat::Parquet => None,
        }
    }
}

/// `--delimiter C`: one ASCII character other than a quote, a line end or a digit, or `tab` / `\t`.
pub fn parse_delimiter(s: &str) -> Result<u8, String> {
    let c = match s {
        "tab" | "\\t" | "\t" => b'\t',
        _ if s.len() == 1 && s.is_ascii() => s.as_bytes()[0],
        _ => return Err(format!("{s:?} is not a delimiter: give one character (, ; | or tab)")),
    };
    if matches!(c, b'"' | b'\n' | b'\r') || c.is_ascii_alphanumeric() || c == b'.' || c == b'-' {
        return Err(format!("{s:?} cannot separate fields (it can appear in numbers or quotes): use , ; | or tab"));
    }
    Ok(c)
}

impl std::fmt::Display for FileFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FileFormat::Csv => "csv",
            FileFormat::Tsv => "tsv",
            FileFormat::Parquet => "parquet",
        })
    }
}
