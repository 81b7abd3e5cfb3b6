//! Full-precision uniforms, and the tail-governing draws built on them (`docs/proofs/float_safety.md` §3f).
//!
//! `rng.random::<f64>()` is a multiple of 2^-53: below 2^-40 it holds only 2^13 values, and nothing below
//! 2^-53 at all, so a logarithm of it cannot reach past 36.7 and is coarse long before. Here a uniform U on
//! (0, 1] is read at full precision instead: its binade e ≥ 1 (U ∈ (2^-e, 2^{1−e}], P = 2^-e, from the
//! leading zero bits of the random words, with no cap) and 52 mantissa bits j. The value
//!
//!   Ũ = 2^-e·(1 + (j + 1)·2^-52)
//!
//! is then *exactly* ⌈U⌉, the smallest double ≥ U, of a real uniform U (each double d of the binade is
//! reached with probability d − pred(d) = 2^{−e−52}), and Ũ/U ∈ [1, 1 + 2^-52]: the lattice is relative
//! everywhere. [`ln_unit`] computes ln Ũ from (e, j) without ever forming Ũ, so no exponent is out of reach.

use crate::error::Param;
use rand::{Rng, RngExt};
use std::f64::consts::LN_2;

/// 2^-52, the relative spacing of the full-precision lattice.
const MANTISSA_STEP: f64 = f64::EPSILON;

/// ln 2 − fl(ln 2) (fl(ln 2) = `LN_2` rounds ln 2 down by 2.3e-17).
const LN_2_LO: f64 = 2.319_046_813_846_299_6e-17;

/// The binade e ≥ 1 and the mantissa j < 2^52 of a full-precision uniform: U ∈ (2^-e, 2^{1−e}],
/// Ũ = 2^-e·(1 + (j + 1)·2^-52). P(e = k) = 2^-k: e − 1 is the number of zero bits before the first one in
/// a stream of fair bits (the top 12 bits of the first word, then whole words), independent of j (the
/// first word's low 52 bits).
#[inline]
fn parts<R: Rng + ?Sized>(rng: &mut R) -> (u64, u64) {
    let w = rng.next_u64();
    let j = w & ((1u64 << 52) - 1);
    if w >> 52 != 0 {
        return (u64::from(w.leading_zeros()) + 1, j);
    }
    binade_beyond_12(j, rng)
}

/// The rare continuation of [`parts`]: the first 12 bits were all zero (probability 2^-12).
#[cold]
#[inline(never)]
fn binade_beyond_12<R: Rng + ?Sized>(j: u64, rng: &mut R) -> (u64, u64) {
    let mut e = 12u64;
    loop {
        let w = rng.next_u64();
        if w != 0 {
            return (e + u64::from(w.leading_zeros()) + 1, j);
        }
        e += 64;
    }
}

/// ln Ũ from its parts: −e·ln 2 + ln(1 + (j + 1)·2^-52).
#[inline]
fn ln_from_parts(e: u64, j: u64) -> f64 {
    -(e as f64) * LN_2 + ((j + 1) as f64 * MANTISSA_STEP).ln_1p()
}

/// A full-precision uniform on (0, 1]: exactly ⌈U⌉ (the smallest double ≥ U) of a real uniform U, except on
/// the event U ≤ 2^-1022 (probability 2^-1022), where it returns 2^-1022. Users whose result depends on
/// U's size below 2^-1022 must use [`ln_unit`] instead; the callers here only need U to be within an absolute
/// 2^-1022 there (`docs/proofs/float_safety.md` §3f).
#[inline]
pub fn unit<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    let (e, j) = parts(rng);
    if e <= 1022 {
        // The bits of 2^-e·(1 + j·2^-52), plus one unit in the last place: a carry out of the mantissa gives
        // 2^{1−e} exactly.
        f64::from_bits(((1023 - e) << 52) + j + 1)
    } else {
        f64::MIN_POSITIVE
    }
}

/// ln U for a full-precision uniform U on (0, 1], with no bound on how negative it can be: computed as
/// −e·ln 2 + ln_1p((j + 1)·2^-52) from U's binade and mantissa. Within 2^-52 + (5 + 4|ln U|)·2^-53 of the
/// exact ln U of the real uniform it reads (§3f).
#[inline]
pub fn ln_unit<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    let (e, j) = parts(rng);
    ln_from_parts(e, j)
}

/// An Exp(1) draw E = −ln U with relative accuracy everywhere: within 15·2^-53·E of the exact −ln U of the
/// real uniform U it reads. A fair bit picks U's half: U ∈ (0, ½] as 2^-1·V, E = ln 2 − ln V (the tail, by
/// [`ln_unit`]'s parts), or U = 1 − V/2 ∈ (½, 1), E = −ln_1p(−V/2) (the body near 0, where 1 − U is read at
/// full precision), V a full-precision uniform on (0, 1] (§3f).
#[inline]
pub fn exp1<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    let (e, j) = parts(rng);
    // U's first bit (e = 1 or not) is the fair coin, independent of j. e ≥ 2: U = Ũ ∈ (0, ½] of these parts.
    // e = 1: U is uniform on (½, 1]; 1 − U is read afresh at full precision as V/2.
    if e >= 2 { -ln_from_parts(e, j) } else { -(-0.5 * unit(rng)).ln_1p() }
}

/// (sin φ, cos φ) for φ = πV/2, V uniform on (0, 1), read at full precision from the nearer end: a fair bit
/// picks V = x or V = 1 − x with x = Ṽ/2 ∈ (0, ½] ([`unit()`]), and the pair is (sin, cos)(πṼ/4) in that order or
/// swapped. So each is within 6·2^-53 of its own size (Lemma A, `docs/proofs/float_safety.md` §3f): sin φ near
/// φ = 0 and cos φ near φ = π/2 keep their relative accuracy, as no 53-bit angle can.
#[inline]
pub fn quarter_turn<R: Rng + ?Sized>(rng: &mut R) -> (f64, f64) {
    let (s, c) = (std::f64::consts::FRAC_PI_4 * unit(rng)).sin_cos();
    if rng.random::<bool>() { (s, c) } else { (c, s) }
}

/// The exponential law of rate λ truncated to [0, b]: density λe^{−λt}/(1 − e^{−λb}), drawn by inversion
/// from a uniform read at full precision at both ends, so every draw is within 40·2^-53·b of the exact
/// inverse of the real uniform it reads, tails included (`docs/proofs/float_safety.md` §3f). Used for the
/// circle's Purkayastha angle (b = π), the wrapped Laplace on the circle (b = 2π: a Laplace draw modulo 2π
/// is a signed truncated exponential) and the VMF's t = 1 − μ·X on S² (b = 2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TruncatedExp {
    rate: f64,
    end: f64,
    /// s = 1 − e^{−λb} (the mass before truncation).
    mass: f64,
    /// λb < 1: c = e^{λb} − 1; otherwise what the logarithmic form needs.
    far: Far,
}

/// How the upper half of the inversion (t near b) is computed.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Far {
    /// λb < 1: c = e^{λb} − 1, and λ(b − t) = ln_1p(W·c) with W full precision (never underflows to a
    /// relative error: W ≥ 2^-1022 and c ≥ λb).
    Direct { c: f64 },
    /// λb ≥ 1: in logarithms (c may overflow, W be tiny): λ(b − t) = softplus(ln W + λb + ln s), with
    /// λb = `lb_hi` + `lb_lo` exactly (so that W's binade, an integer times ln 2, cancels λb without error)
    /// and ln s.
    Log { lb_hi: f64, lb_lo: f64, ln_s: f64 },
}

impl TruncatedExp {
    /// Rate λ > 0 and end b > 0, finite, with λb ≤ 2^40 (every caller is far inside: λb ≤ 2π·10^6).
    pub fn new(rate: f64, end: f64) -> crate::error::Fallible<Self> {
        let rate = crate::error::check_positive(Param::Rate, rate)?;
        let end = crate::error::check_positive(Param::End, end)?;
        let lb = rate * end;
        if lb.is_nan() || lb > 1.099_511_627_776e12 {
            return Err(crate::error::Error::InvalidParameter {
                name: Param::Rate,
                value: rate,
                reason: "times the end must be at most 2^40",
            });
        }
        let mass = -(-lb).exp_m1();
        let far = if lb < 1.0 {
            Far::Direct { c: lb.exp_m1() }
        } else {
            Far::Log { lb_hi: lb, lb_lo: rate.mul_add(end, -lb), ln_s: mass.ln() }
        };
        Ok(TruncatedExp { rate, end, mass, far })
    }

    /// One draw t ∈ [0, b].
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.sample_with_complement(rng).0
    }

    /// One draw (t, b − t), each within 40·2^-53·b of the exact value of the real uniform read
    /// (§3f): t is computed without cancellation where it is at most the median (≤ b/2, the density
    /// decreasing), b − t where t is above it, and the other by one subtraction from b with a result of at
    /// least b/2 (so S²'s sin θ = √(t(2 − t)) keeps its accuracy near the antipode, where 2 − t would not).
    #[inline]
    pub fn sample_with_complement<R: Rng + ?Sized>(&self, rng: &mut R) -> (f64, f64) {
        // A fair bit picks the half of the CDF's value V: V ∈ (0, ½] (t near 0) or W = 1 − V ∈ (0, ½] (t near b),
        // read at full precision as x = V′/2, V′ uniform on (0, 1].
        if rng.random::<bool>() {
            // F(t) = (1 − e^{−λt})/s = x  ⇒  t = −ln_1p(−x·s)/λ.
            let x = 0.5 * unit(rng);
            let t = (-(-x * self.mass).ln_1p() / self.rate).clamp(0.0, self.end);
            (t, self.end - t)
        } else {
            // 1 − F(t) = x  ⇒  e^{−λt} = e^{−λb} + x·s  ⇒  λ(b − t) = ln(1 + x·c), c = e^{λb} − 1.
            match self.far {
                Far::Direct { c } => {
                    // t ≥ the median ≥ 0.38b here (λb < 1), so b − rest loses nothing.
                    let rest = ((0.5 * unit(rng) * c).ln_1p() / self.rate).clamp(0.0, self.end);
                    (self.end - rest, rest)
                }
                Far::Log { lb_hi, lb_lo, ln_s } => {
                    let (e, j) = parts(rng);
                    self.far_in_logs(e + 1, j, lb_hi, lb_lo, ln_s)
                }
            }
        }
    }

    /// (t, b − t) for x = 2^-k·(1 + (j + 1)·2^-52) (the far half's uniform, binade k ≥ 2), λb ≥ 1. With
    /// ln x = ln_1p((j + 1)·2^-52) − k·ln 2: y = ln(x·c) = ln x + λb + ln s, where k·ln 2 and λb nearly cancel
    /// when y is moderate, so their difference is formed from exact products (two fma remainders) and y errs
    /// by a few ulps of its own size plus a few units of 2^-53, whatever λb; b − t = softplus(y)/λ. Then t is
    /// b − (b − t) when that is at least b/2, and otherwise −ln(x·s + e^{−λb})/λ = −(ln(x·s) + ln_1p(e^{−λb}/(x·s)))/λ,
    /// with no cancellation either (§3f).
    #[inline]
    fn far_in_logs(&self, k: u64, j: u64, lb_hi: f64, lb_lo: f64, ln_s: f64) -> (f64, f64) {
        let kf = k as f64;
        let k_ln2 = kf * LN_2;
        let k_ln2_lo = kf.mul_add(LN_2, -k_ln2) + kf * LN_2_LO;
        let mantissa = ((j + 1) as f64 * MANTISSA_STEP).ln_1p();
        let y = (lb_hi - k_ln2) + (lb_lo - k_ln2_lo) + mantissa + ln_s;
        let rest = (softplus(y) / self.rate).clamp(0.0, self.end);
        if rest <= 0.5 * self.end {
            return (self.end - rest, rest);
        }
        let ln_xs = mantissa - k_ln2 - k_ln2_lo + ln_s;
        let t = -(ln_xs + (-lb_hi - lb_lo - ln_xs).exp().ln_1p()) / self.rate;
        (t.clamp(0.0, self.end), rest)
    }

    /// The rate λ.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// The end b.
    pub fn end(&self) -> f64 {
        self.end
    }
}

/// ln(1 + e^y), with relative accuracy for every y (e^{−y} < 2^-60 beyond y = 42: ln(1 + e^y) = y to
/// within y·2^-65).
#[inline]
fn softplus(y: f64) -> f64 {
    if y > 42.0 { y } else { y.exp().ln_1p() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::rng::seeded_rng_for_experiments;
    use std::f64::consts::{PI, TAU};

    const U: f64 = f64::EPSILON / 2.0;

    #[test]
    fn unit_is_in_the_half_open_interval_and_reaches_the_top() {
        // j = 2^52 − 1 carries into the exponent: 2^{1−e}.
        assert_eq!(f64::from_bits(((1023 - 1) << 52) + ((1u64 << 52) - 1) + 1), 1.0);
        assert_eq!(f64::from_bits(((1023 - 3) << 52) + 1), 0.125 * (1.0 + f64::EPSILON));
        let mut rng = seeded_rng_for_experiments(1);
        for _ in 0..100_000 {
            let u = unit(&mut rng);
            assert!(u > 0.0 && u <= 1.0);
        }
    }

    /// ln_unit agrees with libm's ln of the same lattice point to within the stated bound, across binades
    /// (including ones a 53-bit uniform never reaches).
    #[test]
    fn ln_unit_matches_the_lattice_point() {
        for e in [1u64, 2, 3, 20, 53, 54, 200, 1000, 1022] {
            for j in [0u64, 1, 12345, (1 << 51) + 7, (1 << 52) - 2, (1 << 52) - 1] {
                let point = f64::from_bits(((1023 - e) << 52) + j + 1);
                let (got, want) = (ln_from_parts(e, j), point.ln());
                let bound = (5.0 + 4.0 * want.abs()) * U + 2.0 * U * want.abs();
                assert!((got - want).abs() <= bound, "e {e} j {j}: {got} vs {want}");
            }
        }
    }

    /// The binade of a full-precision uniform is geometric: P(e = k) = 2^-k. Counts of e = 1, 2, 3 and ≥ 4 over
    /// 2^20 draws against a chi-square critical value at false-failure probability 1e-7 (3 degrees of
    /// freedom: 35.9); the negative control (a biased first bit) is rejected by the same test.
    #[test]
    fn the_binade_is_geometric() {
        fn chi2(counts: [f64; 4], n: f64) -> f64 {
            let p = [0.5, 0.25, 0.125, 0.125];
            counts.iter().zip(p).map(|(c, p)| (c - n * p).powi(2) / (n * p)).sum()
        }
        let n = (1u32 << 20) as f64;
        let mut rng = seeded_rng_for_experiments(7);
        let mut counts = [0.0; 4];
        for _ in 0..1u32 << 20 {
            counts[(parts(&mut rng).0.min(4) - 1) as usize] += 1.0;
        }
        assert!(chi2(counts, n) < 35.9, "chi2 {}", chi2(counts, n));
        // Control: e = 1 with probability 0.51.
        let mut counts = [0.0; 4];
        for _ in 0..1u32 << 20 {
            let (e, _) = parts(&mut rng);
            let e = if e == 1 || rng.next_u64().is_multiple_of(50) { 1 } else { e };
            counts[(e.min(4) - 1) as usize] += 1.0;
        }
        assert!(chi2(counts, n) > 35.9, "control not caught");
    }

    /// The exact law of a computed draw: for a function g of a uniform read from a lattice (point i has mass
    /// `mass(i)`), increasing in i on each range, the mass g puts on [a, c), by bisection for the first point
    /// at or past each end.
    fn lattice_mass(ranges: &[(u64, u64, f64)], g: &impl Fn(u64) -> f64, increasing: bool, a: f64, c: f64) -> f64 {
        // First index in [lo, hi) whose value is ≥ y (increasing) or < y (decreasing).
        let first = |lo: u64, hi: u64, y: f64| {
            let (mut lo, mut hi) = (lo, hi);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if (g(mid) >= y) == increasing { hi = mid } else { lo = mid + 1 }
            }
            lo
        };
        ranges
            .iter()
            .map(|&(lo, hi, mass)| {
                let (i, k) = (first(lo, hi, a), first(lo, hi, c));
                let count = if increasing { k - i } else { i - k };
                count as f64 * mass
            })
            .sum()
    }

    /// P[t ∈ [a, c)] for [`TruncatedExp::sample`], computed exactly over the full-precision lattice: a fair bit,
    /// then binade e and mantissa j of the uniform (t is increasing in j within a binade on the near side and
    /// decreasing on the far side). Points are indexed by e·2^52 + j.
    fn truncated_exp_cell(law: &TruncatedExp, a: f64, c: f64) -> f64 {
        let x_of = |i: u64| {
            let (e, j) = (i >> 52, i & ((1 << 52) - 1));
            0.5 * f64::from_bits(((1023 - e) << 52) + j + 1)
        };
        let near = |i: u64| (-(-x_of(i) * law.mass).ln_1p() / law.rate).clamp(0.0, law.end);
        let far = |i: u64| match law.far {
            Far::Direct { c } => law.end - ((x_of(i) * c).ln_1p() / law.rate).clamp(0.0, law.end),
            Far::Log { lb_hi, lb_lo, ln_s } => {
                law.far_in_logs((i >> 52) + 1, i & ((1 << 52) - 1), lb_hi, lb_lo, ln_s).0
            }
        };
        let ranges: Vec<(u64, u64, f64)> =
            (1..=1022u64).map(|e| (e << 52, (e + 1) << 52, 2f64.powi(-(e as i32) - 52))).collect();
        // Beyond binade 1022 (mass 2^-1022): the near side and the direct far side read 2^-1022, the
        // logarithmic far side every binade; either way t is within 2^-1000 of 0 or b, below any cell tested.
        0.5 * (lattice_mass(&ranges, &near, true, a, c) + lattice_mass(&ranges, &far, false, a, c))
    }

    /// The same for the circle's angle as main drew it until §3f: −ln_1p(u·(e^{−λb} − 1))/λ with u = k·2^-53,
    /// k uniform below 2^53 (`rng.random::<f64>()`), increasing in k.
    fn fifty_three_bit_cell(law: &TruncatedExp, a: f64, c: f64) -> f64 {
        let scale = (-law.rate * law.end).exp_m1();
        let g = |k: u64| (-(k as f64 * 2f64.powi(-53) * scale).ln_1p() / law.rate).min(law.end);
        lattice_mass(&[(0, 1 << 53, 2f64.powi(-53))], &g, true, a, c)
    }

    /// P*[t ∈ [a, c)] under the exact truncated exponential, with [a, c) clipped to [0, b].
    fn exact_cell(law: &TruncatedExp, a: f64, c: f64) -> f64 {
        let (a, c) = (a.max(0.0), c.min(law.end));
        if c <= a {
            return 0.0;
        }
        (-law.rate * a).exp() * -(-law.rate * (c - a)).exp_m1() / law.mass
    }

    /// Cells [a, a + h) of the circle's turn grid (h = 2π·2^-28, the grid of the example) spread over
    /// [0, b]: the first few, 60 spaced geometrically, the band where 53-bit uniforms stop (0.45–0.75 rad at
    /// λ = 50) and the last.
    fn cells(b: f64) -> Vec<f64> {
        let h = TAU * 2f64.powi(-28);
        let last = (b / h).floor() - 1.0;
        let mut m: Vec<f64> = vec![0.0, 1.0, 2.0, last];
        m.extend((0..60).map(|i| (last * (i as f64 / 59.0).powi(3)).floor()));
        m.extend((0..40).map(|i| ((0.45 + 0.3 * i as f64 / 39.0) / h).floor()));
        m.into_iter().map(|m| m * h).collect()
    }

    /// Closing assumption (S) on the circle (float_safety.md §3f): the law of every tested cell of the computed
    /// truncated exponential, enumerated exactly over the full-precision lattice (no sampling, so no false
    /// failures), lies between the exact law's mass on the cell shrunk and grown by the proven error
    /// η = 40·2^-53·b. At λ = 50 the cells run into the far tail (mass ~e^{−50π}), at λ = 1000 to masses of
    /// 1e-250 (below that f64 cannot hold the lattice's masses); at λ = 1e-6 every cell is in the body. Control: main's 53-bit inversion, enumerated the same way, puts no mass on cells past
    /// 36.7/λ ≈ 0.73 rad (so a release reached from x′ is unreachable from x) and fails the same check.
    #[test]
    fn tail_cells_have_their_exact_mass_up_to_the_proven_error() {
        let h = TAU * 2f64.powi(-28);
        let mut tested = 0;
        for (rate, end) in [(50.0, PI), (50.0, TAU), (1e-6, PI), (1.0, TAU), (1e3, PI), (0.5, 1.0)] {
            let law = TruncatedExp::new(rate, end).unwrap();
            let eta = 40.0 * U * end;
            for a in cells(end) {
                let c = a + h;
                let (low, high) = (exact_cell(&law, a + eta, c - eta), exact_cell(&law, a - eta, c + eta));
                // Cells whose mass is below 1e-250 are past what f64 masses (2^{−e−52}) represent exactly.
                if low < 1e-250 {
                    continue;
                }
                tested += 1;
                let got = truncated_exp_cell(&law, a, c);
                assert!(
                    got >= low * (1.0 - 1e-9) && got <= high * (1.0 + 1e-9),
                    "rate {rate} end {end} cell [{a}, {c}): {got:e} outside [{low:e}, {high:e}]"
                );
            }
        }
        assert!(tested > 400, "only {tested} cells tested");
        // The control: main's sampler at λ = 50 on [0, π].
        let law = TruncatedExp::new(50.0, PI).unwrap();
        let eta = 40.0 * U * PI;
        let failures = cells(PI)
            .into_iter()
            .filter(|&a| {
                let c = a + h;
                let got = fifty_three_bit_cell(&law, a, c);
                !(got >= exact_cell(&law, a + eta, c - eta) * (1.0 - 1e-9)
                    && got <= exact_cell(&law, a - eta, c + eta) * (1.0 + 1e-9))
            })
            .count();
        assert!(failures >= 10, "the 53-bit control failed only {failures} cells");
    }
}
