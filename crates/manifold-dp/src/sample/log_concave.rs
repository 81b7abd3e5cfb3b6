//! Exact rejection sampler of a log-concave density f on a bounded interval [0, end], by a table of equal
//! strips: the radial laws of the sphere samplers (Purkayastha's angle, VMF's t = 1 − cos θ for n ≥ 4).
//! Proof: `docs/proofs/purkayastha_sphere.md`, "The strip sampler"; its arithmetic: `docs/proofs/float_safety.md`
//! §3f, "The strip sampler's arithmetic".
//!
//! With g = ln f − ln f(mode) (so g ≤ 0, concave), the envelope has 256 pieces, picked by an alias table:
//!
//! - [`STRIPS`] equal strips of [L, T], where g ≥ −[`DROP`] inside (L = 0 or T = end where g stays above it).
//!   On strip j the envelope is a constant c_j ≥ sup f̃ (f̃ = e^g); a unimodal f̃ takes its supremum on a strip at
//!   an end or at the mode, and its infimum at an end.
//! - Two exponential tails, on [0, L] and [T, end]: the chord of g from L (or T) to the mode, extended, lies
//!   above a concave g beyond L (or T), since the slopes of a concave function's chords decrease.
//!
//! A piece is picked with probability p_j (the alias table's own probabilities, computed from its integer
//! comparisons), a point X uniformly in a strip (or exponentially in a tail), and a height Y uniformly under the
//! envelope; X is accepted when Y < f̃(X). Every envelope is scaled to c_j = K·p_j/w (tails: K·p_j·|slope|), so
//! each piece contributes density p_j·(1/w)·f̃/c_j = f̃/K: the accepted X has density f̃/∫f̃ exactly, whatever the
//! table's rounding. The height is drawn in two steps: 11 bits first, and when that bucket lies wholly under
//! a lower bound of f̃ at X, linear across the strip and precomputed (f̃ lies above the exponential of its
//! log's chord, which lies above its tangent at the strip's middle), X is accepted without evaluating f (more
//! than 96 % of draws); otherwise the rest of Y is drawn and compared with f̃(X). The number of tries is
//! geometric; nothing is capped.
//!
//! **Both ends keep their relative accuracy.** The densities vanish at 0 and at `end` like powers, so a point's
//! distance to the nearer end must be known to a few ulps of *itself*, not of `end`. Every draw therefore
//! carries x and rest = end − x, each computed from its own side: `end` is exact (2, or 1 for an angle in half
//! turns), T is moved so that end − T is a double, a strip's point is left + w·t and its rest
//! (end − right) + w·(1 − t), the first and last strips read their offset at full precision from their outer
//! end, and a tail draws its distance from its strip end by [`TruncatedExp`] (relative at both ends) after an
//! exponential coin for "the proposal lands inside [0, end]". The tails' acceptance test is in logarithms
//! against a full-precision ln U. [`LogConcaveTable::acceptance_error`] bounds the computed test against the
//! exact one at every proposal (§3f, Lemma R).

use crate::sample::alias::AliasTable;
use crate::sample::uniform::{TruncatedExp, exp1, ln_unit, unit};
use rand::Rng;
use rand::RngExt;

/// Number of equal strips; with the two tails, the alias table's 256 outcomes.
pub(crate) const STRIPS: usize = 254;
/// The strips cover where g ≥ −DROP; beyond, the tails hold a mass below e^{−DROP} of the peak's.
/// δ_LC: a bound on the probability, per release, that a strip-table draw lies within 2^-1022 of an end of
/// the support, where x or end − x has no relative bound: below 10^-300 (`docs/proofs/float_safety.md` §3f,
/// the strip sampler; §6).
pub const END_EVENT_PROBABILITY: f64 = 1e-300;

const DROP: f64 = 16.0;
/// Relative slack on every bound computed in floating point: the envelope and the squeeze hold for the exact
/// density as long as the computed log-density is within SLACK of it at the strips' ends and the mode, which
/// [`LogConcaveTable::new`] checks ([`LogConcaveTable::acceptance_error`] of the strips below SLACK/4).
const SLACK: f64 = 1e-9;
/// The first step of the height: 11 bits, 2048 buckets.
const BUCKETS: f64 = 2048.0;
/// Pieces are never given less than this share of the envelope, so that each has an alias probability far
/// above the resolution of its coin.
const MIN_SHARE: f64 = 1.0 / (1u64 << 40) as f64;
/// The unit roundoff 2^-53.
const U: f64 = f64::EPSILON / 2.0;

/// A density on [0, end] given by its logarithm up to a constant, concave wherever finite.
pub(crate) trait LogConcave {
    /// ln f(x) + const (−∞ where f vanishes), given x and rest = end − x, each accurate to a few ulps of its own
    /// size (so that a factor vanishing at either end keeps its relative accuracy).
    fn ln_density(&self, x: f64, rest: f64) -> f64;

    /// A bound on |computed ln_density(x̂, r̂) − exact ln f(x, rest) − const| when x̂ and r̂ are within relative
    /// `rel_x` and `rel_rest` of x and rest (the evaluation's own roundings included; `docs/proofs/
    /// float_safety.md` §3f). Used at the ends of each strip and at the extremes of each tail, where it is
    /// largest (it grows with |ln x|, |ln rest| and x).
    fn ln_density_error(&self, x: f64, rest: f64, rel_x: f64, rel_rest: f64) -> f64;
}

/// One exponential tail of the envelope: the envelope at distance t from `from` is e^{ln_scale − rate·t}.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Tail {
    /// Where the tail meets the strips: L (left) or T (right).
    from: f64,
    /// The envelope's rate λ = |slope| > 0 (the chord's slope, shrunk by the slack).
    rate: f64,
    /// ln(K·p·λ): the envelope's value at `from`.
    ln_scale: f64,
    /// The tail's interval's length: L (left) or end − T (right), both exact.
    span: f64,
    /// λ·span: the proposal Exp(λ) lands on the interval iff E ≤ λ·span.
    rate_span: f64,
    /// end − L on the left (the rest at `from`), unused on the right.
    rest_at_from: f64,
    /// The proposal on the interval: the distance from `from`, Exp(λ) truncated to the span.
    law: TruncatedExp,
}

/// An accepted draw: X, its distance to the end, and where it came from (strip j with X = left(j) + offset,
/// or a tail: `strip` ≥ [`STRIPS`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Draw {
    pub strip: usize,
    pub offset: f64,
    pub x: f64,
    /// end − x, accurate to a few ulps of itself.
    pub rest: f64,
}

/// Strip j of the envelope, [left, left + width).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Strip {
    left: f64,
    /// end − (left + width), accurate to a few ulps of itself.
    rest_right: f64,
    /// c_j/BUCKETS.
    ceiling: f64,
    /// A lower bound of f̃ at the point a fraction t into the strip, a + b·t, in units of c_j/BUCKETS: bucket k
    /// with k + 1 ≤ a + b·t lies wholly under f̃ there.
    squeeze: (f64, f64),
}

/// The table for one density (built once per sampler).
#[derive(Debug, Clone)]
pub(crate) struct LogConcaveTable {
    pick: AliasTable,
    width: f64,
    strips: Box<[Strip; STRIPS]>,
    /// Boxed: the two tails' constants would double the size of every mechanism that holds a table.
    tails: Box<[Option<Tail>; 2]>,
    ln_max: f64,
    end: f64,
    acceptance_error: f64,
}

impl LogConcaveTable {
    /// The table for `shape` on [0, `end`] with its mode (any point where ln f is largest, up to rounding) at
    /// `mode`. `end` must be a power of two (2 and 1 are used), so that end − x is exact for x ≥ end/2. `None`
    /// when the density is degenerate there (ln f not finite at the mode, strips of zero width, or a computed
    /// log-density too far from the exact one for the envelope's slack); callers then use another exact sampler.
    pub(crate) fn new<S: LogConcave>(shape: &S, mode: f64, end: f64) -> Option<Self> {
        debug_assert!(end > 0.0 && end.log2().fract() == 0.0, "end must be a power of two");
        let g_at = |x: f64, rest: f64| shape.ln_density(x, rest);
        let ln_max = g_at(mode, end - mode);
        if !(ln_max.is_finite() && (0.0..=end).contains(&mode)) {
            return None;
        }
        let g = |x: f64| g_at(x, end - x) - ln_max;
        let low = if g(0.0) >= -DROP { 0.0 } else { crossing(&g, mode, 0.0) };
        let high = if g(end) >= -DROP { end } else { crossing(&g, mode, end) };
        // T moved so that end − T is a double: end − fl(end − T) is exact by Sterbenz's lemma.
        let high = end - (end - high);
        let span_right = end - high;
        let width = (high - low) / STRIPS as f64;
        if !(width > 0.0 && width.is_normal()) {
            return None;
        }
        let left = |j: usize| low + j as f64 * width;
        // end − (left + width) = (end − T) + (STRIPS − 1 − j)·width, a sum of positive terms.
        let rest_right = |j: usize| span_right + (STRIPS - 1 - j) as f64 * width;
        let gr = |j: usize| g_at(left(j) + width, rest_right(j)) - ln_max;
        let gl = |j: usize| g_at(left(j), rest_right(j) + width) - ln_max;
        // Envelope masses: strips w·sup, tails e^{top}/|slope| over the half-line.
        let mut mass = [0.0; 256];
        let mut lower = [(0.0, 0.0); STRIPS];
        for j in 0..STRIPS {
            let (l, r) = (left(j), left(j) + width);
            let (gl, gr) = (gl(j), gr(j));
            let top = gl.max(gr).max(g(mode.clamp(l, r)));
            mass[j] = width * top.exp() * (1.0 + SLACK);
            // g lies above its chord g_l + Δt (concavity), and e^{g_l + Δt} above its tangent at t = 1/2:
            // f̃ ≥ e^{(g_l + g_r)/2}(1 + Δ(t − 1/2)) on the strip.
            let delta = gr - gl;
            if delta.is_finite() {
                let mid = (0.5 * (gl + gr)).exp() * (1.0 - SLACK);
                lower[j] = (mid * (1.0 - 0.5 * delta), mid * delta);
            }
        }
        // The tails' chords run to the mode, where g = 0; their slopes are shrunk (made flatter) by the slack.
        let chord = |from: f64| {
            let top = g(from) + SLACK;
            let slope = (0.0 - g(from)) / (mode - from) * (1.0 - SLACK);
            (top, slope)
        };
        let chords = [(low > 0.0).then(|| chord(low)), (high < end).then(|| chord(high))];
        for (i, c) in chords.iter().enumerate() {
            if let &Some((top, slope)) = c {
                if !(slope.is_finite() && slope != 0.0) {
                    return None;
                }
                mass[STRIPS + i] = top.exp() / slope.abs();
            }
        }
        let total: f64 = mass.iter().sum();
        let weights = mass.map(|m| if m > 0.0 { m.max(MIN_SHARE * total) } else { 0.0 });
        let pick = AliasTable::new(&weights)?;
        let p = pick.probabilities();
        // K = max mass/p: then c_j = K·p_j/w ≥ sup on strip j, and K·p·|slope| ≥ e^{top} on a tail.
        let k = (0..256).filter(|&j| mass[j] > 0.0).map(|j| mass[j] / p[j]).fold(0.0, f64::max) * (1.0 + SLACK);
        if !(k.is_finite() && k > 0.0) {
            return None;
        }
        let strips = Box::new(std::array::from_fn(|j| {
            let c = k * p[j] / width;
            let (a, b) = lower[j];
            let squeeze = if c > 0.0 { (a / c * BUCKETS, b / c * BUCKETS) } else { (0.0, 0.0) };
            Strip { left: left(j), rest_right: rest_right(j), ceiling: c / BUCKETS, squeeze }
        }));
        let mut tails = Box::new([None, None]);
        for (i, c) in chords.iter().enumerate() {
            if let &Some((_, slope)) = c {
                let (from, span) = if i == 0 { (low, low) } else { (high, span_right) };
                let rate = slope.abs();
                tails[i] = Some(Tail {
                    from,
                    rate,
                    ln_scale: (k * p[STRIPS + i] * rate).ln(),
                    span,
                    rate_span: rate * span,
                    rest_at_from: end - low,
                    law: TruncatedExp::new(rate, span).ok()?,
                });
            }
        }
        let mut table = LogConcaveTable { pick, width, strips, tails, ln_max, end, acceptance_error: 0.0 };
        let strip_error = table.strip_acceptance_error(shape);
        if strip_error.is_nan() || strip_error >= 0.25 * SLACK {
            return None;
        }
        let tail_error = (0..2).map(|i| table.tail_acceptance_error(shape, i)).fold(0.0, f64::max);
        table.acceptance_error = strip_error.max(tail_error);
        Some(table)
    }

    /// The left end of strip `j` < [`STRIPS`] (strip j is [left(j), left(j) + width)).
    pub(crate) fn left(&self, j: usize) -> f64 {
        self.strips[j].left
    }

    /// A bound on |ln(â/a)|, the computed acceptance probability against the exact one at every proposal of
    /// every piece (`docs/proofs/float_safety.md` §3f, Lemma R, "The strip sampler's arithmetic"), for
    /// `Rounding::with_acceptance_error`.
    pub(crate) fn acceptance_error(&self) -> f64 {
        self.acceptance_error
    }

    /// The strips' part of [`Self::acceptance_error`]: at each strip's ends (where the log-density's error bound
    /// is largest), the error of ĝ = ln_density(x̂, r̂) − ln_max for x̂, r̂ within 6u of their own size, its
    /// exponential and the height's product (3u), and the resolution 2^-64 of the height's 11 + 53 bits against
    /// the smallest acceptance probability on the strip, e^{min g}/c_j.
    fn strip_acceptance_error<S: LogConcave>(&self, shape: &S) -> f64 {
        let rel = 6.0 * U;
        let mut worst: f64 = 0.0;
        for s in self.strips.iter() {
            let ends = [(s.left, s.rest_right + self.width), (s.left + self.width, s.rest_right)];
            let gs = ends.map(|(x, rest)| shape.ln_density(x, rest) - self.ln_max);
            let a_min = (gs[0].min(gs[1])).exp() / (s.ceiling * BUCKETS);
            for (&(x, rest), &g) in ends.iter().zip(&gs) {
                let e = shape.ln_density_error(x, rest, rel, rel) + U * (g.abs() + self.ln_max.abs());
                worst = worst.max(e + 3.0 * U + 2f64.powi(-64) / a_min);
            }
        }
        1.01 * worst
    }

    /// A tail's part of [`Self::acceptance_error`]: the log-density's error at the tail's extremes (its strip end,
    /// and the support's end taken at the smallest normal double: below it lies an event of probability under
    /// 2^-1000, §3f), with x and rest within TruncatedExp's relative bounds; the envelope's exponent λt (t within
    /// 76u of itself); the sums; the comparison with a full-precision ln U, (5 + 4|ℓ|)u; and the coin's 16u.
    fn tail_acceptance_error<S: LogConcave>(&self, shape: &S, side: usize) -> f64 {
        let Some(tail) = self.tails[side] else { return 0.0 };
        let end = self.end;
        let tiny = f64::MIN_POSITIVE;
        // TruncatedExp's complement b − t is within (60 + 4|ln(λ(b − t))|)u of itself, t within 76u (§3f, Lemma T).
        let comp = |v: f64| (60.0 + 4.0 * ((tail.rate * v).ln().abs() + 1.0)) * U;
        let near = 76.0 * U;
        let points = if side == 0 {
            // x = L − t (the complement), rest = (end − L) + t.
            [(tiny, end - tiny, comp(tiny), near), (tail.from, tail.rest_at_from, near, near)]
        } else {
            // x = T + t, rest = the complement.
            [(end - tiny, tiny, near, comp(tiny)), (tail.from, tail.span, near, near)]
        };
        let mut worst: f64 = 0.0;
        for (x, rest, rel_x, rel_rest) in points {
            let g = shape.ln_density(x, rest) - self.ln_max;
            let lambda_t = tail.rate_span;
            let ell = g.abs() + tail.ln_scale.abs() + lambda_t;
            let e = shape.ln_density_error(x, rest, rel_x, rel_rest)
                + 76.0 * U * lambda_t
                + 3.0 * U * (ell + self.ln_max.abs())
                + (5.0 + 4.0 * ell) * U
                + 16.0 * U;
            worst = worst.max(e);
        }
        1.01 * worst
    }

    /// One exact draw of X ~ f (the `shape` the table was built for). Always inlined: the caller uses the draw's
    /// parts at once, and a call would pass them through memory.
    #[inline(always)]
    pub(crate) fn sample<S: LogConcave, R: Rng + ?Sized>(&self, shape: &S, rng: &mut R) -> Draw {
        loop {
            let j = self.pick.sample(rng);
            let bits = rng.next_u64();
            let bucket = (bits & 0x7ff) as u16;
            if let Some(strip) = self.strips.get(j) {
                // (t, 1 − t): from the word's 53 bits, or at full precision from the outer end of the first and
                // last strips, whose points may lie far closer to 0 or to `end` than their width.
                let (t, t_rest) = if j == 0 {
                    let v = unit(rng);
                    (v, 1.0 - v)
                } else if j == STRIPS - 1 {
                    let v = unit(rng);
                    (1.0 - v, v)
                } else {
                    let t = (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                    (t, 1.0 - t)
                };
                let offset = self.width * t;
                let x = strip.left + offset;
                if f64::from(bucket + 1) <= strip.squeeze.0 + strip.squeeze.1 * t {
                    return Draw { strip: j, offset, x, rest: strip.rest_right + self.width * t_rest };
                }
                let rest = strip.rest_right + self.width * t_rest;
                let y = (f64::from(bucket) + rng.random::<f64>()) * strip.ceiling;
                if y < (shape.ln_density(x, rest) - self.ln_max).exp() {
                    return Draw { strip: j, offset, x, rest };
                }
            } else if let Some((x, rest)) = self.tail(j - STRIPS, shape, rng) {
                return Draw { strip: j, offset: 0.0, x, rest };
            }
        }
    }

    /// One proposal from a tail (rare: the tails hold a share of about e^{−DROP} of the envelope), accepted or
    /// not. The proposal is Exp(λ) away from the strips; it lands inside [0, end] iff E ≤ λ·span (an exponential
    /// coin, `exp1`), and given that its distance t from the strips is Exp(λ) truncated to the span, drawn by
    /// [`TruncatedExp`] with its complement, so x and rest are both accurate near the support's end. Accepted
    /// iff ln U < g(x) − (ln_scale − λt) with U at full precision.
    #[cold]
    #[inline(never)]
    fn tail<S: LogConcave, R: Rng + ?Sized>(&self, side: usize, shape: &S, rng: &mut R) -> Option<(f64, f64)> {
        let tail = self.tails[side].as_ref()?;
        if exp1(rng) > tail.rate_span {
            return None;
        }
        let (t, complement) = tail.law.sample_with_complement(rng);
        let (x, rest) = if side == 0 { (complement, tail.rest_at_from + t) } else { (tail.from + t, complement) };
        let ell = shape.ln_density(x, rest) - self.ln_max - tail.ln_scale + tail.rate * t;
        (ln_unit(rng) < ell).then_some((x, rest))
    }
}

/// A point between `inside` (where g > −DROP) and `outside` where g crosses −DROP, by bisection (g is monotone
/// between a mode and an end). Any point in between would do: it only sets how the envelope is split.
fn crossing(g: &impl Fn(f64) -> f64, mut inside: f64, mut outside: f64) -> f64 {
    for _ in 0..200 {
        let mid = 0.5 * (inside + outside);
        if mid == inside || mid == outside {
            break;
        }
        if g(mid) > -DROP { inside = mid } else { outside = mid }
    }
    outside
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::rng::seeded_rng_for_experiments;

    /// ln of sin^k(πs) e^{−κπs} on [0, 1] (the angle θ = πs in half turns).
    struct Angle(f64, f64);
    impl LogConcave for Angle {
        fn ln_density(&self, x: f64, rest: f64) -> f64 {
            self.0 * (PI * x.min(rest)).sin().ln() - self.1 * PI * x
        }
        fn ln_density_error(&self, x: f64, rest: f64, rel_x: f64, rel_rest: f64) -> f64 {
            let rel = if x <= rest { rel_x } else { rel_rest };
            let u = f64::EPSILON / 2.0;
            self.0 * (rel + 4.0 * u)
                + 3.0 * u * self.0 * (PI * x.min(rest)).sin().ln().abs()
                + self.1 * PI * x * (rel_x + 3.0 * u)
        }
    }
    const PI: f64 = std::f64::consts::PI;
    /// The mode of Angle(k, κ) in half turns.
    fn angle_mode(k: f64, kappa: f64) -> f64 {
        f64::atan2(k, kappa) / PI
    }

    /// The envelope dominates f̃ at dense points of every piece, and the pieces' scaled masses agree.
    #[test]
    fn envelope_dominates_the_density_on_every_piece() {
        for (k, kappa) in [(1.0, 1e-6), (1.0, 1.0), (1.0, 100.0), (8.0, 1.0), (98.0, 1e4), (9998.0, 1e-3), (1.0, 1e6)] {
            let shape = Angle(k, kappa);
            let mode = angle_mode(k, kappa);
            let t = LogConcaveTable::new(&shape, mode, 1.0).unwrap();
            assert!(t.acceptance_error() < 1e-7, "k {k}, kappa {kappa}: {}", t.acceptance_error());
            let f = |x: f64| (shape.ln_density(x, 1.0 - x) - t.ln_max).exp();
            for j in 0..STRIPS {
                let c = t.strips[j].ceiling * BUCKETS;
                let (a, b) = t.strips[j].squeeze;
                for i in 0..=64 {
                    let x = t.left(j) + t.width * i as f64 / 64.0;
                    let floor = (a + b * i as f64 / 64.0) / BUCKETS * c;
                    assert!(f(x) <= c, "k {k}, kappa {kappa}, strip {j}: f {} > c {c}", f(x));
                    assert!(f(x) >= floor, "k {k}, kappa {kappa}, strip {j}: f {} < squeeze {floor}", f(x));
                }
            }
            for (side, tail) in t.tails.iter().enumerate() {
                let Some(tail) = tail else { continue };
                for i in 1..=200 {
                    let d = i as f64 * 0.05 / tail.rate;
                    let x = if side == 0 { tail.from - d } else { tail.from + d };
                    if (0.0..=1.0).contains(&x) {
                        let envelope = (tail.ln_scale - tail.rate * d).exp();
                        assert!(f(x) <= envelope, "k {k}, kappa {kappa}, tail at {x}: {} > {envelope}", f(x));
                    }
                }
            }
        }
    }

    /// ln of the normal e^{−(x − c)²/2} on [0, 8], centred at c.
    struct Normal(f64);
    impl LogConcave for Normal {
        fn ln_density(&self, x: f64, _rest: f64) -> f64 {
            -0.5 * (x - self.0) * (x - self.0)
        }
        fn ln_density_error(&self, x: f64, _rest: f64, rel_x: f64, _rel_rest: f64) -> f64 {
            (x - self.0).abs() * x * (rel_x + 4.0 * f64::EPSILON)
        }
    }

    /// Draws from one tail only (in normal use a tail is picked with probability about e^{−16}), KS-tested
    /// against the normal law conditioned on the tail's interval, at α = 1e-8. `broken`: the proposals
    /// without their acceptance test (the negative control).
    fn tail_test(centre: f64, side: usize, broken: bool, seed: u64) -> crate::audit::gof::KsOutcome {
        let shape = Normal(centre);
        let t = LogConcaveTable::new(&shape, centre, 8.0).unwrap();
        let tail = t.tails[side].expect("a tail on this side");
        let (lo, hi) = if side == 0 { (0.0, tail.from) } else { (tail.from, 8.0) };
        let mut rng = seeded_rng_for_experiments(seed);
        let mut xs = Vec::new();
        while xs.len() < 20_000 {
            let x = if broken {
                let d = crate::sample::uniform::exp1(&mut rng) / tail.rate;
                Some(if side == 0 { tail.from - d } else { tail.from + d }).filter(|x| (lo..=hi).contains(x))
            } else {
                t.tail(side, &shape, &mut rng).map(|(x, rest)| {
                    assert!((x + rest - 8.0).abs() <= 8.0 * f64::EPSILON, "{x} + {rest}");
                    x
                })
            };
            if let Some(x) = x {
                assert!((lo..=hi).contains(&x));
                xs.push(x);
            }
        }
        // Upper normal tail probabilities Q(x) = P[Z > x − c]; the conditional CDF on [lo, hi].
        let q = |x: f64| 0.5 * statrs::function::erf::erfc((x - centre) / std::f64::consts::SQRT_2);
        crate::audit::gof::ks_test(
            &mut xs,
            |sorted| sorted.iter().map(|&x| (q(lo) - q(x)) / (q(lo) - q(hi))).collect(),
            1e-8,
        )
    }

    #[test]
    fn tails_draw_the_conditional_law_and_unaccepted_proposals_are_caught() {
        // Right tail of a mode at 0 (L = 0, T ≈ 5.7), left tail of a mode at 8.
        let out = tail_test(0.0, 1, false, 11);
        assert!(out.passed(), "right tail: KS {} > {}", out.statistic, out.critical);
        let out = tail_test(8.0, 0, false, 12);
        assert!(out.passed(), "left tail: KS {} > {}", out.statistic, out.critical);
        // Negative control: the envelope's own law (the acceptance test dropped).
        let out = tail_test(0.0, 1, true, 13);
        assert!(!out.passed(), "unaccepted proposals passed: KS {} <= {}", out.statistic, out.critical);
    }

    /// ln of (x(2 − x))^a on [0, 2] (VMF's t on S³ at κ → 0): strips reach within 1e-14 of both ends.
    struct Symmetric(f64);
    impl LogConcave for Symmetric {
        fn ln_density(&self, x: f64, rest: f64) -> f64 {
            self.0 * (x * rest).ln()
        }
        fn ln_density_error(&self, x: f64, rest: f64, rel_x: f64, rel_rest: f64) -> f64 {
            let u = f64::EPSILON / 2.0;
            self.0 * (rel_x + rel_rest + u) + 3.0 * u * self.0 * (x * rest).ln().abs()
        }
    }

    /// A point of the last strip keeps its distance to the end within 6u of itself however close it lies (the
    /// offset is read at full precision from the end), checked against a double-double reference of the exact
    /// strip's point at offsets from 2^-1 down to 2^-1000 of the strip's width. Control: end − x, the distance as it was computed before
    /// Is off by far more (several per cent at the strips' end, 1e-14 from the support's end).
    #[test]
    fn the_last_strip_keeps_the_distance_to_the_end_relative() {
        use crate::sample::double_double::Dd;
        let u = f64::EPSILON / 2.0;
        let t = LogConcaveTable::new(&Symmetric(0.5), 1.0, 2.0).unwrap();
        let last = t.strips[STRIPS - 1];
        let end_gap = 2.0 - (last.left + t.width);
        assert!(end_gap > 0.0 && end_gap < 1e-12, "the strips reach {end_gap:e} from the end");
        let (mut worst, mut worst_naive) = (0.0f64, 0.0f64);
        for e in (1..=1000).step_by(7) {
            let v = 2f64.powi(-e) * 1.377;
            let rest = last.rest_right + t.width * v;
            let x = last.left + t.width * (1.0 - v);
            // The exact point of the same uniform in the exact strips of width w = (T − L)/254 (T = 2 − rest_right,
            // exactly): its rest is (2 − T) + v·w, in double-double.
            let w = Dd::new(2.0).sub(Dd::new(last.rest_right)).sub(Dd::new(t.left(0))).div(Dd::new(STRIPS as f64));
            let exact = Dd::new(last.rest_right).add(w.mul(Dd::new(v)));
            worst = worst.max((exact.minus_from(rest) / (exact.hi * u)).abs());
            worst_naive = worst_naive.max((exact.minus_from(2.0 - x) / (exact.hi * u)).abs());
        }
        assert!(worst <= 6.0, "rest within {worst:.2}u");
        assert!(worst_naive > 1e6, "the control must fail: {worst_naive:e}u");
    }

    /// Most draws are accepted without evaluating f, and the envelope's acceptance is high.
    #[test]
    fn most_draws_take_the_squeeze() {
        let shape = Angle(1.0, 1.0);
        let t = LogConcaveTable::new(&shape, angle_mode(1.0, 1.0), 1.0).unwrap();
        let share = |t: &LogConcaveTable, p: &[f64; 256]| -> f64 {
            // The share of draws the squeeze accepts: for each strip, the buckets under a + b·t averaged over t.
            (0..STRIPS)
                .map(|j| {
                    let (a, b) = t.strips[j].squeeze;
                    let mean: f64 =
                        (0..64).map(|i| (a + b * (i as f64 + 0.5) / 64.0).floor().clamp(0.0, BUCKETS)).sum();
                    p[j] * mean / 64.0 / BUCKETS
                })
                .sum()
        };
        let sure = share(&t, &t.pick.probabilities());
        assert!(sure > 0.98, "squeeze share {sure}");
        for (k, kappa) in [(1.0, 100.0), (1.0, 1e-3), (8.0, 1.0), (8.0, 100.0), (98.0, 1e4), (9998.0, 1e-3)] {
            let shape = Angle(k, kappa);
            let t = LogConcaveTable::new(&shape, angle_mode(k, kappa), 1.0).unwrap();
            let sure = share(&t, &t.pick.probabilities());
            assert!(sure > 0.96, "k {k}, kappa {kappa}: squeeze share {sure}");
        }
        let mut rng = seeded_rng_for_experiments(1);
        for _ in 0..10_000 {
            let d = t.sample(&shape, &mut rng);
            assert!((0.0..=1.0).contains(&d.x) && (d.x + d.rest - 1.0).abs() <= f64::EPSILON);
        }
    }
}
