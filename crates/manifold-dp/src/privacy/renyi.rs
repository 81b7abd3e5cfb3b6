//! Rényi DP curves of local releases: the worst-pair divergence of the exact law
//! ([`crate::analysis::renyi_local`]) with the float-safety term added, their composition order by order,
//! and the conversion to (ε, δ). Proofs: `docs/proofs/renyi_local.md`.

use crate::analysis::renyi_local::{LocalFamily, RDP_ORDERS};
use crate::error::Param;
use crate::error::{Error, Fallible};
use crate::numerics::rounding::{add_up, div_up, fn_down, fn_up, mul_up};
use crate::privacy::Guarantee;
use serde::{Deserialize, Serialize};

/// ε(α) ≥ D_α(M(x) ‖ M(x′)) for every pair of inputs x, x′, at each order of [`RDP_ORDERS`]: (α, ε(α))-Rényi
/// DP (Mironov 2017) in the local model, where any two inputs are neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RdpCurve {
    /// ε(α) at `RDP_ORDERS[i]`, rounded up.
    pub epsilons: [f64; RDP_ORDERS.len()],
}

/// An (ε, δ) point of a curve, with the order it was read at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RdpPoint {
    /// ε, rounded up.
    pub epsilon: f64,
    /// The Rényi order that gave it.
    pub order: f64,
}

impl RdpCurve {
    /// The curve of a float-safe local release of `family` whose metric guarantee has additive term ε₀
    /// (`additive_epsilon`) and implies pure ε_p = ε·diameter + ε₀ (`pure_epsilon`) between any two inputs:
    ///
    /// ε(α) = min(D̄_α + ε₀·(2α − 1)/(α − 1), ε_p, α·ε_p²/2),
    ///
    /// D̄_α the exact law's worst-pair bound ([`LocalFamily::divergence_upper`]). The first term: every cell's
    /// probability is within e^{±ε₀} of the exact law's (`renyi_local.md` §4); the others: pure ε_p-DP gives
    /// D_α ≤ ε_p, and ε_p²/2-zCDP (Bun & Steinke 2016, Prop. 1.4). Then each order takes the smallest value
    /// at it or above (D_α is nondecreasing in α).
    pub fn local_release(family: LocalFamily, additive_epsilon: f64, pure_epsilon: f64) -> Fallible<RdpCurve> {
        for (name, v) in [(Param::AdditiveEpsilon, additive_epsilon), (Param::PureEpsilon, pure_epsilon)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::InvalidParameter { name, value: v, reason: "must be a finite number >= 0" });
            }
        }
        let exact = family.divergence_curve()?;
        let mut epsilons = [0.0; RDP_ORDERS.len()];
        for ((slot, &alpha), d) in epsilons.iter_mut().zip(RDP_ORDERS.iter()).zip(exact) {
            let float = mul_up(additive_epsilon, div_up(2.0 * alpha - 1.0, alpha - 1.0));
            let zcdp = mul_up(alpha, div_up(mul_up(pure_epsilon, pure_epsilon), 2.0));
            *slot = add_up(d, float).min(pure_epsilon).min(zcdp);
        }
        // D_α is nondecreasing in α (van Erven & Harremoës 2014, Thm 3): a bound at a higher order bounds
        // every lower one, so each order keeps the smallest bound at or above it.
        for i in (0..epsilons.len() - 1).rev() {
            epsilons[i] = epsilons[i].min(epsilons[i + 1]);
        }
        Ok(RdpCurve { epsilons })
    }

    /// [`RdpCurve::local_release`] for a release whose metric guarantee is `guarantee`, in a space of
    /// `diameter` (in the guarantee's unit): ε_p = ε·diameter + ε₀, rounded up.
    pub fn of_release(family: LocalFamily, guarantee: &Guarantee, diameter: f64) -> Fallible<RdpCurve> {
        let Guarantee::MetricDp { epsilon, additive_epsilon, .. } = *guarantee else {
            return Err(Error::NotApplicable("a local release's Rényi curve needs its metric-DP guarantee".into()));
        };
        RdpCurve::local_release(family, additive_epsilon, add_up(mul_up(epsilon, diameter), additive_epsilon))
    }

    /// The curve a local release's metric guarantee carries ([`Guarantee::renyi`]), in a space of `diameter`
    /// (in the guarantee's unit): [`RdpCurve::of_release`] with its family; `None` when it carries none.
    pub fn of_guarantee(guarantee: &Guarantee, diameter: f64) -> Fallible<Option<RdpCurve>> {
        match guarantee.renyi() {
            Some(family) => RdpCurve::of_release(family, guarantee, diameter).map(Some),
            None => Ok(None),
        }
    }

    /// The smaller of two curves at each order: both bound the same divergences, so their minimum does.
    pub fn min(&self, other: &RdpCurve) -> RdpCurve {
        let mut epsilons = self.epsilons;
        for (s, o) in epsilons.iter_mut().zip(other.epsilons) {
            *s = s.min(o);
        }
        RdpCurve { epsilons }
    }

    /// The curve of pure ε-DP: min(ε, αε²/2) (Bun & Steinke 2016, Prop. 1.4).
    pub fn pure(epsilon: f64) -> RdpCurve {
        let mut epsilons = [0.0; RDP_ORDERS.len()];
        for (slot, &alpha) in epsilons.iter_mut().zip(RDP_ORDERS.iter()) {
            *slot = epsilon.min(mul_up(alpha, div_up(mul_up(epsilon, epsilon), 2.0)));
        }
        RdpCurve { epsilons }
    }

    /// Sequential composition: Rényi divergences of product laws add at each order (Mironov 2017, Prop. 1),
    /// Σ εᵢ(α), rounded up.
    pub fn compose(curves: &[RdpCurve]) -> RdpCurve {
        let mut epsilons = [0.0; RDP_ORDERS.len()];
        for c in curves {
            for (s, e) in epsilons.iter_mut().zip(c.epsilons) {
                *s = add_up(*s, e);
            }
        }
        RdpCurve { epsilons }
    }

    /// k releases with this curve each: k·ε(α), rounded up.
    pub fn repeated(&self, k: u64) -> RdpCurve {
        let mut epsilons = self.epsilons;
        for e in epsilons.iter_mut() {
            *e = mul_up(*e, k as f64);
        }
        RdpCurve { epsilons }
    }

    /// The (ε, δ) the curve implies at `delta`, by the conversion of Canonne, Kamath & Steinke (2020, Prop. 12;
    /// Balle et al. 2020, Thm 21): (α, τ)-RDP implies (ε, δ)-DP with
    /// ε = τ + ln(1/δ)/(α − 1) + ln(1 − 1/α) − ln(α)/(α − 1), minimised over the orders, rounded up, at least 0.
    pub fn to_approx(&self, delta: f64) -> Fallible<RdpPoint> {
        self.best(delta, true)
    }

    /// The same with the classical conversion ε = τ + ln(1/δ)/(α − 1) (Mironov 2017, Prop. 3).
    pub fn to_approx_classical(&self, delta: f64) -> Fallible<RdpPoint> {
        self.best(delta, false)
    }

    fn best(&self, delta: f64, improved: bool) -> Fallible<RdpPoint> {
        if !(delta > 0.0 && delta < 1.0) {
            return Err(Error::InvalidParameter { name: Param::Delta, value: delta, reason: "must be in (0, 1)" });
        }
        let log_inv = fn_up(-delta.ln());
        let mut best = RdpPoint { epsilon: f64::INFINITY, order: RDP_ORDERS[0] };
        for (&alpha, &tau) in RDP_ORDERS.iter().zip(self.epsilons.iter()) {
            // α − 1 is exact for these dyadic orders.
            let mut eps = add_up(tau, div_up(log_inv, alpha - 1.0));
            if improved {
                let ln_ratio = fn_up(div_up(alpha - 1.0, alpha).ln());
                let ln_alpha_term = div_up(-fn_down(alpha.ln()), alpha - 1.0);
                eps = add_up(add_up(eps, ln_ratio), ln_alpha_term);
            }
            let eps = eps.max(0.0);
            if eps < best.epsilon {
                best = RdpPoint { epsilon: eps, order: alpha };
            }
        }
        Ok(best)
    }
}

/// What the front ends print for local releases composed by their curves (the command line's `renyi` object,
/// the Python mechanism's `renyi`): the (ε, δ) total, the order it was read at, and the total curve.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RenyiReport {
    /// The mechanism's name.
    pub mechanism: String,
    /// The number of releases composed.
    pub releases: u64,
    /// The total as approximate DP at the δ asked for ([`RdpCurve::to_approx`]).
    pub total: Guarantee,
    /// The Rényi order the total was read at.
    pub order: f64,
    /// The public orders ([`RDP_ORDERS`]).
    pub orders: Vec<f64>,
    /// The composed curve's ε(α) at each order, rounded up.
    pub epsilons: Vec<f64>,
}

impl RenyiReport {
    /// The report of `total` (already composed over `releases` releases of `mechanism`) at `delta`.
    pub fn new(mechanism: &str, releases: u64, total: &RdpCurve, delta: f64) -> Fallible<RenyiReport> {
        let point = total.to_approx(delta)?;
        Ok(RenyiReport {
            mechanism: mechanism.to_string(),
            releases,
            total: Guarantee::ApproxDp { epsilon: point.epsilon, delta },
            order: point.order,
            orders: RDP_ORDERS.to_vec(),
            epsilons: total.epsilons.to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_improved_conversion_is_below_the_classical_one_and_composition_adds() {
        let c = RdpCurve::pure(0.1).repeated(100);
        let (a, b) = (c.to_approx(1e-6).unwrap(), c.to_approx_classical(1e-6).unwrap());
        assert!(a.epsilon < b.epsilon && a.epsilon > 0.0, "{a:?} {b:?}");
        let (four, times) = (RdpCurve::compose(&[RdpCurve::pure(0.1); 4]), RdpCurve::pure(0.1).repeated(4));
        for (x, y) in four.epsilons.iter().zip(times.epsilons) {
            assert!((x - y).abs() <= 1e-15 && *x >= 4.0 * RdpCurve::pure(0.1).epsilons[0].min(*x / 4.0));
        }
        assert!(c.to_approx(0.0).is_err() && c.to_approx(1.0).is_err());
    }
}
