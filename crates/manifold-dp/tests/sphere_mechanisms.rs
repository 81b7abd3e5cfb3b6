//! The directional mechanisms as released: their privacy inequality checked analytically over random
//! triples, goodness-of-fit of what `privatize`/`privatize_slice` output (angles to the input against exact
//! laws), the baselines' samplers against their closed forms, and negative controls.
//!
//! Statistical design as in `so3_samplers.rs`: DKW–Massart critical values at α = 1e-8 per KS test; this
//! file runs fewer than 40 KS tests, so a correct implementation fails any of them with probability below
//! 1e-6. Seeds are fixed.

use manifold_dp::analysis::{AngularLaw, SphereAngle, WrappedLaplaceAngle};
use manifold_dp::audit::gof::{KsOutcome, ks_test};
use manifold_dp::mechanism::{
    Mechanism, PurkayasthaSphere, SphereKind, SphereMechanism, TangentPlanarLaplace, UniformSphere, VmfSphere,
    WrappedLaplaceCircle,
};
use manifold_dp::privacy::{Guarantee, Metric};
use manifold_dp::sample::rng::{ReleaseRng, seeded_rng_for_experiments};
use manifold_dp::space::sphere::{chordal_distance, surface_distance};
use nalgebra::DVector;
use proptest::prelude::*;
use rand::RngExt;
use std::f64::consts::PI;

const ALPHA: f64 = 1e-8;
const N: usize = 40_000;

fn e1(dim: usize) -> DVector<f64> {
    DVector::from_fn(dim, |i, _| if i == 0 { 1.0 } else { 0.0 })
}

/// A uniform-ish random unit vector for property tests.
fn point(dim: usize) -> impl Strategy<Value = DVector<f64>> {
    proptest::collection::vec(-1.0..1.0f64, dim)
        .prop_filter("not too short", |v| v.iter().map(|a| a * a).sum::<f64>() > 1e-4)
        .prop_map(|v| DVector::from_vec(v).normalize())
}

/// Angles between input and release of `n` releases of `x` through `privatize_slice` (the batch path).
fn released_angles<M: Mechanism<Point = DVector<f64>>>(mech: &M, x: &DVector<f64>, seed: u64) -> Vec<f64> {
    let mut rng: ReleaseRng = seeded_rng_for_experiments(seed);
    let mut points = vec![x.clone(); N];
    mech.privatize_slice(&mut points, &mut rng).unwrap();
    points.iter().map(|z| surface_distance(x, z)).collect()
}

fn ks<L: AngularLaw>(angles: &mut [f64], law: &L) -> KsOutcome {
    ks_test(angles, |s| law.cdf_sorted(s), ALPHA)
}

// ------------------------------------------------------------------ privacy inequalities

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// VMF: ln p(z|x) − ln p(z|x′) = κ(x − x′)·z ≤ κ‖x − x′‖ ≤ κ d∠(x, x′), in every dimension.
    #[test]
    fn vmf_log_ratio_is_bounded_by_epsilon_chordal(x in point(5), y in point(5), z in point(5), eps in 1e-3..1e3f64) {
        let m = VmfSphere::new(5, eps).unwrap();
        let loss = m.log_density(&z, &x) - m.log_density(&z, &y);
        prop_assert!(loss <= eps * chordal_distance(&x, &y) * (1.0 + 1e-12) + 1e-12);
        prop_assert!(chordal_distance(&x, &y) <= surface_distance(&x, &y) + 1e-15);
    }

    /// Purkayastha: −κ d∠(z, x) + κ d∠(z, x′) ≤ κ d∠(x, x′) (triangle inequality).
    #[test]
    fn purkayastha_log_ratio_is_bounded_by_epsilon_surface(x in point(4), y in point(4), z in point(4), eps in 1e-3..1e3f64) {
        let m = PurkayasthaSphere::new(4, eps).unwrap();
        let loss = m.log_density(&z, &x) - m.log_density(&z, &y);
        prop_assert!(loss <= eps * surface_distance(&x, &y) * (1.0 + 1e-12) + 1e-12);
    }

    /// Wrapped Laplace: ln cosh(ε(π − d(z, x))) − ln cosh(ε(π − d(z, x′))) ≤ ε d(x, x′).
    #[test]
    fn wrapped_laplace_log_ratio_is_bounded_by_epsilon_surface(x in point(2), y in point(2), z in point(2), eps in 1e-3..1e3f64) {
        let m = WrappedLaplaceCircle::new(eps).unwrap();
        let loss = m.log_density(&z, &x) - m.log_density(&z, &y);
        prop_assert!(loss <= eps * surface_distance(&x, &y) * (1.0 + 1e-12) + 1e-9);
    }

    /// Planar Laplace: bounded by ε times the tangent-plane distance — which can exceed d∠.
    #[test]
    fn planar_laplace_log_ratio_is_bounded_by_epsilon_tangent(p in point(3), x in point(3), y in point(3), z in point(3), eps in 1e-3..1e3f64) {
        let m = TangentPlanarLaplace::new(p, eps).unwrap();
        let loss = m.log_density(&z, &x) - m.log_density(&z, &y);
        let d = (m.log_map(&x) - m.log_map(&y)).norm();
        prop_assert!(loss <= eps * d * (1.0 + 1e-12) + 1e-9);
        prop_assert!(d >= surface_distance(&x, &y) - 1e-9, "the log map never shortens distances on a sphere");
    }
}

#[test]
fn the_vmf_and_purkayastha_bounds_are_attained() {
    // The guarantee cannot be stated with a smaller ε: some output attains the bound.
    let x = e1(3);
    let y = DVector::from_column_slice(&[0.6, 0.8, 0.0]);
    let vmf = VmfSphere::new(3, 2.0).unwrap();
    let z = (&x - &y).normalize();
    let loss = vmf.log_density(&z, &x) - vmf.log_density(&z, &y);
    assert!((loss - 2.0 * chordal_distance(&x, &y)).abs() < 1e-12);
    let pur = PurkayasthaSphere::new(3, 2.0).unwrap();
    // z on the great circle through y and x, beyond x.
    let z = DVector::from_column_slice(&[0.6, -0.8, 0.0]);
    let loss = pur.log_density(&z, &x) - pur.log_density(&z, &y);
    assert!((loss - 2.0 * surface_distance(&x, &y)).abs() < 1e-12);
}

#[test]
fn guarantees_are_reported_as_data() {
    // Releases are rounded onto a public grid, which the guarantee names with its additive cost.
    let g = VmfSphere::new(3, 2.0).unwrap().guarantee();
    assert!(matches!(g, Guarantee::MetricDp { epsilon: 2.0, metric: Metric::SphereChordal, .. }));
    assert!(g.grid().is_some() && g.additive_epsilon() > 0.0 && g.additive_epsilon() < 1e-5);
    let g = PurkayasthaSphere::new(3, 2.0).unwrap().guarantee();
    assert!(matches!(g, Guarantee::MetricDp { epsilon: 2.0, metric: Metric::SphereSurface, .. }));
    assert!(g.grid().is_some() && g.additive_epsilon() > 0.0 && g.additive_epsilon() < 1e-5);
    assert_eq!(UniformSphere::new(3).unwrap().guarantee(), Guarantee::pure(0.0));
    // Pure DP for whole records: ε per unit times the diameter.
    let m = SphereMechanism::for_pure_dp(SphereKind::Vmf, 2, 1.0).unwrap();
    assert_eq!(m.concentration(), Some(0.5));
    let pure = m.pure_dp().epsilon().unwrap();
    assert!((1.0..1.0 + 1e-5).contains(&pure), "{pure}");
    let m = SphereMechanism::for_pure_dp(SphereKind::Purkayastha, 2, 1.0).unwrap();
    assert!((m.concentration().unwrap() - 1.0 / PI).abs() < 1e-15);
    assert!((m.pure_dp().epsilon().unwrap() - 1.0).abs() < 1e-5);
    assert!(SphereMechanism::for_epsilon(SphereKind::WrappedLaplace, 3, 1.0).is_err());
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(VmfSphere::new(3, bad).is_err() && PurkayasthaSphere::new(3, bad).is_err());
        assert!(WrappedLaplaceCircle::new(bad).is_err() && TangentPlanarLaplace::new(e1(3), bad).is_err());
    }
    assert!(VmfSphere::new(1, 1.0).is_err());
}

#[test]
fn radius_and_its_inverse_agree() {
    for kind in [SphereKind::Vmf, SphereKind::Purkayastha, SphereKind::WrappedLaplace] {
        for eps in [0.5, 10.0, 3000.0] {
            let m = SphereMechanism::for_epsilon(kind, 2, eps).unwrap();
            let rho = m.radius(0.683).unwrap();
            let back = SphereMechanism::epsilon_for_radius(kind, 2, rho, 0.683).unwrap();
            assert!((back / eps - 1.0).abs() < 1e-6, "{kind:?} {eps}: {back}");
        }
    }
}

// ------------------------------------------------------------------ released angles vs exact laws

#[test]
fn vmf_and_purkayastha_releases_follow_their_angle_laws() {
    let mut seed = 900;
    for dim in [2, 3, 10, 1000] {
        for eps in [0.1, 3.0, 1e4] {
            // An oblique input: the batch path must not depend on where x is.
            let x = DVector::from_fn(dim, |i, _| 1.0 / (1.0 + i as f64)).normalize();
            let vmf = VmfSphere::new(dim, eps).unwrap();
            let out = ks(&mut released_angles(&vmf, &x, seed), &vmf.angle_law());
            assert!(out.passed(), "VMF n = {dim}, eps = {eps}: KS {} > {}", out.statistic, out.critical);
            let pur = PurkayasthaSphere::new(dim, eps).unwrap();
            let out = ks(&mut released_angles(&pur, &x, seed + 1), &pur.angle_law());
            assert!(out.passed(), "Purkayastha n = {dim}, eps = {eps}: KS {} > {}", out.statistic, out.critical);
            seed += 2;
        }
    }
}

#[test]
fn wrapped_laplace_releases_follow_the_closed_form() {
    for (seed, eps) in (950..).zip([1e-3, 1.0, 100.0, 1e6]) {
        let m = WrappedLaplaceCircle::new(eps).unwrap();
        let x = DVector::from_column_slice(&[0.6, -0.8]);
        let out = ks(&mut released_angles(&m, &x, seed), &m.angle_law());
        assert!(out.passed(), "eps = {eps}: KS {} > {}", out.statistic, out.critical);
    }
}

#[test]
fn planar_laplace_noise_radius_is_gamma() {
    // At the reference point, d∠(p, z) is the noise radius ~ Gamma(2, 1/ε) on S² (no wrapping: P[r > π] <
    // e^{−60}); F(r) = 1 − e^{−εr}(1 + εr).
    let eps = 20.0;
    let p = DVector::from_column_slice(&[0.0, 0.6, 0.8]);
    let m = TangentPlanarLaplace::new(p.clone(), eps).unwrap();
    let mut rng: ReleaseRng = seeded_rng_for_experiments(970);
    let mut r: Vec<f64> = (0..N).map(|_| surface_distance(&p, &m.privatize(&p, &mut rng).unwrap())).collect();
    let gamma2 = |s: &[f64]| s.iter().map(|&r| 1.0 - (-eps * r).exp() * (1.0 + eps * r)).collect();
    let out = ks_test(&mut r, gamma2, ALPHA);
    assert!(out.passed(), "KS {} > {}", out.statistic, out.critical);
    // Negative control: an exponential radius (the 1-D Laplace's) is rejected by the same test.
    let mut wrong: Vec<f64> = (0..N).map(|_| -(1.0 - rng.random::<f64>()).ln() / eps).collect();
    assert!(!ks_test(&mut wrong, gamma2, ALPHA).passed());
}

#[test]
fn uniform_baseline_is_uniform() {
    // On S², z·e₁ is uniform on [−1, 1] (Archimedes).
    let m = UniformSphere::new(3).unwrap();
    let x = e1(3);
    let mut rng: ReleaseRng = seeded_rng_for_experiments(980);
    let mut w: Vec<f64> = (0..N).map(|_| m.privatize(&x, &mut rng).unwrap()[0]).collect();
    let uniform = |s: &[f64]| s.iter().map(|w| 0.5 * (w + 1.0)).collect();
    assert!(ks_test(&mut w, uniform, ALPHA).passed());
    // Negative control: a faintly concentrated VMF (κ = 0.1) is not uniform.
    let vmf = VmfSphere::new(3, 0.1).unwrap();
    let mut w: Vec<f64> = (0..N).map(|_| vmf.privatize(&x, &mut rng).unwrap()[0]).collect();
    assert!(!ks_test(&mut w, uniform, ALPHA).passed());
}

#[test]
fn negative_controls_are_rejected() {
    let x = e1(3);
    // A VMF mechanism calibrated at κ = 2ε, tested against the law at ε.
    let wrong = VmfSphere::new(3, 2.0).unwrap();
    let out = ks(&mut released_angles(&wrong, &x, 990), &SphereAngle::new(3, 1.0).unwrap());
    assert!(!out.passed(), "VMF at doubled κ passed: KS {}", out.statistic);
    // Purkayastha confused with VMF at the same κ.
    let pur = PurkayasthaSphere::new(3, 5.0).unwrap();
    let out = ks(&mut released_angles(&pur, &x, 991), &SphereAngle::new(3, 5.0).unwrap());
    assert!(!out.passed(), "Purkayastha passed as VMF: KS {}", out.statistic);
    // Laplace noise clipped to [−π, π] instead of wrapped, at a small ε where they differ.
    let law = WrappedLaplaceAngle::new(0.2).unwrap();
    let wl = WrappedLaplaceCircle::new(0.2).unwrap();
    let mut rng: ReleaseRng = seeded_rng_for_experiments(992);
    let mut clipped: Vec<f64> = (0..N).map(|_| wl.sample_shift(&mut rng).abs().min(PI)).collect();
    let out = ks(&mut clipped, &law);
    assert!(!out.passed(), "clipped Laplace passed as wrapped: KS {}", out.statistic);
}

#[test]
fn a_point_of_the_wrong_dimension_is_an_error() {
    let mut rng: ReleaseRng = seeded_rng_for_experiments(1);
    let e = VmfSphere::new(3, 1.0).unwrap().privatize(&e1(2), &mut rng).unwrap_err();
    assert_eq!(e, manifold_dp::Error::WrongLength { expected: 3, got: 2 });
}
