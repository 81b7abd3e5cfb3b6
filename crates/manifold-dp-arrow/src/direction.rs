//! Where the directions are in a table — angles, times of day, latitude/longitude or unit vectors — and how
//! each row becomes a point of a sphere S^{n−1} and back. The noisy values take their input columns' places.

use crate::Error;
use crate::clock;
use crate::columns::{
    ColumnView, Decoded, PointColumns, Problem, check_finite, decode_rows, find_columns, read_numbers, views,
};
use arrow_array::{Array, ArrayRef, Float64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use manifold_dp::Error as LibError;
use manifold_dp::registry::Space;
use manifold_dp::space::sphere::{self, Periodic};
use nalgebra::DVector;
use rayon::prelude::*;
use std::sync::Arc;

/// The largest angle accepted on the circle, in full turns (either sign). Angles may be unwrapped (many turns),
/// but beyond a million turns (2π·10⁶ rad, 3.6·10⁸ degrees) an f64 holds the angle only to ~10⁻⁹ rad and
/// the value is almost certainly corrupt or in the wrong unit, so it is reported instead of wrapped.
pub const MAX_TURNS: f64 = 1e6;

/// Longitudes are accepted in [−360°, 360°] (both the −180..180 and the 0..360 conventions, and a little
/// slack); anything else is reported, not wrapped.
pub const MAX_LONGITUDE_DEG: f64 = 360.0;

/// The default value columns of a direction space: angle; time; lat,lon; x1,…,xN (none for so3 and spd:K).
pub fn default_names(space: Space) -> Vec<String> {
    match space {
        Space::Circle => vec!["angle".into()],
        Space::TimeOfDay => vec!["time".into()],
        Space::LatLon => vec!["lat".into(), "lon".into()],
        Space::Sphere(n) => (1..=n).map(|i| format!("x{i}")).collect(),
        Space::So3 | Space::Spd(_) | Space::Real => Vec::new(),
    }
}

/// How the values of a space are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// An angle in radians (`false`) or degrees (`true`), written back in [0, 2π) or [0°, 360°).
    Angle { degrees: bool },
    /// A time of day: hours as numbers, or clock times and timestamps as text.
    TimeOfDay,
    /// Latitude and longitude in degrees; longitudes written in [0, 360) when `east`, else [−180, 180).
    LatLon {
        /// Longitudes east of Greenwich in [0, 360) (`deg360`).
        east: bool,
    },
    /// The coordinates of a unit vector.
    Unit(usize),
}

/// The direction columns of a table.
#[derive(Debug, Clone)]
pub struct DirectionColumns {
    form: Form,
    positions: Vec<usize>,
    names: Vec<String>,
    output_schema: SchemaRef,
}

impl DirectionColumns {
    /// Finds the columns of `space` written as `format` (named by `columns`, else the defaults: angle; time;
    /// lat,lon; x1,…,xN) and lays out the output: the same columns, noisy values in place.
    pub fn locate(
        schema: &Schema,
        space: Space,
        format: Option<&str>,
        columns: Option<&[String]>,
    ) -> Result<Self, Error> {
        let refuse = |f: &str, hint: &'static str| Error::FormatNotForSpace {
            format: f.to_string(),
            space: space.to_string(),
            hint,
        };
        let form = match (space, format) {
            (Space::Circle, None | Some("rad")) => Form::Angle { degrees: false },
            (Space::Circle, Some("deg")) => Form::Angle { degrees: true },
            (Space::Circle, Some(f)) => return Err(refuse(f, "use rad or deg")),
            (Space::TimeOfDay, None) => Form::TimeOfDay,
            (Space::TimeOfDay, Some(f)) => {
                return Err(refuse(f, "hours, clock times and timestamps are recognised field by field; drop it"));
            }
            (Space::LatLon, None | Some("deg")) => Form::LatLon { east: false },
            (Space::LatLon, Some("deg360")) => Form::LatLon { east: true },
            (Space::LatLon, Some(f)) => {
                return Err(refuse(f, "use deg (longitudes written in [-180, 180)) or deg360 (in [0, 360))"));
            }
            (Space::Sphere(n), None) => Form::Unit(n),
            (Space::Sphere(_), Some(f)) => return Err(refuse(f, "a unit vector is read as its coordinates")),
            (Space::So3 | Space::Spd(_) | Space::Real, _) => {
                unreachable!(
                    "rotations, SPD matrices and numbers are read by RotationColumns, SpdColumns and RealColumns"
                )
            }
        };
        let defaults = default_names(space);
        let names = columns.map(<[String]>::to_vec).unwrap_or_else(|| defaults.clone());
        if names.len() != defaults.len() {
            let what = format!("space {space} ({})", defaults.join(","));
            return Err(Error::ColumnCount { what, needed: defaults.len(), given: names });
        }
        let positions = find_columns(schema, &names, &format!("space {space}"))?;
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| {
                if !positions.contains(&i) {
                    return f.as_ref().clone();
                }
                // Clock times and timestamps stay text, times and timestamps keep their type; everything else
                // becomes numbers.
                let values = match f.data_type() {
                    DataType::Dictionary(_, v) => v.as_ref(),
                    dt => dt,
                };
                let out = match values {
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View if form == Form::TimeOfDay => {
                        DataType::Utf8
                    }
                    dt if form == Form::TimeOfDay && crate::temporal::is_temporal(dt) => dt.clone(),
                    _ => DataType::Float64,
                };
                // Never null, but declared as the input declared it (so a numeric column keeps its schema).
                Field::new(f.name(), out, f.is_nullable())
            })
            .collect();
        Ok(DirectionColumns {
            form,
            positions,
            names,
            output_schema: Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone())),
        })
    }

    fn views(&self, batch: &RecordBatch) -> Result<Vec<ColumnView>, Error> {
        if self.form == Form::TimeOfDay {
            let column = batch.column(self.positions[0]);
            if crate::temporal::is_temporal(column.data_type()) {
                // A time or timestamp is read as its hours since local midnight.
                let hours = crate::temporal::hours(column)?;
                let nulls = hours.null_count() > 0;
                return Ok(vec![ColumnView::Number(hours, nulls)]);
            }
        }
        views(batch, &self.positions, &self.names)
    }

    /// The original time or timestamp column of a time-of-day table, if it is one.
    fn temporal_column<'a>(&self, batch: &'a RecordBatch) -> Option<&'a ArrayRef> {
        let column = batch.column(self.positions[0]);
        (self.form == Form::TimeOfDay && crate::temporal::is_temporal(column.data_type())).then_some(column)
    }

    fn problem(&self, column: usize, reason: String) -> Problem {
        Problem { column: Some(self.names[column].clone()), reason }
    }

    fn decode_row(&self, views: &[ColumnView], row: usize, values: &mut [f64]) -> Result<DVector<f64>, Problem> {
        if self.form == Form::TimeOfDay
            && let Some(text) = views[0].text(row)
        {
            let hours = clock::parse(text).map_err(|r| self.problem(0, r))?.hours;
            return Periodic::HOURS_OF_DAY.to_circle(hours).map_err(|e| self.explain(e));
        }
        read_numbers(views, &self.names, row, values)?;
        self.decode_finite(values)
    }

    /// The point of one row of finite numbers (hours, not text, on timeofday).
    fn decode_finite(&self, values: &[f64]) -> Result<DVector<f64>, Problem> {
        match self.form {
            Form::Angle { degrees } => {
                let (unit, turn) = if degrees { ("degrees", 360.0) } else { ("rad", 2.0 * std::f64::consts::PI) };
                if values[0].abs() > MAX_TURNS * turn {
                    let reason = format!(
                        "angle {:e} {unit} is beyond {MAX_TURNS:e} full turns (|angle| <= {:e} {unit}); a corrupt \
                         value or the wrong unit?",
                        values[0],
                        MAX_TURNS * turn
                    );
                    return Err(self.problem(0, reason));
                }
                sphere::from_angle(if degrees { values[0].to_radians() } else { values[0] })
            }
            Form::TimeOfDay => Periodic::HOURS_OF_DAY.to_circle(values[0]),
            Form::LatLon { .. } => {
                if values[1].abs() > MAX_LONGITUDE_DEG {
                    let reason = format!(
                        "longitude {:e} degrees is outside [-{MAX_LONGITUDE_DEG}, {MAX_LONGITUDE_DEG}]; a corrupt \
                         value or the wrong unit?",
                        values[1]
                    );
                    return Err(self.problem(1, reason));
                }
                sphere::from_lat_lon_deg(values[0], values[1])
            }
            Form::Unit(_) => sphere::unit_vector_default(values),
        }
        .map_err(|e| self.explain(e))
    }

    /// The number written into output column `j` for `x`, on every numeric form (all but clock-time text and
    /// times; on timeofday, hours).
    fn number(&self, x: &DVector<f64>, j: usize) -> f64 {
        match self.form {
            Form::Angle { degrees } => {
                let a = sphere::to_angle(x);
                if degrees { a.to_degrees().min(360f64.next_down()) } else { a }
            }
            Form::TimeOfDay => Periodic::HOURS_OF_DAY.from_circle(x),
            Form::LatLon { .. } if j == 0 => sphere::to_lat_lon_deg(x).0,
            Form::LatLon { east } => {
                let lon = sphere::to_lat_lon_deg(x).1;
                // deg360: longitudes east of Greenwich in [0, 360), as the table wrote them.
                if east && lon < 0.0 { (lon + 360.0).min(360f64.next_down()) } else { lon }
            }
            Form::Unit(_) => x[j],
        }
    }

    fn explain(&self, e: LibError) -> Problem {
        let column = match &e {
            LibError::NonFinite { component, .. } => self.names.get(*component).cloned(),
            LibError::LatitudeOutOfRange(_) | LibError::OutOfPeriod { .. } => self.names.first().cloned(),
            _ => None,
        };
        Problem { column, reason: e.to_string() }
    }
}

impl PointColumns for DirectionColumns {
    type Point = DVector<f64>;

    fn names(&self) -> &[String] {
        &self.names
    }

    fn output_schema(&self) -> SchemaRef {
        self.output_schema.clone()
    }

    fn output_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn decode(&self, batch: &RecordBatch) -> Result<Decoded<DVector<f64>>, Error> {
        let views = self.views(batch)?;
        let dim = match self.form {
            Form::LatLon { .. } => 3,
            Form::Unit(n) => n,
            _ => 2,
        };
        // Invalid rows hold a placeholder of the right dimension (never released: the row is dropped).
        let placeholder = DVector::from_fn(dim, |i, _| if i == 0 { 1.0 } else { 0.0 });
        Ok(decode_rows(batch.num_rows(), self.names.len(), placeholder, |row, values| {
            self.decode_row(&views, row, values)
        }))
    }

    fn encode(&self, batch: &RecordBatch, noisy: &[DVector<f64>]) -> Result<RecordBatch, Error> {
        let numbers = |f: &(dyn Fn(&DVector<f64>) -> f64 + Sync)| -> ArrayRef {
            Arc::new(Float64Array::from(noisy.par_iter().map(f).collect::<Vec<f64>>()))
        };
        let hours = |x: &DVector<f64>| Periodic::HOURS_OF_DAY.from_circle(x);
        let noisy_columns: Vec<ArrayRef> = match self.form {
            Form::Angle { .. } => vec![numbers(&|x| self.number(x, 0))],
            Form::TimeOfDay if self.temporal_column(batch).is_some() => {
                let original = self.temporal_column(batch).expect("checked");
                let h: Vec<f64> = noisy.par_iter().map(hours).collect();
                vec![crate::temporal::with_hours(original, &h)?]
            }
            Form::TimeOfDay => match self.views(batch)?.remove(0) {
                ColumnView::Text(original) => {
                    let text: Vec<String> = noisy
                        .par_iter()
                        .enumerate()
                        .map(|(i, x)| {
                            // The row was read in one of these forms, so it parses again.
                            match clock::parse(original.value(i)) {
                                Ok(form) => form.format(hours(x)),
                                Err(_) => hours(x).to_string(),
                            }
                        })
                        .collect();
                    vec![Arc::new(StringArray::from(text)) as ArrayRef]
                }
                ColumnView::Number(..) => vec![numbers(&|x| self.number(x, 0))],
            },
            Form::LatLon { .. } => vec![numbers(&|x| self.number(x, 0)), numbers(&|x| self.number(x, 1))],
            Form::Unit(n) => (0..n).map(|j| numbers(&move |x: &DVector<f64>| self.number(x, j))).collect(),
        };
        let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
        for (j, &pos) in self.positions.iter().enumerate() {
            columns[pos] = noisy_columns[j].clone();
        }
        Ok(RecordBatch::try_new(self.output_schema.clone(), columns)?)
    }

    fn decode_numbers(&self, values: &[f64]) -> Result<DVector<f64>, Problem> {
        check_finite(&self.names, values)?;
        self.decode_finite(values)
    }

    fn encode_numbers(&self, point: &DVector<f64>, out: &mut [f64]) {
        for (j, o) in out.iter_mut().enumerate() {
            *o = self.number(point, j);
        }
    }
}
