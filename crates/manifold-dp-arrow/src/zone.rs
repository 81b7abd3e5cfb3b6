//! The time zones of Arrow timestamp columns: fixed offsets (`+02:00`, `-0530`, `+01`) and IANA names (`UTC`,
//! `Europe/Paris`), and timestamps in a zone as RFC 3339 text.
//!
//! Names are looked up with `jiff` in the system's time-zone database (`/usr/share/zoneinfo`), or in the copy
//! bundled with it where the system has none. Arrow's own support for names (its `chrono-tz` feature) is not
//! used: chrono-tz compiles every zone's transitions into tables of pointers, about 1 MiB that the loader
//! relocates at every start of a position-independent binary, which cost ~0.8 ms a start whether or not a
//! timestamp was ever read. Arrow alone handles fixed offsets, so a column in a named zone is handed to Arrow's
//! CSV writer as text ([`zoned_timestamps_as_text`]), in the exact form Arrow would write.

use crate::Error;
use arrow_array::cast::AsArray;
use arrow_array::timezone::Tz;
use arrow_array::types::{
    Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use chrono::{DateTime, FixedOffset, NaiveDateTime, Offset, SecondsFormat, TimeZone};
use std::sync::Arc;

/// A time zone: a fixed offset from UTC, or a named zone whose offset depends on the instant.
#[derive(Debug, Clone)]
pub enum Zone {
    /// Seconds east of UTC.
    Fixed(i32),
    /// An IANA zone.
    Named(jiff::tz::TimeZone),
}

impl Zone {
    /// Parses an Arrow time-zone string: an offset `±HH:MM`, `±HHMM` or `±HH` (Arrow's forms), else an IANA
    /// name. Names are case-sensitive, as in the database.
    pub fn parse(name: &str) -> Result<Zone, Error> {
        if let Ok(fixed) = name.parse::<Tz>() {
            let epoch = NaiveDateTime::default();
            return Ok(Zone::Fixed(fixed.offset_from_utc_datetime(&epoch).fix().local_minus_utc()));
        }
        jiff::tz::TimeZone::get(name).map(Zone::Named).map_err(|e| {
            Error::arrow(format!(
                "time zone {name:?} is neither an offset such as +02:00 nor a name in the time-zone database \
                 ({e}); names look like \"UTC\" or \"Europe/Paris\""
            ))
        })
    }

    /// The offset from UTC, in seconds east, at `utc_seconds` seconds after 1970-01-01T00:00:00Z (`None`
    /// beyond the years −9999 to 9999).
    pub fn offset_at(&self, utc_seconds: i64) -> Option<i32> {
        match self {
            Zone::Fixed(seconds) => Some(*seconds),
            Zone::Named(tz) => {
                let instant = jiff::Timestamp::from_second(utc_seconds).ok()?;
                Some(tz.to_offset(instant).seconds())
            }
        }
    }
}

/// Units per second of a time unit.
pub(crate) fn per_second(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

/// A raw timestamp of `unit` as a UTC date and time (`None` out of range).
pub(crate) fn utc_datetime(v: i64, unit: TimeUnit) -> Option<NaiveDateTime> {
    let per = per_second(unit);
    let nanos = (v.rem_euclid(per) * (1_000_000_000 / per)) as u32;
    Some(DateTime::from_timestamp(v.div_euclid(per), nanos)?.naive_utc())
}

/// Whether a column is a timestamp in a named zone, which Arrow alone cannot format.
fn in_named_zone(dt: &DataType) -> bool {
    matches!(dt, DataType::Timestamp(_, Some(tz)) if tz.parse::<Tz>().is_err())
}

/// `batch` with every timestamp column in a named zone replaced by its text: RFC 3339 with the zone's offset
/// at that instant, `Z` for a zero offset, and as many fraction digits as the value needs in groups of three
/// (`2024-05-01T13:30:00+02:00`, `2026-01-01T00:00:00.010Z`) — what Arrow's CSV writer writes for a timestamp
/// in a zone. Other columns are shared, not copied. An unknown zone, or an instant beyond the years −9999 to
/// 9999, is an error naming the column (and row).
pub fn zoned_timestamps_as_text(batch: &RecordBatch) -> Result<RecordBatch, Error> {
    let schema = batch.schema();
    if !schema.fields().iter().any(|f| in_named_zone(f.data_type())) {
        return Ok(batch.clone());
    }
    let mut fields = Vec::with_capacity(schema.fields().len());
    let mut columns = Vec::with_capacity(schema.fields().len());
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        match field.data_type() {
            DataType::Timestamp(unit, Some(tz)) if in_named_zone(field.data_type()) => {
                let zone = Zone::parse(tz).map_err(|e| Error::arrow(format!("column {:?}: {e}", field.name())))?;
                let text = raw(column)
                    .into_iter()
                    .enumerate()
                    .map(|(row, v)| {
                        v.map(|v| {
                            rfc3339(v, *unit, &zone).ok_or_else(|| {
                                Error::arrow(format!(
                                    "column {:?}, row {}: timestamp {v} is beyond the years -9999 to 9999",
                                    field.name(),
                                    row + 1
                                ))
                            })
                        })
                        .transpose()
                    })
                    .collect::<Result<StringArray, Error>>()?;
                fields.push(Field::new(field.name(), DataType::Utf8, field.is_nullable()));
                columns.push(Arc::new(text) as ArrayRef);
            }
            _ => {
                fields.push(field.as_ref().clone());
                columns.push(column.clone());
            }
        }
    }
    let schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    RecordBatch::try_new(schema, columns).map_err(Error::from)
}

/// One timestamp as RFC 3339 text in `zone` (chrono's form, which Arrow uses).
fn rfc3339(v: i64, unit: TimeUnit, zone: &Zone) -> Option<String> {
    let utc = utc_datetime(v, unit)?;
    let offset = FixedOffset::east_opt(zone.offset_at(utc.and_utc().timestamp())?)?;
    Some(offset.from_utc_datetime(&utc).to_rfc3339_opts(SecondsFormat::AutoSi, true))
}

/// The raw integers of a time or timestamp column, whatever its unit (nulls as `None`).
pub(crate) fn raw(array: &ArrayRef) -> Vec<Option<i64>> {
    macro_rules! ints {
        ($t:ty) => {
            array.as_primitive::<$t>().iter().map(|v| v.map(i64::from)).collect()
        };
    }
    match array.data_type() {
        DataType::Time32(TimeUnit::Second) => ints!(Time32SecondType),
        DataType::Time32(_) => ints!(Time32MillisecondType),
        DataType::Time64(TimeUnit::Microsecond) => ints!(Time64MicrosecondType),
        DataType::Time64(_) => ints!(Time64NanosecondType),
        DataType::Timestamp(TimeUnit::Second, _) => ints!(TimestampSecondType),
        DataType::Timestamp(TimeUnit::Millisecond, _) => ints!(TimestampMillisecondType),
        DataType::Timestamp(TimeUnit::Microsecond, _) => ints!(TimestampMicrosecondType),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => ints!(TimestampNanosecondType),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::{Array, TimestampMicrosecondArray, TimestampMillisecondArray, TimestampSecondArray};

    #[test]
    fn offsets_and_names_parse_and_give_the_offset_of_the_instant() {
        assert!(matches!(Zone::parse("+02:00").unwrap(), Zone::Fixed(7200)));
        assert!(matches!(Zone::parse("-0530").unwrap(), Zone::Fixed(-19800)));
        assert!(matches!(Zone::parse("+01").unwrap(), Zone::Fixed(3600)));
        let paris = Zone::parse("Europe/Paris").unwrap();
        // 2024-01-15 and 2024-07-15 at noon UTC: winter and summer time.
        assert_eq!(paris.offset_at(1_705_320_000), Some(3600));
        assert_eq!(paris.offset_at(1_721_044_800), Some(7200));
        // The switch to summer time, 2024-03-31 01:00 UTC: one second before and at it.
        assert_eq!(paris.offset_at(1_711_846_799), Some(3600));
        assert_eq!(paris.offset_at(1_711_846_800), Some(7200));
        assert_eq!(Zone::parse("UTC").unwrap().offset_at(0), Some(0));
        assert_eq!(Zone::parse("America/New_York").unwrap().offset_at(1_705_320_000), Some(-5 * 3600));
        let e = Zone::parse("Mars/Olympus_Mons").unwrap_err().to_string();
        assert!(e.contains("Mars/Olympus_Mons") && e.contains("Europe/Paris"), "{e}");
        assert!(Zone::parse("+25:00").is_err());
    }

    #[test]
    fn a_copy_of_the_database_is_built_in_for_systems_without_one() {
        // What jiff falls back to where neither TZDIR nor /usr/share/zoneinfo holds a database.
        let bundled = jiff::tz::TimeZoneDatabase::bundled();
        let paris = bundled.get("Europe/Paris").unwrap();
        assert_eq!(paris.to_offset(jiff::Timestamp::from_second(1_721_044_800).unwrap()).seconds(), 7200);
        assert!(bundled.get("Mars/Olympus_Mons").is_err());
    }

    #[test]
    fn named_zones_become_arrows_text_and_other_columns_are_shared() {
        let paris: ArrayRef = Arc::new(
            TimestampMillisecondArray::from(vec![Some(1_714_563_000_000), None, Some(1_705_320_000_010)])
                .with_timezone("Europe/Paris"),
        );
        let utc: ArrayRef =
            Arc::new(TimestampMicrosecondArray::from(vec![1_767_225_600_000_000, 0, 1]).with_timezone("UTC"));
        // A fixed offset is left to Arrow.
        let fixed: ArrayRef = Arc::new(TimestampSecondArray::from(vec![0, 1, 2]).with_timezone("+02:00"));
        let batch = RecordBatch::try_from_iter([("p", paris), ("u", utc), ("f", fixed.clone())]).unwrap();
        let text = zoned_timestamps_as_text(&batch).unwrap();
        let p = text.column(0).as_string::<i32>();
        assert_eq!(p.value(0), "2024-05-01T13:30:00+02:00");
        assert!(p.is_null(1));
        assert_eq!(p.value(2), "2024-01-15T13:00:00.010+01:00");
        let u = text.column(1).as_string::<i32>();
        assert_eq!(u.value(0), "2026-01-01T00:00:00Z");
        assert_eq!(u.value(2), "1970-01-01T00:00:00.000001Z");
        assert!(Arc::ptr_eq(text.column(2), &fixed));
        assert_eq!(text.schema().field(2).data_type(), fixed.data_type());
        assert_eq!(text.schema().field(0).data_type(), &DataType::Utf8);
        // Without a named zone the batch is returned as it is.
        let plain = RecordBatch::try_from_iter([("f", fixed)]).unwrap();
        assert_eq!(zoned_timestamps_as_text(&plain).unwrap(), plain);
    }

    #[test]
    fn an_unknown_zone_or_an_instant_out_of_range_names_the_column() {
        let bad: ArrayRef = Arc::new(TimestampSecondArray::from(vec![0]).with_timezone("Nowhere/Special"));
        let e = zoned_timestamps_as_text(&RecordBatch::try_from_iter([("when", bad)]).unwrap()).unwrap_err();
        assert!(e.to_string().contains("\"when\"") && e.to_string().contains("Nowhere/Special"), "{e}");
        let far: ArrayRef = Arc::new(TimestampSecondArray::from(vec![0, i64::MAX / 2]).with_timezone("UTC"));
        let e = zoned_timestamps_as_text(&RecordBatch::try_from_iter([("when", far)]).unwrap()).unwrap_err();
        assert!(e.to_string().contains("row 2"), "{e}");
    }
}
