//! What every kind of value column shares: finding the columns in a schema, reading fields as numbers or
//! text, and the decode/encode contract the privatize pipeline drives ([`PointColumns`]).

use crate::Error;
use arrow_array::{Array, ArrayRef, Float64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Schema, SchemaRef};

/// Why one row could not be read as a point.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// The column at fault, or `None` when the record as a whole is not a point.
    pub column: Option<String>,
    /// What is wrong, for people.
    pub reason: String,
}

/// Rows per task when decoding in parallel.
pub const DECODE_CHUNK: usize = 4096;

/// The points of a batch: one per row, and what is wrong with the invalid rows.
pub struct Decoded<P> {
    /// One point per row (a placeholder where the row is invalid).
    pub points: Vec<P>,
    /// (row index in the batch, problem), ascending.
    pub problems: Vec<(usize, Problem)>,
}

/// The value columns of a table: how to read each row into a point and write noisy points back.
pub trait PointColumns: Sync {
    /// The space's point type.
    type Point: Send + Sync;
    /// The input's value column names.
    fn names(&self) -> &[String];
    /// The output table's schema.
    fn output_schema(&self) -> SchemaRef;
    /// The output's value column names.
    fn output_names(&self) -> Vec<String>;
    /// Reads every row of `batch`; invalid rows are listed, in row order, in `problems`.
    fn decode(&self, batch: &RecordBatch) -> Result<Decoded<Self::Point>, Error>;
    /// The output batch: `batch`'s other columns unchanged, the value columns replaced by `noisy`.
    fn encode(&self, batch: &RecordBatch, noisy: &[Self::Point]) -> Result<RecordBatch, Error>;
    /// Reads one row given as numbers (`values`, one per input column, in order): the same point, or the same
    /// problem with the same message, as [`PointColumns::decode`] gives for a row of numeric columns. For
    /// callers that hold rows in memory (a numpy array) and must not copy them into columns first.
    fn decode_numbers(&self, values: &[f64]) -> Result<Self::Point, Problem>;
    /// Writes `point` as the numbers [`PointColumns::encode`] writes into numeric output columns, one per
    /// output column, in order, into `out`.
    fn encode_numbers(&self, point: &Self::Point, out: &mut [f64]);
}

/// The problem [`ColumnView::value`] reports for a field that is not a finite number, for rows given as
/// numbers: the first such value, named by its column.
pub fn check_finite(names: &[String], values: &[f64]) -> Result<(), Problem> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(j) => Err(Problem { column: Some(names[j].clone()), reason: not_finite(values[j]) }),
    }
}

/// Why a field is refused: one message for numbers read from columns and from memory.
fn not_finite(v: f64) -> String {
    format!("{v} is not a finite number")
}

fn numeric_or_text(dt: &DataType) -> bool {
    match dt {
        // Dictionary-encoded columns (Parquet writes text that way) are read through their values.
        DataType::Dictionary(_, values) => numeric_or_text(values),
        // Times and timestamps are read as times of day (`DirectionColumns` on timeofday; refused elsewhere).
        dt if crate::temporal::is_temporal(dt) => true,
        dt => dt.is_numeric() || matches!(dt, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View),
    }
}

/// Positions of `names` in `schema`, each holding numbers or text; `needed_for` says what needs them (for the
/// error).
pub fn find_columns(schema: &Schema, names: &[String], needed_for: &str) -> Result<Vec<usize>, Error> {
    let mut positions = Vec::with_capacity(names.len());
    for name in names {
        let Some(pos) = schema.fields().iter().position(|f| f.name() == name) else {
            return Err(Error::MissingColumn {
                name: name.clone(),
                needed_for: needed_for.to_string(),
                available: schema.fields().iter().map(|f| f.name().clone()).collect(),
            });
        };
        if positions.contains(&pos) {
            return Err(Error::DuplicateColumn(name.clone()));
        }
        let dt = schema.field(pos).data_type();
        if !numeric_or_text(dt) {
            return Err(Error::NotNumbersOrText { name: name.clone(), data_type: dt.to_string() });
        }
        positions.push(pos);
    }
    Ok(positions)
}

/// Reads the rows of `batch` in parallel, `DECODE_CHUNK` at a time: `read(row, scratch)` gives row `row`'s point
/// (with `scratch` a reusable buffer of `width` numbers) or its problem; invalid rows hold `placeholder`.
pub fn decode_rows<P: Clone + Send>(
    rows: usize,
    width: usize,
    placeholder: P,
    read: impl Fn(usize, &mut [f64]) -> Result<P, Problem> + Sync,
) -> Decoded<P> {
    use rayon::prelude::*;
    let mut points = vec![placeholder; rows];
    if rows <= DECODE_CHUNK {
        // One chunk: read it on this thread. The first parallel call starts rayon's pool and waits for a
        // worker to wake (about a millisecond), more than a small file takes to read.
        let mut values = vec![0.0; width];
        let mut problems = Vec::new();
        for (row, point) in points.iter_mut().enumerate() {
            match read(row, &mut values) {
                Ok(p) => *point = p,
                Err(p) => problems.push((row, p)),
            }
        }
        return Decoded { points, problems };
    }
    let problems = points
        .par_chunks_mut(DECODE_CHUNK)
        .enumerate()
        .flat_map_iter(|(c, chunk)| {
            let mut values = vec![0.0; width];
            let mut problems = Vec::new();
            for (i, point) in chunk.iter_mut().enumerate() {
                let row = c * DECODE_CHUNK + i;
                match read(row, &mut values) {
                    Ok(p) => *point = p,
                    Err(p) => problems.push((row, p)),
                }
            }
            problems
        })
        .collect();
    Decoded { points, problems }
}

/// The views of the columns at `positions` (named `names`) of `batch`.
pub fn views(batch: &RecordBatch, positions: &[usize], names: &[String]) -> Result<Vec<ColumnView>, Error> {
    positions.iter().zip(names).map(|(&pos, name)| ColumnView::new(batch.column(pos), name)).collect()
}

/// Reads field `row` of every view into `values`, or names the first column whose field is not a number.
pub fn read_numbers(views: &[ColumnView], names: &[String], row: usize, values: &mut [f64]) -> Result<(), Problem> {
    for (j, view) in views.iter().enumerate() {
        values[j] = view.value(row).map_err(|reason| Problem { column: Some(names[j].clone()), reason })?;
    }
    Ok(())
}

/// `s.trim()`, without its character-by-character scan when `s` starts and ends with a printable ASCII
/// character (every number in a CSV file as written by a program): such an end cannot be whitespace.
#[inline]
fn trim(s: &str) -> &str {
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (Some(a), Some(b)) if a.is_ascii_graphic() && b.is_ascii_graphic() => s,
        _ => s.trim(),
    }
}

/// One value column, as text or as numbers.
pub enum ColumnView {
    /// Text (CSV fields, clock times).
    Text(StringArray),
    /// Numbers; the flag says whether any is null.
    Number(Float64Array, bool),
}

impl ColumnView {
    /// The column `array`, named `name`, read as text or cast to numbers.
    pub fn new(array: &ArrayRef, name: &str) -> Result<Self, Error> {
        let cast = |to: &DataType| {
            arrow_cast::cast(array, to)
                .map_err(|e| Error::from_arrow(format!("column {name:?} cannot be read as numbers: {e}"), e))
        };
        let values_type = match array.data_type() {
            DataType::Dictionary(_, values) => values.as_ref(),
            dt => dt,
        };
        if crate::temporal::is_temporal(values_type) {
            return Err(Error::NotNumbersOrText {
                name: name.to_string(),
                data_type: format!("{values_type} (times are read as times of day on space timeofday only)"),
            });
        }
        match values_type {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                let a = cast(&DataType::Utf8)?;
                Ok(ColumnView::Text(a.as_any().downcast_ref::<StringArray>().expect("cast to Utf8").clone()))
            }
            _ => {
                let a = cast(&DataType::Float64)?;
                let a = a.as_any().downcast_ref::<Float64Array>().expect("cast to Float64").clone();
                let nulls = a.null_count() > 0;
                Ok(ColumnView::Number(a, nulls))
            }
        }
    }

    /// The field as text (trimmed), or `None` for a numeric column.
    #[inline]
    pub fn text(&self, row: usize) -> Option<&str> {
        match self {
            ColumnView::Text(a) => Some(trim(a.value(row))),
            ColumnView::Number(..) => None,
        }
    }

    /// The field as a finite number.
    #[inline]
    pub fn value(&self, row: usize) -> Result<f64, String> {
        let v = match self {
            ColumnView::Text(a) => {
                let text = trim(a.value(row));
                if text.is_empty() {
                    return Err("empty field; a number is needed".into());
                }
                text.parse::<f64>().map_err(|_| format!("{text:?} is not a number"))?
            }
            ColumnView::Number(a, nulls) => {
                if *nulls && a.is_null(row) {
                    return Err("empty field (null); a number is needed".into());
                }
                a.value(row)
            }
        };
        if v.is_finite() { Ok(v) } else { Err(not_finite(v)) }
    }
}
