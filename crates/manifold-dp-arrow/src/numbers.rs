//! Rows of plain numbers held in memory — a numpy array, a caller's buffer — released straight into an output
//! buffer: the same validation, keyed noise, float-safe snap and encoding as [`crate::privatize_batch`] on a
//! table whose value columns hold those numbers, bit for bit, without copying the rows into columns first or
//! the noisy rows out of them (a front end's memory stays at its input plus its output).

use crate::columns::{PointColumns, Problem};
use crate::real::RealColumns;
use crate::{Codec, Error};
use arrow_schema::{DataType, Field, Schema};
use manifold_dp::mechanism::Mechanism;
use manifold_dp::mechanism::batch::KeyedRows;
use manifold_dp::mechanism::scalar::BoundedLaplace;
use manifold_dp::registry::{PointMechanism, Space};
use manifold_dp::sample::rng::StreamKey;
use rayon::prelude::*;

/// Rows per parallel task: large enough that a task's setup (its row blocks' key setup, its buffers) is
/// negligible, small enough that two cores share the work evenly.
const ROWS_PER_TASK: usize = 2048;

/// A table of numbers in memory: value `j` of row `i` is `data[i * row_stride + j * column_stride]`
/// (row-major: `row_stride = width`, `column_stride = 1`; column-major: `row_stride = 1`,
/// `column_stride = rows`).
#[derive(Debug, Clone, Copy)]
pub struct NumberRows<'a> {
    data: &'a [f64],
    rows: usize,
    width: usize,
    row_stride: usize,
    column_stride: usize,
}

impl<'a> NumberRows<'a> {
    /// `rows` rows of `width` numbers laid out in `data` with the given strides (in elements); an error if a
    /// row would read past the end of `data`.
    pub fn new(
        data: &'a [f64],
        rows: usize,
        width: usize,
        row_stride: usize,
        column_stride: usize,
    ) -> Result<Self, Error> {
        let last = if rows == 0 || width == 0 {
            None
        } else {
            (rows - 1)
                .checked_mul(row_stride)
                .zip((width - 1).checked_mul(column_stride))
                .and_then(|(a, b)| a.checked_add(b))
        };
        if rows > 0 && width > 0 && last.is_none_or(|l| l >= data.len()) {
            return Err(Error::arrow(format!(
                "{rows} rows of {width} numbers with strides ({row_stride}, {column_stride}) do not fit in {} numbers",
                data.len()
            )));
        }
        Ok(NumberRows { data, rows, width, row_stride, column_stride })
    }

    /// Rows of `width` numbers one after another (a C-order array).
    pub fn row_major(data: &'a [f64], width: usize) -> Result<Self, Error> {
        let rows = data.len().checked_div(width).unwrap_or(0);
        if rows * width != data.len() {
            return Err(Error::arrow(format!("{} numbers are not rows of {width}", data.len())));
        }
        Self::new(data, rows, width, width, 1)
    }

    /// Columns of `rows` numbers one after another (a Fortran-order array).
    pub fn column_major(data: &'a [f64], rows: usize) -> Result<Self, Error> {
        let width = data.len().checked_div(rows).unwrap_or(0);
        if rows * width != data.len() {
            return Err(Error::arrow(format!("{} numbers are not columns of {rows}", data.len())));
        }
        Self::new(data, rows, width, 1, rows)
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The numbers per row.
    pub fn width(&self) -> usize {
        self.width
    }

    #[inline]
    fn read(&self, row: usize, values: &mut [f64]) {
        let start = row * self.row_stride;
        if self.column_stride == 1 {
            values.copy_from_slice(&self.data[start..start + self.width]);
        } else {
            for (j, v) in values.iter_mut().enumerate() {
                *v = self.data[start + j * self.column_stride];
            }
        }
    }
}

/// The names [`number_codec`] gives the value columns of rows of numbers: `c0`, `c1`, …, so that a problem
/// names its column by position.
pub fn number_column_names(width: usize) -> Vec<String> {
    (0..width).map(|j| format!("c{j}")).collect()
}

/// The codec of rows of `width` numbers of `space` written as `format` (as [`Codec::locate`]; the output in
/// the input's format): the codec of a table of `width` numeric columns named by [`number_column_names`].
pub fn number_codec(space: Space, format: Option<&str>, width: usize) -> Result<Codec, Error> {
    let names = number_column_names(width);
    let schema = Schema::new(names.iter().map(|n| Field::new(n, DataType::Float64, false)).collect::<Vec<_>>());
    Codec::locate(&schema, space, format, Some(&names), None)
}

/// The numbers per row that `codec` writes.
pub fn output_width(codec: &Codec) -> usize {
    codec.output_names().len()
}

/// Releases every row of `input` into `output` (row-major, [`output_width`] numbers per row): row `i` is
/// read with `codec` (from [`number_codec`]), released with stream `first_row + i` of `key`, snapped to the
/// mechanism's public grid and written back, exactly as [`crate::privatize_batch`] with `RowIds::First`
/// releases the same numbers held in columns. Parallel; `input` is only read.
///
/// Returns the rows that are not points (ascending, with their problem): their output holds NaN, and a
/// caller that must not release anything when a row is invalid checks this list before publishing.
pub fn privatize_numbers(
    mechanism: &PointMechanism,
    codec: &Codec,
    input: &NumberRows<'_>,
    output: &mut [f64],
    key: &StreamKey,
    first_row: u64,
) -> Result<Vec<(usize, Problem)>, Error> {
    if input.width != codec.names().len() {
        return Err(Error::arrow(format!("rows of {} numbers for {} value columns", input.width, codec.names().len())));
    }
    if output.len() != input.rows * output_width(codec) {
        return Err(Error::arrow(format!(
            "an output of {} numbers for {} rows of {}",
            output.len(),
            input.rows,
            output_width(codec)
        )));
    }
    match (mechanism, codec) {
        (PointMechanism::So3(m), Codec::Rotation(c)) => release(m, c, input, output, key, first_row),
        (PointMechanism::Sphere(m), Codec::Direction(c)) => release(m, c, input, output, key, first_row),
        (PointMechanism::Real(m), Codec::Real(c)) if m.columns() == c.names().len() => {
            Ok(release_real(m, c, input, output, key, first_row))
        }
        _ => Err(crate::mismatch(mechanism, codec)),
    }
}

fn release<C, M>(
    mech: &M,
    columns: &C,
    input: &NumberRows<'_>,
    output: &mut [f64],
    key: &StreamKey,
    first_row: u64,
) -> Result<Vec<(usize, Problem)>, Error>
where
    C: PointColumns,
    M: Mechanism<Point = C::Point> + Sync,
{
    let keyed = KeyedRows::new(key);
    let width_out = columns.output_names().len();
    if width_out == 0 || input.rows == 0 {
        return Ok(Vec::new());
    }
    // Each task reads its rows, draws their noise and writes them: one pass over the memory, with only a
    // task's points held at a time.
    // A draw the mechanism cannot represent fails the whole call: the buffer then mixes releases and inputs.
    let pieces = output
        .par_chunks_mut(ROWS_PER_TASK * width_out)
        .enumerate()
        .map(|(c, out)| -> Result<Vec<(usize, Problem)>, Error> {
            let start = c * ROWS_PER_TASK;
            let rows = out.len() / width_out;
            let mut values = vec![0.0; input.width];
            let mut points = Vec::with_capacity(rows);
            let mut ids = Vec::with_capacity(rows);
            let mut at = Vec::with_capacity(rows);
            let mut problems = Vec::new();
            for i in 0..rows {
                input.read(start + i, &mut values);
                match columns.decode_numbers(&values) {
                    Ok(p) => {
                        points.push(p);
                        ids.push(first_row + (start + i) as u64);
                        at.push(i);
                    }
                    Err(p) => {
                        out[i * width_out..(i + 1) * width_out].fill(f64::NAN);
                        problems.push((start + i, p));
                    }
                }
            }
            keyed.privatize(mech, &mut points, &ids)?;
            for (p, &i) in points.iter().zip(&at) {
                columns.encode_numbers(p, &mut out[i * width_out..(i + 1) * width_out]);
            }
            Ok(problems)
        })
        .collect::<Result<Vec<_>, Error>>()?;
    Ok(pieces.into_iter().flatten().collect())
}

/// [`release`] for plain numbers, with no point per row: each row is read into its place in `output`, checked
/// and released there ([`BoundedLaplace::privatize_in_place`]) with the generator [`release`] would give it, so
/// the bits are the same (`rows_in_memory_release_the_same_bits_as_columns`).
fn release_real(
    mech: &BoundedLaplace,
    columns: &RealColumns,
    input: &NumberRows<'_>,
    output: &mut [f64],
    key: &StreamKey,
    first_row: u64,
) -> Vec<(usize, Problem)> {
    let keyed = KeyedRows::new(key);
    let width = input.width;
    if width == 0 || input.rows == 0 {
        return Vec::new();
    }
    output
        .par_chunks_mut(ROWS_PER_TASK * width)
        .enumerate()
        .flat_map_iter(|(c, out)| {
            let start = c * ROWS_PER_TASK;
            let rows = out.len() / width;
            let mut ids = Vec::with_capacity(rows);
            let mut at = Vec::with_capacity(rows);
            let mut problems = Vec::new();
            for i in 0..rows {
                let row = &mut out[i * width..(i + 1) * width];
                input.read(start + i, row);
                match columns.check_numbers(row) {
                    Ok(()) => {
                        ids.push(first_row + (start + i) as u64);
                        at.push(i);
                    }
                    Err(p) => {
                        row.fill(f64::NAN);
                        problems.push((start + i, p));
                    }
                }
            }
            keyed.for_each_row(&ids, |k, rng| {
                mech.privatize_in_place(&mut out[at[k] * width..(at[k] + 1) * width], rng)
            });
            problems
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RowIds, privatize_batch};
    use arrow_array::{Array, ArrayRef, Float64Array, RecordBatch};
    use manifold_dp::registry::{Budget, MechanismName};
    use std::sync::Arc;

    /// `rows` rows of `width` pseudo-random numbers in `lo..hi`, row-major.
    fn values(rows: usize, width: usize, lo: f64, hi: f64) -> Vec<f64> {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        (0..rows * width)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                lo + (hi - lo) * (s >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect()
    }

    /// The same rows as a table of columns `c0, c1, …`, released by the Arrow path: (row-major output,
    /// problems).
    fn by_columns(
        mech: &PointMechanism,
        space: Space,
        format: Option<&str>,
        rows: &[f64],
        width: usize,
    ) -> (Vec<f64>, Vec<(usize, Problem)>) {
        let n = rows.len() / width;
        let columns: Vec<(String, ArrayRef)> = number_column_names(width)
            .into_iter()
            .enumerate()
            .map(|(j, name)| {
                (name, Arc::new(Float64Array::from_iter_values((0..n).map(|i| rows[i * width + j]))) as ArrayRef)
            })
            .collect();
        let batch = RecordBatch::try_from_iter(columns).unwrap();
        let codec = number_codec(space, format, width).unwrap();
        let key = StreamKey::from_seed_for_experiments(4);
        let released = privatize_batch(mech, &codec, &batch, &key, RowIds::First(0)).unwrap();
        let kept: Vec<usize> = (0..n).filter(|i| !released.rejected.iter().any(|(r, _)| r == i)).collect();
        let out_width = released.batch.num_columns();
        let mut out = vec![f64::NAN; n * out_width];
        for j in 0..out_width {
            let c = released.batch.column(j).as_any().downcast_ref::<Float64Array>().unwrap();
            for (k, &i) in kept.iter().enumerate() {
                out[i * out_width + j] = c.value(k);
            }
        }
        (out, released.rejected)
    }

    /// Row-major, column-major and strided views of `rows` all release the Arrow path's bits.
    fn same_as_columns(space: Space, name: MechanismName, format: Option<&str>, rows: &[f64], width: usize) {
        let mech = PointMechanism::new(space, name, Budget::Epsilon(2.0)).unwrap();
        same_bits_as_columns(&mech, space, format, rows, width);
    }

    fn same_bits_as_columns(mech: &PointMechanism, space: Space, format: Option<&str>, rows: &[f64], width: usize) {
        let mech = mech.clone();
        let (want, want_problems) = by_columns(&mech, space, format, rows, width);
        let n = rows.len() / width;
        let codec = number_codec(space, format, width).unwrap();
        let key = StreamKey::from_seed_for_experiments(4);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
        let column_major: Vec<f64> = (0..width).flat_map(|j| (0..n).map(move |i| rows[i * width + j])).collect();
        // Every other row of a table twice as long, each row's values three apart.
        let mut strided = vec![0.0; 2 * n * 3 * width];
        for i in 0..n {
            for j in 0..width {
                strided[2 * i * 3 * width + 3 * j] = rows[i * width + j];
            }
        }
        for view in [
            NumberRows::row_major(rows, width).unwrap(),
            NumberRows::column_major(&column_major, n).unwrap(),
            NumberRows::new(&strided, n, width, 6 * width, 3).unwrap(),
        ] {
            let mut out = vec![0.0; want.len()];
            let problems = privatize_numbers(&mech, &codec, &view, &mut out, &key, 0).unwrap();
            assert_eq!(bits(&out), bits(&want), "{space} {format:?}");
            assert_eq!(problems, want_problems);
        }
    }

    #[test]
    fn rows_in_memory_release_the_same_bits_as_columns() {
        let n = 5000;
        let mut quats = values(n, 4, -1.0, 1.0);
        for q in quats.chunks_mut(4) {
            let norm = q.iter().map(|v| v * v).sum::<f64>().sqrt();
            q.iter_mut().for_each(|v| *v /= norm);
        }
        same_as_columns(Space::So3, MechanismName::Laplace, Some("quat-xyzw"), &quats, 4);
        same_as_columns(Space::So3, MechanismName::Bingham, Some("quat-wxyz"), &quats, 4);
        same_as_columns(Space::So3, MechanismName::Laplace, Some("rotvec"), &values(n, 3, -2.0, 2.0), 3);
        let mut latlon = values(n, 2, -80.0, 80.0);
        latlon.iter_mut().skip(1).step_by(2).for_each(|lon| *lon *= 2.0);
        same_as_columns(Space::LatLon, MechanismName::Purkayastha, None, &latlon, 2);
        same_as_columns(Space::Circle, MechanismName::Vmf, Some("deg"), &values(n, 1, -400.0, 400.0), 1);
        same_as_columns(Space::TimeOfDay, MechanismName::Purkayastha, None, &values(n, 1, 0.0, 24.0), 1);
        let mut unit = values(n, 5, -1.0, 1.0);
        for x in unit.chunks_mut(5) {
            let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            x.iter_mut().for_each(|v| *v /= norm);
        }
        same_as_columns(Space::Sphere(5), MechanismName::Vmf, None, &unit, 5);
        // Plain numbers take their own path (`release_real`, in place): the same bits as the columns' generic one,
        // values outside the bounds and non-finite rows included.
        let mut reals = values(n, 3, -20.0, 120.0);
        reals[7] = f64::NAN;
        reals[3 * 11 + 2] = f64::INFINITY;
        let real = PointMechanism::bounded(0.0, 100.0, 3, Budget::Epsilon(1.0)).unwrap();
        same_bits_as_columns(&real, Space::Real, None, &reals, 3);
    }

    #[test]
    fn bad_rows_are_reported_as_from_columns_and_left_as_nan() {
        let mut quats = [0.0, 0.0, 0.0, 1.0].repeat(3000);
        quats[4 * 7 + 2] = f64::NAN;
        quats[4 * 2500..4 * 2501].copy_from_slice(&[1.0, 1.0, 0.0, 0.0]);
        same_as_columns(Space::So3, MechanismName::Laplace, Some("quat-xyzw"), &quats, 4);
        let mech = PointMechanism::new(Space::So3, MechanismName::Laplace, Budget::Epsilon(2.0)).unwrap();
        let codec = number_codec(Space::So3, Some("quat-xyzw"), 4).unwrap();
        let mut out = vec![0.0; quats.len()];
        let key = StreamKey::from_seed_for_experiments(4);
        let rows = NumberRows::row_major(&quats, 4).unwrap();
        let problems = privatize_numbers(&mech, &codec, &rows, &mut out, &key, 0).unwrap();
        assert_eq!(problems.iter().map(|(r, _)| *r).collect::<Vec<_>>(), [7, 2500]);
        assert_eq!(problems[0].1.column.as_deref(), Some("c2"));
        assert!(out[4 * 7..4 * 8].iter().all(|v| v.is_nan()));
        assert!(out[4 * 8..4 * 9].iter().all(|v| v.is_finite()));
    }

    #[test]
    fn mismatched_shapes_are_errors() {
        let data = [0.0; 8];
        assert!(NumberRows::new(&data, 3, 4, 4, 1).is_err());
        assert!(NumberRows::row_major(&data, 3).is_err());
        let rows = NumberRows::row_major(&data, 4).unwrap();
        let mech = PointMechanism::new(Space::So3, MechanismName::Laplace, Budget::Epsilon(2.0)).unwrap();
        let codec = number_codec(Space::So3, Some("quat-xyzw"), 4).unwrap();
        let key = StreamKey::from_seed_for_experiments(4);
        assert!(privatize_numbers(&mech, &codec, &rows, &mut [0.0; 4], &key, 0).is_err());
        let circle = number_codec(Space::Circle, None, 1).unwrap();
        assert!(privatize_numbers(&mech, &circle, &rows, &mut [0.0; 8], &key, 0).is_err());
        let empty = NumberRows::row_major(&[], 4).unwrap();
        assert!(privatize_numbers(&mech, &codec, &empty, &mut [], &key, 0).unwrap().is_empty());
    }
}
