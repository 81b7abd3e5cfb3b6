//! Exact rejection sampler of a log-concave density f on a bounded interval [0, end], by a table of equal
//! strips: the radial laws of the sphere samplers (Purkayastha's angle, VMF's t = 1 − cos θ for n ≥ 4).
//! Proof: `docs/proofs/purkayastha_sphere.md`, "The strip sampler".
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
//! than 96 % of draws); otherwise the rest of Y is drawn and compared with f̃(X). The number of tries is geometric; nothing is capped.

use crate::sample::alias::AliasTable;
use rand::Rng;
use rand::RngExt;

/// Number of equal strips; with the two tails, the alias table's 256 outcomes.
pub(crate) const STRIPS: usize = 254;
/// The strips cover where g ≥ −DROP; beyond, the tails hold a mass below e^{−DROP} of the peak's.
const DROP: f64 = 16.0;
/// Relative slack on every bound computed in floating point (evaluations of g are accurate to ~1e-14).
const SLACK: f64 = 1e-9;
/// The first step of the height: 11 bits, 2048 buckets.
const BUCKETS: f64 = 2048.0;
/// Pieces are never given less than this share of the envelope, so that each has an alias probability far
/// above the resolution of its coin.
const MIN_SHARE: f64 = 1.0 / (1u64 << 40) as f64;

/// A density on [0, end] given by its logarithm up to a constant, concave wherever finite.
pub(crate) trait LogConcave {
    /// ln f(x) + const (−∞ where f vanishes).
    fn ln_density(&self, x: f64) -> f64;
}

/// One exponential tail of the envelope: e^{ln_top + slope·(x − from)} beyond `from`, scaled.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Tail {
    from: f64,
    /// > 0 for the left tail (x ≤ from), < 0 for the right one.
    slope: f64,
    /// K·p·|slope|/BUCKETS: the envelope at x is BUCKETS·ceiling·e^{slope·(x − from)}.
    ceiling: f64,
}

/// An accepted draw: X, and where it came from (strip j with X = left(j) + offset, or a tail: `strip` ≥
/// [`STRIPS`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Draw {
    pub strip: usize,
    pub offset: f64,
    pub x: f64,
}

/// Strip j of the envelope, [left, left + width).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Strip {
    left: f64,
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
    tails: [Tail; 2],
    ln_max: f64,
    end: f64,
}

impl LogConcaveTable {
    /// The table for `shape` on [0, `end`] with its mode (any point where ln f is largest, up to rounding) at
    /// `mode`. `None` when the density is degenerate there (ln f not finite at the mode, or strips of zero
    /// width); callers then use another exact sampler.
    pub(crate) fn new<S: LogConcave>(shape: &S, mode: f64, end: f64) -> Option<Self> {
        let ln_max = shape.ln_density(mode);
        if !(ln_max.is_finite() && (0.0..=end).contains(&mode)) {
            return None;
        }
        let g = |x: f64| shape.ln_density(x) - ln_max;
        let low = if g(0.0) >= -DROP { 0.0 } else { crossing(&g, mode, 0.0) };
        let high = if g(end) >= -DROP { end } else { crossing(&g, mode, end) };
        let width = (high - low) / STRIPS as f64;
        if !(width > 0.0 && width.is_normal()) {
            return None;
        }
        // Envelope masses: strips w·sup, tails e^{top}/|slope| over the half-line.
        let mut mass = [0.0; 256];
        let mut lower = [(0.0, 0.0); STRIPS];
        for j in 0..STRIPS {
            let (l, r) = (low + j as f64 * width, low + (j + 1) as f64 * width);
            let (gl, gr) = (g(l), g(r));
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
        let tail = |from: f64| {
            let top = g(from) + SLACK;
            let slope = (0.0 - g(from)) / (mode - from) * (1.0 - SLACK);
            (top, slope)
        };
        let tails = [(low > 0.0).then(|| tail(low)), (high < end).then(|| tail(high))];
        for (i, t) in tails.iter().enumerate() {
            if let &Some((top, slope)) = t {
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
            Strip { left: low + j as f64 * width, ceiling: c / BUCKETS, squeeze }
        }));
        let tails = std::array::from_fn(|i| match tails[i] {
            Some((_, slope)) => Tail {
                from: if i == 0 { low } else { high },
                slope,
                ceiling: k * p[STRIPS + i] * slope.abs() / BUCKETS,
            },
            None => Tail { from: 0.0, slope: 1.0, ceiling: 0.0 },
        });
        Some(LogConcaveTable { pick, width, strips, tails, ln_max, end })
    }

    /// The left end of strip `j` < [`STRIPS`] (strip j is [left(j), left(j) + width)).
    pub(crate) fn left(&self, j: usize) -> f64 {
        self.strips[j].left
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
                let t = (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                let offset = self.width * t;
                let x = strip.left + offset;
                if f64::from(bucket + 1) <= strip.squeeze.0 + strip.squeeze.1 * t {
                    return Draw { strip: j, offset, x };
                }
                let y = (f64::from(bucket) + rng.random::<f64>()) * strip.ceiling;
                if y < (shape.ln_density(x) - self.ln_max).exp() {
                    return Draw { strip: j, offset, x };
                }
            } else if let Some(x) = self.tail(&self.tails[j - STRIPS], bucket, shape, rng) {
                return Draw { strip: j, offset: 0.0, x };
            }
        }
    }

    /// One proposal from a tail (rare: the tails hold a share of about e^{−DROP} of the envelope), accepted or
    /// not. X = from − E/slope with E ~ Exp(1), where the envelope is BUCKETS·ceiling·e^{−E}.
    #[cold]
    #[inline(never)]
    fn tail<S: LogConcave, R: Rng + ?Sized>(&self, tail: &Tail, bucket: u16, shape: &S, rng: &mut R) -> Option<f64> {
        // E at full precision (§3f): every point of the tail stays reachable, with relative accuracy.
        let e = crate::sample::uniform::exp1(rng);
        let x = tail.from - e / tail.slope;
        if !(0.0..=self.end).contains(&x) {
            return None;
        }
        let y = (f64::from(bucket) + rng.random::<f64>()) * tail.ceiling * (-e).exp();
        (y < (shape.ln_density(x) - self.ln_max).exp()).then_some(x)
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

    /// ln of sin^k θ e^{−κθ} on [0, π].
    struct Angle(f64, f64);
    impl LogConcave for Angle {
        fn ln_density(&self, x: f64) -> f64 {
            self.0 * x.sin().ln() - self.1 * x
        }
    }

    /// The envelope dominates f̃ at dense points of every piece, and the pieces' scaled masses agree.
    #[test]
    fn envelope_dominates_the_density_on_every_piece() {
        for (k, kappa) in [(1.0, 1e-6), (1.0, 1.0), (1.0, 100.0), (8.0, 1.0), (98.0, 1e4), (9998.0, 1e-3), (1.0, 1e6)] {
            let shape = Angle(k, kappa);
            let mode = f64::atan2(k, kappa);
            let t = LogConcaveTable::new(&shape, mode, std::f64::consts::PI).unwrap();
            let f = |x: f64| (shape.ln_density(x) - t.ln_max).exp();
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
            for tail in &t.tails {
                if tail.ceiling == 0.0 {
                    continue;
                }
                for i in 1..=200 {
                    let x = tail.from - (i as f64 * 0.05) / tail.slope;
                    if (0.0..=std::f64::consts::PI).contains(&x) {
                        let envelope = tail.ceiling * BUCKETS * (tail.slope * (x - tail.from)).exp();
                        assert!(f(x) <= envelope, "k {k}, kappa {kappa}, tail at {x}: {} > {envelope}", f(x));
                    }
                }
            }
        }
    }

    /// ln of the half-normal e^{−(x − c)²/2} on [0, 10], centred at c.
    struct Normal(f64);
    impl LogConcave for Normal {
        fn ln_density(&self, x: f64) -> f64 {
            -0.5 * (x - self.0) * (x - self.0)
        }
    }

    /// Draws from one tail only (in normal use a tail is picked with probability about e^{−16}), KS-tested
    /// against the normal law conditioned on the tail's interval, at α = 1e-8. `broken`: the proposals
    /// without their acceptance test (the negative control).
    fn tail_test(centre: f64, side: usize, broken: bool, seed: u64) -> crate::audit::gof::KsOutcome {
        let shape = Normal(centre);
        let t = LogConcaveTable::new(&shape, centre, 10.0).unwrap();
        let tail = t.tails[side];
        assert!(tail.ceiling > 0.0, "no tail on side {side}");
        let (lo, hi) = if side == 0 { (0.0, tail.from) } else { (tail.from, 10.0) };
        let mut rng = seeded_rng_for_experiments(seed);
        let mut xs = Vec::new();
        while xs.len() < 20_000 {
            let x = if broken {
                let e: f64 = rand_distr::Distribution::sample(&rand_distr::Exp1, &mut rng);
                Some(tail.from - e / tail.slope).filter(|x| (lo..=hi).contains(x))
            } else {
                let bucket = (rng.next_u64() & 0x7ff) as u16;
                t.tail(&tail, bucket, &shape, &mut rng)
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
        // Right tail of a mode at 0 (L = 0, T ≈ 5.7), left tail of a mode at 10.
        let out = tail_test(0.0, 1, false, 11);
        assert!(out.passed(), "right tail: KS {} > {}", out.statistic, out.critical);
        let out = tail_test(10.0, 0, false, 12);
        assert!(out.passed(), "left tail: KS {} > {}", out.statistic, out.critical);
        // Negative control: the envelope's own law (the acceptance test dropped).
        let out = tail_test(0.0, 1, true, 13);
        assert!(!out.passed(), "unaccepted proposals passed: KS {} <= {}", out.statistic, out.critical);
    }

    /// Most draws are accepted without evaluating f, and the envelope's acceptance is high.
    #[test]
    fn most_draws_take_the_squeeze() {
        let shape = Angle(1.0, 1.0);
        let t = LogConcaveTable::new(&shape, f64::atan2(1.0, 1.0), std::f64::consts::PI).unwrap();
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
            let t = LogConcaveTable::new(&shape, f64::atan2(k, kappa), std::f64::consts::PI).unwrap();
            let sure = share(&t, &t.pick.probabilities());
            assert!(sure > 0.96, "k {k}, kappa {kappa}: squeeze share {sure}");
        }
        let mut rng = seeded_rng_for_experiments(1);
        for _ in 0..10_000 {
            let d = t.sample(&shape, &mut rng);
            assert!((0.0..=std::f64::consts::PI).contains(&d.x));
        }
    }
}
