//! Euler angles in all 12 sequences, with scipy's `Rotation.from_euler` / `as_euler` semantics.
//!
//! A sequence is three axis letters with no two consecutive ones equal. Lowercase (`"xyz"`) means
//! *extrinsic* rotations about the fixed frame's axes, applied first to last; uppercase (`"XYZ"`) means
//! *intrinsic* rotations about the moving frame's axes. Extrinsic `"xyz"` with angles (a, b, c) is the
//! matrix R_z(c)·R_y(b)·R_x(a); intrinsic `"XYZ"` is R_x(a)·R_y(b)·R_z(c).
//!
//! [`to_euler`] returns the first and third angles in [−π, π] and the second in [0, π] (proper Euler
//! sequences such as `zxz`) or [−π/2, π/2] (Tait–Bryan sequences such as `xyz`). In gimbal lock (second
//! angle within 1e-7 of its limits) the third angle is set to 0, as scipy does. The algorithm is the
//! quaternion-based one of Bernardes & Viollet (2022), which scipy also uses.

use crate::error::{Error, Fallible};
use crate::space::so3::check_finite;
use nalgebra::{Quaternion, UnitQuaternion};
use std::f64::consts::{FRAC_PI_2, PI};
use std::fmt;
use std::str::FromStr;

/// One of the 12 Euler sequences, extrinsic or intrinsic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EulerSequence {
    /// Axis indices (0 = x, 1 = y, 2 = z) in the order written.
    axes: [usize; 3],
    /// Uppercase letters: rotations about the moving frame's axes.
    intrinsic: bool,
}

impl EulerSequence {
    /// Axis indices as written (0 = x, 1 = y, 2 = z).
    pub fn axes(&self) -> [usize; 3] {
        self.axes
    }

    /// Whether the rotations are about the moving (body) frame's axes.
    pub fn is_intrinsic(&self) -> bool {
        self.intrinsic
    }
}

impl FromStr for EulerSequence {
    type Err = Error;

    fn from_str(s: &str) -> Fallible<Self> {
        let bad = || Error::BadEulerSequence(s.to_string());
        let chars: Vec<char> = s.chars().collect();
        if chars.len() != 3 {
            return Err(bad());
        }
        let intrinsic = chars.iter().all(|c| c.is_ascii_uppercase());
        if !intrinsic && !chars.iter().all(|c| c.is_ascii_lowercase()) {
            return Err(bad());
        }
        let mut axes = [0usize; 3];
        for (slot, c) in axes.iter_mut().zip(&chars) {
            *slot = match c.to_ascii_lowercase() {
                'x' => 0,
                'y' => 1,
                'z' => 2,
                _ => return Err(bad()),
            };
        }
        if axes[0] == axes[1] || axes[1] == axes[2] {
            return Err(bad());
        }
        Ok(EulerSequence { axes, intrinsic })
    }
}

impl fmt::Display for EulerSequence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letters = if self.intrinsic { ['X', 'Y', 'Z'] } else { ['x', 'y', 'z'] };
        let s: String = self.axes.iter().map(|&a| letters[a]).collect();
        f.write_str(&s)
    }
}

fn elementary(axis: usize, angle: f64) -> UnitQuaternion<f64> {
    let (s, c) = (0.5 * angle).sin_cos();
    let mut v = [0.0; 3];
    v[axis] = s;
    UnitQuaternion::new_unchecked(Quaternion::new(c, v[0], v[1], v[2]))
}

/// The rotation with Euler angles `angles` (radians) in sequence `seq`. Angles must be finite and within
/// [−4π, 4π] (anything larger is almost certainly a unit mistake).
pub fn from_euler(seq: EulerSequence, angles: [f64; 3]) -> Fallible<UnitQuaternion<f64>> {
    check_finite(&angles)?;
    if let Some(component) = angles.iter().position(|a| a.abs() > 4.0 * PI) {
        return Err(Error::AngleOutOfRange { component, value: angles[component] });
    }
    let [a, b, c] = seq.axes;
    let (qa, qb, qc) = (elementary(a, angles[0]), elementary(b, angles[1]), elementary(c, angles[2]));
    Ok(if seq.intrinsic { qa * qb * qc } else { qc * qb * qa })
}

/// Euler angles (radians) of `q` in sequence `seq`, in scipy's ranges and gimbal-lock convention.
pub fn to_euler(seq: EulerSequence, q: &UnitQuaternion<f64>) -> [f64; 3] {
    // The algorithm is stated for extrinsic sequences; an intrinsic sequence equals the reversed
    // extrinsic one with first and third angles swapped.
    let extrinsic = !seq.intrinsic;
    let [mut i, j, mut k] = seq.axes;
    if !extrinsic {
        std::mem::swap(&mut i, &mut k);
    }
    let proper = i == k;
    if proper {
        k = 3 - i - j;
    }
    // +1 for an even permutation (i, j, k), −1 for odd.
    let sign = ((i as i32 - j as i32) * (j as i32 - k as i32) * (k as i32 - i as i32) / 2) as f64;
    let qc = q.quaternion();
    let comp = [qc.i, qc.j, qc.k];
    let (a, b, c, d) = if proper {
        (qc.w, comp[i], comp[j], comp[k] * sign)
    } else {
        (qc.w - comp[j], comp[i] + comp[k] * sign, comp[j] + qc.w, comp[k] * sign - comp[i])
    };

    let mut angles = [0.0; 3];
    angles[1] = 2.0 * c.hypot(d).atan2(a.hypot(b));
    const EPS: f64 = 1e-7;
    let at_zero = angles[1].abs() <= EPS;
    let at_pi = (angles[1] - PI).abs() <= EPS;
    let half_sum = b.atan2(a);
    let half_diff = d.atan2(c);
    // Slots (in the sequence as written) of the reversed extrinsic sequence's first and third angles.
    let (first, third) = if extrinsic { (0, 2) } else { (2, 0) };
    if !at_zero && !at_pi {
        angles[first] = half_sum - half_diff;
        angles[third] = half_sum + half_diff;
    } else {
        // Gimbal lock: only the sum or difference of the outer angles is determined. As in scipy, the
        // third angle of the sequence as written is set to 0 and the first carries the combination (for
        // intrinsic sequences too: these slots are not swapped).
        angles[2] = 0.0;
        angles[0] = if at_zero { 2.0 * half_sum } else { 2.0 * half_diff * if extrinsic { -1.0 } else { 1.0 } };
    }
    if !proper {
        angles[third] *= sign;
        angles[1] -= FRAC_PI_2;
    }
    for angle in &mut angles {
        if *angle < -PI {
            *angle += 2.0 * PI;
        } else if *angle > PI {
            *angle -= 2.0 * PI;
        }
    }
    angles
}

/// All 12 sequences, extrinsic spelling.
pub const ALL_SEQUENCES: [&str; 12] =
    ["xyz", "xzy", "yxz", "yzx", "zxy", "zyx", "xyx", "xzx", "yxy", "yzy", "zxz", "zyz"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_and_rejects_bad() {
        for s in ALL_SEQUENCES {
            assert_eq!(s.parse::<EulerSequence>().unwrap().to_string(), s);
            let upper = s.to_uppercase();
            assert!(upper.parse::<EulerSequence>().unwrap().is_intrinsic());
        }
        for bad in ["xxy", "xYz", "xy", "xyzz", "abc", "xyy", ""] {
            assert!(bad.parse::<EulerSequence>().is_err(), "{bad}");
        }
    }

    #[test]
    fn nalgebra_convention() {
        // docs/math.md: nalgebra's from_euler_angles(r, p, y) equals scipy's from_euler('xyz', [r, p, y]).
        let (r, p, y) = (0.3, -0.7, 2.1);
        let ours = from_euler("xyz".parse().unwrap(), [r, p, y]).unwrap();
        let theirs = UnitQuaternion::from_euler_angles(r, p, y);
        assert!(ours.angle_to(&theirs) < 1e-12);
    }

    #[test]
    fn rejects_out_of_range() {
        let seq: EulerSequence = "ZYX".parse().unwrap();
        assert!(matches!(from_euler(seq, [0.0, 100.0, 0.0]), Err(Error::AngleOutOfRange { component: 1, .. })));
        assert!(matches!(from_euler(seq, [f64::NAN, 0.0, 0.0]), Err(Error::NonFinite { component: 0, .. })));
    }
}
