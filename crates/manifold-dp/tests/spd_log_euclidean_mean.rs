//! The log-Euclidean Gaussian mean of SPD(k), k ≤ 8 (`docs/proofs/spd_log_euclidean_mean.md`): its released log
//! coordinates are the exact grid cells of ĉ + σZ, Z ~ N(0, I_D), so ‖u − ĉ‖²/σ² follows χ²_D and each
//! coordinate (u_i − ĉ_i)/σ the standard normal; the release itself, exp of the grid point, is at log-Euclidean
//! distance t from the mean with (t/σ)² ~ χ²_D. Each test has a negative control the same test rejects: a sampler
//! at 0.9σ, and noise added to the matrix entries instead of the isometric coordinates (off-diagonal coordinates
//! then carry √2 times the noise).
//!
//! Statistical design: every KS test uses the DKW–Massart critical value at α = 1e-8
//! (`manifold_dp::audit::gof`), which bounds its false-failure probability by 1e-8 for any sample size with no
//! asymptotic approximation; the grid moves each coordinate by at most 2^-21·σ, which moves the CDFs tested by
//! less than 1e-5, far inside the critical values (≥ 0.02 here). This file runs 7 KS tests expected to pass, so
//! the probability that a correct sampler fails any of them is below 7e-8 (union bound). Seeds are fixed.

use manifold_dp::audit::gof::ks_test;
use manifold_dp::manifold::Manifold;
use manifold_dp::mechanism::LogEuclideanGaussianMean;
use manifold_dp::sample::rng::seeded_rng_for_experiments;
use manifold_dp::space::spd::expm;
use nalgebra::{DMatrix, DVector};
use statrs::distribution::{ChiSquared, ContinuousCDF, Normal};

const ALPHA: f64 = 1e-8;
const N: usize = 20_000;

fn chi2_cdf(d: usize) -> impl Fn(&[f64]) -> Vec<f64> {
    let law = ChiSquared::new(d as f64).unwrap();
    move |s: &[f64]| s.iter().map(|&q| law.cdf(q)).collect()
}

fn normal_cdf(s: &[f64]) -> Vec<f64> {
    let law = Normal::standard();
    s.iter().map(|&z| law.cdf(z)).collect()
}

/// Log coordinates off the grid and of both signs, so no draw starts on a cell boundary.
fn footpoint(d: usize) -> DVector<f64> {
    DVector::from_fn(d, |i, _| 0.37 * (i as f64 + 0.3).sin() + 1e-9 * i as f64)
}

fn mechanism(k: usize, mu: f64) -> LogEuclideanGaussianMean {
    LogEuclideanGaussianMean::new(k, DMatrix::identity(k, k), 1.5, 40, mu).unwrap()
}

#[test]
fn the_squared_norm_of_the_log_noise_is_chi_squared_and_0_9_sigma_is_rejected() {
    for (i, k) in [2usize, 4, 5, 8].into_iter().enumerate() {
        let g = mechanism(k, 1.0);
        let d = g.manifold().dimension();
        let c = footpoint(d);
        let mut rng = seeded_rng_for_experiments(100 + i as u64);
        let q = |m: &LogEuclideanGaussianMean, rng: &mut _| {
            (0..N).map(|_| (m.release_coordinates(&c, rng) - &c).norm_squared() / (g.sigma() * g.sigma())).collect()
        };
        let mut good: Vec<f64> = q(&g, &mut rng);
        let out = ks_test(&mut good, chi2_cdf(d), ALPHA);
        assert!(out.passed(), "k = {k}: {out:?}");
        // Negative control: the sampler of μ/0.9 (σ·0.9) judged against σ.
        let mut bad: Vec<f64> = q(&mechanism(k, 1.0 / 0.9), &mut rng);
        let out = ks_test(&mut bad, chi2_cdf(d), ALPHA);
        assert!(!out.passed(), "k = {k}: the 0.9σ control passed: {out:?}");
    }
}

#[test]
fn each_isometric_coordinate_is_standard_normal_and_unscaled_entries_are_rejected() {
    let g = mechanism(4, 1.0);
    let d = g.manifold().dimension();
    let c = footpoint(d);
    let mut rng = seeded_rng_for_experiments(200);
    let draws: Vec<DVector<f64>> = (0..N).map(|_| g.release_coordinates(&c, &mut rng)).collect();
    // Coordinate 0 is a diagonal entry, coordinate 1 the √2-scaled entry (1, 2).
    for j in [0, 1] {
        let mut z: Vec<f64> = draws.iter().map(|u| (u[j] - c[j]) / g.sigma()).collect();
        let out = ks_test(&mut z, normal_cdf, ALPHA);
        assert!(out.passed(), "coordinate {j}: {out:?}");
    }
    // Negative control: noise N(0, σ²) on the matrix entry (1, 2) is √2·N(0, σ²) on its isometric coordinate.
    let mut z: Vec<f64> = draws.iter().map(|u| std::f64::consts::SQRT_2 * (u[1] - c[1]) / g.sigma()).collect();
    let out = ks_test(&mut z, normal_cdf, ALPHA);
    assert!(!out.passed(), "the entry-noise control passed: {out:?}");
}

/// The whole release (log coordinates of the mean, exact cells, exp of the grid point): its log-Euclidean
/// distance t from the mean has (t/σ)² ~ χ²_D.
#[test]
fn the_release_s_log_euclidean_error_is_sigma_chi() {
    let k = 5;
    let g = mechanism(k, 2.0);
    let d = g.manifold().dimension();
    let mean = expm(&DMatrix::from_fn(k, k, |i, j| 0.2 * ((i + j) as f64).cos()));
    let mut rng = seeded_rng_for_experiments(300);
    let mut q: Vec<f64> = (0..N)
        .map(|_| {
            let y = g.release_mean(&mean, &mut rng);
            (g.manifold().distance(&y, &mean) / g.sigma()).powi(2)
        })
        .collect();
    let out = ks_test(&mut q, chi2_cdf(d), ALPHA);
    assert!(out.passed(), "{out:?}");
}
