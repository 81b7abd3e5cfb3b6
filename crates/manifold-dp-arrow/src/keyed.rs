//! Row keys for releases keyed by an id column (Spark): a row's noise comes from its own randomness, a
//! pseudorandom function of (the release key, the row's id, the row's input values). So a recomputed row with
//! the same id and the same values draws exactly the same noise (one release, however often Spark evaluates
//! it), and a row whose values changed between two evaluations draws fresh, independent noise: the difference
//! of the two outputs is never the difference of the inputs.
//!
//! The function is BLAKE3 in its keyed mode, a pseudorandom function of inputs of any length: the batch key is
//! the keyed hash, under 32 bytes of the release key, of the batch's encoding prefix (how many value columns,
//! then the id's and each value column's type, each with its length); a row's randomness is the keyed hash's
//! extendable output, under the batch key, of the row's encoding (each field's presence byte, then its value,
//! text with its length first), which says where every field ends, so distinct rows have distinct encodings.
//! Its first 32 bytes key the row's overflow stream and the next 64 are the row's first block of noise words
//! (`RowRng`: the block, then stream 0 of the overflow key). One compression per row of up to 64 bytes and one
//! more for the output, where the ChaCha12 cascade used before made 16 block computations per row. Ids are
//! integers (any integer type, as 64-bit integers) or text (UTF-8), distinct and non-null within a release.

use crate::Error;
use arrow_array::{Array, ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::DataType;
use manifold_dp::sample::rng::{ROW_WORDS, StreamKey};
use rayon::prelude::*;
use std::collections::HashMap;

/// The stream of the release key whose first 32 bytes key every batch's key.
const ROW_KEY_STREAM: u64 = u64::from_le_bytes(*b"row-keys");

/// Every row's randomness: row `i`'s first block of noise words is `blocks[16i .. 16i + 16]`, and its overflow
/// stream is stream 0 of `overflow[i]` (read through `RowRng`).
pub struct RowKeys {
    /// [`ROW_WORDS`] words per row.
    pub blocks: Vec<u32>,
    /// Each row's overflow key.
    pub overflow: Vec<StreamKey>,
}

/// One field of the encoding, read from a column as its value decodes.
enum Field {
    /// Integers (ids).
    Integer(Int64Array),
    /// Text: ids, CSV fields, clock times.
    Text(StringArray),
    /// Numbers, as the codecs read them (cast to f64).
    Number(Float64Array),
    /// Times and timestamps, as integers in their column's unit (the type, with its time zone, is in the
    /// encoding's prefix).
    Time(Int64Array),
}

impl Field {
    fn new(column: &ArrayRef, name: &str) -> Result<Self, Error> {
        let cast = |to: &DataType| {
            arrow_cast::cast(column, to)
                .map_err(|e| Error::from_arrow(format!("column {name:?}: {e} (keying its rows)"), e))
        };
        let values = match column.data_type() {
            DataType::Dictionary(_, v) => v.as_ref().clone(),
            dt => dt.clone(),
        };
        Ok(match values {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                Field::Text(cast(&DataType::Utf8)?.as_any().downcast_ref::<StringArray>().expect("Utf8").clone())
            }
            dt if crate::temporal::is_temporal(&dt) => {
                let plain =
                    if matches!(column.data_type(), DataType::Dictionary(..)) { cast(&dt)? } else { column.clone() };
                let ints = arrow_cast::cast(&plain, &DataType::Int64)
                    .map_err(|e| Error::from_arrow(format!("column {name:?}: {e} (keying its rows)"), e))?;
                Field::Time(ints.as_any().downcast_ref::<Int64Array>().expect("Int64").clone())
            }
            dt if dt.is_integer() => {
                Field::Integer(cast(&DataType::Int64)?.as_any().downcast_ref::<Int64Array>().expect("Int64").clone())
            }
            _ => Field::Number(cast(&DataType::Float64)?.as_any().downcast_ref::<Float64Array>().expect("f64").clone()),
        })
    }

    /// Appends field `row`: a presence byte, then the value (text with its length first).
    fn push(&self, row: usize, out: &mut Vec<u8>) {
        let null = match self {
            Field::Integer(a) | Field::Time(a) => a.is_null(row),
            Field::Text(a) => a.is_null(row),
            Field::Number(a) => a.is_null(row),
        };
        if null {
            out.push(0);
            return;
        }
        out.push(1);
        match self {
            Field::Integer(a) | Field::Time(a) => out.extend_from_slice(&a.value(row).to_le_bytes()),
            Field::Number(a) => out.extend_from_slice(&a.value(row).to_bits().to_le_bytes()),
            Field::Text(a) => {
                let s = a.value(row).as_bytes();
                out.extend_from_slice(&(s.len() as u64).to_le_bytes());
                out.extend_from_slice(s);
            }
        }
    }
}

/// The randomness of every row of `batch` under the release key `key`: from its id in column `id_column`
/// (integers or text, distinct and non-null) and its values in the columns `values` (the value columns, as
/// decoded).
pub fn row_keys(batch: &RecordBatch, id_column: &str, values: &[String], key: &StreamKey) -> Result<RowKeys, Error> {
    let id = ids(batch, id_column)?;
    let mut fields = Vec::with_capacity(values.len());
    // The prefix: how many value columns, and each one's type (its time zone, unit, …), each with its length.
    let mut prefix = (values.len() as u64).to_le_bytes().to_vec();
    let mut describe = |dt: &DataType| {
        let text = dt.to_string();
        prefix.extend_from_slice(&(text.len() as u64).to_le_bytes());
        prefix.extend_from_slice(text.as_bytes());
    };
    describe(batch.column_by_name(id_column).expect("checked by ids()").data_type());
    for name in values {
        let column = batch
            .column_by_name(name)
            .ok_or_else(|| Error::arrow(format!("no value column {name:?} in the batch (keying its rows)")))?;
        describe(column.data_type());
        fields.push(Field::new(column, name)?);
    }
    let mut start = [0u8; 32];
    rand::Rng::fill_bytes(&mut key.stream(ROW_KEY_STREAM), &mut start);
    let batch_key = *blake3::keyed_hash(&start, &prefix).as_bytes();
    let n = batch.num_rows();
    let mut blocks = vec![0u32; n * ROW_WORDS];
    let mut overflow = vec![[0u8; 32]; n];
    blocks.par_chunks_mut(1024 * ROW_WORDS).zip(overflow.par_chunks_mut(1024)).enumerate().for_each(
        |(c, (blocks, overflow))| {
            let mut bytes = Vec::with_capacity(64);
            let mut out = [0u8; 32 + 4 * ROW_WORDS];
            for (i, (block, key)) in blocks.chunks_mut(ROW_WORDS).zip(overflow.iter_mut()).enumerate() {
                let row = c * 1024 + i;
                bytes.clear();
                id.push(row, &mut bytes);
                for f in &fields {
                    f.push(row, &mut bytes);
                }
                blake3::Hasher::new_keyed(&batch_key).update(&bytes).finalize_xof().fill(&mut out);
                key.copy_from_slice(&out[..32]);
                for (w, b) in block.iter_mut().zip(out[32..].chunks_exact(4)) {
                    *w = u32::from_le_bytes(b.try_into().expect("4 bytes"));
                }
            }
        },
    );
    Ok(RowKeys { blocks, overflow: overflow.into_iter().map(StreamKey::from_bytes).collect() })
}

/// The id column `name`: integers or text, with no null and no repeat (two rows with one id would share their
/// noise if their values were equal).
fn ids(batch: &RecordBatch, name: &str) -> Result<Field, Error> {
    let bad = |reason: String| Error::BadIds { column: name.to_string(), reason };
    let Some(column) = batch.column_by_name(name) else {
        let have: Vec<String> = batch.schema().fields().iter().map(|f| f.name().clone()).collect();
        return Err(bad(format!("no such column; the columns are: {}", have.join(","))));
    };
    let values = match column.data_type() {
        DataType::Dictionary(_, v) => v.as_ref(),
        dt => dt,
    };
    let text = matches!(values, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View);
    if !values.is_integer() && !text {
        return Err(bad(format!(
            "holds {}; ids must be integers or text (a row number, monotonically_increasing_id(), or a natural key \
             such as a code)",
            column.data_type()
        )));
    }
    let field = Field::new(column, name)?;
    let nulls: Vec<usize> = (0..column.len()).filter(|&i| column.is_null(i)).take(5).collect();
    if !nulls.is_empty() {
        return Err(bad(format!("null at row(s) {nulls:?} of the batch (0-based); every row needs an id")));
    }
    let repeated = |first: usize, i: usize, shown: String| {
        bad(format!(
            "id {shown} appears at rows {first} and {i} of the batch (0-based); ids must be distinct, or two rows \
             would get the same noise"
        ))
    };
    match &field {
        Field::Integer(a) => {
            let mut seen = HashMap::with_capacity(a.len());
            for (i, v) in a.values().iter().enumerate() {
                if let Some(first) = seen.insert(*v, i) {
                    return Err(repeated(first, i, v.to_string()));
                }
            }
        }
        Field::Text(a) => {
            let mut seen = HashMap::with_capacity(a.len());
            for i in 0..a.len() {
                if let Some(first) = seen.insert(a.value(i), i) {
                    return Err(repeated(first, i, format!("{:?}", a.value(i))));
                }
            }
        }
        Field::Number(_) | Field::Time(_) => unreachable!("integers or text, checked above"),
    }
    Ok(field)
}
