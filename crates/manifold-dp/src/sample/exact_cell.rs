//! The pieces the exact rounded releases share (`docs/proofs/float_safety.md` §8b, §8c): a uniform number
//! whose binary digits are drawn lazily, exact comparisons of such numbers, von Neumann's descending runs
//! (Bernoulli(e^{−g(y)}) without any float), and the cell of x̄ + S·s·T on the public grid of a
//! [`ScaledGrid`], decided in integers from finitely many digits of T.
//!
//! T is a *lazy magnitude* T = (W + U)/d with integers W ≥ 0, d ≥ 1 and U a lazy uniform: the Gaussian's
//! K + U (d = 1) and the generalized Gaussian's U (W = 0, d = 1) and 1 + (J + V)/N (W = N + J, d = N).

use crate::sample::rounded_laplace::{Fraction, ScaledGrid, split_at_grid};
use num_bigint::BigInt;
use rand::Rng;

/// Above this whole part the cell is found in big integers (the i128 fast path needs (W + 1)·2^118 < 2^126).
const FAST_WHOLE_LIMIT: u64 = 255;

/// A uniform number U ∈ [0, 1) of which the first 64·w binary digits (w ≥ 1 words, most significant first)
/// are known; more are drawn, 64 at a time, only when a comparison or the cell needs them. No cap on w: a cap
/// would change the law.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LazyUniform {
    pub(crate) head: u64,
    pub(crate) tail: Vec<u64>,
}

impl LazyUniform {
    #[inline]
    pub(crate) fn new<R: Rng + ?Sized>(rng: &mut R) -> Self {
        LazyUniform { head: rng.next_u64(), tail: Vec::new() }
    }

    /// The number of words known.
    #[inline]
    pub(crate) fn words(&self) -> usize {
        1 + self.tail.len()
    }

    /// Word i (bits 64i + 1 … 64i + 64 after the binary point), drawn now if not yet known.
    #[inline]
    pub(crate) fn word<R: Rng + ?Sized>(&mut self, i: usize, rng: &mut R) -> u64 {
        if i == 0 {
            return self.head;
        }
        while self.tail.len() < i {
            self.tail.push(rng.next_u64());
        }
        self.tail[i - 1]
    }

    /// Draws the next 64 bits.
    pub(crate) fn extend<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        self.tail.push(rng.next_u64());
    }

    /// The known words as one integer A: U ∈ [A/2^(64w), (A + 1)/2^(64w)).
    pub(crate) fn known(&self) -> BigInt {
        let mut a = BigInt::from(self.head);
        for &w in &self.tail {
            a = (a << 64u32) + w;
        }
        a
    }

    /// U ≈ the first word as an f64 (tests compare f64 values with exact CDFs; the law moves by < 2^-53).
    #[cfg(test)]
    pub(crate) fn approx(&self) -> f64 {
        (self.head >> 11) as f64 * 2f64.powi(-53)
    }
}

/// z < y for two independent lazy uniforms, exactly: the first differing word decides, and words are drawn
/// (from both) until one differs; equal forever has probability 0, so this ends with probability 1 (§8b
/// Lemma 0).
#[inline]
pub(crate) fn less<R: Rng + ?Sized>(z: &mut LazyUniform, y: &mut LazyUniform, rng: &mut R) -> bool {
    let mut i = 0;
    loop {
        let (a, b) = (z.word(i, rng), y.word(i, rng));
        if a != b {
            return a < b;
        }
        i += 1;
    }
}

/// Von Neumann's descending run from y₀ (§8b Lemma 1): draw z₁, z₂, … while y₀ > z₁ > z₂ > ⋯ and the coin
/// `step`(z_i) succeeds; true iff the number n of successful steps is even. With `step` a coin of probability
/// g′(z) (g nondecreasing, g(0) = 0, g′ ≤ 1), P(n even) = e^{−g(y₀)}; with `step` always true, e^{−y₀}. The
/// digits of y₀ read here are y₀'s own (it is refined in place).
#[inline]
pub(crate) fn descending_run_is_even<R: Rng + ?Sized>(
    y0: &mut LazyUniform,
    rng: &mut R,
    mut step: impl FnMut(&mut LazyUniform, &mut R) -> bool,
) -> bool {
    let mut z = LazyUniform::new(rng);
    if !less(&mut z, y0, rng) || !step(&mut z, rng) {
        return true;
    }
    let mut y = z;
    let mut even = false;
    loop {
        let mut z = LazyUniform::new(rng);
        if !less(&mut z, &mut y, rng) || !step(&mut z, rng) {
            return even;
        }
        y = z;
        even = !even;
    }
}

/// A magnitude T = (W + U)/d ≥ 0 with W = `whole`, d = `divisor` ≥ 1 and U a lazy uniform: with U known to
/// j = 64w digits, U ∈ [A/2^j, (A + 1)/2^j), T lies in [L/M, (L + 1)/M) with L = W·2^j + A and M = d·2^j.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LazyMagnitude {
    pub(crate) whole: u64,
    pub(crate) divisor: u64,
    pub(crate) fraction: LazyUniform,
}

/// Where x̄ sits against the grid and the sign of the noise: everything the cell needs but the magnitude.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CellQuery {
    /// x̄/h + ½ = n₀ + φ.
    pub(crate) n0: i128,
    pub(crate) phi: Fraction,
    pub(crate) negative: bool,
}

impl CellQuery {
    /// The query of x̄ = clamp(x, ±clamp) with noise sign `negative` on `grid`.
    pub(crate) fn new(grid: &ScaledGrid, x: f64, negative: bool) -> Self {
        // |x̄/h| ≤ 2^100·scale/h ≤ 2^121.
        let (n0, phi) = split_at_grid(x.clamp(-grid.clamp, grid.clamp), grid.grid_log2);
        CellQuery { n0, phi, negative }
    }
}

/// φ exactly as num/2^bits (num ≥ 0).
fn phi_exact(phi: Fraction) -> (BigInt, u32) {
    match phi {
        Fraction::Dyadic { r, bits } => (BigInt::from(r), bits),
        Fraction::NearHalf { m, shift } => ((BigInt::from(1u8) << (shift - 1)) + m, shift),
    }
}

/// The cell c = ⌊x̄/h + ½ + S·(s/h)·T⌋ of x̄ + S·s·T for a sign S = ± (`negative`) and a lazy magnitude T,
/// drawing further digits of T's uniform while those known leave the cell undecided (§8b Lemma 3, §8c).
/// Returns the cell and the number of 64-bit extensions drawn (for the measurements; almost always 0).
/// Nothing here is drawn unless a cell boundary falls strictly inside the interval T's known digits leave.
pub(crate) fn settle_cell<R: Rng + ?Sized>(
    grid: &ScaledGrid,
    x: f64,
    negative: bool,
    magnitude: &mut LazyMagnitude,
    rng: &mut R,
) -> (i128, u32) {
    let query = CellQuery::new(grid, x, negative);
    let mut extensions = 0;
    loop {
        if let Some(c) = decide(grid, &query, magnitude) {
            return (c, extensions);
        }
        magnitude.fraction.extend(rng);
        extensions += 1;
    }
}

/// The cell if every T in the interval its known digits leave gives it (up to a null set), else None.
pub(crate) fn decide(grid: &ScaledGrid, query: &CellQuery, t: &LazyMagnitude) -> Option<i128> {
    if t.divisor == 1 && t.fraction.words() == 1 && t.whole < FAST_WHOLE_LIMIT {
        decide_fast(grid, query, t.whole, t.fraction.head)
    } else {
        decide_big(grid, query, t)
    }
}

/// The cell in integers for T ∈ [L/M, (L + 1)/M), L = W·2^j + A, M = d·2^j (§8b Lemma 3, §8c).
///
/// With t = k_grid − e_s (s/h = m_s/2^t, 32 ≤ t ≤ 60), the noise term S·(s/h)·T of
/// c = n₀ + ⌊φ + S·(s/h)·T⌋ runs over an interval whose ends are multiples of G = 1/(d·2^(t+j)), and so are the
/// cell boundaries (the integers, 1/G being an integer). Replacing φ by φ̃ = (⌊φ/G⌋ + ½·[φ/G ∉ ℤ])·G changes
/// neither the floor at the lower end nor whether an integer lies strictly inside, so everything is an
/// integer over Q = 2/G: P_lo and P_lo + 2m_s for the two ends, and the cell is decided iff
/// (P_lo mod Q) + 2m_s ≤ Q.
pub(crate) fn decide_big(grid: &ScaledGrid, query: &CellQuery, t: &LazyMagnitude) -> Option<i128> {
    let j = 64 * t.fraction.words() as u32;
    let d = (grid.grid_log2 - grid.exponent) as u32 + j;
    let divisor = BigInt::from(t.divisor);
    let phi = match query.phi {
        // A tiny x̄: φ = ½ + m·2^-shift and φ/G = d·2^(D−1) + m·d·2^(D−shift), the last term of size
        // < 2^(53+64+D−shift) ≤ ½ and 0 iff m = 0. Settled without forming 2^shift, so the work does not grow
        // as x̄ shrinks (no timing difference among tiny inputs, shift up to ~2000).
        Fraction::NearHalf { m, shift } if shift > d + 117 => {
            (((&divisor << (d - 1)) - u8::from(m < 0)) << 1u32) + u8::from(m != 0)
        }
        phi => {
            let (num, bits) = phi_exact(phi);
            // φ/G = num·d·2^D/2^bits with D = t + j: its floor and whether it is an integer.
            let scaled = num * &divisor;
            if bits <= d {
                scaled << (d + 1 - bits)
            } else {
                let q = bits - d;
                let floor = &scaled >> q;
                let sticky = scaled != (&floor << q);
                (floor << 1u32) + u8::from(sticky)
            }
        }
    };
    let width = BigInt::from(2 * grid.mantissa);
    let low = &width * ((BigInt::from(t.whole) << j) + t.fraction.known());
    let p_lo = if query.negative { phi - low - &width } else { phi + low };
    let modulus = divisor << (d + 1);
    // Floor division (BigInt's / truncates towards 0).
    let (mut offset, mut rem) = (&p_lo / &modulus, &p_lo % &modulus);
    if rem < BigInt::from(0u8) {
        offset -= 1u8;
        rem += &modulus;
    }
    if rem + width > modulus {
        return None;
    }
    // |offset| ≤ (s/h)·T + 1 < 2^21·(W + 2) + 1 with W < 2^64.
    let offset = i128::try_from(offset).expect("the cell offset is below 2^86");
    Some(query.n0 + offset)
}

/// [`decide_big`] in i128 for d = 1, one word of U (j = 64, D + 1 ≤ 125) and W < 255:
/// φ̃ < 2^125 and 2m_s(W·2^64 + A + 1) ≤ 2^54·2^72 = 2^126, so every sum fits.
pub(crate) fn decide_fast(grid: &ScaledGrid, query: &CellQuery, whole: u64, a: u64) -> Option<i128> {
    let d = (grid.grid_log2 - grid.exponent) as u32 + 64;
    let d1 = d + 1;
    let phi: i128 = match query.phi {
        Fraction::Dyadic { r, bits } => {
            let r = r as i128;
            if bits <= d {
                r << (d1 - bits)
            } else {
                let q = bits - d;
                2 * (r >> q) + i128::from(r & ((1 << q) - 1) != 0)
            }
        }
        Fraction::NearHalf { m, shift } => {
            let m = m as i128;
            if shift <= d {
                ((1i128 << (shift - 1)) + m) << (d1 - shift)
            } else {
                // ⌊2^D φ⌋ = 2^(D−1) + ⌊m/2^q⌋ with |m| < 2^53; the rest is nonzero iff m mod 2^q is.
                let q = shift - d;
                let (floor, sticky) =
                    if q >= 64 { (if m < 0 { -1 } else { 0 }, m != 0) } else { (m >> q, m & ((1 << q) - 1) != 0) };
                2 * ((1i128 << (d - 1)) + floor) + i128::from(sticky)
            }
        }
    };
    let width = 2 * grid.mantissa as i128;
    let low = width * (((whole as i128) << 64) + a as i128);
    let p_lo = if query.negative { phi - low - width } else { phi + low };
    let offset = p_lo >> d1;
    let rem = p_lo & ((1i128 << d1) - 1);
    (rem + width <= 1i128 << d1).then_some(query.n0 + offset)
}

/// What the exact samplers' tests share: a generator that counts its words, and the DKW check of a law of
/// cells.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::sample::rng::ReleaseRng;
    use rand::Rng;
    use std::convert::Infallible;

    /// A generator that counts the 64-bit words drawn (for the measurements).
    pub(crate) struct CountingRng<'a> {
        pub(crate) inner: &'a mut ReleaseRng,
        pub(crate) words: u64,
    }

    impl rand::TryRng for CountingRng<'_> {
        type Error = Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Infallible> {
            self.words += 1;
            Ok(self.inner.next_u32())
        }
        fn try_next_u64(&mut self) -> Result<u64, Infallible> {
            self.words += 1;
            Ok(self.inner.next_u64())
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
            self.words += dst.len().div_ceil(8) as u64;
            self.inner.fill_bytes(dst);
            Ok(())
        }
    }

    /// DKW (Massart): P(sup |F_n − F| > t) ≤ 2e^{−2nt²} for any law, discrete ones included; the t of level α.
    pub(crate) fn dkw_threshold(n: usize, alpha: f64) -> f64 {
        ((2.0 / alpha).ln() / (2.0 * n as f64)).sqrt()
    }

    /// sup_c |F_n(c) − F(c)| over the cells for the exact cell CDF `cdf` (F(c) = P(cell ≤ c)); `sample` is
    /// sorted here. Below the smallest and from the largest cell drawn on, the gap only shrinks.
    pub(crate) fn max_cell_cdf_gap(sample: &mut [i128], cdf: impl Fn(i128) -> f64) -> f64 {
        sample.sort_unstable();
        let n = sample.len() as f64;
        let (lo, hi) = (sample[0] - 1, sample[sample.len() - 1]);
        let mut gap: f64 = 0.0;
        let mut below = 0usize;
        for c in lo..=hi {
            while below < sample.len() && sample[below] <= c {
                below += 1;
            }
            gap = gap.max((below as f64 / n - cdf(c)).abs());
        }
        gap
    }
}
