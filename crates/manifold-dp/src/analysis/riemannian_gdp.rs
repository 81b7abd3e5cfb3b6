//! A certified μ for the Riemannian Gaussian mechanism on S^{n−1} and SO(3) (`docs/proofs/riemannian_gaussian.md`).
//!
//! The law P_x has density ∝ exp(−d(z, x)²/2σ²) w.r.t. the Riemannian volume. On these homogeneous spaces the
//! normaliser does not depend on x, so for neighbours x, x′ at distance t the privacy loss is
//! L_t(z) = (d(z, x′)² − d(z, x)²)/2σ², and the hockey-stick divergence is δ_t(ε) = E_{P_x}[(1 − e^{ε − L_t})₊].
//! A mechanism is μ-GDP iff δ_t(ε) ≤ δ_{G_μ}(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) for every ε ≥ 0 (the pair is
//! symmetric: the reflection swapping x and x′ is an isometry).
//!
//! **Every t ≤ Δ at once** (proof §3). L_t(z) ≤ L̃(z) := sup_{s ∈ [0, Δ]} L_s(z), with x_s the geodesic from x
//! through x′, and h(ℓ) = (1 − e^{ε−ℓ})₊ is non-decreasing, so δ_t(ε) ≤ E[h(L̃)] for every t ≤ Δ. L̃ has a closed
//! form: d(z, x_s) is quasi-convex in s except where its maximum (the "anti-foot") falls inside [0, Δ].
//!
//! **The integral** (proof §4). Under P_x, L̃ depends on z through θ = d(z, x) and one more coordinate c
//! (the cosine between the tangent direction of z and that of x′; on SO(3) the cosine between the two axes),
//! independent of θ with a known law. [0, π] is cut into θ-cells and the range of c into c-cells. On a cell,
//! L̃ ≤ L̃(θ₀, c₀) + (θ₁ − θ₀)·Δ/σ² (L̃ is non-increasing in c, and θ ↦ L_s is at most (s/σ²)-Lipschitz
//! upwards), and each cell's probability is bounded above from the log-concavity of the radial density
//! (tangent lines above, endpoints below for the normaliser). So δ(ε) ≤ Σ p⁺·h(U) for every ε, exactly,
//! up to the arithmetic, which is bounded and added.
//!
//! **Every ε** (proof §5). The bound and δ_{G_μ} both decrease in ε: checking the bound at ε_i against
//! δ_{G_μ}(ε_{i+1}) covers [ε_i, ε_{i+1}]. The grid stops where δ_{G_μ} falls below [`TAIL_DELTA`] (after
//! checking that the bound is below it there): beyond it the guarantee holds up to an additive δ below
//! 10^-280, printed in the release's guarantee with the proposal's far piece as [`RELEASE_DELTA`].
//!
//! **Float-safe releases** (proof §6). A release rounded onto a grid whose every cell probability is within
//! e^{±ε₀} of the exact law's has δ_R(ε) ≤ e^{ε₀}·δ(ε − 2ε₀); [`certify_mu`] certifies that profile, so the
//! rounding's cost is inside the μ it returns.

use crate::analysis::gaussian_dp::{analytic_gaussian_sigma, gdp_delta_lower};
use crate::error::Param;
use crate::error::{Error, Fallible, check_positive};
use std::f64::consts::PI;

/// Beyond the ε where δ_{G_μ}(ε) falls below this, the certificate only checks that the release's δ is below it
/// (proof §5): an additive δ < 10^-280 for those ε, part of [`RELEASE_DELTA`].
pub const TAIL_DELTA: f64 = 1e-280;

/// The δ a Riemannian Gaussian release states ([`crate::privacy::Guarantee::Gdp`], μ-GDP up to δ):
/// [`TAIL_DELTA`] (the profile beyond the certificate's range, proof §5) plus the proposal's far piece, whose
/// mass, at most e^-690 < 2.2·10^-300, is left out of the acceptance bounds (proof §2), rounded up:
/// 10^-280 + 2.2·10^-300 ≤ 2·10^-280.
pub const RELEASE_DELTA: f64 = 2e-280;

/// Cells of a probability below this are counted at this mass (a floor instead of an underflow to 0).
const MASS_FLOOR: f64 = 1e-300;

const U: f64 = f64::EPSILON / 2.0;

/// The space of a Riemannian Gaussian law: the unit sphere S^{n−1} ⊂ Rⁿ (n ≥ 2; the circle, latitude and
/// longitude, time of day are S¹ and S²) with the great-circle distance, or SO(3) with the rotation angle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GaussianSpace {
    /// S^{n−1}, `ambient` = n.
    Sphere {
        /// n ≥ 2.
        ambient: usize,
    },
    /// SO(3), metric: the rotation angle θ ∈ [0, π].
    So3,
}

impl GaussianSpace {
    /// S^{n−1} for 2 ≤ n ≤ 10⁴ (the crate's dimension cap).
    pub fn sphere(ambient: usize) -> Fallible<Self> {
        if !(2..=10_000).contains(&ambient) {
            return Err(Error::InvalidParameter {
                name: Param::AmbientDimension,
                value: ambient as f64,
                reason: "must be between 2 and 10000",
            });
        }
        Ok(GaussianSpace::Sphere { ambient })
    }

    /// The power k of the radial factor: sin^k θ on S^{k+1}; on SO(3), 2 (sin²(θ/2)).
    pub fn radial_power(&self) -> usize {
        match *self {
            GaussianSpace::Sphere { ambient } => ambient - 2,
            GaussianSpace::So3 => 2,
        }
    }

    /// ln of the radial density of θ = d(z, x) up to a constant: −θ²/2σ² + k·ln sin θ on S^{k+1},
    /// −θ²/2σ² + 2 ln sin(θ/2) on SO(3) (the Haar measure's (1 − cos θ) = 2 sin²(θ/2)). Concave on (0, π).
    pub fn ln_radial_weight(&self, theta: f64, sigma: f64) -> f64 {
        let g = -0.5 * (theta / sigma) * (theta / sigma);
        match *self {
            GaussianSpace::Sphere { ambient: 2 } => g,
            GaussianSpace::Sphere { ambient } => g + (ambient - 2) as f64 * theta.sin().ln(),
            GaussianSpace::So3 => g + 2.0 * (0.5 * theta).sin().ln(),
        }
    }

    /// d/dθ of [`GaussianSpace::ln_radial_weight`].
    fn d_ln_radial_weight(&self, theta: f64, sigma: f64) -> f64 {
        let g = -theta / (sigma * sigma);
        match *self {
            GaussianSpace::Sphere { ambient: 2 } => g,
            GaussianSpace::Sphere { ambient } => g + (ambient - 2) as f64 / theta.tan(),
            GaussianSpace::So3 => g + 1.0 / (0.5 * theta).tan(),
        }
    }

    /// The radial CDF F(θ) = P(d(z, x) ≤ θ) at each of the ascending `thetas`, by adaptive quadrature (an
    /// oracle for the samplers' tests; not a certified bound).
    pub fn radial_cdf(&self, sigma: f64, thetas: &[f64]) -> Vec<f64> {
        use crate::analysis::quadrature::cumulative;
        let k = self.radial_power() as f64;
        // The mode's ln weight (roughly), so the integrand stays within f64's range.
        let mode = (sigma * (k.max(0.0)).sqrt()).clamp(1e-300, PI);
        let shift = self.ln_radial_weight(mode, sigma);
        let f = |t: f64| if t <= 0.0 || t >= PI { 0.0 } else { (self.ln_radial_weight(t, sigma) - shift).exp() };
        let scale = (sigma * (k + 1.0).sqrt()).min(PI);
        let mut edges: Vec<f64> = Vec::new();
        let mut e = scale / 64.0;
        while e < PI {
            edges.push(e);
            e *= 1.5;
        }
        edges.push(PI);
        let total: f64 = cumulative(&f, 0.0, &edges, 1e-16).last().copied().unwrap_or(1.0);
        let mut sorted = thetas.to_vec();
        sorted.iter_mut().for_each(|t| *t = t.clamp(0.0, PI));
        let values = cumulative(&f, 0.0, &sorted, 1e-16 * total);
        values.iter().map(|v| (v / total).clamp(0.0, 1.0)).collect()
    }
}

/// sup over s ∈ [0, `delta`] of d(z, x_s), for z at angle `theta` from x with coordinate `c` (proof §3):
/// on S^{n−1} cos d(z, x_s) = cos θ cos s + sin θ sin s·c; on SO(3) the scalar part of the relative rotation
/// is w(s) = cos(θ/2)cos(s/2) + sin(θ/2)sin(s/2)·c and d = 2 arccos|w|. Returns (the sup, a bound on its
/// computed error).
fn sup_distance(space: GaussianSpace, theta: f64, c: f64, delta: f64) -> (f64, f64) {
    match space {
        GaussianSpace::Sphere { .. } => {
            // sin²(d/2) = sin²((θ − s)/2) + sin θ sin s (1 − c)/2: a sum of non-negative terms.
            let h = (0.5 * (theta - delta)).sin();
            let s2 = h * h + 0.5 * theta.sin() * delta.sin() * (1.0 - c);
            let root = s2.max(0.0).sqrt().min(1.0);
            let d_end = 2.0 * root.asin();
            // asin loses up to √(2u) relative near 1: widen the error there.
            let err_end = if root > 0.99 { 4e-8 } else { 1e-14 };
            // The anti-foot: the maximum of s ↦ d(z, x_s) is at s = t* + π, t* = atan2(sin θ·c, cos θ).
            let (a, b) = (theta.cos(), theta.sin() * c);
            let tau = (-b).atan2(-a);
            let mut best = (theta.max(d_end), err_end);
            if tau > -1e-9 && tau < delta + 1e-9 {
                let big_a = a.hypot(b);
                let rest = (theta.sin() * (1.0 - c * c).max(0.0).sqrt()).atan2(big_a);
                let d_anti = PI - rest;
                if d_anti > best.0 {
                    best = (d_anti, 1e-14);
                }
            }
            best
        }
        GaussianSpace::So3 => {
            let (ha, hb) = (0.5 * theta, 0.5 * delta);
            // w(s) = A cos(s/2 − s*) with s* = atan2(sin(θ/2)·c, cos(θ/2)) ∈ [−π/2, π/2]; w ≤ 0 for some
            // s ∈ [0, Δ] iff s* ≤ (Δ − π)/2: then d reaches π (proof §3).
            let s_star = (ha.sin() * c).atan2(ha.cos());
            if s_star <= 0.5 * (delta - PI) + 1e-9 {
                return (PI, 0.0);
            }
            // 1 − w = 2 sin²((θ − Δ)/4) + sin(θ/2) sin(Δ/2)(1 − c) ≥ 0; d = 2 arccos w = 4 asin √((1 − w)/2).
            let h = (0.5 * (ha - hb)).sin();
            let one_minus_w = 2.0 * h * h + ha.sin() * hb.sin() * (1.0 - c);
            let root = (0.5 * one_minus_w).max(0.0).sqrt().min(1.0);
            let d_end = (4.0 * root.asin()).min(PI);
            let err_end = if root > 0.99 { 8e-8 } else { 2e-14 };
            (theta.max(d_end), err_end)
        }
    }
}

/// ln ∫₀^len e^{l + g·y} dy = l + ln len + ln((e^{g·len} − 1)/(g·len)), without overflow.
fn ln_exp_integral(l: f64, g: f64, len: f64) -> f64 {
    if len <= 0.0 {
        return f64::NEG_INFINITY;
    }
    let x = g * len;
    let ln_phi = if x.abs() < 1e-8 {
        0.5 * x
    } else if x > 30.0 {
        x + (-(-x).exp()).ln_1p() - x.ln()
    } else {
        (x.exp_m1() / x).ln()
    };
    l + len.ln() + ln_phi
}

/// Upper bounds on the probabilities of the cells [e_i, e_{i+1}] of a law on [e_0, e_last] with a concave
/// log-density `ln_w` (up to a constant; −∞ allowed at the ends) and its derivative `d_ln_w` (proof §4):
/// above the cell, w lies below the exponential of the lower envelope of the two tangent lines of ln w at the
/// cell's ends, integrated exactly; the normaliser is at least Σ ∫ exp(chord of ln w) (a concave function lies
/// above its chords). `ln_err(x)` bounds the computed ln_w's error at x; `d_err(x)` the slope's.
fn log_concave_cell_masses(
    edges: &[f64],
    ln_w: impl Fn(f64) -> f64,
    d_ln_w: impl Fn(f64) -> f64,
    ln_err: impl Fn(f64) -> f64,
    d_err: impl Fn(f64) -> f64,
) -> Vec<f64> {
    let l: Vec<f64> = edges.iter().map(|&x| ln_w(x)).collect();
    let g: Vec<f64> = edges.iter().map(|&x| d_ln_w(x)).collect();
    // Errors only where the values are finite (an infinite end is not used by the bounds below).
    let le: Vec<f64> = edges.iter().zip(&l).map(|(&x, v)| if v.is_finite() { ln_err(x) } else { 0.0 }).collect();
    let ge: Vec<f64> = edges.iter().zip(&g).map(|(&x, v)| if v.is_finite() { d_err(x) } else { 0.0 }).collect();
    let cells = edges.len() - 1;
    let mut upper = Vec::with_capacity(cells);
    let mut lower = Vec::with_capacity(cells);
    for i in 0..cells {
        let (a, b) = (edges[i], edges[i + 1]);
        let w = b - a;
        let (la, lb) = (l[i], l[i + 1]);
        let (ga, gb) = (g[i], g[i + 1]);
        let left = la.is_finite() && ga.is_finite();
        let right = lb.is_finite() && gb.is_finite();
        // The values' and slopes' errors move each tangent line by at most err + |Δg|·w over the cell.
        let margin = le[i] + le[i + 1] + (ge[i] + ge[i + 1]) * w + 1e-13;
        let value = if left && right {
            // Concavity: ga ≥ gb; the lines meet at x* (clamped into the cell).
            let x = if ga > gb { ((lb - la + ga * a - gb * b) / (ga - gb)).clamp(a, b) } else { b };
            let first = ln_exp_integral(la, ga, x - a);
            let second = ln_exp_integral(lb, -gb, b - x);
            let (hi, lo) = if first >= second { (first, second) } else { (second, first) };
            if hi.is_finite() { hi + (lo - hi).exp().ln_1p() } else { hi }
        } else if right {
            ln_exp_integral(lb, -gb, w)
        } else if left {
            ln_exp_integral(la, ga, w)
        } else {
            f64::INFINITY
        };
        upper.push(value + margin + 1e-12 * value.abs());
        let chord = if la.is_finite() && lb.is_finite() {
            ln_exp_integral(la, (lb - la) / w, w) - (le[i] + le[i + 1]) - 1e-12 * (la.abs() + lb.abs()) - 1e-13
        } else {
            f64::NEG_INFINITY
        };
        lower.push(chord);
    }
    let shift = upper.iter().copied().filter(|v| v.is_finite()).fold(f64::NEG_INFINITY, f64::max);
    let total_low: f64 = lower.iter().map(|&v| (v - shift).exp() * (1.0 - 4.0 * U)).sum();
    let total_low = total_low * (1.0 - 1e-12 - 4.0 * (cells as f64) * U);
    upper
        .iter()
        .map(|&v| {
            let m = (v - shift).exp() * (1.0 + 1e-12) / total_low;
            if m.is_nan() { 1.0 } else { m.clamp(MASS_FLOOR, 1.0) }
        })
        .collect()
}

/// How finely [`LossBound`] cuts the (θ, c) domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolution {
    /// Cells of θ in the bulk [0, σ(√(k + 1) + 12)] (uniform), before geometric cells up to π.
    pub theta_cells: usize,
    /// Cells of c (the circle has two atoms whatever this is).
    pub c_cells: usize,
}

impl Default for Resolution {
    fn default() -> Self {
        Resolution { theta_cells: 3000, c_cells: 160 }
    }
}

/// The θ-cells' edges: uniform on the bulk, then widening by 1 % up to π.
fn theta_edges(space: GaussianSpace, sigma: f64, cells: usize) -> Vec<f64> {
    let k = space.radial_power() as f64;
    let bulk = (sigma * ((k + 1.0).sqrt() + 12.0)).min(PI);
    let mut edges: Vec<f64> = (0..=cells).map(|i| bulk * (i as f64 / cells as f64)).collect();
    let step = bulk / cells as f64;
    let mut e = bulk;
    let mut w = step;
    while e < PI {
        w *= 1.01;
        e = (e + w).min(PI);
        edges.push(e);
    }
    *edges.last_mut().expect("non-empty") = PI;
    edges
}

/// The c-cells: (c₀, probability upper bound), c₀ at or below the cell's lower end.
fn c_cells(space: GaussianSpace, cells: usize) -> Vec<(f64, f64)> {
    match space {
        GaussianSpace::Sphere { ambient: 2 } => vec![(-1.0, 0.5), (1.0, 0.5)],
        GaussianSpace::So3 => (0..cells)
            .map(|j| ((-1.0 + 2.0 * j as f64 / cells as f64 - 4.0 * U).max(-1.0), (1.0 + 4.0 * U) / cells as f64))
            .collect(),
        GaussianSpace::Sphere { ambient } => {
            // c = cos φ, φ ∈ [0, π] with density ∝ sin^{n−3} φ (a coordinate of a uniform point of S^{n−2}).
            let k = (ambient - 3) as f64;
            let edges: Vec<f64> = (0..=cells).map(|j| PI * j as f64 / cells as f64).collect();
            let masses = log_concave_cell_masses(
                &edges,
                |p| if k == 0.0 { 0.0 } else { k * p.sin().ln() },
                |p| if k == 0.0 { 0.0 } else { k / p.tan() },
                |p| if k == 0.0 { 0.0 } else { 8.0 * U * (k * (1.0 + p.sin().ln().abs())) },
                |p| if k == 0.0 { 0.0 } else { 8.0 * U * k / p.tan().abs() },
            );
            // Larger φ is smaller c: the cell [φ_j, φ_{j+1}] has c ≥ cos φ_{j+1}.
            (0..cells)
                .map(|j| {
                    let c0 = if j + 1 == cells { -1.0 } else { (edges[j + 1].cos() - 4.0 * U).max(-1.0) };
                    (c0, masses[j])
                })
                .collect()
        }
    }
}

/// An upper bound, for every ε at once, on the hockey-stick divergence sup_{t ≤ Δ} δ_t(ε) of the Riemannian
/// Gaussian with scale σ on `space` (proof §3–§4): pairs (U, p) with δ_t(ε) ≤ Σ p·(1 − e^{ε − U})₊, sorted by
/// U, with suffix sums for O(log N) evaluation.
#[derive(Debug, Clone)]
pub struct LossBound {
    /// Losses, ascending.
    losses: Vec<f64>,
    /// Σ_{j ≥ i} p_j.
    mass_from: Vec<f64>,
    /// Σ_{j ≥ i} p_j·e^{U_i − U_j} (no overflow: U ascending).
    scaled_from: Vec<f64>,
}

impl LossBound {
    /// The bound for scale `sigma` and neighbours' distances up to `delta` (< π).
    pub fn new(space: GaussianSpace, sigma: f64, delta: f64, resolution: Resolution) -> Fallible<Self> {
        let sigma = check_positive(Param::Sigma, sigma)?;
        let delta = check_positive(Param::Sensitivity, delta)?;
        if delta >= PI {
            return Err(Error::InvalidParameter { name: Param::Sensitivity, value: delta, reason: "must be below π" });
        }
        let k = space.radial_power() as f64;
        let edges = theta_edges(space, sigma, resolution.theta_cells.max(16));
        let theta_masses = log_concave_cell_masses(
            &edges,
            |t| space.ln_radial_weight(t, sigma),
            |t| space.d_ln_radial_weight(t, sigma),
            |t| {
                8.0 * U * ((t / sigma) * (t / sigma) + if k > 0.0 { k * (2.0 + t.sin().ln().abs()) } else { 0.0 } + 2.0)
            },
            |t| 8.0 * U * (t / (sigma * sigma) + if k > 0.0 { k / t.tan().abs() } else { 0.0 } + 1.0),
        );
        let cs = c_cells(space, resolution.c_cells.max(2));
        let slope = delta / (sigma * sigma);
        let two_var = 2.0 * sigma * sigma;
        let mut pairs: Vec<(f64, f64)> = Vec::with_capacity(theta_masses.len() * cs.len());
        for (i, &p) in theta_masses.iter().enumerate() {
            let (t0, t1) = (edges[i], edges[i + 1]);
            for &(c0, q) in &cs {
                let (d, err) = sup_distance(space, t0, c0, delta);
                let de = d + err;
                let lt = ((de * de - t0 * t0) / two_var).max(0.0);
                let u = lt + (t1 - t0) * slope;
                // The loss's own rounding: a few ulps of its terms.
                let u = u + 8.0 * U * (de * de / two_var + u) + 1e-300;
                pairs.push((u, (p * q * (1.0 + 4.0 * U)).max(MASS_FLOOR)));
            }
        }
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let n = pairs.len();
        let mut mass_from = vec![0.0; n + 1];
        let mut scaled_from = vec![0.0; n + 1];
        for i in (0..n).rev() {
            mass_from[i] = mass_from[i + 1] + pairs[i].1;
            let factor = if i + 1 < n { (pairs[i].0 - pairs[i + 1].0).exp() } else { 0.0 };
            scaled_from[i] = pairs[i].1 + factor * scaled_from[i + 1];
        }
        Ok(LossBound { losses: pairs.into_iter().map(|p| p.0).collect(), mass_from, scaled_from })
    }

    /// The largest loss bound U (beyond it the divergence is 0).
    pub fn max_loss(&self) -> f64 {
        self.losses.last().copied().unwrap_or(0.0)
    }

    /// An upper bound on sup_{t ≤ Δ} δ_t(ε) for any real ε (negative included).
    pub fn delta(&self, epsilon: f64) -> f64 {
        let i = self.losses.partition_point(|&u| u <= epsilon);
        if i == self.losses.len() {
            return 0.0;
        }
        let mass = self.mass_from[i];
        let kept = (epsilon - self.losses[i]).exp() * self.scaled_from[i];
        // Suffix sums of N positive terms err by at most N·u relative each.
        let n = self.losses.len() as f64;
        ((mass - kept) + 4.0 * n * U * mass).clamp(0.0, 1.0)
    }

    /// The release's profile: e^{ε₀}·δ(ε − 2ε₀), for a release whose every event's probability is within e^{±ε₀}
    /// of the exact law's (proof §6).
    pub fn release_delta(&self, epsilon: f64, additive_epsilon: f64) -> f64 {
        (additive_epsilon.exp() * self.delta(epsilon - 2.0 * additive_epsilon) * (1.0 + 4.0 * U)).min(1.0)
    }

    /// Whether the release's profile lies below δ_{G_μ} at every ε ≥ 0 (up to [`TAIL_DELTA`] beyond the ε where
    /// δ_{G_μ} falls below it), checked on a grid ε_i with the bound at ε_i against δ_{G_μ}(ε_{i+1}).
    pub fn is_gdp(&self, mu: f64, additive_epsilon: f64) -> bool {
        if !(mu > 0.0 && mu.is_finite()) {
            return false;
        }
        // The steps adapt (any grid is valid: each interval [ε_i, ε_{i+1}] is checked on its own): they grow
        // while the bound has room below δ_{G_μ}, and shrink to the finest (a relative change of δ_{G_μ} of
        // about 0.5 % per step) before a failure is declared.
        let finest = |e: f64| (0.005 * mu * mu / (e + mu)).max(1e-9 * (1.0 + e));
        let mut e = 0.0_f64;
        let mut step = finest(0.0);
        loop {
            let lhs = self.release_delta(e, additive_epsilon);
            if lhs == 0.0 {
                return true;
            }
            let next = e + step;
            let rhs = gdp_delta_lower(mu, next);
            if rhs < TAIL_DELTA {
                if lhs <= TAIL_DELTA {
                    return true;
                }
                if step > finest(e) {
                    step = finest(e);
                    continue;
                }
                return false;
            }
            if lhs <= rhs {
                e = next;
                if lhs < 0.95 * rhs {
                    step *= 1.5;
                }
            } else if step > finest(e) {
                step = (0.25 * step).max(finest(e));
            } else {
                return false;
            }
        }
    }
}

/// A certified μ and what it was certified from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CertifiedMu {
    /// The certified μ: the release is μ-GDP (proof §7).
    pub mu: f64,
    /// Δ/σ, the flat-space value, for comparison.
    pub flat_mu: f64,
    /// The additive ε₀ of the release's rounding, inside μ.
    pub additive_epsilon: f64,
}

/// The smallest μ (to a relative 2·10⁻⁴, rounded up) for which the float-safe release of the Riemannian Gaussian
/// with scale `sigma` on `space`, rounded at cost `additive_epsilon`, is μ-GDP for neighbours whose footpoints
/// lie within `delta` of each other ([`LossBound::is_gdp`], proof §7).
pub fn certify_mu(space: GaussianSpace, sigma: f64, delta: f64, additive_epsilon: f64) -> Fallible<CertifiedMu> {
    certify_mu_at(space, sigma, delta, additive_epsilon, Resolution::default())
}

/// [`certify_mu`] at an explicit resolution (coarser is faster and more conservative).
pub fn certify_mu_at(
    space: GaussianSpace,
    sigma: f64,
    delta: f64,
    additive_epsilon: f64,
    resolution: Resolution,
) -> Fallible<CertifiedMu> {
    if !(additive_epsilon.is_finite() && additive_epsilon >= 0.0) {
        return Err(Error::InvalidParameter {
            name: Param::AdditiveEpsilon,
            value: additive_epsilon,
            reason: "must be a finite number ≥ 0",
        });
    }
    let bound = LossBound::new(space, sigma, delta, resolution)?;
    let flat = delta / sigma;
    let mut hi = flat * 1.05 + 4.0 * additive_epsilon + 1e-12;
    let mut tries = 0;
    while !bound.is_gdp(hi, additive_epsilon) {
        hi *= 2.0;
        tries += 1;
        if tries > 60 || !hi.is_finite() {
            return Err(Error::NumericalLimit(format!(
                "no mu could be certified for sigma = {sigma:e} and sensitivity {delta:e}"
            )));
        }
    }
    let mut lo = 0.5 * flat.min(hi);
    if bound.is_gdp(lo, additive_epsilon) {
        // Below half the flat value: keep halving (never expected, but stay correct).
        while lo > 1e-300 && bound.is_gdp(lo, additive_epsilon) {
            hi = lo;
            lo *= 0.5;
        }
    }
    while hi - lo > 1e-4 * hi {
        let mid = 0.5 * (lo + hi);
        if bound.is_gdp(mid, additive_epsilon) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(CertifiedMu { mu: hi, flat_mu: flat, additive_epsilon })
}

/// The smallest σ (to about 10⁻³ relative, on the safe side) whose certified μ ([`certify_mu`]) is at most `mu`
/// for neighbours within `delta`, with the release's rounding cost `additive_epsilon(σ)` (the grid depends on σ).
/// Returns σ and its certificate; the certificate's μ is never above `mu`.
pub fn sigma_for_mu(
    space: GaussianSpace,
    mu: f64,
    delta: f64,
    additive_epsilon: impl Fn(f64) -> Fallible<f64>,
) -> Fallible<(f64, CertifiedMu)> {
    let mu = check_positive(Param::Mu, mu)?;
    let delta = check_positive(Param::Sensitivity, delta)?;
    let mut sigma = delta / mu;
    let mut best: Option<(f64, CertifiedMu)> = None;
    for _ in 0..12 {
        let cert = certify_mu(space, sigma, delta, additive_epsilon(sigma)?)?;
        if cert.mu <= mu {
            let done = cert.mu >= mu * (1.0 - 1e-3);
            if best.is_none_or(|(s, _)| sigma < s) {
                best = Some((sigma, cert));
            }
            if done {
                break;
            }
        }
        // μ scales roughly as 1/σ: move σ by the ratio, aiming just inside the target.
        sigma *= cert.mu / (mu * (1.0 - 3e-4));
    }
    best.ok_or_else(|| Error::NumericalLimit(format!("no sigma could be certified for mu = {mu}")))
}

/// The largest μ (rounded down) such that every μ-GDP mechanism is (ε, δ)-DP: δ_{G_μ}(ε) ≤ δ on the exact GDP
/// curve (`analysis::gaussian_dp`), for calibrating a Gaussian release from an (ε, δ) budget.
pub fn gdp_mu_for_approx(epsilon: f64, delta: f64) -> Fallible<f64> {
    // The analytic Gaussian σ at Δ = 1 is rounded up, so 1/σ is at most the exact μ; round the division down.
    let sigma = analytic_gaussian_sigma(1.0, epsilon, delta)?;
    Ok((1.0 / sigma).next_down())
}

#[cfg(test)]
mod tests;
