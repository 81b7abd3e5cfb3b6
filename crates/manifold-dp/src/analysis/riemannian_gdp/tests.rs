use super::*;
use crate::analysis::gaussian_dp::gdp_delta;
use crate::analysis::quadrature::integrate;

/// δ_Δ(ε) on S² for the pair at distance exactly Δ, by nested adaptive quadrature in (θ, φ), written
/// independently of the certificate (arccos form, no cells): an oracle, not a bound.
fn s2_delta_by_quadrature(sigma: f64, delta: f64, epsilon: f64) -> f64 {
    let space = GaussianSpace::sphere(3).unwrap();
    let shift = space.ln_radial_weight(sigma.min(1.0), sigma);
    let w = |t: f64| if t <= 0.0 || t >= PI { 0.0 } else { (space.ln_radial_weight(t, sigma) - shift).exp() };
    let top = (sigma * 40.0).min(PI);
    let panels: Vec<f64> = (0..=64).map(|i| top * i as f64 / 64.0).collect();
    let z: f64 = panels.windows(2).map(|p| integrate(&w, p[0], p[1], 1e-14)).sum();
    let inner = |t: f64| {
        let h = |phi: f64| {
            let cos_d = (t.cos() * delta.cos() + t.sin() * delta.sin() * phi.cos()).clamp(-1.0, 1.0);
            let d = cos_d.acos();
            let loss = (d * d - t * t) / (2.0 * sigma * sigma);
            if loss > epsilon { 1.0 - (epsilon - loss).exp() } else { 0.0 }
        };
        let phis: Vec<f64> = (0..=16).map(|i| PI * i as f64 / 16.0).collect();
        phis.windows(2).map(|p| integrate(&h, p[0], p[1], 1e-12)).sum::<f64>() / PI
    };
    let f = |t: f64| w(t) * inner(t);
    panels.windows(2).map(|p| integrate(&f, p[0], p[1], 1e-13)).sum::<f64>() / z
}

#[test]
fn the_flat_limit_gives_delta_over_sigma() {
    // Small σ and Δ: curvature is negligible and μ → Δ/σ; the certificate's slack is at most a few percent.
    for space in [GaussianSpace::sphere(2).unwrap(), GaussianSpace::sphere(3).unwrap(), GaussianSpace::So3] {
        let (sigma, delta) = (1e-3, 1e-3);
        let c = certify_mu(space, sigma, delta, 0.0).unwrap();
        assert!(c.mu >= 0.999 && c.mu <= 1.025, "{space:?}: {}", c.mu);
    }
}

#[test]
fn the_certified_mu_covers_an_independent_quadrature_of_the_profile() {
    // At the worst pair's distance Δ, the exact profile (independent quadrature) lies below δ_{G_μ} for the
    // certified μ at every ε tried.
    for &(sigma, delta) in &[(0.1215, 0.1215), (0.3, 0.6)] {
        let mu = certify_mu(GaussianSpace::sphere(3).unwrap(), sigma, delta, 0.0).unwrap().mu;
        for &e in &[0.0, 1.0, 4.0] {
            let exact = s2_delta_by_quadrature(sigma, delta, e);
            let gdp = gdp_delta(mu, e).unwrap();
            assert!(exact <= gdp * (1.0 + 1e-6) + 1e-12, "σ {sigma} Δ {delta} ε {e}: {exact:e} > {gdp:e} (μ {mu})");
        }
    }
}

#[test]
fn a_mu_ten_percent_too_small_is_caught_by_the_independent_quadrature() {
    // Negative control for the check above: 0.9·Δ/σ is not a valid μ at Δ = σ on S² (the exact profile is above
    // its δ_{G_μ} at ε = 1), so the comparison does catch a μ that is too small. (Curvature on S² lowers the
    // profile below the flat Δ/σ's, so "ignoring curvature" is not the too-small μ there: see the proof, §8.)
    let (sigma, delta) = (0.1215, 0.1215);
    let exact = s2_delta_by_quadrature(sigma, delta, 1.0);
    assert!(exact > gdp_delta(0.9 * delta / sigma, 1.0).unwrap());
}

#[test]
fn calibration_stays_below_the_requested_mu() {
    let space = GaussianSpace::sphere(3).unwrap();
    let (sigma, cert) = sigma_for_mu(space, 1.0, 0.1215, |_| Ok(1e-5)).unwrap();
    assert!(cert.mu <= 1.0 && cert.mu > 0.995, "{cert:?}");
    assert!(sigma > 0.1215 && sigma < 0.1215 * 1.05, "{sigma}");
    assert_eq!(certify_mu(space, sigma, 0.1215, 1e-5).unwrap().mu, cert.mu);
}

#[test]
fn approx_budgets_convert_through_the_exact_curve() {
    let mu = gdp_mu_for_approx(1.0, 1e-5).unwrap();
    assert!(gdp_delta(mu, 1.0).unwrap() <= 1e-5);
    assert!(gdp_delta(mu * 1.001, 1.0).unwrap() > 1e-5);
}
