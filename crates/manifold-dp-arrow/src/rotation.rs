//! Where the rotations are in a table: finding their columns, reading each row into a validated rotation
//! (or a precise complaint naming the column), and writing noisy rotations back as columns.

use crate::Error;
use crate::columns::{
    ColumnView, Decoded, PointColumns, Problem, check_finite, decode_rows, find_columns, read_numbers, views,
};
use arrow_array::{ArrayRef, Float64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use manifold_dp::Error as LibError;
use manifold_dp::space::representation::Representation;
use manifold_dp::space::so3::Tolerance;
use nalgebra::UnitQuaternion;
use rayon::prelude::*;
use std::sync::Arc;

/// The largest rotation-vector norm accepted, in radians: 4π, as for Euler angles.
pub const MAX_ROTVEC_ANGLE: f64 = 4.0 * std::f64::consts::PI;

/// The rotation columns of a table and how to read and write them.
#[derive(Debug, Clone)]
pub struct RotationColumns {
    input: Representation,
    output: Representation,
    /// Positions of the input's rotation columns, in representation order.
    positions: Vec<usize>,
    names: Vec<String>,
    output_schema: SchemaRef,
    /// Positions of the output's rotation columns.
    output_positions: Vec<usize>,
    tolerance: Tolerance,
}

impl RotationColumns {
    /// Finds the columns of `input` (named by `columns`, else the representation's default names) in
    /// `schema`, and lays out the output table: the same columns, with the rotation written in `output`
    /// (same columns and names when `output == input`; otherwise the new representation's default names, at
    /// the place of the first input rotation column).
    pub fn locate(
        schema: &Schema,
        input: Representation,
        columns: Option<&[String]>,
        output: Representation,
    ) -> Result<Self, Error> {
        let names: Vec<String> = match columns {
            Some(c) => c.to_vec(),
            None => input.column_names(),
        };
        if names.len() != input.len() {
            return Err(Error::ColumnCount {
                what: format!("rotation format {input}"),
                needed: input.len(),
                given: names,
            });
        }
        let positions = find_columns(schema, &names, &format!("rotations in {input}"))?;
        // Noisy values are never null; a column keeps its declared nullability (a front end such as Spark needs
        // the output schema to be the input's).
        let noisy = |name: &str| Field::new(name, DataType::Float64, false);
        let replaced = |f: &Field| Field::new(f.name(), DataType::Float64, f.is_nullable());
        let (fields, output_positions): (Vec<Field>, Vec<usize>) = if output == input {
            let fields = schema
                .fields()
                .iter()
                .enumerate()
                .map(|(i, f)| if positions.contains(&i) { replaced(f) } else { f.as_ref().clone() })
                .collect();
            (fields, positions.clone())
        } else {
            let first = *positions.iter().min().expect("a representation has columns");
            let new_names = output.column_names();
            let mut fields = Vec::new();
            let mut out_pos = Vec::new();
            for (i, f) in schema.fields().iter().enumerate() {
                if i == first {
                    for n in &new_names {
                        out_pos.push(fields.len());
                        fields.push(noisy(n));
                    }
                }
                if !positions.contains(&i) {
                    if new_names.contains(f.name()) {
                        return Err(Error::OutputColumnExists { name: f.name().clone(), format: output.to_string() });
                    }
                    fields.push(f.as_ref().clone());
                }
            }
            (fields, out_pos)
        };
        Ok(RotationColumns {
            input,
            output,
            positions,
            names,
            output_schema: Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone())),
            output_positions,
            tolerance: Tolerance::default(),
        })
    }

    fn decode_row(&self, views: &[ColumnView], row: usize, values: &mut [f64]) -> Result<UnitQuaternion<f64>, Problem> {
        read_numbers(views, &self.names, row, values)?;
        self.decode_finite(values)
    }

    /// The rotation of one row of finite numbers.
    fn decode_finite(&self, values: &[f64]) -> Result<UnitQuaternion<f64>, Problem> {
        if self.input == Representation::RotVec {
            // The angle is the vector's norm: beyond 4π (the bound on Euler angles too) it is almost certainly a
            // unit mistake or a corrupt value, and beyond ~1e154 its square overflows into a NaN rotation.
            let (j, largest) =
                values.iter().enumerate().fold((0, 0.0f64), |m, (j, v)| if v.abs() > m.1 { (j, v.abs()) } else { m });
            let norm =
                if largest > MAX_ROTVEC_ANGLE { largest } else { values.iter().map(|v| v * v).sum::<f64>().sqrt() };
            if norm > MAX_ROTVEC_ANGLE {
                return Err(Problem {
                    column: Some(self.names[j].clone()),
                    reason: format!(
                        "rotation vector of norm at least {norm:e} rad: an angle beyond 4π (two full turns) is a \
                         corrupt value or the wrong unit (degrees?)"
                    ),
                });
            }
        }
        let q = self.input.decode(values, &self.tolerance).map_err(|e| self.explain(e))?;
        if !q.coords.iter().all(|c| c.is_finite()) {
            // Never release a rotation that is not a number: every row is either released or reported.
            return Err(Problem { column: None, reason: "the values do not give a finite rotation".into() });
        }
        Ok(q)
    }

    fn explain(&self, e: LibError) -> Problem {
        let column = match &e {
            LibError::NonFinite { component, .. } | LibError::AngleOutOfRange { component, .. } => {
                self.names.get(*component).cloned()
            }
            _ => None,
        };
        Problem { column, reason: e.to_string() }
    }
}

impl PointColumns for RotationColumns {
    type Point = UnitQuaternion<f64>;

    /// The input's rotation column names.
    fn names(&self) -> &[String] {
        &self.names
    }

    /// The output table's schema.
    fn output_schema(&self) -> SchemaRef {
        self.output_schema.clone()
    }

    /// The output's rotation column names.
    fn output_names(&self) -> Vec<String> {
        self.output_positions.iter().map(|&i| self.output_schema.field(i).name().clone()).collect()
    }

    /// Reads every row of `batch` as a rotation, in parallel. Invalid rows hold the identity in `points` and
    /// are listed, in row order, in `problems`.
    fn decode(&self, batch: &RecordBatch) -> Result<Decoded<UnitQuaternion<f64>>, Error> {
        let views = views(batch, &self.positions, &self.names)?;
        let k = self.input.len();
        Ok(decode_rows(batch.num_rows(), k, UnitQuaternion::identity(), |row, values| {
            self.decode_row(&views, row, values)
        }))
    }

    /// The output batch: `batch`'s other columns unchanged, the rotation columns replaced by `noisy`.
    fn encode(&self, batch: &RecordBatch, noisy: &[UnitQuaternion<f64>]) -> Result<RecordBatch, Error> {
        let k = self.output.len();
        let mut flat = vec![0.0; noisy.len() * k];
        flat.par_chunks_mut(k).zip(noisy.par_iter()).for_each(|(out, q)| self.output.encode_into(q, out));
        let noisy_columns: Vec<ArrayRef> = (0..k)
            .map(|j| Arc::new(Float64Array::from_iter_values(flat.iter().skip(j).step_by(k).copied())) as ArrayRef)
            .collect();
        let first = *self.positions.iter().min().expect("a representation has columns");
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.output_schema.fields().len());
        for (i, col) in batch.columns().iter().enumerate() {
            match self.positions.iter().position(|&p| p == i) {
                None => columns.push(col.clone()),
                // Same representation: each noisy column takes its input column's place.
                Some(j) if self.output == self.input => columns.push(noisy_columns[j].clone()),
                // Another representation: all of its columns go where the first input column was.
                Some(_) if i == first => columns.extend(noisy_columns.iter().cloned()),
                Some(_) => {}
            }
        }
        Ok(RecordBatch::try_new(self.output_schema.clone(), columns)?)
    }

    fn decode_numbers(&self, values: &[f64]) -> Result<UnitQuaternion<f64>, Problem> {
        check_finite(&self.names, values)?;
        self.decode_finite(values)
    }

    fn encode_numbers(&self, point: &UnitQuaternion<f64>, out: &mut [f64]) {
        self.output.encode_into(point, out);
    }
}
