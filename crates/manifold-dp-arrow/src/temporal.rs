//! Arrow's time and timestamp columns (Parquet `TIME` and `TIMESTAMP`) as times of day: hours since local
//! midnight, and back into a column of the same type.
//!
//! A timestamp keeps its local date and its UTC offset; only the time of day changes. The date is never moved
//! when the noisy time crosses midnight: which day the nearest instant falls on depends on the original time,
//! so a moved date would reveal which side of midnight the original lay on (the guarantee covers the time of
//! day released, nothing more).

use crate::Error;
use crate::zone::{Zone, per_second, raw, utc_datetime};
use arrow_array::types::{
    Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{Array, ArrayRef, Float64Array, PrimitiveArray};
use arrow_schema::{DataType, TimeUnit};
use chrono::{NaiveDateTime, NaiveTime, Timelike};
use std::sync::Arc;

/// Whether `dt` is a time of day or an instant that a time of day can be read from.
pub fn is_temporal(dt: &DataType) -> bool {
    matches!(dt, DataType::Time32(_) | DataType::Time64(_) | DataType::Timestamp(_, _))
}

fn unit_of(dt: &DataType) -> TimeUnit {
    match dt {
        DataType::Time32(u) | DataType::Time64(u) | DataType::Timestamp(u, _) => *u,
        _ => TimeUnit::Second,
    }
}

/// The time zone of a timestamp column (`None`: wall-clock times without a zone).
fn zone(dt: &DataType) -> Result<Option<Zone>, Error> {
    match dt {
        DataType::Timestamp(_, Some(tz)) => Zone::parse(tz).map(Some),
        _ => Ok(None),
    }
}

/// A raw timestamp as (local wall-clock time, offset from UTC in seconds).
fn local(v: i64, unit: TimeUnit, tz: Option<&Zone>) -> Option<(NaiveDateTime, i64)> {
    let utc = utc_datetime(v, unit)?;
    match tz {
        None => Some((utc, 0)),
        Some(tz) => {
            let offset = i64::from(tz.offset_at(utc.and_utc().timestamp())?);
            Some((utc + chrono::Duration::seconds(offset), offset))
        }
    }
}

/// Hours since local midnight, in [0, 24), of every row of a time or timestamp column (nulls kept).
pub fn hours(array: &ArrayRef) -> Result<Float64Array, Error> {
    let dt = array.data_type();
    let unit = unit_of(dt);
    let per = per_second(unit) as f64;
    let tz = zone(dt)?;
    let timestamp = matches!(dt, DataType::Timestamp(_, _));
    let of_time = |t: NaiveTime| (f64::from(t.num_seconds_from_midnight()) + f64::from(t.nanosecond()) * 1e-9) / 3600.0;
    Ok(raw(array)
        .into_iter()
        .map(|v| {
            let v = v?;
            if timestamp {
                local(v, unit, tz.as_ref()).map(|(t, _)| of_time(t.time()))
            } else {
                // A time of day: units since midnight (values beyond a day are kept and reported by the codec).
                Some(v as f64 / per / 3600.0)
            }
        })
        .collect())
}

/// A column of `original`'s type whose row i has the time of day `hours[i]` (in [0, 24)), rounded to the
/// column's unit. Timestamps keep their local date and UTC offset.
pub fn with_hours(original: &ArrayRef, hours: &[f64]) -> Result<ArrayRef, Error> {
    let dt = original.data_type().clone();
    let unit = unit_of(&dt);
    let per = per_second(unit);
    let day = 86_400 * per;
    // Rounded in the column's unit and kept inside the day (23:59:59.9999 does not become 24:00).
    let units_of_day = |h: f64| ((h * 3600.0 * per as f64).round() as i64).clamp(0, day - 1);
    let values: Vec<Option<i64>> = match &dt {
        DataType::Timestamp(_, _) => {
            let tz = zone(&dt)?;
            raw(original)
                .into_iter()
                .zip(hours)
                .map(|(v, &h)| {
                    let (wall, offset) = local(v?, unit, tz.as_ref())?;
                    let midnight = wall.date().and_hms_opt(0, 0, 0)?;
                    let local_midnight_units = midnight.and_utc().timestamp() * per;
                    Some(local_midnight_units + units_of_day(h) - offset * per)
                })
                .collect()
        }
        _ => raw(original).into_iter().zip(hours).map(|(v, &h)| v.map(|_| units_of_day(h))).collect(),
    };
    fn build<T: arrow_array::ArrowPrimitiveType>(values: Vec<Option<i64>>, dt: &DataType) -> Result<ArrayRef, Error>
    where
        T::Native: TryFrom<i64>,
    {
        let array: PrimitiveArray<T> =
            values.into_iter().map(|v| v.and_then(|v| T::Native::try_from(v).ok())).collect();
        Ok(Arc::new(array.with_data_type(dt.clone())))
    }
    match (&dt, unit) {
        (DataType::Time32(_), TimeUnit::Second) => build::<Time32SecondType>(values, &dt),
        (DataType::Time32(_), _) => build::<Time32MillisecondType>(values, &dt),
        (DataType::Time64(_), TimeUnit::Microsecond) => build::<Time64MicrosecondType>(values, &dt),
        (DataType::Time64(_), _) => build::<Time64NanosecondType>(values, &dt),
        (DataType::Timestamp(_, _), TimeUnit::Second) => build::<TimestampSecondType>(values, &dt),
        (DataType::Timestamp(_, _), TimeUnit::Millisecond) => build::<TimestampMillisecondType>(values, &dt),
        (DataType::Timestamp(_, _), TimeUnit::Microsecond) => build::<TimestampMicrosecondType>(values, &dt),
        (DataType::Timestamp(_, _), TimeUnit::Nanosecond) => build::<TimestampNanosecondType>(values, &dt),
        _ => Err(Error::arrow(format!("{dt} is not a time or timestamp type"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::{Time32SecondArray, Time64MicrosecondArray, TimestampMillisecondArray};

    #[test]
    fn times_and_timestamps_round_trip_through_hours() {
        let t: ArrayRef = Arc::new(Time32SecondArray::from(vec![Some(13 * 3600 + 30 * 60), None]));
        let h = hours(&t).unwrap();
        assert_eq!(h.value(0), 13.5);
        assert!(h.is_null(1));
        let back = with_hours(&t, &[23.75, 1.0]).unwrap();
        assert_eq!(back.data_type(), t.data_type());
        assert_eq!(back.as_primitive::<Time32SecondType>().value(0), 23 * 3600 + 45 * 60);
        assert!(back.is_null(1));
        let us: ArrayRef = Arc::new(Time64MicrosecondArray::from(vec![3_600_000_000]));
        assert_eq!(hours(&us).unwrap().value(0), 1.0);
        // 2024-05-01 11:30 UTC is 13:30 in Paris (UTC+2 in May).
        let utc_1130 = 1_714_563_000_000i64;
        let paris: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![utc_1130]).with_timezone("Europe/Paris"));
        assert_eq!(hours(&paris).unwrap().value(0), 13.5);
        // 23:55 local the same day: the date is kept (never moved across midnight), the offset too.
        let late = with_hours(&paris, &[23.0 + 55.0 / 60.0]).unwrap();
        let v = late.as_primitive::<TimestampMillisecondType>().value(0);
        assert_eq!(v, utc_1130 + (10 * 3600 + 25 * 60) * 1000);
        assert_eq!(late.data_type(), paris.data_type());
        // Without a zone the wall-clock time is read as it is.
        let naive: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![utc_1130]));
        assert_eq!(hours(&naive).unwrap().value(0), 11.5);
        // Just below midnight stays on the same day.
        let end = with_hours(&naive, &[23.9999999999]).unwrap();
        assert_eq!(end.as_primitive::<TimestampMillisecondType>().value(0) % 86_400_000, 86_399_999);
    }
}
