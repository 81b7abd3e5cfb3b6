//! Closed forms for the directional mechanisms on S^{n−1} (docs/math.md §2): the Purkayastha normaliser, mean
//! angle, mean cosine and (small-n) angle CDF, and the von Mises–Fisher (VMF) mean cosine and expected
//! chordal (Euclidean) distance. They serve as fast evaluations and as oracles for the quadrature in
//! [`SphereAngle`](crate::analysis::sphere_angle::SphereAngle).
//!
//! Throughout, `dim` = n ≥ 2 is the ambient dimension (the sphere is S^{n−1}), κ > 0 the concentration (κ = ε
//! for both mechanisms), θ ∈ [0, π] the angle to the centre and k = n − 2 the power of sin θ in the angle
//! density. Products that overflow for large n or κ are evaluated as sums of logarithms, with factors written
//! as ratios ≤ 1 so that neither the factorials nor the powers of κ are ever formed.

use crate::analysis::quadrature::integrate;
use crate::error::Param;
use crate::error::{Error, Fallible, check_positive};
use std::f64::consts::PI;

/// Largest `dim` accepted by [`purkayastha_angle_cdf_closed_form`].
const CDF_MAX_DIM: usize = 40;

/// Validates n ≥ 2 and κ (finite, > 0); returns k = n − 2 and κ.
fn check(dim: usize, kappa: f64) -> Fallible<(usize, f64)> {
    let kappa = check_positive(Param::Concentration, kappa)?;
    if dim < 2 {
        return Err(Error::InvalidParameter {
            name: Param::Dimension,
            value: dim as f64,
            reason: "must be at least 2 (2 is the circle S¹, 3 the sphere S²)",
        });
    }
    Ok((dim - 2, kappa))
}

/// ln(1 + x²) for x ≥ 0 without overflowing x² (for x ≥ 1e150, 1 + x² rounds to x² anyway).
fn ln_1p_sq(x: f64) -> f64 {
    if x < 1e150 { (x * x).ln_1p() } else { 2.0 * x.ln() }
}

/// ln(κ² + m²) without overflowing κ².
fn ln_sum_sq(kappa: f64, m: f64) -> f64 {
    2.0 * kappa.hypot(m).ln()
}

/// ln Z_k(κ), Z_k(κ) = ∫₀^π e^{−κθ} sin^k θ dθ (see [`purkayastha_log_normaliser`]).
fn log_normaliser(k: usize, kappa: f64) -> f64 {
    let x = kappa * PI;
    let mut s = if k.is_multiple_of(2) {
        // (1 − e^{−κπ})/κ as one ratio: numerator and denominator vanish together as κ → 0.
        (-(-x).exp_m1() / kappa).ln()
    } else {
        (-x).exp().ln_1p() - ln_1p_sq(kappa)
    };
    // k! is split over the factors of the denominator's product, (2j−1)(2j)/(κ² + (2j)²) (k even) or
    // (2j)(2j+1)/(κ² + (2j+1)²) (k odd); each number under a log is ≤ 1, so nothing overflows, and at small κ
    // the terms are O(1/j), which keeps the rounding of a 5 000-term sum near 1e-13 absolute.
    let first = if k.is_multiple_of(2) { 2 } else { 3 };
    for m in (first..=k).step_by(2) {
        let (a, b) = ((m - 1) as f64, m as f64);
        let h = kappa.hypot(b);
        s += (a / h).ln() + (b / h).ln();
    }
    s
}

/// ln Z(κ) for the Purkayastha angle law on S^{dim−1}: Z(κ) = ∫₀^π e^{−κθ} sin^k θ dθ, k = dim − 2, in closed
/// form (docs/math.md §2; it follows from two integrations by parts, see
/// [`purkayastha_angle_cdf_closed_form`]):
///
/// - k even: Z = k!·(1 − e^{−κπ}) / (κ·∏_{j=1}^{k/2}(κ² + (2j)²)),
/// - k odd: Z = k!·(1 + e^{−κπ}) / ∏_{j=0}^{(k−1)/2}(κ² + (2j+1)²),
///
/// evaluated as a sum of logarithms of factors ≤ 1 (valid for every n ≥ 2 and every finite κ > 0; O(n)).
/// Absolute accuracy of the result ~1e-15·n.
///
/// # Errors
/// [`Error::InvalidParameter`] when `dim` < 2 or `kappa` is not finite and > 0.
pub fn purkayastha_log_normaliser(dim: usize, kappa: f64) -> Fallible<f64> {
    let (k, kappa) = check(dim, kappa)?;
    Ok(log_normaliser(k, kappa))
}

/// h(x) = 1/x − 1/(eˣ − 1), which tends to ½ as x → 0, where the two terms cancel.
fn inv_minus_bose(x: f64) -> f64 {
    if x < 0.25 {
        // ½ − Σ_{m≥1} B_{2m} x^{2m−1}/(2m)! (B the Bernoulli numbers); the first omitted term is below
        // 1e-19 at x = 0.25.
        let x2 = x * x;
        let c = [
            -1.0 / 12.0,
            1.0 / 720.0,
            -1.0 / 30_240.0,
            1.0 / 1_209_600.0,
            -1.0 / 47_900_160.0,
            691.0 / 1_307_674_368_000.0,
        ];
        0.5 + x * c.iter().rev().fold(0.0, |acc, &ci| acc * x2 + ci)
    } else {
        // The cancellation is at most a factor 8 here.
        1.0 / x - 1.0 / x.exp_m1()
    }
}

/// E\[θ\] for the Purkayastha angle law on S^{dim−1} (the paper's expected surface distance of the Purkayastha
/// mechanism), in closed form: E\[θ\] = −d/dκ ln Z(κ), term by term from [`purkayastha_log_normaliser`]:
///
/// - k even: E\[θ\] = 1/κ − π/(e^{κπ} − 1) + Σ_{j=1}^{k/2} 2κ/(κ² + (2j)²),
/// - k odd: E\[θ\] = π/(e^{κπ} + 1) + Σ_{j=0}^{(k−1)/2} 2κ/(κ² + (2j+1)²).
///
/// The difference 1/κ − π/(e^{κπ} − 1) (→ π/2 as κ → 0) is taken from its Bernoulli series when κπ < ¼;
/// all other terms are positive, so the relative accuracy is ~1e-15 for every n and κ. As κ → ∞,
/// E\[θ\] ≈ (n − 1)/κ; as κ → 0, E\[θ\] → π/2.
///
/// # Errors
/// [`Error::InvalidParameter`] when `dim` < 2 or `kappa` is not finite and > 0.
pub fn purkayastha_mean_angle(dim: usize, kappa: f64) -> Fallible<f64> {
    let (k, kappa) = check(dim, kappa)?;
    let x = kappa * PI;
    let (head, first) = if k.is_multiple_of(2) { (PI * inv_minus_bose(x), 2) } else { (PI / (x.exp() + 1.0), 1) };
    // 2κ/(κ² + m²), arranged so that neither κ² nor m²/κ overflows.
    let term = |m: usize| {
        let m = m as f64;
        if kappa <= 1.0 { 2.0 * kappa / (kappa * kappa + m * m) } else { 2.0 / (kappa + m * (m / kappa)) }
    };
    Ok(head + (first..=k).step_by(2).map(term).sum::<f64>())
}

/// P[θ ≤ `theta`] for the Purkayastha angle law on S^{dim−1}, by the exact recursion for
/// I_k(θ) = ∫₀^θ e^{−κt} sin^k t dt. With F_k(θ) = e^{−κθ} sin^{k−1}θ·(κ sin θ + k cos θ), differentiating
/// gives F_k′ = k(k−1) e^{−κθ} sin^{k−2}θ − (κ² + k²) e^{−κθ} sin^k θ, hence (F_k(0) = 0 for k ≥ 2)
///
/// (κ² + k²)·I_k(θ) = k(k−1)·I_{k−2}(θ) − F_k(θ),
/// I_0(θ) = (1 − e^{−κθ})/κ, I_1(θ) = (1 − e^{−κθ}(κ sin θ + cos θ))/(1 + κ²),
///
/// and at θ = π the same recursion gives Z_k = Z_{k−2}·k(k−1)/(κ² + k²). Dividing, the CDF C_k = I_k/Z_k obeys
/// C_k(θ) = C_{k−2}(θ) − F_k(θ)/((κ² + k²)·Z_k), with the subtracted term formed in log space (so that large κ
/// and k neither overflow nor underflow).
///
/// This is an **oracle for small dimension** (dim ≤ 12, say): each step subtracts O(1) quantities, so the
/// result is accurate to ~1e-15·k in absolute terms, but in the lower tail (C_k ≪ C_{k−2}), which at large k
/// covers the whole bulk, relative accuracy is lost by cancellation. Use
/// [`SphereAngle`](crate::analysis::sphere_angle::SphereAngle) for large n. Returns 0 for θ ≤ 0 and 1 for θ ≥ π.
///
/// # Errors
/// [`Error::InvalidParameter`] when `dim` < 2 or > 40, `kappa` is not finite and > 0, or `theta` is NaN.
pub fn purkayastha_angle_cdf_closed_form(dim: usize, kappa: f64, theta: f64) -> Fallible<f64> {
    let (k, kappa) = check(dim, kappa)?;
    if dim > CDF_MAX_DIM {
        return Err(Error::InvalidParameter {
            name: Param::Dimension,
            value: dim as f64,
            reason: "the recursive closed-form CDF loses accuracy by cancellation; it is offered for dim ≤ 40 \
                     (use SphereAngle::purkayastha for larger dimensions)",
        });
    }
    if theta.is_nan() {
        return Err(Error::InvalidParameter { name: Param::Angle, value: theta, reason: "must be a number" });
    }
    if theta <= 0.0 {
        return Ok(0.0);
    }
    if theta >= PI {
        return Ok(1.0);
    }
    let (sin, cos) = theta.sin_cos();
    let decay = (-kappa * theta).exp();
    let mut c = if k.is_multiple_of(2) {
        (-kappa * theta).exp_m1() / (-kappa * PI).exp_m1()
    } else {
        // 1 − e^{−κθ}(κ sin θ + cos θ), with cos θ − 1 = −2 sin²(θ/2) formed without cancellation.
        let half = (0.5 * theta).sin();
        (-(-kappa * theta).exp_m1() - decay * (kappa * sin - 2.0 * half * half)) / (1.0 + (-kappa * PI).exp())
    };
    let first = if k.is_multiple_of(2) { 2 } else { 3 };
    for m in (first..=k).step_by(2) {
        let mf = m as f64;
        let factor = kappa * sin + mf * cos;
        if factor == 0.0 {
            continue;
        }
        let log_term = -kappa * theta + (mf - 1.0) * sin.ln() + factor.abs().ln()
            - ln_sum_sq(kappa, mf)
            - log_normaliser(m, kappa);
        c -= factor.signum() * log_term.exp();
    }
    Ok(c.clamp(0.0, 1.0))
}

/// I_{ν+1}(z)/I_ν(z) by backward recurrence r_{μ−1} = 1/(2μ/z + r_μ) from r = 0 at a depth where the start
/// error is damped below e^{−damping}: it is multiplied by ∏ r_μ², and r_μ ≤ z/(μ + √(μ² + z²)) = e^{−asinh(μ/z)}
/// (a bound weaker than Amos's), so the depth is taken where 2·Σ asinh(μ/z) ≥ `damping`. Each step is a
/// contraction, so rounding errors are damped too, but the ~√z steps where r ≈ 1 still add up to ~1e-16·√(steps)
/// (hence the switch to the asymptotic series at large z); the depth is O(√z) for z ≫ ν and O(1) for z ≪ ν.
fn bessel_ratio_recurrence(nu: f64, z: f64, damping: f64) -> f64 {
    let mut depth = 0usize;
    let mut acc = 0.0;
    while acc < damping && depth < 100_000_000 {
        depth += 1;
        acc += 2.0 * ((nu + depth as f64) / z).asinh();
    }
    let mut r = 0.0;
    for j in (1..=depth).rev() {
        r = 1.0 / (2.0 * (nu + j as f64) / z + r);
    }
    r
}

/// I_{n/2}(z)/I_{n/2−1}(z) from its asymptotic series 1 + Σ c_m z^{−m} for z ≫ n² (used for z ≥ max(10n², 50)).
/// The series solves the Riccati equation R′ = 1 − R² − (n − 1)R/z that the ratio obeys: c₁ = −(n − 1)/2 and
/// 2c_{m+1} = (m − (n − 1))c_m − Σ_{i=1}^{m} c_i c_{m+1−i}. With z ≥ 10n² successive terms shrink by a factor
/// ≤ ~1/(80m); the neglected part is O(e^{−2z}). (It agrees with the recurrence to 1e-15 already at z = n².)
fn bessel_ratio_asymptotic(n: usize, z: f64) -> f64 {
    let n1 = (n - 1) as f64;
    // d[m] = c_m / z^m.
    let mut d = vec![0.0, -0.5 * n1 / z];
    let mut sum = d[1];
    for m in 1..40 {
        let conv: f64 = (1..=m).map(|i| d[i] * d[m + 1 - i]).sum();
        let next = 0.5 * ((m as f64 - n1) * d[m] / z - conv);
        d.push(next);
        sum += next;
        if next.abs() < 1e-18 * sum.abs() {
            break;
        }
    }
    1.0 + sum
}

/// A_n(κ) = I_{n/2}(κ)/I_{n/2−1}(κ) with the regime switch of [`vmf_mean_cos`].
fn vmf_mean_cos_unchecked(dim: usize, kappa: f64) -> f64 {
    let n = dim as f64;
    if kappa >= (10.0 * n * n).max(50.0) {
        bessel_ratio_asymptotic(dim, kappa)
    } else {
        bessel_ratio_recurrence(0.5 * n - 1.0, kappa, 40.0)
    }
}

/// E[μ·X] = E[cos θ] for the VMF law on S^{dim−1}: the mean resultant length
/// A_n(κ) = I_{n/2}(κ)/I_{n/2−1}(κ) (ratio of modified Bessel functions of the first kind). It governs the
/// asymptotic error of circular (spherical) means of VMF-privatized data: the mean of N releases around μ
/// concentrates at A_n(κ)·μ.
///
/// Computed from the continued fraction A_n = 1/(n/κ + 1/((n + 2)/κ + 1/((n + 4)/κ + ⋯))) (the recurrence
/// I_{ν−1} − I_{ν+1} = (2ν/κ) I_ν), evaluated by backward recurrence from a depth chosen from a bound on the
/// ratios (O(√κ) steps); for κ ≥ max(10n², 50) from the asymptotic series
/// A_n = 1 − (n − 1)/(2κ) + (n − 1)(n − 3)/(8κ²) + ⋯. Relative accuracy ~1e-14 for κ in [1e-6, 1e6] and dim in
/// [2, 10 000]. Closed cases: A_3 = coth κ − 1/κ; A_n ≈ κ/n as κ → 0.
///
/// # Errors
/// [`Error::InvalidParameter`] when `dim` < 2 or `kappa` is not finite and > 0.
pub fn vmf_mean_cos(dim: usize, kappa: f64) -> Fallible<f64> {
    check(dim, kappa)?;
    Ok(vmf_mean_cos_unchecked(dim, kappa))
}

/// E[cos θ] for the Purkayastha law on S^{dim−1} (its mean resultant length), in closed form. Integrating by
/// parts with d/dθ sin^{k+1}θ = (k+1) sin^k θ cos θ gives ∫₀^π e^{−κθ} sin^k θ cos θ dθ = κ Z_{k+1}/(k+1), so
/// E[cos θ] = κ Z_{k+1}(κ)/((k+1) Z_k(κ)); inserting the products of [`purkayastha_log_normaliser`] (the
/// factorials telescope) leaves
///
/// E[cos θ] = t(κ)·∏_{i = k, k−2, …, ≥ 0} (κ² + i²)/(κ² + (i+1)²), t = coth(κπ/2) for k even, tanh(κπ/2) for k odd
///
/// (k = 0: κ²(1 + e^{−κπ})/((1 + κ²)(1 − e^{−κπ}))). Evaluated as a sum of logs, each factor as
/// ln(1 − (2i+1)/(κ² + (i+1)²)) by `ln_1p` where that difference is small: relative accuracy ~1e-15·√n for
/// every n and κ (no quadrature).
///
/// # Errors
/// [`Error::InvalidParameter`] when `dim` < 2 or `kappa` is not finite and > 0.
pub fn purkayastha_mean_cos(dim: usize, kappa: f64) -> Fallible<f64> {
    let (k, kappa) = check(dim, kappa)?;
    let x = kappa * PI;
    // ln coth(κπ/2) = ln(1 + e^{−κπ}) − ln(1 − e^{−κπ}).
    let ln_coth = (-x).exp().ln_1p() - (-(-x).exp_m1()).ln();
    let mut s = if k.is_multiple_of(2) { ln_coth } else { -ln_coth };
    for i in (k % 2..=k).step_by(2) {
        let (a, b) = (i as f64, (i + 1) as f64);
        s += if i == 0 {
            // κ²/(1 + κ²), which vanishes as κ → 0 (and must not underflow to ln 0 for tiny κ).
            2.0 * kappa.ln() - ln_1p_sq(kappa)
        } else {
            let d = if kappa < 1e150 { (2.0 * a + 1.0) / (kappa * kappa + b * b) } else { 0.0 };
            if d <= 0.5 { (-d).ln_1p() } else { ((kappa * kappa + a * a) / (kappa * kappa + b * b)).ln() }
        };
    }
    Ok(s.exp())
}

/// Panel edges on [0, π] for an angle density with a peak at `mode` of width `width`: the bulk at π/64, the
/// peak at width/2 out to ±12 widths, and geometrically growing panels beyond, so that each panel is resolved
/// by the 15-point rule at the start (as [`integrate`] requires).
fn panels(mode: f64, width: f64) -> Vec<f64> {
    let mut edges: Vec<f64> = (0..=64).map(|i| PI * f64::from(i) / 64.0).collect();
    for j in -24..=24 {
        edges.push(mode + 0.5 * f64::from(j) * width);
    }
    let mut s = 16.0 * width;
    while s < PI {
        edges.push(mode + s);
        edges.push(mode - s);
        s *= 2.0;
    }
    edges.retain(|x| (0.0..=PI).contains(x));
    edges.sort_by(f64::total_cmp);
    edges.dedup();
    edges
}

/// Mode and width of the VMF angle density ∝ sin^k θ·e^{κ(cos θ − 1)}: k cos θ = κ sin²θ, i.e.
/// cos θ = 2κ/(k + √(k² + 4κ²)) and sin θ = √(k cos θ/κ) (accurate when θ is small); width 1/√(κ + k).
fn vmf_peak(k: usize, kappa: f64) -> (f64, f64) {
    let kf = k as f64;
    let cos_mode = 2.0 * kappa / (kf + kf.hypot(2.0 * kappa));
    ((kf * cos_mode / kappa).sqrt().atan2(cos_mode), 1.0 / (kappa + kf).sqrt())
}

/// ln of the VMF angle density ∝ sin^k θ·e^{−2κ sin²(θ/2)} relative to its value at `mode`:
/// k ln(sin θ/sin θ_m) − 2κ(sin²(θ/2) − sin²(θ_m/2)), with both differences formed by product identities
/// (sin θ − sin θ_m = 2 cos((θ+θ_m)/2) sin((θ−θ_m)/2), sin²a − sin²b = sin(a+b) sin(a−b)). Evaluating the two
/// terms separately would leave an absolute error of an ulp of k ln sin θ (~1e-12 at n = 10 000, κ = 1e4),
/// which the adaptive quadrature would chase without end; this form is accurate relative to the result.
fn vmf_log_density_rel(k: usize, kappa: f64, mode: f64, theta: f64) -> f64 {
    let half_diff = (0.5 * (theta - mode)).sin();
    let kernel = -2.0 * kappa * (0.5 * (theta + mode)).sin() * half_diff;
    if k == 0 {
        return kernel;
    }
    let sin_mode = mode.sin();
    let d = 2.0 * (0.5 * (theta + mode)).cos() * half_diff / sin_mode;
    let ln_ratio = if d.abs() < 0.5 { d.ln_1p() } else { (theta.sin() / sin_mode).ln() };
    k as f64 * ln_ratio + kernel
}

/// E[2 sin(θ/2)] under the VMF angle law by adaptive Gauss–Legendre quadrature of numerator and normaliser on
/// the same panels (relative tolerance 1e-13 each).
fn vmf_chord_by_quadrature(k: usize, kappa: f64) -> f64 {
    let (mode, width) = vmf_peak(k, kappa);
    let g = |t: f64| vmf_log_density_rel(k, kappa, mode, t).exp();
    let chord_g = |t: f64| 2.0 * (0.5 * t).sin() * g(t);
    let edges = panels(mode, width);
    let total = |f: &dyn Fn(f64) -> f64| {
        // One rule per panel first (an infinite tolerance stops after the first level) to set the tolerance.
        let rough: f64 = edges.windows(2).map(|w| integrate(f, w[0], w[1], f64::INFINITY).abs()).sum();
        let tol = (1e-13 * rough).max(f64::MIN_POSITIVE);
        edges.windows(2).map(|w| integrate(f, w[0], w[1], tol)).sum::<f64>()
    };
    total(&chord_g) / total(&g)
}

/// E‖X − μ‖ = E[√(2(1 − W))] = E[2 sin(θ/2)] (W = μ·X) for the VMF law on S^{dim−1}: the paper's expected
/// Euclidean (chordal) distance of the VMF mechanism.
///
/// - dim = 3, **closed form**: W has density κe^{κw}/(2 sinh κ) on [−1, 1]; with s = √(2(1 − w)),
///   E = κ/(1 − e^{−2κ})·∫₀² s² e^{−κs²/2} ds = (√(π/(2κ))·erf(√(2κ)) − 2e^{−2κ})/(1 − e^{−2κ}). Evaluated
///   without cancellation as E = (2x/(eˣ − 1))·Σ_{j≥0} x^j/((3/2)(5/2)⋯(3/2 + j)), x = 2κ (the series of the
///   lower incomplete gamma function γ(3/2, x), positive terms) for x < 40, and as
///   (√(π/(2κ)) − 2e^{−x})/(1 − e^{−x}) for x ≥ 40, where 1 − erf(√x) < 1e-18. Relative accuracy ~1e-15.
/// - other dim, **quadrature**: ∫₀^π 2 sin(θ/2)·g(θ) dθ / ∫₀^π g(θ) dθ with the log-space angle density
///   g ∝ sin^{n−2}θ·e^{−2κ sin²(θ/2)}, by adaptive Gauss–Legendre ([`integrate`]) on panels that resolve the
///   peak. The angle is used rather than t = 1 − W because the t-density ∝ e^{−κt}(t(2 − t))^{(n−3)/2} has
///   integrable endpoint singularities at n = 2 that a Gauss rule resolves poorly, while the θ-integrand is
///   smooth for every n. The log density is formed relative to its mode (so its rounding stays relative to the
///   result even at n = 10 000). Relative accuracy ~1e-13; O(1 ms).
///
/// As κ → ∞, E ≈ √2·Γ(n/2)/(Γ((n−1)/2)·√κ); as κ → 0 it tends to the uniform value (4/3 on S²).
///
/// # Errors
/// [`Error::InvalidParameter`] when `dim` < 2 or `kappa` is not finite and > 0.
pub fn vmf_expected_chordal_distance(dim: usize, kappa: f64) -> Fallible<f64> {
    let (k, kappa) = check(dim, kappa)?;
    if dim == 3 { Ok(vmf_chord_sphere(kappa)) } else { Ok(vmf_chord_by_quadrature(k, kappa)) }
}

/// The dim = 3 closed form of [`vmf_expected_chordal_distance`].
fn vmf_chord_sphere(kappa: f64) -> f64 {
    let x = 2.0 * kappa;
    if x < 40.0 {
        let (mut term, mut sum, mut j) = (1.0 / 1.5, 1.0 / 1.5, 0.0);
        // Terms rise until j ≈ x, then fall geometrically.
        while j < x || term > 1e-18 * sum {
            j += 1.0;
            term *= x / (1.5 + j);
            sum += term;
        }
        let lead = if x < 1e-300 { 2.0 } else { 2.0 * x / x.exp_m1() };
        lead * sum
    } else {
        let e = (-x).exp();
        ((PI / x).sqrt() - 2.0 * e) / (1.0 - e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::angular::AngularLaw;
    use crate::analysis::sphere_angle::SphereAngle;

    const DIMS: [usize; 7] = [2, 3, 4, 5, 10, 100, 10_000];
    const KAPPAS: [f64; 6] = [1e-3, 0.3, 1.0, 7.0, 100.0, 1e4];

    fn rel(value: f64, reference: f64) -> f64 {
        ((value - reference) / reference).abs()
    }

    /// Mode and width of the Purkayastha angle density e^{−κθ} sin^k θ: k cot θ = κ; width sin θ/√k (1/κ at k = 0).
    fn purkayastha_peak(k: usize, kappa: f64) -> (f64, f64) {
        let mode = (k as f64).atan2(kappa);
        (mode, if k > 0 { mode.sin() / (k as f64).sqrt() } else { 1.0 / kappa })
    }

    /// ∫₀^π h(θ)·pdf(θ) dθ on panels around the peak, to 1e-11 of ∫|h·pdf| (the tolerance of `SphereAngle`,
    /// whose log-space pdf carries a rounding error up to ~1e-12 at n = 10 000): the quadrature reference.
    fn moment(law: &SphereAngle, (mode, width): (f64, f64), h: impl Fn(f64) -> f64) -> f64 {
        let f = |t: f64| h(t) * law.pdf(t);
        let edges = panels(mode, width);
        let rough: f64 = edges.windows(2).map(|w| integrate(&|t| f(t).abs(), w[0], w[1], f64::INFINITY)).sum();
        edges.windows(2).map(|w| integrate(&f, w[0], w[1], 1e-11 * rough)).sum()
    }

    #[test]
    fn log_normaliser_matches_the_quadrature_normaliser() {
        // The law's pdf at θ₀ is f(θ₀)/Z with f(θ) = e^{−κθ} sin^k θ, so ln Z = ln f(θ₀) − ln pdf(θ₀). θ₀ is the
        // mode (where the law's density is exactly 1/normaliser), or 0 on the circle.
        let mut worst = 0.0f64;
        for dim in DIMS {
            for kappa in KAPPAS {
                let k = dim - 2;
                let law = SphereAngle::purkayastha(dim, kappa).unwrap();
                let theta0 = if k == 0 { 0.0 } else { purkayastha_peak(k, kappa).0 };
                let ln_f = if k == 0 { 0.0 } else { k as f64 * theta0.sin().ln() - kappa * theta0 };
                let quad = ln_f - law.pdf(theta0).ln();
                let closed = purkayastha_log_normaliser(dim, kappa).unwrap();
                let err = (closed - quad).abs();
                worst = worst.max(err);
                assert!(err < 1e-9, "n = {dim}, kappa = {kappa}: ln Z {closed} vs quadrature {quad}");
            }
        }
        println!("ln Z: max |closed − quadrature| = {worst:e}");
        // Small cases by hand: k = 0, κ = 1: 1 − e^{−π}; k = 1, κ = 1: (1 + e^{−π})/2;
        // k = 2, κ = 2: 2(1 − e^{−2π})/(2·8).
        let e = (-PI).exp();
        assert!(rel(purkayastha_log_normaliser(2, 1.0).unwrap().exp(), 1.0 - e) < 1e-15);
        assert!(rel(purkayastha_log_normaliser(3, 1.0).unwrap().exp(), 0.5 * (1.0 + e)) < 1e-15);
        assert!(rel(purkayastha_log_normaliser(4, 2.0).unwrap().exp(), (1.0 - e * e) / 8.0) < 1e-15);
    }

    #[test]
    fn mean_angle_matches_quadrature() {
        let mut worst = 0.0f64;
        for dim in DIMS {
            for kappa in KAPPAS {
                let law = SphereAngle::purkayastha(dim, kappa).unwrap();
                let closed = purkayastha_mean_angle(dim, kappa).unwrap();
                let err = rel(closed, law.mean());
                worst = worst.max(err);
                assert!(err < 1e-9, "n = {dim}, kappa = {kappa}: E[θ] {closed} vs quadrature {}", law.mean());
            }
        }
        println!("Purkayastha E[θ]: max relative error {worst:e}");
        // Limits: π/2 (uniform) at κ → 0, (n − 1)/κ at κ → ∞; the series branch meets the direct one at x = ¼.
        assert!(rel(purkayastha_mean_angle(2, 1e-12).unwrap(), PI / 2.0) < 1e-11);
        assert!(rel(purkayastha_mean_angle(7, 1e9).unwrap(), 6e-9) < 1e-15);
        let x = 0.25 - 1e-9;
        assert!((inv_minus_bose(x) - (1.0 / x - 1.0 / x.exp_m1())).abs() < 1e-14);
    }

    #[test]
    fn closed_form_cdf_matches_quadrature_for_small_dimensions() {
        // Only dim ≤ 12 (the closed form's range); at quantile points the CDF is ≥ 0.01 and the relative error is
        // asserted; at fixed angles (possibly deep in a tail) the absolute error, which is what the recursion
        // controls (cancellation costs relative accuracy in the lower tail).
        let (mut worst_rel, mut worst_abs) = (0.0f64, 0.0f64);
        for dim in [2usize, 3, 4, 5, 10] {
            for kappa in KAPPAS {
                let law = SphereAngle::purkayastha(dim, kappa).unwrap();
                for p in [0.01, 0.1, 0.5, 0.9, 0.99] {
                    let theta = law.quantile(p).unwrap();
                    let closed = purkayastha_angle_cdf_closed_form(dim, kappa, theta).unwrap();
                    let err = rel(closed, law.cdf(theta));
                    worst_rel = worst_rel.max(err);
                    assert!(err < 1e-9, "n = {dim}, kappa = {kappa}, θ = {theta}: {closed} vs {}", law.cdf(theta));
                }
                for theta in [1e-4, 0.1, 1.0, 2.0, 3.0] {
                    let closed = purkayastha_angle_cdf_closed_form(dim, kappa, theta).unwrap();
                    let err = (closed - law.cdf(theta)).abs();
                    worst_abs = worst_abs.max(err);
                    assert!(err < 1e-12, "n = {dim}, kappa = {kappa}, θ = {theta}: {closed} vs {}", law.cdf(theta));
                }
            }
        }
        println!("closed-form CDF: max relative error {worst_rel:e} (quantiles), max absolute {worst_abs:e}");
        assert_eq!(purkayastha_angle_cdf_closed_form(4, 1.0, -1.0), Ok(0.0));
        assert_eq!(purkayastha_angle_cdf_closed_form(4, 1.0, 4.0), Ok(1.0));
        assert!(purkayastha_angle_cdf_closed_form(40, 1.0, 1.0).is_ok());
        assert!(matches!(
            purkayastha_angle_cdf_closed_form(41, 1.0, 1.0),
            Err(Error::InvalidParameter { name: Param::Dimension, .. })
        ));
        assert!(purkayastha_angle_cdf_closed_form(4, 1.0, f64::NAN).is_err());
    }

    #[test]
    fn vmf_mean_cos_matches_quadrature_and_closed_cases() {
        // E[cos θ] changes sign under the integral, so the reference has an absolute error floor ~1e-14; where the
        // mean is tiny (κ = 1e-3 at large n: A ≈ κ/n ~ 1e-7) the relative tolerance gets that floor added.
        let mut worst = 0.0f64;
        for dim in DIMS {
            for kappa in KAPPAS {
                let law = SphereAngle::new(dim, kappa).unwrap();
                let reference = moment(&law, vmf_peak(dim - 2, kappa), f64::cos);
                let closed = vmf_mean_cos(dim, kappa).unwrap();
                let err = (closed - reference).abs() / (reference.abs() + 1e-6);
                worst = worst.max(err);
                assert!(err < 1e-9, "n = {dim}, kappa = {kappa}: A = {closed} vs quadrature {reference}");
            }
        }
        println!("VMF E[cos θ]: max relative error {worst:e}");
        // A₃ = coth κ − 1/κ (its series κ/3 − κ³/45 + 2κ⁵/945 for small κ, where the difference cancels).
        for kappa in [1e-6f64, 1e-3, 0.3, 1.0, 7.0, 100.0, 1e4, 1e6] {
            let exact = if kappa < 0.01 {
                kappa / 3.0 - kappa.powi(3) / 45.0 + 2.0 * kappa.powi(5) / 945.0
            } else {
                1.0 / kappa.tanh() - 1.0 / kappa
            };
            let err = rel(vmf_mean_cos(3, kappa).unwrap(), exact);
            assert!(err < 1e-13, "kappa = {kappa}: {} vs {exact}", vmf_mean_cos(3, kappa).unwrap());
        }
        // The recurrence and the asymptotic series agree where the switch happens, and the recurrence's depth
        // suffices (doubling the damping changes nothing).
        for dim in [2usize, 3, 10, 100, 10_000] {
            let z = (10.0 * (dim * dim) as f64).max(50.0);
            let nu = 0.5 * dim as f64 - 1.0;
            let (rec, asy) = (bessel_ratio_recurrence(nu, z, 40.0), bessel_ratio_asymptotic(dim, z));
            assert!(rel(rec, asy) < 1e-14, "n = {dim}: {rec} vs {asy}");
            for kappa in [1e-6, 1.0, 1e3, 1e6] {
                let (a, b) = (bessel_ratio_recurrence(nu, kappa, 40.0), bessel_ratio_recurrence(nu, kappa, 80.0));
                assert!(rel(a, b) < 1e-15, "n = {dim}, kappa = {kappa}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn purkayastha_mean_cos_matches_quadrature() {
        let mut worst = 0.0f64;
        for dim in DIMS {
            for kappa in KAPPAS {
                let law = SphereAngle::purkayastha(dim, kappa).unwrap();
                let reference = moment(&law, purkayastha_peak(dim - 2, kappa), f64::cos);
                let closed = purkayastha_mean_cos(dim, kappa).unwrap();
                // Same absolute floor as for the VMF: E[cos θ] ~ κ/n is tiny for small κ and large n.
                let err = (closed - reference).abs() / (reference.abs() + 1e-6);
                worst = worst.max(err);
                assert!(err < 1e-9, "n = {dim}, kappa = {kappa}: {closed} vs quadrature {reference}");
            }
        }
        println!("Purkayastha E[cos θ]: max relative error {worst:e}");
        // k = 0 in the form of the brief; k = 1: tanh(κπ/2)(κ² + 1)/(κ² + 4).
        for kappa in [1e-6, 0.3, 5.0, 1e6] {
            let e = (-kappa * PI).exp();
            let k0 = kappa * kappa * (1.0 + e) / ((1.0 + kappa * kappa) * -(-kappa * PI).exp_m1());
            assert!(rel(purkayastha_mean_cos(2, kappa).unwrap(), k0) < 1e-14);
            let k1 = (0.5 * kappa * PI).tanh() * (kappa * kappa + 1.0) / (kappa * kappa + 4.0);
            assert!(rel(purkayastha_mean_cos(3, kappa).unwrap(), k1) < 1e-14);
        }
    }

    #[test]
    fn vmf_chordal_distance_matches_quadrature() {
        let mut worst = 0.0f64;
        for dim in DIMS {
            for kappa in KAPPAS {
                let law = SphereAngle::new(dim, kappa).unwrap();
                let reference = moment(&law, vmf_peak(dim - 2, kappa), |t| 2.0 * (0.5 * t).sin());
                let value = vmf_expected_chordal_distance(dim, kappa).unwrap();
                let err = rel(value, reference);
                worst = worst.max(err);
                assert!(err < 1e-9, "n = {dim}, kappa = {kappa}: {value} vs quadrature {reference}");
            }
        }
        println!("VMF E‖X − μ‖: max relative error {worst:e}");
        // S²: the closed form against this module's quadrature on both sides of its switch, and its limits
        // (4/3 uniform; √(π/(2κ)) concentrated).
        let mut worst3 = 0.0f64;
        for kappa in [1e-6, 1e-3, 0.3, 1.0, 7.0, 19.99, 20.01, 100.0, 1e4, 1e6] {
            let err = rel(vmf_chord_sphere(kappa), vmf_chord_by_quadrature(1, kappa));
            worst3 = worst3.max(err);
            assert!(
                err < 1e-12,
                "kappa = {kappa}: {} vs {}",
                vmf_chord_sphere(kappa),
                vmf_chord_by_quadrature(1, kappa)
            );
        }
        println!("VMF E‖X − μ‖ on S²: closed form vs quadrature max relative error {worst3:e}");
        assert!(rel(vmf_chord_sphere(1e-300), 4.0 / 3.0) < 1e-15);
        assert!(rel(vmf_chord_sphere(1e10), (PI / 2e10).sqrt()) < 1e-15);
    }

    #[test]
    fn bad_parameters_are_errors() {
        for kappa in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(purkayastha_log_normaliser(3, kappa).is_err());
            assert!(purkayastha_mean_angle(3, kappa).is_err());
            assert!(purkayastha_angle_cdf_closed_form(3, kappa, 1.0).is_err());
            assert!(vmf_mean_cos(3, kappa).is_err());
            assert!(purkayastha_mean_cos(3, kappa).is_err());
            assert!(vmf_expected_chordal_distance(3, kappa).is_err());
        }
        for dim in [0, 1] {
            let is_dim_error =
                |r: Fallible<f64>| matches!(r, Err(Error::InvalidParameter { name: Param::Dimension, .. }));
            assert!(is_dim_error(purkayastha_log_normaliser(dim, 1.0)));
            assert!(is_dim_error(purkayastha_mean_angle(dim, 1.0)));
            assert!(is_dim_error(purkayastha_angle_cdf_closed_form(dim, 1.0, 1.0)));
            assert!(is_dim_error(vmf_mean_cos(dim, 1.0)));
            assert!(is_dim_error(purkayastha_mean_cos(dim, 1.0)));
            assert!(is_dim_error(vmf_expected_chordal_distance(dim, 1.0)));
        }
        // Extreme but valid inputs give finite numbers.
        for kappa in [1e-300, 1e-6, 1e6, 1e300] {
            for dim in [2usize, 3, 10_000] {
                assert!(purkayastha_log_normaliser(dim, kappa).unwrap().is_finite());
                assert!(purkayastha_mean_angle(dim, kappa).unwrap().is_finite());
                assert!(purkayastha_mean_cos(dim, kappa).unwrap().is_finite());
                assert!(vmf_mean_cos(dim, kappa).unwrap().is_finite());
                let chord = vmf_expected_chordal_distance(dim, kappa).unwrap();
                assert!(chord.is_finite() && chord > 0.0 && chord <= 2.0, "n = {dim}, kappa = {kappa}: {chord}");
            }
        }
    }
}
