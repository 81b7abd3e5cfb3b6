//! Upward-rounded arithmetic for privacy accounting: each function returns the smallest double ≥ the exact
//! result of one operation on doubles, so a chain of them bounds an exact monotone formula from above and a
//! reported cost is never below the true one (`docs/proofs/accounting.md`, "Conservative rounding").
//!
//! The rounding error of `+`, `×`, `÷` and `√` is itself exactly computable (TwoSum and the fused
//! multiply-add), so the result moves up one ulp only when round-to-nearest went down.

/// The smallest double ≥ a + b (finite inputs), by Knuth's TwoSum.
pub fn add_up(a: f64, b: f64) -> f64 {
    let s = a + b;
    if !s.is_finite() {
        return s;
    }
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    if err > 0.0 { s.next_up() } else { s }
}

/// The smallest double ≥ a·b (finite inputs).
pub fn mul_up(a: f64, b: f64) -> f64 {
    let p = a * b;
    // Below the normal range the fused residual is itself rounded (to 0 when the product underflows, as
    // ε = 1e-300 squared does): step up whenever the exact product is positive and tiny, so a cost never
    // underflows to "0", which would claim perfect privacy.
    if p.abs() < f64::MIN_POSITIVE && a != 0.0 && b != 0.0 && (a > 0.0) == (b > 0.0) {
        return p.next_up();
    }
    if p.is_finite() && a.mul_add(b, -p) > 0.0 { p.next_up() } else { p }
}

/// The smallest double ≥ a/b, for b > 0.
pub fn div_up(a: f64, b: f64) -> f64 {
    let q = a / b;
    // As in `mul_up`: an underflowing positive quotient steps up rather than reporting 0.
    if q.abs() < f64::MIN_POSITIVE && a > 0.0 {
        return q.next_up();
    }
    if q.is_finite() && (-q).mul_add(b, a) > 0.0 { q.next_up() } else { q }
}

/// The smallest double ≥ √x, for x ≥ 0.
pub fn sqrt_up(x: f64) -> f64 {
    let r = x.sqrt();
    if r.mul_add(r, -x) < 0.0 { r.next_up() } else { r }
}

/// An upper bound on the exact value of a libm or special-function result (`ln`, `exp`, Φ): raised by a
/// relative 1e-12, far above their documented errors (≤ a few ulp).
pub fn fn_up(x: f64) -> f64 {
    if x >= 0.0 { (x * (1.0 + 1e-12)).next_up() } else { (x * (1.0 - 1e-12)).next_up() }
}

/// A lower bound on the exact value of a libm or special-function result.
pub fn fn_down(x: f64) -> f64 {
    -fn_up(-x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn underflowing_costs_stay_positive() {
        assert!(mul_up(1e-300, 1e-300) > 0.0);
        assert!(mul_up(0.5, 1e-310) >= 0.5e-310);
        assert!(div_up(1e-300, 1e300) > 0.0);
        assert_eq!(mul_up(0.0, 1e-300), 0.0);
        assert_eq!(mul_up(2.0, 3.0), 6.0);
    }

    #[test]
    fn rounds_up_only_when_needed() {
        assert_eq!(add_up(0.0, 0.0), 0.0);
        assert_eq!(add_up(1.0, 2.0), 3.0);
        // 1 + 2⁻⁶⁰ rounds down to 1; the upward sum is the next double.
        assert_eq!(add_up(1.0, 2f64.powi(-60)), 1f64.next_up());
        assert_eq!(mul_up(3.0, 0.5), 1.5);
        // 1/3 rounds down to nearest; the upward quotient q is the least double with 3q ≥ 1 (checked exactly).
        let q = div_up(1.0, 3.0);
        assert!((-q).mul_add(3.0, 1.0) <= 0.0 && (-q.next_down()).mul_add(3.0, 1.0) > 0.0);
        assert_eq!(sqrt_up(4.0), 2.0);
        let r = sqrt_up(2.0);
        assert!(r.mul_add(r, -2.0) >= 0.0 && (r.next_down()).mul_add(r.next_down(), -2.0) < 0.0);
        assert!(fn_up(-1.0) > -1.0 && fn_down(1.0) < 1.0);
    }
}
