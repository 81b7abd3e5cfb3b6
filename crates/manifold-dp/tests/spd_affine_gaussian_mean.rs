//! The affine-invariant Gaussian mean of SPD(k), k ≤ 3 (`docs/proofs/spd_log_euclidean_mean.md` §8): the release
//! is the exponential-wrapped Gaussian at the public centre, so the chart coordinates of the release (the
//! isometric coordinates of log(W·Y·Wᵀ), W = L0⁻¹ the centre's whitening) minus those of the mean are
//! N(0, σ²I_D): ‖·‖²/σ² follows χ²_D and each coordinate/σ the standard normal. Measured on the matrices
//! released (the whole pipeline: cells, exp, un-whitening, then the chart again), at a centre that is not I and
//! a mean 1.6 off the centre, with σ large enough (1.25) for curvature to show. Negative controls the same tests
//! reject: the sampler at 0.8σ, and the Gaussian wrapped at the wrong centre (the mean itself: exp_m̂ of the
//! noise, the Riemannian normal-like law at the footpoint), each judged against σ at m0.
//!
//! Statistical design: every KS test uses the DKW–Massart critical value at α = 1e-8
//! (`manifold_dp::audit::gof`), a false-failure probability ≤ 1e-8 for any sample size with no asymptotic
//! approximation. The grid moves each coordinate by at most 2^-21·σ and the pipeline (exp, congruence, log) by
//! below 1e-12, moving the CDFs tested by less than 1e-5, far inside the critical values (≥ 0.02). This file runs
//! 13 KS tests expected to pass (per k, ‖·‖²/σ² and every coordinate: 4 at k = 2, 7 at k = 3; and 2 more): the
//! probability that a correct sampler fails any is below 1.3e-7 (union bound). A control is rejected when any of
//! its D + 1 tests rejects.

use manifold_dp::audit::gof::ks_test;
use manifold_dp::manifold::{Manifold, SpdLogEuclidean};
use manifold_dp::mechanism::AffineGaussianMean;
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

fn center(k: usize) -> DMatrix<f64> {
    DMatrix::from_fn(k, k, |i, j| if i == j { 2.0 + i as f64 } else { 0.6 })
}

/// A mean 1.6 from the centre (affine-invariant), inside the chart's ball of radius R_P = 1.5 + Δ/2, off the grid.
fn mean_point(k: usize) -> DMatrix<f64> {
    let l = center(k).cholesky().unwrap().l();
    let s = DMatrix::from_fn(k, k, |i, j| ((i + j) as f64 + 0.3).sin() + 1e-9 * (i * j) as f64);
    &l * expm(&(&s * (1.6 / s.norm()))) * l.transpose()
}

/// n = 4 rows within 1.5: Δ ≈ 0.75, σ ≈ 1.25 at μ = 0.6.
fn mechanism(k: usize, mu: f64) -> AffineGaussianMean {
    AffineGaussianMean::new(k, center(k), 1.5, 4, mu).unwrap()
}

/// The chart at the centre, recomputed here (not moved onto any ball): the isometric coordinates of
/// log(W·Y·Wᵀ), W the inverse of the centre's Cholesky factor.
fn chart(k: usize, y: &DMatrix<f64>) -> DVector<f64> {
    let w = center(k).cholesky().unwrap().l().try_inverse().unwrap();
    let m = &w * y * w.transpose();
    SpdLogEuclidean::new(k).unwrap().log_coordinates(&((&m + m.transpose()) * 0.5))
}

/// (chart point of each release − chart point of the mean)/σ, releases drawn by `draw`.
fn standardised(
    g: &AffineGaussianMean,
    sigma: f64,
    draw: impl Fn(&mut dyn rand::CryptoRng) -> DMatrix<f64>,
    seed: u64,
) -> Vec<DVector<f64>> {
    let k = g.manifold().k();
    let mut rng = seeded_rng_for_experiments(seed);
    let c = chart(k, &mean_point(k));
    (0..N).map(|_| (chart(k, &draw(&mut rng)) - &c) / sigma).collect()
}

/// The D + 1 KS tests of one sample: ‖z‖² against χ²_D, and each coordinate against Φ. The outcomes that fail.
fn failures(draws: &[DVector<f64>]) -> Vec<(usize, manifold_dp::audit::gof::KsOutcome)> {
    let d = draws[0].len();
    let mut sq: Vec<f64> = draws.iter().map(|z| z.norm_squared()).collect();
    let mut out = vec![(d, ks_test(&mut sq, chi2_cdf(d), ALPHA))];
    for j in 0..d {
        let mut z: Vec<f64> = draws.iter().map(|u| u[j]).collect();
        out.push((j, ks_test(&mut z, normal_cdf, ALPHA)));
    }
    out.into_iter().filter(|(_, o)| !o.passed()).collect()
}

#[test]
fn the_release_s_chart_noise_is_standard_gaussian_and_0_8_sigma_and_a_wrong_centre_are_rejected() {
    for (i, k) in [2usize, 3].into_iter().enumerate() {
        let g = mechanism(k, 0.6);
        let sigma = g.sigma();
        assert!(sigma > 1.2 && sigma < 1.3, "{sigma}");
        let p = mean_point(k);
        let far = g.manifold().distance(&p, &center(k));
        assert!((far - 1.6).abs() < 1e-9, "{far}");
        assert!((chart(k, &p) - g.chart_point(&p)).norm() < 1e-13, "the mean lies in the chart's ball");
        let good = failures(&standardised(&g, sigma, |rng| g.release_mean(&p, rng), 10 + i as u64));
        assert!(good.is_empty(), "k = {k}: {good:?}");
        // Control 1: the sampler at 0.8σ (μ/0.8), judged against σ.
        let narrow = mechanism(k, 0.6 / 0.8);
        let bad = failures(&standardised(&g, sigma, |rng| narrow.release_mean(&p, rng), 20 + i as u64));
        assert!(!bad.is_empty(), "k = {k}: the 0.8σ control passed");
        // Control 2: the Gaussian wrapped at the mean instead of the centre (the same σ), judged at the centre.
        let at_mean = AffineGaussianMean::new(k, p.clone(), 1.5, 4, 0.6).unwrap();
        assert!((at_mean.sigma() / sigma - 1.0).abs() < 1e-8);
        let bad = failures(&standardised(&g, sigma, |rng| at_mean.release_mean(&p, rng), 30 + i as u64));
        assert!(!bad.is_empty(), "k = {k}: the wrong-centre control passed");
    }
}

#[test]
fn each_chart_coordinate_of_the_release_is_standard_normal() {
    let g = mechanism(2, 0.6);
    let p = mean_point(2);
    let draws = standardised(&g, g.sigma(), |rng| g.release_mean(&p, rng), 40);
    // Coordinate 0 is a diagonal entry, coordinate 1 the √2-scaled entry (1, 2).
    for j in [0, 1] {
        let mut z: Vec<f64> = draws.iter().map(|u| u[j]).collect();
        let out = ks_test(&mut z, normal_cdf, ALPHA);
        assert!(out.passed(), "coordinate {j}: {out:?}");
    }
    // Negative control: noise N(0, σ²) on the whitened matrix entry (1, 2) is √2·N(0, σ²) on its coordinate.
    let mut z: Vec<f64> = draws.iter().map(|u| std::f64::consts::SQRT_2 * u[1]).collect();
    let out = ks_test(&mut z, normal_cdf, ALPHA);
    assert!(!out.passed(), "the entry-noise control passed: {out:?}");
}
