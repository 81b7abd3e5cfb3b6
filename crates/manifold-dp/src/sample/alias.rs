//! Walker's alias method (Vose's construction) over at most 256 outcomes, drawing the outcome and the
//! coin from one `u64`: the top 8 bits pick a column, the low 53 bits are an independent uniform on [0, 1).
//! Used where a sampler picks among a fixed table of envelope pieces millions of times.

use rand::Rng;

/// An alias table over outcomes `0..256`; outcome k has probability w_k / Σw.
#[derive(Debug, Clone)]
pub(crate) struct AliasTable {
    /// P(keep column k) for each column.
    keep: Box<[f64; 256]>,
    /// The outcome column k falls back to.
    alias: Box<[u8; 256]>,
}

impl AliasTable {
    /// The table for 256 non-negative finite weights with a positive sum; `None` otherwise.
    pub(crate) fn new(weights: &[f64; 256]) -> Option<Self> {
        let total: f64 = weights.iter().sum();
        if !(total.is_finite() && total > 0.0) || weights.iter().any(|w| w.is_nan() || *w < 0.0) {
            return None;
        }
        let mut scaled: Vec<f64> = weights.iter().map(|w| w * 256.0 / total).collect();
        let mut keep = Box::new([1.0; 256]);
        let mut alias: Box<[u8; 256]> = Box::new(std::array::from_fn(|k| k as u8));
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
        // Whatever is left holds probability 1 up to rounding: keep[k] stays 1.
        Some(AliasTable { keep, alias })
    }

    /// The exact probability of each outcome under [`AliasTable::sample`] (to one final rounding), which may
    /// differ from the normalised weights by rounding: column k is kept when its 53-bit coin m/2⁵³ < keep_k,
    /// i.e. for ⌈keep_k·2⁵³⌉ of the 2⁵³ values of m.
    pub(crate) fn probabilities(&self) -> [f64; 256] {
        const ONE: u64 = 1 << 53;
        let mut count = [0u64; 256];
        for k in 0..256 {
            let kept = (self.keep[k] * ONE as f64).ceil() as u64;
            count[k] += kept;
            count[self.alias[k] as usize] += ONE - kept;
        }
        // Each count is below 256·2⁵³ = 2⁶¹: exact in u64, rounded once here.
        count.map(|c| c as f64 / (256.0 * ONE as f64))
    }

    /// One draw.
    #[inline]
    pub(crate) fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let bits = rng.next_u64();
        let column = (bits >> 56) as usize;
        let coin = (bits & ((1 << 53) - 1)) as f64 * (1.0 / (1u64 << 53) as f64);
        if coin < self.keep[column] { column } else { self.alias[column] as usize }
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
        // Exact probability of each outcome from the table itself: (keep_k + Σ_{j: alias_j = k} (1 − keep_j))/256.
        let mut p = [0.0; 256];
        for k in 0..256 {
            p[k] += table.keep[k] / 256.0;
            p[table.alias[k] as usize] += (1.0 - table.keep[k]) / 256.0;
        }
        let total: f64 = weights.iter().sum();
        let exact = table.probabilities();
        for k in 0..256 {
            assert!((p[k] - weights[k] / total).abs() < 1e-15, "outcome {k}: {} vs {}", p[k], weights[k] / total);
            assert!((exact[k] - p[k]).abs() < 1e-15, "outcome {k}: {} vs {}", exact[k], p[k]);
            assert_eq!(exact[k] == 0.0, weights[k] == 0.0, "outcome {k}");
        }
        assert!((exact.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        let mut rng = seeded_rng_for_experiments(3);
        for _ in 0..10_000 {
            assert!(weights[table.sample(&mut rng)] > 0.0, "drew a zero-weight outcome");
        }
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
