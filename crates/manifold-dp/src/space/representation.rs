//! The ways a rotation is written down in a file, as a value: parse its spelling (`quat-wxyz`, `euler:ZYX:deg`, …), decode a
//! record of numbers into a rotation, encode a rotation back, and name the default columns.

use crate::error::{Error, Fallible};
use crate::space::euler::{self, EulerSequence};
use crate::space::so3::{self, Tolerance};
use nalgebra::UnitQuaternion;
use std::fmt;
use std::str::FromStr;

/// Unit of Euler angles in a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AngleUnit {
    /// Degrees.
    Degrees,
    /// Radians.
    Radians,
}

/// A rotation representation, spelled as every front end spells it:
/// `quat-wxyz`, `quat-xyzw`, `matrix` (row-major r11…r33), `rotvec` (radians), `euler:SEQ` (degrees)
/// or `euler:SEQ:rad` / `euler:SEQ:deg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Representation {
    /// Quaternion, scalar first.
    QuatWxyz,
    /// Quaternion, scalar last (scipy's default).
    QuatXyzw,
    /// Rotation matrix, row-major, 9 numbers.
    Matrix,
    /// Rotation vector (axis × angle), radians.
    RotVec,
    /// Euler angles.
    Euler(EulerSequence, AngleUnit),
}

impl Representation {
    /// Number of numbers in one record.
    pub fn len(&self) -> usize {
        match self {
            Representation::QuatWxyz | Representation::QuatXyzw => 4,
            Representation::Matrix => 9,
            Representation::RotVec | Representation::Euler(..) => 3,
        }
    }

    /// Always false: every representation has components (present for API symmetry with `len`).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Default column names.
    pub fn column_names(&self) -> Vec<String> {
        let names: &[&str] = match self {
            Representation::QuatWxyz => &["w", "x", "y", "z"],
            Representation::QuatXyzw => &["x", "y", "z", "w"],
            Representation::Matrix => &["r11", "r12", "r13", "r21", "r22", "r23", "r31", "r32", "r33"],
            Representation::RotVec => &["rx", "ry", "rz"],
            Representation::Euler(..) => &["angle1", "angle2", "angle3"],
        };
        names.iter().map(|s| s.to_string()).collect()
    }

    /// Decodes one record, validating it (see [`so3`]'s tolerance policy).
    pub fn decode(&self, values: &[f64], tol: &Tolerance) -> Fallible<UnitQuaternion<f64>> {
        if values.len() != self.len() {
            return Err(Error::WrongLength { expected: self.len(), got: values.len() });
        }
        match *self {
            Representation::QuatWxyz => so3::from_quat_wxyz([values[0], values[1], values[2], values[3]], tol),
            Representation::QuatXyzw => so3::from_quat_xyzw([values[0], values[1], values[2], values[3]], tol),
            Representation::Matrix => {
                let mut m = [0.0; 9];
                m.copy_from_slice(values);
                so3::from_matrix_row_major(m, tol)
            }
            Representation::RotVec => so3::from_rotvec([values[0], values[1], values[2]]),
            Representation::Euler(seq, unit) => {
                let mut a = [values[0], values[1], values[2]];
                if unit == AngleUnit::Degrees {
                    a.iter_mut().for_each(|v| *v = v.to_radians());
                }
                euler::from_euler(seq, a)
            }
        }
    }

    /// Encodes a rotation into `out` (length [`Representation::len`]) without allocating.
    pub fn encode_into(&self, q: &UnitQuaternion<f64>, out: &mut [f64]) {
        match *self {
            Representation::QuatWxyz => out.copy_from_slice(&so3::to_quat_wxyz(q)),
            Representation::QuatXyzw => out.copy_from_slice(&so3::to_quat_xyzw(q)),
            Representation::Matrix => out.copy_from_slice(&so3::to_matrix_row_major(q)),
            Representation::RotVec => out.copy_from_slice(&so3::to_rotvec(q)),
            Representation::Euler(..) => out.copy_from_slice(&self.encode(q)),
        }
    }

    /// Encodes a rotation (canonical quaternion sign, w ≥ 0).
    pub fn encode(&self, q: &UnitQuaternion<f64>) -> Vec<f64> {
        match *self {
            Representation::QuatWxyz => so3::to_quat_wxyz(q).to_vec(),
            Representation::QuatXyzw => so3::to_quat_xyzw(q).to_vec(),
            Representation::Matrix => so3::to_matrix_row_major(q).to_vec(),
            Representation::RotVec => so3::to_rotvec(q).to_vec(),
            Representation::Euler(seq, unit) => {
                let a = euler::to_euler(seq, q);
                match unit {
                    AngleUnit::Radians => a.to_vec(),
                    AngleUnit::Degrees => a.iter().map(|v| v.to_degrees()).collect(),
                }
            }
        }
    }
}

impl FromStr for Representation {
    type Err = Error;

    fn from_str(s: &str) -> Fallible<Self> {
        Ok(match s {
            "quat-wxyz" => Representation::QuatWxyz,
            "quat-xyzw" => Representation::QuatXyzw,
            "matrix" => Representation::Matrix,
            "rotvec" => Representation::RotVec,
            _ => {
                let rest = s.strip_prefix("euler:").ok_or_else(|| Error::UnknownRepresentation(s.to_string()))?;
                let (seq, unit) = match rest.split_once(':') {
                    None => (rest, AngleUnit::Degrees),
                    Some((seq, "deg")) => (seq, AngleUnit::Degrees),
                    Some((seq, "rad")) => (seq, AngleUnit::Radians),
                    Some(_) => return Err(Error::BadEulerSequence(rest.to_string())),
                };
                Representation::Euler(seq.parse()?, unit)
            }
        })
    }
}

impl fmt::Display for Representation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Representation::QuatWxyz => f.write_str("quat-wxyz"),
            Representation::QuatXyzw => f.write_str("quat-xyzw"),
            Representation::Matrix => f.write_str("matrix"),
            Representation::RotVec => f.write_str("rotvec"),
            Representation::Euler(seq, AngleUnit::Degrees) => write!(f, "euler:{seq}:deg"),
            Representation::Euler(seq, AngleUnit::Radians) => write!(f, "euler:{seq}:rad"),
        }
    }
}
