//! Where plain numbers are in a table (the `real` space): one or more value columns per row, read as finite
//! numbers (or a complaint naming the column) and written back as doubles in place. Clamping to the public
//! bounds is the mechanism's job (`BoundedLaplace`), not the codec's: the codec only refuses what is not a number.

use crate::Error;
use crate::columns::{Decoded, PointColumns, Problem, check_finite, decode_rows, find_columns, read_numbers, views};
use arrow_array::{ArrayRef, Float64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::Arc;

/// The default value column of the `real` space.
pub const DEFAULT_COLUMN: &str = "value";

/// The numeric value columns of a table.
#[derive(Debug, Clone)]
pub struct RealColumns {
    positions: Vec<usize>,
    names: Vec<String>,
    output_schema: SchemaRef,
}

impl RealColumns {
    /// Finds the columns `columns` (default: `value`) in `schema`; the output keeps every column in place,
    /// the value columns as doubles.
    pub fn locate(schema: &Schema, columns: Option<&[String]>) -> Result<Self, Error> {
        let names = columns.map(<[String]>::to_vec).unwrap_or_else(|| vec![DEFAULT_COLUMN.to_string()]);
        if names.is_empty() {
            return Err(Error::ColumnCount { what: "space real".into(), needed: 1, given: names });
        }
        let positions = find_columns(schema, &names, "space real")?;
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| {
                if positions.contains(&i) {
                    Field::new(f.name(), DataType::Float64, f.is_nullable())
                } else {
                    f.as_ref().clone()
                }
            })
            .collect();
        Ok(RealColumns {
            positions,
            names,
            output_schema: Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone())),
        })
    }
}

impl RealColumns {
    /// What [`PointColumns::decode_numbers`] checks of a row, without making its point.
    pub(crate) fn check_numbers(&self, values: &[f64]) -> Result<(), Problem> {
        check_finite(&self.names, values)
    }
}

impl PointColumns for RealColumns {
    type Point = Vec<f64>;

    fn names(&self) -> &[String] {
        &self.names
    }

    fn output_schema(&self) -> SchemaRef {
        self.output_schema.clone()
    }

    fn output_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn decode(&self, batch: &RecordBatch) -> Result<Decoded<Vec<f64>>, Error> {
        let views = views(batch, &self.positions, &self.names)?;
        let k = self.names.len();
        Ok(decode_rows(batch.num_rows(), k, vec![0.0; k], |row, values| -> Result<Vec<f64>, Problem> {
            read_numbers(&views, &self.names, row, values)?;
            Ok(values.to_vec())
        }))
    }

    fn encode(&self, batch: &RecordBatch, noisy: &[Vec<f64>]) -> Result<RecordBatch, Error> {
        let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
        for (j, &pos) in self.positions.iter().enumerate() {
            columns[pos] = Arc::new(Float64Array::from_iter_values(noisy.iter().map(|row| row[j])));
        }
        Ok(RecordBatch::try_new(self.output_schema.clone(), columns)?)
    }

    fn decode_numbers(&self, values: &[f64]) -> Result<Vec<f64>, Problem> {
        self.check_numbers(values)?;
        Ok(values.to_vec())
    }

    fn encode_numbers(&self, point: &Vec<f64>, out: &mut [f64]) {
        out.copy_from_slice(point);
    }
}
