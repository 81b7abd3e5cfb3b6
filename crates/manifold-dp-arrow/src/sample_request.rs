//! One request per run of releases of a single public point (`sample`): which point — given in the space's own
//! terms, or the space's default — read once for every front end, and what the releases guarantee together.

use crate::Error;
use crate::mean_request::MeanCenter;
use manifold_dp::Error as LibError;
use manifold_dp::privacy::Guarantee;
use manifold_dp::registry::{Shown, Space, Spelling};
use manifold_dp::space::Tolerance;
use manifold_dp::space::representation::Representation;
use manifold_dp::space::sphere::{self, Periodic};
use nalgebra::{DVector, UnitQuaternion};

/// Releases of one point as the user asked for them. Build it with struct-update syntax from
/// [`SampleRequest::new`].
#[derive(Debug, Clone, PartialEq)]
pub struct SampleRequest {
    /// The space (not `real` or spd:K, which have no single-point sampler).
    pub space: Space,
    /// The point, if not the space's default: text as typed, or values in the layout of `format`.
    pub center: Option<MeanCenter>,
    /// so3: the rotation format of the point and of an array of releases (default quat-wxyz); circle: rad or
    /// deg.
    pub format: Option<String>,
}

/// The point every release is drawn around.
#[derive(Debug, Clone, PartialEq)]
pub enum SamplePoint {
    /// A rotation (so3).
    Rotation(UnitQuaternion<f64>),
    /// A unit vector (circle, time of day, latlon, sphere:N).
    Direction(DVector<f64>),
}

impl SampleRequest {
    /// Releases of the default point of `space`.
    pub fn new(space: Space) -> Self {
        SampleRequest { space, center: None, format: None }
    }

    /// The point. Text reads as the command line reads it: `w,x,y,z` (in `format`'s order and length when one
    /// is given) or `identity` on so3; an angle with its unit (`30deg`; a bare number is radians) on the circle;
    /// a clock time (`13:30`) or hours on timeofday; `lat,lon` in degrees on latlon; the coordinates of a unit
    /// vector on sphere:N. Values are one row in the layout of `format`. The default is the identity, angle 0,
    /// 00:00, 0°N 0°E or the first axis. A refusal names the option as `spell` writes it.
    pub fn point(&self, spell: &dyn Spelling) -> Result<SamplePoint, Error> {
        self.read(spell).map(|(point, _)| point)
    }

    /// The point as one row of an array of such points in the layout of `format` (the quaternion, matrix,
    /// rotation vector or Euler angles; the angle in rad or deg; hours; latitude and longitude in degrees; the
    /// coordinates), as parsed: the row that [`SampleRequest::point`] decodes.
    pub fn values(&self, spell: &dyn Spelling) -> Result<Vec<f64>, Error> {
        self.read(spell).map(|(_, values)| values)
    }

    /// The point's row in the layout of `format` (given, parsed from text, or the default), and the point it
    /// decodes to.
    fn read(&self, spell: &dyn Spelling) -> Result<(SamplePoint, Vec<f64>), Error> {
        let space = self.space;
        let shown = match &self.center {
            Some(MeanCenter::Text(t)) => t.clone(),
            Some(MeanCenter::Values(v)) => v.iter().map(f64::to_string).collect::<Vec<_>>().join(","),
            None => String::new(),
        };
        let bad = |e: &dyn std::fmt::Display| refuse(format!("{}: {e}", spell.option("center", Shown::Text(&shown))));
        let text = match &self.center {
            Some(MeanCenter::Text(t)) => Some(t.trim()),
            _ => None,
        };
        let numbers = || -> Result<Vec<f64>, Error> {
            match &self.center {
                Some(MeanCenter::Values(v)) => Ok(v.clone()),
                Some(MeanCenter::Text(t)) => t
                    .trim()
                    .split(',')
                    .map(|p| p.trim().parse::<f64>().map_err(|_| bad(&format_args!("{:?} is not a number", p.trim()))))
                    .collect(),
                None => Ok(Vec::new()),
            }
        };
        let degrees = self.format.as_deref() == Some("deg");
        let direction = |z: manifold_dp::Fallible<DVector<f64>>, values: Vec<f64>| {
            z.map(|z| (SamplePoint::Direction(z), values)).map_err(|e| bad(&e))
        };
        match space {
            Space::So3 => {
                let format = self.format.as_deref().unwrap_or("quat-wxyz");
                let rep: Representation = format.parse().map_err(|e: LibError| bad(&e))?;
                let values = match (&self.center, text) {
                    (None, _) => None,
                    (_, Some(t)) if t.eq_ignore_ascii_case("identity") => None,
                    (_, Some(t)) => Some(
                        t.split(',')
                            .map(|p| p.trim().parse::<f64>())
                            .collect::<Result<Vec<f64>, _>>()
                            .ok()
                            .filter(|v| v.len() == rep.len())
                            .ok_or_else(|| refuse(rotation_hint(t, format, rep.len())))?,
                    ),
                    (Some(_), None) => Some(numbers()?),
                };
                let values = values.unwrap_or_else(|| {
                    let mut out = vec![0.0; rep.len()];
                    rep.encode_into(&UnitQuaternion::identity(), &mut out);
                    out
                });
                let q = rep.decode(&values, &Tolerance::default()).map_err(|e| bad(&e))?;
                Ok((SamplePoint::Rotation(q), values))
            }
            Space::Circle => {
                let angle = match (&self.center, text) {
                    (None, _) => 0.0,
                    // Text carries its unit (a bare number is radians); the row is in the format's unit.
                    (_, Some(t)) => {
                        let rad = space.parse_distance(t).map_err(|e| bad(&e))?;
                        if degrees { rad.to_degrees() } else { rad }
                    }
                    _ => match numbers()?[..] {
                        [a] => a,
                        _ => return Err(bad(&"give one angle")),
                    },
                };
                let rad = if degrees { angle.to_radians() } else { angle };
                direction(sphere::from_angle(rad), vec![angle])
            }
            Space::TimeOfDay => {
                let hours = match (&self.center, text) {
                    (None, _) => 0.0,
                    (_, Some(t)) => crate::clock::parse(t).map_err(|e| bad(&e))?.hours,
                    _ => match numbers()?[..] {
                        [h] => h,
                        _ => return Err(bad(&"give one time of day in hours")),
                    },
                };
                direction(Periodic::HOURS_OF_DAY.to_circle(hours), vec![hours])
            }
            Space::LatLon => {
                let (lat, lon) = match &self.center {
                    None => (0.0, 0.0),
                    Some(_) => match numbers()?[..] {
                        [lat, lon] => (lat, lon),
                        _ => return Err(bad(&"write lat,lon in degrees, e.g. 48.85,2.35")),
                    },
                };
                direction(sphere::from_lat_lon_deg(lat, lon), vec![lat, lon])
            }
            Space::Sphere(dim) => {
                let v = match &self.center {
                    None => (0..dim).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect(),
                    Some(_) => numbers()?,
                };
                if v.len() != dim {
                    return Err(bad(&format_args!("write {dim} comma-separated coordinates of a unit vector")));
                }
                direction(sphere::unit_vector_default(&v), v)
            }
            Space::Real | Space::Spd(_) => Err(no_sampler(space)),
        }
    }

    /// What `n` releases guarantee together when they are releases of one point the user gave (each is `each`;
    /// they compose: n·ε, √n·μ for GDP). `None` for the default point or a single release, where nothing is
    /// said about a point of the user's.
    pub fn together(&self, each: &Guarantee, n: u64) -> Result<Option<Guarantee>, Error> {
        if self.center.is_none() || n <= 1 {
            return Ok(None);
        }
        Ok(Some(manifold_dp::privacy::rules::repeated(each, n)?))
    }
}

fn rotation_hint(text: &str, format: &str, len: usize) -> String {
    if format == "quat-wxyz" {
        format!("cannot read rotation {text:?}: write four numbers w,x,y,z (scalar first)")
    } else {
        format!("cannot read rotation {text:?}: write {len} comma-separated numbers in {format}, or identity")
    }
}

fn no_sampler(space: Space) -> Error {
    refuse(format!(
        "space {space} has no single-point sampler: sample releases so3, circle, timeofday, latlon or sphere:N"
    ))
}

fn refuse(why: String) -> Error {
    Error::Library(LibError::NotApplicable(why))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Flags;
    impl Spelling for Flags {
        fn option(&self, name: &str, value: Shown<'_>) -> String {
            match value {
                Shown::Text(v) | Shown::Number(v) => format!("--{name} {v}"),
                _ => format!("--{name}"),
            }
        }
    }

    fn text(space: Space, t: &str) -> SampleRequest {
        SampleRequest { center: Some(MeanCenter::Text(t.into())), ..SampleRequest::new(space) }
    }

    #[test]
    fn defaults_and_text_read_in_the_spaces_terms() {
        let identity = SampleRequest::new(Space::So3).values(&Flags).unwrap();
        assert_eq!(identity, vec![1.0, 0.0, 0.0, 0.0]);
        let xyzw = SampleRequest { format: Some("quat-xyzw".into()), ..SampleRequest::new(Space::So3) };
        assert_eq!(xyzw.values(&Flags).unwrap(), vec![0.0, 0.0, 0.0, 1.0]);
        assert_eq!(text(Space::TimeOfDay, "13:30").values(&Flags).unwrap(), vec![13.5]);
        let paris = text(Space::LatLon, "48.85,2.35").values(&Flags).unwrap();
        assert!((paris[0] - 48.85).abs() < 1e-12 && (paris[1] - 2.35).abs() < 1e-12);
        let quarter = text(Space::Circle, "90deg").values(&Flags).unwrap();
        assert!((quarter[0] - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
        assert_eq!(SampleRequest::new(Space::Sphere(3)).values(&Flags).unwrap(), vec![1.0, 0.0, 0.0]);
        // Values are kept bit for bit.
        let deg = SampleRequest { format: Some("deg".into()), ..text(Space::Circle, "0.5") };
        assert_eq!(deg.values(&Flags).unwrap(), vec![0.5f64.to_degrees()]);
        let given = SampleRequest { center: Some(MeanCenter::Values(vec![0.1])), ..SampleRequest::new(Space::Circle) };
        assert_eq!(given.values(&Flags).unwrap(), vec![0.1]);
    }

    #[test]
    fn refusals_name_the_option_and_say_what_to_write() {
        let msg = |r: SampleRequest| r.point(&Flags).unwrap_err().to_string();
        assert_eq!(
            msg(text(Space::So3, "1,0,0")),
            "cannot read rotation \"1,0,0\": write four numbers w,x,y,z (scalar first)"
        );
        assert!(msg(text(Space::LatLon, "95,0")).starts_with("--center 95,0: latitude"));
        assert!(msg(text(Space::LatLon, "1")).ends_with("write lat,lon in degrees, e.g. 48.85,2.35"));
        assert!(msg(text(Space::Sphere(3), "1,0")).contains("write 3 comma-separated coordinates"));
        assert!(msg(text(Space::TimeOfDay, "25:99")).starts_with("--center 25:99: "));
        assert!(msg(SampleRequest::new(Space::Real)).contains("no single-point sampler"));
        let g = Guarantee::pure(0.5);
        assert_eq!(SampleRequest::new(Space::So3).together(&g, 10).unwrap(), None);
        let together = text(Space::So3, "identity").together(&g, 10).unwrap().unwrap();
        assert_eq!(together, Guarantee::pure(5.0));
    }
}
