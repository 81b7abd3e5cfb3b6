//! Double-double arithmetic (a value as an unevaluated sum hi + lo, ~106 bits) for tests that measure an f64
//! pipeline's error against a reference far more accurate than the ulps being counted. Error-free
//! transformations: two-sum (Knuth) and two-product (fma).

/// hi + lo with |lo| ≤ ulp(hi)/2.
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
    pub fn new(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }

    /// a + b exactly, as a double-double.
    pub fn sum(a: f64, b: f64) -> Dd {
        two_sum(a, b)
    }

    pub fn add(self, o: Dd) -> Dd {
        let s = two_sum(self.hi, o.hi);
        let t = two_sum(self.lo, o.lo);
        let v = two_sum(s.hi, s.lo + t.hi);
        two_sum(v.hi, v.lo + t.lo)
    }

    pub fn neg(self) -> Dd {
        Dd { hi: -self.hi, lo: -self.lo }
    }

    pub fn sub(self, o: Dd) -> Dd {
        self.add(o.neg())
    }

    pub fn mul(self, o: Dd) -> Dd {
        let p = two_prod(self.hi, o.hi);
        two_sum(p.hi, p.lo + (self.hi * o.lo + self.lo * o.hi))
    }

    pub fn div(self, o: Dd) -> Dd {
        let q1 = self.hi / o.hi;
        let r = self.sub(o.mul(Dd::new(q1)));
        let q2 = r.hi / o.hi;
        let r = r.sub(o.mul(Dd::new(q2)));
        let q3 = r.hi / o.hi;
        two_sum(q1, q2).add(Dd::new(q3))
    }

    pub fn sqrt(self) -> Dd {
        if self.hi <= 0.0 {
            return Dd::new(0.0);
        }
        // One Newton step from the f64 root doubles its 53 bits.
        let x = Dd::new(self.hi.sqrt());
        x.add(self.sub(x.mul(x)).div(x.add(x)))
    }

    /// (sin x, cos x) by their Taylor series, for |x| ≤ 2 (terms below 1e-40 are dropped).
    pub fn sin_cos(self) -> (Dd, Dd) {
        assert!(self.hi.abs() <= 2.0, "series reference only for small arguments");
        let x2 = self.mul(self);
        let (mut sin, mut cos) = (self, Dd::new(1.0));
        let (mut ts, mut tc) = (self, Dd::new(1.0));
        for n in 1..40 {
            let n = n as f64;
            ts = ts.mul(x2).div(Dd::new(-(2.0 * n) * (2.0 * n + 1.0)));
            tc = tc.mul(x2).div(Dd::new(-(2.0 * n - 1.0) * (2.0 * n)));
            sin = sin.add(ts);
            cos = cos.add(tc);
        }
        (sin, cos)
    }

    /// (self − f64) as the nearest f64: the error of an f64 against this reference.
    pub fn minus_from(self, x: f64) -> f64 {
        (x - self.hi) - self.lo
    }
}

/// The Euclidean norm of a double-double vector.
pub(crate) fn norm(v: &[Dd]) -> Dd {
    v.iter().fold(Dd::new(0.0), |acc, x| acc.add(x.mul(*x))).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

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
