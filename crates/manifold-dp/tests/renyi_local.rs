//! The local mechanisms' Rényi bounds against independent references: closed forms (VMF and Purkayastha on
//! S², the Bingham law through I₀), and adaptive Gauss–Legendre quadrature of the original integrals (the
//! circle, the SO(3) Laplace over the unit disk at any pair, which also checks that the farthest pair is the
//! worst). Each check asks upper ≥ reference and upper ≤ reference + a small gap; a deliberately wrong curve
//! (κ halved) is caught by the same check. Deterministic: no sampling.

use manifold_dp::analysis::quadrature::integrate;
use manifold_dp::analysis::renyi_local::{LocalFamily, RDP_ORDERS};
use manifold_dp::mechanism::{BinghamSo3, LaplaceSo3, Mechanism, PurkayasthaSphere, VmfSphere};
use manifold_dp::privacy::renyi::RdpCurve;
use std::f64::consts::{FRAC_PI_2, PI};

const ORDERS: [f64; 6] = [1.25, 2.0, 4.0, 16.0, 64.0, 256.0];

/// Whether `upper` is a valid and tight bound on `exact`: not below it (beyond the reference's own 1e-9
/// relative error) and above it by at most 2e-3·(1 + exact)/min(α − 1, 1), the grid's resolution.
fn covers(upper: f64, exact: f64, alpha: f64) -> bool {
    covers_within(upper, exact, alpha, 1e-9)
}

/// [`covers`] with the reference's own relative error `reference_error`.
fn covers_within(upper: f64, exact: f64, alpha: f64, reference_error: f64) -> bool {
    upper >= exact - reference_error * (1.0 + exact) && upper <= exact + 2e-3 * (1.0 + exact) / (alpha - 1.0).min(1.0)
}

/// I₀(x)·e^{−x} = (1/π)∫₀^π e^{x(cos φ − 1)} dφ.
fn i0_scaled(x: f64) -> f64 {
    let scale = if x > 1.0 { 1.0 / x.sqrt() } else { 1.0 };
    let f = |p: f64| (x * (p.cos() - 1.0)).exp();
    manifold_dp::analysis::quadrature::integrate_peaked(&f, PI, scale, 1e-14) / PI
}

fn vmf_s2(kappa: f64, alpha: f64) -> f64 {
    // ln(sinh λ/λ) = λ + ln((1 − e^{−2λ})/(2λ)).
    let ln_shc = |l: f64| l + (-(-2.0 * l).exp_m1() / (2.0 * l)).ln();
    (ln_shc((2.0 * alpha - 1.0) * kappa) - ln_shc(kappa)) / (alpha - 1.0)
}

fn vmf_circle(kappa: f64, alpha: f64) -> f64 {
    let l = (2.0 * alpha - 1.0) * kappa;
    (l - kappa + i0_scaled(l).ln() - i0_scaled(kappa).ln()) / (alpha - 1.0)
}

fn purkayastha(dim: usize, kappa: f64, alpha: f64) -> f64 {
    // M(λ) = ∫₀^π e^{−λθ} sin^{n−2}θ dθ: (1 + e^{−λπ})/(1 + λ²) on S², (1 − e^{−λπ})/λ on the circle.
    let m = |l: f64| if dim == 3 { (1.0 + (-l * PI).exp()) / (1.0 + l * l) } else { -(-l * PI).exp_m1() / l };
    kappa * PI + (m((2.0 * alpha - 1.0) * kappa) / m(kappa)).ln() / (alpha - 1.0)
}

fn bingham(kappa: f64, alpha: f64) -> f64 {
    // E over the unit disk of e^{κ(αu² + (1 − α)v²)}: ∫₀¹ e^{κt/2} I₀(κt(2α − 1)/2) dt (t = r²).
    let z = |c: f64| {
        let f = |t: f64| {
            let x = kappa * t * c / 2.0;
            (kappa * t / 2.0 + x - kappa * (1.0 + c) / 2.0).exp() * i0_scaled(x)
        };
        integrate(&f, 0.0, 1.0, 1e-15)
    };
    // The shifts e^{−κ(1 + c)/2} differ by e^{−κ(α − 1)} between the two: κ added back.
    (z(2.0 * alpha - 1.0) / z(1.0)).ln() / (alpha - 1.0) + kappa
}

/// D_α for the SO(3) Laplace between x and x′ = cos β·x + sin β·e: (q·x, q·x′) = (r cos φ, r cos(φ − β)) with
/// (r cos φ, r sin φ) uniform on the unit disk; the rotation distance is 2·arccos|cos β|.
fn laplace_so3(epsilon: f64, alpha: f64, beta: f64) -> f64 {
    let integral = |alpha: f64| {
        let inner = |r: f64| {
            let f = |p: f64| {
                let (a, b) = ((r * p.cos().abs()).acos(), (r * (p - beta).cos().abs()).acos());
                (-2.0 * epsilon * alpha * a + 2.0 * epsilon * (alpha - 1.0) * b
                    - 2.0 * epsilon * (alpha - 1.0) * FRAC_PI_2)
                    .exp()
            };
            // Split at the kinks of |cos φ| and |cos(φ − β)|.
            let mut cuts = vec![0.0, FRAC_PI_2, 3.0 * FRAC_PI_2, 2.0 * PI];
            for k in [beta + FRAC_PI_2, beta + 3.0 * FRAC_PI_2, beta - FRAC_PI_2] {
                let k = k.rem_euclid(2.0 * PI);
                cuts.push(k);
            }
            cuts.sort_by(f64::total_cmp);
            cuts.windows(2).map(|w| integrate(&f, w[0], w[1], 1e-11)).sum::<f64>() * r
        };
        integrate(&inner, 0.0, 1.0, 1e-10)
    };
    (integral(alpha) / integral(1.0)).ln() / (alpha - 1.0) + 2.0 * epsilon * FRAC_PI_2
}

#[test]
fn sphere_bounds_match_closed_forms_and_quadrature() {
    for kappa in [0.05, 0.5, 2.0] {
        for alpha in ORDERS {
            let cases = [
                ("vmf S2", LocalFamily::Vmf { dim: 3, kappa }, vmf_s2(kappa, alpha)),
                ("vmf circle", LocalFamily::Vmf { dim: 2, kappa }, vmf_circle(kappa, alpha)),
                ("purkayastha S2", LocalFamily::Purkayastha { dim: 3, kappa }, purkayastha(3, kappa, alpha)),
                ("purkayastha circle", LocalFamily::Purkayastha { dim: 2, kappa }, purkayastha(2, kappa, alpha)),
            ];
            for (name, family, exact) in cases {
                let upper = family.divergence_upper(alpha).unwrap();
                assert!(covers(upper, exact, alpha), "{name} κ = {kappa} α = {alpha}: {upper} vs {exact}");
            }
        }
    }
}

#[test]
fn so3_bounds_match_independent_integrals() {
    for kappa in [0.1, 1.0, 4.0] {
        for alpha in ORDERS {
            let (upper, exact) =
                (LocalFamily::BinghamSo3 { kappa }.divergence_upper(alpha).unwrap(), bingham(kappa, alpha));
            assert!(covers(upper, exact, alpha), "bingham κ = {kappa} α = {alpha}: {upper} vs {exact}");
        }
    }
    for epsilon in [0.05, 0.5] {
        for alpha in [1.25, 2.0, 16.0] {
            let upper = LocalFamily::LaplaceSo3 { epsilon }.divergence_upper(alpha).unwrap();
            let worst = laplace_so3(epsilon, alpha, FRAC_PI_2);
            // The nested quadrature is good to about 1e-9 absolute on integrals of size ≥ 0.05: 1e-7 in D.
            assert!(covers_within(upper, worst, alpha, 1e-7), "laplace ε = {epsilon} α = {alpha}: {upper} vs {worst}");
            // Nearer pairs (rotations 2·arccos|cos β| < π apart) diverge less: the farthest pair is the worst.
            for beta in [0.3, 1.4] {
                let d = laplace_so3(epsilon, alpha, beta);
                assert!(d < worst, "β = {beta}: {d} ≥ {worst}");
            }
        }
    }
}

#[test]
fn a_wrong_curve_is_caught() {
    // Control: the bound for half the concentration is below the true divergence, and the check says so.
    for alpha in ORDERS {
        let wrong = LocalFamily::Vmf { dim: 3, kappa: 0.25 }.divergence_upper(alpha).unwrap();
        assert!(!covers(wrong, vmf_s2(0.5, alpha), alpha), "α = {alpha}");
        let wrong = LocalFamily::BinghamSo3 { kappa: 0.5 }.divergence_upper(alpha).unwrap();
        assert!(!covers(wrong, bingham(1.0, alpha), alpha), "α = {alpha}");
    }
}

#[test]
fn release_curves_include_the_float_term_and_stay_below_pure() {
    let vmf = VmfSphere::new(3, 0.5).unwrap();
    let eps0 = vmf.guarantee().additive_epsilon();
    let curve = vmf.renyi_curve().unwrap();
    for (i, &alpha) in RDP_ORDERS.iter().enumerate() {
        let exact = vmf_s2(0.5, alpha);
        let pure = 2.0 * 0.5 + eps0;
        let cap = pure.min(alpha * pure * pure / 2.0);
        assert!(curve.epsilons[i] >= (exact + eps0 * (2.0 * alpha - 1.0) / (alpha - 1.0)).min(cap));
        assert!(curve.epsilons[i] <= 2.0 * 0.5 + eps0 + 1e-12);
    }
    for c in [
        PurkayasthaSphere::new(3, 0.5).unwrap().renyi_curve().unwrap(),
        LaplaceSo3::new(0.5).unwrap().renyi_curve().unwrap(),
        BinghamSo3::new(0.5).unwrap().renyi_curve().unwrap(),
    ] {
        assert!(c.epsilons.windows(2).all(|w| w[0] <= w[1] * (1.0 + 1e-9)), "{c:?}");
        let k100 = c.repeated(100).to_approx(1e-6).unwrap();
        assert!(k100.epsilon < 100.0 * c.epsilons[RDP_ORDERS.len() - 1], "{k100:?}");
    }
    assert!(RdpCurve::local_release(LocalFamily::LaplaceSo3 { epsilon: -1.0 }, 0.0, 1.0).is_err());
    assert!(LocalFamily::Vmf { dim: 1, kappa: 1.0 }.divergence_upper(2.0).is_err());
    assert!(LocalFamily::Vmf { dim: 3, kappa: 1.0 }.divergence_upper(1.0).is_err());
}
