//! The samplers' negligible δ (`docs/proofs/float_safety.md` §6): printed on every release that draws through
//! one of the events, absent (and not serialised) elsewhere, summed by composition, carried or refused by
//! conversion.

use manifold_dp::mechanism::{BinghamSo3, LaplaceSo3, Mechanism, PurkayasthaSphere, TangentPlanarLaplace};
use manifold_dp::privacy::float_safety::{negligible_delta, with_negligible_events};
use manifold_dp::privacy::{Guarantee, Metric, Target, compose, compose_parallel, convert};
use manifold_dp::sample::normal::DIRECTION_EVENT_PROBABILITY;
use nalgebra::DVector;

#[test]
fn the_delta_is_the_event_bound_times_one_plus_the_largest_ratio() {
    // δ = δ_B(1 + e^L), rounded up.
    let d = negligible_delta(1e-300, 0.0);
    assert!((2e-300..=2e-300 * (1.0 + 1e-11)).contains(&d), "{d:e}");
    let d = negligible_delta(1e-300, 10.0);
    let exact = 1e-300 * (1.0 + 10f64.exp());
    assert!(d >= exact && d <= exact * (1.0 + 1e-11), "{d:e}");
    // Below the normal range: raised to 2^-1022 (a larger δ is a weaker claim); beyond 1: capped at 1.
    assert!(negligible_delta(f64::MIN_POSITIVE, 0.0) >= 2.0 * f64::MIN_POSITIVE);
    assert_eq!(negligible_delta(1e-320, 0.0), f64::MIN_POSITIVE);
    assert_eq!(negligible_delta(1e-300, 800.0), 1.0);
    assert_eq!(negligible_delta(0.0, 5.0), 0.0);
    // A metric guarantee keeps the base δ_B; its δ between inputs d apart is δ_B(1 + e^{ε·d + ε₀}).
    let g = with_negligible_events(Guarantee::metric_dp_in(2.0, Metric::SphereSurface, "rad", 0.5), 1e-300);
    assert_eq!(g.delta(), 1e-300);
    let at3 = g.metric_delta_at(3.0).unwrap();
    assert!(at3 >= 1e-300 * (1.0 + 6.5f64.exp()) && at3 <= 1e-300 * (1.0 + 6.5f64.exp()) * 1.000001, "{at3:e}");
    assert_eq!(g.metric_delta_at(1e6), Some(1.0));
    // A pure one (neighbours, loss ε) gets the number δ_B(1 + e^ε).
    let p = with_negligible_events(Guarantee::pure(1.0), 1e-300);
    assert_eq!(p.delta(), negligible_delta(1e-300, 1.0));
}

/// A fine local release (latlon at 2 km: 0.5 per km, ε·π ≈ 10⁴ per rad of diameter) prints its δ per pair of
/// inputs, tiny at the distances it protects; the number at the diameter (1, vacuous) is never printed.
#[test]
fn a_fine_local_release_prints_its_delta_per_pair_never_at_the_diameter() {
    let r = manifold_dp::space::sphere::EARTH_RADIUS_KM;
    let g = PurkayasthaSphere::new(3, r / 2.0).unwrap().guarantee().in_unit("km", 1.0 / r);
    let text = g.to_string();
    assert!(text.contains("per km") && text.contains(" + delta(d) ≤ 1e-300·(1 + exp(epsilon·d + "), "{text}");
    // Negative control: the diameter form, δ_B(1 + e^{ε·D + ε₀}) = 1, would print "delta ≤ 1".
    assert!(!text.contains("delta ≤ 1 ") && !text.ends_with("delta ≤ 1"), "{text}");
    let at_2km = g.metric_delta_at(2.0).unwrap();
    assert!(at_2km > 1e-300 * (1.0 + 1f64.exp()) && at_2km < 4e-300, "{at_2km:e}");
    let at_1000km = g.metric_delta_at(1000.0).unwrap();
    assert!(at_1000km > 1e-84 && at_1000km < 1e-82, "{at_1000km:e}");
    let half_earth = std::f64::consts::PI * r;
    assert_eq!(g.metric_delta_at(half_earth), Some(1.0), "the diameter form, vacuous");
    let json = serde_json::to_value(g).unwrap();
    assert!(json.get("delta").is_none() && json["delta_base"].as_f64().is_some_and(|d| d < 1.01e-300), "{json}");
}

#[test]
fn releases_through_an_event_print_their_delta_and_the_others_none() {
    let through = [
        (
            "Purkayastha S²",
            PurkayasthaSphere::new(3, 1.0).unwrap().guarantee(),
            1e-300 * (1.0 + std::f64::consts::PI.exp()),
        ),
        (
            "Purkayastha S³",
            PurkayasthaSphere::new(4, 1.0).unwrap().guarantee(),
            2e-300 * (1.0 + std::f64::consts::PI.exp()),
        ),
        ("Bingham SO(3)", BinghamSo3::new(1.0).unwrap().guarantee(), 1e-300 * (1.0 + std::f64::consts::PI.exp())),
    ];
    for (name, g, at_least) in through {
        // At the diameter π (ε₀ > 0 only raises it): at least the ε₀-free value, below 1e-290.
        let at_pi = g.metric_delta_at(std::f64::consts::PI).unwrap();
        assert!(at_pi >= at_least && at_pi < 1e-290, "{name}: {g:?}");
        let json = serde_json::to_string(&g).unwrap();
        assert!(json.contains("\"delta_base\":") && !json.contains("\"delta\":"), "{name}: {json}");
        assert!(g.to_string().contains(" + delta(d) ≤ "), "{name}: {g}");
        assert_eq!(serde_json::from_str::<Guarantee>(&json).unwrap(), g, "{name}");
    }
    let planar = TangentPlanarLaplace::new(DVector::from_column_slice(&[0.0, 0.0, 1.0]), 1.0).unwrap().guarantee();
    assert_eq!(planar.delta(), DIRECTION_EVENT_PROBABILITY, "{planar:?}");
    // The circle's Purkayastha (inversion, no direction) and the SO(3) Laplace draw through none.
    for (name, g) in [
        ("Purkayastha circle", PurkayasthaSphere::new(2, 1.0).unwrap().guarantee()),
        ("Laplace SO(3)", LaplaceSo3::new(1.0).unwrap().guarantee()),
    ] {
        assert_eq!(g.delta(), 0.0, "{name}");
        let json = serde_json::to_string(&g).unwrap();
        assert!(!json.contains("delta"), "{name}: {json}");
        assert!(!g.to_string().contains("delta"), "{name}: {g}");
    }
}

#[test]
fn composition_sums_the_deltas_and_conversion_keeps_them_truthful() {
    let a = Guarantee::pure(1.0).with_delta(1e-300);
    let b = Guarantee::pure(0.5).with_delta(3e-300);
    let total = compose(&[a, b, Guarantee::pure(0.25)]).unwrap();
    assert_eq!(total.epsilon(), Some(1.75));
    // Negative control: a composition that dropped the δ's (or kept only the first) would fail here.
    assert!(total.delta() >= 4e-300 && total.delta() <= 4e-300 * (1.0 + 1e-15), "{total:?}");
    // Printed rounded up in its sixth digit.
    assert!(total.to_string().ends_with("+ delta ≤ 4.00001e-300"), "{total}");
    assert_eq!(compose_parallel(&[a, b]).unwrap().delta(), 3e-300);
    let m = Guarantee::metric_dp(1.0, Metric::SphereSurface).with_delta(1e-300);
    let mm = compose(&[m, m]).unwrap();
    // Σδ_B with the composed ε: Σ δ_Bᵢ(1 + e^{εᵢd}) ≤ (Σ δ_Bᵢ)(1 + e^{(Σεᵢ)d}). Negative control: dropped or
    // kept once, the base would be 1e-300.
    assert!(mm.delta() >= 2e-300 && mm.delta() <= 2e-300 * (1.0 + 1e-15), "{mm:?}");
    let (one, two) = (m.metric_delta_at(1.5).unwrap(), mm.metric_delta_at(1.5).unwrap());
    assert!(two >= 2.0 * one && two >= 2e-300 * (1.0 + 3f64.exp()), "{one:e} {two:e}");
    // Pure with δ > 0: (ε, δ) yes; GDP up to the same δ (within total variation δ of an ε-DP release); zCDP,
    // which has no δ, refused; metric → pure keeps the δ.
    assert_eq!(
        convert(&a, Target::Approx { delta: None, epsilon: None }).unwrap(),
        Guarantee::ApproxDp { epsilon: 1.0, delta: 1e-300 }
    );
    let as_gdp = convert(&a, Target::Gdp).unwrap();
    assert_eq!(
        as_gdp,
        Guarantee::gdp_with_delta(convert(&Guarantee::pure(1.0), Target::Gdp).unwrap().mu().unwrap(), 1e-300)
    );
    assert!(convert(&a, Target::Zcdp).is_err());
    assert!(convert(&Guarantee::pure(1.0), Target::Zcdp).is_ok());
    // Metric → pure at the diameter D: ε·D and δ_B(1 + e^{ε·D}), both at D.
    let pure_m = convert(&m, Target::Pure { diameter: Some(std::f64::consts::PI) }).unwrap();
    assert_eq!(pure_m.delta(), m.metric_delta_at(std::f64::consts::PI).unwrap());
    assert!(pure_m.delta() >= 1e-300 * (1.0 + std::f64::consts::PI.exp()), "{pure_m:?}");
    // A change of unit keeps δ_B (ε·d does not change).
    let deg = convert(&m, Target::Metric { metric: Metric::SphereSurface, unit: "deg" }).unwrap();
    assert_eq!(deg.delta(), 1e-300);
    // Without δ nothing changes in the JSON.
    assert_eq!(serde_json::to_string(&Guarantee::pure(1.0)).unwrap(), r#"{"notion":"pure_dp","epsilon":1.0}"#);
    // A budget's δ caps only when stated.
    assert!(total.fits_within(&Guarantee::pure(2.0)).unwrap());
    assert!(!total.fits_within(&Guarantee::pure(2.0).with_delta(1e-300)).unwrap());
    assert!(total.fits_within(&Guarantee::pure(2.0).with_delta(1e-299)).unwrap());
}

/// μ-GDP up to δ (the Riemannian Gaussian's certificate tail and far piece, `accounting.md`, "GDP up to δ"):
/// printed and serialised only when δ > 0, summed by composition, added as δ·(1 + e^ε) by the conversion to
/// (ε, δ), refused as zCDP, capped by a budget only where it states a δ.
#[test]
fn a_gdp_delta_is_printed_composed_and_converted() {
    use manifold_dp::analysis::gaussian_dp::gdp_delta;
    let plain = Guarantee::gdp(1.0);
    assert_eq!(serde_json::to_string(&plain).unwrap(), r#"{"notion":"gdp","mu":1.0}"#);
    assert_eq!(plain.to_string(), "Gaussian DP, mu = 1");
    let g = Guarantee::gdp_with_delta(1.0, 2e-280);
    let json = serde_json::to_string(&g).unwrap();
    assert_eq!(json, r#"{"notion":"gdp","mu":1.0,"delta":2e-280}"#);
    assert_eq!(serde_json::from_str::<Guarantee>(&json).unwrap(), g);
    assert_eq!(g.to_string(), "Gaussian DP, mu = 1 + delta ≤ 2e-280");
    assert_eq!((g.delta(), plain.with_delta(2e-280)), (2e-280, g));
    assert!(Guarantee::gdp_with_delta(1.0, 1.5).validate().is_err());
    // Composition: μ in quadrature, δ summed (negative control: a sum that dropped them would be 0 or 2e-280).
    let total = compose(&[g, g, plain]).unwrap();
    assert!((total.mu().unwrap() - 3f64.sqrt()).abs() < 1e-12, "{total}");
    assert!(total.delta() >= 4e-280 && total.delta() <= 4e-280 * (1.0 + 1e-15), "{total:?}");
    assert_eq!(compose_parallel(&[g, plain]).unwrap().delta(), 2e-280);
    // (ε, δ): the exact curve plus δ·(1 + e^ε), at a given ε and at a given δ.
    let at_e = convert(&g, Target::Approx { delta: None, epsilon: Some(2.0) }).unwrap();
    let curve = gdp_delta(1.0, 2.0).unwrap();
    assert_eq!(at_e.epsilon(), Some(2.0));
    assert!(at_e.delta() >= curve + 2e-280 * (1.0 + 2f64.exp()) && at_e.delta() <= curve * (1.0 + 1e-12) + 1e-278);
    let at_d = convert(&g, Target::Approx { delta: Some(1e-6), epsilon: None }).unwrap();
    let exact = convert(&plain, Target::Approx { delta: Some(1e-6), epsilon: None }).unwrap();
    assert_eq!(at_d.epsilon(), exact.epsilon());
    assert!(at_d.delta() > 1e-6, "{at_d:?}");
    // Negative control: without δ the curve is unchanged.
    assert_eq!(exact.delta(), 1e-6);
    assert!(convert(&g, Target::Zcdp).is_err() && convert(&plain, Target::Zcdp).is_ok());
    assert_eq!(convert(&g, Target::Gdp).unwrap(), g);
    // A budget caps δ only where it states one.
    assert!(g.fits_within(&Guarantee::gdp(1.0)).unwrap());
    assert!(!g.fits_within(&Guarantee::gdp_with_delta(1.0, 1e-280)).unwrap());
    assert!(g.fits_within(&Guarantee::gdp_with_delta(1.0, 1e-279)).unwrap());
}
