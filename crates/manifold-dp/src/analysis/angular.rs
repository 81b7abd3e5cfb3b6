//! The law of a noise angle θ ∈ [0, π] and the generic inversions built on it.

use crate::error::Param;
use crate::error::{Error, Fallible, check_level};
use std::f64::consts::PI;

/// The distribution of the angle between a release and its input (the noise angle), on [0, π].
pub trait AngularLaw {
    /// Probability density of θ.
    fn pdf(&self, theta: f64) -> f64;
    /// P[θ ≤ rho].
    fn cdf(&self, rho: f64) -> f64;
    /// E\[θ\].
    fn mean(&self) -> f64;

    /// The CDF at each of `sorted` (ascending). Laws whose CDF is costly override this with a cumulative
    /// evaluation.
    fn cdf_sorted(&self, sorted: &[f64]) -> Vec<f64> {
        sorted.iter().map(|&x| self.cdf(x)).collect()
    }

    /// The p-quantile of θ, i.e. the **radius of indistinguishability** ρ with P[θ ≤ ρ] = p: a fraction p
    /// of releases lie within ρ of their input. Safeguarded Newton on [0, π], accurate to ~1e-15 rad.
    fn quantile(&self, p: f64) -> Fallible<f64> {
        let p = check_level(Param::Level, p)?;
        let (mut lo, mut hi) = (0.0_f64, PI);
        let mut x = 0.5 * (lo + hi);
        for _ in 0..200 {
            let f = self.cdf(x) - p;
            if f > 0.0 {
                hi = x;
            } else {
                lo = x;
            }
            let d = self.pdf(x);
            let newton = x - f / d;
            let next = if d > 0.0 && newton > lo && newton < hi { newton } else { 0.5 * (lo + hi) };
            if (next - x).abs() <= 1e-15 * x.max(1e-300) || hi - lo <= 1e-15 * hi {
                return Ok(next);
            }
            x = next;
        }
        Ok(x)
    }
}

/// Smallest and largest ε the inversions search (the samplers support at least this range).
pub const EPSILON_RANGE: (f64, f64) = (1e-6, 1e6);

/// The ε at which a family of angle laws, increasingly concentrated as ε grows, puts probability `p`
/// within `rho`: solves `law(ε).cdf(rho) = p` by bisection on ln ε over [`EPSILON_RANGE`].
pub fn epsilon_for_radius<L: AngularLaw>(rho: f64, p: f64, law: impl Fn(f64) -> Fallible<L>) -> Fallible<f64> {
    let p = check_level(Param::Level, p)?;
    if !(rho > 0.0 && rho < PI) {
        return Err(Error::InvalidParameter {
            name: Param::Radius,
            value: rho,
            reason: "must be strictly between 0 and π rad (180°)",
        });
    }
    let (lo_eps, hi_eps) = EPSILON_RANGE;
    if law(lo_eps)?.cdf(rho) >= p {
        return Err(Error::Unattainable(format!(
            "even near-uniform noise (epsilon = {lo_eps}) keeps {:.1}% of releases within {:.4} rad; \
             any epsilon meets this target — choose a smaller radius or a higher level",
            100.0 * p,
            rho
        )));
    }
    if law(hi_eps)?.cdf(rho) < p {
        return Err(Error::Unattainable(format!(
            "no epsilon up to {hi_eps} keeps {:.1}% of releases within {rho:e} rad; choose a larger radius",
            100.0 * p
        )));
    }
    let (mut lo, mut hi) = (lo_eps.ln(), hi_eps.ln());
    while hi - lo > 1e-13 {
        let mid = 0.5 * (lo + hi);
        if law(mid.exp())?.cdf(rho) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok((0.5 * (lo + hi)).exp())
}
