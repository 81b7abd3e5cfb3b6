//! What can be wrong with a table as a whole (a missing column, a column of the wrong type), as data. What is
//! wrong with one row is a [`crate::Problem`] instead: a batch with bad rows still decodes, and the caller
//! decides whether to stop or to set the rows aside.

use arrow_schema::ArrowError;
use std::sync::Arc;

/// A table that cannot be read as points of a space, or a batch that cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A value column that the table does not have.
    #[error("no column {name:?} for {needed_for}; the columns are: {}", available.join(","))]
    MissingColumn {
        /// The column looked for.
        name: String,
        /// What needs it (`rotations in quat-wxyz`).
        needed_for: String,
        /// The table's columns.
        available: Vec<String>,
    },
    /// A column named twice among the value columns.
    #[error("column {0:?} is named twice among the value columns")]
    DuplicateColumn(String),
    /// A value column that holds neither numbers nor text.
    #[error("column {name:?} holds {data_type}, not numbers or text")]
    NotNumbersOrText {
        /// The column.
        name: String,
        /// Its Arrow type.
        data_type: String,
    },
    /// The wrong number of value columns for the space or format.
    #[error("{what} needs {needed} column{} but {} named: {}", if *needed == 1 { "" } else { "s" },
        match given.len() { 1 => "1 was".to_string(), n => format!("{n} were") }, given.join(","))]
    ColumnCount {
        /// The space or format (`quat-wxyz`, `latlon (lat,lon)`).
        what: String,
        /// How many it needs.
        needed: usize,
        /// The names given.
        given: Vec<String>,
    },
    /// A format that the space does not have.
    #[error("format {format} does not apply to space {space}; {hint}")]
    FormatNotForSpace {
        /// The format asked for.
        format: String,
        /// The space.
        space: String,
        /// What to do instead.
        hint: &'static str,
    },
    /// An output column that would clash with a column the table already has.
    #[error("the table already has a column {name:?}, which the {format} output needs; rename it")]
    OutputColumnExists {
        /// The clashing name.
        name: String,
        /// The output format.
        format: String,
    },
    /// The row identity column is missing, of a type that is not an integer, null, or repeated.
    #[error("id column {column:?}: {reason}")]
    BadIds {
        /// The id column.
        column: String,
        /// What is wrong, naming the rows.
        reason: String,
    },
    /// A parameter of the release that the library refuses (a mechanism of another space, ε out of range).
    #[error(transparent)]
    Library(#[from] manifold_dp::Error),
    /// A column that cannot be converted, or a batch that cannot be assembled. The message already quotes
    /// Arrow's; `source()` gives Arrow's error itself where Arrow raised it.
    #[error("{message}")]
    Arrow {
        /// What failed, in words.
        message: String,
        /// Arrow's own error, where the failure is Arrow's.
        #[source]
        source: Option<ArrowSource>,
    },
}

impl Error {
    /// A conversion or assembly failure that Arrow did not raise.
    pub(crate) fn arrow(message: impl Into<String>) -> Self {
        Error::Arrow { message: message.into(), source: None }
    }

    /// A failure that Arrow raised, `message` quoting it in context.
    pub(crate) fn from_arrow(message: impl Into<String>, source: ArrowError) -> Self {
        Error::Arrow { message: message.into(), source: Some(ArrowSource(Arc::new(source))) }
    }
}

impl From<ArrowError> for Error {
    fn from(e: ArrowError) -> Self {
        Error::from_arrow(e.to_string(), e)
    }
}

/// Arrow's error kept as the source of an [`Error::Arrow`]: shared, so that [`Error`] stays `Clone`, and equal to
/// another when both say the same (Arrow's error has no equality of its own).
#[derive(Debug, Clone)]
pub struct ArrowSource(Arc<ArrowError>);

impl ArrowSource {
    /// Arrow's error.
    pub fn arrow_error(&self) -> &ArrowError {
        &self.0
    }
}

impl std::fmt::Display for ArrowSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for ArrowSource {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl PartialEq for ArrowSource {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}
