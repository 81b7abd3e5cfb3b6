//! What a front end tells its user about a release beyond its guarantee: the warnings every front end (the
//! command line, Python, Spark) prints the same way, in the space's own unit. Front ends only present them
//! (stderr, `warnings.warn`); the rules are here.

use crate::numerics::format::short;
use crate::space::kind::Space;

/// A private mean is flagged when at least this share of its rows lay outside the ball (or the bounds) and were
/// clipped onto it or dropped: the release then mostly shows the ball, not the data.
pub const OUTSIDE_SHARE_WARNING: f64 = 0.5;

/// A release's rounding cost is flagged above this share of its ε.
pub const ROUNDING_SHARE_WARNING: f64 = 0.01;

/// A distance for people: radians and the space's natural unit (deg, km, h), or a plain number on spd:K and the
/// real line.
pub fn show_distance(space: Space, x: f64) -> String {
    if matches!(space, Space::Spd(_) | Space::Real) {
        return short(x);
    }
    let unit = space.natural_unit();
    format!("{} rad ({} {})", short(x), short(x / unit.radians), unit.name)
}

/// What a private mean's release came to, for [`mean_warnings`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanFacts {
    /// The space of the data.
    pub space: Space,
    /// Rows in the mean (after any were dropped).
    pub used: u64,
    /// Rows outside the ball (or bounds) left out.
    pub dropped: u64,
    /// Rows outside the ball (or bounds) moved onto it (they are among `used`).
    pub clipped: u64,
    /// The release's expected distance from the exact mean of the rows it was computed from.
    pub expected_error: f64,
    /// The ball's radius (the bounds' width on the real line).
    pub radius: f64,
    /// The rounding cost taken inside ε.
    pub rounding_cost: f64,
    /// The ε asked.
    pub epsilon: f64,
}

/// The warnings a private mean's release deserves, each a sentence without a trailing period: the expected error
/// beyond the radius (the release says next to nothing), a rounding cost above 1 % of ε, and half or more of the
/// rows clipped or dropped (the release then mostly shows the ball: its expected error is the error around the
/// mean of the clipped rows, not of the data). With `clip`, 212 of 214 protein frames were moved onto
/// the ball and nothing warned.
pub fn mean_warnings(f: &MeanFacts) -> Vec<String> {
    let mut out = Vec::new();
    let ball = if f.space == Space::Real { "bounds" } else { "radius" };
    let all = f.used + f.dropped;
    let outside = f.clipped + f.dropped;
    if all > 0 && outside as f64 >= OUTSIDE_SHARE_WARNING * all as f64 {
        let share = 100.0 * outside as f64 / all as f64;
        let (what, of) = if f.dropped >= f.clipped {
            ("left out", format!("the mean of the {} rows inside", f.used))
        } else {
            ("moved onto the ball's edge", "the mean of the rows as clipped, not of your data".to_string())
        };
        out.push(format!(
            "{outside} of {all} rows ({share:.0} %) lay outside the {ball} and were {what}: the release mostly shows \
             where the {ball} is, and its expected error is that around {of}; a centre nearer the data or a larger \
             {ball} fixes this (for data spread over the whole space, the extrinsic estimator)"
        ));
    }
    if f.expected_error > f.radius {
        out.push(format!(
            "the expected error {} exceeds the {ball} {}: at this epsilon and n the release says next to nothing \
             about the data (more rows or a larger epsilon help)",
            show_distance(f.space, f.expected_error),
            show_distance(f.space, f.radius)
        ));
    }
    if f.rounding_cost > ROUNDING_SHARE_WARNING * f.epsilon {
        // On SPD the cost grows with the condition numbers of a wide ball; on spheres and SO(3) with the noise's
        // concentration ∝ n·ε/r, and it is a smaller share of a larger ε (`docs/proofs/float_safety.md` §4).
        let advice = match f.space {
            Space::Spd(_) => "a centre closer to the data and a smaller radius cost less",
            _ => "its share of epsilon shrinks as epsilon grows; a random subsample of the rows costs less",
        };
        out.push(format!(
            "rounding the release float-safely costs {} of the epsilon {} (taken inside it: the noise is \
             calibrated at the rest): {advice}",
            short(f.rounding_cost),
            short(f.epsilon)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(used: u64, dropped: u64, clipped: u64) -> MeanFacts {
        MeanFacts {
            space: Space::So3,
            used,
            dropped,
            clipped,
            expected_error: 0.01,
            radius: 1.0,
            rounding_cost: 0.0,
            epsilon: 1.0,
        }
    }

    #[test]
    fn half_the_rows_outside_is_flagged_and_fewer_are_not() {
        // The protein frames : 212 of 214 clipped.
        let w = mean_warnings(&facts(214, 0, 212));
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("212 of 214 rows (99 %) lay outside the radius and were moved onto"), "{}", w[0]);
        assert!(w[0].contains("not of your data"));
        let w = mean_warnings(&facts(50, 50, 0));
        assert!(w[0].starts_with("50 of 100 rows (50 %)") && w[0].contains("left out"), "{}", w[0]);
        assert!(mean_warnings(&facts(100, 0, 49)).is_empty());
        assert!(mean_warnings(&facts(100, 49, 0)).is_empty());
        assert!(mean_warnings(&facts(0, 0, 0)).is_empty());
    }

    #[test]
    fn the_other_warnings_speak_the_spaces_unit() {
        let f = MeanFacts {
            space: Space::LatLon,
            expected_error: 0.1,
            radius: 0.01,
            rounding_cost: 0.02,
            ..facts(10, 0, 0)
        };
        let w = mean_warnings(&f);
        assert_eq!(w.len(), 2);
        assert!(w[0].contains("km") && w[0].contains("exceeds the radius"), "{}", w[0]);
        assert!(w[1].starts_with("rounding the release float-safely costs 0.02 of the epsilon 1"), "{}", w[1]);
        assert!(!w.iter().any(|s| s.contains("--")), "no command-line flag in a library message");
    }
}
