//! The law of the Riemannian distance t = ρ(Y, P̄) between a draw Y of the Laplace distribution on SPD(k)
//! (affine-invariant metric, footpoint P̄, scale σ) and its footpoint, and of the **trace fraction**
//! τ = tr(log(P̄^{−½}YP̄^{−½}))/(√k·t), for k = 2 and 3. Derivations in `docs/proofs/spd_laplace.md`.
//!
//! Writing P̄^{−½}YP̄^{−½} = U diag(e^{r}) Uᵀ and r = t·u with u on the unit sphere S^{k−1}, t = ‖r‖ has density
//! ∝ t^{k−1} e^{−t/σ} A_k(t) on [0, t_max] (or [0, ∞) untruncated), where A_k(t) is the average over u ∈ S^{k−1}
//! of ∏_{i<j} sinh(t|u_i − u_j|/2). Both averages reduce to one integral:
//!
//! - k = 2: A₂(t) = (2/π)∫₀^{π/2} sinh(t cos ψ/√2) dψ (the modified Struve function L₀(t/√2)).
//! - k = 3: the largest gap a_max = max|u_i − u_j| is the sum of the other two, so
//!   ∏ sinh(t a_ij/2) = ¼[2 sinh(t a_max) − Σ_{i<j} sinh(t a_ij)]. Each u_i − u_j is √2 times the projection of u
//!   on a unit vector, uniform on [−1, 1] (Archimedes), and a_max/√2 has density (6/π)·w(z) on [0, 1] with
//!   w(z) = arctan(z/√(3 − 4z²)) below z₀ = √3/2 and π/2 above, hence
//!   A₃(t) = ¼∫₀¹ s₁(√2tz)·((12/π)w(z) − 3) dz, s₁(x) = sinh x − x (the linear parts cancel exactly).
//!
//! The trace fraction τ = cos α, α the angle between r and e₀ = (1, …, 1)/√k. Since u_i − u_j only depends on the
//! part sin α·v of u orthogonal to e₀, (t, α) has density ∝ t^{k−1} e^{−t/σ} sin^{k−2}α · H_k(t sin α) with
//! H_k(ρ) the average over unit v ⊥ e₀ of ∏ sinh(ρ|v_i − v_j|/2): H₂(ρ) = sinh(ρ/√2) and
//! H₃(ρ) = (3/2π)[∫₀^{π/6} − ∫_{π/6}^{π/2}] s₁(√2ρ cos γ) dγ.
//!
//! Everything is evaluated scaled by e^{−c_k t/2} (c_k = √(k(k²−1)/3), the largest exponential rate of the sinh
//! product), so that large t neither overflows nor loses the cancellation-free form; the CDFs are piecewise
//! Chebyshev interpolants of the antiderivatives, refined until their tail coefficients are negligible, so that
//! evaluating them costs a binary search and a 32-term Clenshaw sum.

use crate::analysis::quadrature::integrate_peaked;
use crate::error::Param;
use crate::error::{Error, Fallible, check_positive};
use std::f64::consts::{FRAC_1_SQRT_2, PI, SQRT_2};
use std::sync::OnceLock;

/// Smallest σ the analysis supports (smaller scales would underflow t^{k(k+1)/2}).
pub const MIN_SIGMA: f64 = 1e-50;

/// c_k = max over unit u ∈ R^k of Σ_{i<j}|u_i − u_j| = √(k(k² − 1)/3).
pub fn pair_sum_max(k: usize) -> f64 {
    let k = k as f64;
    (k * (k * k - 1.0) / 3.0).sqrt()
}

/// Relative accuracy of the inner (sphere-average) quadratures.
const INNER_TOL: f64 = 1e-13;

/// The law of t = ρ(Y, P̄) (and of the trace fraction) for the SPD(k) Laplace distribution, k ∈ {2, 3}.
#[derive(Debug, Clone)]
pub struct SpdRadialLaw {
    k: usize,
    sigma: f64,
    t_max: Option<f64>,
    /// t_max, or (untruncated) a point beyond which the mass is below 1e-17 of the total.
    t_end: f64,
    /// λ = 1/σ − c_k/2 (may be ≤ 0 when truncated).
    lambda: f64,
    /// The density is evaluated as exp(P ln t − λ(t − t_ref) + ln φ(t) − shift): t_ref = t_end when λ < 0, else 0,
    /// so that the exponent is computed without cancellation.
    t_ref: f64,
    shift: f64,
    /// Panel edges on [0, t_end] that resolve the density.
    edges: Vec<f64>,
    /// φ(t) = Ã_k(t)/t^m on [0, t_end].
    sphere: Table,
    /// H̃_k(ρ)/ρ^m on [0, t_end] (built with the trace-fraction law).
    plane: OnceLock<Table>,
    radial: Piecewise,
    angular: OnceLock<Piecewise>,
}

impl SpdRadialLaw {
    /// The law for SPD(k), k ∈ {2, 3}, scale `sigma` (finite, ≥ [`MIN_SIGMA`]), optionally truncated to
    /// t ≤ `t_max` (finite, > 0). Untruncated, σ must be below 2/c_k (√2 for k = 2, 1/√2 for k = 3).
    pub fn new(k: usize, sigma: f64, t_max: Option<f64>) -> Fallible<Self> {
        let sigma = check_positive(Param::Sigma, sigma)?;
        if sigma < MIN_SIGMA {
            return Err(Error::InvalidParameter { name: Param::Sigma, value: sigma, reason: "must be at least 1e-50" });
        }
        if k != 2 && k != 3 {
            return Err(Error::InvalidParameter {
                name: Param::K,
                value: k as f64,
                reason: "only k = 2 and k = 3 are supported",
            });
        }
        let t_max = t_max.map(|t| check_positive(Param::TMax, t)).transpose()?;
        let kappa = 0.5 * pair_sum_max(k);
        let lambda = 1.0 / sigma - kappa;
        if t_max.is_none() && lambda <= 0.0 {
            return Err(Error::InvalidParameter {
                name: Param::Sigma,
                value: sigma,
                reason: "the unconditioned SPD Laplace law is not normalisable for sigma >= 2*sqrt(3)/sqrt(k(k^2 - 1)) \
                         (sqrt(2) for k = 2, 1/sqrt(2) for k = 3); condition on a ball (pass t_max)",
            });
        }
        let mut law = SpdRadialLaw {
            k,
            sigma,
            t_max,
            t_end: 0.0,
            lambda,
            t_ref: 0.0,
            shift: 0.0,
            edges: Vec::new(),
            sphere: Table::default(),
            plane: OnceLock::new(),
            radial: Piecewise::default(),
            angular: OnceLock::new(),
        };
        match t_max {
            Some(t) => law.set_range(t),
            None => {
                // Ã_k ≤ 2^{−m}, so the mass beyond t_end is at most 2^{−m}Γ(k, λt_end)/λ^k.
                let m = (k * (k - 1) / 2) as f64;
                let log_tail = |x: f64| {
                    let mut term = 1.0;
                    let mut sum = 1.0;
                    for j in 1..k {
                        term *= x / j as f64;
                        sum += term;
                    }
                    let factorial: f64 = (1..k).map(|j| j as f64).product();
                    -m * 2f64.ln() - x + (factorial * sum).ln() - k as f64 * lambda.ln()
                };
                // Where to start looking: sinh y ≥ y gives ln Z ≥ −m ln 2 + ln E[P(u)] + ln Γ(k + m) + (k + m) ln σ,
                // with E[P(u)] the sphere average of ∏|u_i − u_j| (2√2/π for k = 2, 3√2/16 for k = 3). Every x
                // below the first that passes the test against that bound is skipped without building the
                // tables (each build costs as much as the whole set-up otherwise); the test below still decides.
                let log_z_below = log_normaliser_lower_bound(k, sigma);
                let mut x = 40.0 + 2.0 * k as f64;
                while log_tail(x) > (1e-17f64).ln() + log_z_below && x <= 1e4 {
                    x += 20.0;
                }
                loop {
                    law.set_range(x / lambda);
                    if log_tail(x) <= (1e-17f64).ln() + law.log_normaliser() || x > 1e4 {
                        break;
                    }
                    x += 20.0;
                }
            }
        }
        Ok(law)
    }

    /// Sets t_end, the tables, the panel edges, the shift and the radial interpolant.
    fn set_range(&mut self, t_end: f64) {
        self.t_end = t_end;
        let (k, m) = (self.k, self.pairs());
        self.sphere = Table::build(&|t| scaled_sphere_average(k, t) / t.powi(m), t_end);
        self.t_ref = if self.lambda < 0.0 { t_end } else { 0.0 };
        let mut edges: Vec<f64> = (0..=16).map(|j| t_end * j as f64 / 16.0).collect();
        // Geometric edges towards 0 resolve the peak at t ~ (k − 1 + m)σ when t_end is much larger; towards
        // t_end, the mass a truncated law with λ < 0 piles up within ~1/|λ| of the rim.
        let floor = 0.05 * self.sigma.min(t_end);
        let mut e = t_end / 32.0;
        while e > floor {
            edges.push(e);
            e *= 0.5;
        }
        if self.lambda < 0.0 {
            let floor = 0.05 * (1.0 / -self.lambda).min(t_end);
            let mut e = t_end / 32.0;
            while e > floor {
                edges.push(t_end - e);
                e *= 0.5;
            }
        }
        edges.sort_by(f64::total_cmp);
        edges.dedup();
        self.edges = edges;
        self.shift = 0.0;
        let probes = self.edges.windows(2).flat_map(|w| [0.25, 0.5, 0.75, 1.0].map(|f| w[0] + f * (w[1] - w[0])));
        self.shift = probes.map(|t| self.log_density(t)).fold(f64::NEG_INFINITY, f64::max);
        self.radial = Piecewise::build(&|t| self.density(t), &self.edges, 1e-12);
    }

    /// k.
    pub fn k(&self) -> usize {
        self.k
    }

    /// σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// The truncation radius, if any.
    pub fn t_max(&self) -> Option<f64> {
        self.t_max
    }

    /// ln ∫₀^{t_max} t^{k−1} e^{−t/σ} A_k(t) dt, A_k the average over the unit sphere S^{k−1} (see the module doc).
    /// Times |S^{k−1}| (2π for k = 2, 4π for k = 3) this is the normaliser of e^{−‖r‖/σ}∏ sinh(|r_i − r_j|/2) on
    /// R^k (or on the ball ‖r‖ ≤ t_max).
    pub fn log_normaliser(&self) -> f64 {
        self.radial.total.ln() + self.shift - self.lambda * self.t_ref
    }

    /// m = k(k − 1)/2, the number of pairs i < j.
    fn pairs(&self) -> i32 {
        (self.k * (self.k - 1) / 2) as i32
    }

    /// ln t^{k−1} e^{−t/σ} A_k(t) + λt_ref = (k − 1 + m) ln t − λ(t − t_ref) + ln(Ã_k(t)/t^m).
    fn log_density(&self, t: f64) -> f64 {
        (self.k as i32 - 1 + self.pairs()) as f64 * t.ln() - self.lambda * (t - self.t_ref) + self.sphere.eval(t).ln()
    }

    /// The shifted density on (0, t_end].
    fn density(&self, t: f64) -> f64 {
        if t <= 0.0 || t > self.t_end { 0.0 } else { (self.log_density(t) - self.shift).exp() }
    }

    /// The probability density of t.
    pub fn pdf(&self, t: f64) -> f64 {
        self.density(t) / self.radial.total
    }

    /// P[t ≤ x].
    pub fn cdf(&self, x: f64) -> f64 {
        (self.radial.integral_to(x) / self.radial.total).clamp(0.0, 1.0)
    }

    /// The CDF at each of `ts` (any order; ascending for KS tests).
    pub fn cdf_sorted(&self, ts: &[f64]) -> Vec<f64> {
        ts.iter().map(|&t| self.cdf(t)).collect()
    }

    /// E t, the expected Riemannian distance between a release and its footpoint.
    pub fn mean(&self) -> f64 {
        self.radial.first_moment() / self.radial.total
    }

    /// The p-quantile of t (0 < p < 1): a fraction p of releases lie within this distance of their footpoint.
    pub fn quantile(&self, p: f64) -> Fallible<f64> {
        let p = crate::error::check_level(Param::Level, p)?;
        let (mut lo, mut hi) = (0.0, self.t_end);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if self.cdf(mid) < p { lo = mid } else { hi = mid }
        }
        Ok(0.5 * (lo + hi))
    }

    /// Unnormalised density of the angle α ∈ [0, π/2] between r and e₀ (folded: α and π − α have the same
    /// density): sin^{k−2}α ∫ t^{k−1} e^{−t/σ} H_k(t sin α) dt, shifted like the radial density. With
    /// e^{−t/σ}H_k(t sin α) = e^{−λt − κ(1 − sin α)t} H̃_k(t sin α).
    fn angle_density(&self, alpha: f64) -> f64 {
        let s = alpha.sin();
        if s <= 0.0 {
            return 0.0;
        }
        let kappa = 0.5 * pair_sum_max(self.k);
        // 1 − sin α = 2 sin²(π/4 − α/2), without cancellation near π/2.
        let gap = kappa * 2.0 * (0.25 * PI - 0.5 * alpha).sin().powi(2);
        let m = self.pairs();
        let power = (self.k as i32 - 1 + m) as f64;
        let plane = self.plane.get_or_init(|| {
            let k = self.k;
            Table::build(&|r| scaled_plane_kernel(k, r) / r.powi(m), self.t_end)
        });
        let log_sin_m = m as f64 * s.ln() - self.shift;
        let inner = |t: f64| {
            if t <= 0.0 || t > self.t_end {
                return 0.0;
            }
            (power * t.ln() + log_sin_m - self.lambda * (t - self.t_ref) - gap * t).exp() * plane.eval(t * s)
        };
        s.powi(self.k as i32 - 2) * Piecewise::build(&inner, &self.edges, 1e-12).total
    }

    fn angular(&self) -> &Piecewise {
        self.angular.get_or_init(|| {
            let edges: Vec<f64> = (0..=8).map(|j| 0.5 * PI * j as f64 / 8.0).collect();
            Piecewise::build(&|a| self.angle_density(a), &edges, 1e-10)
        })
    }

    /// P[τ ≤ x] for the trace fraction τ = Σ_i r_i/(√k‖r‖) = tr(log(P̄^{−½}YP̄^{−½}))/(√k·ρ(Y, P̄)) ∈ [−1, 1]
    /// (the cosine of the angle between the log-displacement and the identity direction: ±1 for a pure rescaling
    /// Y = e^{±t/√k}P̄, 0 for det Y = det P̄). Its law is symmetric about 0.
    pub fn trace_fraction_cdf(&self, x: f64) -> f64 {
        if x <= -1.0 {
            return 0.0;
        }
        if x >= 1.0 {
            return 1.0;
        }
        let a = self.angular();
        let half = a.total;
        // α ∈ [0, π] has a density symmetric about π/2; G(α) = ∫₀^α g on [0, π/2].
        let f = if x < 0.0 {
            a.integral_to((-x).acos()) / (2.0 * half)
        } else {
            1.0 - a.integral_to(x.acos()) / (2.0 * half)
        };
        f.clamp(0.0, 1.0)
    }

    /// [`Self::trace_fraction_cdf`] at each of `xs`.
    pub fn trace_fraction_cdf_sorted(&self, xs: &[f64]) -> Vec<f64> {
        xs.iter().map(|&x| self.trace_fraction_cdf(x)).collect()
    }
}

/// (sinh x − x)·e^{−(x + gap)} for x, gap ≥ 0, without overflow and without cancellation (small x by the series;
/// the exponent's offset `gap` is passed separately so that e^{x − c} is not computed as the difference of two
/// large numbers).
#[inline]
fn sinh_minus_x_scaled(x: f64, gap: f64) -> f64 {
    if x < 1.5 {
        let x2 = x * x;
        let mut term = x * x2 / 6.0;
        let mut sum = term;
        let mut n = 3.0;
        while term > 1e-17 * sum {
            term *= x2 / ((n + 1.0) * (n + 2.0));
            n += 2.0;
            sum += term;
        }
        sum * (-(x + gap)).exp()
    } else {
        0.5 * ((-gap).exp() - (-gap - 2.0 * x).exp()) - x * (-(x + gap)).exp()
    }
}

/// Ã_k(t) = A_k(t)·e^{−c_k t/2}: the sphere average of ∏_{i<j} sinh(t|u_i − u_j|/2), scaled (module doc).
pub fn scaled_sphere_average(k: usize, t: f64) -> f64 {
    if t <= 0.0 {
        return 0.0;
    }
    match k {
        2 => {
            // (2/π)∫₀^{π/2} sinh(c cos ψ)e^{−c} dψ, c = t/√2; sinh(x)e^{−c} = e^{x−c}(1 − e^{−2x})/2.
            let c = t * FRAC_1_SQRT_2;
            if c < 1.0 {
                // The same integral is L₀(c) = Σ_j (c/2)^{2j+1}/Γ(j + 3/2)²: positive terms, each below 1/9 of
                // the one before, so a few terms give it to rounding (small noise scales need only t ≪ 1,
                // and the quadrature below cost as much as the rest of the set-up).
                let (half, half2) = (0.5 * c, 0.25 * c * c);
                let mut term = half * 4.0 / PI;
                let mut sum = term;
                let mut j = 0.0;
                while term > 1e-17 * sum {
                    j += 1.0;
                    term *= half2 / ((j + 0.5) * (j + 0.5));
                    sum += term;
                }
                return sum * (-c).exp();
            }
            scaled_l0_by_quadrature(c)
        }
        3 => {
            // ¼[∫₀^{z₀} s₁(cz)h(z)dz + 3∫_{z₀}^1 s₁(cz)dz]·e^{−c}, c = √2t, z = z₀ cos ε on the first piece.
            let c = SQRT_2 * t;
            let z0 = 0.5 * 3f64.sqrt();
            let f = |eps: f64| {
                let (s, co) = eps.sin_cos();
                let h = 12.0 / PI * co.atan2(2.0 * s) - 3.0;
                let x = c * z0 * co;
                sinh_minus_x_scaled(x, c * (1.0 - z0 * co)) * h * z0 * s
            };
            let first = integrate_peaked(&f, 0.5 * PI, (1.0 / (c * z0).sqrt()).min(1.0), INNER_TOL);
            0.25 * (first + 3.0 * tail_piece(c, z0))
        }
        _ => f64::NAN,
    }
}

/// A lower bound on the untruncated log-normaliser ln ∫ t^{k−1}e^{−t/σ}A_k(t) dt, from sinh y ≥ y:
/// A_k(t) ≥ 2^{−m}t^m·E[P(u)] with E[P(u)] the sphere average of ∏|u_i − u_j| (2√2/π for k = 2; 3√2/16 for k = 3,
/// by quadrature), so the integral is at least 2^{−m}E[P(u)]Γ(k + m)σ^{k+m}. Only tells [`SpdRadialLaw::new`]
/// where to start looking for its range (tested against the computed normaliser).
fn log_normaliser_lower_bound(k: usize, sigma: f64) -> f64 {
    let m = k * (k - 1) / 2;
    let mean_p = if k == 2 { 2.0 * SQRT_2 / PI } else { 3.0 * SQRT_2 / 16.0 };
    -(m as f64) * 2f64.ln()
        + mean_p.ln()
        + (1..k + m).map(|j| (j as f64).ln()).sum::<f64>()
        + (k + m) as f64 * sigma.ln()
}

/// L₀(c)·e^{−c} = (2/π)∫₀^{π/2} sinh(c cos ψ)e^{−c} dψ by quadrature (any c > 0; no overflow at large c).
fn scaled_l0_by_quadrature(c: f64) -> f64 {
    let f = |psi: f64| {
        let s = (0.5 * psi).sin();
        (-2.0 * c * s * s).exp() * -(-2.0 * c * psi.cos()).exp_m1() * 0.5
    };
    2.0 / PI * integrate_peaked(&f, 0.5 * PI, (1.0 / c.sqrt()).min(1.0), INNER_TOL)
}

/// e^{−c}∫_{z₀}^1 (sinh(cz) − cz) dz, by its series (c < 2) or its closed form.
fn tail_piece(c: f64, z0: f64) -> f64 {
    if c < 2.0 {
        // Σ_{n≥1} c^{2n+1}(1 − z₀^{2n+2})/(2n+2)!
        let (c2, z02) = (c * c, z0 * z0);
        let (mut cpow, mut zpow, mut fact) = (c * c2, z02 * z02, 24.0);
        let mut sum = 0.0;
        let mut n = 1.0;
        loop {
            let term = cpow * (1.0 - zpow) / fact;
            sum += term;
            if term <= 1e-17 * sum {
                break;
            }
            n += 1.0;
            cpow *= c2;
            zpow *= z02;
            fact *= (2.0 * n + 1.0) * (2.0 * n + 2.0);
        }
        sum * (-c).exp()
    } else {
        let cosh_part = 0.5 * (1.0 + (-2.0 * c).exp()) - 0.5 * ((-c * (1.0 - z0)).exp() + (-c * (1.0 + z0)).exp());
        cosh_part / c - 0.5 * c * (1.0 - z0 * z0) * (-c).exp()
    }
}

/// H̃_k(ρ) = H_k(ρ)·e^{−c_k ρ/2}: the average over unit v ⊥ (1, …, 1) of ∏ sinh(ρ|v_i − v_j|/2), scaled.
pub fn scaled_plane_kernel(k: usize, rho: f64) -> f64 {
    if rho <= 0.0 {
        return 0.0;
    }
    match k {
        2 => -(-SQRT_2 * rho).exp_m1() * 0.5,
        3 => {
            let c = SQRT_2 * rho;
            // c − c cos γ = 2c sin²(γ/2).
            let f = |g: f64| sinh_minus_x_scaled(c * g.cos(), 2.0 * c * (0.5 * g).sin().powi(2));
            let near = integrate_peaked(&f, PI / 6.0, (1.0 / c.sqrt()).min(PI / 6.0), INNER_TOL);
            let g = |d: f64| {
                let gamma = PI / 6.0 + d;
                sinh_minus_x_scaled(c * gamma.cos(), 2.0 * c * (0.5 * gamma).sin().powi(2))
            };
            let far = integrate_peaked(&g, PI / 3.0, (2.0 / c).min(1.0), INNER_TOL);
            1.5 / PI * (near - far)
        }
        _ => f64::NAN,
    }
}

/// A piecewise Chebyshev interpolant of a smooth, positive function on [0, hi] (panels [0, 1], [1, 2], [2, 4], …),
/// each panel refined until its last coefficients are below 1e-12 of its largest, i.e. to a relative accuracy.
#[derive(Debug, Clone, Default)]
struct Table {
    panels: Vec<(f64, f64, [f64; NODES])>,
}

impl Table {
    fn build(f: &dyn Fn(f64) -> f64, hi: f64) -> Self {
        let mut panels = Vec::new();
        let mut a = 0.0;
        let mut b = hi.min(1.0);
        loop {
            table_refine(f, a, b, 30, &mut panels);
            if b >= hi {
                break;
            }
            a = b;
            b = (2.0 * b).min(hi);
        }
        Table { panels }
    }

    /// The interpolant at x ∈ [0, hi] (clamped into the range).
    fn eval(&self, x: f64) -> f64 {
        let i = self.panels.partition_point(|p| p.1 < x).min(self.panels.len() - 1);
        let (a, b, c) = &self.panels[i];
        clenshaw(c, *a, *b, x.clamp(*a, *b))
    }
}

fn table_refine(f: &dyn Fn(f64) -> f64, a: f64, b: f64, depth: u32, out: &mut Vec<(f64, f64, [f64; NODES])>) {
    let c = chebyshev(f, a, b);
    let size: f64 = c.iter().map(|x| x.abs()).fold(0.0, f64::max);
    let tail: f64 = c[NODES - 4..].iter().map(|x| x.abs()).sum();
    if depth == 0 || tail <= 1e-12 * size || out.len() > 4000 {
        out.push((a, b, c));
        return;
    }
    let m = 0.5 * (a + b);
    table_refine(f, a, m, depth - 1, out);
    table_refine(f, m, b, depth - 1, out);
}

/// Number of Chebyshev nodes per panel.
const NODES: usize = 32;

/// cos(πj(i + ½)/N): row j holds T_j at the nodes; row 1 holds the nodes themselves.
fn cos_table() -> &'static [[f64; NODES]; NODES] {
    static TABLE: OnceLock<[[f64; NODES]; NODES]> = OnceLock::new();
    TABLE.get_or_init(|| {
        std::array::from_fn(|j| std::array::from_fn(|i| (PI * j as f64 * (i as f64 + 0.5) / NODES as f64).cos()))
    })
}

/// Chebyshev coefficients of f on [a, b] (Numerical Recipes' `chebft` convention: f ≈ Σ c_j T_j − c₀/2).
fn chebyshev(f: &dyn Fn(f64) -> f64, a: f64, b: f64) -> [f64; NODES] {
    let t = cos_table();
    let (mid, half) = (0.5 * (a + b), 0.5 * (b - a));
    let values: [f64; NODES] = std::array::from_fn(|i| f(mid + half * t[1][i]));
    std::array::from_fn(|j| 2.0 / NODES as f64 * (0..NODES).map(|i| values[i] * t[j][i]).sum::<f64>())
}

/// Coefficients of the antiderivative vanishing at a (`chint`).
fn antiderivative(c: &[f64; NODES], a: f64, b: f64) -> [f64; NODES] {
    let con = 0.25 * (b - a);
    let mut out = [0.0; NODES];
    let (mut sum, mut fac) = (0.0, 1.0);
    for j in 1..NODES - 1 {
        out[j] = con * (c[j - 1] - c[j + 1]) / j as f64;
        sum += fac * out[j];
        fac = -fac;
    }
    out[NODES - 1] = con * c[NODES - 2] / (NODES - 1) as f64;
    sum += fac * out[NODES - 1];
    out[0] = 2.0 * sum;
    out
}

/// Clenshaw evaluation (`chebev`).
fn clenshaw(c: &[f64; NODES], a: f64, b: f64, x: f64) -> f64 {
    let y = (2.0 * x - a - b) / (b - a);
    let (mut d, mut dd) = (0.0, 0.0);
    for &cj in c[1..].iter().rev() {
        let sv = d;
        d = 2.0 * y * d - dd + cj;
        dd = sv;
    }
    y * d - dd + 0.5 * c[0]
}

#[derive(Debug, Clone)]
struct Panel {
    a: f64,
    b: f64,
    /// Coefficients of f's interpolant.
    values: [f64; NODES],
    /// Antiderivative coefficients (zero at a).
    integral: [f64; NODES],
    /// ∫ from the first edge to a.
    offset: f64,
}

/// A piecewise Chebyshev interpolant of ∫ f for a smooth f ≥ 0, refined until on every panel the last
/// coefficients of f's interpolant, times the panel width, are below `rel_tol` times the whole integral (at most
/// 30 halvings of a panel and about 4000 panels, so a noisy f costs time, never an endless loop).
#[derive(Debug, Clone, Default)]
struct Piecewise {
    panels: Vec<Panel>,
    total: f64,
}

impl Piecewise {
    fn build(f: &dyn Fn(f64) -> f64, edges: &[f64], rel_tol: f64) -> Self {
        let first: Vec<(f64, f64, [f64; NODES])> =
            edges.windows(2).filter(|w| w[1] > w[0]).map(|w| (w[0], w[1], chebyshev(f, w[0], w[1]))).collect();
        let rough: f64 =
            first.iter().map(|(a, b, c)| clenshaw(&antiderivative(c, *a, *b), *a, *b, *b).abs()).sum::<f64>();
        let tol = (rel_tol * rough).max(f64::MIN_POSITIVE);
        let mut accepted = Vec::new();
        for (a, b, c) in first {
            refine(f, a, b, c, tol, 30, &mut accepted);
        }
        let mut offset = 0.0;
        let panels = accepted
            .into_iter()
            .map(|(a, b, c)| {
                let integral = antiderivative(&c, a, b);
                let p = Panel { a, b, values: c, integral, offset };
                offset += clenshaw(&integral, a, b, b);
                p
            })
            .collect();
        Piecewise { panels, total: offset }
    }

    /// ∫ f from the first edge to x (clamped to the covered range).
    fn integral_to(&self, x: f64) -> f64 {
        let Some(first) = self.panels.first() else { return 0.0 };
        if x <= first.a {
            return 0.0;
        }
        let i = self.panels.partition_point(|p| p.b <= x);
        match self.panels.get(i) {
            None => self.total,
            Some(p) => p.offset + clenshaw(&p.integral, p.a, p.b, x.max(p.a)),
        }
    }

    /// ∫ x f(x) dx over the covered range, from the interpolants: with x = mid + half·y,
    /// ∫T_j = 2/(1 − j²) (j even, else 0) and y·T_j = (T_{j+1} + T_{j−1})/2.
    fn first_moment(&self) -> f64 {
        let int_t = |j: usize| if j % 2 == 1 { 0.0 } else { 2.0 / (1.0 - (j * j) as f64) };
        self.panels
            .iter()
            .map(|p| {
                let (mid, half) = (0.5 * (p.a + p.b), 0.5 * (p.b - p.a));
                let mut zeroth = 0.5 * p.values[0] * int_t(0);
                let mut first = 0.0;
                for j in 1..NODES {
                    zeroth += p.values[j] * int_t(j);
                    first += p.values[j] * 0.5 * (int_t(j + 1) + int_t(j - 1));
                }
                half * (mid * zeroth + half * first)
            })
            .sum()
    }
}

fn refine(
    f: &dyn Fn(f64) -> f64,
    a: f64,
    b: f64,
    c: [f64; NODES],
    tol: f64,
    depth: u32,
    out: &mut Vec<(f64, f64, [f64; NODES])>,
) {
    let tail: f64 = c[NODES - 4..].iter().map(|x| x.abs()).sum();
    if depth == 0 || (b - a) * tail <= tol || out.len() > 4000 {
        out.push((a, b, c));
        return;
    }
    let m = 0.5 * (a + b);
    refine(f, a, m, chebyshev(f, a, m), tol, depth - 1, out);
    refine(f, m, b, chebyshev(f, m, b), tol, depth - 1, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::quadrature::integrate;

    /// Modified Struve L₀(x) by its power series Σ (x/2)^{2j+1}/Γ(j + 3/2)².
    fn struve_l0(x: f64) -> f64 {
        let mut g = 0.5 * PI.sqrt(); // Γ(3/2)
        let mut p = 0.5 * x;
        let mut sum = 0.0;
        for j in 0..200 {
            let term = p / (g * g);
            sum += term;
            if j > 5 && term < 1e-18 * sum {
                break;
            }
            p *= 0.25 * x * x;
            g *= j as f64 + 1.5;
        }
        sum
    }

    /// A_k(t)·e^{−c_k t/2} by a plain midpoint rule over the sphere (accurate to ~1e-5: the integrand has kinks): for k = 2 over the circle, for k = 3 over
    /// (cos α, β) with the product of sinh's (no reduction).
    fn brute_average(k: usize, t: f64) -> f64 {
        let kappa = 0.5 * pair_sum_max(k);
        let prod = |u: &[f64]| {
            let mut p = 1.0;
            for i in 0..u.len() {
                for j in i + 1..u.len() {
                    let x = 0.5 * t * (u[i] - u[j]).abs();
                    p *= x.sinh();
                }
            }
            p * (-kappa * t).exp()
        };
        let n = 1200;
        if k == 2 {
            (0..n).map(|i| 2.0 * PI * (i as f64 + 0.5) / n as f64).map(|p| prod(&[p.cos(), p.sin()])).sum::<f64>()
                / n as f64
        } else {
            let mut sum = 0.0;
            for i in 0..n {
                let z = -1.0 + 2.0 * (i as f64 + 0.5) / n as f64;
                let r = (1.0 - z * z).sqrt();
                for j in 0..n {
                    let b = 2.0 * PI * (j as f64 + 0.5) / n as f64;
                    sum += prod(&[r * b.cos(), r * b.sin(), z]);
                }
            }
            sum / (n * n) as f64
        }
    }

    #[test]
    fn sphere_averages_match_struve_and_brute_force() {
        for t in [1e-3, 0.1, 1.0, 5.0, 30.0] {
            let exact = struve_l0(t * FRAC_1_SQRT_2) * (-t * FRAC_1_SQRT_2).exp();
            let got = scaled_sphere_average(2, t);
            assert!((got - exact).abs() < 1e-12 * exact, "k = 2, t = {t}: {got} vs Struve {exact}");
        }
        // Below c = t/√2 = 1 the k = 2 average is the series; it agrees with the quadrature it replaced.
        for c in [1e-8, 1e-3, 0.05, 0.3, 0.7, 0.999, 1.0] {
            let (series, quadrature) = (scaled_sphere_average(2, c * SQRT_2), scaled_l0_by_quadrature(c));
            assert!((series - quadrature).abs() < 1e-13 * quadrature, "c = {c}: {series} vs {quadrature}");
        }
        for t in [0.05, 0.7, 3.0, 12.0] {
            for k in [2, 3] {
                let brute = brute_average(k, t);
                let got = scaled_sphere_average(k, t);
                assert!((got - brute).abs() < 1e-4 * brute, "k = {k}, t = {t}: {got} vs brute {brute}");
            }
        }
    }

    /// The bound that starts the search for the range is below the computed normaliser (and not far below
    /// at small σ, where sinh y ≈ y).
    #[test]
    fn the_normaliser_bound_holds() {
        for k in [2, 3] {
            for sigma in [1e-6, 1e-3, 0.01, 0.1, 0.3, 1.2 / pair_sum_max(k)] {
                let law = SpdRadialLaw::new(k, sigma, None).unwrap();
                let (bound, z) = (log_normaliser_lower_bound(k, sigma), law.log_normaliser());
                assert!(bound <= z, "k = {k}, σ = {sigma}: {bound} > {z}");
                if sigma <= 1e-3 {
                    assert!(z - bound < 0.01, "k = {k}, σ = {sigma}: {bound} vs {z}");
                }
            }
        }
    }

    #[test]
    fn sphere_average_agrees_with_the_plane_kernel_decomposition() {
        // A_k(t) = ∫₀^π sin^{k−2}α H_k(t sin α) e^{−c_k t(1 − sin α)/2} dα / ∫₀^π sin^{k−2}α dα.
        for k in [2, 3] {
            let kappa = 0.5 * pair_sum_max(k);
            for t in [1e-4, 0.3, 2.0, 25.0, 400.0] {
                let f = |a: f64| {
                    let s = a.sin();
                    s.powi(k as i32 - 2) * scaled_plane_kernel(k, t * s) * (-kappa * t * (1.0 - s)).exp()
                };
                let norm = if k == 2 { PI } else { 2.0 };
                let scale = (1.0 / t.sqrt()).min(1.0);
                let g = |e: f64| f(0.5 * PI - e) + f(0.5 * PI + e);
                let via_plane = integrate_peaked(&g, 0.5 * PI, scale, 1e-13) / norm;
                let direct = scaled_sphere_average(k, t);
                assert!((via_plane - direct).abs() < 1e-10 * direct, "k = {k}, t = {t}: {via_plane} vs {direct}");
            }
        }
    }

    #[test]
    fn small_scale_limit_is_a_gamma_law() {
        // As σ → 0, A_k(t) ≈ (t/2)^m E[P] and t ≈ Gamma(k + m, σ).
        for (k, m) in [(2usize, 1i32), (3, 3)] {
            let sigma = 1e-6;
            let law = SpdRadialLaw::new(k, sigma, None).unwrap();
            let shape = k as i32 + m;
            for x in [1.0, 3.0, 6.0, 10.0] {
                // Regularised lower incomplete gamma P(shape, x) for integer shape.
                let mut term = 1.0;
                let mut sum = 1.0;
                for j in 1..shape {
                    term *= x / j as f64;
                    sum += term;
                }
                let gamma_cdf = 1.0 - (-x).exp() * sum;
                assert!((law.cdf(x * sigma) - gamma_cdf).abs() < 1e-4, "k = {k}, x = {x}");
            }
            assert!((law.mean() / sigma - shape as f64).abs() < 1e-4 * shape as f64);
            // E[P] over the sphere: 2√2/π for k = 2, 3/(8√2) for k = 3.
            let e_p = if k == 2 { 2.0 * SQRT_2 / PI } else { 3.0 / (8.0 * SQRT_2) };
            let gamma_shape: f64 = (1..shape).map(|j| j as f64).product();
            let predicted = (e_p / 2f64.powi(m) * gamma_shape * sigma.powi(shape)).ln();
            assert!((law.log_normaliser() - predicted).abs() < 1e-4, "k = {k}");
        }
    }

    #[test]
    fn cdf_is_monotone_normalised_and_consistent_with_quadrature() {
        for (k, sigma, t_max) in [(2, 0.3, None), (3, 0.65, None), (3, 5.0, Some(3.0)), (2, 1.3, None)] {
            let law = SpdRadialLaw::new(k, sigma, t_max).unwrap();
            let f = |t: f64| law.density(t);
            let mass: f64 = law.edges.windows(2).map(|w| integrate(&f, w[0], w[1], 1e-13 * law.radial.total)).sum();
            assert!((law.radial.total - mass).abs() < 1e-10 * mass, "{k} {sigma}: {} vs {mass}", law.radial.total);
            let first: f64 =
                law.edges.windows(2).map(|w| integrate(&|t| t * f(t), w[0], w[1], 1e-13 * mass * law.t_end)).sum();
            assert!((law.mean() - first / mass).abs() < 1e-10 * law.mean());
            let mut last = 0.0;
            for i in 1..=400 {
                let x = law.t_end * i as f64 / 400.0;
                let c = law.cdf(x);
                assert!(c >= last - 1e-14);
                last = c;
                if i % 50 == 0 {
                    let direct = integrate(&f, 0.0, x, 1e-13 * mass) / mass;
                    assert!((direct - c).abs() < 1e-9, "k = {k} σ = {sigma} x = {x}: {c} vs {direct}");
                }
            }
            assert!((law.cdf(law.t_end) - 1.0).abs() < 1e-12);
            let med = law.quantile(0.5).unwrap();
            assert!((law.cdf(med) - 0.5).abs() < 1e-9);
        }
    }

    #[test]
    fn trace_fraction_law_is_symmetric_and_tends_to_its_limits() {
        let law = SpdRadialLaw::new(3, 0.3, None).unwrap();
        for x in [0.1, 0.4, 0.8] {
            assert!((law.trace_fraction_cdf(x) + law.trace_fraction_cdf(-x) - 1.0).abs() < 1e-9);
        }
        assert!((law.trace_fraction_cdf(0.0) - 0.5).abs() < 1e-12);
        // Small σ: α has density ∝ sin^{k−2+m}α (times E_v[P(v)], a constant): for k = 2, sin α; so
        // P[|τ| ≤ x] = P[α ≥ arccos x] on [0, π/2] = x for density sin α... check: ∫_{arccos x}^{π/2} sin = x.
        let small = SpdRadialLaw::new(2, 1e-5, None).unwrap();
        for x in [0.2, 0.5, 0.9] {
            let got = small.trace_fraction_cdf(x) - small.trace_fraction_cdf(-x);
            assert!((got - x).abs() < 1e-4, "{got} vs {x}");
        }
        // k = 3: density ∝ sin⁴α, P[|τ| ≤ x] = ∫_{arccos x}^{π/2} sin⁴ / (3π/16).
        let small3 = SpdRadialLaw::new(3, 1e-5, None).unwrap();
        for x in [0.2, 0.5, 0.9f64] {
            let a = x.acos();
            let anti = |t: f64| 3.0 * t / 8.0 - (2.0 * t).sin() / 4.0 + (4.0 * t).sin() / 32.0;
            let exact = (anti(0.5 * PI) - anti(a)) / (3.0 * PI / 16.0);
            let got = small3.trace_fraction_cdf(x) - small3.trace_fraction_cdf(-x);
            assert!((got - exact).abs() < 1e-4, "{got} vs {exact}");
        }
    }

    #[test]
    fn huge_balls_at_huge_scales_pile_up_at_the_rim() {
        // σ = 1000 ≫ threshold: the density ∝ t^{(k−1)/2}e^{(c_k/2 − 1/σ)t} near t_max, so E t ≈ t_max − 1/1.41.
        for t_max in [10.0, 1e3, 1e5] {
            let law = SpdRadialLaw::new(3, 1e3, Some(t_max)).unwrap();
            let gap = t_max - law.mean();
            assert!(gap > 0.3 && gap < 1.0, "t_max = {t_max}: mean {}", law.mean());
            assert!(law.cdf(t_max - 5.0) < 0.01 && law.log_normaliser().is_finite());
        }
    }

    #[test]
    fn refuses_unnormalisable_and_bad_parameters() {
        assert!(SpdRadialLaw::new(2, SQRT_2, None).is_err());
        assert!(SpdRadialLaw::new(3, 0.71, None).is_err());
        assert!(SpdRadialLaw::new(3, 0.71, Some(2.0)).is_ok());
        assert!(SpdRadialLaw::new(4, 0.1, None).is_err());
        assert!(SpdRadialLaw::new(2, 0.1, Some(f64::INFINITY)).is_err());
        assert!(SpdRadialLaw::new(2, f64::NAN, None).is_err());
        assert!((pair_sum_max(3) - 2.0 * SQRT_2).abs() < 1e-15);
    }
}
