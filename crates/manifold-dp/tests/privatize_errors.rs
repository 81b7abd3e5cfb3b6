//! A single-point release never panics on any input: the SPD release in a public ball (whose exact draw can
//! be unrepresentable in double precision, and whose input is whitened and moved onto the ball) returns an
//! error for a malformed input or an unrepresentable draw, through the library and through the audit.

use manifold_dp::Error;
use manifold_dp::audit::auditor::AuditConfig;
use manifold_dp::audit::catalog::{self, AuditRequest, AuditSpace};
use manifold_dp::manifold::SpdAffine;
use manifold_dp::mechanism::{Mechanism, RiemannianLaplace};
use manifold_dp::sample::rng::{StreamKey, seeded_rng_for_experiments};
use manifold_dp::space::spd::{MAX_CONDITION, expm, spd_from_row_major};
use nalgebra::DMatrix;
use std::panic::{AssertUnwindSafe, catch_unwind};

fn diag(a: f64, b: f64) -> DMatrix<f64> {
    DMatrix::from_row_slice(2, 2, &[a, 0.0, 0.0, b])
}

/// The worst inputs the parser passes (condition number at its limit, entries near the largest double, points
/// on and just beyond the ball's edge), and malformed ones only a library caller can pass.
fn inputs(radius: f64) -> Vec<DMatrix<f64>> {
    // exp of a symmetric direction of norm t: a point at affine-invariant distance t from I.
    let at = |t: f64| expm(&(DMatrix::from_row_slice(2, 2, &[1.0, 0.5, 0.5, -1.0]) * (t / 2.5f64.sqrt())));
    let mut v = vec![
        diag(MAX_CONDITION, 1.0),
        diag(1.0, 1.0 / MAX_CONDITION),
        diag(1e300, 1e300 / MAX_CONDITION),
        diag(1e-300 * MAX_CONDITION, 1e-300),
        spd_from_row_major(&[1e12, 1e6 - 1.0, 1e6 - 1.0, 1.0], 2, 1e-9).unwrap_or_else(|_| diag(1e12, 1.0)),
        at(radius),
        at(radius * (1.0 - 1e-12)),
        at(radius * (1.0 + 1e-12)),
        at(10.0 * radius),
        at(700.0),
    ];
    v.extend([
        diag(f64::NAN, 1.0),
        diag(f64::INFINITY, 1.0),
        diag(-1.0, 1.0),
        diag(0.0, 1.0),
        DMatrix::from_row_slice(2, 2, &[1e300, 1e150, 1e150, 1.0]),
        DMatrix::identity(3, 3),
        DMatrix::zeros(0, 0),
    ]);
    v
}

#[test]
fn the_spd_ball_release_returns_errors_never_panics() {
    let centers = [diag(1.0, 1.0), diag(1e3, 1e-3), diag(1e300, 1e300)];
    let mut built = 0;
    for center in &centers {
        for radius in [1e-9, 0.1, 1.0, 2.0, 5.0, 8.0, 20.0] {
            for sigma in [1e-9, 1e-3, 0.1, 0.5, 1.0, 3.0] {
                let Ok(m) = RiemannianLaplace::in_ball(SpdAffine::new(2).unwrap(), sigma, center, radius) else {
                    continue;
                };
                built += 1;
                for (j, x) in inputs(radius).iter().enumerate() {
                    let mut rng = seeded_rng_for_experiments(j as u64);
                    let out = catch_unwind(AssertUnwindSafe(|| {
                        (0..50)
                            .map(|_| m.privatize(x, &mut rng))
                            .find(Result::is_err)
                            .unwrap_or(Ok(DMatrix::zeros(0, 0)))
                    }));
                    let out = out.unwrap_or_else(|_| panic!("panicked at centre {center}, r {radius}, σ {sigma}: {x}"));
                    // Finite matrices that are not positive definite are moved onto the ball like any far input.
                    let malformed = x.shape() != (2, 2) || x.iter().any(|v| !v.is_finite());
                    match out {
                        Err(e) if malformed => {
                            assert!(matches!(e, Error::WrongLength { .. } | Error::NonFinite { .. }), "{e:?}")
                        }
                        Err(e) => assert!(matches!(e, Error::Unrepresentable(_)), "{e:?}"),
                        Ok(_) => assert!(!malformed, "a malformed input was released: {x}"),
                    }
                }
                let mut xs = inputs(radius);
                assert!(
                    catch_unwind(AssertUnwindSafe(|| m.privatize_slice(&mut xs, &mut seeded_rng_for_experiments(1))))
                        .expect("no panic")
                        .is_err()
                );
            }
        }
    }
    assert!(built >= 10, "only {built} mechanisms built: the grid misses the accepted range");
}

#[test]
fn malformed_inputs_are_named() {
    let m = RiemannianLaplace::in_ball(SpdAffine::new(2).unwrap(), 0.1, &diag(1.0, 1.0), 1.0).unwrap();
    let mut rng = seeded_rng_for_experiments(3);
    assert_eq!(m.privatize(&DMatrix::identity(3, 3), &mut rng), Err(Error::WrongLength { expected: 4, got: 9 }));
    let nan = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, f64::NAN, 1.0]);
    assert!(matches!(m.privatize(&nan, &mut rng), Err(Error::NonFinite { component: 2, .. })));
    assert!(m.privatize(&diag(-1.0, 1.0), &mut rng).is_ok(), "moved onto the ball as any far input");
}

/// The audit draws SPD releases in a public ball at pairs of its own: at every ε it accepts, it ends with a
/// report or an error.
#[test]
fn the_spd_audit_ends_with_a_report_or_an_error_at_every_epsilon() {
    let key = StreamKey::from_seed_for_experiments(5);
    for k in [2, 3] {
        for eps in [1e-6, 1e-2, 1.0, 1e2, 1e4, 1e6] {
            let request = AuditRequest::new(AuditSpace::Spd { k }, "riemannian-laplace", Some(eps));
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let target = catalog::build(&request)?;
                target.run(&AuditConfig::with_samples(1000, 1e-3), &key, &|_| {}).map(|_| ())
            }));
            assert!(outcome.is_ok(), "the audit of spd:{k} at ε = {eps} panicked");
        }
    }
}

/// A point of another sphere, or with a NaN coordinate, is an error of every sphere mechanism's release (it was
/// an assertion), and the slice forms check every point before drawing any.
#[test]
fn sphere_mechanisms_refuse_malformed_points() {
    use manifold_dp::mechanism::{SphereKind, SphereMechanism, TangentPlanarLaplace, UniformSphere};
    use nalgebra::DVector;
    let unit = DVector::from_vec(vec![1.0, 0.0, 0.0]);
    let mechanisms = [
        SphereMechanism::for_epsilon(SphereKind::Vmf, 3, 1.0).unwrap(),
        SphereMechanism::for_epsilon(SphereKind::Purkayastha, 3, 1.0).unwrap(),
    ];
    let circle = SphereMechanism::for_epsilon(SphereKind::WrappedLaplace, 2, 1.0).unwrap();
    let planar = TangentPlanarLaplace::new(unit.clone(), 1.0).unwrap();
    let uniform = UniformSphere::new(3).unwrap();
    let mut rng = seeded_rng_for_experiments(9);
    let short = DVector::from_vec(vec![1.0, 0.0]);
    let nan = DVector::from_vec(vec![1.0, f64::NAN, 0.0]);
    for m in &mechanisms {
        assert_eq!(m.privatize(&short, &mut rng), Err(Error::WrongLength { expected: 3, got: 2 }));
        assert!(matches!(m.privatize(&nan, &mut rng), Err(Error::NonFinite { component: 1, .. })));
        let mut xs = vec![unit.clone(), short.clone()];
        assert!(m.privatize_each(&mut xs, |i| seeded_rng_for_experiments(i as u64)).is_err());
        assert_eq!(xs[0], unit, "nothing is drawn before every point is checked");
    }
    assert_eq!(circle.privatize(&unit, &mut rng), Err(Error::WrongLength { expected: 2, got: 3 }));
    assert_eq!(planar.privatize(&short, &mut rng), Err(Error::WrongLength { expected: 3, got: 2 }));
    assert_eq!(uniform.privatize(&short, &mut rng), Err(Error::WrongLength { expected: 3, got: 2 }));
}
