//! The exact cell of the rounded Laplace by tables (`docs/proofs/float_safety.md` §8d): the same law as
//! the integer-coin sampler of [`crate::sample::rounded_laplace`], in about three random words instead of
//! twenty-five, on every grid with h ≤ 2^-6·2^⌊log₂ b⌋ (the default grid among them).
//!
//! In cells, the noise magnitude is Y = E/w, E ~ Exp(1), w = h/b = 2^q/m_b. With blocks of B = 2^j cells,
//! j = 46 − q, Y = B·(N + V) where N = ⌊Y/B⌋ has P(N ≥ n) = ρ^n, ρ = e^{−c}, c = B·w = 2^46/m_b ∈ (2^-7, 2^-6],
//! and V = frac(Y/B) ∈ [0, 1) has density ∝ e^{−cv}, independent of N. The cell is then
//! n₀ + B·N + ⌊B·V⌋ + [frac(B·V) ≥ 1 − φ] (sign +) or n₀ − B·N − ⌊B·V⌋ − [frac(B·V) > φ] (sign −).
//!
//! - N is the inverse CDF of a uniform U, N = #{n ≥ 1 : U < ρ^n}, read from a table of rigorous 64-bit bounds
//!   lo_n ≤ ρ^n·2^64 ≤ hi_n; when U's first 63 bits leave a threshold undecided (probability ~2^-55 per draw) U's
//!   further bits are drawn and compared with ρ^n computed to as many bits as needed ([`exp_neg_bounds`]), so N
//!   is always the exact inverse CDF of the exact U. N ≥ T (the table's end) is a first-stage outcome of its
//!   own, then N = T + a fresh N (memorylessness).
//! - V is a lazy uniform kept with probability e^{−cV} (CKS20 Algorithm 1 with the coin Bernoulli(c) ∧
//!   Bernoulli(V)); c ≤ 2^-6, so almost every proposal is kept after one rational coin.
//! - The comparison of frac(B·V) with φ reads V's digits, drawing more only when 64 − j of them do not decide.
//!
//! No probability is a float; every fast decision is certified by integers and every undecided one is finished
//! exactly on the same uniform, so the output is a deterministic function of exact uniforms with the target law.

use crate::sample::exact_cell::{LazyUniform, less};
use crate::sample::exact_coins::bernoulli_ratio;
use crate::sample::rounded_laplace::Fraction;
use num_bigint::{BigInt, BigUint};
use rand::Rng;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// c = 2^C_LOG2/m_b: blocks of 2^(C_LOG2 − q) cells. Grids with q = k − e_b ≤ C_LOG2 use the tables.
pub(crate) const C_LOG2: i32 = 46;
/// Thresholds ρ^n tabulated for n = 1..=T; ρ^T = e^{−cT} ≤ e^{−16}.
const T: usize = 2048;
/// Buckets of the guide per binade of U (a hint only: the scan that follows it is exact whatever it says).
const GUIDE_BITS: u32 = 7;
/// U below 2^GUIDE_FLOOR_LOG2/2^64 starts its scan at T.
const GUIDE_FLOOR_LOG2: i32 = 20;

/// lo ≤ e^{−num/den}·2^prec ≤ hi, integers, for num ≥ 0 and den ≥ 1 (`docs/proofs/float_safety.md` §8d, Lemma
/// E): the alternating Taylor series of e^{−y} at y = num/(den·2^r) ≤ ½ in fixed point with guard bits, each
/// term floored (error ≤ 2 per term, ≤ 2 for the tail), then r interval squarings rounded outwards. hi − lo ≤ 4
/// (tested), so the bounds shrink around the true value as prec grows.
pub(crate) fn exp_neg_bounds(num: u128, den: u128, prec: u32) -> (BigUint, BigUint) {
    assert!(den >= 1, "exp_neg_bounds: den = 0");
    let (num, den) = (BigUint::from(num), BigUint::from(den));
    let mut r = 0u32;
    while (&num << 1u32) > (&den << r) {
        r += 1;
    }
    let w0 = prec + r + 64;
    let guard = r + 2 * (32 - w0.leading_zeros()) + 8;
    let w = prec + guard;
    let step_den = &den << r;
    let one = BigUint::from(1u8) << w;
    let (mut plus, mut minus) = (one.clone(), BigUint::from(0u8));
    let mut term = one;
    let mut i = 0u32;
    loop {
        i += 1;
        term = &term * &num / (&step_den * i);
        if term.bits() == 0 {
            break;
        }
        if i % 2 == 1 {
            minus += &term;
        } else {
            plus += &term;
        }
    }
    // |Σ − e^{−y}·2^w| ≤ 2(i − 1) for the floored terms + 2 for the tail (its first term is < 1 + 2).
    let err = BigUint::from(2 * i + 2);
    let sum = plus - &minus;
    let mut lo = if sum > err { &sum - &err } else { BigUint::from(0u8) };
    let mut hi = sum + err;
    let round_up = (BigUint::from(1u8) << w) - 1u8;
    for _ in 0..r {
        lo = (&lo * &lo) >> w;
        hi = (&hi * &hi + &round_up) >> w;
    }
    let round_up = (BigUint::from(1u8) << guard) - 1u8;
    (lo >> guard, (hi + round_up) >> guard)
}

/// The tables of one scale mantissa m_b (every scale b = m_b·2^e shares them).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct BlockTable {
    /// m_b: c = 2^46/m_b.
    mantissa: u64,
    /// lo[n] ≤ ρ^n·2^64 ≤ hi[n] for n = 1..=T (index 0 unused).
    lo: Box<[u64]>,
    hi: Box<[u64]>,
    /// A starting point for the scan, by the binade and the next GUIDE_BITS bits of U.
    guide: Box<[u16]>,
    /// Widens every fast decision by this many units (0 in releases; tests set it to force the exact paths).
    slack: u64,
    /// ⌊2^110/m_b⌋ and ⌈2^110/m_b⌉: a word u decides Bernoulli(c) as true if u + 1 ≤ the first, i.e.
    /// (u + 1)·m_b ≤ 2^110, and as false if u ≥ the second, i.e. u·m_b ≥ 2^110.
    coin_below: u64,
    coin_above: u64,
}

fn guide_key(a: u64) -> Option<usize> {
    let floor = 1u64 << GUIDE_FLOOR_LOG2;
    (a >= floor).then(|| {
        (((a as f64).to_bits() >> (52 - GUIDE_BITS)) - ((floor as f64).to_bits() >> (52 - GUIDE_BITS))) as usize
    })
}

impl BlockTable {
    /// The tables for m_b = `mantissa` (2^52 ≤ m_b < 2^53), shared by every law of that mantissa.
    pub(crate) fn shared(mantissa: u64) -> Arc<BlockTable> {
        static CACHE: OnceLock<Mutex<HashMap<u64, Arc<BlockTable>>>> = OnceLock::new();
        let mut map = CACHE.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        map.entry(mantissa).or_insert_with(|| Arc::new(BlockTable::build(mantissa, mantissa, 0))).clone()
    }

    /// Thresholds of ρ = e^{−2^46/`thresholds_of`}, coins of c = 2^46/`mantissa` (the two differ only in the
    /// negative control), every fast decision widened by `slack`.
    fn build(mantissa: u64, thresholds_of: u64, slack: u64) -> BlockTable {
        assert!((1u64 << 52..1u64 << 53).contains(&mantissa) && (1u64 << 52..1u64 << 53).contains(&thresholds_of));
        let (r_lo, r_hi) = exp_neg_bounds(1u128 << C_LOG2, u128::from(thresholds_of), 128);
        let (mut lo, mut hi) = (vec![u64::MAX; T + 1], vec![u64::MAX; T + 1]);
        let (mut p_lo, mut p_hi) = (r_lo.clone(), r_hi.clone());
        let up64 = (BigUint::from(1u8) << 64u32) - 1u8;
        let up128 = (BigUint::from(1u8) << 128u32) - 1u8;
        for n in 1..=T {
            lo[n] = u64::try_from(&p_lo >> 64u32).expect("ρ^n < 1");
            hi[n] = u64::try_from((&p_hi + &up64) >> 64u32).expect("ρ^n ≤ e^{−2^-7}");
            p_lo = (&p_lo * &r_lo) >> 128u32;
            p_hi = (&p_hi * &r_hi + &up128) >> 128u32;
        }
        let (target, d) = (1u128 << (C_LOG2 + 64), u128::from(mantissa));
        let mut table = BlockTable {
            mantissa,
            lo: lo.into_boxed_slice(),
            hi: hi.into_boxed_slice(),
            guide: Box::new([]),
            slack,
            coin_below: u64::try_from(target / d).expect("c < 1"),
            coin_above: u64::try_from(target.div_ceil(d)).expect("c < 1"),
        };
        let keys = guide_key(u64::MAX).expect("above the floor") + 1;
        let base = ((1u64 << GUIDE_FLOOR_LOG2) as f64).to_bits() >> (52 - GUIDE_BITS);
        table.guide = (0..keys)
            .map(|key| {
                let a = f64::from_bits((base + key as u64) << (52 - GUIDE_BITS));
                let a = if a >= 18446744073709551615.0 { u64::MAX - 1 } else { a as u64 & !1 };
                table.certain_count(a, T) as u16
            })
            .collect();
        table
    }

    /// #{n ≤ T : lo[n] − slack ≥ a + 2} (thresholds certainly above U ∈ [a, a + 2)/2^64), by a scan from
    /// `hint` (the count is exact whatever the hint: lo is nonincreasing).
    #[inline]
    fn certain_count(&self, a: u64, hint: usize) -> usize {
        let above = |n: usize| self.lo[n].saturating_sub(self.slack) > a.saturating_add(1);
        let mut n = hint;
        while n < T && above(n + 1) {
            n += 1;
        }
        while n > 0 && !above(n) {
            n -= 1;
        }
        n
    }

    /// N′ = min(N, T) for the uniform U whose first 63 bits are a's top bits (a even, U ∈ [a, a + 2)/2^64):
    /// from the table when it decides, else exactly from U's further bits (§8d, step 1).
    #[inline]
    fn first_stage<R: Rng + ?Sized>(&self, a: u64, rng: &mut R) -> usize {
        let hint = guide_key(a).map_or(T, |k| usize::from(self.guide[k]));
        let n = self.certain_count(a, hint);
        if n == T || self.hi[n + 1].saturating_add(self.slack) <= a {
            return n;
        }
        self.first_stage_exact(a, n, rng)
    }

    /// The exact count: thresholds 1..=`certain` are above U; the next ones are compared with U exactly, U's
    /// bits drawn 64 at a time (the same U: its first 63 bits are a's).
    #[cold]
    fn first_stage_exact<R: Rng + ?Sized>(&self, a: u64, certain: usize, rng: &mut R) -> usize {
        let mut known = BigUint::from(a >> 1);
        let mut bits = 63u32;
        let mut n = certain;
        while n < T {
            let z = (n as u128 + 1) << C_LOG2;
            loop {
                let (lo, hi) = exp_neg_bounds(z, u128::from(self.mantissa_of_thresholds()), bits);
                if known < lo {
                    break;
                }
                if known >= hi {
                    return n;
                }
                known = (known << 64u32) + rng.next_u64();
                bits += 64;
            }
            n += 1;
        }
        T
    }

    fn mantissa_of_thresholds(&self) -> u64 {
        #[cfg(test)]
        if let Some(m) = WRONG_THRESHOLDS.with(|w| w.get()) {
            return m;
        }
        self.mantissa
    }

    /// N with P(N ≥ n) = ρ^n, given the first word's top 63 bits.
    #[inline]
    fn blocks<R: Rng + ?Sized>(&self, a: u64, rng: &mut R) -> u128 {
        let mut total = 0u128;
        let mut n = self.first_stage(a, rng);
        while n == T {
            total += T as u128;
            n = self.first_stage(rng.next_u64() & !1, rng);
        }
        total + n as u128
    }

    /// Bernoulli(c), c = 2^46/m_b, on one word when it decides (§8d, step 2).
    #[inline]
    fn coin_c<R: Rng + ?Sized>(&self, rng: &mut R) -> bool {
        let u = rng.next_u64();
        if u >= self.coin_above.saturating_add(self.slack) {
            return false;
        }
        if u.saturating_add(1 + self.slack) <= self.coin_below {
            return true;
        }
        self.coin_c_exact(u, rng)
    }

    /// [`BlockTable::coin_c`] when the word u does not decide (or `slack` says not to trust it).
    #[cold]
    fn coin_c_exact<R: Rng + ?Sized>(&self, u: u64, rng: &mut R) -> bool {
        let (target, d, u) = (1u128 << (C_LOG2 + 64), u128::from(self.mantissa), u128::from(u));
        // U = (u + U′)/2^64 < 2^46/m_b iff U′ < (2^110 − u·m_b)/m_b.
        let gap = target as i128 - (u * d) as i128;
        if gap <= 0 {
            false
        } else if gap as u128 >= d {
            true
        } else {
            bernoulli_ratio(gap as u128, d, rng)
        }
    }

    /// Whether the proposal V (first word `head`) is kept, with probability e^{−cV}: CKS20 Algorithm 1 with the
    /// coin A_k = Bernoulli(1/k) ∧ Bernoulli(c) ∧ Bernoulli(V), kept iff the first k with A_k = 0 is odd.
    /// Bernoulli(1/1) draws nothing, so the first step is one coin of c (< 2^-6), on one word when it decides;
    /// only when it succeeds is V made a lazy uniform (returned, with the digits the comparisons drew).
    #[inline]
    fn keep(&self, head: u64, rng: &mut (impl Rng + ?Sized)) -> Result<(), Option<LazyUniform>> {
        if !self.coin_c(rng) {
            return Ok(());
        }
        self.keep_after_first_coin(head, rng)
    }

    #[cold]
    fn keep_after_first_coin<R: Rng + ?Sized>(&self, head: u64, rng: &mut R) -> Result<(), Option<LazyUniform>> {
        let mut v = LazyUniform { head, tail: Vec::new() };
        if !less(&mut LazyUniform::new(rng), &mut v, rng) {
            return Err(Some(v));
        }
        let mut k: u128 = 2;
        while bernoulli_ratio(1, k, rng) && self.coin_c(rng) && less(&mut LazyUniform::new(rng), &mut v, rng) {
            k += 1;
        }
        if k % 2 == 1 { Err(Some(v)) } else { Err(None) }
    }

    /// The cell offset from n₀ (signed) for the grid with j = 46 − q, given x̄/h + ½ = n₀ + φ.
    #[inline]
    pub(crate) fn sample_offset<R: Rng + ?Sized>(&self, phi: Fraction, j: u32, rng: &mut R) -> i128 {
        debug_assert!(j <= 14);
        let first = rng.next_u64();
        let negative = first & 1 == 1;
        let n = self.blocks(first & !1, rng);
        let theta = Theta::new(phi, negative);
        // V ∈ [0, 1) with density ∝ e^{−cv}: proposals kept with probability e^{−cV}. Sign +: one cell more
        // iff frac(B·V) ≥ 1 − φ; sign −: iff frac(B·V) > φ (equality has probability 0).
        let (head, below) = loop {
            let head = rng.next_u64();
            match self.keep(head, rng) {
                Ok(()) => break (head, frac_below_head(head, j, &theta, self.slack, rng)),
                Err(Some(mut v)) => break (head, frac_below(&mut v, j, &theta, self.slack, rng)),
                Err(None) => {}
            }
        };
        let whole = if j == 0 { 0 } else { u128::from(head >> (64 - j)) };
        let offset = ((n << j) + whole + u128::from(!below)) as i128;
        if negative { -offset } else { offset }
    }
}

#[cfg(test)]
thread_local! {
    /// The negative control's wrong thresholds, for the exact path too.
    static WRONG_THRESHOLDS: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// θ = 1 − φ (sign +) or φ (sign −), with ⌊θ·2^64⌋ and whether that is θ exactly.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Theta {
    phi: Fraction,
    complement: bool,
    top: u128,
    exact: bool,
}

impl Theta {
    #[inline]
    pub(crate) fn new(phi: Fraction, negative: bool) -> Self {
        let (p, exact) = match phi {
            Fraction::Dyadic { r, bits } if bits <= 64 => (r << (64 - bits), true),
            Fraction::Dyadic { r, bits } => (r >> (bits - 64), r & ((1u128 << (bits - 64)) - 1) == 0),
            Fraction::NearHalf { m, .. } => (if m < 0 { (1u128 << 63) - 1 } else { 1u128 << 63 }, m == 0),
        };
        let top = if negative {
            p
        } else if exact {
            (1u128 << 64) - p
        } else {
            (1u128 << 64) - p - 1
        };
        Theta { phi, complement: !negative, top, exact }
    }

    /// θ = num/2^bits exactly.
    fn exact_value(&self) -> (BigInt, u32) {
        let (num, bits) = match self.phi {
            Fraction::Dyadic { r, bits } => (BigInt::from(r), bits),
            Fraction::NearHalf { m, shift } => ((BigInt::from(1u8) << (shift - 1)) + m, shift),
        };
        if self.complement { ((BigInt::from(1u8) << bits) - num, bits) } else { (num, bits) }
    }
}

/// frac(2^j·V) < θ, exactly: from V's first word when it decides, else from as many more of V's words as needed.
#[inline]
pub(crate) fn frac_below<R: Rng + ?Sized>(v: &mut LazyUniform, j: u32, theta: &Theta, slack: u64, rng: &mut R) -> bool {
    match frac_below_decided(v.head, j, theta, slack) {
        Some(below) => below,
        None => frac_below_exact(v, j, theta, rng),
    }
}

/// [`frac_below`] for a V of which only the first word `head` is known yet.
#[inline]
fn frac_below_head<R: Rng + ?Sized>(head: u64, j: u32, theta: &Theta, slack: u64, rng: &mut R) -> bool {
    match frac_below_decided(head, j, theta, slack) {
        Some(below) => below,
        None => frac_below_exact(&mut LazyUniform { head, tail: Vec::new() }, j, theta, rng),
    }
}

/// The answer when V's first word decides it: frac(2^j·V) ∈ [f, f + 2^j)/2^64 with f = head·2^j mod 2^64.
#[inline]
fn frac_below_decided(head: u64, j: u32, theta: &Theta, slack: u64) -> Option<bool> {
    let f = u128::from(head << j);
    let slack = u128::from(slack);
    if f + (1u128 << j) + slack <= theta.top {
        Some(true)
    } else if f >= theta.top + u128::from(!theta.exact) + slack {
        Some(false)
    } else {
        None
    }
}

/// [`frac_below`] in big integers: with p known digits of frac(2^j·V) = F/2^p + (< 2^-p) and θ = Θ/2^bits,
/// true once (F + 1)·2^bits ≤ Θ·2^p, false once F·2^bits ≥ Θ·2^p, else 64 more digits of V.
#[cold]
#[inline(never)]
pub(crate) fn frac_below_exact<R: Rng + ?Sized>(v: &mut LazyUniform, j: u32, theta: &Theta, rng: &mut R) -> bool {
    let (num, bits) = theta.exact_value();
    loop {
        let p = 64 * v.words() as u32 - j;
        let known = v.known();
        let f = &known - ((&known >> p) << p);
        let scaled = &num << p;
        if (&f + 1u8) << bits <= scaled {
            return true;
        }
        if f << bits >= scaled {
            return false;
        }
        v.extend(rng);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::rng::seeded_rng_for_experiments;
    use crate::sample::rounded_laplace::{RoundedLaplace, split_at_grid};

    #[test]
    fn exp_bounds_are_tight_and_contain_the_value() {
        for &(num, den) in &[(0u128, 1u128), (1, 1), (1, 3), (5, 2), (1u128 << 46, (1u128 << 52) + 12345), (64, 1)] {
            for &prec in &[20u32, 64, 128, 300] {
                let (lo, hi) = exp_neg_bounds(num, den, prec);
                assert!(lo <= hi && &hi - &lo <= BigUint::from(4u8), "{num}/{den} at {prec}");
                // Nested across precisions: the bounds at prec + 64, scaled down, stay inside those at prec (±4).
                let (lo2, hi2) = exp_neg_bounds(num, den, prec + 64);
                assert!((&lo2 >> 64u32) + 4u8 >= lo && (&hi2 >> 64u32) <= &hi + 4u8);
                if prec == 64 {
                    let f = (-(num as f64) / den as f64).exp() * 2f64.powi(64);
                    let (l, h) = (lo.to_string().parse::<f64>().unwrap(), hi.to_string().parse::<f64>().unwrap());
                    assert!(l <= f * (1.0 + 1e-14) && f <= h * (1.0 + 1e-14), "{num}/{den}: {l} {f} {h}");
                }
            }
        }
        // e^{−1}·2^64 = 0x5e2d58d8b3bcdf1a.bd…: the bounds hold the known digits.
        let (lo, hi) = exp_neg_bounds(1, 1, 64);
        assert!(lo <= BigUint::from(0x5e2d_58d8_b3bc_df1au64) && BigUint::from(0x5e2d_58d8_b3bc_df1bu64) <= hi);
    }

    #[test]
    fn tables_bound_the_powers() {
        let m = (1u64 << 52) + 987_654_321;
        let t = BlockTable::build(m, m, 0);
        let c = 2f64.powi(46) / m as f64;
        for n in 1..=T {
            assert!(t.lo[n] <= t.hi[n] && t.hi[n] - t.lo[n] <= 2, "n = {n}");
            assert!(t.lo[n] <= t.lo[n - 1]);
            let f = (-(n as f64) * c).exp() * 2f64.powi(64);
            assert!(((t.lo[n] as f64) - f).abs() <= f * 1e-12 + 2.0, "n = {n}: {} {f}", t.lo[n]);
        }
        // The guide is a hint: counts from it equal binary-search counts.
        let mut rng = seeded_rng_for_experiments(4);
        for _ in 0..100_000 {
            let a = rng.next_u64() >> (rng.next_u64() % 50) & !1;
            let exact = t.lo[1..].partition_point(|&l| l > a + 1);
            let hint = guide_key(a).map_or(T, |k| usize::from(t.guide[k]));
            assert_eq!(t.certain_count(a, hint), exact);
            assert!(a < 1 << GUIDE_FLOOR_LOG2 || hint.abs_diff(exact) <= 3, "a = {a}: hint {hint}, count {exact}");
        }
    }

    /// The cell offset as a deterministic function of (sign, N, V's words, φ), against ⌊φ ± B(N + V)⌋ in exact
    /// integers, with φ in every branch and V's digits near the boundary (the slow comparison forced too).
    #[test]
    fn the_offset_is_the_floor_of_the_exact_sum() {
        let mut rng = seeded_rng_for_experiments(8);
        let fractions = [
            Fraction::Dyadic { r: 1, bits: 1 },
            Fraction::Dyadic { r: 0, bits: 5 },
            Fraction::Dyadic { r: 3, bits: 3 },
            Fraction::Dyadic { r: (1u128 << 100) + 12345, bits: 110 },
            Fraction::Dyadic { r: (1u128 << 120) - 1, bits: 120 },
            Fraction::NearHalf { m: 77, shift: 400 },
            Fraction::NearHalf { m: -3, shift: 130 },
            Fraction::NearHalf { m: 0, shift: 500 },
        ];
        for phi in fractions {
            for j in [0u32, 1, 14] {
                for negative in [false, true] {
                    let theta = Theta::new(phi, negative);
                    let (tn, tb) = theta.exact_value();
                    for trial in 0..300 {
                        // V's digits: random, or θ's own first digits (shifted into place) so the slow path runs.
                        let mut v = LazyUniform::new(&mut rng);
                        if trial % 3 == 0 {
                            let t = theta.top.min(u128::from(u64::MAX)) as u64;
                            let high = if j == 0 { 0 } else { v.head >> (64 - j) << (64 - j) };
                            v.head = high | (t >> j);
                        }
                        let fast = frac_below(&mut v.clone(), j, &theta, 0, &mut seeded_rng_for_experiments(trial));
                        let mut w = v.clone();
                        let slow = frac_below_exact(&mut w, j, &theta, &mut seeded_rng_for_experiments(trial));
                        // Reference: frac(2^j V) < θ from w's digits (enough of them were drawn to decide).
                        let p = 64 * w.words() as u32 - j;
                        let known = w.known();
                        let f = &known - ((&known >> p) << p);
                        let below = ((&f + 1u8) << tb) <= (&tn << p);
                        let above = (f << tb) >= (&tn << p);
                        assert!(below != above, "undecided reference");
                        assert_eq!(slow, below);
                        assert_eq!(fast, slow, "φ = {phi:?}, j = {j}, negative = {negative}");
                    }
                }
            }
        }
    }

    /// The exact law of the cell offset c − n₀, binned: bins of offsets [a, b) with edges ±{1, 3, 10, 25, 50,
    /// 90, 150, 250, 400, 600}·`unit` and 0, and the two tails. c − n₀ < d iff L < (d − φ)h, so each bin's
    /// probability is a difference of the Laplace CDF (φ = x̄/h + ½ − n₀ in f64: far more exact than needed).
    fn bins(law: &RoundedLaplace, x: f64, unit: i128) -> (i128, Vec<(i128, i128)>, Vec<f64>) {
        let x = x.clamp(-law.clamp(), law.clamp());
        let (n0, _) = split_at_grid(x, law.grid_log2());
        let h = law.spacing();
        let phi = x / h + 0.5 - n0 as f64;
        let cdf = |d: i128| {
            let y = (d as f64 - phi) * h / law.scale();
            if y < 0.0 { 0.5 * y.exp() } else { 1.0 + -0.5 * (-y).exp() }
        };
        let mut cuts: Vec<i128> = [600, 400, 250, 150, 90, 50, 25, 10, 3, 1].iter().map(|&e| -e * unit).collect();
        cuts.push(0);
        cuts.extend([1, 3, 10, 25, 50, 90, 150, 250, 400, 600].iter().map(|&e| e * unit));
        let mut edges = vec![(i128::MIN, cuts[0])];
        edges.extend(cuts.windows(2).map(|w| (w[0], w[1])));
        edges.push((cuts[cuts.len() - 1], i128::MAX));
        let probs = edges
            .iter()
            .map(|&(a, b)| {
                let lo = if a == i128::MIN { 0.0 } else { cdf(a) };
                let hi = if b == i128::MAX { 1.0 } else { cdf(b) };
                hi - lo
            })
            .collect();
        (n0, edges, probs)
    }

    /// KL(p̂‖p) of the binned sample against the exact bins, and the method-of-types critical value:
    /// P(KL(p̂‖p) ≥ t) ≤ (n + 1)^k·e^{−nt} for any law on k bins (Csiszár), so t = (k·ln(n + 1) + ln(1/α))/n
    /// has false failure ≤ α. The reference bins are computed in f64 (relative error far below 10^-9), which
    /// moves KL by less than 10^-8; that slack is added to t.
    fn kl_and_threshold(cells: &[i128], n0: i128, edges: &[(i128, i128)], probs: &[f64], alpha: f64) -> (f64, f64) {
        let mut counts = vec![0usize; edges.len()];
        for &c in cells {
            let d = c - n0;
            let i = edges.partition_point(|&(_, b)| b <= d);
            counts[i] += 1;
        }
        let n = cells.len() as f64;
        let kl = counts
            .iter()
            .zip(probs)
            .filter(|(k, _)| **k > 0)
            .map(|(&k, &p)| {
                let q = k as f64 / n;
                q * (q / p).ln()
            })
            .sum::<f64>();
        let k = edges.len() as f64;
        (kl, (k * (n + 1.0).ln() + (1.0 / alpha).ln()) / n + 1e-8)
    }

    /// The cells of the table sampler against the exact law, at α = 3·10^-8 per check (26 checks: false
    /// failure < 10^-6): on the grid q = 46 (h = 2^-6·2^⌊log₂ b⌋, blocks of one cell) and on the default grid
    /// (q = 32, blocks of 2^14 cells), inputs in every branch of φ, with the tables as released and with every
    /// fast decision widened so that most draws finish on the exact paths (the mixture of §8d). Negative
    /// controls: the thresholds of a scale 10 % off, and the draws of an input moved by 40 cells, are refused by
    /// the same check.
    #[test]
    fn table_cells_follow_the_exact_law() {
        let n = 400_000;
        let alpha = 3e-8;
        let mut rng = seeded_rng_for_experiments(36);
        for &b in &[1.0, 0.7] {
            let (m, e) = crate::sample::rounded_laplace::decompose(b);
            let m = m as u64;
            for (k, unit) in [(e + 52 - 6, 1i128), (RoundedLaplace::default_grid_log2(b), 1 << 14)] {
                let law = RoundedLaplace::new(b, k).unwrap();
                let h = law.spacing();
                for &x in &[0.0, 0.3 * h, -0.375 * h, (0.5 - 2f64.powi(-30)) * h, 1e-300, 123.456] {
                    let (n0, edges, probs) = bins(&law, x, unit);
                    let cells: Vec<i128> = (0..n).map(|_| law.sample_cell(x, &mut rng)).collect();
                    let (kl, t) = kl_and_threshold(&cells, n0, &edges, &probs, alpha);
                    assert!(kl < t, "b = {b}, h = 2^{k}, x = {x}: KL {kl} >= {t}");
                }
            }
            let law = RoundedLaplace::new(b, e + 52 - 6).unwrap();
            let h = law.spacing();
            let x = 0.3 * h;
            let (n0, phi) = split_at_grid(x, law.grid_log2());
            let (_, edges, probs) = bins(&law, x, 1);
            // Forced exact paths: slack 2^55 sends about half of the first stages, and the coins' undecided
            // draws, to the exact comparisons.
            let wide = BlockTable::build(m, m, 1 << 55);
            let cells: Vec<i128> = (0..100_000).map(|_| n0 + wide.sample_offset(phi, 0, &mut rng)).collect();
            let (kl, t) = kl_and_threshold(&cells, n0, &edges, &probs, alpha);
            assert!(kl < t, "b = {b}, forced exact paths: KL {kl} >= {t}");
            // Negative control: thresholds of m·1.1 (ρ of a scale 10 % smaller), exact path included.
            let wrong_m = (m + m / 10).min((1 << 53) - 1);
            let wrong = BlockTable::build(m, wrong_m, 0);
            WRONG_THRESHOLDS.with(|w| w.set(Some(wrong_m)));
            let cells: Vec<i128> = (0..n).map(|_| n0 + wrong.sample_offset(phi, 0, &mut rng)).collect();
            WRONG_THRESHOLDS.with(|w| w.set(None));
            let (kl, t) = kl_and_threshold(&cells, n0, &edges, &probs, alpha);
            assert!(kl > t, "b = {b}, wrong table: KL {kl} <= {t}");
            // Negative control: the input moved by 40 cells.
            let cells: Vec<i128> = (0..n).map(|_| law.sample_cell(x + 40.0 * h, &mut rng)).collect();
            let (kl, t) = kl_and_threshold(&cells, n0, &edges, &probs, alpha);
            assert!(kl > t, "b = {b}, moved input: KL {kl} <= {t}");
        }
    }
}
