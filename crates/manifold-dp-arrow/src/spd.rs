//! Where SPD matrices are in a table: K·K value columns per row, row-major, read and validated into a
//! matrix (finite, symmetric within tolerance, positive definite), or a complaint naming the column.

use crate::Error;
use crate::columns::{Decoded, Problem, decode_rows, find_columns, read_numbers, views};
use arrow_array::RecordBatch;
use arrow_schema::Schema;
use manifold_dp::Error as LibError;
use manifold_dp::space::spd::{DEFAULT_SYMMETRY_TOLERANCE, spd_from_row_major};
use nalgebra::DMatrix;

/// Default column names m11, m12, …, mKK (m1_10 style once K ≥ 10).
pub fn default_names(k: usize) -> Vec<String> {
    let sep = if k >= 10 { "_" } else { "" };
    (1..=k).flat_map(|i| (1..=k).map(move |j| format!("m{i}{sep}{j}"))).collect()
}

/// The SPD columns of a table.
#[derive(Debug, Clone)]
pub struct SpdColumns {
    k: usize,
    positions: Vec<usize>,
    names: Vec<String>,
}

impl SpdColumns {
    /// Finds the K·K columns (named by `columns`, else m11,…,mKK) in `schema`.
    pub fn locate(schema: &Schema, k: usize, columns: Option<&[String]>) -> Result<Self, Error> {
        let names = columns.map(<[String]>::to_vec).unwrap_or_else(|| default_names(k));
        if names.len() != k * k {
            let what = format!("space spd:{k} (the matrix row by row)");
            return Err(Error::ColumnCount { what, needed: k * k, given: names });
        }
        let positions = find_columns(schema, &names, &format!("space spd:{k} (row by row)"))?;
        Ok(SpdColumns { k, positions, names })
    }

    /// The value column names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    fn explain(&self, e: LibError) -> Problem {
        match e {
            LibError::NonFinite { component, .. } => {
                Problem { column: Some(self.names[component].clone()), reason: e.to_string() }
            }
            other => Problem { column: None, reason: other.to_string() },
        }
    }

    /// Reads every row of `batch` into a validated SPD matrix.
    pub fn decode(&self, batch: &RecordBatch) -> Result<Decoded<DMatrix<f64>>, Error> {
        let views = views(batch, &self.positions, &self.names)?;
        Ok(decode_rows(batch.num_rows(), self.k * self.k, DMatrix::zeros(0, 0), |row, values| {
            read_numbers(&views, &self.names, row, values)?;
            spd_from_row_major(values, self.k, DEFAULT_SYMMETRY_TOLERANCE).map_err(|e| self.explain(e))
        }))
    }
}
