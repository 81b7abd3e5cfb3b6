//! Exact coins in integer arithmetic: Bernoulli(n/d), Bernoulli(2^-i), Bernoulli(e^{−γ}) for a γ ∈ [0, 1]
//! given as a coin of probability γ (and Bernoulli(e^{−n·γ}) as n such coins), and the geometric law
//! P(G ≥ j) = e^{−j·s/t}. No floating point touches a probability, so each coin has exactly its stated law
//! (Canonne, Kamath & Steinke 2020, Algorithms 1–2; `docs/proofs/float_safety.md` §8).
//!
//! rand's `random_range` is not used: without its `unbiased` feature it may be biased by up to 2^-64.

use rand::Rng;

/// 128 uniform bits.
#[inline]
fn random_u128<R: Rng + ?Sized>(rng: &mut R) -> u128 {
    ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128
}

/// A uniform integer in {0, …, d − 1} (d ≥ 1), by rejection from the smallest power of two ≥ d: exact, and
/// fewer than two rounds on average.
///
/// # Panics
/// If d = 0 (there is no such integer; answering 0 would be a wrong law).
#[inline]
pub fn uniform_below<R: Rng + ?Sized>(d: u128, rng: &mut R) -> u128 {
    assert!(d > 0, "uniform_below(0): no integer below 0");
    if d <= 1 {
        return 0;
    }
    let bits = 128 - (d - 1).leading_zeros();
    loop {
        let r = random_u128(rng) >> (128 - bits);
        if r < d {
            return r;
        }
    }
}

/// Bernoulli(n/d) for 0 ≤ n ≤ d, d ≥ 1: a uniform integer below d compared with n.
///
/// # Panics
/// If n > d or d = 0: n/d is then no probability, and the comparison would silently answer as if it were
/// min(n/d, 1) (the coarse-grid flaw, now refused). A check, not a debug assertion, because the statistical
/// tests run in release builds.
#[inline]
pub fn bernoulli_ratio<R: Rng + ?Sized>(n: u128, d: u128, rng: &mut R) -> bool {
    assert!(n <= d && d >= 1, "bernoulli_ratio({n}, {d}): not a probability");
    uniform_below(d, rng) < n
}

/// Bernoulli(r/2^bits) for r < 2^bits, bits ≤ 128: `bits` uniform bits compared with r.
///
/// # Panics
/// If bits > 128 or r ≥ 2^bits (r/2^bits would be no probability, and the comparison always true).
#[inline]
pub fn bernoulli_dyadic<R: Rng + ?Sized>(r: u128, bits: u32, rng: &mut R) -> bool {
    assert!(bits <= 128 && (bits == 128 || r < 1u128 << bits), "bernoulli_dyadic({r}, {bits}): not a probability");
    bits > 0 && random_u128(rng) >> (128 - bits) < r
}

/// Bernoulli(2^-i): i uniform bits, all zero (stops at the first word that is not).
#[inline]
pub fn bernoulli_pow2<R: Rng + ?Sized>(i: u32, rng: &mut R) -> bool {
    let mut left = i;
    while left >= 64 {
        if rng.next_u64() != 0 {
            return false;
        }
        left -= 64;
    }
    left == 0 || rng.next_u64() >> (64 - left) == 0
}

/// Bernoulli(e^{−γ}) for γ ∈ [0, 1], given `gamma`, a fresh Bernoulli(γ) coin per call (CKS20 Algorithm 1):
/// draw A_k ~ Bernoulli(γ/k) for k = 1, 2, … until one is 0 and answer whether that k is odd; P = Σ over odd
/// k of γ^{k−1}/(k−1)!·(1 − γ/k) = e^{−γ}. Bernoulli(γ/k) is the product of independent Bernoulli(γ) and
/// Bernoulli(1/k) coins, so γ may be any exact coin.
pub fn bernoulli_exp_neg<R: Rng + ?Sized>(rng: &mut R, mut gamma: impl FnMut(&mut R) -> bool) -> bool {
    let mut k: u128 = 1;
    while bernoulli_ratio(1, k, rng) && gamma(rng) {
        k += 1;
    }
    k % 2 == 1
}

/// Bernoulli(e^{−n·γ}) for γ ∈ [0, 1] given, as in [`bernoulli_exp_neg`], a fresh Bernoulli(γ) coin per call:
/// e^{−n·γ} = (e^{−γ})^n, so n independent Bernoulli(e^{−γ}) coins, all successes (stopping at the first
/// failure). Reaches e^{−γ′} for γ′ = n·γ > 1, where CKS20 Algorithm 1 itself would need a coin of
/// probability γ′ (`docs/proofs/float_safety.md` §8). n = 1 draws exactly what [`bernoulli_exp_neg`] draws.
pub fn bernoulli_exp_neg_multiple<R: Rng + ?Sized>(rng: &mut R, n: u32, mut gamma: impl FnMut(&mut R) -> bool) -> bool {
    (0..n).all(|_| bernoulli_exp_neg(rng, &mut gamma))
}

/// Bernoulli(e^{−1}).
#[inline]
pub fn bernoulli_exp_neg_one<R: Rng + ?Sized>(rng: &mut R) -> bool {
    bernoulli_exp_neg(rng, |_| true)
}

/// G with P(G ≥ j) = e^{−j·s/t} for j = 0, 1, … (s, t ≥ 1; t ≤ 2^64; s/t may exceed 1): X = U + t·V with U
/// uniform on {0, …, t − 1} kept with probability e^{−U/t} and V the number of Bernoulli(e^{−1}) successes
/// before the first failure is geometric with P(X ≥ x) = e^{−x/t}, and G = ⌊X/s⌋ (CKS20 Algorithm 2,
/// unsigned).
///
/// # Panics
/// If s = 0, t = 0 or t > 2^64 (the last so that U + t·V cannot overflow).
pub fn geometric_exp<R: Rng + ?Sized>(s: u128, t: u128, rng: &mut R) -> u128 {
    assert!(s >= 1 && (1..=1 << 64).contains(&t), "geometric_exp({s}, {t}): needs s, t ≥ 1 and t ≤ 2^64");
    loop {
        let u = uniform_below(t, rng);
        if !bernoulli_exp_neg(rng, |r| bernoulli_ratio(u, t, r)) {
            continue;
        }
        // V ≥ 2^63 needs 2^63 consecutive successes of probability e^{−1}: never, and never a wrong value.
        let mut v: u128 = 0;
        while bernoulli_exp_neg_one(rng) {
            v += 1;
        }
        return (u + t * v) / s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::rng::{ReleaseRng, seeded_rng_for_experiments};

    /// Two-sided binomial check with Hoeffding's bound: |p̂ − p| < √(ln(2/α)/(2n)) at α = 1e-9.
    fn close(hits: usize, n: usize, p: f64) -> bool {
        let t = ((2.0f64 / 1e-9).ln() / (2.0 * n as f64)).sqrt();
        (hits as f64 / n as f64 - p).abs() < t
    }

    #[test]
    fn coins_have_their_laws() {
        let mut rng = seeded_rng_for_experiments(7);
        let n = 200_000;
        let count =
            |f: &mut dyn FnMut(&mut ReleaseRng) -> bool, rng: &mut ReleaseRng| (0..n).filter(|_| f(rng)).count();
        assert!(close(count(&mut |r| bernoulli_ratio(3, 7, r), &mut rng), n, 3.0 / 7.0));
        assert!(close(count(&mut |r| bernoulli_dyadic(5, 3, r), &mut rng), n, 5.0 / 8.0));
        assert!(close(count(&mut |r| bernoulli_pow2(2, r), &mut rng), n, 0.25));
        assert!(close(count(&mut |r| bernoulli_exp_neg_one(r), &mut rng), n, (-1.0f64).exp()));
        assert!(close(
            count(&mut |r| bernoulli_exp_neg(r, |q| bernoulli_ratio(2, 5, q)), &mut rng),
            n,
            (-0.4f64).exp()
        ));
        // Negative control: the same check refuses a coin of the wrong probability.
        assert!(!close(count(&mut |r| bernoulli_ratio(3, 8, r), &mut rng), n, 3.0 / 7.0));
        // P(G ≥ j) = e^{−j s/t} at j = 1, 2 for s/t = 3/5.
        let draws: Vec<u128> = (0..n).map(|_| geometric_exp(3, 5, &mut rng)).collect();
        for j in 1..=2u128 {
            let hits = draws.iter().filter(|&&g| g >= j).count();
            assert!(close(hits, n, (-(j as f64) * 0.6).exp()), "P(G >= {j})");
        }
        assert!(!close(draws.iter().filter(|&&g| g >= 1).count(), n, (-0.5f64).exp()));
        // s > t: P(G ≥ 1) = e^{−8/3}.
        let hits = (0..n).filter(|_| geometric_exp(8, 3, &mut rng) >= 1).count();
        assert!(close(hits, n, (-8.0f64 / 3.0).exp()));
    }

    /// Bernoulli(e^{−n·γ}) past γ′ = n·γ = 1: e^{−3·(5/6)} = e^{−2.5} and e^{−256·(1/2)·(3/4)} = e^{−96} (never
    /// a success in 2·10^5 draws unless the law is wrong: P(any) < 10^-36). Same Hoeffding bound as above;
    /// negative control: reading γ′ as min(γ′, 1), the pre-issue-37 coin, gives e^{−1}, refused.
    #[test]
    fn exp_neg_multiple_reaches_gamma_above_one() {
        let mut rng = seeded_rng_for_experiments(9);
        let n = 200_000;
        let hits = (0..n).filter(|_| bernoulli_exp_neg_multiple(&mut rng, 3, |r| bernoulli_ratio(5, 6, r))).count();
        assert!(close(hits, n, (-2.5f64).exp()));
        assert!(!close(hits, n, (-1.0f64).exp()));
        let hits = (0..n)
            .filter(|_| {
                bernoulli_exp_neg_multiple(&mut rng, 256, |r| bernoulli_ratio(1, 2, r) && bernoulli_ratio(3, 4, r))
            })
            .count();
        assert_eq!(hits, 0);
        // n = 1 is bernoulli_exp_neg, draw for draw.
        let (mut a, mut b) = (seeded_rng_for_experiments(10), seeded_rng_for_experiments(10));
        for _ in 0..1000 {
            let coin = |r: &mut ReleaseRng| bernoulli_ratio(2, 7, r);
            assert_eq!(bernoulli_exp_neg_multiple(&mut a, 1, coin), bernoulli_exp_neg(&mut b, coin));
        }
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    #[should_panic(expected = "not a probability")]
    fn ratio_above_one_is_refused() {
        bernoulli_ratio(3, 2, &mut seeded_rng_for_experiments(1));
    }

    #[test]
    #[should_panic(expected = "not a probability")]
    fn dyadic_above_one_is_refused() {
        bernoulli_dyadic(9, 3, &mut seeded_rng_for_experiments(1));
    }

    #[test]
    #[should_panic(expected = "no integer below 0")]
    fn uniform_below_zero_is_refused() {
        uniform_below(0, &mut seeded_rng_for_experiments(1));
    }

    #[test]
    fn pow2_and_dyadic_edges() {
        let mut rng = seeded_rng_for_experiments(8);
        assert!(bernoulli_pow2(0, &mut rng));
        assert!(!bernoulli_dyadic(0, 0, &mut rng));
        assert!(!(0..1000).any(|_| bernoulli_pow2(200, &mut rng)));
        assert!((0..1000).all(|_| uniform_below(1, &mut rng) == 0));
        assert!((0..1000).all(|_| uniform_below(u128::MAX, &mut rng) < u128::MAX));
    }
}
