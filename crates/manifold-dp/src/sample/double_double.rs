//! Double-double arithmetic (a value as an unevaluated sum hi + lo, ~106 bits): the relative-error release of
//! the means on S^{n−1}, n ≥ 4, computes its offset in it, and tests measure f64 pipelines against it.
//! Error-free transformations: two-sum (Knuth) and two-product (fma). Each operation's error, derived for the
//! code as written (`docs/proofs/float_safety.md` §3i, "Lemma DD"), with u = 2^-53 and normalised operands:
//! [`Dd::add`] within 3.01u²(|a| + |b|), [`Dd::mul`] within 8.01u²|ab|, [`Dd::div`] within 18u²|a/b|,
//! [`Dd::sqrt`] within 11u²√a, [`Dd::sin_cos`] on [0, π/2] within 150u²·x and 200u²; every result is normalised
//! (it ends in a two-sum).

/// hi + lo with |lo| ≤ ulp(hi)/2 (normalised: every constructor and operation ends in a two-sum).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Dd {
    pub hi: f64,
    pub lo: f64,
}

fn two_sum(a: f64, b: f64) -> Dd {
    let hi = a + b;
    let bb = hi - a;
    Dd { hi, lo: (a - (hi - bb)) + (b - bb) }
}

fn two_prod(a: f64, b: f64) -> Dd {
    let hi = a * b;
    Dd { hi, lo: a.mul_add(b, -hi) }
}

impl Dd {
    /// x itself (lo = 0).
    pub fn new(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }

    /// a + b exactly, as a double-double.
    #[cfg(test)]
    pub fn sum(a: f64, b: f64) -> Dd {
        two_sum(a, b)
    }

    /// self + o within 3.01u²(|self| + |o|) (Lemma DD; relative for terms of one sign).
    pub fn add(self, o: Dd) -> Dd {
        let s = two_sum(self.hi, o.hi);
        let t = two_sum(self.lo, o.lo);
        let v = two_sum(s.hi, s.lo + t.hi);
        two_sum(v.hi, v.lo + t.lo)
    }

    /// −self, exactly.
    pub fn neg(self) -> Dd {
        Dd { hi: -self.hi, lo: -self.lo }
    }

    /// self − o: [`Dd::add`] of −o.
    pub fn sub(self, o: Dd) -> Dd {
        self.add(o.neg())
    }

    /// self·o within 8.01u²|self·o| (Lemma DD).
    pub fn mul(self, o: Dd) -> Dd {
        let p = two_prod(self.hi, o.hi);
        two_sum(p.hi, p.lo + (self.hi * o.lo + self.lo * o.hi))
    }

    /// self/o within 18u²|self/o| (Lemma DD: one quotient, a residual and two corrections).
    pub fn div(self, o: Dd) -> Dd {
        let q1 = self.hi / o.hi;
        let r = self.sub(o.mul(Dd::new(q1)));
        let q2 = r.hi / o.hi;
        let r = r.sub(o.mul(Dd::new(q2)));
        let q3 = r.hi / o.hi;
        two_sum(q1, q2).add(Dd::new(q3))
    }

    /// √self within 11u²√self for self > 0 (one Newton step from the f64 root; Lemma DD); 0 for self ≤ 0.
    pub fn sqrt(self) -> Dd {
        if self.hi <= 0.0 {
            return Dd::new(0.0);
        }
        // One Newton step from the f64 root doubles its 53 bits.
        let x = Dd::new(self.hi.sqrt());
        x.add(self.sub(x.mul(x)).div(x.add(x)))
    }

    /// (sin x, cos x) by their Taylor series to x^41 and x^40 (20 terms after the first), for 0 ≤ x ≤ π/2
    /// within 150u²·x and 200u² (Lemma DD: each term's relative error and each addition's, the first omitted
    /// term below 10⁻³⁷x); tests use it as a reference up to |x| ≤ 2 (terms dropped below 10⁻³⁷).
    pub fn sin_cos(self) -> (Dd, Dd) {
        debug_assert!(self.hi.abs() <= 2.0, "a series for small arguments");
        let x2 = self.mul(self);
        let (mut sin, mut cos) = (self, Dd::new(1.0));
        let (mut ts, mut tc) = (self, Dd::new(1.0));
        for n in 1..=SERIES_TERMS {
            let n = f64::from(n);
            ts = ts.mul(x2).div(Dd::new(-(2.0 * n) * (2.0 * n + 1.0)));
            tc = tc.mul(x2).div(Dd::new(-(2.0 * n - 1.0) * (2.0 * n)));
            sin = sin.add(ts);
            cos = cos.add(tc);
        }
        (sin, cos)
    }

    /// (self − f64) as the nearest f64: the error of an f64 against this reference.
    #[cfg(test)]
    pub fn minus_from(self, x: f64) -> f64 {
        (x - self.hi) - self.lo
    }
}

/// The terms of [`Dd::sin_cos`]'s series after the first.
const SERIES_TERMS: u32 = 20;

/// The Euclidean norm of a double-double vector.
#[cfg(test)]
pub(crate) fn norm(v: &[Dd]) -> Dd {
    v.iter().fold(Dd::new(0.0), |acc, x| acc.add(x.mul(*x))).sqrt()
}

/// Reals as big integers times 2^-[`exact::P`]: a reference for double-double arithmetic whose own error
/// (a truncation of 2^-400 per operation) is far below the 2^-106 being measured.
#[cfg(test)]
pub(crate) mod exact {
    use super::Dd;
    use num_bigint::{BigInt, Sign};

    /// The fixed point's fractional bits.
    pub const P: usize = 400;

    /// An integer k standing for k·2^-P.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Fx(pub BigInt);

    impl Fx {
        /// x exactly (truncated below 2^-P).
        pub fn from_f64(x: f64) -> Fx {
            if x == 0.0 {
                return Fx(BigInt::from(0));
            }
            let bits = x.to_bits();
            let exp = ((bits >> 52) & 0x7ff) as i64;
            let frac = bits & ((1u64 << 52) - 1);
            let (mant, e) = if exp == 0 { (frac, -1074) } else { (frac | (1 << 52), exp - 1075) };
            let m = if x < 0.0 { -BigInt::from(mant) } else { BigInt::from(mant) };
            let shift = e + P as i64;
            Fx(if shift >= 0 { m << shift as usize } else { m >> (-shift) as usize })
        }

        /// hi + lo exactly.
        pub fn dd(d: Dd) -> Fx {
            Fx::from_f64(d.hi).add(&Fx::from_f64(d.lo))
        }

        pub fn add(&self, o: &Fx) -> Fx {
            Fx(&self.0 + &o.0)
        }

        pub fn sub(&self, o: &Fx) -> Fx {
            Fx(&self.0 - &o.0)
        }

        pub fn mul(&self, o: &Fx) -> Fx {
            Fx((&self.0 * &o.0) >> P)
        }

        pub fn div(&self, o: &Fx) -> Fx {
            Fx((&self.0 << P) / &o.0)
        }

        /// √self for self ≥ 0.
        pub fn sqrt(&self) -> Fx {
            Fx((&self.0 << P).sqrt())
        }

        pub fn abs(&self) -> Fx {
            Fx(self.0.magnitude().clone().into())
        }

        /// (sin x, cos x) by their series, summed until the terms vanish at 2^-P.
        pub fn sin_cos(&self) -> (Fx, Fx) {
            let x2 = self.mul(self);
            let (mut sin, mut cos) = (self.clone(), Fx::from_f64(1.0));
            let (mut ts, mut tc) = (self.clone(), Fx::from_f64(1.0));
            let mut k = 1i64;
            while ts.0.sign() != Sign::NoSign || tc.0.sign() != Sign::NoSign {
                ts = Fx(-(ts.mul(&x2).0) / BigInt::from((2 * k) * (2 * k + 1)));
                tc = Fx(-(tc.mul(&x2).0) / BigInt::from((2 * k - 1) * (2 * k)));
                sin = sin.add(&ts);
                cos = cos.add(&tc);
                k += 1;
            }
            (sin, cos)
        }

        /// e^x by its series, summed until the terms vanish at 2^-P (|x| of order 1).
        pub fn exp(&self) -> Fx {
            let (mut sum, mut term) = (Fx::from_f64(1.0), Fx::from_f64(1.0));
            let mut k = 1i64;
            while term.0.magnitude() > &num_bigint::BigUint::from(1u8) {
                term = Fx(term.mul(self).0 / BigInt::from(k));
                sum = sum.add(&term);
                k += 1;
            }
            sum
        }

        /// ln(1 + x) for x > −1 as 2·atanh(x/(2 + x)), its series summed until the terms vanish at 2^-P.
        pub fn ln_1p(&self) -> Fx {
            let y = self.div(&Fx::from_f64(2.0).add(self));
            let y2 = y.mul(&y);
            let (mut sum, mut power) = (Fx::from_f64(0.0), y);
            let mut k = 0i64;
            // |power| ≤ 1 ends it: a negative product's shift floors to −1, never to 0.
            while power.0.magnitude() > &num_bigint::BigUint::from(1u8) {
                sum = sum.add(&Fx(&power.0 / BigInt::from(2 * k + 1)));
                power = power.mul(&y2);
                k += 1;
            }
            Fx(sum.0 * 2)
        }

        /// π by Machin's formula, 16·atan(1/5) − 4·atan(1/239), each series summed until its terms vanish.
        pub fn pi() -> Fx {
            let atan_inv = |m: i64| {
                let m2 = BigInt::from(m * m);
                let (mut sum, mut power) = (BigInt::from(0), (BigInt::from(1) << P) / BigInt::from(m));
                let mut n = 0i64;
                while power.sign() != Sign::NoSign {
                    let term = &power / BigInt::from(2 * n + 1);
                    sum = if n % 2 == 0 { sum + term } else { sum - term };
                    power = &power / &m2;
                    n += 1;
                }
                sum
            };
            Fx(atan_inv(5) * 16 - atan_inv(239) * 4)
        }

        /// ln x for x > 0: ln(x·2^-e) + e·ln 2 with x·2^-e ∈ [1, 2) (its ln_1p converges geometrically).
        pub fn ln(&self) -> Fx {
            let e = self.0.bits() as i64 - 1 - P as i64;
            let scaled = if e >= 0 { Fx(&self.0 >> e as usize) } else { Fx(&self.0 << (-e) as usize) };
            let ln2 = Fx::from_f64(1.0).ln_1p();
            scaled.sub(&Fx::from_f64(1.0)).ln_1p().add(&Fx(ln2.0 * e))
        }

        /// The nearest double, about (its leading 64 bits, then one rounding).
        pub fn to_f64(&self) -> f64 {
            let mag = self.0.magnitude();
            let shift = mag.bits().saturating_sub(64);
            let top = (mag >> shift).iter_u64_digits().next().unwrap_or(0);
            let v = top as f64 * 2f64.powi(shift as i32 - P as i32);
            if self.0.sign() == Sign::Minus { -v } else { v }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::exact::Fx;
    use super::*;
    use rand::RngExt;

    /// A normalised double-double near `x`: x plus a low part anywhere up to half an ulp, or at ±½ ulp.
    fn near(x: f64, rng: &mut crate::sample::rng::ReleaseRng) -> Dd {
        let half = if x == 0.0 { 0.0 } else { 2f64.powi(x.abs().log2().floor() as i32 - 53) };
        let lo = match rng.random_range(0..4) {
            0 => half,
            1 => -half,
            2 => 0.0,
            _ => rng.random_range(-1.0..1.0) * half,
        };
        let s = x + lo;
        Dd { hi: s, lo: (x - s) + lo }
    }

    /// Lemma DD's bounds hold against exact arithmetic (2^-400 fixed point) over 2·10⁵ operand pairs of
    /// either sign, at binade ends and with low parts at ±½ ulp: add within 3.01u²(|a| + |b|), mul 8.01u²|ab|,
    /// div 18u²|a/b|, sqrt 11u²√a; sin_cos on [0, π/2] within 150u²·x and 200u². Control: the f64 results (the
    /// leading parts alone) err by far more than the bounds.
    #[test]
    fn double_double_operations_are_within_lemma_dd() {
        let u2 = (f64::EPSILON / 2.0).powi(2);
        let mut rng = crate::sample::rng::seeded_rng_for_experiments(106);
        let (mut worst, mut control) = ([0.0f64; 6], 0.0f64);
        let err = |got: Dd, exact: &Fx| Fx::dd(got).sub(exact).abs().to_f64();
        for i in 0..200_000 {
            let pick = |rng: &mut crate::sample::rng::ReleaseRng| -> f64 {
                let x: f64 = match i % 3 {
                    0 => rng.random_range(0.25..4.0),
                    1 => 1.0 + rng.random_range(0..64) as f64 * f64::EPSILON,
                    _ => 1.0 - rng.random_range(1..64) as f64 * f64::EPSILON / 2.0,
                };
                x * 2f64.powi(rng.random_range(-30..30)) * if rng.random::<bool>() { -1.0 } else { 1.0 }
            };
            let (a, b) = (near(pick(&mut rng), &mut rng), near(pick(&mut rng), &mut rng));
            let (fa, fb) = (Fx::dd(a), Fx::dd(b));
            let (na, nb) = (fa.abs().to_f64(), fb.abs().to_f64());
            let sum = fa.add(&fb);
            worst[0] = worst[0].max(err(a.add(b), &sum) / (u2 * (na + nb)));
            worst[1] = worst[1].max(err(a.mul(b), &fa.mul(&fb)) / (u2 * na * nb));
            worst[2] = worst[2].max(err(a.div(b), &fa.div(&fb)) / (u2 * na / nb));
            let pos = if a.hi < 0.0 { a.neg() } else { a };
            let root = Fx::dd(pos).sqrt();
            worst[3] = worst[3].max(err(pos.sqrt(), &root) / (u2 * root.to_f64()));
            control = control.max(Fx::from_f64(a.hi * b.hi).sub(&fa.mul(&fb)).abs().to_f64() / (u2 * na * nb));
            if i % 20 == 0 {
                let x = near(rng.random_range(0.0..std::f64::consts::FRAC_PI_2), &mut rng);
                let x = if x.hi > std::f64::consts::FRAC_PI_2 { Dd::new(std::f64::consts::FRAC_PI_2) } else { x };
                let (s, c) = x.sin_cos();
                let (es, ec) = Fx::dd(x).sin_cos();
                worst[4] = worst[4].max(err(s, &es) / (u2 * x.hi));
                worst[5] = worst[5].max(err(c, &ec) / u2);
            }
        }
        eprintln!(
            "Lemma DD, worst in u² (bounds 3.01, 8.01, 18, 11, 150, 200): {worst:.3?}; f64 product {control:.3e}"
        );
        for (w, bound) in worst.iter().zip([3.01, 8.01, 18.0, 11.0, 150.0, 200.0]) {
            assert!(*w <= bound, "{worst:?}");
        }
        assert!(control > 1e15, "the control: {control}");
    }

    #[test]
    fn the_reference_is_far_more_accurate_than_f64() {
        // sin² + cos² = 1 and π/6 to ~1e-30; √2·√2 = 2.
        for x in [0.1, 0.5, 1.0, std::f64::consts::FRAC_PI_2, 1.9] {
            let (s, c) = Dd::new(x).sin_cos();
            let one = s.mul(s).add(c.mul(c)).sub(Dd::new(1.0));
            assert!(one.hi.abs() < 1e-30, "{x}: {one:?}");
        }
        let pi = Dd { hi: std::f64::consts::PI, lo: 1.2246467991473532e-16 };
        let (s, _) = pi.div(Dd::new(6.0)).sin_cos();
        assert!(s.sub(Dd::new(0.5)).hi.abs() < 1e-30, "{s:?}");
        let r = Dd::new(2.0).sqrt();
        assert!(r.mul(r).sub(Dd::new(2.0)).hi.abs() < 1e-30);
        // Control: f64's own sin is off by far more than that somewhere.
        let worst = (1..1000)
            .map(|i| {
                let x = i as f64 * 1.9e-3;
                Dd::new(x).sin_cos().0.minus_from(x.sin()).abs()
            })
            .fold(0.0, f64::max);
        assert!(worst > 1e-20, "{worst}");
    }
}
