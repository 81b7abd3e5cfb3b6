//! Gaussian, Gamma and symmetric Beta draws with relative accuracy in every coordinate, built on the
//! full-precision uniforms of [`crate::sample::uniform`] (`docs/proofs/float_safety.md` §3f, Lemma N).
//!
//! A pair of independent standard normals is Box–Muller's, written so that nothing cancels:
//!
//!   (g₁, g₂) = √(2E)·(±sin φ, ±cos φ),  E ~ Exp(1) ([`exp1`]), φ = πV/2 ([`quarter_turn`]), fair signs,
//!
//! which is √(2E) times a uniform point of the circle (φ uniform on (0, π/2), its quadrant from the two signs and
//! a fair swap inside [`quarter_turn`]): exactly two independent N(0, 1) draws of the real uniforms read. Every
//! factor has relative accuracy (E within 15u, sin φ and cos φ within 6u, u = 2^-53), so each computed coordinate
//! is within 16u·|g| (+ 2^-1074 where it underflows) of its exact value — near 0 and far in the tail alike.
//! rand_distr's ziggurat, used until the full-precision uniforms, cannot reach beyond about 9σ with its 53-bit uniforms, and its
//! small values sit on an absolute lattice.
//!
//! Gamma(k) for an integer k is a sum of k exponentials (pairwise), Gamma(k + ½) adds E·sin²φ (Gamma(1) times
//! Beta(½, ½) is Gamma(½)), and the symmetric Beta(a, a) is X/(X + Y) with its complement Y/(X + Y): all with
//! relative accuracy, and no rejection.

use crate::sample::double_double::Dd;
use crate::sample::uniform::{exp1, quarter_turn};
use rand::Rng;

/// Relative error bound of each coordinate of [`normal_pair`] (in units of u = 2^-53): √(2E) within 8.5u
/// (E within 15u, the square root's own rounding), sin φ or cos φ within 6u, the product one rounding.
pub const NORMAL_RELATIVE_ERROR_UNITS: f64 = 16.0;

/// δ_N: a bound on the probability, per release, that a direction drawn from Lemma N's normals falls where its
/// relative bound fails (a Gaussian vector of norm below 2^-477, or below 10^-150 on the plane, where it is
/// redrawn): P(χ²_m < r²) ≤ (r²/2)^{m/2}/Γ(m/2 + 1) < 10^-300 (`docs/proofs/float_safety.md` §3f, Lemma N
/// "Directions"; §6).
pub const DIRECTION_EVENT_PROBABILITY: f64 = 1e-300;

/// Two independent standard normal draws, each within 16·2^-53 of its own size of the exact Box–Muller value of
/// the real uniforms it reads (Lemma N, `docs/proofs/float_safety.md` §3f).
#[inline]
pub fn normal_pair<R: Rng + ?Sized>(rng: &mut R) -> (f64, f64) {
    let r = (2.0 * exp1(rng)).sqrt();
    let (s, c) = quarter_turn(rng);
    let signs = rng.next_u32();
    let g1 = if signs & 1 == 0 { r * s } else { -(r * s) };
    let g2 = if signs & 2 == 0 { r * c } else { -(r * c) };
    (g1, g2)
}

/// Fills `out` with independent standard normal draws ([`normal_pair`]; an odd last one uses one coordinate of
/// a pair, which is itself an exact N(0, 1) draw).
#[inline]
pub fn fill_normals<R: Rng + ?Sized>(rng: &mut R, out: &mut [f64]) {
    let mut pairs = out.chunks_exact_mut(2);
    for pair in &mut pairs {
        (pair[0], pair[1]) = normal_pair(rng);
    }
    if let [last] = pairs.into_remainder() {
        *last = normal_pair(rng).0;
    }
}

/// One standard normal draw ([`normal_pair`]'s first coordinate).
#[inline]
pub fn normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    normal_pair(rng).0
}

/// Σ of `k` ≥ 1 independent Exp(1) draws, summed pairwise: a Gamma(k, 1) draw within (15 + ⌈log₂ k⌉)·2^-53 of
/// its own size of the exact sum of the real uniforms read (each term within 15u, each level of the pairwise
/// tree of positive terms one rounding).
pub fn gamma_integer<R: Rng + ?Sized>(k: usize, rng: &mut R) -> f64 {
    match k {
        0 => 0.0,
        1 => exp1(rng),
        _ => {
            let half = k / 2;
            gamma_integer(half, rng) + gamma_integer(k - half, rng)
        }
    }
}

/// Σ of `k` ≥ 1 independent Exp(1) draws summed in double-double, in order: a Gamma(k, 1) draw within
/// 15·2^-53 + 3.05k·2^-106 of its own size of the exact sum of the real uniforms read (each term within 15u,
/// Lemma U; each addition of positive terms within 3.01u² of the partial sum, Lemma DD;
/// `docs/proofs/float_safety.md` §3i). The draws are [`gamma_integer`]'s; only the sum is more accurate.
pub(crate) fn gamma_integer_dd<R: Rng + ?Sized>(k: usize, rng: &mut R) -> Dd {
    let mut sum = Dd::new(0.0);
    for _ in 0..k {
        sum = sum.add(Dd::new(exp1(rng)));
    }
    sum
}

/// Relative error bound of [`gamma_integer`]`(k)` and [`gamma_half_integer`]`(2k)` or `(2k − 1)`, in units of
/// 2^-53: 15 + ⌈log₂(k + 1)⌉ + 2 (the half's product E·sin²φ is within 15 + 13 + 1 units; one more addition).
pub fn gamma_relative_error_units(k: usize) -> f64 {
    let depth = usize::BITS - k.max(1).leading_zeros();
    30.0 + f64::from(depth) + 2.0
}

/// Relative error bound, in units of 2^-53, of each coordinate of a Laplace-type noise vector drawn as a radius
/// times a direction over `coords` coordinates — t = scale·[`gamma_integer`]`(coords)` (or divided by a rate)
/// times w = g/‖g‖ with g from [`fill_normals`] and ‖g‖ nalgebra's plain norm — as the log-Euclidean K-norm
/// law and the planar Laplace draw them: t within 15 + ⌈log₂ coords⌉ + 1 units, g_i within 16, ‖g‖ within
/// 17.5 + coords/2 (a plain sum of coords squares), the division and the product one each; times 1.01 for
/// second-order terms (`docs/proofs/float_safety.md` §3f). Coordinatewise relative: |t̂ŵ_i − t·w_i| ≤ this·u·|t·w_i|.
pub fn radius_direction_error_units(coords: usize) -> f64 {
    let depth = f64::from(usize::BITS - coords.max(1).leading_zeros());
    1.01 * (51.5 + depth + 0.5 * coords as f64)
}

/// A Gamma(`twice_shape`/2, 1) draw for `twice_shape` ≥ 1: ⌊shape⌋ exponentials, plus E·sin²φ ~ Gamma(½) when
/// the shape is a half-integer (Gamma(1)·Beta(½, ½), φ = πV/2). Relative accuracy
/// [`gamma_relative_error_units`].
pub fn gamma_half_integer<R: Rng + ?Sized>(twice_shape: usize, rng: &mut R) -> f64 {
    let whole = gamma_integer(twice_shape / 2, rng);
    if twice_shape % 2 == 1 {
        let (s, _) = quarter_turn(rng);
        whole + exp1(rng) * (s * s)
    } else {
        whole
    }
}

/// (Z, 1 − Z) for Z ~ Beta(a, a), a = `twice_shape`/2 ≥ ½: X/(X + Y) and Y/(X + Y) with X, Y independent
/// Gamma(a) ([`gamma_half_integer`]), each within 2·[`gamma_relative_error_units`] + 3 units of its own size.
pub fn symmetric_beta_pair<R: Rng + ?Sized>(twice_shape: usize, rng: &mut R) -> (f64, f64) {
    let x = gamma_half_integer(twice_shape, rng);
    let y = gamma_half_integer(twice_shape, rng);
    let s = x + y;
    (x / s, y / s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::rng::seeded_rng_for_experiments;
    use Dd;
    use rand::RngExt;

    const U: f64 = f64::EPSILON / 2.0;

    /// Standard normal CDF.
    fn phi(x: f64) -> f64 {
        0.5 * statrs::function::erf::erfc(-x / std::f64::consts::SQRT_2)
    }

    fn ks_normal(mut xs: Vec<f64>) -> crate::audit::gof::KsOutcome {
        crate::audit::gof::ks_test(&mut xs, |sorted| sorted.iter().map(|&x| phi(x)).collect(), 1e-9)
    }

    /// Both coordinates of the pair, and a lone draw, follow N(0, 1) (KS, α = 1e-9 each: false failure below
    /// 4e-9). Negative control: the pair without [`quarter_turn`]'s swap (so |g₁| ≤ |g₂| always) is caught.
    #[test]
    fn pairs_are_independent_standard_normals_and_a_broken_pair_is_caught() {
        let n = 200_000;
        let mut rng = seeded_rng_for_experiments(71);
        let (mut a, mut b, mut prod) = (Vec::new(), Vec::new(), 0.0);
        for _ in 0..n {
            let (x, y) = normal_pair(&mut rng);
            a.push(x);
            b.push(y);
            prod += x * y;
        }
        assert!(ks_normal(a).passed(), "first coordinate");
        assert!(ks_normal(b).passed(), "second coordinate");
        // Uncorrelated: E[g₁g₂] = 0 with variance 1/n; 6.1σ has two-sided probability 1e-9.
        assert!((prod / n as f64).abs() < 6.1 / (n as f64).sqrt(), "correlation {}", prod / n as f64);
        let lone: Vec<f64> = (0..n).map(|_| normal(&mut rng)).collect();
        assert!(ks_normal(lone).passed(), "lone draws");
        let broken: Vec<f64> = (0..n)
            .map(|_| {
                let r = (2.0 * exp1(&mut rng)).sqrt();
                let (s, c) = quarter_turn(&mut rng);
                let small = s.min(c);
                if rng.random::<bool>() { r * small } else { -r * small }
            })
            .collect();
        assert!(!ks_normal(broken).passed(), "the control must fail");
    }

    /// The arithmetic after the uniforms: from the same E and φ (as doubles), each coordinate is within
    /// 16u − 7.5u (E's own error, proven in `uniform`) of a double-double reference √(2E)·sin φ, over draws and
    /// at the extremes (E from 1e-300 to 700, φ near 0 and near π/2).
    #[test]
    fn each_coordinate_has_relative_accuracy_at_both_ends() {
        let check = |e: f64, v: f64| {
            // quarter_turn's computation for V = v (before its swap): sin_cos of π/4·v.
            let angle = std::f64::consts::FRAC_PI_4 * v;
            let (s, c) = angle.sin_cos();
            let r = (2.0 * e).sqrt();
            let rr = Dd::new(2.0 * e).sqrt();
            let pi_over_4 = Dd { hi: std::f64::consts::FRAC_PI_4, lo: 3.061_616_997_868_383e-17 };
            let (sd, cd) = Dd::new(v).mul(pi_over_4).sin_cos();
            for (got, want) in [(r * s, rr.mul(sd)), (r * c, rr.mul(cd))] {
                let err = want.minus_from(got).abs();
                let want = want.hi.abs();
                // Relative, plus the subnormal spacing where the product underflows.
                assert!(
                    err <= (16.0 - 7.5) * U * want + 5e-324,
                    "E {e:e}, V {v:e}: error {:.2}u of the value",
                    err / (U * want)
                );
            }
        };
        for e in [1e-300, 1e-30, 1e-8, 0.3, 1.0, 37.0, 700.0] {
            for v in [1e-300, 1e-20, 1e-5, 0.25, 0.5, 0.9, 1.0] {
                check(e, v);
            }
        }
        let mut rng = seeded_rng_for_experiments(72);
        for _ in 0..20_000 {
            check(exp1(&mut rng), crate::sample::uniform::unit(&mut rng));
        }
    }

    /// Values a 53-bit-uniform sampler cannot give: beyond 9σ (P ≈ 2e-19) and within 1e-17 of 0 (P ≈ 8e-18)
    /// are reachable here, found by scripting the random words (the deep binades of E's and V's uniforms).
    #[test]
    fn the_far_tail_and_the_tiny_values_are_reachable() {
        // A stream that starts with zero words: exp1's fair bit picks the tail, then E = (64·3 + …)·ln 2.
        struct Scripted(std::vec::IntoIter<u64>);
        impl rand::TryRng for Scripted {
            type Error = std::convert::Infallible;
            fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
                Ok(self.try_next_u64()? as u32)
            }
            fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
                Ok(self.0.next().unwrap_or(0x5555_5555_5555_5555))
            }
            fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
                dst.fill(0x55);
                Ok(())
            }
        }
        let mut far = Scripted([0; 8].into_iter().chain([1 << 40]).collect::<Vec<u64>>().into_iter());
        let (g1, g2) = normal_pair(&mut far);
        assert!(g1.hypot(g2) > 20.0, "radius {}", g1.hypot(g2));
        // E's body (first word's top bit set), then a uniform 2^-700 for the angle: sin φ ≈ 2^-700·π/4.
        let tiny_angle = [1u64 << 63, 1 << 62].into_iter().chain(std::iter::repeat_n(0, 10)).chain([1 << 20]);
        let mut near_zero = Scripted(tiny_angle.collect::<Vec<_>>().into_iter());
        let (g1, g2) = normal_pair(&mut near_zero);
        let small = g1.abs().min(g2.abs());
        assert!(small > 0.0 && small < 1e-150, "smallest coordinate {small:e}");
    }

    /// Gamma(k) and Gamma(k + ½) match their CDFs (KS, α = 1e-9 each); the symmetric Beta's two parts sum to
    /// 1 and match the Beta CDF. Control: one exponential too few is caught.
    #[test]
    fn gamma_and_beta_follow_their_laws() {
        use statrs::distribution::{Beta, ContinuousCDF, Gamma};
        let n = 100_000;
        let mut rng = seeded_rng_for_experiments(73);
        let ks = |mut xs: Vec<f64>, cdf: &dyn Fn(f64) -> f64| {
            crate::audit::gof::ks_test(&mut xs, |s| s.iter().map(|&x| cdf(x)).collect(), 1e-9).passed()
        };
        for twice in [1usize, 2, 3, 7, 20, 301] {
            let law = Gamma::new(twice as f64 / 2.0, 1.0).unwrap();
            let xs: Vec<f64> = (0..n).map(|_| gamma_half_integer(twice, &mut rng)).collect();
            assert!(ks(xs, &|x| law.cdf(x)), "Gamma({})", twice as f64 / 2.0);
            let beta = Beta::new(twice as f64 / 2.0, twice as f64 / 2.0).unwrap();
            let zs: Vec<f64> = (0..n)
                .map(|_| {
                    let (z, w) = symmetric_beta_pair(twice, &mut rng);
                    assert!((z + w - 1.0).abs() <= 4.0 * U);
                    z
                })
                .collect();
            assert!(ks(zs, &|x| beta.cdf(x)), "Beta({0}, {0})", twice as f64 / 2.0);
        }
        let law = Gamma::new(10.0, 1.0).unwrap();
        let short: Vec<f64> = (0..n).map(|_| gamma_integer(9, &mut rng)).collect();
        assert!(!ks(short, &|x| law.cdf(x)), "the control must fail");
    }
}
