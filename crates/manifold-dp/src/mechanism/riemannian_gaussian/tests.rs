use super::*;
use crate::manifold::Manifold;
use crate::mechanism::{Conditioning, PrivateFrechetMean};
use crate::sample::rng::seeded_rng_for_experiments;
use std::f64::consts::FRAC_PI_8;

fn s2_centre() -> DVector<f64> {
    DVector::from_vec(vec![0.0, 0.0, 1.0])
}

#[test]
fn jiang_s2_setting_is_certified_and_beats_the_matched_laplace() {
    // Jiang et al.'s S² setting: n = 10 points within π/8 of a point, μ = 1.
    let mean = GaussianFrechetMean::new(Sphere::new(3).unwrap(), s2_centre(), FRAC_PI_8, 10, 1.0).unwrap();
    let cert = mean.certificate();
    eprintln!(
        "Δ = {}, σ = {}, certified μ = {}, Δ/σ = {}, ε₀ = {:e}, E[error] = {}",
        mean.sensitivity(),
        mean.sigma(),
        cert.mu,
        cert.flat_mu,
        cert.additive_epsilon,
        mean.expected_error()
    );
    assert!(cert.mu <= 1.0 && cert.mu > 0.995);
    assert!((mean.sensitivity() - 0.1215).abs() < 1e-3);
    assert_eq!(
        serde_json::to_value(mean.guarantee()).unwrap(),
        serde_json::json!({"notion": "gdp", "mu": 1.0, "delta": 2e-280})
    );
    // The targets, from the exact laws (no sampling): error ≤ 0.16 rad and ≤ 0.6× the Laplace mean at
    // the pure ε that is 1-GDP (1/(1 + e^ε) ≥ Φ(−1/2): ε ≤ 0.807).
    let laplace = PrivateFrechetMean::new(
        Sphere::new(3).unwrap(),
        s2_centre(),
        FRAC_PI_8,
        10,
        0.807,
        Conditioning::Unconditioned,
    )
    .unwrap();
    eprintln!("Laplace at ε = 0.807: E[error] = {}", laplace.expected_error());
    assert!(mean.expected_error() <= 0.16);
    assert!(mean.expected_error() <= 0.6 * laplace.expected_error());
}

#[test]
fn releases_lie_on_the_grid_and_near_the_mean() {
    let sphere = Sphere::new(3).unwrap();
    let mean = GaussianFrechetMean::new(sphere, s2_centre(), 0.3, 50, 2.0).unwrap();
    let mut rng = seeded_rng_for_experiments(11);
    let data: Vec<DVector<f64>> = (0..50)
        .map(|i| {
            let a = 0.1 * (i as f64 / 50.0);
            DVector::from_vec(vec![a.sin(), 0.0, a.cos()])
        })
        .collect();
    for _ in 0..20 {
        let z = mean.release(&data, &mut rng).unwrap();
        let mut again = z.clone();
        sphere.snap_point(&mean.rounding(), &mut again);
        assert_eq!(again, z, "the release is its own cell's representative");
        assert!(sphere.distance(&z, &s2_centre()) < 1.5);
    }
    assert!(mean.release(&data[..49], &mut rng).is_err());
}

#[test]
fn so3_means_are_certified() {
    let mean = GaussianFrechetMean::new(So3, UnitQuaternion::identity(), 0.5, 100, 0.5).unwrap();
    assert!(mean.certificate().mu <= 0.5);
    let mut rng = seeded_rng_for_experiments(3);
    let z = mean.release_mean(&UnitQuaternion::identity(), &mut rng);
    assert!((z.as_ref().norm() - 1.0).abs() < 1e-12);
}
