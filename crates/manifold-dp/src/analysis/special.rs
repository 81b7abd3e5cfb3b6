//! Special functions the closed forms need.

/// I_n(ε, ρ) = (1/n!)·∫₀^ρ tⁿ e^{−εt} dt = P(n+1, ερ)/ε^{n+1} (P the regularised lower incomplete gamma
/// function), for integer n ≥ 0, ε > 0, ρ ≥ 0, evaluated without cancellation:
///
/// - x = ερ ≤ n + 1: the series ρ^{n+1}/(n+1)!·e^{−x}·Σ_j x^j/((n+2)⋯(n+1+j)) (positive terms);
/// - x > n + 1: (1 − e^{−x}Σ_{j≤n} x^j/j!)/ε^{n+1}, where the subtracted sum is below ~½.
pub fn scaled_lower_gamma(n: u32, eps: f64, rho: f64) -> f64 {
    let x = eps * rho;
    let m = f64::from(n + 1);
    if x <= m {
        let mut lead = 1.0; // ρ^{n+1}/(n+1)!, built up to avoid overflow of either factor
        for k in 1..=n + 1 {
            lead *= rho / f64::from(k);
        }
        let (mut term, mut sum, mut j) = (1.0, 1.0, 0.0);
        while term > 1e-17 * sum {
            j += 1.0;
            term *= x / (m + j);
            sum += term;
        }
        lead * (-x).exp() * sum
    } else {
        let (mut term, mut sum) = (1.0, 1.0);
        for j in 1..=n {
            term *= x / f64::from(j);
            sum += term;
        }
        (1.0 - (-x).exp() * sum) / eps.powi(n as i32 + 1)
    }
}

/// E χ_d = √2·Γ((d + 1)/2)/Γ(d/2): the mean length of a standard Gaussian vector in R^d (the expected error of
/// isotropic Gaussian noise of scale 1 in d coordinates), through log-gamma so that large d does not overflow.
pub fn chi_mean(d: f64) -> f64 {
    use statrs::function::gamma::ln_gamma;
    std::f64::consts::SQRT_2 * (ln_gamma(0.5 * (d + 1.0)) - ln_gamma(0.5 * d)).exp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::quadrature::integrate;

    #[test]
    fn chi_mean_has_its_closed_forms() {
        use std::f64::consts::PI;
        for (d, exact) in [(1.0, (2.0 / PI).sqrt()), (2.0, (PI / 2.0).sqrt()), (3.0, 2.0 * (2.0 / PI).sqrt())] {
            assert!((chi_mean(d) - exact).abs() < 1e-14, "d = {d}: {} against {exact}", chi_mean(d));
        }
        // Large d: √d − 1/(4√d) + O(d^-3/2), finite (the log-gamma difference keeps ~10 digits at d = 10⁶).
        let d = 1e6_f64;
        let asymptotic = d.sqrt() - 0.25 / d.sqrt();
        assert!((chi_mean(d) / asymptotic - 1.0).abs() < 1e-8, "{}", chi_mean(d));
    }

    #[test]
    fn matches_quadrature() {
        for &(n, eps, rho) in
            &[(0u32, 1.0, 1.0), (2, 0.5, 3.0), (2, 1e-6, 3.1), (5, 30.0, 0.1), (2, 1e6, 1e-5), (9, 8.0, 3.0)]
        {
            let fact: f64 = (1..=n).map(f64::from).product();
            let q = integrate(&|t: f64| t.powi(n as i32) * (-eps * t).exp() / fact, 0.0, rho, 1e-14);
            let c = scaled_lower_gamma(n, eps, rho);
            assert!(((c - q) / q).abs() < 1e-11, "n={n} eps={eps} rho={rho}: {c} vs {q}");
        }
    }
}
