//! Walker's alias method (Vose's construction) over at most 256 outcomes, drawing the outcome and the
//! coin from one `u64`: the top 8 bits pick a column, the low 53 bits are an independent uniform on [0, 1).
//! Used where a sampler picks among a fixed table of envelope pieces millions of times.

use rand::Rng;

/// An alias table over outcomes `0..256`; outcome k has probability w_k / Σw.
#[derive(Debug, Clone)]
pub(crate) struct AliasTable {
    columns: Box<[Column; 256]>,
}

/// One column: kept when the 53-bit coin m < `threshold` (= ⌈keep·2⁵³⌉, the same event as m/2⁵³ < keep),
/// else it falls back to `alias`.
#[derive(Debug, Clone, Copy)]
struct Column {
    threshold: u64,
    alias: u8,
}

/// 2⁵³, the number of values of a column's coin.
const COIN: u64 = 1 << 53;

impl AliasTable {
    /// The table for 256 non-negative finite weights with a positive sum; `None` otherwise.
    pub(crate) fn new(weights: &[f64; 256]) -> Option<Self> {
        let total: f64 = weights.iter().sum();
        if !(total.is_finite() && total > 0.0) || weights.iter().any(|w| w.is_nan() || *w < 0.0) {
            return None;
        }
        let mut scaled: Vec<f64> = weights.iter().map(|w| w * 256.0 / total).collect();
        let mut keep = [1.0; 256];
        let mut alias: [u8; 256] = std::array::from_fn(|k| k as u8);
        let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..256).partition(|&k| scaled[k] < 1.0);
        while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            keep[s] = scaled[s];
            alias[s] = l as u8;
            scaled[l] = (scaled[l] + scaled[s]) - 1.0;
            if scaled[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // Whatever is left holds probability 1 up to rounding: keep[k] stays 1. A keep below 0 (rounding) keeps
        // nothing.
        let columns = Box::new(std::array::from_fn(|k| Column {
            threshold: (keep[k].clamp(0.0, 1.0) * COIN as f64).ceil() as u64,
            alias: alias[k],
        }));
        Some(AliasTable { columns })
    }

    /// The exact probability of each outcome under [`AliasTable::sample`] (to one final rounding), which may
    /// differ from the normalised weights by rounding: column k is kept for `threshold` of the 2⁵³ values of
    /// its coin.
    pub(crate) fn probabilities(&self) -> [f64; 256] {
        let mut count = [0u64; 256];
        for (k, c) in self.columns.iter().enumerate() {
            count[k] += c.threshold;
            count[c.alias as usize] += COIN - c.threshold;
        }
        // Each count is below 256·2⁵³ = 2⁶¹: exact in u64, rounded once here.
        count.map(|c| c as f64 / (256.0 * COIN as f64))
    }

    /// One draw.
    #[inline]
    pub(crate) fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let bits = rng.next_u64();
        let column = (bits >> 56) as usize;
        let c = self.columns[column];
        if bits & (COIN - 1) < c.threshold { column } else { c.alias as usize }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::rng::seeded_rng_for_experiments;

    #[test]
    fn probabilities_are_the_normalised_weights() {
        let weights: [f64; 256] = std::array::from_fn(|k| if k % 7 == 0 { 0.0 } else { (k as f64 * 0.37).sin().abs() });
        let table = AliasTable::new(&weights).unwrap();
        let total: f64 = weights.iter().sum();
        let exact = table.probabilities();
        for k in 0..256 {
            assert!(
                (exact[k] - weights[k] / total).abs() < 1e-15,
                "outcome {k}: {} vs {}",
                exact[k],
                weights[k] / total
            );
            assert_eq!(exact[k] == 0.0, weights[k] == 0.0, "outcome {k}");
        }
        assert!((exact.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        // The draws realise `probabilities()`: every outcome's frequency within Bernstein's bound at a joint
        // false-failure probability of 1e-8 (2·256 one-sided bounds at 1e-8/512 each).
        let n = 2_000_000usize;
        let mut counts = [0usize; 256];
        let mut rng = seeded_rng_for_experiments(3);
        for _ in 0..n {
            counts[table.sample(&mut rng)] += 1;
        }
        let within = |p: &[f64; 256]| {
            let l = (512.0 / 1e-8f64).ln();
            (0..256).all(|k| {
                let dev = (2.0 * p[k] * (1.0 - p[k]) * l / n as f64).sqrt() + l / (3.0 * n as f64);
                (counts[k] as f64 / n as f64 - p[k]).abs() <= dev
            })
        };
        assert!(within(&exact), "frequencies outside the bound");
        assert!(counts.iter().zip(&weights).all(|(&c, &w)| w > 0.0 || c == 0), "drew a zero-weight outcome");
        // Negative control: the same check against the probabilities of neighbouring outcomes must fail.
        let mut shifted = exact;
        shifted.rotate_left(1);
        assert!(!within(&shifted), "the frequency check passed the wrong probabilities");
    }

    #[test]
    fn rejects_bad_weights() {
        assert!(AliasTable::new(&[0.0; 256]).is_none());
        let mut w = [1.0; 256];
        w[3] = f64::NAN;
        assert!(AliasTable::new(&w).is_none());
        w[3] = -1.0;
        assert!(AliasTable::new(&w).is_none());
    }
}
