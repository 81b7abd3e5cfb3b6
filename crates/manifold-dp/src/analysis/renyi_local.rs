//! Rényi divergences of the local (single-point) mechanisms between their worst pair of inputs, bounded from
//! above with proven error control (`docs/proofs/renyi_local.md`).
//!
//! Each mechanism's density is exp(−L(d(x, z))) up to a normaliser that does not depend on x, with L
//! nondecreasing in the distance. The worst pair is the farthest one (antipodes on S^{n−1}, rotations π apart
//! on SO(3); proof §2), and there
//!
//! - S^{n−1}: D_α = (1/(α−1))·ln[∫₀^π e^{−αL(θ) + (α−1)L(π−θ)} sin^{n−2}θ dθ / ∫₀^π e^{−L(θ)} sin^{n−2}θ dθ],
//!   with L(θ) = κ(1 − cos θ) (VMF) or κθ (Purkayastha);
//! - SO(3), a the half rotation angle to the input: D_α = (1/(α−1))·ln[T_α/T₁],
//!   T_α = ∫₀^{π/2} e^{−αL(a)} sin a ∫_{π/2−a}^{π/2} e^{(α−1)L(b)} sin b db da, with L(a) = 2εa (Laplace) or
//!   κ sin²a (Bingham).
//!
//! Every integral is bounded by sums over a uniform grid whose cells bound each monotone factor by its value at
//! the cell's worse end (upper sums for the numerator, lower sums for the normaliser), and the floating-point
//! error of the sums is added on top, so the value returned is never below the exact divergence.

use crate::error::Param;
use crate::error::{Error, Fallible};
use serde::{Deserialize, Serialize};
use std::f64::consts::{FRAC_PI_2, PI};

/// The public Rényi orders every curve is evaluated at (α > 1). Fixed, so that curves of different releases
/// add order by order.
pub const RDP_ORDERS: [f64; 23] = [
    1.03125, 1.0625, 1.125, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0, 20.0, 24.0, 32.0,
    48.0, 64.0, 128.0, 256.0,
];

/// Cells of the uniform grid the integrals are bounded on.
const CELLS: usize = 1 << 17;

/// u, the unit roundoff of f64.
const U: f64 = f64::EPSILON / 2.0;

/// A local mechanism's noise law, by its family and parameters: what its Rényi curve is a function of.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "family", rename_all = "snake_case")]
pub enum LocalFamily {
    /// The von Mises–Fisher law on S^{dim−1} ⊂ R^dim, density ∝ exp(κ x·z).
    Vmf {
        /// The ambient dimension n ≥ 2.
        dim: usize,
        /// The concentration κ > 0.
        kappa: f64,
    },
    /// The Purkayastha law on S^{dim−1}, density ∝ exp(−κ d∠(x, z)).
    Purkayastha {
        /// The ambient dimension n ≥ 2.
        dim: usize,
        /// The concentration κ > 0.
        kappa: f64,
    },
    /// The Laplace law on SO(3), density ∝ exp(−ε θ(x⁻¹z)) with θ the rotation angle.
    LaplaceSo3 {
        /// ε > 0 per radian of rotation angle.
        epsilon: f64,
    },
    /// The Bingham law on SO(3), density ∝ exp(−κ sin²(θ/2)).
    BinghamSo3 {
        /// The concentration κ > 0.
        kappa: f64,
    },
}

/// Two-sided bounds on ln ∫ of a positive integrand: `lower ≤ ln ∫ ≤ upper`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogBounds {
    /// A lower bound.
    pub lower: f64,
    /// An upper bound.
    pub upper: f64,
}

impl LocalFamily {
    /// Checks the parameters: κ or ε finite and > 0, the dimension in [2, 10000].
    pub fn validate(&self) -> Fallible<()> {
        self.check()
    }

    fn check(&self) -> Fallible<()> {
        let (name, value, dim) = match *self {
            LocalFamily::Vmf { dim, kappa } | LocalFamily::Purkayastha { dim, kappa } => {
                (Param::Kappa, kappa, Some(dim))
            }
            LocalFamily::LaplaceSo3 { epsilon } => (Param::Epsilon, epsilon, None),
            LocalFamily::BinghamSo3 { kappa } => (Param::Kappa, kappa, None),
        };
        if !(value.is_finite() && value > 0.0) {
            return Err(Error::InvalidParameter { name, value, reason: "must be a finite number > 0" });
        }
        if let Some(d) = dim
            && !(2..=10_000).contains(&d)
        {
            return Err(Error::InvalidParameter {
                name: Param::Dimension,
                value: d as f64,
                reason: "must be in [2, 10000]",
            });
        }
        Ok(())
    }

    /// Bounds on the log of the (unnormalised) Rényi integral at order `alpha` ≥ 1 for the worst pair (α = 1
    /// gives the normaliser). The grid's measure h (and the sphere's constant surface factor) is the same for
    /// every order, so it cancels in [`LocalFamily::divergence_upper`].
    pub fn log_integral(&self, alpha: f64) -> Fallible<LogBounds> {
        self.check()?;
        if !(alpha.is_finite() && alpha >= 1.0) {
            return Err(Error::InvalidParameter {
                name: Param::Order,
                value: alpha,
                reason: "must be finite and >= 1",
            });
        }
        Ok(match *self {
            LocalFamily::Vmf { dim, kappa } => {
                // −αL(θ) + (α−1)L(π−θ) = κ((2α − 1)cos θ − 1) for L(θ) = κ(1 − cos θ).
                sphere_bounds(dim, &|t: f64| kappa * ((2.0 * alpha - 1.0) * t.cos() - 1.0), (2.0 * alpha + 1.0) * kappa)
            }
            LocalFamily::Purkayastha { dim, kappa } => sphere_bounds(
                dim,
                &|t: f64| -alpha * kappa * t + (alpha - 1.0) * kappa * (PI - t),
                (2.0 * alpha + 1.0) * kappa * PI,
            ),
            LocalFamily::LaplaceSo3 { epsilon } => {
                let l = |a: f64| 2.0 * epsilon * a;
                so3_bounds(alpha, &l, 2.0 * alpha * epsilon * PI)
            }
            LocalFamily::BinghamSo3 { kappa } => {
                let l = |a: f64| {
                    let s = a.sin();
                    kappa * s * s
                };
                so3_bounds(alpha, &l, 2.0 * alpha * kappa)
            }
        })
    }

    /// An upper bound on D_α(P_x ‖ P_x′) over every pair of inputs x, x′, for the exact (real-arithmetic)
    /// law: (upper ln ∫ at α − lower ln ∫ at 1)/(α − 1), rounded up. Formula and proof:
    /// `docs/proofs/renyi_local.md` §2–§3.
    pub fn divergence_upper(&self, alpha: f64) -> Fallible<f64> {
        if !(alpha.is_finite() && alpha > 1.0) {
            return Err(Error::InvalidParameter { name: Param::Order, value: alpha, reason: "must be finite and > 1" });
        }
        let num = self.log_integral(alpha)?;
        let den = self.log_integral(1.0)?;
        let gap = num.upper - den.lower;
        // One rounding each for the difference and the quotient, covered by stepping up twice.
        Ok((gap.next_up() / (alpha - 1.0)).next_up().max(0.0))
    }

    /// [`LocalFamily::divergence_upper`] at every order of [`RDP_ORDERS`].
    pub fn divergence_curve(&self) -> Fallible<[f64; RDP_ORDERS.len()]> {
        let den = self.log_integral(1.0)?;
        let mut out = [0.0; RDP_ORDERS.len()];
        for (slot, &alpha) in out.iter_mut().zip(RDP_ORDERS.iter()) {
            let num = self.log_integral(alpha)?;
            *slot = (((num.upper - den.lower).next_up()) / (alpha - 1.0)).next_up().max(0.0);
        }
        Ok(out)
    }
}

/// ln Σ e^{vᵢ} over finite-or-−∞ values, with its rounding error bound added (`upper`) or subtracted.
fn log_sum(values: &[f64], upper: bool) -> f64 {
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if max == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    let mut sum = 0.0;
    for &v in values {
        sum += (v - max).exp();
    }
    // Terms flushed to 0 by exp were each below MIN_POSITIVE (relative to the largest, which is 1).
    if upper {
        sum += values.len() as f64 * f64::MIN_POSITIVE;
    }
    // Recursive summation of n positive terms errs by at most γ_n ≤ 1.01·n·u relative (Higham, Thm 4.4 form).
    let n = values.len() as f64;
    let rel = 1.01 * n * U;
    max + if upper { (sum * (1.0 + rel)).ln() } else { (sum * (1.0 - rel)).ln() }
}

/// Bounds on ln ∫₀^π e^{g(θ)} sin^{n−2}θ dθ for g nonincreasing in θ; `scale` bounds |g|.
fn sphere_bounds(dim: usize, g: &dyn Fn(f64) -> f64, scale: f64) -> LogBounds {
    let h = PI / CELLS as f64;
    let m = (dim - 2) as f64;
    let ln_sin = |t: f64| if dim == 2 { 0.0 } else { m * t.sin().ln() };
    let mut up = Vec::with_capacity(CELLS);
    let mut down = Vec::with_capacity(CELLS);
    let mut g_prev = g(0.0);
    for i in 0..CELLS {
        let (t0, t1) = (i as f64 * h, (i + 1) as f64 * h);
        let g_next = g(t1);
        // sin is increasing up to π/2 and decreasing after: its sup on a cell is at the end nearer π/2, or 1.
        let (s_sup, s_inf) = if t0 <= FRAC_PI_2 && t1 >= FRAC_PI_2 {
            (0.0, ln_sin(t0).min(ln_sin(t1)))
        } else {
            (ln_sin(t0).max(ln_sin(t1)), ln_sin(t0).min(ln_sin(t1)))
        };
        up.push(g_prev + s_sup);
        down.push(g_next + s_inf);
        g_prev = g_next;
    }
    finish(&up, &down, scale + m * 40.0 + h.ln().abs())
}

/// Bounds on ln T_α, T_α = ∫₀^{π/2} e^{−αL(a)} sin a ∫_{π/2−a}^{π/2} e^{(α−1)L(b)} sin b db da, L
/// nondecreasing on [0, π/2]; `scale` bounds |αL| + |(α−1)L|.
fn so3_bounds(alpha: f64, l: &dyn Fn(f64) -> f64, scale: f64) -> LogBounds {
    let n = CELLS;
    let h = FRAC_PI_2 / n as f64;
    let at = |i: usize| if i == n { FRAC_PI_2 } else { i as f64 * h };
    let ls: Vec<f64> = (0..=n).map(|i| l(at(i))).collect();
    let ln_sin: Vec<f64> = (0..=n).map(|i| at(i).sin().ln()).collect();
    // Inner factor g(b) = e^{(α−1)L(b)} sin b is nondecreasing: sup on cell j at b_{j+1}, inf at b_j.
    let g_sup: Vec<f64> = (0..n).map(|j| (alpha - 1.0) * ls[j + 1] + ln_sin[j + 1]).collect();
    let g_inf: Vec<f64> = (0..n).map(|j| (alpha - 1.0) * ls[j] + ln_sin[j]).collect();
    // Suffix sums Σ_{j ≥ k} in the linear domain after a common shift by the largest (the last) term.
    let suffix = |v: &[f64], upper: bool| -> Vec<f64> {
        let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut out = vec![f64::NEG_INFINITY; n + 1];
        let mut acc = 0.0;
        for k in (0..n).rev() {
            acc += (v[k] - max).exp();
            if upper {
                acc += f64::MIN_POSITIVE;
            }
            out[k] = max + acc.ln();
        }
        out
    };
    let (s_up, s_down) = (suffix(&g_sup, true), suffix(&g_inf, false));
    // Outer cell i = [a_i, a_{i+1}]: the inner range [π/2 − a, π/2] lies within the last i + 1 b-cells and
    // contains the last i. e^{−αL(a)} is nonincreasing and sin a nondecreasing.
    let up: Vec<f64> = (0..n).map(|i| -alpha * ls[i] + ln_sin[i + 1] + s_up[n - 1 - i]).collect();
    let down: Vec<f64> = (0..n)
        .map(|i| if i == 0 { f64::NEG_INFINITY } else { -alpha * ls[i + 1] + ln_sin[i] + s_down[n - i] })
        .collect();
    finish(&up, &down, scale + 80.0)
}

/// Adds the floating-point error of the cell values (each a sum of a few libm results, within 2u relative,
/// and of terms bounded by `scale` in size) and of the sums, outward.
fn finish(up: &[f64], down: &[f64], scale: f64) -> LogBounds {
    // Per cell value: at most 8 operations on terms of size ≤ scale, each within 2u relative, raised generously
    // to 1e-12 per unit of size. The suffix sums' n roundings (≤ 1.01·n·u relative), the cell edges i·h (each
    // within (i + 1)u·h of its exact place, so every width within 2n·u·h of h) and the slivers they leave
    // (narrower than 4u, under 10⁻¹⁰ of a cell) add at most 8n·u to the log (`renyi_local.md` §3).
    let slack = 1e-12 * (scale + 1.0) + 8.0 * up.len() as f64 * U;
    LogBounds { lower: log_sum(down, false) - slack, upper: log_sum(up, true) + slack }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_bracket_closed_forms() {
        // VMF on S²: ∫₀^π e^{λ cos θ} sin θ dθ = 2 sinh(λ)/λ, times the e^{−κ} of the exponent.
        for kappa in [0.1_f64, 1.0, 5.0] {
            for alpha in [1.0, 1.25, 2.0, 16.0] {
                let lam = (2.0 * alpha - 1.0) * kappa;
                let exact = (2.0 * lam.sinh() / lam).ln() - kappa;
                let b = LocalFamily::Vmf { dim: 3, kappa }.log_integral(alpha).unwrap();
                let h = PI / CELLS as f64;
                assert!(b.lower <= exact - h.ln() && exact - h.ln() <= b.upper, "{kappa} {alpha}: {b:?} {exact}");
            }
        }
    }
}
