//! The scalar and vector mechanisms of the central model (`docs/proofs/scalar_mechanisms.md`):
//!
//! - Rao distances of the Laplace, Gaussian and generalized Gaussian (N = 1…4) mechanisms against the Fisher
//!   information integrated numerically, with the paper's uncorrected parametrisation as a negative control;
//! - the exact generalized Gaussian sampler (and each mechanism's release) against the exact CDF, with
//!   negative controls (wrong scale; Exp in place of Gamma(1/N));
//! - the Gaussian privacy profile against 40-digit values and an independent quadrature of the hockey-stick
//!   divergence, its inverse, and the classical and analytic calibrations;
//! - the generalized Gaussian (ε, δ) guarantee against a direct quadrature of ∫(f₀ − e^ε f_Δ)₊, N = 2 against
//!   the Gaussian profile, and smaller shifts against the full sensitivity;
//! - validation of every parameter and input.
//!
//! Statistical design: every KS test uses the DKW–Massart critical value at α = 1e-8 (`manifold_dp::audit::gof`),
//! which bounds its false-failure probability by 1e-8 at any sample size; this file runs 7 such tests that
//! must pass, so a correct sampler fails one with probability below 1e-7. Seeds are fixed.

use manifold_dp::analysis::gaussian_dp::{analytic_gaussian_sigma, classical_gaussian_sigma, gdp_delta, gdp_epsilon};
use manifold_dp::analysis::quadrature::{integrate, integrate_peaked};
use manifold_dp::audit::gof::{KsOutcome, ks_test};
use manifold_dp::error::Error;
use manifold_dp::error::Param;
use manifold_dp::mechanism::scalar::{
    Gaussian, GeneralizedGaussian, ScalarLaplace, generalized_gaussian_delta, generalized_gaussian_epsilon,
};
use manifold_dp::privacy::Guarantee;
use manifold_dp::privacy::guarantee::RaoFamily;
use manifold_dp::sample::generalized_gaussian::{GeneralizedGaussianNoise, rao_constant};
use manifold_dp::sample::rng::seeded_rng_for_experiments;
use rand::RngExt;
use rand::distr::Distribution;
use rand_distr::Exp1;
use statrs::distribution::{ContinuousCDF, Normal};
use statrs::function::gamma::gamma;

const ALPHA: f64 = 1e-8;
const N_SAMPLES: usize = 20_000;

fn rao_theta(guarantees: &[Guarantee], family: RaoFamily) -> f64 {
    guarantees
        .iter()
        .find_map(|g| match *g {
            Guarantee::RaoDp { theta, family: f } if f == family => Some(theta),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no Rao guarantee in the {family:?} family in {guarantees:?}"))
}

fn approx(guarantees: &[Guarantee]) -> (f64, f64) {
    guarantees
        .iter()
        .find_map(|g| match *g {
            Guarantee::ApproxDp { epsilon, delta } => Some((epsilon, delta)),
            _ => None,
        })
        .expect("an (epsilon, delta) guarantee")
}

/// Fisher information of the location of a symmetric density f, ∫ (∂_μ ln f(x − μ))² f(x) dx at μ = 0, given
/// the score x ↦ −(ln f)′(x) on x > 0: twice the integral over (0, ∞) by adaptive Gauss–Legendre.
fn fisher_information(density: &dyn Fn(f64) -> f64, score: &dyn Fn(f64) -> f64, end: f64, scale: f64) -> f64 {
    2.0 * integrate_peaked(&|x: f64| score(x).powi(2) * density(x), end, scale, 1e-14)
}

/// The generalized Gaussian density N/(2sΓ(1/N))·exp(−(|x|/s)^N), written out here (not the library's).
fn gg_density(order: u32, s: f64) -> impl Fn(f64) -> f64 {
    let n = order as f64;
    move |x: f64| n / (2.0 * s * gamma(1.0 / n)) * (-(x.abs() / s).powi(order as i32)).exp()
}

#[test]
fn rao_distances_match_integrated_fisher_information() {
    let (sensitivity, scale) = (0.7, 1.3);

    // Laplace: the score is ±1/b, I = 1/b².
    let laplace = ScalarLaplace::new(sensitivity, scale).unwrap();
    let f = gg_density(1, scale);
    let info = fisher_information(&f, &|_| 1.0 / scale, 800.0 * scale, scale);
    let theta = rao_theta(&laplace.guarantees(), RaoFamily::Laplace);
    assert!(
        (theta / (sensitivity * info.sqrt()) - 1.0).abs() < 1e-8,
        "Laplace: {theta} vs {}",
        sensitivity * info.sqrt()
    );

    // Gaussian: the score is x/σ², I = 1/σ².
    let gauss = Gaussian::new(sensitivity, scale).unwrap();
    let phi = |x: f64| (-0.5 * (x / scale).powi(2)).exp() / (scale * (2.0 * std::f64::consts::PI).sqrt());
    let info = fisher_information(&phi, &|x| x / (scale * scale), 40.0 * scale, scale);
    let theta = rao_theta(&gauss.guarantees(), RaoFamily::Gaussian);
    assert!((theta / (sensitivity * info.sqrt()) - 1.0).abs() < 1e-8, "Gaussian: {theta}");

    // Generalized Gaussian, N = 1…4: the score is N x^{N−1}/s^N.
    for order in 1..=4u32 {
        let mech = GeneralizedGaussian::new(order, sensitivity, scale).unwrap();
        let n = order as f64;
        let score = |x: f64| n * x.powi(order as i32 - 1) / scale.powi(order as i32);
        let end = scale * 800f64.powf(1.0 / n);
        let info = fisher_information(&gg_density(order, scale), &score, end, 0.5 * scale);
        let numeric = sensitivity * info.sqrt();
        let theta = rao_theta(&mech.guarantees(), RaoFamily::GeneralizedGaussian { order });
        assert!((theta / numeric - 1.0).abs() < 1e-8, "N = {order}: closed form {theta} vs integrated {numeric}");
        assert!(theta >= numeric * (1.0 - 1e-12), "N = {order}: the reported theta must not be below the true one");
        assert_eq!(mech.rao_theta(), theta);
    }
}

#[test]
fn uncorrected_parametrisation_is_detected() {
    // The paper's density exp(−|x − μ|^N/σ) with its formula d_R = |Δμ|/σ·c_N: wrong unless σ = 1 or N = 1.
    let (order, sigma, shift) = (3u32, 0.5, 1.0);
    let n = order as f64;
    let unnormalised = |x: f64| (-x.abs().powi(order as i32) / sigma).exp();
    let mass = 2.0 * integrate_peaked(&unnormalised, 30.0, 0.5, 1e-14);
    let density = |x: f64| unnormalised(x) / mass;
    let score = |x: f64| n * x.powi(order as i32 - 1) / sigma;
    let info = fisher_information(&density, &score, 30.0, 0.5);
    let true_distance = shift * info.sqrt();
    let paper = shift / sigma * rao_constant(order).unwrap();
    assert!((paper / true_distance - 1.0).abs() > 0.3, "uncorrected {paper} vs {true_distance}");
    // The corrected formula with s = σ^{1/N} (exp(−|x|^N/σ) = exp(−(|x|/s)^N)) gets it right.
    let corrected = shift / sigma.powf(1.0 / n) * rao_constant(order).unwrap();
    assert!((corrected / true_distance - 1.0).abs() < 1e-8);
}

fn gg_ks<D: Distribution<f64>>(noise: &D, law: &GeneralizedGaussianNoise, seed: u64) -> KsOutcome {
    let mut rng = seeded_rng_for_experiments(seed);
    let mut xs: Vec<f64> = (0..N_SAMPLES).map(|_| noise.sample(&mut rng)).collect();
    ks_test(&mut xs, |s| s.iter().map(|&x| law.cdf(x)).collect(), ALPHA)
}

/// ±s·E^{1/N} with E ~ Exp(1): the wrong law (a Weibull magnitude) for N ≥ 2.
struct ExpInsteadOfGamma {
    order: u32,
    scale: f64,
}

impl Distribution<f64> for ExpInsteadOfGamma {
    fn sample<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let e: f64 = rng.sample(Exp1);
        let m = self.scale * e.powf(1.0 / self.order as f64);
        if rng.random::<bool>() { m } else { -m }
    }
}

#[test]
fn generalized_gaussian_sampler_matches_its_exact_cdf() {
    let scale = 1.7;
    for order in 1..=4u32 {
        let law = GeneralizedGaussianNoise::new(order, scale).unwrap();
        let good = gg_ks(&law, &law, 100 + order as u64);
        assert!(good.passed(), "N = {order}: {good:?}");

        // Negative control 1: scale 20 % too large.
        let wide = GeneralizedGaussianNoise::new(order, 1.2 * scale).unwrap();
        let bad = gg_ks(&wide, &law, 200 + order as u64);
        assert!(!bad.passed(), "N = {order}: the wrong scale was not detected: {bad:?}");

        // Negative control 2: Exp(1) in place of Gamma(1/N, 1) (identical for N = 1).
        if order >= 2 {
            let bad = gg_ks(&ExpInsteadOfGamma { order, scale }, &law, 300 + order as u64);
            assert!(!bad.passed(), "N = {order}: Exp in place of Gamma was not detected: {bad:?}");
        }
    }
}

#[test]
fn mechanisms_release_their_stated_noise() {
    let value = 3.25;
    let noise_of = |release: &mut dyn FnMut(&mut manifold_dp::sample::rng::ReleaseRng) -> f64, seed: u64| {
        let mut rng = seeded_rng_for_experiments(seed);
        (0..N_SAMPLES).map(|_| release(&mut rng) - value).collect::<Vec<f64>>()
    };

    let laplace = ScalarLaplace::for_epsilon(1.0, 0.8).unwrap();
    let mut xs = noise_of(&mut |r| laplace.release_scalar(value, r).unwrap(), 11);
    let b = laplace.scale();
    let out = ks_test(
        &mut xs,
        |s| s.iter().map(|&x| if x < 0.0 { 0.5 * (x / b).exp() } else { 1.0 - 0.5 * (-x / b).exp() }).collect(),
        ALPHA,
    );
    assert!(out.passed(), "Laplace: {out:?}");

    let gauss = Gaussian::analytic(1.0, 1.0, 1e-5).unwrap();
    let mut xs = noise_of(&mut |r| gauss.release_scalar(value, r).unwrap(), 12);
    let normal = Normal::new(0.0, gauss.sigma()).unwrap();
    let out = ks_test(&mut xs, |s| s.iter().map(|&x| normal.cdf(x)).collect(), ALPHA);
    assert!(out.passed(), "Gaussian: {out:?}");

    let gg = GeneralizedGaussian::for_rao(1.0, 0.5, 3).unwrap();
    let mut xs = noise_of(&mut |r| gg.release_scalar(value, r).unwrap(), 13);
    let law = GeneralizedGaussianNoise::new(3, gg.scale()).unwrap();
    let out = ks_test(&mut xs, |s| s.iter().map(|&x| law.cdf(x)).collect(), ALPHA);
    assert!(out.passed(), "generalized Gaussian: {out:?}");

    // Vectors get independent noise per coordinate.
    let mut rng = seeded_rng_for_experiments(14);
    let v = gauss.release(&[1.0, 2.0, 3.0], &mut rng).unwrap();
    assert_eq!(v.len(), 3);
    assert!(v[0] - 1.0 != v[1] - 2.0);
}

/// ∫_a^b f as a fixed composite rule: `panels` equal panels, each integrated by `integrate` with an infinite
/// tolerance, which applies its 15-point Gauss–Legendre rule once to each half of the panel. The direct
/// hockey-stick integrands below are differences of nearly equal terms, whose rounding noise no adaptive
/// tolerance could chase; a fixed fine rule is exact to well below that noise for these analytic integrands.
fn composite(f: &dyn Fn(f64) -> f64, a: f64, b: f64, panels: usize) -> f64 {
    let width = (b - a) / panels as f64;
    (0..panels).map(|i| integrate(f, a + i as f64 * width, a + (i + 1) as f64 * width, f64::INFINITY)).sum()
}

/// δ(ε; μ) by direct quadrature of the hockey-stick divergence ∫(p − e^ε q)₊ with p = N(μ, 1), q = N(0, 1):
/// the integrand is positive exactly beyond x = ε/μ + μ/2.
fn hockey_stick_gaussian(mu: f64, epsilon: f64) -> f64 {
    let start = epsilon / mu + 0.5 * mu;
    let norm = 1.0 / (2.0 * std::f64::consts::PI).sqrt();
    let f = |x: f64| norm * ((-0.5 * (x - mu).powi(2)).exp() - (epsilon - 0.5 * x * x).exp());
    composite(&f, start, start + 40.0, 4000)
}

#[test]
#[allow(clippy::excessive_precision)] // reference values as mpmath printed them
fn gaussian_profile_matches_independent_values() {
    // 40-digit values of Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (mpmath).
    let reference = [
        (1.0, 1.0, 0.1269367375066439458008296247577668804151),
        (0.5, 0.1, 0.1592605074139916631454421315465597099319),
        (3.0, 8.0, 0.07560389484898686942383801831153070317406),
        (1.0, 20.0, 2.664706705365497652647843020429833835201e-86),
        (0.05, 0.02, 0.01163599607268280788208556138105602887106),
    ];
    for (mu, eps, exact) in reference {
        let d = gdp_delta(mu, eps).unwrap();
        assert!(d >= exact && d <= exact * (1.0 + 1e-11), "mu {mu}, eps {eps}: {d} vs {exact}");
    }
    // Direct quadrature of the hockey-stick integral, over regimes of both branches.
    for &(mu, eps) in &[
        (0.5, 0.1),
        (1.0, 0.0),
        (1.0, 1.0),
        (1.0, 3.0),
        (2.0, 0.5),
        (3.0, 8.0),
        (0.1, 0.3),
        (0.05, 0.02),
        (1.0, 20.0),
        (5.0, 2.0),
        (10.0, 40.0),
        (0.3, 0.2),
    ] {
        let d = gdp_delta(mu, eps).unwrap();
        let q = hockey_stick_gaussian(mu, eps);
        assert!((d / q - 1.0).abs() < 1e-10, "mu {mu}, eps {eps}: {d} vs quadrature {q}");
    }
    // Stable where the textbook formula is not: for ε > 709, e^ε overflows (mpmath values again).
    for (mu, eps, exact) in [
        (40.0, 1000.0, 2.5362965149565508753920510727831637114441920163953e-7),
        (38.0, 740.0, 0.30860000656217173992091446352921097053262712992876),
    ] {
        let d = gdp_delta(mu, eps).unwrap();
        assert!(d >= exact && d <= exact * (1.0 + 1e-10), "mu {mu}, eps {eps}: {d} vs {exact}");
    }
    // Far beyond underflow the bound is the absolute margin, never 0 or NaN.
    assert_eq!(gdp_delta(1.0, 750.0).unwrap(), f64::MIN_POSITIVE);
    assert_eq!(gdp_delta(0.0, 1.0).unwrap(), 0.0);
}

#[test]
fn gdp_inverse_round_trip_is_conservative() {
    for &mu in &[0.3, 1.0, 2.0, 4.0] {
        for &eps0 in &[0.05, 0.5, 1.0, 3.0, 6.0] {
            let delta = gdp_delta(mu, eps0).unwrap();
            let eps = gdp_epsilon(mu, delta).unwrap();
            assert!(eps >= eps0, "mu {mu}: epsilon {eps} < {eps0}");
            assert!(eps <= eps0 * (1.0 + 1e-9), "mu {mu}: epsilon {eps} far above {eps0}");
            assert!(gdp_delta(mu, eps).unwrap() <= delta);
        }
    }
    // δ at least the total variation distance needs no ε.
    let tv = gdp_delta(1.0, 0.0).unwrap();
    assert_eq!(gdp_epsilon(1.0, (tv * 1.01).min(0.9)).unwrap(), 0.0);
}

#[test]
#[allow(clippy::excessive_precision)] // reference values as mpmath printed them
fn analytic_calibration_is_valid_tight_and_below_classical() {
    // σ for Δ = 1 solving δ(ε; 1/σ) = δ at 50 digits (mpmath bisection on the exact profile).
    let reference = [
        (1.0, 1e-5, 3.730631634815941813869688990878788947540),
        (0.5, 1e-5, 7.031826675582491404448237717010058389687),
        (0.1, 1e-5, 30.74956613197744847202999117075666219840),
        (2.0, 1e-6, 2.230476271186417305521334350374996652564),
    ];
    for (eps, delta, exact) in reference {
        let sigma = analytic_gaussian_sigma(1.0, eps, delta).unwrap();
        assert!(sigma >= exact && sigma <= exact * (1.0 + 1e-12), "eps {eps}: {sigma} vs {exact}");
        assert!(gdp_delta(1.0 / sigma, eps).unwrap() <= delta);
        if eps < 1.0 {
            let classical = classical_gaussian_sigma(1.0, eps, delta).unwrap();
            assert!(sigma <= classical);
            eprintln!("(eps, delta) = ({eps}, {delta:e}): analytic sigma {sigma:.6}, classical {classical:.6}");
        } else {
            eprintln!("(eps, delta) = ({eps}, {delta:e}): analytic sigma {sigma:.6} (classical refuses eps >= 1)");
        }
    }
    for &(eps, delta) in &[(0.05, 1e-8), (0.3, 1e-3), (0.9, 1e-12)] {
        let sensitivity = 2.5;
        let a = analytic_gaussian_sigma(sensitivity, eps, delta).unwrap();
        let c = classical_gaussian_sigma(sensitivity, eps, delta).unwrap();
        assert!(a <= c && gdp_delta(sensitivity / a, eps).unwrap() <= delta);
        // Tight: 10⁻⁹ less noise already breaks the target.
        assert!(gdp_delta(sensitivity / (a * (1.0 - 1e-9)), eps).unwrap() > delta);
    }
}

/// δ(ε) of one generalized Gaussian coordinate (unit scale, shift d) by direct quadrature of
/// ∫(f₀ − e^ε f_d)₊: the sign change is located by bisection on f₀ − e^ε f_d itself, and the positive part
/// is integrated panel by panel up to it.
fn hockey_stick_gg(order: u32, d: f64, epsilon: f64) -> f64 {
    let f = gg_density(order, 1.0);
    let diff = |x: f64| f(x) - epsilon.exp() * f(x - d);
    // Where f₀ is e^{−700}: negligible beside δ, yet f₀ − e^ε f_d > 0 there; < 0 at x = d/2 (for ε > 0).
    let start = -(700f64.powf(1.0 / order as f64));
    let (mut lo, mut hi) = (start, 0.5 * d);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if diff(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    composite(&diff, start, lo, 400)
}

#[test]
fn generalized_gaussian_delta_matches_direct_quadrature() {
    for order in 3..=4u32 {
        for &d in &[0.3, 1.0, 2.0] {
            for &eps in &[0.05, 0.5, 2.0] {
                let lib = generalized_gaussian_delta(order, d, eps).unwrap();
                let quad = hockey_stick_gg(order, d, eps);
                assert!(lib >= quad * (1.0 - 1e-12), "N {order} d {d} eps {eps}: {lib} below {quad}");
                assert!((lib / quad - 1.0).abs() < 1e-9, "N {order} d {d} eps {eps}: {lib} vs {quad}");
            }
        }
        // The reported guarantee at δ = 1e-6, for a Rao budget θ = 1.
        let mech = GeneralizedGaussian::for_rao(1.0, 1.0, order).unwrap();
        let (eps, delta) = approx(&mech.guarantees());
        assert_eq!(delta, 1e-6);
        let d = mech.sensitivity() / mech.scale();
        let quad = hockey_stick_gg(order, d, eps);
        assert!(quad <= delta, "N {order}: direct delta {quad} at the reported eps {eps}");
        // ε is the smallest such: slightly less breaks it.
        assert!(hockey_stick_gg(order, d, eps * (1.0 - 1e-6)) > delta);
        eprintln!("N = {order}, Rao theta = 1 (s = {:.6}): (epsilon, delta) = ({eps:.6}, 1e-6)", mech.scale());
    }
}

#[test]
fn order_two_reproduces_the_gaussian_profile() {
    for &d in &[0.2, 0.7, 1.5, 3.0] {
        for &eps in &[0.0, 0.1, 1.0, 4.0] {
            let gg = generalized_gaussian_delta(2, d, eps).unwrap();
            let gauss = gdp_delta(std::f64::consts::SQRT_2 * d, eps).unwrap();
            // Both are upper bounds; the GG one carries a margin relative to its two CDF terms, which exceed δ
            // by up to 50× here (F(c) − e^ε F(c − d) cancels for small shifts and large ε).
            assert!((gg / gauss - 1.0).abs() < 1e-9, "d {d} eps {eps}: {gg} vs {gauss}");
        }
    }
    // And the mechanism's guarantees agree with the Gaussian mechanism of σ = s/√2.
    let gg = GeneralizedGaussian::new(2, 1.0, 2.0).unwrap();
    let gauss = Gaussian::new(1.0, 2.0 / std::f64::consts::SQRT_2).unwrap();
    let g = gg.guarantees();
    let mu = gauss.mu();
    assert!(g.iter().any(|x| matches!(*x, Guarantee::Gdp { mu: m, .. } if (m / mu - 1.0).abs() < 1e-15)));
    assert!(rao_theta(&g, RaoFamily::Gaussian) == rao_theta(&g, RaoFamily::GeneralizedGaussian { order: 2 }));
    let (e1, d1) = approx(&g);
    let (e2, d2) = approx(&gauss.guarantees());
    assert!(d1 == d2 && (e1 / e2 - 1.0).abs() < 1e-9);
}

#[test]
fn smaller_shifts_are_no_worse_than_the_sensitivity() {
    // Log-concave location families have monotone likelihood ratios, so δ grows with the shift.
    for order in [1u32, 2, 3, 4, 6] {
        for &eps in &[0.0, 0.1, 0.5, 1.0, 2.0] {
            let full = generalized_gaussian_delta(order, 1.0, eps).unwrap();
            let mut last = 0.0;
            for &d in &[0.1, 0.25, 0.5, 0.75, 0.99, 1.0] {
                let part = generalized_gaussian_delta(order, d, eps).unwrap();
                assert!(part <= full, "N {order} eps {eps}: shift {d} gives {part} > {full}");
                assert!(part >= last * (1.0 - 1e-12), "N {order} eps {eps}: not monotone at {d}");
                last = part;
            }
        }
    }
}

#[test]
fn every_standard_guarantee_is_reported() {
    let laplace = ScalarLaplace::for_epsilon(1.0, 0.5).unwrap().guarantees();
    for g in [
        Guarantee::pure(0.5),
        Guarantee::ApproxDp { epsilon: 0.5, delta: 0.0 },
        Guarantee::Zcdp { rho: 0.125 },
        Guarantee::RaoDp { theta: 0.5, family: RaoFamily::Laplace },
    ] {
        assert!(laplace.contains(&g), "{g} missing from {laplace:?}");
    }

    let gauss = Gaussian::new(1.0, 2.0).unwrap().guarantees();
    for g in [
        Guarantee::gdp(0.5),
        Guarantee::Zcdp { rho: 0.125 },
        Guarantee::RaoDp { theta: 0.5, family: RaoFamily::Gaussian },
    ] {
        assert!(gauss.contains(&g), "{g} missing from {gauss:?}");
    }
    let (eps, delta) = approx(&gauss);
    assert_eq!(delta, 1e-6);
    assert!(gdp_delta(0.5, eps).unwrap() <= 1e-6);
    let classical = Gaussian::classical(1.0, 0.5, 1e-5).unwrap().guarantees();
    assert!(classical.contains(&Guarantee::ApproxDp { epsilon: 0.5, delta: 1e-5 }));

    // N = 1: the Laplace guarantees beside the Rao one; vectors of k coordinates pay √k in pure ε.
    let gg1 = GeneralizedGaussian::new(1, 1.0, 2.0).unwrap();
    let g = gg1.guarantees();
    assert!(g.contains(&Guarantee::pure(0.5)));
    assert!(g.contains(&Guarantee::RaoDp { theta: 0.5, family: RaoFamily::GeneralizedGaussian { order: 1 } }));
    assert!(g.contains(&Guarantee::RaoDp { theta: 0.5, family: RaoFamily::Laplace }));
    let g4 = gg1.with_dimension(4).unwrap().guarantees();
    assert!(g4.contains(&Guarantee::pure(1.0)));
    assert!(g4.contains(&Guarantee::RaoDp { theta: 0.5, family: RaoFamily::Laplace }));

    // N ≥ 3: Rao and (ε, δ); k coordinates compose (ε₁, δ/k) per coordinate.
    let gg3 = GeneralizedGaussian::new(3, 1.0, 2.0).unwrap();
    let (e1, d1) = approx(&gg3.guarantees());
    assert_eq!(d1, 1e-6);
    assert_eq!(e1, generalized_gaussian_epsilon(3, 0.5, 1e-6).unwrap());
    assert_eq!(gg3.guarantees().len(), 2);
    let (e3, d3) = approx(&gg3.clone().with_dimension(3).unwrap().guarantees());
    assert_eq!(d3, 1e-6);
    assert!((e3 - 3.0 * generalized_gaussian_epsilon(3, 0.5, 1e-6 / 3.0).unwrap()).abs() < 1e-12);
    let (e_loose, _) = approx(&gg3.with_standard_delta(1e-3).unwrap().guarantees());
    assert!(e_loose < e1);
}

#[test]
fn rejects_bad_parameters_and_inputs() {
    let bad = [0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
    for &x in &bad {
        assert!(ScalarLaplace::new(x, 1.0).is_err() && ScalarLaplace::new(1.0, x).is_err());
        assert!(ScalarLaplace::for_epsilon(x, 1.0).is_err() && ScalarLaplace::for_epsilon(1.0, x).is_err());
        assert!(Gaussian::new(x, 1.0).is_err() && Gaussian::new(1.0, x).is_err());
        assert!(Gaussian::analytic(x, 1.0, 1e-5).is_err() && Gaussian::analytic(1.0, 1.0, x).is_err());
        assert!(Gaussian::classical(x, 0.5, 1e-5).is_err() && Gaussian::classical(1.0, x, 1e-5).is_err());
        assert!(Gaussian::classical(1.0, 0.5, x).is_err());
        assert!(GeneralizedGaussian::new(3, x, 1.0).is_err() && GeneralizedGaussian::new(3, 1.0, x).is_err());
        assert!(GeneralizedGaussian::for_rao(x, 1.0, 3).is_err() && GeneralizedGaussian::for_rao(1.0, x, 3).is_err());
        assert!(GeneralizedGaussianNoise::new(2, x).is_err());
        assert!(gdp_epsilon(1.0, x).is_err() && analytic_gaussian_sigma(1.0, 1.0, x).is_err());
        assert!(generalized_gaussian_epsilon(3, 1.0, x).is_err());
        assert!(Gaussian::new(1.0, 1.0).unwrap().with_standard_delta(x).is_err());
    }
    for &x in &[-1.0, f64::NAN, f64::INFINITY] {
        assert!(gdp_delta(x, 1.0).is_err() && gdp_delta(1.0, x).is_err() && gdp_epsilon(x, 1e-5).is_err());
        assert!(analytic_gaussian_sigma(1.0, x, 1e-5).is_err());
        assert!(generalized_gaussian_delta(3, x, 1.0).is_err() && generalized_gaussian_delta(3, 1.0, x).is_err());
    }
    assert!(matches!(Gaussian::analytic(1.0, 1.0, 1.0), Err(Error::InvalidParameter { name: Param::Delta, .. })));
    assert!(matches!(
        classical_gaussian_sigma(1.0, 1.0, 1e-5),
        Err(Error::InvalidParameter { name: Param::Epsilon, .. })
    ));
    assert!(Gaussian::classical(1.0, 2.0, 1e-5).is_err() && Gaussian::analytic(1.0, 2.0, 1e-5).is_ok());
    assert!(GeneralizedGaussian::new(0, 1.0, 1.0).is_err() && GeneralizedGaussian::for_rao(1.0, 1.0, 0).is_err());
    assert!(GeneralizedGaussianNoise::new(0, 1.0).is_err() && GeneralizedGaussian::new(257, 1.0, 1.0).is_err());
    assert!(generalized_gaussian_delta(0, 1.0, 1.0).is_err() && generalized_gaussian_epsilon(0, 1.0, 1e-6).is_err());
    assert!(GeneralizedGaussian::new(3, 1.0, 1.0).unwrap().with_dimension(0).is_err());
    // A scale so small that the privacy loss overflows.
    assert!(ScalarLaplace::new(1.0, 1e-300).is_err() && Gaussian::new(1e10, 1e-300).is_err());

    // Non-finite inputs are errors, never panics, and draw no noise.
    let mut rng = seeded_rng_for_experiments(5);
    let laplace = ScalarLaplace::new(1.0, 1.0).unwrap();
    let gauss = Gaussian::new(1.0, 1.0).unwrap();
    let gg = GeneralizedGaussian::new(4, 1.0, 1.0).unwrap();
    for &x in &[f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(matches!(laplace.release(&[0.0, x], &mut rng), Err(Error::NonFinite { component: 1, .. })));
        assert!(matches!(gauss.release_scalar(x, &mut rng), Err(Error::NonFinite { component: 0, .. })));
        assert!(matches!(gg.release_scalar(x, &mut rng), Err(Error::NonFinite { component: 0, .. })));
    }
    assert!(matches!(gg.release(&[1.0, 2.0], &mut rng), Err(Error::WrongLength { expected: 1, got: 2 })));
    assert_eq!(laplace.release(&[], &mut rng).unwrap(), Vec::<f64>::new());
}
