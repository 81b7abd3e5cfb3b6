//! The generalized Gaussian release of degree N (1 ≤ N ≤ 256) rounded onto a public grid, sampled exactly:
//! the cell of x̄ + s·S·T, T of density Γ(1 + 1/N)^{−1}·e^{−t^N} on [0, ∞) and S = ±1 fair, among the cells
//! [(c − ½)h, (c + ½)h) of spacing h = 2^k, drawn with integer arithmetic on lazily drawn uniform bits (no
//! floating-point noise is ever formed and no probability is ever a float). The released value fl(c·h) is a
//! function of the cell alone, so it is post-processing of the exact generalized Gaussian mechanism and keeps
//! every one of its guarantees exactly (`docs/proofs/float_safety.md` §8c).
//!
//! T by rejection from an envelope of two pieces with rational weights (§8c):
//!
//! - the **body** [0, 1), weight N/(N + 1): T = U uniform (its bits drawn lazily), kept with probability
//!   e^{−U^N} (CKS20 Algorithm 1 on the coin [W < U^N] = N comparisons r_i < U, all true);
//! - the **tail** [1, ∞), weight 1/(N + 1): a Bernoulli(e^{−1}) coin, then T = 1 + E/N with E = J + V ~ Exp(1)
//!   (von Neumann: V a lazy uniform kept with probability e^{−V}), kept with probability e^{−h(E)},
//!   h(E) = (1 + E/N)^N − 1 − E ≥ 0 (Bernoulli's inequality), decided in big integers from V's bits by
//!   factors e^{−min(1, h − i)}, i = 0, 1, …, stopping at the first failure or once h ≤ i is known.
//!
//! In one round P(T ∈ dt, kept) = N/(N + 1)·e^{−t^N} dt on all of [0, ∞): on the tail
//! e^{−1}·N e^{−N(t−1)}·e^{−h} = N e^{−t^N}. Nothing before the cell looks at x; the cell is decided from T's
//! known bits, drawing more of U (or V) only while the interval they leave straddles a cell boundary
//! (`crate::sample::exact_cell`, shared with the Gaussian).

use crate::error::Fallible;
use crate::error::Param;
use crate::sample::exact_cell::{LazyMagnitude, LazyUniform, descending_run_is_even, less, settle_cell};
use crate::sample::exact_coins::{bernoulli_exp_neg, bernoulli_exp_neg_one};
use crate::sample::generalized_gaussian::{check_order, unit_tail};
use crate::sample::rounded_laplace::ScaledGrid;
use num_bigint::BigInt;
use rand::Rng;

/// The exact law of the generalized Gaussian release of degree N and scale s rounded to the nearest multiple
/// of h = 2^k: the cell c = ⌊(x̄ + X)/h + ½⌋, X of density N/(2sΓ(1/N))·e^{−(|x|/s)^N},
/// x̄ = clamp(x, ±2^100·s), released as fl(c·h) (`docs/proofs/float_safety.md` §8c).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoundedGeneralizedGaussian {
    order: u32,
    /// s, the grid and the clamp.
    grid: ScaledGrid,
}

/// True with probability N/(N + 1): one uniform word r kept below the largest multiple of N + 1 that fits
/// (retried otherwise, probability < 2^-55), then r mod (N + 1) < N.
fn body_is_chosen<R: Rng + ?Sized>(order: u32, rng: &mut R) -> bool {
    let d = u128::from(order) + 1;
    let limit = (1u128 << 64) / d * d;
    loop {
        let r = u128::from(rng.next_u64());
        if r < limit {
            return r % d < u128::from(order);
        }
    }
}

/// The body's test: true with probability e^{−U^N} given U. CKS20 Algorithm 1 needs a coin of probability
/// γ = U^N: N fresh uniforms all below U (each an exact lazy comparison, stopping at the first failure).
pub(crate) fn accept_body<R: Rng + ?Sized>(order: u32, u: &mut LazyUniform, rng: &mut R) -> bool {
    bernoulli_exp_neg(rng, |r| (0..order).all(|_| less(&mut LazyUniform::new(r), u, r)))
}

/// E = J + V ~ Exp(1) (von Neumann 1951): V a lazy uniform kept with probability e^{−V} (a descending run of
/// even length), J the number of V's discarded before (each discarded with probability e^{−1}), so
/// P(J = j, V ∈ dv) = e^{−j}·e^{−v} dv = e^{−(j+v)} dv.
pub(crate) fn exponential<R: Rng + ?Sized>(rng: &mut R) -> (u64, LazyUniform) {
    let mut j = 0u64;
    loop {
        let mut v = LazyUniform::new(rng);
        if descending_run_is_even(&mut v, rng, |_, _| true) {
            return (j, v);
        }
        // J ≥ 2^64 − 1 would take that many consecutive events of probability e^{−1}: never.
        j = j.saturating_add(1);
    }
}

/// h(E) = (1 + E/N)^N − 1 − E at both ends of E's interval [J + A/2^j, J + (A + 1)/2^j] (V known to j bits),
/// as integers over den = N^N·2^(jN): for E = a/2^j, h·den = (N·2^j + a)^N − (2^j + a)·N^N·2^(j(N−1)). h is
/// nondecreasing in E (h′ = (1 + E/N)^(N−1) − 1 ≥ 0), so h lies in [lo, hi]/den.
struct TailExcess {
    lo: BigInt,
    hi: BigInt,
    den: BigInt,
}

impl TailExcess {
    fn new(order: u32, j: u64, v: &LazyUniform) -> Self {
        let bits = 64 * v.words() as u32;
        let one = BigInt::from(1u8) << bits;
        let n = BigInt::from(order);
        let n_pow = n.pow(order);
        let scaled = |a: &BigInt| (&n * &one + a).pow(order) - (((&one + a) * &n_pow) << (bits * (order - 1)));
        let a = (BigInt::from(j) << bits) + v.known();
        let lo = scaled(&a);
        let hi = scaled(&(a + 1u8));
        TailExcess { lo, hi, den: n_pow << (bits * order) }
    }
}

/// W + i < h(E) for a fresh lazy uniform W, exactly: with W ∈ [B/2^w, (B + 1)/2^w], "yes" once
/// (B + 1)/2^w + i ≤ h's lower end, "no" once B/2^w + i ≥ its upper end, else one more word of W and of V
/// (both intervals shrink to points, so this ends unless W + i = h, a null event).
fn below_excess<R: Rng + ?Sized>(
    i: u64,
    order: u32,
    j: u64,
    v: &mut LazyUniform,
    bounds: &mut TailExcess,
    rng: &mut R,
) -> bool {
    let mut w = LazyUniform::new(rng);
    loop {
        let bits = 64 * w.words() as u32;
        let b = (BigInt::from(i) << bits) + w.known();
        if (&b + 1u8) * &bounds.den <= &bounds.lo << bits {
            return true;
        }
        if b * &bounds.den >= &bounds.hi << bits {
            return false;
        }
        w.extend(rng);
        v.extend(rng);
        *bounds = TailExcess::new(order, j, v);
    }
}

/// The tail's test: true with probability e^{−h(E)} given E = J + V, h(E) = (1 + E/N)^N − 1 − E. As
/// e^{−h} = Π_{i ≥ 0} e^{−c_i} with c_i = min(1, max(0, h − i)): for i = 0, 1, …, answer "yes" once h ≤ i is
/// known (every later factor is 1), else draw the factor (CKS20 Algorithm 1 on the coin [W + i < h], whose
/// probability is c_i; a plain Bernoulli(e^{−1}) once h ≥ i + 1 is known) and answer "no" at its first
/// failure. Each factor with c_i = 1 fails with probability 1 − e^{−1}, so a huge h costs few coins.
pub(crate) fn accept_tail<R: Rng + ?Sized>(order: u32, j: u64, v: &mut LazyUniform, rng: &mut R) -> bool {
    if order == 1 {
        // h ≡ 0.
        return true;
    }
    let mut bounds = TailExcess::new(order, j, v);
    let mut i = 0u64;
    loop {
        if bounds.hi <= &bounds.den * i {
            return true;
        }
        let keep = if bounds.lo >= &bounds.den * (i + 1) {
            bernoulli_exp_neg_one(rng)
        } else {
            bernoulli_exp_neg(rng, |r| below_excess(i, order, j, v, &mut bounds, r))
        };
        if !keep {
            return false;
        }
        i += 1;
    }
}

/// T ≥ 0 of density e^{−t^N}/Γ(1 + 1/N), exactly, as a lazy magnitude: U (body) or (N + J + V)/N (tail).
/// Rounds are independent and each is kept with probability N·Γ(1 + 1/N)/(N + 1) ≥ ½. Draws nothing that
/// depends on any input.
pub(crate) fn unit_magnitude<R: Rng + ?Sized>(order: u32, rng: &mut R) -> LazyMagnitude {
    loop {
        if body_is_chosen(order, rng) {
            let mut u = LazyUniform::new(rng);
            if accept_body(order, &mut u, rng) {
                return LazyMagnitude { whole: 0, divisor: 1, fraction: u };
            }
        } else if bernoulli_exp_neg_one(rng) {
            let (j, mut v) = exponential(rng);
            if accept_tail(order, j, &mut v, rng) {
                return LazyMagnitude { whole: u64::from(order).saturating_add(j), divisor: order.into(), fraction: v };
            }
        }
    }
}

impl RoundedGeneralizedGaussian {
    /// The law of degree `order` ∈ [1, 256] and scale `scale` = s ∈ [2^-900, 2^900] on the grid of spacing
    /// 2^`grid_log2`, which must lie between 2^-20·2^⌊log₂ s⌋ and 2^8·2^⌊log₂ s⌋ (the default grid,
    /// [`RoundedGeneralizedGaussian::default_grid_log2`], is the finest). Proof: `docs/proofs/float_safety.md`
    /// §8c.
    pub fn new(order: u32, scale: f64, grid_log2: i32) -> Fallible<Self> {
        let order = check_order(order)?;
        Ok(RoundedGeneralizedGaussian { order, grid: ScaledGrid::new(Param::Scale, scale, grid_log2)? })
    }

    /// The default grid for scale s: k = ⌊log₂ s⌋ − 20, so rounding moves a release by at most 2^-21·s.
    pub fn default_grid_log2(scale: f64) -> i32 {
        ScaledGrid::default_grid_log2(scale)
    }

    /// The degree N.
    pub fn order(&self) -> u32 {
        self.order
    }

    /// The scale s.
    pub fn scale(&self) -> f64 {
        self.grid.scale
    }

    /// The grid spacing h = 2^k.
    pub fn spacing(&self) -> f64 {
        self.grid.spacing()
    }

    /// log₂ of the grid spacing.
    pub fn grid_log2(&self) -> i32 {
        self.grid.grid_log2
    }

    /// The largest |x| used as is (2^100·s); larger inputs are clamped to it before the noise.
    pub fn clamp(&self) -> f64 {
        self.grid.clamp
    }

    /// The cell index c = ⌊(x̄ + X)/h + ½⌋ of x̄ + X, x̄ = clamp(x, ±2^100·s), drawn exactly: the release is
    /// c·h. `x` must not be NaN (±∞ are clamped).
    pub fn sample_cell<R: Rng + ?Sized>(&self, x: f64, rng: &mut R) -> i128 {
        self.sample_cell_counted(x, rng).0
    }

    /// [`RoundedGeneralizedGaussian::sample_cell`] and the number of 64-bit extensions of T's uniform that the
    /// cell drew (for the measurements in the tests; almost always 0).
    pub(crate) fn sample_cell_counted<R: Rng + ?Sized>(&self, x: f64, rng: &mut R) -> (i128, u32) {
        debug_assert!(!x.is_nan());
        let mut t = unit_magnitude(self.order, rng);
        let negative = rng.next_u64() >> 63 == 1;
        settle_cell(&self.grid, x, negative, &mut t, rng)
    }

    /// One release: fl(c·h) for the exact cell c of x̄ + X (a function of c alone).
    pub fn sample_at<R: Rng + ?Sized>(&self, x: f64, rng: &mut R) -> f64 {
        self.sample_cell(x, rng) as f64 * self.spacing()
    }

    /// P(cell ≤ c) = F(((c + ½)h − x̄)/s), F the unit generalized Gaussian CDF (up to its f64 evaluation by
    /// the regularised incomplete gamma function); for tests. Written from x̄'s own cell, so that it stays
    /// exact for large x̄.
    pub fn cell_cdf(&self, x: f64, c: i128) -> f64 {
        let h = self.spacing();
        let x = x.clamp(-self.grid.clamp, self.grid.clamp);
        let own = (x / h).round();
        let z = (((c - own as i128) as f64 + 0.5) * h - (x - own * h)) / self.grid.scale;
        let tail = 0.5 * unit_tail(self.order, z.abs());
        if z < 0.0 { tail } else { 1.0 - tail }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::sample::exact_cell::test_support::{CountingRng, dkw_threshold, max_cell_cdf_gap};
    use crate::sample::exact_cell::{CellQuery, decide, decide_big};
    use crate::sample::rng::{ReleaseRng, seeded_rng_for_experiments};
    use crate::sample::rounded_laplace::decompose;
    use statrs::function::gamma::gamma;

    const ORDERS: [u32; 5] = [1, 2, 3, 8, 256];

    /// Allowance for the f64 evaluation of the exact CDF (the incomplete gamma function, within 10^-13 for
    /// N ≤ 256 and about 5uN near t = s: docs/proofs/scalar_mechanisms.md §4), far below the DKW bands.
    const CDF_SLACK: f64 = 1e-9;

    /// Draws per goodness-of-fit check of the cells.
    const CELL_DRAWS: usize = 400_000;

    /// A sampler of T (the production one, or one with a step dropped, for the negative controls).
    type Magnitude<'a> = &'a dyn Fn(&mut ReleaseRng) -> LazyMagnitude;
    /// A sampler of T as a plain function.
    type DrawT = fn(&mut ReleaseRng) -> LazyMagnitude;

    /// `n` cells of x̄ + S·s·T for T from `magnitude`, by the production cell decision.
    fn cells(
        law: &RoundedGeneralizedGaussian,
        x: f64,
        n: usize,
        magnitude: Magnitude<'_>,
        rng: &mut ReleaseRng,
    ) -> Vec<i128> {
        (0..n)
            .map(|_| {
                let mut t = magnitude(rng);
                let negative = rng.next_u64() >> 63 == 1;
                settle_cell(&law.grid, x, negative, &mut t, rng).0
            })
            .collect()
    }

    fn gap(law: &RoundedGeneralizedGaussian, x: f64, sample: &mut [i128]) -> f64 {
        max_cell_cdf_gap(sample, |c| law.cell_cdf(x, c))
    }

    #[test]
    fn refuses_parameters_outside_the_proof() {
        for s in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e-300, 1e280] {
            assert!(RoundedGeneralizedGaussian::new(3, s, 0).is_err(), "{s}");
        }
        assert!(matches!(
            RoundedGeneralizedGaussian::new(0, 1.0, -20),
            Err(Error::InvalidParameter { name: Param::Order, .. })
        ));
        assert!(RoundedGeneralizedGaussian::new(257, 1.0, -20).is_err());
        assert!(matches!(
            RoundedGeneralizedGaussian::new(3, 1.0, 9),
            Err(Error::InvalidParameter { name: Param::Grid, .. })
        ));
        assert!(RoundedGeneralizedGaussian::new(3, 1.0, -21).is_err());
        assert!(
            RoundedGeneralizedGaussian::new(256, 1.0, 8).is_ok()
                && RoundedGeneralizedGaussian::new(1, 1.0, -20).is_ok()
        );
        assert_eq!(RoundedGeneralizedGaussian::default_grid_log2(3.0), -19);
        let law = RoundedGeneralizedGaussian::new(4, 3.0, -19).unwrap();
        assert_eq!(
            (law.order(), law.scale(), law.spacing(), law.clamp()),
            (4, 3.0, 2f64.powi(-19), 3.0 * 2f64.powi(100))
        );
    }

    #[test]
    fn releases_are_multiples_of_the_spacing_and_reproducible() {
        let inputs = [0.0, -0.0, 1.0, -7.25, 1e-300, 5e-324, 123456.789, 1e40, -1e300, f64::MAX, f64::INFINITY];
        for order in ORDERS {
            let law = RoundedGeneralizedGaussian::new(order, 0.3, RoundedGeneralizedGaussian::default_grid_log2(0.3))
                .unwrap();
            let draw = |seed: u64| {
                let mut rng = seeded_rng_for_experiments(seed);
                inputs
                    .iter()
                    .flat_map(|&x| (0..100).map(move |_| x))
                    .map(|x| law.sample_at(x, &mut rng))
                    .collect::<Vec<_>>()
            };
            let (a, b) = (draw(3), draw(3));
            assert_eq!(a, b, "the same seed must give the same releases");
            assert_ne!(a, draw(4));
            for z in a {
                assert!(z.is_finite() && (z / law.spacing()).fract() == 0.0, "N = {order}: {z}");
            }
            // Clamped: a huge input is released near the clamp, never at infinity.
            let mut rng = seeded_rng_for_experiments(5);
            assert!((law.sample_at(1e300, &mut rng) / law.clamp() - 1.0).abs() < 1e-12);
        }
        // The extreme scales: finite multiples of the grid.
        let mut rng = seeded_rng_for_experiments(6);
        for (s, g) in [(2f64.powi(900), 880), (2f64.powi(-900), -920), (2f64.powi(900), 908)] {
            for order in [1, 3, 256] {
                let law = RoundedGeneralizedGaussian::new(order, s, g).unwrap();
                for &x in &[0.0, f64::MAX, -f64::MAX, 5e-324, 1.0] {
                    let z = law.sample_at(x, &mut rng);
                    assert!(z.is_finite() && (z / law.spacing()).fract() == 0.0, "{s} {x} -> {z}");
                }
            }
        }
    }

    /// On grids as coarse as the noise (h = s and h = s/4), every cell-level mistake shows in the CDF of the
    /// cells. 5 degrees × 27 inputs = 135 checks against the exact law at α = 5·10^-11 each: false failure
    /// ≤ 6.8·10^-9.
    #[test]
    fn cells_follow_the_exact_law() {
        let threshold = dkw_threshold(CELL_DRAWS, 5e-11) + CDF_SLACK;
        let mut rng = seeded_rng_for_experiments(21);
        let inputs = [
            0.0,
            -0.0,
            0.5, // on a cell boundary (h = s = 1)
            -0.5,
            0.3,    // a dyadic fraction of h, φ with many bits
            0.1875, // 3/16
            0.125,  // a cell boundary on the grid h = s/4
            7.75,
            1e-300,              // tiny against h: φ just above ½
            -5e-324,             // subnormal
            2f64.powi(53) + 2.0, // ≥ 2^53·h
            -2f64.powi(40) - 0.25,
        ];
        let production = |r: &mut ReleaseRng, order: u32| unit_magnitude(order, r);
        for order in ORDERS {
            let sampler = move |r: &mut ReleaseRng| production(r, order);
            for log2_h in [0, -2] {
                let law = RoundedGeneralizedGaussian::new(order, 1.0, log2_h).unwrap();
                for &x in &inputs {
                    let mut sample = cells(&law, x, CELL_DRAWS, &sampler, &mut rng);
                    let g = gap(&law, x, &mut sample);
                    assert!(g < threshold, "N = {order}, h = 2^{log2_h}, x = {x}: gap {g} >= {threshold}");
                }
            }
            // s not a power of two (m_s odd), negative inputs and the clamp (2^100·s).
            let law = RoundedGeneralizedGaussian::new(order, 3.0, 1).unwrap();
            for &x in &[-1.3, 1e300, -f64::MAX] {
                let mut sample = cells(&law, x, CELL_DRAWS, &sampler, &mut rng);
                let g = gap(&law, x, &mut sample);
                assert!(g < threshold, "N = {order}, s = 3, x = {x}: gap {g} >= {threshold}");
            }
        }
    }

    /// Grids coarser than the noise (h/s = 2, 2^8 and 8/3, the allowed top 2^8 included), which the Laplace
    /// of §8 got wrong before the fix: the cell here is decided in integers from T's digits (no coin of
    /// probability h/s), and follows the exact law. Inputs just below, on and off a cell boundary (at h = 2^8 s
    /// every input far from one lands in its own cell). 5 degrees × 11 checks at α = 5·10^-11: false failure
    /// ≤ 2.8·10^-9. Negative control: draws for the input moved by h/2^9 (h/s = 2^8) or h/8 are refused.
    #[test]
    fn coarse_grids_follow_the_exact_law() {
        let threshold = dkw_threshold(CELL_DRAWS, 5e-11) + CDF_SLACK;
        let mut rng = seeded_rng_for_experiments(37);
        let cases: [(f64, i32, &[f64]); 3] = [
            (1.0, 1, &[0.0, 1.0 - 2f64.powi(-29), 1.0, -0.75]),
            (1.0, 8, &[128.0 - 2f64.powi(-22), 128.0, -127.5, -128.25]),
            (3.0, 3, &[0.0, 4.0 - 2f64.powi(-27), -3.0]),
        ];
        for order in ORDERS {
            let sampler = move |r: &mut ReleaseRng| unit_magnitude(order, r);
            for &(s, k, inputs) in &cases {
                let law = RoundedGeneralizedGaussian::new(order, s, k).unwrap();
                for &x in inputs {
                    let mut sample = cells(&law, x, CELL_DRAWS, &sampler, &mut rng);
                    let g = gap(&law, x, &mut sample);
                    assert!(g < threshold, "N = {order}, s = {s}, h = 2^{k}, x = {x}: gap {g} >= {threshold}");
                }
            }
            for &(s, k, x, shift) in &[(1.0, 1, 0.0, 0.25), (1.0, 8, 128.0, -0.5)] {
                let law = RoundedGeneralizedGaussian::new(order, s, k).unwrap();
                let mut sample = cells(&law, x + shift, CELL_DRAWS, &sampler, &mut rng);
                let g = gap(&law, x, &mut sample);
                assert!(g > threshold, "control N = {order}, h = 2^{k}, x = {x} + {shift}: gap {g} <= {threshold}");
            }
        }
    }

    /// The samplers of T with one acceptance step dropped, at every N where that moves the law of T by more than
    /// twice the tests' thresholds (the negative controls of the tests below).
    const DROPPED_STEPS: [(u32, &str, DrawT); 11] = [
        (1, "body test", |r| without_body_test(1, r)),
        (1, "tail e^-1", |r| broken_tail(1, false, r)),
        (2, "body test", |r| without_body_test(2, r)),
        (2, "tail e^-1", |r| broken_tail(2, false, r)),
        (2, "tail test", |r| broken_tail(2, true, r)),
        (3, "body test", |r| without_body_test(3, r)),
        (3, "tail e^-1", |r| broken_tail(3, false, r)),
        (3, "tail test", |r| broken_tail(3, true, r)),
        (8, "body test", |r| without_body_test(8, r)),
        (8, "tail e^-1", |r| broken_tail(8, false, r)),
        (8, "tail test", |r| broken_tail(8, true, r)),
    ];

    /// The body kept without its test e^{−U^N}.
    fn without_body_test(order: u32, rng: &mut ReleaseRng) -> LazyMagnitude {
        loop {
            if body_is_chosen(order, rng) {
                return LazyMagnitude { whole: 0, divisor: 1, fraction: LazyUniform::new(rng) };
            } else if bernoulli_exp_neg_one(rng) {
                let (j, mut v) = exponential(rng);
                if accept_tail(order, j, &mut v, rng) {
                    return LazyMagnitude { whole: u64::from(order) + j, divisor: order.into(), fraction: v };
                }
            }
        }
    }

    /// The tail kept without its test e^{−h(E)} (`skip_excess`) or without its Bernoulli(e^{−1}).
    fn broken_tail(order: u32, skip_excess: bool, rng: &mut ReleaseRng) -> LazyMagnitude {
        loop {
            if body_is_chosen(order, rng) {
                let mut u = LazyUniform::new(rng);
                if accept_body(order, &mut u, rng) {
                    return LazyMagnitude { whole: 0, divisor: 1, fraction: u };
                }
            } else if !skip_excess || bernoulli_exp_neg_one(rng) {
                let (j, mut v) = exponential(rng);
                if skip_excess || accept_tail(order, j, &mut v, rng) {
                    return LazyMagnitude { whole: u64::from(order) + j, divisor: order.into(), fraction: v };
                }
            }
        }
    }

    /// Negative controls: the same check (same number of draws, same threshold) refuses draws for x + h/2
    /// and x + h/8 taken as draws of x's law and a sampler whose s is 5 % too large (every N), and samplers
    /// with one acceptance step dropped where that moves the cell law by more than twice the threshold
    /// (computed by quadrature: N = 1, 2, 3, 8 without the body's test or the tail's e^{−1}, N = 2, 3 without
    /// the tail's test; at N = 256 every dropped step moves the law by < 0.002, and N = 8's tail test by 0.009,
    /// below what 4·10^5 draws can see: `magnitude_follows_the_exact_law` covers those it can).
    #[test]
    fn the_cell_check_refuses_shifted_inputs_a_wrong_scale_and_dropped_steps() {
        let threshold = dkw_threshold(CELL_DRAWS, 5e-11) + CDF_SLACK;
        let mut rng = seeded_rng_for_experiments(22);
        for order in ORDERS {
            let sampler = move |r: &mut ReleaseRng| unit_magnitude(order, r);
            let law = RoundedGeneralizedGaussian::new(order, 1.0, 0).unwrap();
            for &(x, shift) in &[(0.3, 0.5), (0.0, 0.125)] {
                let mut sample = cells(&law, x + shift, CELL_DRAWS, &sampler, &mut rng);
                let g = gap(&law, x, &mut sample);
                assert!(g > threshold, "control N = {order}, x = {x} + {shift}: gap {g} <= {threshold}");
                eprintln!("control N = {order}, x = {x} + {shift}: gap {g:.4} (threshold {threshold:.4})");
            }
            let law = RoundedGeneralizedGaussian::new(order, 1.0, -2).unwrap();
            let wide = RoundedGeneralizedGaussian::new(order, 1.05, -2).unwrap();
            let mut sample: Vec<i128> = (0..CELL_DRAWS).map(|_| wide.sample_cell(0.3, &mut rng)).collect();
            let g = gap(&law, 0.3, &mut sample);
            assert!(g > threshold, "control N = {order}, s * 1.05: gap {g} <= {threshold}");
            eprintln!("control N = {order}, s * 1.05: gap {g:.4} (threshold {threshold:.4})");
        }
        // N = 8's tail test moves the cell law by 0.009, below what these draws can see (see above).
        for &(order, name, broken) in
            DROPPED_STEPS.iter().filter(|&&(order, name, _)| (order, name) != (8, "tail test"))
        {
            let law = RoundedGeneralizedGaussian::new(order, 1.0, -2).unwrap();
            let mut sample = cells(&law, 0.3, CELL_DRAWS, &broken, &mut rng);
            let g = gap(&law, 0.3, &mut sample);
            assert!(g > threshold, "control N = {order} without the {name}: gap {g} <= {threshold}");
            eprintln!("control N = {order} without the {name}: gap {g:.4} (threshold {threshold:.4})");
        }
    }

    /// T as an f64 (U read to 53 bits; its law moves by < 2^-53).
    fn as_f64(t: &LazyMagnitude) -> f64 {
        (t.whole as f64 + t.fraction.approx()) / t.divisor as f64
    }

    /// Kolmogorov–Smirnov distance of the draws of T from P(T ≤ t) = 1 − Q(1/N, t^N).
    fn ks_distance(order: u32, draws: &mut [f64]) -> f64 {
        draws.sort_by(f64::total_cmp);
        let n = draws.len() as f64;
        draws.iter().enumerate().fold(0.0f64, |d, (i, &t)| {
            let f = 1.0 - unit_tail(order, t);
            d.max((f - i as f64 / n).abs()).max(((i + 1) as f64 / n - f).abs())
        })
    }

    /// T itself against its exact CDF for each N (DKW at α = 10^-9 per check, five checks: false failure
    /// ≤ 5·10^-9); negative controls: each acceptance step dropped, at every N where it moves the law of T by
    /// more than twice the threshold (quadrature: all but the tail test at N = 1, which is void, and N = 256).
    #[test]
    fn magnitude_follows_the_exact_law() {
        let n = 200_000;
        let threshold = dkw_threshold(n, 1e-9) + CDF_SLACK;
        let mut rng = seeded_rng_for_experiments(23);
        for order in ORDERS {
            let mut draws: Vec<f64> = (0..n).map(|_| as_f64(&unit_magnitude(order, &mut rng))).collect();
            let d = ks_distance(order, &mut draws);
            assert!(d < threshold, "N = {order}: KS distance {d} >= {threshold}");
        }
        for &(order, name, broken) in &DROPPED_STEPS {
            let mut draws: Vec<f64> = (0..n).map(|_| as_f64(&broken(&mut rng))).collect();
            let d = ks_distance(order, &mut draws);
            assert!(d > threshold, "control N = {order} without the {name}: KS distance {d} <= {threshold}");
            eprintln!("control N = {order} without the {name}: KS distance {d:.4} (threshold {threshold:.4})");
        }
    }

    /// Hoeffding: |p̂ − p| < √(ln(2/α)/(2n)) at α = 10^-9 per check.
    fn close(hits: usize, n: usize, p: f64) -> bool {
        let t = ((2.0f64 / 1e-9).ln() / (2.0 * n as f64)).sqrt();
        (hits as f64 / n as f64 - p).abs() < t
    }

    /// The acceptance probabilities against their exact values, for each N: the body's test keeps U with
    /// probability ∫₀¹ e^{−t^N} dt = Γ(1 + 1/N)(1 − Q(1/N, 1)); the tail (its e^{−1} coin, E and its test)
    /// keeps with probability N∫₁^∞ e^{−t^N} dt = NΓ(1 + 1/N)Q(1/N, 1); a round with probability
    /// NΓ(1 + 1/N)/(N + 1). Negative control: the tail's rate without its test is refused (N ≥ 2).
    #[test]
    fn acceptance_rates_are_the_exact_ones() {
        let n = 200_000;
        let mut rng = seeded_rng_for_experiments(24);
        for order in ORDERS {
            let g = gamma(1.0 + 1.0 / order as f64);
            let q1 = unit_tail(order, 1.0);
            let body = (0..n).filter(|_| accept_body(order, &mut LazyUniform::new(&mut rng), &mut rng)).count();
            assert!(close(body, n, g * (1.0 - q1)), "N = {order}: body {body}/{n}");
            let tail = |rng: &mut ReleaseRng, test: bool| {
                bernoulli_exp_neg_one(rng) && {
                    let (j, mut v) = exponential(rng);
                    !test || accept_tail(order, j, &mut v, rng)
                }
            };
            let kept = (0..n).filter(|_| tail(&mut rng, true)).count();
            let exact = order as f64 * g * q1;
            assert!(close(kept, n, exact), "N = {order}: tail {kept}/{n} vs {exact}");
            if order >= 2 {
                let kept = (0..n).filter(|_| tail(&mut rng, false)).count();
                assert!(!close(kept, n, exact), "control N = {order}: tail without its test {kept}/{n}");
            }
            let body_share = (0..n).filter(|_| body_is_chosen(order, &mut rng)).count();
            assert!(close(body_share, n, order as f64 / (order as f64 + 1.0)), "N = {order}: body share");
        }
    }

    /// The cell of x̄ + h/2 + S·s·L/M exactly, written independently of `decide_big`: every term an integer
    /// multiple of 2^e/M for the smallest exponent e among them, floored by h.
    fn reference_cell(law: &RoundedGeneralizedGaussian, x: f64, negative: bool, l: &BigInt, m: &BigInt) -> BigInt {
        let x = x.clamp(-law.clamp(), law.clamp());
        let (mx, ex) = decompose(x);
        let (ms, es) = decompose(law.scale());
        let g = law.grid_log2();
        let e = ex.min(g - 1).min(es);
        let noise = (BigInt::from(ms) * l) << (es - e) as u32;
        let total = ((BigInt::from(mx) * m) << (ex - e) as u32)
            + (m << (g - 1 - e) as u32)
            + if negative { -noise } else { noise };
        let modulus = m << (g - e) as u32;
        let (q, r) = (&total / &modulus, &total % &modulus);
        if r < BigInt::from(0u8) { q - 1u8 } else { q }
    }

    /// The cell in big integers for tail magnitudes T = (N + J + U)/N (the rational path, N not a power of
    /// two included): when it decides, both ends of T's interval give that cell (the far end possibly on
    /// its boundary), for inputs in every branch of φ, grids at both ends of the allowed range, both signs.
    #[test]
    fn rational_cells_agree_with_exact_arithmetic() {
        let mut rng = seeded_rng_for_experiments(25);
        let inputs = [0.0, -0.0, 0.5, 0.3, -0.3, 1e-300, 5e-324, -2.2e-308, 7.75, 2f64.powi(60) + 4096.0, -1e30, 1e300];
        let mut decided = 0;
        for (s, g) in [(1.0, 0), (1.0, -20), (1.0, 8), (3.0, -2), (0.7, -21), (2f64.powi(-900), -920)] {
            for order in [1, 2, 3, 8, 255, 256] {
                let law = RoundedGeneralizedGaussian::new(order, s, g).unwrap();
                for &x in &inputs {
                    for _ in 0..40 {
                        let negative = rng.next_u64() & 1 == 1;
                        let j = rng.next_u64() % 6;
                        // Coarse words (few bits set) make ties with the cell boundaries likely.
                        let head = if rng.next_u64() & 1 == 0 { rng.next_u64() } else { rng.next_u64() & (0xff << 56) };
                        let t = LazyMagnitude {
                            whole: u64::from(order) + j,
                            divisor: order.into(),
                            fraction: LazyUniform { head, tail: Vec::new() },
                        };
                        let q = CellQuery::new(&law.grid, x, negative);
                        let Some(c) = decide_big(&law.grid, &q, &t) else { continue };
                        decided += 1;
                        let m = BigInt::from(order) << 64u32;
                        let l = (BigInt::from(t.whole) << 64u32) + head;
                        let lo = reference_cell(&law, x, negative, &l, &m);
                        let hi = reference_cell(&law, x, negative, &(&l + 1u8), &m);
                        let c = BigInt::from(c);
                        if negative {
                            assert!(hi == c && (lo == c || lo == &c + 1u8), "N {order} x {x}: {c} vs {lo}, {hi}");
                        } else {
                            assert!(lo == c && (hi == c || hi == &c + 1u8), "N {order} x {x}: {c} vs {lo}, {hi}");
                        }
                    }
                }
            }
        }
        assert!(decided > 10_000, "{decided}");
    }

    /// A tail interval of V straddling a non-dyadic boundary: s = 3, h = 1, x = 0, N = 2, J = 0 gives
    /// Y = ½ ± 3(1 + V/2), which crosses an integer at V = 1/3, inside [A/2^64, (A + 1)/2^64) for
    /// A = ⌊2^64/3⌋. The cell is undecided there; further words of V settle it to the reference cell of V's
    /// exact value.
    #[test]
    fn undecided_tail_cells_are_settled_by_further_bits() {
        let law = RoundedGeneralizedGaussian::new(2, 3.0, 0).unwrap();
        let mut rng = seeded_rng_for_experiments(26);
        let head = u64::MAX / 3;
        let mut settled = [0usize; 2];
        for negative in [false, true] {
            let q = CellQuery::new(&law.grid, 0.0, negative);
            let start = LazyMagnitude { whole: 2, divisor: 2, fraction: LazyUniform { head, tail: Vec::new() } };
            assert_eq!(decide(&law.grid, &q, &start), None);
            for _ in 0..200 {
                let mut t = start.clone();
                let (c, extensions) = settle_cell(&law.grid, 0.0, negative, &mut t, &mut rng);
                assert!(extensions >= 1);
                let bits = 64 * t.fraction.words() as u32;
                let m = BigInt::from(2u8) << bits;
                let l = (BigInt::from(2u8) << bits) + t.fraction.known();
                // The lower end of Y's interval: T's lower end for S = +, its upper end for S = −.
                let end = if negative { l + 1u8 } else { l };
                assert_eq!(BigInt::from(c), reference_cell(&law, 0.0, negative, &end, &m));
                settled[usize::from(c == if negative { -4 } else { 4 })] += 1;
            }
        }
        // V's further bits decide both ways (1/3 = 0.010101…₂).
        assert!(settled[0] > 20 && settled[1] > 20, "{settled:?}");
    }

    /// Measured (printed): words of 64 bits per release for each N, and how often the cell needs more of T's
    /// uniform (an interval of T of length ≤ 2^-64 straddling a boundary: probability ≤ 2^-64(s/h + 1)·max
    /// density ≤ 2^-42 on the default grid, so none in 2·10^5 draws except with probability ≤ 5·10^-8).
    #[test]
    fn words_per_release_and_extensions() {
        let n = 200_000;
        for order in ORDERS {
            let law = RoundedGeneralizedGaussian::new(order, 1.0, RoundedGeneralizedGaussian::default_grid_log2(1.0))
                .unwrap();
            let mut base = seeded_rng_for_experiments(27);
            let mut rng = CountingRng { inner: &mut base, words: 0 };
            let mut extensions = 0u64;
            for i in 0..n {
                extensions += u64::from(law.sample_cell_counted(0.3 + i as f64 * 1e-3, &mut rng).1);
            }
            let words = rng.words as f64 / n as f64;
            eprintln!(
                "exact generalized Gaussian N = {order}: {words:.2} words of 64 bits per release, {extensions} extensions in {n}"
            );
            assert_eq!(extensions, 0);
            assert!((3.0..60.0).contains(&words), "{words}");
        }
    }
}
