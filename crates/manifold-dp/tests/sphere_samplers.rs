//! Goodness-of-fit of the exact VMF sampler on S^{n−1} against the exact law of its angle, uniformity of its
//! tangent direction, and negative controls that the same tests must reject.
//!
//! Statistical design as in `so3_samplers.rs`: DKW–Massart critical values at α = 1e-8 per KS test (finite
//! sample, no asymptotics); this file runs fewer than 100 tests, so a correct sampler fails any of them with
//! probability below 1e-6. Seeds are fixed.

use manifold_dp::analysis::{AngularLaw, VmfAngle};
use manifold_dp::audit::gof::{KsOutcome, ks_test};
use manifold_dp::sample::rng::seeded_rng_for_experiments;
use manifold_dp::sample::vmf::VmfNoise;
use manifold_dp::space::sphere::surface_distance;
use nalgebra::DVector;
use rand::{Rng, RngExt};
use rand_distr::{Beta, Distribution};
use std::f64::consts::PI;

const ALPHA: f64 = 1e-8;
const N: usize = 40_000;

/// θ = arccos(1 − t) without cancellation: sin(θ/2) = √(t/2).
fn angle_of(t: f64) -> f64 {
    2.0 * (0.5 * t).sqrt().min(1.0).asin()
}

fn angle_test(draw: impl Fn(&mut rand::rngs::ChaCha12Rng) -> f64, law: &VmfAngle, seed: u64) -> KsOutcome {
    angle_test_n(draw, law, seed, N)
}

fn angle_test_n(draw: impl Fn(&mut rand::rngs::ChaCha12Rng) -> f64, law: &VmfAngle, seed: u64, n: usize) -> KsOutcome {
    let mut rng = seeded_rng_for_experiments(seed);
    let mut angles: Vec<f64> = (0..n).map(|_| angle_of(draw(&mut rng))).collect();
    ks_test(&mut angles, |s| law.cdf_sorted(s), ALPHA)
}

#[test]
fn vmf_angle_matches_exact_law_across_dimensions_and_concentrations() {
    let mut seed = 10;
    for dim in [2, 3, 4, 10, 100, 10_000] {
        for kappa in [1e-3, 1.0, 100.0, 1e6, 1e10] {
            let noise = VmfNoise::new(dim, kappa).unwrap();
            let law = VmfAngle::new(dim, kappa).unwrap();
            let out = angle_test(|rng| noise.sample_one_minus_cos(rng), &law, seed);
            seed += 1;
            assert!(out.passed(), "n = {dim}, kappa = {kappa}: KS {} > {}", out.statistic, out.critical);
        }
    }
}

#[test]
fn vmf_points_are_unit_at_the_right_angle_with_uniform_tangent_even_at_poles() {
    // On S², the azimuth around μ must be uniform; μ = ±e₁ (where naive tangent constructions break) and an
    // oblique μ. Also: outputs are unit vectors and their angle to μ follows the exact law.
    let noise = VmfNoise::new(3, 5.0).unwrap();
    let law = VmfAngle::new(3, 5.0).unwrap();
    let oblique = DVector::from_column_slice(&[1.0, -2.0, 0.5]).normalize();
    let mus: [DVector<f64>; 3] =
        [DVector::from_column_slice(&[1.0, 0.0, 0.0]), DVector::from_column_slice(&[-1.0, 0.0, 0.0]), oblique];
    for (i, mu) in mus.iter().enumerate() {
        // An orthonormal frame (mu, a, b) to measure the azimuth in.
        let helper = if mu[2].abs() < 0.9 {
            DVector::from_column_slice(&[0.0, 0.0, 1.0])
        } else {
            DVector::from_column_slice(&[1.0, 0.0, 0.0])
        };
        let a = (&helper - mu * mu.dot(&helper)).normalize();
        let b = DVector::from_column_slice(&[
            mu[1] * a[2] - mu[2] * a[1],
            mu[2] * a[0] - mu[0] * a[2],
            mu[0] * a[1] - mu[1] * a[0],
        ]);
        let mut rng = seeded_rng_for_experiments(100 + i as u64);
        let (mut azimuths, mut angles) = (Vec::new(), Vec::new());
        for _ in 0..N {
            let x = noise.sample_around(mu, &mut rng);
            assert!((x.norm() - 1.0).abs() < 1e-14);
            azimuths.push(x.dot(&b).atan2(x.dot(&a)));
            angles.push(surface_distance(&x, mu));
        }
        let uniform = ks_test(&mut azimuths, |s| s.iter().map(|x| (x + PI) / (2.0 * PI)).collect(), ALPHA);
        assert!(uniform.passed(), "mu #{i}: azimuth KS {} > {}", uniform.statistic, uniform.critical);
        let angle = ks_test(&mut angles, |s| law.cdf_sorted(s), ALPHA);
        assert!(angle.passed(), "mu #{i}: angle KS {} > {}", angle.statistic, angle.critical);
    }
}

#[test]
fn vmf_in_high_dimension_keeps_unit_norm_and_mean_cosine() {
    // n = 10 000: O(n) construction; E[W] checked against the exact law's mean angle through the KS test of
    // the angle on 2000 full points.
    let dim = 10_000;
    let noise = VmfNoise::new(dim, 5000.0).unwrap();
    let law = VmfAngle::new(dim, 5000.0).unwrap();
    let mu = DVector::from_fn(dim, |i, _| if i == 7 { 1.0 } else { 0.0 });
    let mut rng = seeded_rng_for_experiments(200);
    let mut angles: Vec<f64> = (0..2000)
        .map(|_| {
            let x = noise.sample_around(&mu, &mut rng);
            assert!((x.norm() - 1.0).abs() < 1e-12);
            surface_distance(&x, &mu)
        })
        .collect();
    let out = ks_test(&mut angles, |s| law.cdf_sorted(s), ALPHA);
    assert!(out.passed(), "KS {} > {}", out.statistic, out.critical);
}

/// Wood's sampler as scipy writes it: b = (−2κ + √(4κ² + m²))/m and W computed directly. Not exact at large κ.
fn naive_wood_t<R: Rng + ?Sized>(dim: usize, kappa: f64, rng: &mut R) -> f64 {
    let m = (dim - 1) as f64;
    let b = (-2.0 * kappa + (4.0 * kappa * kappa + m * m).sqrt()) / m;
    let x0 = (1.0 - b) / (1.0 + b);
    let c = kappa * x0 + m * (1.0 - x0 * x0).ln();
    let beta = Beta::new(0.5 * m, 0.5 * m).unwrap();
    loop {
        let z: f64 = beta.sample(rng);
        let w = (1.0 - (1.0 + b) * z) / (1.0 - (1.0 - b) * z);
        let u: f64 = rng.random();
        if kappa * w + m * (1.0 - x0 * w).ln() - c >= u.ln() {
            return 1.0 - w;
        }
    }
}

#[test]
fn negative_controls_are_rejected() {
    // scipy's cancellation-prone form at κ = 1e8, n = 4 (its bias is small: 400 000 draws make the
    // rejection robust, KS ≈ 0.02 against a critical value of 0.005).
    let law = VmfAngle::new(4, 1e8).unwrap();
    let out = angle_test_n(|rng| naive_wood_t(4, 1e8, rng), &law, 300, 400_000);
    println!("naive Wood at kappa = 1e8: KS {} vs {}", out.statistic, out.critical);
    assert!(!out.passed(), "the naive Wood sampler passed");
    // A sampler at twice the concentration (a VMF mechanism calibrated as κ = 2ε).
    let wrong = VmfNoise::new(10, 2.0).unwrap();
    let out = angle_test(|rng| wrong.sample_one_minus_cos(rng), &VmfAngle::new(10, 1.0).unwrap(), 301);
    println!("kappa doubled: KS {} vs {}", out.statistic, out.critical);
    assert!(!out.passed(), "a doubled concentration passed");
    // A tangent that is not uniform: the test of the azimuth must see it.
    let mut rng = seeded_rng_for_experiments(302);
    let mut azimuths: Vec<f64> = (0..N).map(|_| (rng.random::<f64>() * 2.0 - 1.0).powi(3) * PI).collect();
    let out = ks_test(&mut azimuths, |s| s.iter().map(|x| (x + PI) / (2.0 * PI)).collect(), ALPHA);
    assert!(!out.passed());
}

#[test]
fn law_mean_is_consistent_with_samples() {
    let law = VmfAngle::new(4, 3.0).unwrap();
    let noise = VmfNoise::new(4, 3.0).unwrap();
    let mut rng = seeded_rng_for_experiments(400);
    let m: f64 = (0..N).map(|_| angle_of(noise.sample_one_minus_cos(&mut rng))).sum::<f64>() / N as f64;
    // The angle lies in [0, π]: Hoeffding at 1e-8 gives a margin of π√(ln(2e8)/(2N)).
    let margin = PI * ((2e8f64).ln() / (2.0 * N as f64)).sqrt();
    assert!((m - law.mean()).abs() < margin, "{m} vs {}", law.mean());
}

// ---------------------------------------------------------------- Purkayastha

use manifold_dp::analysis::SphereAngle;
use manifold_dp::sample::purkayastha::PurkayasthaNoise;

fn purkayastha_test(noise: &PurkayasthaNoise, law: &SphereAngle, seed: u64) -> KsOutcome {
    let mut rng = seeded_rng_for_experiments(seed);
    let mut angles: Vec<f64> = (0..N).map(|_| noise.sample_angle(&mut rng)).collect();
    ks_test(&mut angles, |s| law.cdf_sorted(s), ALPHA)
}

#[test]
fn purkayastha_angle_matches_exact_law_across_dimensions_and_concentrations() {
    let mut seed = 500;
    for dim in [2, 3, 4, 10, 100, 10_000] {
        for kappa in [1e-6, 1e-3, 1.0, 100.0, 1e4, 1e6] {
            let noise = PurkayasthaNoise::new(dim, kappa).unwrap();
            let law = SphereAngle::purkayastha(dim, kappa).unwrap();
            let out = purkayastha_test(&noise, &law, seed);
            seed += 1;
            assert!(out.passed(), "n = {dim}, kappa = {kappa}: KS {} > {}", out.statistic, out.critical);
        }
    }
}

#[test]
fn purkayastha_law_matches_the_closed_form_normaliser_ratio() {
    // ∫₀^π e^{−κθ} sin^k θ dθ in closed form (docs/math.md §2, `purkayastha_log_normaliser`) against a fine
    // midpoint sum, and the law's CDF at π/2 against the midpoint sum on [0, π/2] over the closed form.
    for (dim, kappa) in [(3usize, 0.7f64), (4, 2.0), (6, 0.3)] {
        let k = (dim - 2) as i32;
        let f = |t: f64| (-kappa * t).exp() * t.sin().powi(k);
        let closed = manifold_dp::analysis::sphere_closed_forms::purkayastha_log_normaliser(dim, kappa).unwrap().exp();
        let m = 200_000;
        let h = PI / m as f64;
        let total: f64 = (0..m).map(|i| f((i as f64 + 0.5) * h)).sum::<f64>() * h;
        assert!((total - closed).abs() < 1e-8 * closed, "midpoint sum vs closed form: {total} vs {closed}");
        let half: f64 = (0..m / 2).map(|i| f((i as f64 + 0.5) * h)).sum::<f64>() * h;
        let law = SphereAngle::purkayastha(dim, kappa).unwrap();
        assert!(
            (law.cdf(PI / 2.0) - half / closed).abs() < 1e-8,
            "n = {dim}: {} vs {}",
            law.cdf(PI / 2.0),
            half / closed
        );
    }
}

#[test]
fn purkayastha_points_are_at_the_drawn_angle_with_uniform_tangent() {
    let noise = PurkayasthaNoise::new(3, 4.0).unwrap();
    let law = SphereAngle::purkayastha(3, 4.0).unwrap();
    let mu = DVector::from_column_slice(&[-1.0, 0.0, 0.0]);
    let mut rng = seeded_rng_for_experiments(600);
    let (mut azimuths, mut angles) = (Vec::new(), Vec::new());
    for _ in 0..N {
        let x = noise.sample_around(&mu, &mut rng);
        assert!((x.norm() - 1.0).abs() < 1e-14);
        azimuths.push(x[2].atan2(x[1]));
        angles.push(surface_distance(&x, &mu));
    }
    let out = ks_test(&mut azimuths, |s| s.iter().map(|x| (x + PI) / (2.0 * PI)).collect(), ALPHA);
    assert!(out.passed(), "azimuth KS {} > {}", out.statistic, out.critical);
    let out = ks_test(&mut angles, |s| law.cdf_sorted(s), ALPHA);
    assert!(out.passed(), "angle KS {} > {}", out.statistic, out.critical);
}

#[test]
fn purkayastha_negative_controls_are_rejected() {
    // Dropping the sin^{n−2} factor (the circle's sampler used on S³) and doubling κ.
    let law = SphereAngle::purkayastha(4, 1.0).unwrap();
    let out = purkayastha_test(&PurkayasthaNoise::new(2, 1.0).unwrap(), &law, 700);
    println!("without sin^k: KS {} vs {}", out.statistic, out.critical);
    assert!(!out.passed());
    let out = purkayastha_test(&PurkayasthaNoise::new(4, 2.0).unwrap(), &law, 701);
    println!("kappa doubled: KS {} vs {}", out.statistic, out.critical);
    assert!(!out.passed());
}

// ---------------------------------------------------------------- tangent direction, n ≥ 4

/// The component of a uniform unit vector of a 3-dimensional space along a fixed unit vector is uniform on
/// [−1, 1] (Archimedes). On S³ (n = 4) the tangent direction lives in the 3-dimensional μ^⊥, so its component
/// along any unit vector of μ^⊥ must be uniform: KS at α = 1e-8, at the poles ±e₄ (where a Householder
/// reflection of the wrong sign divides by ~0), at e₁ and at an oblique centre.
fn tangent_component_test(mu: &DVector<f64>, e: &DVector<f64>, seed: u64, broken: bool) -> KsOutcome {
    let mut rng = seeded_rng_for_experiments(seed);
    let mut components: Vec<f64> = (0..N)
        .map(|_| {
            let v = if broken {
                // Negative control: a cube-normalised direction in μ^⊥ (not uniform).
                let g = DVector::from_fn(4, |_, _| 2.0 * rng.random::<f64>() - 1.0);
                let p = &g - mu * mu.dot(&g);
                p.normalize()
            } else {
                manifold_dp::sample::sphere::point_at_angle(mu, 0.0, 1.0, &mut rng)
            };
            assert!((v.norm() - 1.0).abs() < 1e-14 && v.dot(mu).abs() < 1e-14);
            v.dot(e)
        })
        .collect();
    ks_test(&mut components, |s| s.iter().map(|c| (c + 1.0) / 2.0).collect(), ALPHA)
}

#[test]
fn tangent_directions_on_s3_are_uniform_at_the_poles_and_elsewhere() {
    let oblique = DVector::from_column_slice(&[0.3, -0.5, 0.2, 0.7]).normalize();
    let mus = [
        DVector::from_column_slice(&[0.0, 0.0, 0.0, 1.0]),
        DVector::from_column_slice(&[0.0, 0.0, 0.0, -1.0]),
        DVector::from_column_slice(&[1.0, 0.0, 0.0, 0.0]),
        oblique,
    ];
    for (i, mu) in mus.iter().enumerate() {
        // Two unit vectors of μ^⊥: e₂ and e₄ projected and normalised (or e₁ where that vanishes).
        for (j, axis) in [1usize, 3].into_iter().enumerate() {
            let mut a: DVector<f64> = DVector::from_fn(4, |k, _| if k == axis { 1.0 } else { 0.0 });
            if a.dot(mu).abs() > 0.99 {
                a = DVector::from_fn(4, |k, _| if k == 0 { 1.0 } else { 0.0 });
            }
            let e = (&a - mu * mu.dot(&a)).normalize();
            let out = tangent_component_test(mu, &e, 800 + 10 * i as u64 + j as u64, false);
            assert!(out.passed(), "mu #{i}, axis {axis}: KS {} > {}", out.statistic, out.critical);
        }
    }
    let e = DVector::from_column_slice(&[1.0, 1.0, 1.0, 0.0]).normalize();
    let out = tangent_component_test(&mus[0], &e, 899, true);
    println!("cube-normalised direction: KS {} vs {}", out.statistic, out.critical);
    assert!(!out.passed(), "a cube-normalised direction passed");
}
