//! At the library's depth: validated constructors refuse parameters outside the
//! ranges the samplers are proven exact and tested for, sizes are bounded before anything is allocated, and
//! numeric searches end (with an error where they cannot succeed) instead of looping.

use manifold_dp::Error;
use manifold_dp::analysis::gaussian_dp::gdp_epsilon;
use manifold_dp::audit::auditor::{AuditConfig, MAX_AUDIT_SAMPLES};
use manifold_dp::audit::catalog::{self, AuditRequest, AuditSpace};
use manifold_dp::manifold::Sphere;
use manifold_dp::mechanism::{
    BinghamSo3, LaplaceSo3, MAX_EPSILON, MIN_EPSILON, PurkayasthaSphere, SphereKind, SphereMechanism, VmfSphere,
    WrappedLaplaceCircle,
};
use manifold_dp::sample::bingham_so3::BinghamSo3Noise;
use manifold_dp::sample::purkayastha::PurkayasthaNoise;
use manifold_dp::sample::rng::StreamKey;
use manifold_dp::space::sphere::MAX_SPHERE_DIM;

fn names_the_range<T: std::fmt::Debug>(r: Result<T, Error>) {
    let e = r.expect_err("out of range");
    assert!(matches!(e, Error::InvalidParameter { .. }), "{e:?}");
    assert!(e.to_string().contains("1e-6, 1e6") || e.to_string().contains("2e-6, 2e6"), "{e}");
}

#[test]
fn mechanisms_accept_exactly_the_tested_range_of_epsilon() {
    for bad in [1e100, 1e160, 1e7, 9.9e-7, 1e-300] {
        names_the_range(LaplaceSo3::new(bad));
        names_the_range(BinghamSo3::new(bad));
        names_the_range(VmfSphere::new(3, bad));
        names_the_range(PurkayasthaSphere::new(3, bad));
        names_the_range(WrappedLaplaceCircle::new(bad));
        for kind in [SphereKind::Vmf, SphereKind::Purkayastha] {
            names_the_range(SphereMechanism::for_epsilon(kind, 5, bad));
        }
    }
    names_the_range(BinghamSo3::with_concentration(1e160));
    for good in [MIN_EPSILON, 1.0, MAX_EPSILON] {
        assert!(LaplaceSo3::new(good).is_ok() && BinghamSo3::new(good).is_ok());
        assert!(VmfSphere::new(3, good).is_ok() && PurkayasthaSphere::new(3, good).is_ok());
        assert!(WrappedLaplaceCircle::new(good).is_ok());
    }
    // The samplers themselves refuse the concentrations where their rejection loops never accept.
    assert!(PurkayasthaNoise::new(3, 1e100).is_err());
    assert!(BinghamSo3Noise::new(1e160).is_err());
}

#[test]
fn sphere_dimensions_are_bounded() {
    assert!(Sphere::new(MAX_SPHERE_DIM).is_ok());
    for dim in [MAX_SPHERE_DIM + 1, 10_000_000_000_000, usize::MAX] {
        assert!(Sphere::new(dim).is_err());
        assert!(VmfSphere::new(dim, 1.0).is_err());
        assert!(PurkayasthaSphere::new(dim, 1.0).is_err());
    }
}

#[test]
fn audit_spaces_and_budgets_are_checked_before_allocating() {
    // spd:4294967296 segfaulted (a k×k identity built before k was checked); sphere:usize::MAX panicked.
    for space in
        [AuditSpace::Spd { k: 4_294_967_296 }, AuditSpace::Spd { k: 65_536 }, AuditSpace::Sphere { dim: usize::MAX }]
    {
        let mechanism = if matches!(space, AuditSpace::Spd { .. }) { "riemannian-laplace" } else { "vmf" };
        assert!(catalog::build(&AuditRequest::new(space, mechanism, Some(1.0))).is_err(), "{space}");
    }
    let target = catalog::build(&AuditRequest::new(AuditSpace::So3, "laplace", Some(1.0))).unwrap();
    let key = StreamKey::from_seed_for_experiments(1);
    // α so small that its share per bound is 0 panicked in Clopper–Pearson; 1.8e19 draws aborted on allocation.
    for config in [
        AuditConfig::with_samples(1000, 5e-324),
        AuditConfig::with_samples(MAX_AUDIT_SAMPLES + 1, 1e-6),
        AuditConfig::with_samples(18_000_000_000_000_000_000, 1e-6),
    ] {
        let e = target.run(&config, &key, &|_| {}).expect_err("refused");
        assert!(matches!(e, Error::InvalidParameter { .. }), "{e:?}");
    }
}

#[test]
fn gdp_conversion_at_absurd_mu_ends_with_an_error() {
    // It ran 2⁴⁰ quadrature steps per evaluation on a NaN integrand.
    assert!(matches!(gdp_epsilon(1e155, 1e-6), Err(Error::NumericalLimit(_))));
    assert!(gdp_epsilon(1.0, 1e-6).is_ok());
}

#[test]
fn error_messages_quote_values_briefly() {
    let e = LaplaceSo3::new(1e300).unwrap_err().to_string();
    assert!(e.contains("epsilon = 1e300"), "{e}");
    assert!(e.len() < 200, "{e}");
}
