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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::quadrature::integrate;

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
