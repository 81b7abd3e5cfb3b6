use super::sphere::{folded_gamma_cdf, uniform_angle_cdf};
use super::*;
use crate::analysis::{AngularLaw, WrappedLaplaceAngle};
use std::f64::consts::PI;

/// Writes options as `<name|value>`.
struct Marked;

impl Spelling for Marked {
    fn option(&self, name: &str, value: Shown<'_>) -> String {
        match value {
            Shown::Number(v) | Shown::Text(v) => format!("<{name}|{v}>"),
            _ => format!("<{name}>"),
        }
    }
}

#[test]
fn an_audit_request_applies_the_front_ends_common_rules() {
    let refusal = |r: AuditRequest| r.plan(&Marked).err().map(|e| e.to_string()).unwrap_or_default();
    let so3 = AuditRequest::named("so3", "laplace", Some(1.0)).unwrap();
    assert!(refusal(AuditRequest { samples: Some(500), ..so3.clone() }).contains("<samples|500> is out of range"));
    assert!(refusal(AuditRequest { alpha: 0.0, ..so3.clone() }).contains("<alpha|0> must lie in"));
    assert!(refusal(AuditRequest { llr_resolution: 1.0, ..so3.clone() }).contains("<llr_resolution|1>"));
    let bare = AuditRequest::named("so3", "laplace", None).unwrap();
    assert!(refusal(bare.clone()).contains("give the claimed <epsilon|E>"));
    let half = AuditRequest { protect: Some("10deg".into()), ..bare.clone() };
    assert!(refusal(half).contains("go together"));
    // protect is read in the named space's units: 2 km on latlon is ε = R/2 per radian.
    let latlon = AuditRequest {
        protect: Some("2km".into()),
        level: Some(1.0),
        ..AuditRequest::named("latlon", "purkayastha", None).unwrap()
    };
    let eps = latlon.claimed_epsilon(&Marked).unwrap().unwrap();
    assert!((eps / (crate::space::sphere::EARTH_RADIUS_KM / 2.0) - 1.0).abs() < 1e-12, "{eps}");
    assert_eq!(latlon.plan(&Marked).map(|(_, c)| c.samples).ok(), Some(DEFAULT_AUDIT_SAMPLES));
    let spd = AuditRequest::named("spd:2", "log-euclidean-laplace", Some(1.0)).unwrap();
    assert_eq!(spd.plan(&Marked).map(|(_, c)| c.samples).ok(), Some(DEFAULT_SPD_AUDIT_SAMPLES));
    assert!(AuditRequest::named("torus", "laplace", Some(1.0)).is_err());
}

#[test]
fn audit_spaces_are_the_registry_s_and_real() {
    for (text, space) in [
        ("so3", AuditSpace::So3),
        ("SO3", AuditSpace::So3),
        ("timeofday", AuditSpace::Sphere { dim: 2 }),
        ("circle", AuditSpace::Sphere { dim: 2 }),
        ("latlon", AuditSpace::Sphere { dim: 3 }),
        ("sphere:10", AuditSpace::Sphere { dim: 10 }),
        ("spd:1", AuditSpace::Spd { k: 1 }),
        (" real ", AuditSpace::Real),
    ] {
        assert_eq!(text.parse::<AuditSpace>().unwrap(), space, "{text}");
    }
    for bad in ["bogus", "spd:65", "sphere:1", "spd:4294967296", ""] {
        let e = bad.parse::<AuditSpace>().unwrap_err().to_string();
        assert!(e.contains("or real"), "{bad}: {e}");
    }
    // The catalog refuses what the samplers do not cover, with the library's reason.
    assert!(build(&AuditRequest::new(AuditSpace::Spd { k: 1 }, "riemannian-laplace", Some(1.0))).is_err());
}

#[test]
fn refusals_are_classified() {
    let refused = |r: AuditRequest| build(&r).err().expect("refused");
    let laplace = |eps| AuditRequest::new(AuditSpace::So3, "laplace", eps);
    assert!(matches!(refused(AuditRequest::new(AuditSpace::So3, "nope", Some(1.0))), Error::NotApplicable(_)));
    assert!(matches!(
        refused(AuditRequest { concentration: Some(2.0), ..laplace(Some(1.0)) }),
        Error::NotApplicable(_)
    ));
    assert!(matches!(refused(laplace(None)), Error::Incomplete(_)));
}

#[test]
fn every_listed_name_builds_and_unknown_names_are_refused() {
    for space in [
        AuditSpace::So3,
        AuditSpace::Sphere { dim: 2 },
        AuditSpace::Sphere { dim: 3 },
        AuditSpace::Spd { k: 2 },
        AuditSpace::Real,
    ] {
        for name in mechanism_names(space) {
            let r = AuditRequest::new(space, name, Some(2.0));
            assert!(build(&r).is_ok(), "{name} on {space}");
        }
        let r = AuditRequest::new(space, "nope", Some(1.0));
        assert!(build(&r).is_err());
    }
    let r = AuditRequest::new(AuditSpace::So3, "control:laplace-x1.5", Some(1.0));
    assert!(build(&r).is_ok());
    // The log-Euclidean Gaussian mean: 2 ≤ K ≤ 8, with or without a delta.
    for k in [2, 5, 8] {
        let mut r = AuditRequest::new(AuditSpace::Spd { k }, "log-euclidean-gaussian-mean", Some(1.0));
        assert!(build(&r).is_ok(), "{k}");
        r.delta = Some(1e-3);
        assert!(build(&r).is_ok(), "{k}");
    }
    for k in [1, 9] {
        let r = AuditRequest::new(AuditSpace::Spd { k }, "log-euclidean-gaussian-mean", Some(1.0));
        assert!(build(&r).is_err(), "{k}");
    }
    // The affine-invariant Gaussian mean: 2 ≤ K ≤ 3.
    for (k, ok) in [(1, false), (2, true), (3, true), (4, false)] {
        for name in ["affine-gaussian-mean", "control:affine-gaussian-mean-half-sigma"] {
            let r = AuditRequest::new(AuditSpace::Spd { k }, name, Some(1.0));
            assert_eq!(build(&r).is_ok(), ok, "{name} on spd:{k}");
        }
    }
    // --delta and --order only where they mean something.
    let mut r = AuditRequest::new(AuditSpace::Real, "laplace", Some(1.0));
    r.delta = Some(1e-3);
    assert!(build(&r).is_err());
    let mut r = AuditRequest::new(AuditSpace::Real, "gaussian", Some(1.0));
    r.order = Some(4);
    assert!(build(&r).is_err());
    for delta in [0.0, 1.0, f64::NAN] {
        r = AuditRequest::new(AuditSpace::Real, "gaussian", Some(1.0));
        r.delta = Some(delta);
        assert!(build(&r).is_err(), "{delta}");
    }
}

#[test]
fn generalized_gaussian_calibration_claims_at_most_the_requested_epsilon() {
    for order in [2, 3, 8] {
        let m = GeneralizedGaussianOnReals::calibrate(order, 1.0, 1e-2).unwrap();
        let Guarantee::ApproxDp { epsilon, delta } = m.guarantee() else { panic!("{:?}", m.guarantee()) };
        assert_eq!(delta, 1e-2);
        assert!(epsilon <= 1.0 && epsilon > 1.0 - 1e-6, "order {order}: {epsilon}");
    }
}

#[test]
fn reference_cdfs_are_distribution_functions() {
    let u = uniform_angle_cdf(2);
    let v = u(&[0.0, PI / 2.0, PI]);
    assert!((v[1] - 0.5).abs() < 1e-12 && v[0] == 0.0 && (v[2] - 1.0).abs() < 1e-12);
    // S²: uniform angle has CDF (1 − cos θ)/2.
    let u3 = uniform_angle_cdf(3);
    assert!((u3(&[1.0])[0] - (1.0 - 1f64.cos()) / 2.0).abs() < 1e-12);
    // Circle: the folded exponential is the wrapped Laplace angle law.
    let folded = folded_gamma_cdf(2, 0.7);
    let wrapped = WrappedLaplaceAngle::new(0.7).unwrap();
    for a in [0.1, 1.0, 2.5, PI] {
        assert!((folded(&[a])[0] - wrapped.cdf(a)).abs() < 1e-12, "{a}");
    }
}
