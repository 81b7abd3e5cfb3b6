//! Where SPD matrices are in a table: K·K value columns per row, row-major, read and validated into a
//! matrix (finite, symmetric within tolerance, positive definite), or a complaint naming the column.

use crate::BadInput;
use crate::columns::{ColumnView, DECODE_CHUNK, Decoded, Problem, find_columns};
use arrow_array::RecordBatch;
use arrow_schema::Schema;
use manifold_dp::Error as LibError;
use manifold_dp::space::spd::{DEFAULT_SYMMETRY_TOLERANCE, spd_from_row_major};
use nalgebra::DMatrix;
use rayon::prelude::*;

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
    pub fn locate(schema: &Schema, k: usize, columns: Option<&[String]>, path: &str) -> Result<Self, BadInput> {
        let names = columns.map(<[String]>::to_vec).unwrap_or_else(|| default_names(k));
        if names.len() != k * k {
            return Err(BadInput(format!(
                "--space spd:{k} needs {} columns (the matrix row by row) but --columns names {}: {}",
                k * k,
                names.len(),
                names.join(",")
            )));
        }
        let hint = if columns.is_none() { " (name the columns with --columns, row by row)" } else { "" };
        let positions = find_columns(schema, &names, path, &format!("--space spd:{k}{hint}"))?;
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
    pub fn decode(&self, batch: &RecordBatch) -> Result<Decoded<DMatrix<f64>>, BadInput> {
        let views: Vec<ColumnView> = self
            .positions
            .iter()
            .zip(&self.names)
            .map(|(&pos, name)| ColumnView::new(batch.column(pos), name))
            .collect::<Result<_, _>>()?;
        let mut points = vec![DMatrix::zeros(0, 0); batch.num_rows()];
        let problems = points
            .par_chunks_mut(DECODE_CHUNK)
            .enumerate()
            .flat_map_iter(|(c, chunk)| {
                let mut values = vec![0.0; self.k * self.k];
                let mut problems = Vec::new();
                for (i, point) in chunk.iter_mut().enumerate() {
                    let row = c * DECODE_CHUNK + i;
                    let read = views
                        .iter()
                        .enumerate()
                        .try_for_each(|(j, v)| {
                            values[j] = v
                                .value(row)
                                .map_err(|reason| Problem { column: Some(self.names[j].clone()), reason })?;
                            Ok(())
                        })
                        .and_then(|()| {
                            spd_from_row_major(&values, self.k, DEFAULT_SYMMETRY_TOLERANCE).map_err(|e| self.explain(e))
                        });
                    match read {
                        Ok(m) => *point = m,
                        Err(p) => problems.push((row, p)),
                    }
                }
                problems
            })
            .collect();
        Ok(Decoded { points, problems })
    }
}
