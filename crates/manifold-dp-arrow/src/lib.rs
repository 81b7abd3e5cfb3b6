//! # manifold-dp-arrow
//!
//! The one path from a table of rows to private rows, shared by every front end (the command line, the Python
//! package, Spark executors): Arrow `RecordBatch` in, `RecordBatch` out.
//!
//! - Column codecs for every space: rotations in every representation ([`rotation`]), angles, times of day
//!   with their text forms, latitude/longitude and unit vectors ([`direction`], [`clock`]), SPD matrices
//!   ([`spd`]); one parallel decode ([`columns::decode_rows`]).
//! - Validation as data: a bad row is a [`Problem`] (row, column, reason), a bad table an [`Error`]; no exit
//!   codes, no command-line flags.
//! - [`MeanPlan`]: a private Fréchet mean over batches, in passes that many workers can share.
//! - [`privatize_numbers`]: the same release for rows of numbers held in memory (a numpy array), read in place
//!   and written straight into an output buffer.
//! - [`privatize_batch`]: decode, release each valid row with noise keyed by (release key, row identity), and
//!   encode, every other column unchanged. A row's noise depends only on the key and its identity (its index
//!   in the table, or the value of an id column), so re-batching, thread counts and recomputation never change
//!   a release.
//!
//! ```
//! use arrow_array::{Float64Array, RecordBatch};
//! use manifold_dp::registry::{Budget, MechanismName, PointMechanism, Space};
//! use manifold_dp::sample::rng::StreamKey;
//! use manifold_dp_arrow::{Codec, RowIds, privatize_batch};
//! use std::sync::Arc;
//!
//! let angles = Float64Array::from(vec![0.1, 2.0, 3.0]);
//! let batch = RecordBatch::try_from_iter([("angle", Arc::new(angles) as _)]).unwrap();
//! let mech = PointMechanism::new(Space::Circle, MechanismName::Purkayastha, Budget::Epsilon(2.0)).unwrap();
//! let codec = Codec::locate(&batch.schema(), Space::Circle, None, None, None).unwrap();
//! let key = StreamKey::from_seed_for_experiments(1); // StreamKey::from_os() for releases
//! let out = privatize_batch(&mech, &codec, &batch, &key, RowIds::First(0)).unwrap();
//! assert_eq!(out.batch.num_rows(), 3);
//! assert!(out.rejected.is_empty());
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod clock;
pub mod columns;
pub mod direction;
mod error;
pub mod extrinsic;
pub mod keyed;
pub mod mean;
pub mod mean_request;
pub mod numbers;
pub mod real;
pub mod rotation;
pub mod sample_request;
pub mod spd;
pub mod temporal;
pub mod zone;

pub use columns::{Decoded, PointColumns, Problem};
pub use direction::DirectionColumns;
pub use error::{ArrowSource, Error};
pub use extrinsic::{ExtrinsicMeanRelease, ExtrinsicPass, ExtrinsicPlan};
pub use mean::{MeanFit, MeanNoise, MeanPass, MeanPlan, MeanRelease, MeanStep, SpdMetric};
pub use mean_request::{Estimator, MeanBounds, MeanCenter, MeanRequest};
pub use numbers::{NumberRows, number_codec, privatize_numbers};
pub use real::RealColumns;
pub use rotation::RotationColumns;
pub use sample_request::{SamplePoint, SampleRequest};
pub use spd::SpdColumns;

use arrow_array::{BooleanArray, RecordBatch};
use arrow_schema::SchemaRef;
use arrow_select::filter::filter_record_batch;
use manifold_dp::mechanism::Mechanism;
use manifold_dp::mechanism::batch::privatize_by_id;
use manifold_dp::registry::{PointMechanism, Space};
use manifold_dp::sample::rng::{ROW_WORDS, RowRng, StreamKey};
use manifold_dp::space::representation::Representation;

/// The value columns of a table of points that a [`PointMechanism`] releases: rotations or directions.
#[derive(Debug, Clone)]
pub enum Codec {
    /// Rotations (SO(3)).
    Rotation(RotationColumns),
    /// Directions (circle, time of day, latitude/longitude, unit vectors).
    Direction(DirectionColumns),
    /// Plain numbers (the `real` space).
    Real(RealColumns),
}

impl Codec {
    /// Finds the value columns of `space` in `schema`. `format`: the rotation representation (`quat-wxyz` by
    /// default, `quat-xyzw`, `matrix`, `rotvec`, `euler:SEQ[:deg]`), or `rad`/`deg` on the circle;
    /// `columns`: the value column names (default: the format's own names); `output_format`: rotations only,
    /// the representation written (default: the input's).
    pub fn locate(
        schema: &arrow_schema::Schema,
        space: Space,
        format: Option<&str>,
        columns: Option<&[String]>,
        output_format: Option<&str>,
    ) -> Result<Self, Error> {
        match space {
            Space::So3 => {
                let input: Representation = format.unwrap_or("quat-wxyz").parse()?;
                let output: Representation = match output_format {
                    Some(f) => f.parse()?,
                    None => input,
                };
                Ok(Codec::Rotation(RotationColumns::locate(schema, input, columns, output)?))
            }
            Space::Spd(_) => Err(Error::Library(manifold_dp::Error::NotApplicable(format!(
                "space {space} has private means only, no per-row release"
            )))),
            Space::Real => {
                if let Some(f) = format.or(output_format) {
                    return Err(Error::FormatNotForSpace {
                        format: f.to_string(),
                        space: space.to_string(),
                        hint: "plain numbers are read as they are; drop it",
                    });
                }
                Ok(Codec::Real(RealColumns::locate(schema, columns)?))
            }
            _ => {
                if output_format.is_some() {
                    return Err(Error::Library(manifold_dp::Error::NotApplicable(format!(
                        "an output rotation format applies to space so3 only, not {space}"
                    ))));
                }
                Ok(Codec::Direction(DirectionColumns::locate(schema, space, format, columns)?))
            }
        }
    }

    /// The input's value column names.
    pub fn names(&self) -> &[String] {
        match self {
            Codec::Rotation(c) => c.names(),
            Codec::Direction(c) => c.names(),
            Codec::Real(c) => c.names(),
        }
    }

    /// The output's value column names.
    pub fn output_names(&self) -> Vec<String> {
        match self {
            Codec::Rotation(c) => c.output_names(),
            Codec::Direction(c) => c.output_names(),
            Codec::Real(c) => c.output_names(),
        }
    }

    /// The output table's schema.
    pub fn output_schema(&self) -> SchemaRef {
        match self {
            Codec::Rotation(c) => c.output_schema(),
            Codec::Direction(c) => c.output_schema(),
            Codec::Real(c) => c.output_schema(),
        }
    }

    /// The rows of `batch` that are not points, in row order (reads every row, releases nothing).
    pub fn problems(&self, batch: &RecordBatch) -> Result<Vec<(usize, Problem)>, Error> {
        Ok(match self {
            Codec::Rotation(c) => c.decode(batch)?.problems,
            Codec::Direction(c) => c.decode(batch)?.problems,
            Codec::Real(c) => c.decode(batch)?.problems,
        })
    }
}

/// Which row is which: the identity a row's noise is keyed by.
#[derive(Debug, Clone, Copy)]
pub enum RowIds<'a> {
    /// The batch holds the rows `first, first + 1, …` of a table (0-based).
    First(u64),
    /// One id per row of the batch (distinct within a release).
    Given(&'a [u64]),
    /// The values of this column (integers or text, distinct and non-null within a release), together with
    /// each row's values: a row's noise is keyed by (key, id, its input values) ([`keyed`]), so a row whose
    /// values changed between two evaluations of one release never gets the same noise again.
    Column(&'a str),
}

/// A released batch.
#[derive(Debug)]
pub struct Released {
    /// The valid rows, privatized: every other column unchanged and in order.
    pub batch: RecordBatch,
    /// The rows (indices into the input batch, ascending) that are not points, and why; they are not in `batch`.
    pub rejected: Vec<(usize, Problem)>,
    /// Which input rows are in `batch` (`None`: all of them).
    pub kept: Option<BooleanArray>,
}

/// Releases every valid row of `batch` with `mechanism`: decode with `codec`, draw each row's noise from the
/// stream of `key` named by its identity in `ids`, snap to the mechanism's public grid (float safety), encode.
///
/// Invalid rows are left out of the output and listed in [`Released::rejected`]; a caller that must not
/// release anything when a row is invalid checks that list before publishing.
pub fn privatize_batch(
    mechanism: &PointMechanism,
    codec: &Codec,
    batch: &RecordBatch,
    key: &StreamKey,
    ids: RowIds<'_>,
) -> Result<Released, Error> {
    let streams = match ids {
        RowIds::Column(name) => Streams::Keys(keyed::row_keys(batch, name, codec.names(), key)?),
        ids => Streams::Ids(row_ids(batch, ids)?),
    };
    match (mechanism, codec) {
        (PointMechanism::So3(m), Codec::Rotation(c)) => release(m, c, batch, key, streams),
        (PointMechanism::Sphere(m), Codec::Direction(c)) => release(m, c, batch, key, streams),
        (PointMechanism::Real(m), Codec::Real(c)) if m.columns() == c.names().len() => {
            release(m, c, batch, key, streams)
        }
        _ => Err(mismatch(mechanism, codec)),
    }
}

/// Where each row's noise comes from.
enum Streams {
    /// Row stream `ids[i]` of the release key.
    Ids(Vec<u64>),
    /// The row's own block and overflow key ([`keyed::row_keys`]).
    Keys(keyed::RowKeys),
}

impl Streams {
    /// The streams of the rows kept.
    fn filter(self, keep: &[bool]) -> Self {
        fn kept<T>(v: Vec<T>, keep: &[bool]) -> Vec<T> {
            v.into_iter().zip(keep).filter(|(_, k)| **k).map(|(x, _)| x).collect()
        }
        match self {
            Streams::Ids(ids) => Streams::Ids(kept(ids, keep)),
            Streams::Keys(keys) => {
                let blocks = keys.blocks.chunks(ROW_WORDS).zip(keep).filter(|(_, k)| **k).flat_map(|(b, _)| b);
                let blocks = blocks.copied().collect();
                Streams::Keys(keyed::RowKeys { blocks, overflow: kept(keys.overflow, keep) })
            }
        }
    }

    /// Releases `points` in place, point `i` with stream `i` of these (on an error, publish none of them).
    fn privatize<M>(&self, mech: &M, points: &mut [M::Point], key: &StreamKey) -> Result<(), Error>
    where
        M: Mechanism + Sync,
        M::Point: Send,
    {
        match self {
            Streams::Ids(ids) => Ok(privatize_by_id(mech, points, &|i| ids[i], key)?),
            Streams::Keys(keys) => {
                use rayon::prelude::*;
                let rows = keys.blocks.par_chunks(1024 * ROW_WORDS).zip(keys.overflow.par_chunks(1024));
                Ok(points.par_chunks_mut(1024).zip(rows).try_for_each(|(piece, (blocks, overflow))| {
                    mech.privatize_each(piece, |i| {
                        RowRng::new(&blocks[i * ROW_WORDS..(i + 1) * ROW_WORDS], 0, &overflow[i])
                    })
                })?)
            }
        }
    }
}

fn release<C, M>(
    mech: &M,
    columns: &C,
    batch: &RecordBatch,
    key: &StreamKey,
    streams: Streams,
) -> Result<Released, Error>
where
    C: PointColumns,
    M: Mechanism<Point = C::Point> + Sync,
{
    let Decoded { mut points, problems } = columns.decode(batch)?;
    if problems.is_empty() {
        streams.privatize(mech, &mut points, key)?;
        return Ok(Released { batch: columns.encode(batch, &points)?, rejected: problems, kept: None });
    }
    let mut keep = vec![true; points.len()];
    for (i, _) in &problems {
        keep[*i] = false;
    }
    let streams = streams.filter(&keep);
    let mut kept_points: Vec<C::Point> = points.into_iter().zip(&keep).filter(|(_, k)| **k).map(|(p, _)| p).collect();
    streams.privatize(mech, &mut kept_points, key)?;
    let kept = BooleanArray::from(keep);
    let out = columns.encode(&filter_record_batch(batch, &kept)?, &kept_points)?;
    Ok(Released { batch: out, rejected: problems, kept: Some(kept) })
}

/// The identity of every row of `batch`.
fn row_ids(batch: &RecordBatch, ids: RowIds<'_>) -> Result<Vec<u64>, Error> {
    let n = batch.num_rows();
    match ids {
        RowIds::First(first) => Ok((0..n as u64).map(|i| first + i).collect()),
        RowIds::Given(ids) => {
            if ids.len() != n {
                return Err(Error::arrow(format!("{} row ids for a batch of {n} rows", ids.len())));
            }
            Ok(ids.to_vec())
        }
        RowIds::Column(_) => unreachable!("keyed rows have keys of their own"),
    }
}

#[cfg(test)]
mod tests;

/// Why a mechanism cannot release a codec's columns (a different space, or a different number of values).
pub(crate) fn mismatch(mechanism: &PointMechanism, codec: &Codec) -> Error {
    Error::Library(manifold_dp::Error::NotApplicable(match (mechanism, codec) {
        (PointMechanism::Real(m), Codec::Real(c)) => format!(
            "the mechanism is calibrated for rows of {} values, the table has {} value columns",
            m.columns(),
            c.names().len()
        ),
        _ => "the mechanism and the value columns are of different spaces".into(),
    }))
}
