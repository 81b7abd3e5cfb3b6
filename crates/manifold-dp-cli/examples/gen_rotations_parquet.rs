//! Writes a synthetic Parquet table for the throughput benchmark (`scripts/bench_privatize.sh`):
//! columns `id` (int64), `timestamp` (µs since the epoch, UTC), `w,x,y,z` (a Haar-random unit quaternion
//! per row, float64). Usage: `gen_rotations_parquet ROWS OUT.parquet`.

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, TimestampMicrosecondArray};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use manifold_dp::sample::rng::seeded_rng_for_experiments;
use manifold_dp::sample::sphere::uniform_s3;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        return Err("usage: gen_rotations_parquet ROWS OUT.parquet".into());
    }
    let rows: u64 = args[1].parse()?;
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("timestamp", DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())), false),
        Field::new("w", DataType::Float64, false),
        Field::new("x", DataType::Float64, false),
        Field::new("y", DataType::Float64, false),
        Field::new("z", DataType::Float64, false),
    ]));
    let props = WriterProperties::builder().set_compression(Compression::SNAPPY).set_dictionary_enabled(false).build();
    let mut writer = ArrowWriter::try_new(std::fs::File::create(&args[2])?, schema.clone(), Some(props))?;
    let mut rng = seeded_rng_for_experiments(2026);
    let batch = 1 << 16;
    let mut start = 0u64;
    while start < rows {
        let n = batch.min(rows - start);
        let qs: Vec<[f64; 4]> = (0..n).map(|_| uniform_s3(&mut rng).coords.into()).collect();
        let column = |j: usize| Arc::new(Float64Array::from_iter_values(qs.iter().map(|q| q[(j + 3) % 4]))) as ArrayRef;
        let ids = Int64Array::from_iter_values(start as i64..(start + n) as i64);
        // 100 Hz from 2026-01-01T00:00:00Z.
        let ts = TimestampMicrosecondArray::from_iter_values(
            (start..start + n).map(|i| 1_767_225_600_000_000 + 10_000 * i as i64),
        )
        .with_timezone("UTC");
        let columns = vec![Arc::new(ids) as ArrayRef, Arc::new(ts), column(0), column(1), column(2), column(3)];
        writer.write(&RecordBatch::try_new(schema.clone(), columns)?)?;
        start += n;
    }
    writer.close()?;
    Ok(())
}
