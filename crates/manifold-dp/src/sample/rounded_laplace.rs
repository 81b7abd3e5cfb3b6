//! The Laplace release rounded onto a public grid, sampled exactly: the cell of x + L, L of density
//! e^{−|l|/b}/(2b), among the cells [(c − ½)h, (c + ½)h) of spacing h = 2^k, drawn with exact integer coins
//! (no floating-point noise is ever formed). The released value fl(c·h) is a function of the cell alone,
//! so it is post-processing of the exact Laplace mechanism and keeps its guarantee exactly
//! (`docs/proofs/float_safety.md` §8).
//!
//! With L = S·b·E (S = ±1 fair, E ~ Exp(1)) and x/h + ½ = n₀ + φ (n₀ integer, φ ∈ [0, 1)): for S = +1 the cell
//! is n₀ when E < (1 − φ)·w (w = h/b), else n₀ + 1 + G with P(G ≥ j) = e^{−jw} (memorylessness of E); for
//! S = −1 it is n₀ when E < φ·w, else n₀ − 1 − G. The cell is left with probability e^{−(1−φ)w} (S = +1),
//! drawn by CKS20's coin, which needs (1 − φ)w ≤ 1; on grids coarser than the noise (w up to 2^8) it is the
//! product of 2^p coins e^{−(1−φ)w/2^p} with w/2^p ≤ 1, so every allowed grid has the exact law.

use crate::error::Param;
use crate::error::{Error, Fallible};
use crate::sample::exact_coins::{
    bernoulli_dyadic, bernoulli_exp_neg_multiple, bernoulli_pow2, bernoulli_ratio, geometric_exp,
};
use crate::sample::laplace_blocks::{BlockTable, C_LOG2};
use rand::Rng;
use std::sync::Arc;

/// Scales b outside [2^-900, 2^900] are refused, so that every grid of spacing 2^(⌊log₂ b⌋ + j), −20 ≤ j ≤ 8,
/// and every released value are normal doubles.
const SCALE_LOG2_LIMIT: i32 = 900;

/// Inputs are clamped to |x| ≤ 2^100·b before the noise (a 1-Lipschitz map, so no neighbour moves apart);
/// beyond that the release would differ from the input by less than 10^-30 of it anyway.
const CLAMP_LOG2: i32 = 100;

/// A noise scale and the public grid of an exact rounded release (shared by [`RoundedLaplace`] and
/// [`crate::sample::rounded_gaussian::RoundedGaussian`]): the scale in exact binary form, the grid, the clamp.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ScaledGrid {
    pub(crate) scale: f64,
    /// scale = mantissa·2^exponent with 2^52 ≤ mantissa < 2^53.
    pub(crate) mantissa: u64,
    pub(crate) exponent: i32,
    pub(crate) grid_log2: i32,
    /// 2^100·scale: larger inputs are clamped to it before the noise.
    pub(crate) clamp: f64,
}

impl ScaledGrid {
    /// Checks that `scale` (called `name` in errors) is finite and in [2^-900, 2^900], and that the grid
    /// 2^`grid_log2` lies between 2^-20 and 2^8 times 2^⌊log₂ scale⌋.
    pub(crate) fn new(name: Param, scale: f64, grid_log2: i32) -> Fallible<Self> {
        if !(scale.is_finite() && scale > 0.0) {
            return Err(Error::InvalidParameter { name, value: scale, reason: "must be finite and > 0" });
        }
        let (mantissa, exponent) = decompose(scale);
        let top = exponent + 52;
        if top.abs() > SCALE_LOG2_LIMIT {
            return Err(Error::InvalidParameter {
                name,
                value: scale,
                reason: "is outside [2^-900, 2^900], where the exact float-safe release is proven",
            });
        }
        if !(top - 20..=top + 8).contains(&grid_log2) {
            return Err(Error::InvalidParameter {
                name: Param::Grid,
                value: grid_log2 as f64,
                reason: "must be a power of two between 2^-20 and 2^8 times the noise scale",
            });
        }
        let clamp = scale * 2f64.powi(CLAMP_LOG2);
        Ok(ScaledGrid { scale, mantissa: mantissa as u64, exponent, grid_log2, clamp })
    }

    /// The default grid: 2^(⌊log₂ scale⌋ − 20).
    pub(crate) fn default_grid_log2(scale: f64) -> i32 {
        decompose(scale).1 + 52 - 20
    }

    /// The grid spacing h = 2^k.
    pub(crate) fn spacing(&self) -> f64 {
        2f64.powi(self.grid_log2)
    }
}

/// The exact law of the Laplace release of scale b rounded to the nearest multiple of h = 2^k.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundedLaplace {
    grid: ScaledGrid,
    /// The tables of the block sampler (§8d), on grids with q = k − e_b ≤ 46 (the default among them); on the
    /// coarser grids every cell is drawn with the integer coins.
    blocks: Option<Arc<BlockTable>>,
    /// h = 2^k, the value [`RoundedLaplace::spacing`] returns.
    spacing: f64,
}

/// c as f64 (round to nearest), out of line so that the common i64 case keeps its hardware conversion.
#[inline(never)]
#[cold]
fn wide_to_f64(c: i128) -> f64 {
    c as f64
}

/// m and e with x = m·2^e exactly, |m| < 2^53 (x finite); −0 gives m = 0.
pub(crate) fn decompose(x: f64) -> (i64, i32) {
    let bits = x.to_bits();
    let sign = if bits >> 63 == 1 { -1 } else { 1 };
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = (bits & ((1 << 52) - 1)) as i64;
    if biased == 0 { (sign * fraction, -1074) } else { (sign * (fraction | 1 << 52), biased - 1075) }
}

/// φ = frac(x/h + ½), exactly.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fraction {
    /// φ = r/2^bits.
    Dyadic { r: u128, bits: u32 },
    /// φ = ½ + m·2^-shift, |m| < 2^53, shift ≥ 121 (x tiny against h).
    NearHalf { m: i64, shift: u32 },
}

impl Fraction {
    /// A fresh Bernoulli(φ) coin.
    fn coin<R: Rng + ?Sized>(self, rng: &mut R) -> bool {
        match self {
            Fraction::Dyadic { r, bits } => bernoulli_dyadic(r, bits, rng),
            Fraction::NearHalf { m, shift } => {
                // U < ½ + y with U uniform: the first bit of U halves the interval.
                // 2|y| = |m|·2^(1 − shift) = (|m|/2^53)·2^-(shift − 54), a product of two exact coins.
                let twice_y = |rng: &mut R| {
                    bernoulli_ratio(m.unsigned_abs() as u128, 1 << 53, rng) && bernoulli_pow2(shift - 54, rng)
                };
                if rng.next_u64() & 1 == 0 {
                    // U < ½: below ½ + y unless y < 0 and U lands in the last 2|y| of [0, ½).
                    m >= 0 || !twice_y(rng)
                } else {
                    m > 0 && twice_y(rng)
                }
            }
        }
    }
}

/// x/h + ½ = n₀ + φ exactly, with n₀ an integer and φ ∈ [0, 1), for h = 2^k and |x/h| < 2^121.
pub(crate) fn split_at_grid(x: f64, k: i32) -> (i128, Fraction) {
    let (m, e) = decompose(x);
    if e >= k {
        ((m as i128) << (e - k), Fraction::Dyadic { r: 1, bits: 1 })
    } else if k - e <= 120 {
        let bits = (k - e + 1) as u32;
        let n = 2 * m as i128 + (1i128 << (bits - 1));
        let n0 = n >> bits;
        (n0, Fraction::Dyadic { r: (n - (n0 << bits)) as u128, bits })
    } else {
        // |x/h| < 2^-68: x/h + ½ ∈ (0, 1).
        (0, Fraction::NearHalf { m, shift: (k - e) as u32 })
    }
}

impl RoundedLaplace {
    /// The law for scale `scale` = b ∈ [2^-900, 2^900] on the grid of spacing 2^`grid_log2`, which must lie
    /// between 2^-20·b and 2^8·b (the default grid, [`RoundedLaplace::default_grid_log2`], is 2^-20 of b).
    /// The cells have the exact law on every grid accepted, coarser than b included (`docs/proofs/float_safety.md`
    /// §8).
    pub fn new(scale: f64, grid_log2: i32) -> Fallible<Self> {
        let grid = ScaledGrid::new(Param::Scale, scale, grid_log2)?;
        let blocks = (grid_log2 - grid.exponent <= C_LOG2).then(|| BlockTable::shared(grid.mantissa));
        Ok(RoundedLaplace { spacing: grid.spacing(), grid, blocks })
    }

    /// The default grid for scale b: 2^(⌊log₂ b⌋ − 20), so rounding moves a release by at most 2^-21·b,
    /// under 10^-6 of its expected error b.
    pub fn default_grid_log2(scale: f64) -> i32 {
        ScaledGrid::default_grid_log2(scale)
    }

    /// The scale b.
    pub fn scale(&self) -> f64 {
        self.grid.scale
    }

    /// The grid spacing h = 2^k.
    pub fn spacing(&self) -> f64 {
        self.spacing
    }

    /// log₂ of the grid spacing.
    pub fn grid_log2(&self) -> i32 {
        self.grid.grid_log2
    }

    /// The largest |x| used as is; larger inputs are clamped to it before the noise.
    pub fn clamp(&self) -> f64 {
        self.grid.clamp
    }

    /// The cell index c = ⌊(x̄ + L)/h + ½⌋ of x̄ + L, x̄ = clamp(x, ±2^100·b), drawn exactly: the release is
    /// c·h. `x` must be finite. On grids h ≤ 2^-6·2^⌊log₂ b⌋ (the default among them) by the block tables, in
    /// about three random words (`docs/proofs/float_safety.md` §8d), else with the integer coins (§8).
    #[inline]
    pub fn sample_cell<R: Rng + ?Sized>(&self, x: f64, rng: &mut R) -> i128 {
        debug_assert!(x.is_finite());
        if let Some(blocks) = &self.blocks {
            let x = x.clamp(-self.grid.clamp, self.grid.clamp);
            let (n0, fraction) = split_at_grid(x, self.grid.grid_log2);
            let j = (C_LOG2 - (self.grid.grid_log2 - self.grid.exponent)) as u32;
            return n0 + blocks.sample_offset(fraction, j, rng);
        }
        self.sample_cell_by_coins(x, rng)
    }

    /// The same law as [`RoundedLaplace::sample_cell`], always drawn with the integer coins of §8 (about 25
    /// random words): the sampler of every grid before the table-driven sampler, kept for the coarse grids and as a reference.
    pub fn sample_cell_by_coins<R: Rng + ?Sized>(&self, x: f64, rng: &mut R) -> i128 {
        debug_assert!(x.is_finite());
        let x = x.clamp(-self.grid.clamp, self.grid.clamp);
        let k = self.grid.grid_log2;
        // |x/h| < 2^(101 + 20): n₀ is an i128, with room for the noise (G < 2^85).
        let (n0, fraction) = split_at_grid(x, k);
        // w = h/b = s/t = 2^q/m_b with 32 ≤ q = k − e_b ≤ 60 and 2^52 ≤ m_b < 2^53, so w ∈ (2^-21, 2^8].
        let q = (k - self.grid.exponent) as u32;
        let (s, t) = (1u128 << q, u128::from(self.grid.mantissa));
        // CKS20's coin needs (1 − φ)w ≤ 1: for w > 1 (h > b, never on the default grid) e^{−(1−φ)w} is the
        // product of 2^p coins e^{−(1−φ)w′}, w′ = w/2^p = 2^(q−p)/m_b ≤ 1 as 2^(q−p) ≤ 2^52 ≤ m_b. p = 0 when
        // q ≤ 52 (h ≤ 2^⌊log₂ b⌋, the default grid among them): one coin, the same draws as before.
        let p = q.saturating_sub(52);
        let w_part = |rng: &mut R| bernoulli_ratio(s >> p, t, rng);
        if rng.next_u64() & 1 == 0 {
            // S = +1: leaves the cell when E ≥ (1 − φ)w.
            if bernoulli_exp_neg_multiple(rng, 1 << p, |r| !fraction.coin(r) && w_part(r)) {
                n0 + 1 + geometric_exp(s, t, rng) as i128
            } else {
                n0
            }
        } else if bernoulli_exp_neg_multiple(rng, 1 << p, |r| fraction.coin(r) && w_part(r)) {
            n0 - 1 - geometric_exp(s, t, rng) as i128
        } else {
            n0
        }
    }

    /// One release: fl(c·h) for the exact cell c of x + L (a function of c alone).
    #[inline]
    pub fn sample_at<R: Rng + ?Sized>(&self, x: f64, rng: &mut R) -> f64 {
        let c = self.sample_cell(x, rng);
        // i64 → f64 rounds to nearest as i128 → f64 does (the same value), without the software conversion.
        let c = if let Ok(c) = i64::try_from(c) { c as f64 } else { wide_to_f64(c) };
        c * self.spacing
    }

    /// The exact probability (up to f64 evaluation) that the cell of x + L is c; for tests.
    pub fn cell_probability(&self, x: f64, c: i128) -> f64 {
        let h = self.spacing();
        let x = x.clamp(-self.grid.clamp, self.grid.clamp);
        // Offsets from x's own cell keep the arithmetic exact for large x.
        let own = (x / h).round();
        let (d, r) = ((c - own as i128) as f64, x - own * h);
        let cdf = |z: f64| {
            let u = (z - r) / self.grid.scale;
            if u < 0.0 { 0.5 * u.exp() } else { 1.0 - 0.5 * (-u).exp() }
        };
        cdf((d + 0.5) * h) - cdf((d - 0.5) * h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::exact_coins::{bernoulli_exp_neg, uniform_below};
    use crate::sample::rng::{ReleaseRng, seeded_rng_for_experiments};

    #[test]
    fn decomposes_exactly() {
        for &x in &[0.0, -0.0, 1.0, -3.5, 0.1, 5e-324, -2.2e-308, f64::MAX, 1e-300] {
            let (m, e) = decompose(x);
            assert_eq!(m as f64 * 2f64.powi(e), x, "{x}");
            assert!(m.unsigned_abs() < 1 << 53);
        }
    }

    #[test]
    fn refuses_scales_and_grids_outside_the_proof() {
        assert!(RoundedLaplace::new(0.0, 0).is_err());
        assert!(RoundedLaplace::new(f64::NAN, 0).is_err());
        assert!(RoundedLaplace::new(1e-300, -1020).is_err());
        assert!(RoundedLaplace::new(1.0, 9).is_err());
        assert!(RoundedLaplace::new(1.0, -21).is_err());
        assert!(RoundedLaplace::new(1.0, RoundedLaplace::default_grid_log2(1.0)).is_ok());
        assert_eq!(RoundedLaplace::default_grid_log2(1.0), -20);
        assert_eq!(RoundedLaplace::default_grid_log2(0.75), -21);
    }

    /// FNV-1a of the cells drawn, seed 21, for scales b across the allowed range, inputs in every branch of φ,
    /// on the default grid and on grids up to h = 2^⌊log₂ b⌋ ≤ b (w = h/b ≤ 1, where the coin for w is drawn
    /// directly). Pinned on the code before the coarse-grid fix, so these releases keep their bits.
    fn fingerprint_of_fine_grids() -> u64 {
        let mut rng = seeded_rng_for_experiments(21);
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in &[1.0, 0.7, 3.0, 1e-5, 2f64.powi(-900), 1e200] {
            let top = decompose(b).1 + 52;
            for k in [RoundedLaplace::default_grid_log2(b), top - 7, top] {
                let law = RoundedLaplace::new(b, k).unwrap();
                for &x in &[0.0, 0.3 * b, -7.25 * b, 1e-300, 1e6 * b, -f64::MAX] {
                    for _ in 0..200 {
                        for byte in law.sample_cell_by_coins(x, &mut rng).to_le_bytes() {
                            hash = (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
                        }
                    }
                }
            }
        }
        hash
    }

    /// FNV-1a of the table sampler's cells (§8d), seed 36, on the default grid and on the coarsest grid it
    /// serves (q = 46), for the scales and inputs of [`fingerprint_of_fine_grids`].
    fn fingerprint_of_table_cells() -> u64 {
        let mut rng = seeded_rng_for_experiments(36);
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in &[1.0, 0.7, 3.0, 1e-5, 2f64.powi(-900), 1e200] {
            let top = decompose(b).1 + 52;
            for k in [RoundedLaplace::default_grid_log2(b), top - 6] {
                let law = RoundedLaplace::new(b, k).unwrap();
                assert!(law.blocks.is_some());
                for &x in &[0.0, 0.3 * b, -7.25 * b, 1e-300, 1e6 * b, -f64::MAX] {
                    for _ in 0..200 {
                        for byte in law.sample_cell(x, &mut rng).to_le_bytes() {
                            hash = (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
                        }
                    }
                }
            }
        }
        hash
    }

    #[test]
    fn table_cells_keep_their_bits() {
        assert_eq!(fingerprint_of_table_cells(), 0x0895_71ba_0633_57c2);
    }

    #[test]
    fn fine_grids_keep_their_bits() {
        assert_eq!(fingerprint_of_fine_grids(), 0x5e12_b4d2_e0c9_1b40);
    }

    #[test]
    fn releases_are_multiples_of_the_spacing() {
        let law = RoundedLaplace::new(0.3, RoundedLaplace::default_grid_log2(0.3)).unwrap();
        let mut rng = seeded_rng_for_experiments(3);
        for &x in &[0.0, 1.0, -7.25, 1e-300, 123456.789, 1e40, -1e300] {
            for _ in 0..200 {
                let z = law.sample_at(x, &mut rng);
                let cells = z / law.spacing();
                assert!(z.is_finite() && cells == cells.round(), "{x} -> {z}");
            }
        }
        // Clamped: a huge input is released near the clamp, never at infinity.
        assert!(law.sample_at(1e300, &mut rng) <= law.clamp() * 1.0001);
    }

    /// DKW (Massart): P(sup_c |F_n(c) − F(c)| > t) ≤ 2e^{−2nt²} for any law, discrete ones included; at
    /// t = √(ln(2/α)/(2n)) with α = 1e-9 per check (fifteen checks: false failure < 2e-8).
    fn max_cdf_gap(law: &RoundedLaplace, x: f64, sample: &mut [i128]) -> f64 {
        sample.sort_unstable();
        let n = sample.len() as f64;
        let (lo, hi) = (sample[0] - 1, sample[sample.len() - 1]);
        let mut gap: f64 = 0.0;
        let mut below = 0usize;
        let mut exact = (lo - 200..=lo).map(|c| law.cell_probability(x, c)).sum::<f64>();
        for c in lo + 1..=hi {
            exact += law.cell_probability(x, c);
            while below < sample.len() && sample[below] <= c {
                below += 1;
            }
            gap = gap.max((below as f64 / n - exact).abs());
        }
        gap
    }

    #[test]
    fn cells_follow_the_exact_law() {
        let n = 100_000;
        let threshold = ((2.0f64 / 1e-9).ln() / (2.0 * n as f64)).sqrt();
        // A grid as coarse as the noise (h = b) makes every cell-level mistake visible.
        let law = RoundedLaplace::new(1.0, 0).unwrap();
        let mut rng = seeded_rng_for_experiments(11);
        for &x in &[0.0, 0.3, -0.49, 0.5, 1e-300, -1e-300, 7.75, 2f64.powi(53) + 2.0, -2f64.powi(40) - 0.25] {
            let mut cells: Vec<i128> = (0..n).map(|_| law.sample_cell(x, &mut rng)).collect();
            let gap = max_cdf_gap(&law, x, &mut cells);
            assert!(gap < threshold, "x = {x}: gap {gap} >= {threshold}");
        }
        // Negative controls: draws for x + h/2 and x + h/8 are refused as draws of x's law.
        for &(x, shift) in &[(0.3, 0.5), (0.0, 0.125)] {
            let mut cells: Vec<i128> = (0..n).map(|_| law.sample_cell(x + shift, &mut rng)).collect();
            let gap = max_cdf_gap(&law, x, &mut cells);
            assert!(gap > threshold, "control x = {x} + {shift}: gap {gap}");
        }
        // The default grid: the same law to within the DKW bound.
        let law = RoundedLaplace::new(0.7, RoundedLaplace::default_grid_log2(0.7)).unwrap();
        for &x in &[0.3, -1.0e6] {
            let mut cells: Vec<i128> = (0..n).map(|_| law.sample_cell(x, &mut rng)).collect();
            cells.sort_unstable();
            let h = law.spacing();
            let cdf = |z: f64| {
                let u = (z + 0.5 * h - x) / 0.7;
                if u < 0.0 { 0.5 * u.exp() } else { 1.0 - 0.5 * (-u).exp() }
            };
            let gap = (0..n)
                .step_by(97)
                .map(|i| {
                    let c = cells[i];
                    let below = cells.partition_point(|&d| d <= c);
                    (below as f64 / n as f64 - cdf(c as f64 * h)).abs()
                })
                .fold(0.0, f64::max);
            assert!(gap < threshold, "default grid, x = {x}: gap {gap}");
        }
    }

    /// The sampler before the coarse-grid fix, kept as the negative control of the coarse-grid test: its coin for w = h/b
    /// was uniform_below(t) < s, which is always true once w > 1, so the cell was left with probability
    /// e^{−(1−φ)·min(w, 1)} instead of e^{−(1−φ)w}.
    fn capped_coin_cell(law: &RoundedLaplace, x: f64, rng: &mut ReleaseRng) -> i128 {
        let x = x.clamp(-law.grid.clamp, law.grid.clamp);
        let (n0, fraction) = split_at_grid(x, law.grid.grid_log2);
        let s = 1u128 << (law.grid.grid_log2 - law.grid.exponent);
        let t = u128::from(law.grid.mantissa);
        let w = |rng: &mut ReleaseRng| uniform_below(t, rng) < s;
        if rng.next_u64() & 1 == 0 {
            if bernoulli_exp_neg(rng, |r| !fraction.coin(r) && w(r)) {
                n0 + 1 + geometric_exp(s, t, rng) as i128
            } else {
                n0
            }
        } else if bernoulli_exp_neg(rng, |r| fraction.coin(r) && w(r)) {
            n0 - 1 - geometric_exp(s, t, rng) as i128
        } else {
            n0
        }
    }

    /// Grids coarser than the noise (w = h/b = 2, 2^8, 8/3 and 2^7/0.7 ≈ 182.9, the last two not dyadic):
    /// the cells of inputs in every branch of φ (½; dyadic; just below a cell boundary, φ ≈ 1; on one, φ = 0;
    /// near ½) follow the exact law, e.g. P(cell 0 | x = 0) = 1 − e^{−1} at b = 1, h = 2. DKW at α = 10^-9 per
    /// check, 24 checks: false failure ≤ 2.4·10^-8. Negative control: the pre-issue-37 sampler, whose coin
    /// for w was capped at 1, is refused by the same check on every law.
    #[test]
    fn coarse_grids_follow_the_exact_law() {
        let n = 100_000;
        // The reference is evaluated in f64 (error far below 10^-12); the slack keeps the bound a true bound.
        let threshold = ((2.0f64 / 1e-9).ln() / (2.0 * n as f64)).sqrt() + 1e-9;
        let mut rng = seeded_rng_for_experiments(37);
        let reference = RoundedLaplace::new(1.0, 1).unwrap();
        assert!((reference.cell_probability(0.0, 0) - (1.0 - (-1.0f64).exp())).abs() < 1e-15);
        for &(b, k) in &[(1.0, 1), (1.0, 8), (3.0, 3), (0.7, 7)] {
            let law = RoundedLaplace::new(b, k).unwrap();
            let h = law.spacing();
            for &x in &[0.0, 0.15 * h, (0.5 - 2f64.powi(-30)) * h, 0.5 * h, -0.375 * h, 1e-300] {
                let mut cells: Vec<i128> = (0..n).map(|_| law.sample_cell(x, &mut rng)).collect();
                let gap = max_cdf_gap(&law, x, &mut cells);
                assert!(gap < threshold, "b = {b}, h = 2^{k}, x = {x}: gap {gap} >= {threshold}");
            }
            for &x in &[0.0, 0.15 * h] {
                let mut cells: Vec<i128> = (0..n).map(|_| capped_coin_cell(&law, x, &mut rng)).collect();
                let gap = max_cdf_gap(&law, x, &mut cells);
                assert!(gap > threshold, "control b = {b}, h = 2^{k}, x = {x}: gap {gap} <= {threshold}");
            }
        }
    }
}
