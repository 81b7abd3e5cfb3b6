//! The test events of the auditor, fixed from an independent pilot sample before any counting draw
//! (`docs/audit.md`, docs/math.md §5).
//!
//! For an input pair (x, x′) every draw z is reduced to its [`Features`]: the exact log-likelihood ratio
//! ℓ(z) = ln f(z | x) − ln f(z | x′) of the *claimed* mechanism, the distances d(z, x) and d(z, x′) in the
//! space's own geometry, and whether z is a finite point. Each test compares an input a with the other input
//! b (both orders are tested, "a → b") on one event S, checking P_a(S) ≤ e^{εd}·P_b(S). The event families,
//! for the direction a → b, are
//!
//! - `llr`: S = {ℓ_ab(z) ≥ t} with ℓ_ab = ln f(z | a) − ln f(z | b) and t the pilot quantile with
//!   P_a(S) ≈ q (the Neyman–Pearson-optimal events for the claimed laws);
//! - `ball`: S = {d(z, a) ≤ r}, P_a(S) ≈ q (small balls around a: catch densities that blow up at a);
//! - `far`: S = {d(z, b) ≥ r}, P_b(S) ≈ q for small q, and the pilot's largest d(z, b) (catch tails that
//!   are cut off: a release that can never be far from b but can be from a);
//! - `non-finite`: S = {z is not a finite point} (NaN or ∞ releases; empty for a correct sampler);
//! - `reproduced` (raw-bit mode only, `llr_resolution` 0): S = {z is, to the bit, what the space's raw
//!   pipeline gives when its last step is redone from a} (Mironov's reachability test, with power against
//!   unrounded releases; `docs/proofs/float_safety.md` §9);
//! - `low-bits` and `exponent` (raw-bit mode only): S = {the lowest mantissa bits of z's coordinates form
//!   the pattern v} and S = {z's first coordinate has binary exponent e}, v and e the values the pilot found
//!   most over-represented at a against b (the precision events of Haney et al. 2022: a release computed in
//!   f64 from x reaches a set of doubles that depends on x, visible in its last bits and its exponent).

use serde::Serialize;

/// A draw reduced to what the events look at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Features {
    /// ln f(z | x) − ln f(z | x′) under the claimed mechanism (NaN for a non-finite z).
    pub llr: f64,
    /// d(z, x) in the space's geometry.
    pub dist_x: f64,
    /// d(z, x′).
    pub dist_x_prime: f64,
    /// Whether z is a finite point.
    pub finite: bool,
    /// Whether z is reproduced from x's pipeline (raw-bit mode; false otherwise).
    pub reproduced: bool,
    /// Whether z is reproduced from x′'s pipeline.
    pub reproduced_prime: bool,
    /// The lowest mantissa bits of z's coordinates, packed ([`low_bits_pattern`]; 0 outside raw-bit mode).
    pub low_bits: u8,
    /// The biased binary exponent of z's first coordinate (0 outside raw-bit mode).
    pub exponent: u16,
}

/// The lowest mantissa bits of `coordinates`, packed into 8 bits: all 8 of a single coordinate, 4 of each
/// of two, 2 of each of three or four, 1 of each of the first eight. Sign and exponent are left out, so the
/// pattern sees only the bits below the release's resolution.
pub fn low_bits_pattern(coordinates: &[f64]) -> u8 {
    let m = coordinates.len().clamp(1, 8);
    let per = 8 / if m == 3 { 4 } else { m };
    let mask = (1u64 << per) - 1;
    coordinates.iter().take(m).fold(0u64, |acc, c| (acc << per) | (c.to_bits() & mask)) as u8
}

/// The biased binary exponent field of `x` (0 for zero and subnormals, 2047 for non-finite values).
pub fn exponent_field(x: f64) -> u16 {
    ((x.to_bits() >> 52) & 0x7ff) as u16
}

impl Features {
    /// The features of a release that is not a finite point.
    pub fn not_finite() -> Self {
        Features {
            llr: f64::NAN,
            dist_x: f64::NAN,
            dist_x_prime: f64::NAN,
            finite: false,
            reproduced: false,
            reproduced_prime: false,
            low_bits: 0,
            exponent: 0,
        }
    }

    /// The features seen from direction `forward` (a = x, b = x′) or backward (a = x′, b = x):
    /// (ℓ_ab, d(z, a), d(z, b)).
    fn directed(&self, forward: bool) -> (f64, f64, f64) {
        if forward { (self.llr, self.dist_x, self.dist_x_prime) } else { (-self.llr, self.dist_x_prime, self.dist_x) }
    }
}

/// What an event contains, seen from its direction a → b.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventKind {
    /// {ℓ_ab(z) ≥ threshold}.
    Llr {
        /// t.
        threshold: f64,
    },
    /// {d(z, a) ≤ radius}.
    Ball {
        /// r.
        radius: f64,
    },
    /// {d(z, b) ≥ radius}.
    Far {
        /// r.
        radius: f64,
    },
    /// {z not finite}.
    NonFinite,
    /// {z reproduced bit for bit from a's pipeline}.
    Reproduced,
    /// {the lowest mantissa bits of z form `pattern`} (empty when the pilot found no candidate).
    LowBits {
        /// v, as packed by [`low_bits_pattern`].
        pattern: Option<u8>,
    },
    /// {z's first coordinate has biased exponent `exponent`} (empty when the pilot found no candidate).
    Exponent {
        /// e, the biased exponent field.
        exponent: Option<u16>,
    },
}

/// One test event: a set of outputs and the direction a → b in which the claim P_a(S) ≤ e^{εd}P_b(S) is
/// tested.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    /// true: a = x, b = x′; false: a = x′, b = x.
    pub forward: bool,
    /// The set.
    pub kind: EventKind,
    /// The pilot probability the event was chosen for (P_a for `llr` and `ball`, P_b for `far`; 0 for
    /// `non-finite`).
    pub pilot_level: f64,
}

impl Event {
    /// Whether a draw with features `f` lies in the event.
    #[inline]
    pub fn contains(&self, f: &Features) -> bool {
        if !f.finite {
            return matches!(self.kind, EventKind::NonFinite);
        }
        let (llr, dist_a, dist_b) = f.directed(self.forward);
        match self.kind {
            EventKind::Llr { threshold } => llr >= threshold,
            EventKind::Ball { radius } => dist_a <= radius,
            EventKind::Far { radius } => dist_b >= radius,
            EventKind::NonFinite => false,
            EventKind::Reproduced => {
                if self.forward {
                    f.reproduced
                } else {
                    f.reproduced_prime
                }
            }
            EventKind::LowBits { pattern } => pattern == Some(f.low_bits),
            EventKind::Exponent { exponent } => exponent == Some(f.exponent),
        }
    }

    /// A label for reports, e.g. `llr(x:x') >= 1.234 [P_x ~ 0.01]`.
    pub fn label(&self) -> String {
        let (a, b) = if self.forward { ("x", "x'") } else { ("x'", "x") };
        match self.kind {
            EventKind::Llr { threshold } => {
                format!("ln f(z|{a}) - ln f(z|{b}) >= {threshold:.6} [pilot P_{a} = {}]", short(self.pilot_level))
            }
            EventKind::Ball { radius } => {
                format!("d(z, {a}) <= {radius:.6} [pilot P_{a} = {}]", short(self.pilot_level))
            }
            EventKind::Far { radius } => {
                format!("d(z, {b}) >= {radius:.6} [pilot P_{b} = {}]", short(self.pilot_level))
            }
            EventKind::NonFinite => format!("z not finite [tested P_{a} <= e^(eps d) P_{b}]"),
            EventKind::Reproduced => {
                format!("z reproduced bit for bit from {a}'s pipeline [pilot P_{a} = {}]", short(self.pilot_level))
            }
            EventKind::LowBits { pattern } => match pattern {
                Some(v) => format!("lowest mantissa bits of z = {v:#010b} [pilot P_{a} = {}]", short(self.pilot_level)),
                None => "lowest mantissa bits of z: no candidate in the pilot (empty event)".into(),
            },
            EventKind::Exponent { exponent } => match exponent {
                Some(e) => format!(
                    "exponent of z's first coordinate = 2^{} [pilot P_{a} = {}]",
                    i32::from(e) - 1023,
                    short(self.pilot_level)
                ),
                None => "exponent of z's first coordinate: no candidate in the pilot (empty event)".into(),
            },
        }
    }
}

fn short(x: f64) -> String {
    if x >= 1e-3 { format!("{x}") } else { format!("{x:.1e}") }
}

/// The levels at which events are set.
#[derive(Debug, Clone, PartialEq)]
pub struct EventLevels {
    /// Pilot probabilities of the `llr` and `ball` events (default 0.3, 0.1, 0.03, 0.01).
    pub central: Vec<f64>,
    /// Pilot probabilities of the `far` events (default 0.01, 0.001); the pilot maximum is always added.
    pub tail: Vec<f64>,
}

impl Default for EventLevels {
    fn default() -> Self {
        EventLevels { central: vec![0.3, 0.1, 0.03, 0.01], tail: vec![0.01, 0.001] }
    }
}

impl EventLevels {
    /// Events per direction (and so per pair: twice this); three more in raw-bit mode.
    pub fn per_direction(&self, raw_bits: bool) -> usize {
        2 * self.central.len() + self.tail.len() + 2 + 3 * usize::from(raw_bits)
    }
}

/// Pilot draws a candidate value must have at a before it may become a precision event: fewer would make
/// the event's counting probability too small to bound.
const MIN_PRECISION_HITS: usize = 20;

/// The value of `key` most over-represented among the finite draws `at_a` against `at_b`, by
/// (hits at a + 1)/(hits at b + 1) among values with at least [`MIN_PRECISION_HITS`] hits at a (smallest
/// value on ties, so the choice is reproducible), and its pilot probability at a.
fn most_over_represented(at_a: &[Features], at_b: &[Features], key: fn(&Features) -> u16) -> (Option<u16>, f64) {
    let mut counts = std::collections::BTreeMap::<u16, [usize; 2]>::new();
    for (side, draws) in [at_a, at_b].into_iter().enumerate() {
        for f in draws.iter().filter(|f| f.finite) {
            counts.entry(key(f)).or_default()[side] += 1;
        }
    }
    let best = counts.iter().filter(|(_, c)| c[0] >= MIN_PRECISION_HITS).max_by(|(va, a), (vb, b)| {
        // a₀/b₀ vs a₁/b₁ by cross-multiplication (exact); the smaller value wins a tie.
        ((a[0] + 1) * (b[1] + 1)).cmp(&((b[0] + 1) * (a[1] + 1))).then(vb.cmp(va))
    });
    match best {
        Some((&v, c)) => (Some(v), c[0] as f64 / at_a.len().max(1) as f64),
        None => (None, 0.0),
    }
}

/// The value v such that a fraction ≈ `q` of `sorted_desc` (descending) is ≥ v: its ⌈q·m⌉-th largest.
fn upper_quantile(sorted_desc: &[f64], q: f64) -> f64 {
    let m = sorted_desc.len();
    let i = ((q * m as f64).ceil() as usize).clamp(1, m) - 1;
    sorted_desc[i]
}

/// The events of one pair from its pilot draws at x (`at_x`) and at x′ (`at_x_prime`), for both directions.
/// Non-finite pilot values are ignored when setting thresholds. With no finite pilot draw at an input, only
/// the `non-finite` events of that direction remain informative (their thresholds are set to +∞). `raw_bits`
/// adds the `reproduced` event of each direction.
pub fn events_from_pilot(
    at_x: &[Features],
    at_x_prime: &[Features],
    levels: &EventLevels,
    raw_bits: bool,
) -> Vec<Event> {
    let mut events = Vec::with_capacity(2 * levels.per_direction(raw_bits));
    for forward in [true, false] {
        let (at_a, at_b) = if forward { (at_x, at_x_prime) } else { (at_x_prime, at_x) };
        let collect = |draws: &[Features], pick: fn((f64, f64, f64)) -> f64, descending: bool| {
            let mut v: Vec<f64> =
                draws.iter().filter(|f| f.finite).map(|f| pick(f.directed(forward))).filter(|x| !x.is_nan()).collect();
            if descending {
                v.sort_by(|a, b| b.total_cmp(a));
            } else {
                v.sort_by(f64::total_cmp);
            }
            v
        };
        let llr_a = collect(at_a, |t| t.0, true);
        let dist_a_at_a = collect(at_a, |t| t.1, false);
        let dist_b_at_b = collect(at_b, |t| t.2, true);
        for &q in &levels.central {
            let threshold = if llr_a.is_empty() { f64::INFINITY } else { upper_quantile(&llr_a, q) };
            events.push(Event { forward, kind: EventKind::Llr { threshold }, pilot_level: q });
        }
        for &q in &levels.central {
            // ⌈q·m⌉-th smallest distance.
            let radius = if dist_a_at_a.is_empty() {
                f64::NEG_INFINITY
            } else {
                let m = dist_a_at_a.len();
                dist_a_at_a[((q * m as f64).ceil() as usize).clamp(1, m) - 1]
            };
            events.push(Event { forward, kind: EventKind::Ball { radius }, pilot_level: q });
        }
        for &q in &levels.tail {
            let radius = if dist_b_at_b.is_empty() { f64::INFINITY } else { upper_quantile(&dist_b_at_b, q) };
            events.push(Event { forward, kind: EventKind::Far { radius }, pilot_level: q });
        }
        let (radius, level) = match dist_b_at_b.first() {
            Some(&max) => (max, 1.0 / dist_b_at_b.len() as f64),
            None => (f64::INFINITY, 0.0),
        };
        events.push(Event { forward, kind: EventKind::Far { radius }, pilot_level: level });
        events.push(Event { forward, kind: EventKind::NonFinite, pilot_level: 0.0 });
        if raw_bits {
            let hits = at_a.iter().filter(|f| if forward { f.reproduced } else { f.reproduced_prime }).count();
            let pilot_level = hits as f64 / at_a.len().max(1) as f64;
            events.push(Event { forward, kind: EventKind::Reproduced, pilot_level });
            let (pattern, level) = most_over_represented(at_a, at_b, |f| u16::from(f.low_bits));
            let pattern = pattern.map(|v| v as u8);
            events.push(Event { forward, kind: EventKind::LowBits { pattern }, pilot_level: level });
            let (exponent, level) = most_over_represented(at_a, at_b, |f| f.exponent);
            events.push(Event { forward, kind: EventKind::Exponent { exponent }, pilot_level: level });
        }
    }
    events
}

/// The events of an (ε, δ) claim: for each direction a → b, S = {ℓ_ab(z) ≥ `threshold`} with `threshold` =
/// ε·d, the set on which P_a(S) − e^{εd}·P_b(S) is largest (it equals the claimed mechanism's δ(ε) there,
/// by Neyman–Pearson). The threshold comes from the claim, not from the pilot; the pilot only gives the
/// event's `pilot_level` (the fraction of pilot draws from a in it), for reports.
pub fn claim_llr_events(at_x: &[Features], at_x_prime: &[Features], threshold: f64) -> Vec<Event> {
    [true, false]
        .into_iter()
        .map(|forward| {
            let at_a = if forward { at_x } else { at_x_prime };
            let event = Event { forward, kind: EventKind::Llr { threshold }, pilot_level: 0.0 };
            let hits = at_a.iter().filter(|f| event.contains(f)).count();
            Event { pilot_level: hits as f64 / at_a.len().max(1) as f64, ..event }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_hit_their_pilot_levels_and_directions_mirror() {
        // ℓ uniform on a grid, distances equal to the index.
        let at = |shift: f64| -> Vec<Features> {
            (0..1000)
                .map(|i| Features {
                    llr: i as f64 - shift,
                    dist_x: i as f64,
                    dist_x_prime: 1000.0 - i as f64,
                    finite: true,
                    reproduced: false,
                    reproduced_prime: false,
                    low_bits: (i % 4) as u8,
                    exponent: 1023,
                })
                .collect()
        };
        let (x, xp) = (at(0.0), at(500.0));
        let events = events_from_pilot(&x, &xp, &EventLevels::default(), false);
        assert_eq!(events.len(), 2 * EventLevels::default().per_direction(false));
        let frac = |e: &Event, draws: &[Features]| draws.iter().filter(|f| e.contains(f)).count() as f64 / 1000.0;
        for e in &events {
            let (a, b) = if e.forward { (&x, &xp) } else { (&xp, &x) };
            match e.kind {
                EventKind::Llr { .. } | EventKind::Ball { .. } => assert_eq!(frac(e, a), e.pilot_level, "{e:?}"),
                EventKind::Far { .. } => assert_eq!(frac(e, b), e.pilot_level, "{e:?}"),
                EventKind::NonFinite
                | EventKind::Reproduced
                | EventKind::LowBits { .. }
                | EventKind::Exponent { .. } => {
                    assert_eq!(frac(e, a), 0.0)
                }
            }
        }
        let nan = Features::not_finite();
        assert_eq!(events.iter().filter(|e| e.contains(&nan)).count(), 2);
        assert!(events[0].label().starts_with("ln f(z|x) - ln f(z|x') >= "));

        // Raw-bit mode: the precision events pick the value the pilot over-represents at a. At x the
        // pattern is i mod 4 (pattern 3 a quarter of the time); at x′ pattern 3 is replaced by 2.
        let mut xp = at(500.0);
        for f in xp.iter_mut().filter(|f| f.low_bits == 3) {
            f.low_bits = 2;
        }
        let raw = events_from_pilot(&x, &xp, &EventLevels::default(), true);
        assert_eq!(raw.len(), 2 * EventLevels::default().per_direction(true));
        let kinds: Vec<_> = raw.iter().map(|e| (e.forward, e.kind)).collect();
        assert!(kinds.contains(&(true, EventKind::LowBits { pattern: Some(3) })), "{kinds:?}");
        assert!(kinds.contains(&(false, EventKind::LowBits { pattern: Some(2) })), "{kinds:?}");
        // One exponent everywhere: no value is over-represented, the smallest candidate is chosen.
        assert!(kinds.contains(&(true, EventKind::Exponent { exponent: Some(1023) })), "{kinds:?}");
        // Too few pilot hits: no candidate, an empty event.
        let (few_x, few_xp) = (&x[..MIN_PRECISION_HITS - 1], &xp[..MIN_PRECISION_HITS - 1]);
        let sparse = events_from_pilot(few_x, few_xp, &EventLevels::default(), true);
        assert!(sparse.iter().any(|e| e.kind == EventKind::LowBits { pattern: None } && !e.contains(&x[3])));
    }

    #[test]
    fn low_bit_patterns_pack_the_last_mantissa_bits() {
        let one = 1.0f64;
        let bits = |k: u64| f64::from_bits(one.to_bits() | k);
        assert_eq!(low_bits_pattern(&[bits(0b1011_0110)]), 0b1011_0110);
        assert_eq!(low_bits_pattern(&[bits(0b1110), bits(0b0101)]), 0b1110_0101);
        assert_eq!(low_bits_pattern(&[bits(0b11), bits(0b01), -bits(0b10)]), 0b11_01_10);
        assert_eq!(low_bits_pattern(&[bits(1), bits(0), bits(1), bits(1)]), 0b01_00_01_01);
        assert_eq!(low_bits_pattern(&[bits(1); 9]), 0xff);
        assert_eq!(exponent_field(1.0), 1023);
        assert_eq!(exponent_field(1.0f64.next_down()), 1022);
        assert_eq!(exponent_field(0.0), 0);
    }
}
