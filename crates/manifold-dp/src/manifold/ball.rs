//! What a Fréchet-mean release does with a row outside the public ball B_r(m0) that bounds one row's influence
//! (Assumption 1 of Reimherr et al.): refuse it, drop it, or clip it onto the ball. Why each keeps the
//! guarantee is in `docs/proofs/mean_outside_ball.md`.

use super::Manifold;
use crate::error::Error;
use std::fmt;
use std::str::FromStr;

/// The handling of a row outside the ball B_r(m0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Outside {
    /// Refuse the data set, naming the first such row: every row must lie in the ball. n is public.
    #[default]
    Error,
    /// Leave such rows out. The mean is over the n′ rows in the ball and n′ sets the noise scale: the guarantee
    /// protects replacing a row in the ball by another row in the ball; *whether* a row lies outside (and how
    /// many do) is not protected (proof §2).
    Drop,
    /// Replace such a row x by the point of the geodesic from m0 towards x at distance r (the centre itself for
    /// a row on the centre's cut locus, where that geodesic is not unique). A fixed map of one row, so the
    /// guarantee for n rows holds unchanged (proof §1).
    Clip,
}

impl Outside {
    /// The names a user types: `error`, `drop`, `clip`.
    pub const NAMES: [&'static str; 3] = ["error", "drop", "clip"];
}

impl fmt::Display for Outside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outside::Error => "error",
            Outside::Drop => "drop",
            Outside::Clip => "clip",
        })
    }
}

impl FromStr for Outside {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "error" => Ok(Outside::Error),
            "drop" => Ok(Outside::Drop),
            "clip" => Ok(Outside::Clip),
            _ => Err(Error::NotApplicable(format!(
                "outside-the-ball handling {s:?}: use error (refuse the data), drop (leave the rows out) or clip \
                 (move them onto the ball)"
            ))),
        }
    }
}

/// What became of one row under an [`Outside`] rule.
#[derive(Debug, Clone, PartialEq)]
pub enum Placed<P> {
    /// In the ball: used as it is.
    Inside,
    /// Outside, and dropped.
    Dropped,
    /// Outside, and replaced by this point of the ball.
    Clipped(P),
    /// Outside, with the rule [`Outside::Error`]: its distance from the centre.
    Refused(f64),
}

/// Places `x` relative to the ball B_`radius`(`center`) under `rule`.
pub fn place<M: Manifold + ?Sized>(
    m: &M,
    center: &M::Point,
    radius: f64,
    x: &M::Point,
    rule: Outside,
) -> Placed<M::Point> {
    let distance = m.distance(center, x);
    // NaN distances (never from validated points) count as outside.
    if distance <= radius {
        return Placed::Inside;
    }
    match rule {
        Outside::Error => Placed::Refused(distance),
        Outside::Drop => Placed::Dropped,
        Outside::Clip => Placed::Clipped(clip(m, center, radius, x)),
    }
}

/// The point at distance `radius` from `center` on the geodesic towards `x` (`x` outside the ball), with its
/// computed distance ≤ `radius`: the step is shortened by a few parts in 10¹³ if rounding put it outside.
/// A row on the cut locus (log's norm does not match the distance: the antipode on a sphere) goes to the centre.
pub fn clip<M: Manifold + ?Sized>(m: &M, center: &M::Point, radius: f64, x: &M::Point) -> M::Point {
    let v = m.log(center, x);
    let length = v.norm();
    let distance = m.distance(center, x);
    if !(length > 0.0 && length.is_finite() && (length - distance).abs() <= 1e-9 * distance.max(1.0)) {
        return center.clone();
    }
    // Shrink the target radius by 2^-45, 2^-44, …: rounding in exp and distance is ~1e-15 relative, so the
    // first try almost always lands inside; the loop is bounded and ends at the centre at worst.
    let mut shrink = 0.0;
    for k in 0..40 {
        let y = m.exp(center, &(&v * (radius * (1.0 - shrink) / length)));
        if m.distance(center, &y) <= radius {
            return y;
        }
        shrink = (-45.0 + f64::from(k)).exp2();
    }
    center.clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifold::{So3, SpdAffine, Sphere};
    use nalgebra::{DMatrix, DVector, UnitQuaternion, Vector3};

    #[test]
    fn names_round_trip_and_bad_names_teach() {
        for name in Outside::NAMES {
            assert_eq!(name.parse::<Outside>().unwrap().to_string(), name);
        }
        assert_eq!("CLIP".parse::<Outside>().unwrap(), Outside::Clip);
        let e = "clamp".parse::<Outside>().unwrap_err().to_string();
        assert!(e.contains("error") && e.contains("drop") && e.contains("clip"), "{e}");
    }

    #[test]
    fn clipping_lands_on_the_sphere_of_radius_r_towards_the_row() {
        let s2 = Sphere::new(3).unwrap();
        let c = DVector::from_vec(vec![0.0, 0.0, 1.0]);
        let r = 0.5;
        for &theta in &[0.5000001f64, 0.8, 2.0, 3.1] {
            let x = DVector::from_vec(vec![theta.sin() * 0.6, theta.sin() * 0.8, theta.cos()]);
            let Placed::Clipped(y) = place(&s2, &c, r, &x, Outside::Clip) else { panic!("{theta} is outside") };
            let d = s2.distance(&c, &y);
            assert!(d <= r && d > r - 1e-12, "{theta}: {d}");
            // Same direction: y's azimuth is x's.
            assert!((y[1] / y[0] - 0.8 / 0.6).abs() < 1e-9);
        }
        // The antipode has no nearest point of the ball: the centre.
        let anti = -&c;
        assert_eq!(clip(&s2, &c, r, &anti), c);
        assert_eq!(place(&s2, &c, r, &c, Outside::Clip), Placed::Inside);
        assert_eq!(place(&s2, &c, r, &anti, Outside::Drop), Placed::Dropped);
        assert!(
            matches!(place(&s2, &c, r, &anti, Outside::Error), Placed::Refused(d) if (d - std::f64::consts::PI).abs() < 1e-12)
        );
    }

    #[test]
    fn clipping_works_on_so3_and_spd() {
        let c = UnitQuaternion::from_scaled_axis(Vector3::new(0.1, 0.0, 0.0));
        let x = UnitQuaternion::from_scaled_axis(Vector3::new(0.0, 3.0, 0.0));
        let y = clip(&So3, &c, 1.0, &x);
        let d = So3.distance(&c, &y);
        assert!(d <= 1.0 && d > 1.0 - 1e-12, "{d}");
        // y lies on the geodesic: ρ(c, y) + ρ(y, x) = ρ(c, x).
        assert!((d + So3.distance(&y, &x) - So3.distance(&c, &x)).abs() < 1e-9);
        // A half turn (on SO(3)'s cut locus only from the identity's antipodal set) still clips.
        let half = UnitQuaternion::from_scaled_axis(Vector3::new(0.0, 0.0, std::f64::consts::PI));
        assert!(So3.distance(&UnitQuaternion::identity(), &clip(&So3, &UnitQuaternion::identity(), 0.5, &half)) <= 0.5);

        let spd = SpdAffine::new(2).unwrap();
        let c = DMatrix::identity(2, 2);
        let x = DMatrix::from_row_slice(2, 2, &[50.0, 1.0, 1.0, 0.1]);
        let y = clip(&spd, &c, 1.5, &x);
        let d = spd.distance(&c, &y);
        assert!(d <= 1.5 && d > 1.5 - 1e-9, "{d}");
        assert!((d + spd.distance(&y, &x) - spd.distance(&c, &x)).abs() < 1e-7);
    }
}
