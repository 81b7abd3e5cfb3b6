//! Exact binomial tails and one-sided Clopper–Pearson confidence bounds (`docs/audit.md`).
//!
//! For K ~ Binomial(n, p) observed as k:
//!
//! - the **lower bound** p_L(k, n, α) solves P_p[K ≥ k] = α (p_L = 0 for k = 0), so P\[p < p_L\] ≤ α;
//! - the **upper bound** p_U(k, n, α) solves P_p[K ≤ k] = α (p_U = 1 for k = n), so P\[p > p_U\] ≤ α.
//!
//! Both are the exact (Clopper & Pearson 1934) bounds, the α and 1 − α quantiles of Beta(k, n − k + 1) and
//! Beta(k + 1, n − k). They are computed from binomial tail sums, not from a continued fraction of the
//! incomplete beta function (which needs O(√n) terms at n = 10⁷ and loses accuracy if capped). Each
//! probability mass is evaluated with Loader's (2000) saddle-point form
//!
//! ln P[K = j] = δ(n) − δ(j) − δ(n − j) − D(j, np) − D(n − j, nq) − ½ ln(2π j (n − j)/n),
//!
//! with δ the Stirling-series remainder of ln j! and D(x, m) = x ln(x/m) + m − x (evaluated by its series
//! near x = m), which keeps ~15 significant digits for every n up to 2⁵³. Tails are summed from the cut
//! outwards in log space (no underflow). The bisection keeps a bracket whose ends are on the conservative
//! side, and the returned bound is then widened by a relative 10⁻¹², so a reported lower bound is never
//! above the exact one and an upper bound never below it.

use statrs::function::gamma::ln_gamma;

const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// δ(n) = ln n! − ln(√(2πn)(n/e)ⁿ), the remainder of Stirling's formula (n ≥ 1).
fn stirling_remainder(n: f64) -> f64 {
    if n <= 15.0 {
        ln_gamma(n + 1.0) - (n + 0.5) * n.ln() + n - 0.5 * LN_2PI
    } else {
        let nn = n * n;
        // 1/12n − 1/360n³ + 1/1260n⁵ − 1/1680n⁷ + 1/1188n⁹.
        (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0 - (1.0 / 1680.0 - 1.0 / 1188.0 / nn) / nn) / nn) / nn) / n
    }
}

/// D(x, m) = x ln(x/m) + m − x ≥ 0, accurate when x ≈ m (Loader's bd0).
fn deviance(x: f64, m: f64) -> f64 {
    if (x - m).abs() < 0.1 * (x + m) {
        let v = (x - m) / (x + m);
        let mut s = (x - m) * v;
        let mut ej = 2.0 * x * v;
        let v2 = v * v;
        for j in 1..1000 {
            ej *= v2;
            let next = s + ej / f64::from(2 * j + 1);
            if next == s {
                return next;
            }
            s = next;
        }
        s
    } else {
        x * (x / m).ln() + m - x
    }
}

/// ln P[K = k] for K ~ Binomial(n, p), 0 ≤ k ≤ n, 0 < p < 1.
pub fn ln_binomial_pmf(k: u64, n: u64, p: f64) -> f64 {
    assert!(k <= n, "k = {k} > n = {n}");
    let q = 1.0 - p;
    if k == 0 {
        return n as f64 * (-p).ln_1p();
    }
    if k == n {
        return n as f64 * p.ln();
    }
    let (kf, nf) = (k as f64, n as f64);
    let rest = nf - kf;
    let lc = stirling_remainder(nf)
        - stirling_remainder(kf)
        - stirling_remainder(rest)
        - deviance(kf, nf * p)
        - deviance(rest, nf * q);
    lc - 0.5 * (LN_2PI + kf.ln() + (-kf / nf).ln_1p())
}

/// ln Σ_{j ∈ [from, to]} P[K = j] summed away from the mode: `up` sums j = from, from + 1, … (terms
/// decreasing when from is above the mode), else j = from, from − 1, ….
fn ln_tail_sum(from: u64, n: u64, p: f64, up: bool) -> f64 {
    let first = ln_binomial_pmf(from, n, p);
    let odds = p / (1.0 - p);
    // Terms relative to the first one; the ratio of consecutive terms is monotone, so once a ratio r < 1
    // the remainder is at most term·r/(1 − r).
    let (mut sum, mut term, mut j) = (1.0_f64, 1.0_f64, from);
    loop {
        let r = if up {
            if j >= n {
                break;
            }
            (n - j) as f64 / (j + 1) as f64 * odds
        } else {
            if j == 0 {
                break;
            }
            j as f64 / (n - j + 1) as f64 / odds
        };
        term *= r;
        sum += term;
        j = if up { j + 1 } else { j - 1 };
        if r < 1.0 && term * r / (1.0 - r) < 1e-17 * sum {
            break;
        }
    }
    first + sum.ln()
}

/// ln P[K ≥ k] for K ~ Binomial(n, p).
pub fn ln_binomial_sf(k: u64, n: u64, p: f64) -> f64 {
    if k == 0 || p >= 1.0 {
        return if k <= n { 0.0 } else { f64::NEG_INFINITY };
    }
    if k > n || p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    let mode = ((n + 1) as f64 * p).floor();
    if k as f64 > mode {
        ln_tail_sum(k, n, p, true)
    } else {
        // 1 − P[K ≤ k − 1], the lower tail being the small one.
        let lower = ln_tail_sum(k - 1, n, p, false).exp();
        (-lower).ln_1p()
    }
}

/// ln P[K ≤ k] for K ~ Binomial(n, p).
pub fn ln_binomial_cdf(k: u64, n: u64, p: f64) -> f64 {
    if k >= n || p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return f64::NEG_INFINITY;
    }
    let mode = ((n + 1) as f64 * p).floor();
    if (k as f64) < mode {
        ln_tail_sum(k, n, p, false)
    } else {
        let upper = ln_tail_sum(k + 1, n, p, true).exp();
        (-upper).ln_1p()
    }
}

/// P[K ≥ k] for K ~ Binomial(n, p) (exact up to rounding; used for the critical values of the tests).
pub fn binomial_sf(k: u64, n: u64, p: f64) -> f64 {
    ln_binomial_sf(k, n, p).exp()
}

/// Relative widening applied to every bound after bisection (absorbs rounding in the tail sums).
const WIDEN: f64 = 1e-12;

/// Bisection for the p at which an increasing function `f` of p crosses `target`, returning the bracket
/// (lo, hi) with f(lo) ≤ target < f(hi), both in (0, 1). Geometric steps while the bracket spans more than
/// a factor 2 (bounds near 0 can be ~10⁻¹⁸), arithmetic ones after.
fn bracket(f: impl Fn(f64) -> f64, target: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::MIN_POSITIVE, 1.0_f64);
    for _ in 0..400 {
        let mid = if hi > 2.0 * lo { (lo * hi).sqrt() } else { 0.5 * (lo + hi) };
        if mid <= lo || mid >= hi || hi - lo <= 1e-15 * hi {
            break;
        }
        if f(mid) <= target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, hi)
}

fn check(k: u64, n: u64, alpha: f64) {
    assert!(k <= n, "Clopper–Pearson: k = {k} > n = {n}");
    assert!(alpha > 0.0 && alpha < 1.0, "Clopper–Pearson: alpha = {alpha} must lie in (0, 1)");
}

/// The one-sided Clopper–Pearson lower bound p_L with P\[p < p_L\] ≤ `alpha`: the p at which P_p[K ≥ k] =
/// α (0 for k = 0), rounded down. Panics unless k ≤ n and 0 < α < 1.
pub fn lower(k: u64, n: u64, alpha: f64) -> f64 {
    check(k, n, alpha);
    if k == 0 {
        return 0.0;
    }
    if k == n {
        // P_p[K = n] = pⁿ = α.
        return (alpha.ln() / n as f64).exp() * (1.0 - WIDEN);
    }
    let ln_alpha = alpha.ln();
    let (lo, _) = bracket(|p| ln_binomial_sf(k, n, p), ln_alpha);
    lo * (1.0 - WIDEN)
}

/// The one-sided Clopper–Pearson upper bound p_U with P\[p > p_U\] ≤ `alpha`: the p at which P_p[K ≤ k] =
/// α (1 for k = n), rounded up. Panics unless k ≤ n and 0 < α < 1.
pub fn upper(k: u64, n: u64, alpha: f64) -> f64 {
    check(k, n, alpha);
    if k == n {
        return 1.0;
    }
    if k == 0 {
        // (1 − p)ⁿ = α.
        return (-(alpha.ln() / n as f64).exp_m1() * (1.0 + WIDEN)).min(1.0);
    }
    let ln_alpha = alpha.ln();
    // P_p[K ≤ k] decreases in p: bracket its negation.
    let (_, hi) = bracket(|p| -ln_binomial_cdf(k, n, p), -ln_alpha);
    (hi * (1.0 + WIDEN)).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    #[test]
    fn pmf_matches_direct_products() {
        // Small n against the factorial formula.
        let n = 20u64;
        for k in 0..=n {
            for p in [1e-3, 0.2, 0.5, 0.97] {
                let ln_choose = ln_gamma(21.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0);
                let direct = ln_choose + k as f64 * f64::ln(p) + (n - k) as f64 * (1.0 - p).ln();
                assert!((ln_binomial_pmf(k, n, p) - direct).abs() < 1e-12, "{k} {p}");
            }
        }
        // Masses sum to 1 at large n.
        let (n, p) = (10_000_000u64, 0.3);
        let total = ln_binomial_sf(0, n, p);
        assert_eq!(total, 0.0);
        let split = ln_binomial_sf(3_000_000, n, p).exp() + ln_binomial_cdf(2_999_999, n, p).exp();
        assert!((split - 1.0).abs() < 1e-12, "{split}");
    }

    #[test]
    fn tails_match_known_values() {
        // P[Bin(10, 0.5) ≥ 8] = 56/1024.
        assert!(rel(binomial_sf(8, 10, 0.5), 56.0 / 1024.0) < 1e-13);
        // P[Bin(100, 0.01) ≤ 0] = 0.99^100.
        assert!(rel(ln_binomial_cdf(0, 100, 0.01).exp(), 0.99f64.powi(100)) < 1e-13);
        // P[Bin(1000, 0.5) ≥ 600] = 1.364232e-10 (R: pbinom(599, 1000, 0.5, lower = FALSE)).
        assert!(rel(binomial_sf(600, 1000, 0.5), 1.364_232_3e-10) < 1e-6);
    }

    #[test]
    fn clopper_pearson_matches_known_values() {
        // Closed forms at the ends.
        assert!(rel(upper(0, 10, 0.05), 1.0 - 0.05f64.powf(0.1)) < 1e-10);
        assert!(rel(lower(10, 10, 0.05), 0.05f64.powf(0.1)) < 1e-10);
        assert!(rel(lower(1, 10, 0.05), 1.0 - 0.95f64.powf(0.1)) < 1e-10);
        assert_eq!(lower(0, 10, 0.05), 0.0);
        assert_eq!(upper(10, 10, 0.05), 1.0);
        // The two-sided 95 % interval of binom.test(5, 10) = [0.1870860, 0.8129140] and of binom.test(50, 100) =
        // [0.3983211, 0.6016789] (each side at 2.5 %).
        assert!((lower(5, 10, 0.025) - 0.187_086_0).abs() < 5e-8);
        assert!((upper(5, 10, 0.025) - 0.812_914_0).abs() < 5e-8);
        assert!((lower(50, 100, 0.025) - 0.398_321_1).abs() < 5e-8);
        assert!((upper(50, 100, 0.025) - 0.601_678_9).abs() < 5e-8);
        // Conservative direction: the tail at the bound is at most α.
        for (k, n) in [(1u64, 7u64), (3, 1000), (100_000, 10_000_000), (9_999_990, 10_000_000)] {
            let alpha = 1e-9;
            let lo = lower(k, n, alpha);
            let hi = upper(k, n, alpha);
            assert!(lo < k as f64 / n as f64 && hi > k as f64 / n as f64);
            assert!(ln_binomial_sf(k, n, lo) <= alpha.ln() + 1e-9, "{k} {n}");
            assert!(ln_binomial_cdf(k, n, hi) <= alpha.ln() + 1e-9, "{k} {n}");
            // And tight: 1e-9 relative further in, the tail exceeds α.
            assert!(ln_binomial_sf(k, n, lo * (1.0 + 1e-9)) > alpha.ln() - 1e-6);
        }
        // Large n: close to the normal approximation with z = 6.0 (α = 9.87e-10).
        let (k, n) = (100_000u64, 10_000_000u64);
        let p = 0.01;
        let se = (p * (1.0 - p) / n as f64).sqrt();
        let lo = lower(k, n, 9.865_876_450_377e-10);
        assert!((lo - (p - 6.0 * se)).abs() < 0.02 * 6.0 * se, "{lo}");
    }
}
