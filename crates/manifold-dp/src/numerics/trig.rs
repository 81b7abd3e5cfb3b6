//! Sine and cosine on the hot paths without a libm call: (sin, cos) tabulated at the 256 equal steps
//! A_k = fl(k·h/2), h = π/256, of [0, π/2], rotated by the rest r = t − A_k with the Taylor polynomials of
//! `small_sin_cos`. Within 8·2^-53 of libm's values on [0, π/2] (tests below); the argument error of the
//! quarter-turn reductions adds at most half an ulp of π/2. The SO(3) Laplace sampler's stepped envelope uses the
//! same steps (`docs/proofs/laplace_so3.md`); the circle's turn grid and its Purkayastha angle use the
//! reductions here (`docs/proofs/float_safety.md` §2, §4).

use std::f64::consts::{FRAC_PI_2, PI};
use std::sync::LazyLock;

/// Number of equal steps h = π/STEPS of [0, π]; the table holds their halves, which cover [0, π/2].
pub(crate) const STEPS: usize = 256;

/// The step h = π/STEPS.
pub(crate) const STEP: f64 = PI / STEPS as f64;

/// (sin, cos) of the half step starts fl(k·h/2), k < STEPS.
pub(crate) static HALF_STARTS: LazyLock<[(f64, f64); STEPS]> =
    LazyLock::new(|| std::array::from_fn(|k| half_start(k).sin_cos()));

/// fl(k·h/2), the k-th half step start.
#[inline]
pub(crate) fn half_start(k: usize) -> f64 {
    0.5 * STEP * k as f64
}

/// (sin t, cos t) for t ∈ [0, π/2]: the tabulated start A = fl(k·h/2) at or just below t, rotated by r = t − A.
/// The subtraction is exact (Sterbenz: A ≤ t ≤ 2A for k ≥ 1, r = t for k = 0, and an index one off at a step
/// boundary leaves |r| ≤ h/2 + ulps, within `small_sin_cos`'s range), so the error is the table's rounding and
/// the polynomial's, a few ulps (`docs/proofs/laplace_so3.md`).
#[inline]
pub(crate) fn sin_cos_quarter(t: f64) -> (f64, f64) {
    let k = ((t * (2.0 / STEP)) as usize).min(STEPS - 1);
    sin_cos_from_start(k, t - half_start(k))
}

/// (sin, cos) of A_k + r (the real sum; A_k = fl(k·h/2), |r| ≤ h/2 + a few ulps): the table's entry rotated by
/// r. Each component is within 3.6·2^-53 of the exact value: the errors of the table (libm, within one ulp, so
/// within 2^-53 below one) and of the polynomials (cos r within 2^-54, sin r within 0.01·2^-53) carried through
/// the rotation (≤ 1.52·2^-53), plus its two products and one sum (≤ γ₂·(1 + 2^-52) ≤ 2.01·2^-53); see
/// `docs/proofs/float_safety.md` §4.
#[inline]
pub(crate) fn sin_cos_from_start(k: usize, r: f64) -> (f64, f64) {
    let (sin_a, cos_a) = HALF_STARTS[k];
    let (sin_r, cos_r) = small_sin_cos(r);
    (sin_a * cos_r + cos_a * sin_r, cos_a * cos_r - sin_a * sin_r)
}

/// (sin θ, cos θ) for θ ∈ [0, fl(π)]. Above π/2 the rest r = θ − fl(π/2) is exact (Sterbenz), so θ = r + fl(π/2)
/// exactly and (sin θ, cos θ) = (cos r, −sin r) up to fl(π/2)'s own error, |π/2 − fl(π/2)| < 6.2e-17.
#[inline]
pub(crate) fn sin_cos_half_turn(theta: f64) -> (f64, f64) {
    if theta <= FRAC_PI_2 {
        sin_cos_quarter(theta)
    } else {
        let (sin_r, cos_r) = sin_cos_quarter(theta - FRAC_PI_2);
        (cos_r, 0.0 - sin_r)
    }
}

/// (sin 2πf, cos 2πf) for f ∈ [0, 1) turns: the quarter q = ⌊4f⌋ and the rest 4f − q (both exact), the rest's
/// angle (4f − q)·fl(π/2) (one rounding), and the quarter's exact symmetry. Zeros come out positive (0 − x, not
/// −x), so the half turn is (+0, −1), whose angle is +π.
#[inline]
pub fn sin_cos_turns(f: f64) -> (f64, f64) {
    let quarters = 4.0 * f;
    let q = quarters as u32;
    let (s, c) = sin_cos_quarter((quarters - f64::from(q)) * FRAC_PI_2);
    // The quarter's map (s, c), (c, −s), (−s, −c), (−c, s) by indexed selects, not a match: the quarter of a
    // release is unpredictable, and its jump table's mispredictions were a fifth of the circle snap's time.
    let q = q as usize & 3;
    let swap = q & 1;
    let (a, b) = ([s, c][swap], [c, s][swap]);
    // The first is negated in quarters 2 and 3, the second in 1 and 2 (0 − x keeps zeros positive).
    ([a, 0.0 - a][q >> 1], [b, 0.0 - b][((q + 1) >> 1) & 1])
}

/// Number of equal steps of [0, 1] in the arctangent table of [`atan2_turns`].
const ATAN_STEPS: usize = 256;

/// atan(j/256)/2π in turns, j = 0..=256 (libm's arctangent, then one division by fl(2π)).
static ATAN_TURNS: LazyLock<[f64; ATAN_STEPS + 1]> =
    LazyLock::new(|| std::array::from_fn(|j| (j as f64 / ATAN_STEPS as f64).atan() / std::f64::consts::TAU));

/// The angle of (x, y) in turns, in [−½, ½] with the sign of y (atan2's branch, signed zeros included), within
/// 2·2^-53 turns of the exact angle (`docs/proofs/float_safety.md` §2, "The turn cell without libm") for finite
/// (x, y) ≠ (0, 0); `None` otherwise. The octant's ratio r = min/max(|x|, |y|) ∈ [0, 1], the table's
/// c = ⌊256r⌋/256 at or below it (r − c exact, Sterbenz), and atan r = atan c + atan d with
/// d = (r − c)/(1 + rc) ∈ [0, 2^-8], whose Taylor polynomial to d⁷ errs by d⁹/9 < 2^-75; then the octant's exact
/// symmetries in turns (¼ − a, ½ − a, −a). Two divisions, no libm call: libm's atan2 was most of the circle
/// snap's time.
#[inline]
pub fn atan2_turns(y: f64, x: f64) -> Option<f64> {
    let (ax, ay) = (x.abs(), y.abs());
    let steep = ay > ax;
    let (num, den) = (ax.min(ay), ax.max(ay));
    // Zero, infinite or NaN coordinates (and sums past the largest double) are left to the caller's libm path.
    if !(ax + ay > 0.0 && ax + ay < f64::INFINITY) {
        return None;
    }
    let r = num / den;
    let j = ((r * ATAN_STEPS as f64) as usize).min(ATAN_STEPS);
    let c = j as f64 / ATAN_STEPS as f64;
    let d = (r - c) / (1.0 + r * c);
    let d2 = d * d;
    let atan_d = d - d * d2 * (1.0 / 3.0 - d2 * (1.0 / 5.0 - d2 * (1.0 / 7.0)));
    let a = ATAN_TURNS[j] + atan_d * (1.0 / std::f64::consts::TAU);
    // The octant's symmetries by indexed selects: the octant of a release is unpredictable.
    let a = [a, 0.25 - a][usize::from(steep)];
    let a = [a, 0.5 - a][usize::from(x < 0.0)];
    Some([a, -a][usize::from(y.is_sign_negative())])
}

/// sin and cos of |x| ≤ π/254 (≈ 0.0124, the widest strip or step of the tabulated samplers) by their Taylor
/// polynomials to x⁷ and x⁶; the first omitted terms, x⁹/9! and x⁸/8!, are below 2e-20 relative, far under
/// one ulp.
#[inline]
pub(crate) fn small_sin_cos(x: f64) -> (f64, f64) {
    // Horner form with the coefficients precomputed: multiplications only (a division costs several times as
    // much, and this is on the hot path of two samplers).
    let x2 = x * x;
    let sin = x + x * x2 * (-1.0 / 6.0 + x2 * (1.0 / 120.0 - x2 * (1.0 / 5040.0)));
    let cos = 1.0 + x2 * (-0.5 + x2 * (1.0 / 24.0 - x2 * (1.0 / 720.0)));
    (sin, cos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::TAU;

    /// The largest error of `sin_cos` against libm's over `ts`, in units of 2^-53 (half an ulp of 1).
    fn worst_error(ts: &[f64], sin_cos: impl Fn(f64) -> (f64, f64), reference: impl Fn(f64) -> (f64, f64)) -> f64 {
        ts.iter()
            .map(|&t| {
                let ((s, c), (s0, c0)) = (sin_cos(t), reference(t));
                (s - s0).abs().max((c - c0).abs()) / f64::EPSILON * 2.0
            })
            .fold(0.0, f64::max)
    }

    /// Every step boundary and its neighbours (where the index may be one off), the ends, and a fine sweep
    /// of [0, π/2].
    fn quarter_points() -> Vec<f64> {
        let mut ts: Vec<f64> = (0..=STEPS)
            .flat_map(|k| {
                let a = half_start(k);
                [a, a.next_up(), a.next_down().max(0.0)]
            })
            .collect();
        ts.extend((0..=200_000).map(|i| FRAC_PI_2 * i as f64 / 200_000.0));
        ts.retain(|&t| (0.0..=FRAC_PI_2).contains(&t));
        ts
    }

    #[test]
    fn quarter_matches_libm() {
        let ts = quarter_points();
        let err = worst_error(&ts, sin_cos_quarter, f64::sin_cos);
        assert!(err <= 8.0, "error {err} × 2^-53");
        // Negative control: the table entry of the next step, rotated by the same rest, is far off.
        let shifted = |t: f64| {
            let k = ((t * (2.0 / STEP)) as usize).min(STEPS - 2) + 1;
            let (sin_a, cos_a) = HALF_STARTS[k];
            let (sin_r, cos_r) = small_sin_cos(t - half_start(k - 1));
            (sin_a * cos_r + cos_a * sin_r, cos_a * cos_r - sin_a * sin_r)
        };
        assert!(worst_error(&ts, shifted, f64::sin_cos) > 1e10, "the control was not caught");
    }

    #[test]
    fn half_turn_matches_libm() {
        let mut ts = quarter_points();
        ts.extend(quarter_points().iter().map(|t| t + FRAC_PI_2).filter(|&t| t <= PI));
        ts.extend([FRAC_PI_2.next_up(), PI, PI.next_down()]);
        // θ = r + fl(π/2) exactly above π/2, and fl(π/2)'s error (< 6.2e-17 = 0.56 × 2^-53) adds to the
        // quarter's 8.
        let err = worst_error(&ts, sin_cos_half_turn, f64::sin_cos);
        assert!(err <= 9.0, "error {err} × 2^-53");
        // Negative control: the wrong sign of the cosine above π/2.
        let flipped = |t: f64| {
            let (s, c) = sin_cos_half_turn(t);
            (s, if t > FRAC_PI_2 { -c } else { c })
        };
        assert!(worst_error(&ts, flipped, f64::sin_cos) > 1e10, "the control was not caught");
    }

    #[test]
    fn turns_match_libm_and_zeros_are_positive() {
        // Every quarter start and its neighbours, the dyadic turns of the grids, and a sweep.
        let mut fs: Vec<f64> = (0..4).flat_map(|q| [0.25 * q as f64, (0.25 * q as f64).next_up()]).collect();
        fs.extend((1..4).map(|q| (0.25 * q as f64).next_down()));
        fs.extend((0..1 << 12).map(|k| k as f64 / 4096.0));
        fs.extend((0..100_000).map(|i| (i as f64 * 0.618_033_988_749_895).fract()));
        // Against libm at the same reduced argument: exact in the quarter, one rounding of the rest's angle.
        let reference = |f: f64| {
            let q = (4.0 * f) as u32;
            let (s, c) = ((4.0 * f - f64::from(q)) * FRAC_PI_2).sin_cos();
            [(s, c), (c, -s), (-s, -c), (-c, s)][q as usize]
        };
        assert!(worst_error(&fs, sin_cos_turns, reference) <= 8.0);
        // And against the unreduced angle 2πf: the reduction's own rounding is within an ulp of π/2 more.
        assert!(worst_error(&fs, sin_cos_turns, |f| (TAU * f).sin_cos()) <= 16.0);
        for (f, want) in [(0.0, (0.0f64, 1.0f64)), (0.25, (1.0, 0.0)), (0.5, (0.0, -1.0)), (0.75, (-1.0, 0.0))] {
            let (s, c) = sin_cos_turns(f);
            assert_eq!((s.to_bits(), c.to_bits()), (want.0.to_bits(), want.1.to_bits()), "at {f} turns");
        }
        assert_eq!(sin_cos_turns(0.5).0.atan2(-1.0), PI);
        // Negative control: a quarter off.
        assert!(worst_error(&fs, |f| sin_cos_turns((f + 0.25).fract()), reference) > 1e10);
    }

    /// The angle without libm is within 4.01·2^-53 turns of libm's atan2/2π (each within about 2·2^-53 turns of
    /// the exact angle: `docs/proofs/float_safety.md` §2) on a sweep of every octant, the table's knots and their
    /// neighbours, the axes and diagonals, signed zeros and tiny coordinates; non-finite points and (0, 0) are
    /// refused. Negative control: the table's next entry is caught.
    #[test]
    fn atan2_turns_matches_libm() {
        let mut points: Vec<(f64, f64)> = (0..400_000)
            .map(|i| {
                let a = (i as f64 * 0.618_033_988_749_895).fract() * TAU;
                let r = 1.0 + (i % 7) as f64 * 0.3;
                (r * a.cos(), r * a.sin())
            })
            .collect();
        for j in 0..=ATAN_STEPS {
            let c = j as f64 / ATAN_STEPS as f64;
            for r in [c, c.next_up(), c.next_down()] {
                for (sx, sy) in [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)] {
                    points.push((sx, sy * r));
                    points.push((sx * r, sy));
                }
            }
        }
        points.extend([(0.0, 1.0), (-0.0, 1.0), (0.0, -1.0), (-1.0, 0.0), (-1.0, -0.0), (1.0, -0.0), (1e-300, 1.0)]);
        points.extend([(-1.0, 1e-300), (-1.0, -1e-300), (5e-324, -5e-324), (1e300, 1e-300), (-3.0, 3.0)]);
        let error = |turns: &dyn Fn(f64, f64) -> Option<f64>| {
            points
                .iter()
                .map(|&(x, y)| {
                    let want = y.atan2(x) / TAU;
                    let got = turns(y, x).unwrap();
                    assert_eq!(got.is_sign_negative(), want.is_sign_negative(), "the branch at ({x}, {y})");
                    (got - want).abs() / (f64::EPSILON / 2.0)
                })
                .fold(0.0, f64::max)
        };
        let worst = error(&atan2_turns);
        eprintln!("atan2_turns: worst {worst:.3} × 2^-53 turns from libm's");
        assert!(worst <= 4.01, "{worst} × 2^-53 turns");
        for (x, y) in
            [(0.0, 0.0), (-0.0, -0.0), (f64::NAN, 1.0), (1.0, f64::NAN), (f64::INFINITY, 1.0), (1.0, -f64::INFINITY)]
        {
            assert_eq!(atan2_turns(y, x), None, "({x}, {y})");
        }
        let shifted = |y: f64, x: f64| {
            let a = atan2_turns(y, x)?;
            let (ax, ay) = (x.abs(), y.abs());
            let r = ax.min(ay) / ax.max(ay);
            let j = ((r * ATAN_STEPS as f64) as usize).min(ATAN_STEPS - 1);
            Some(a + (ATAN_TURNS[j + 1] - ATAN_TURNS[j]).copysign(a))
        };
        assert!(error(&shifted) > 1e10, "the control was not caught");
    }
}
