//! Histograms of angles (or any real values) over equal-width bins, as counts and as a density that can be
//! drawn over a theoretical density.

/// Counts of values in equal-width bins over `[lo, hi]` (values outside are counted separately).
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    lo: f64,
    width: f64,
    counts: Vec<u64>,
    outside: u64,
}

impl Histogram {
    /// `bins` (≥ 1) equal bins over `[lo, hi]` with `lo < hi`, both finite; `None` otherwise.
    pub fn new(lo: f64, hi: f64, bins: usize) -> Option<Self> {
        (lo.is_finite() && hi.is_finite() && lo < hi && bins > 0).then(|| Histogram {
            lo,
            width: (hi - lo) / bins as f64,
            counts: vec![0; bins],
            outside: 0,
        })
    }

    /// Counts `values`; the last bin is closed on the right.
    pub fn add_all(&mut self, values: impl IntoIterator<Item = f64>) {
        let bins = self.counts.len();
        for v in values {
            let k = ((v - self.lo) / self.width).floor();
            if k >= 0.0 && (k as usize) < bins {
                self.counts[k as usize] += 1;
            } else if k as usize == bins && v <= self.lo + self.width * bins as f64 {
                self.counts[bins - 1] += 1;
            } else {
                self.outside += 1;
            }
        }
    }

    /// Number of values counted, inside and outside the range.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum::<u64>() + self.outside
    }

    /// Counts per bin.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// `(lower edge, upper edge)` of bin k.
    pub fn edges(&self, k: usize) -> (f64, f64) {
        (self.lo + self.width * k as f64, self.lo + self.width * (k + 1) as f64)
    }

    /// Empirical density per bin: count / (total · width), comparable with a probability density.
    pub fn density(&self) -> Vec<f64> {
        let scale = 1.0 / (self.total().max(1) as f64 * self.width);
        self.counts.iter().map(|&c| c as f64 * scale).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_edges_and_density() {
        let mut h = Histogram::new(0.0, 1.0, 4).unwrap();
        h.add_all([0.0, 0.1, 0.25, 0.6, 1.0, 1.5, -0.1]);
        assert_eq!(h.counts(), &[2, 1, 1, 1]);
        assert_eq!(h.total(), 7);
        assert_eq!(h.edges(1), (0.25, 0.5));
        let d = h.density();
        assert!((d[0] - 2.0 / (7.0 * 0.25)).abs() < 1e-15);
        assert!(Histogram::new(1.0, 1.0, 3).is_none());
        assert!(Histogram::new(0.0, 1.0, 0).is_none());
    }
}
