//! The ledger's promises: budget arithmetic in every notion, refusals that record nothing, files that are not
//! ledgers reported and left byte for byte as they were, a writer killed mid-transaction, and many writers
//! racing for the last of a budget.

use manifold_dp::privacy::{Guarantee, Metric, RaoFamily, compose};
use manifold_dp_ledger::{Account, Admission, Ledger, LedgerError, ReleaseKind, Spent};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::Duration;

fn pure(epsilon: f64) -> Guarantee {
    Guarantee::pure(epsilon)
}

fn new_ledger() -> (tempfile::TempDir, PathBuf, Ledger) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    let ledger = Ledger::create(&path).unwrap();
    (dir, path, ledger)
}

fn total(spent: &Spent, account: &str) -> Guarantee {
    let entry = spent.get(account).unwrap_or_else(|| panic!("no {account} entry"));
    entry.total.unwrap_or_else(|| panic!("{account}: {:?}", entry.not_accountable))
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

#[test]
fn create_refuses_an_existing_file_and_open_a_missing_one() {
    let (dir, path, ledger) = new_ledger();
    drop(ledger);
    assert!(matches!(Ledger::create(&path), Err(LedgerError::AlreadyExists { .. })));
    let other = dir.path().join("other.csv");
    std::fs::write(&other, "a,b\n1,2\n").unwrap();
    assert!(matches!(Ledger::create(&other), Err(LedgerError::AlreadyExists { .. })));
    assert_eq!(std::fs::read(&other).unwrap(), b"a,b\n1,2\n");
    let missing = dir.path().join("missing.sqlite");
    let err = Ledger::open(&missing).unwrap_err();
    assert!(matches!(err, LedgerError::NotFound { .. }), "{err}");
    assert!(err.is_bad_input());
    assert!(!missing.exists(), "open must never create a file");
    // No temporary file is left beside the ledger.
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    Ledger::open(&path).unwrap().integrity_check().unwrap();
}

#[test]
fn pure_budget_adds_up_and_refuses_without_recording() {
    let (_dir, _path, ledger) = new_ledger();
    ledger.set_budget("patients", pure(1.0)).unwrap();
    for i in 1..=3 {
        let receipt = ledger.record("patients", "mean so3", &[pure(0.3)], None).unwrap();
        assert!(!receipt.replayed);
        assert_eq!(receipt.spent.releases, i);
        assert!(receipt.release.at.ends_with('Z') && receipt.release.at.contains('T'), "{}", receipt.release.at);
    }
    let err = ledger.record("patients", "mean so3", &[pure(0.3)], None).unwrap_err();
    match &err {
        LedgerError::OverBudget(o) => {
            assert_eq!(o.dataset, "patients");
            assert_eq!(o.notion, "pure");
            assert!(near(o.total.epsilon().unwrap(), 1.2));
            assert_eq!(o.budget, pure(1.0));
            assert!(near(o.spent.epsilon().unwrap(), 0.9));
            assert_eq!(o.release, [pure(0.3)]);
        }
        other => panic!("{other}"),
    }
    assert!(err.is_refusal());
    let message = err.to_string();
    assert!(message.contains("patients") && message.contains("pure") && message.contains("1.2"), "{message}");
    // Refused: no row, and the dry run gives the same answer without writing.
    assert_eq!(ledger.releases(Some("patients")).unwrap().len(), 3);
    assert!(ledger.check("patients", &[pure(0.3)]).unwrap_err().is_refusal());
    let after = ledger.check("patients", &[pure(0.05)]).unwrap();
    assert_eq!(after.releases, 4);
    assert_eq!(ledger.releases(None).unwrap().len(), 3);
    let spent = ledger.spent("patients").unwrap();
    let entry = spent.get("pure").unwrap();
    assert!(near(entry.remaining.unwrap().epsilon().unwrap(), 0.1));
    assert_eq!(entry.within_budget, Some(true));
    // Other data sets are separate.
    ledger.record("other", "mean so3", &[pure(5.0)], None).unwrap();
    assert_eq!(ledger.datasets().unwrap(), ["other", "patients"]);
}

/// The samplers' negligible δ (`docs/proofs/float_safety.md` §6) adds up beside ε and is reported, never
/// hidden; a budget caps it only when it states a δ.
#[test]
fn negligible_deltas_add_up_beside_epsilon_and_cap_only_when_stated() {
    let (_dir, _path, ledger) = new_ledger();
    ledger.set_budget("d", pure(1.0)).unwrap();
    let with_delta = pure(0.3).with_delta(1e-300);
    for _ in 0..2 {
        ledger.record("d", "mean s2", &[with_delta], None).unwrap();
    }
    ledger.record("d", "mean s2", &[pure(0.3)], None).unwrap();
    let t = total(&ledger.spent("d").unwrap(), "pure");
    assert!(near(t.epsilon().unwrap(), 0.9));
    // Negative control: a total that dropped the δ's, or kept one, would fail here.
    assert!(t.delta() >= 2e-300 && t.delta() <= 2e-300 * (1.0 + 1e-15), "{t:?}");
    // A cap: admitted while Σδ stays within it.
    ledger.set_budget("capped", pure(1.0).with_delta(1.5e-300)).unwrap();
    ledger.record("capped", "mean s2", &[with_delta], None).unwrap();
    assert!(ledger.record("capped", "mean s2", &[with_delta], None).unwrap_err().is_refusal());
    // Old rows without a δ read back as δ = 0.
    ledger.record("plain", "mean s2", &[pure(0.5)], None).unwrap();
    assert_eq!(total(&ledger.spent("plain").unwrap(), "pure").delta(), 0.0);
}

/// A mean with a negligible δ is accepted by zCDP and GDP ledgers: its pure part is charged by the account's
/// rule (ρ = ε²/2, μ from ε) and its δ summed beside the total (a union bound over the releases' events,
/// `docs/proofs/accounting.md`, "The negligible δ"), and in the (ε, δ) shown beside it.
#[test]
fn a_mean_with_a_negligible_delta_is_accepted_by_zcdp_and_gdp_ledgers() {
    let (_dir, _path, ledger) = new_ledger();
    let mean = pure(0.5).with_delta(1e-300);
    ledger.set_budget("z", Guarantee::Zcdp { rho: 1.0 }).unwrap();
    ledger.set_budget("g", Guarantee::gdp(2.0)).unwrap();
    for (label, account) in [("z", "zcdp"), ("g", "gdp")] {
        ledger.record(label, "mean s2", &[mean], None).unwrap();
        let r = ledger.record(label, "mean s2", &[mean], None).unwrap();
        let entry = r.spent.get(account).unwrap();
        // Negative control: a total that dropped the δ's (or kept one) would fail here.
        assert!(entry.negligible_delta >= 2e-300 && entry.negligible_delta <= 2e-300 * (1.0 + 1e-15), "{entry:?}");
        let standard = entry.standard.unwrap();
        assert!(standard.delta() > 1e-6, "the (ε, δ) beside it carries the δ: {standard}");
        let json = serde_json::to_value(entry).unwrap();
        assert!(json["negligible_delta"].as_f64().is_some_and(|d| d >= 2e-300), "{json}");
    }
    let Guarantee::Zcdp { rho } = total(&ledger.spent("z").unwrap(), "zcdp") else { panic!() };
    assert!(near(rho, 0.25), "{rho}");
    // Without δ: no key, the companion exactly at 1e-6, as before.
    ledger.set_budget("plain", Guarantee::Zcdp { rho: 1.0 }).unwrap();
    let r = ledger.record("plain", "mean s2", &[pure(0.5)], None).unwrap();
    let entry = r.spent.get("zcdp").unwrap();
    assert_eq!(entry.negligible_delta, 0.0);
    assert!(serde_json::to_value(entry).unwrap().get("negligible_delta").is_none());
    assert_eq!(entry.standard.unwrap().delta(), 1e-6);
}

/// A local release's δ_B adds in its metric account and in the combined guarantee, per pair of inputs.
#[test]
fn local_negligible_deltas_add_per_pair() {
    let (_dir, _path, ledger) = new_ledger();
    let km = |e| Guarantee::metric_dp_in(e, Metric::SphereSurface, "km", 0.0);
    ledger.set_budgets("a", &[pure(2.0), km(1.0)]).unwrap();
    let admit = Default::default();
    ledger.record_new("a", "privatize latlon", &[km(0.5).with_delta(1e-300)], None, admit).unwrap();
    let r = ledger.record_new("a", "privatize latlon", &[km(0.25).with_delta(1e-300)], None, admit).unwrap();
    let t = total(&r.spent, "metric:sphere_surface:km");
    assert!(t.delta() >= 2e-300 && t.delta() <= 2e-300 * (1.0 + 1e-15), "{t:?}");
    let at_2km = t.metric_delta_at(2.0).unwrap();
    assert!(at_2km >= 2e-300 * (1.0 + 1.5f64.exp()) && at_2km < 1e-298, "{at_2km:e}");
    let c = r.spent.combined.unwrap();
    assert_eq!(c.local.unwrap().delta(), t.delta());
    // As standard DP at the diameter (20015 km) the δ is vacuous, as the ε is.
    assert_eq!(c.standard.unwrap().delta(), 1.0);
}

#[test]
fn refusal_at_the_boundary() {
    let (_dir, _path, ledger) = new_ledger();
    let costs = [pure(0.3), pure(0.3), pure(0.3)];
    // A budget equal to the (rounded-up) total of three releases admits exactly three.
    let budget = compose(&costs).unwrap();
    ledger.set_budget("d", budget).unwrap();
    for c in &costs {
        ledger.record("d", "m", &[*c], None).unwrap();
    }
    assert_eq!(total(&ledger.spent("d").unwrap(), "pure"), budget);
    // Budgets are compared as decimals, to at most 2^-40 of themselves (accounting.md, "Decimals"): anything above
    // that is refused.
    let err = ledger.record("d", "m", &[pure(1e-9)], None).unwrap_err();
    assert!(matches!(err, LedgerError::OverBudget(_)), "{err}");
    // Exact sums are not rounded up: ε = 1 holds 0.5 + 0.25 + 0.25 and nothing more, and nothing is left.
    ledger.set_budget("exact", pure(1.0)).unwrap();
    for e in [0.5, 0.25, 0.25] {
        ledger.record("exact", "m", &[pure(e)], None).unwrap();
    }
    let spent = ledger.spent("exact").unwrap();
    assert_eq!(total(&spent, "pure"), pure(1.0));
    assert_eq!(spent.get("pure").unwrap().remaining, Some(pure(0.0)));
    assert!(ledger.check("exact", &[pure(1e-9)]).unwrap_err().is_refusal());
    // A budget may be lowered to the total, not below it.
    ledger.set_budget("d", budget).unwrap();
    let below = ledger.set_budget("d", pure(0.8)).unwrap_err();
    assert!(matches!(below, LedgerError::BelowSpent { .. }), "{below}");
    // Raising it lets one more through.
    ledger.set_budget("d", pure(2.0)).unwrap();
    ledger.record("d", "m", &[pure(1e-300)], None).unwrap();
    assert_eq!(ledger.releases(Some("d")).unwrap().len(), 4);
}

#[test]
fn zcdp_adds_and_pure_releases_count_as_zcdp() {
    let (_dir, _path, ledger) = new_ledger();
    ledger.set_budget("d", Guarantee::Zcdp { rho: 0.5 }).unwrap();
    ledger.record("d", "gaussian", &[Guarantee::Zcdp { rho: 0.2 }], None).unwrap();
    // Pure ε = 0.5 is ρ = ε²/2 = 0.125 zCDP.
    let receipt = ledger.record("d", "laplace", &[pure(0.5)], None).unwrap();
    let Guarantee::Zcdp { rho } = total(&receipt.spent, "zcdp") else { panic!() };
    assert!(near(rho, 0.325));
    // The standard guarantee beside a zCDP total: (ρ + 2√(ρ ln 1/δ), δ) at δ = 1e-6.
    let standard = receipt.spent.get("zcdp").unwrap().standard.unwrap();
    let Guarantee::ApproxDp { epsilon, delta } = standard else { panic!("{standard}") };
    assert_eq!(delta, 1e-6);
    assert!((epsilon - (0.325 + 2.0 * (0.325 * 1e6f64.ln()).sqrt())).abs() < 1e-9, "{epsilon}");
    // The pure total is not accountable (a zCDP release implies no pure ε) and says why.
    let pure_entry = receipt.spent.get("pure").unwrap();
    assert!(pure_entry.total.is_none());
    assert!(pure_entry.not_accountable.as_ref().unwrap().contains("release #1"), "{pure_entry:?}");
    let err = ledger.record("d", "gaussian", &[Guarantee::Zcdp { rho: 0.2 }], None).unwrap_err();
    assert!(matches!(err, LedgerError::OverBudget(ref o) if o.notion == "zcdp"), "{err}");
    ledger.record("d", "gaussian", &[Guarantee::Zcdp { rho: 0.17 }], None).unwrap();
}

#[test]
fn gdp_adds_in_quadrature() {
    let (_dir, _path, ledger) = new_ledger();
    ledger.set_budget("d", Guarantee::gdp(1.0)).unwrap();
    ledger.record("d", "gaussian", &[Guarantee::gdp(0.6)], None).unwrap();
    let r = ledger.record("d", "gaussian", &[Guarantee::gdp(0.6)], None).unwrap();
    let Guarantee::Gdp { mu, .. } = total(&r.spent, "gdp") else { panic!() };
    assert!(near(mu, 0.72f64.sqrt()), "{mu}");
    // √(1 − 0.72) ≈ 0.529 is left: 0.5 fits (though 0.6 + 0.6 + 0.5 > 1), 0.6 does not.
    let left = r.spent.get("gdp").unwrap().remaining.unwrap();
    let Guarantee::Gdp { mu: left, .. } = left else { panic!() };
    assert!((left - 0.28f64.sqrt()).abs() < 1e-12, "{left}");
    assert!(ledger.check("d", &[Guarantee::gdp(0.6)]).unwrap_err().is_refusal());
    ledger.record("d", "gaussian", &[Guarantee::gdp(0.5)], None).unwrap();
    // Beside GDP: the exact (ε, δ) curve at δ = 1e-6, and zCDP ρ = μ²/2.
    let spent = ledger.spent("d").unwrap();
    assert!(matches!(spent.get("gdp").unwrap().standard, Some(Guarantee::ApproxDp { delta, .. }) if delta == 1e-6));
    let Guarantee::Zcdp { rho } = total(&spent, "zcdp") else { panic!() };
    assert!(near(rho, 0.97 / 2.0), "{rho}");
}

#[test]
fn rao_adds_in_quadrature_with_a_standard_guarantee_beside_it() {
    let (_dir, _path, ledger) = new_ledger();
    let gaussian = |theta| Guarantee::RaoDp { theta, family: RaoFamily::Gaussian };
    ledger.set_budget("d", gaussian(1.0)).unwrap();
    let r = ledger.record("d", "gaussian", &[gaussian(0.6)], None).unwrap();
    let rao = r.spent.get("rao").unwrap();
    assert!(!rao.testing_meaning);
    // Gaussian θ-Rao DP is θ-GDP: its (ε, δ) at 1e-6 stands beside it, and GDP shows the same μ.
    assert!(matches!(rao.standard, Some(Guarantee::ApproxDp { .. })), "{rao:?}");
    assert!(matches!(total(&r.spent, "gdp"), Guarantee::Gdp { mu, .. } if near(mu, 0.6)));
    // A generalized-Gaussian mechanism reports Rao θ with its pure ε beside it.
    let gg = [Guarantee::RaoDp { theta: 0.7, family: RaoFamily::GeneralizedGaussian { order: 3 } }, pure(0.9)];
    let r = ledger.record("d", "generalized gaussian", &gg, None).unwrap();
    let rao = r.spent.get("rao").unwrap();
    let Some(Guarantee::RaoDp { theta, family }) = rao.total else { panic!("{rao:?}") };
    assert!(near(theta, 0.85f64.sqrt()), "{theta}");
    assert_eq!(family, RaoFamily::Mixed);
    // The Rao total is never alone: here the approximate total (the pure one is not accountable, since the
    // first release has no pure guarantee) stands beside it.
    assert!(matches!(rao.standard, Some(Guarantee::ApproxDp { .. })), "{rao:?}");
    // In quadrature 0.35 still fits (√(0.85 + 0.1225) < 1, though 0.6 + 0.7 + 0.35 > 1); 0.4 does not.
    ledger.check("d", &[gaussian(0.35)]).unwrap();
    assert!(ledger.check("d", &[gaussian(0.4)]).unwrap_err().is_refusal());
    // A release that reports no Rao guarantee cannot be charged to a Rao budget.
    let err = ledger.record("d", "laplace", &[pure(0.1)], None).unwrap_err();
    assert!(matches!(err, LedgerError::Unaccountable { ref notion, .. } if notion == "rao"), "{err}");
}

#[test]
fn local_releases_are_charged_to_local_budgets_and_the_overall_cap_not_to_central_ones() {
    let (_dir, _path, ledger) = new_ledger();
    let so3 = |e| Guarantee::metric_dp(e, Metric::So3Geodesic);
    ledger.set_budget("imu", so3(20.0)).unwrap();
    ledger.set_budget("imu", pure(30.0)).unwrap();
    let r = ledger.record("imu", "privatize so3 laplace", &[so3(8.0)], None).unwrap();
    // ε = 8 per rad on SO(3) is charged to the local budget only: the central (pure) one holds central releases.
    assert_eq!(total(&r.spent, "pure").epsilon().unwrap(), 0.0);
    assert!(near(total(&r.spent, "metric:so3_geodesic:rad").epsilon().unwrap(), 8.0));
    ledger.record("imu", "privatize so3 laplace", &[so3(8.0)], None).unwrap();
    let err = ledger.record("imu", "privatize so3 laplace", &[so3(8.0)], None).unwrap_err();
    assert!(matches!(err, LedgerError::OverBudget(ref o) if o.notion == "metric:so3_geodesic:rad"), "{err}");
    // The combined guarantee: 16 per rad · d + 0, and as pure DP 16π on SO(3).
    let c = ledger.spent("imu").unwrap().combined.unwrap();
    assert!(near(c.local.unwrap().epsilon().unwrap(), 16.0) && c.constant == 0.0);
    assert!(near(c.standard.unwrap().epsilon().unwrap(), 16.0 * std::f64::consts::PI));
    // A local release in another metric implies nothing for the SO(3) budget: refused, never charged 0.
    let sphere = Guarantee::metric_dp(1.0, Metric::SphereSurface);
    let err = ledger.record("imu", "privatize latlon", &[sphere], None).unwrap_err();
    assert!(matches!(err, LedgerError::Unaccountable { ref notion, .. } if notion == "metric:so3_geodesic:rad"));
    // The optional overall cap counts local releases at ε·D + ε₀ (8π ≈ 25.1 each) and central ones at ε.
    let (_d2, _p2, l2) = new_ledger();
    l2.set_budgets_in("imu", &[(Account::of(&so3(20.0)), so3(20.0)), (Account::Overall, pure(30.0))]).unwrap();
    let r = l2.record("imu", "privatize so3 laplace", &[so3(8.0)], None).unwrap();
    assert!(near(total(&r.spent, "overall").epsilon().unwrap(), 8.0 * std::f64::consts::PI));
    let err = l2.record("imu", "privatize so3 laplace", &[so3(8.0)], None).unwrap_err();
    assert!(matches!(err, LedgerError::OverBudget(ref o) if o.notion == "overall"), "{err}");
    // The cap alone is a budget for both kinds; SPD has no finite diameter, so it cannot be counted there.
    let (_d3, _p3, l3) = new_ledger();
    l3.set_budgets_in("covs", &[(Account::Overall, pure(100.0))]).unwrap();
    let spd = Guarantee::metric_dp(1.0, Metric::SpdAffineInvariant);
    let err = l3.record("covs", "privatize spd", &[spd], None).unwrap_err();
    assert!(matches!(err, LedgerError::Unaccountable { .. }), "{err}");
    assert!(err.to_string().contains("new release"), "{err}");
    assert!(l3.releases(None).unwrap().is_empty());
    // A budget that a recorded release cannot be expressed in cannot be set.
    let err = ledger.set_budget("imu", Guarantee::metric_dp_in(1.0, Metric::SphereSurface, "km", 0.0)).unwrap_err();
    assert!(matches!(err, LedgerError::BudgetUnaccountable { .. }) && err.is_bad_input(), "{err}");
}

/// A VMF release states ε per unit of chordal distance, hence also per rad of great-circle
/// distance, and was charged 0 against a great-circle km budget (three releases at 0.5/km fit a 0.5/km budget).
#[test]
fn a_chordal_release_is_charged_to_a_great_circle_budget_in_km() {
    let (_dir, _path, ledger) = new_ledger();
    let km = |e| Guarantee::metric_dp_in(e, Metric::SphereSurface, "km", 0.0);
    ledger.set_budget("airports", km(0.5)).unwrap();
    // 0.5 per km is 0.5·R per rad; the VMF's κ = ε per unit of chordal distance.
    let vmf = Guarantee::metric_dp_in(0.5 * 6371.0088, Metric::SphereChordal, "unit", 1e-3);
    let r = ledger.record("airports", "privatize latlon vmf", &[vmf], None).unwrap();
    let charged = total(&r.spent, "metric:sphere_surface:km");
    assert!(near(charged.epsilon().unwrap(), 0.5) && charged.additive_epsilon() == 1e-3, "{charged}");
    for _ in 0..2 {
        let err = ledger.record("airports", "privatize latlon vmf", &[vmf], None).unwrap_err();
        assert!(matches!(err, LedgerError::OverBudget(ref o) if o.notion == "metric:sphere_surface:km"), "{err}");
    }
    assert_eq!(ledger.releases(None).unwrap().len(), 1);
    let may = ledger.check("airports", &[vmf]).unwrap_err();
    assert!(may.is_refusal());
}

/// A label with only a local km budget took central means at ε = 5 and an
/// SO(3) release at ε = 100 without a word.
#[test]
fn a_budgeted_label_refuses_kinds_it_has_no_budget_for() {
    let (_dir, _path, ledger) = new_ledger();
    ledger.set_budget("airports", Guarantee::metric_dp_in(0.5, Metric::SphereSurface, "km", 0.0)).unwrap();
    for _ in 0..2 {
        let err = ledger.record_new("airports", "mean latlon", &[pure(5.0)], None, Default::default()).unwrap_err();
        assert!(err.is_refusal(), "{err}");
        assert!(matches!(err, LedgerError::NoBudgetForKind { kind: ReleaseKind::Central, .. }), "{err}");
        assert!(err.to_string().contains("central budget"), "{err}");
    }
    let so3 = Guarantee::metric_dp(100.0, Metric::So3Geodesic);
    let err = ledger.record_new("airports", "privatize so3", &[so3], None, Default::default()).unwrap_err();
    assert!(matches!(err, LedgerError::Unaccountable { .. }), "{err}");
    // And a label with only central budgets refuses local releases.
    ledger.set_budget("poses", pure(3.0)).unwrap();
    let err = ledger.record_new("poses", "privatize so3", &[so3], None, Default::default()).unwrap_err();
    assert!(matches!(err, LedgerError::NoBudgetForKind { kind: ReleaseKind::Local, .. }), "{err}");
    assert!(ledger.releases(None).unwrap().is_empty(), "a refusal charges nothing");
}

/// With a pure 2 and a 0.5/km budget, a 2 km location release
/// was refused because it was also charged ε·D = 10007.6 pure.
#[test]
fn local_and_central_releases_share_a_label() {
    let (_dir, _path, ledger) = new_ledger();
    let km = |e, e0| Guarantee::metric_dp_in(e, Metric::SphereSurface, "km", e0);
    ledger.set_budgets("airports", &[pure(2.0), km(0.5, 0.0)]).unwrap();
    // The budget states its additive allowance (the default).
    let b = ledger.budgets(Some("airports")).unwrap();
    assert!(b.iter().any(|e| e.budget == km(0.5, manifold_dp_ledger::DEFAULT_ADDITIVE_ALLOWANCE)), "{b:?}");
    let admit = Default::default();
    ledger.record_new("airports", "privatize latlon", &[km(0.2, 9e-4)], None, admit).unwrap();
    ledger.record_new("airports", "mean latlon", &[pure(1.0)], None, admit).unwrap();
    let r = ledger.record_new("airports", "mean latlon", &[pure(1.0)], None, admit).unwrap();
    assert_eq!(total(&r.spent, "pure"), pure(2.0), "two means at 1 fit 2 exactly");
    let err = ledger.record_new("airports", "mean latlon", &[pure(1.0)], None, admit).unwrap_err();
    assert!(matches!(err, LedgerError::OverBudget(ref o) if o.notion == "pure"), "{err}");
    let err = ledger.record_new("airports", "privatize latlon", &[km(1.0 / 3.0, 9e-4)], None, admit).unwrap_err();
    assert!(matches!(err, LedgerError::OverBudget(ref o) if o.notion.starts_with("metric:")), "{err}");
    // ε ≤ 0.2 per km · d + 2.0009, and as pure DP 0.2·20015 + 2.0009.
    let c = ledger.spent("airports").unwrap().combined.unwrap();
    assert_eq!(c.local.unwrap().epsilon(), Some(0.2));
    assert!(c.constant >= 2.0009 && c.constant < 2.0009 + 1e-12, "{}", c.constant);
    let d = c.diameter.unwrap();
    assert!(near(c.standard.unwrap().epsilon().unwrap(), 0.2 * d + 2.0009));
    assert_eq!(ledger.releases(None).unwrap().len(), 3);
}

/// The additive costs of local releases are capped by the local budget's allowance, never by a central budget.
#[test]
fn additive_costs_are_capped_by_the_local_allowance() {
    let (_dir, _path, ledger) = new_ledger();
    let rad = |e, e0| Guarantee::metric_dp_in(e, Metric::SphereSurface, "rad", e0);
    ledger.set_budgets("d", &[rad(100.0, 0.0), pure(0.01)]).unwrap();
    let admit = Default::default();
    ledger.record_new("d", "privatize", &[rad(1.0, 0.06)], None, admit).unwrap();
    let err = ledger.record_new("d", "privatize", &[rad(1.0, 0.06)], None, admit).unwrap_err();
    assert!(matches!(err, LedgerError::OverBudget(ref o) if o.notion == "metric:sphere_surface:rad"), "{err}");
    ledger.set_budget("d", rad(100.0, 1.0)).unwrap();
    let r = ledger.record_new("d", "privatize", &[rad(1.0, 0.06)], None, admit).unwrap();
    assert!(near(total(&r.spent, "metric:sphere_surface:rad").additive_epsilon(), 0.12));
    assert_eq!(total(&r.spent, "pure"), pure(0.0));
}

/// A handle refuses a file that is no longer the one it opened (moved or replaced).
#[test]
fn a_replaced_ledger_file_is_refused() {
    let (dir, path, ledger) = new_ledger();
    let id = ledger.file_id().clone();
    drop(ledger);
    Ledger::open_same(&path, &id).unwrap();
    std::fs::rename(&path, dir.path().join("moved.sqlite")).unwrap();
    Ledger::create(&path).unwrap();
    let err = Ledger::open_same(&path, &id).unwrap_err();
    assert!(matches!(err, LedgerError::Replaced { .. }) && err.is_bad_input(), "{err}");
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(Ledger::open_same(&path, &id).unwrap_err(), LedgerError::Replaced { .. }));
}

#[test]
fn approximate_budget_takes_pure_and_zcdp_releases() {
    let (_dir, _path, ledger) = new_ledger();
    ledger.set_budget("d", Guarantee::ApproxDp { epsilon: 3.0, delta: 1e-5 }).unwrap();
    ledger.record("d", "laplace", &[pure(1.0)], None).unwrap();
    ledger.record("d", "gaussian", &[Guarantee::ApproxDp { epsilon: 0.5, delta: 1e-7 }], None).unwrap();
    // ρ = 0.02 at the fixed δ = 1e-6 costs ε = 0.02 + 2√(0.02·ln 1e6) ≈ 1.07: 1.5 + 1.07 ≤ 3.
    let r = ledger.record("d", "gaussian", &[Guarantee::Zcdp { rho: 0.02 }], None).unwrap();
    let Guarantee::ApproxDp { epsilon, delta } = total(&r.spent, "approx") else { panic!() };
    assert!(epsilon < 3.0 && epsilon > 2.5, "{epsilon}");
    assert!(near(delta, 1.1e-6), "{delta}");
    assert!(ledger.check("d", &[Guarantee::Zcdp { rho: 0.1 }]).unwrap_err().is_refusal());
}

/// The approximate account is the basic filter: each release is charged its own (ε, δ), a zCDP-only one at
/// δ = 1e-6, and the charges add. The rule it replaces composed the zCDP releases first and converted their
/// total at the δ′ the budget had left, which admitted all three releases below (ρ = 0.15 at δ′ ≈ 1e-5 is
/// ε ≈ 2.78 ≤ 3); no filter theorem covers that rule (`docs/proofs/accounting.md`, "The ledger is a filter").
#[test]
fn approximate_budget_is_a_basic_filter_over_each_release() {
    let (_dir, _path, ledger) = new_ledger();
    ledger.set_budget("d", Guarantee::ApproxDp { epsilon: 3.0, delta: 1e-5 }).unwrap();
    let z = [Guarantee::Zcdp { rho: 0.05 }];
    let r = ledger.record("d", "gaussian", &z, None).unwrap();
    // ε = 0.05 + 2√(0.05·ln 1e6) ≈ 1.71 at δ = 1e-6.
    let Guarantee::ApproxDp { epsilon, delta } = total(&r.spent, "approx") else { panic!() };
    let one = 0.05 + 2.0 * (0.05 * 1e6f64.ln()).sqrt();
    assert!((epsilon - one).abs() < 1e-9 && delta == 1e-6, "{epsilon} {delta}");
    // Two cost ≈ 3.42 > 3: refused, and nothing recorded.
    let err = ledger.record("d", "gaussian", &z, None).unwrap_err();
    assert!(matches!(err, LedgerError::OverBudget(ref o) if o.notion == "approx"), "{err}");
    assert_eq!(ledger.releases(Some("d")).unwrap().len(), 1);
    // The same release with the (ε, δ) its mechanism states beside it is charged that instead.
    let stated = [Guarantee::Zcdp { rho: 0.05 }, Guarantee::ApproxDp { epsilon: 1.0, delta: 1e-7 }];
    let r = ledger.record("d", "gaussian", &stated, None).unwrap();
    let Guarantee::ApproxDp { epsilon, delta } = total(&r.spent, "approx") else { panic!() };
    assert!((epsilon - (one + 1.0)).abs() < 1e-9 && near(delta, 1.1e-6), "{epsilon} {delta}");
}

#[test]
fn invalid_arguments_are_refused() {
    let (_dir, _path, ledger) = new_ledger();
    for (d, m, g) in
        [("", "m", vec![pure(1.0)]), ("d", "m", vec![]), ("d", "m", vec![pure(f64::NAN)]), ("d", "", vec![pure(1.0)])]
    {
        let err = ledger.record(d, m, &g, None).unwrap_err();
        assert!(matches!(err, LedgerError::Invalid(_)) && err.is_bad_input(), "{err}");
    }
    assert!(ledger.set_budget("d", Guarantee::ApproxDp { epsilon: 1.0, delta: 1.0 }).is_err());
    assert!(ledger.set_budgets("d", &[pure(1.0), pure(2.0)]).is_err());
    assert!(ledger.releases(None).unwrap().is_empty() && ledger.budgets(None).unwrap().is_empty());
}

#[test]
fn request_id_makes_a_retry_idempotent() {
    let (_dir, _path, ledger) = new_ledger();
    ledger.set_budget("d", pure(1.0)).unwrap();
    let first = ledger.record("d", "m", &[pure(0.6)], Some("job-42")).unwrap();
    let again = ledger.record("d", "m", &[pure(0.6)], Some("job-42")).unwrap();
    assert!(again.replayed && !first.replayed);
    assert_eq!(again.release, first.release);
    assert_eq!(ledger.releases(None).unwrap().len(), 1);
    let err = ledger.record("d", "m", &[pure(0.3)], Some("job-42")).unwrap_err();
    assert!(matches!(err, LedgerError::RequestIdConflict { id, .. } if id == first.release.id), "{err}");
    ledger.record("d", "m", &[pure(0.3)], Some("job-43")).unwrap();
    assert_eq!(ledger.releases(None).unwrap().len(), 2);
}

/// A release whose noise was drawn for a request (`record_new`): its id is used once, and an unbudgeted data set
/// is refused unless allowed; each refusal records nothing and is a refusal (exit 4 in the CLI).
#[test]
fn new_releases_use_an_id_once_and_need_a_budget() {
    let (_dir, _path, ledger) = new_ledger();
    ledger.set_budget("d", pure(1.0)).unwrap();
    let strict = Admission::default();
    let first = ledger.record_new("d", "m", &[pure(0.2)], Some("job-1"), strict).unwrap();
    assert!(!first.replayed);
    for (dataset, eps) in [("d", 0.2), ("d", 0.3), ("e", 0.2)] {
        let err = ledger.record_new(dataset, "m", &[pure(eps)], Some("job-1"), strict).unwrap_err();
        assert!(matches!(err, LedgerError::RequestIdUsed { id, .. } if id == first.release.id), "{err}");
        assert!(err.is_refusal());
        let err = ledger.check_new(dataset, &[pure(eps)], Some("job-1"), strict).unwrap_err();
        assert!(matches!(err, LedgerError::RequestIdUsed { .. }), "{err}");
    }
    let err = ledger.record_new("typo", "m", &[pure(0.2)], None, strict).unwrap_err();
    assert!(matches!(&err, LedgerError::NoBudget { dataset } if dataset == "typo") && err.is_refusal(), "{err}");
    assert!(ledger.check_new("typo", &[pure(0.2)], None, strict).is_err());
    assert_eq!(ledger.releases(None).unwrap().len(), 1);
    let open = Admission { allow_unbudgeted: true };
    ledger.check_new("typo", &[pure(0.2)], None, open).unwrap();
    ledger.record_new("typo", "m", &[pure(0.2)], Some("job-2"), open).unwrap();
    // Budgets are still enforced.
    assert!(ledger.record_new("d", "m", &[pure(0.9)], None, strict).unwrap_err().is_refusal());
    assert_eq!(ledger.releases(None).unwrap().len(), 2);
}

#[test]
fn export_holds_everything() {
    let (_dir, _path, ledger) = new_ledger();
    ledger.set_budgets("d", &[pure(2.0), Guarantee::Zcdp { rho: 1.0 }]).unwrap();
    ledger.set_budget("d", pure(3.0)).unwrap();
    ledger.record("d", "mean so3", &[pure(0.5)], Some("a")).unwrap();
    ledger.record("e", "mean so3", &[pure(0.25)], None).unwrap();
    let export = ledger.export().unwrap();
    let json = serde_json::to_value(&export).unwrap();
    assert_eq!(json["format"], "manifold-dp-ledger");
    assert_eq!(json["datasets"].as_array().unwrap().len(), 2);
    let d = &json["datasets"][0];
    assert_eq!(d["dataset"], "d");
    assert_eq!(d["budgets"].as_array().unwrap().len(), 2);
    assert_eq!(d["releases"][0]["guarantees"][0]["notion"], "pure_dp");
    assert_eq!(d["releases"][0]["request_id"], "a");
    assert_eq!(d["spent"]["notions"][0]["account"], "pure");
    assert_eq!(d["spent"]["notions"][0]["budget"]["epsilon"], 3.0);
    assert_eq!(json["budget_history"].as_array().unwrap().len(), 3);
}

/// Bytes that are certainly not an SQLite file (a fixed xorshift stream).
fn noise(n: usize) -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Opening `path` fails as `expect` says, and the directory is byte for byte as before.
fn refused_untouched(path: &Path, expect: fn(&LedgerError) -> bool) -> LedgerError {
    let dir = path.parent().unwrap();
    let listing = || {
        let mut v: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        v.sort();
        v
    };
    let (before, names) = (std::fs::read(path).unwrap(), listing());
    let err = Ledger::open(path).unwrap_err();
    assert!(expect(&err), "{err}");
    assert!(err.is_bad_input());
    assert_eq!(std::fs::read(path).unwrap(), before, "the file was changed");
    assert_eq!(listing(), names, "files appeared or vanished");
    err
}

#[test]
fn random_bytes_are_reported_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("noise.sqlite");
    std::fs::write(&path, noise(8192)).unwrap();
    let err = refused_untouched(&path, |e| matches!(e, LedgerError::NotALedger { .. }));
    assert!(err.to_string().contains("not an SQLite database"), "{err}");
    // A text file too; and a directory.
    std::fs::write(&path, "w,x,y,z\n1,0,0,0\n").unwrap();
    refused_untouched(&path, |e| matches!(e, LedgerError::NotALedger { .. }));
    assert!(matches!(Ledger::open(dir.path()), Err(LedgerError::NotALedger { .. })));
}

#[test]
fn truncated_or_damaged_ledgers_are_reported_and_left_alone() {
    let (dir, path, ledger) = new_ledger();
    let label = "x".repeat(900);
    for _ in 0..12 {
        ledger.record("d", &label, &[pure(0.1)], None).unwrap();
    }
    drop(ledger);
    let full = std::fs::read(&path).unwrap();
    assert!(full.len() >= 4 * 4096, "{}", full.len());
    let cut = dir.path().join("cut.sqlite");
    std::fs::write(&cut, &full[..full.len() / 2]).unwrap();
    refused_untouched(&cut, |e| matches!(e, LedgerError::Corrupt { .. } | LedgerError::NotALedger { .. }));
    std::fs::write(&cut, &full[..50]).unwrap();
    refused_untouched(&cut, |e| matches!(e, LedgerError::Corrupt { .. } | LedgerError::NotALedger { .. }));
    // Damage inside the file, header intact: the last page overwritten with noise.
    let mut damaged = full.clone();
    let n = damaged.len();
    damaged[n - 4096..].copy_from_slice(&noise(4096));
    std::fs::write(&cut, &damaged).unwrap();
    refused_untouched(&cut, |e| matches!(e, LedgerError::Corrupt { .. }));
    // The original still opens.
    assert_eq!(Ledger::open(&path).unwrap().releases(None).unwrap().len(), 12);
}

#[test]
fn foreign_sqlite_files_are_reported_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shop.sqlite");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('Ada');",
        )
        .unwrap();
    }
    let err = refused_untouched(&path, |e| matches!(e, LedgerError::Foreign { .. }));
    assert!(err.to_string().contains("customers"), "{err}");
    // An empty file is an empty SQLite database to SQLite, and still not a ledger.
    let empty = dir.path().join("empty.sqlite");
    std::fs::write(&empty, b"").unwrap();
    refused_untouched(&empty, |e| matches!(e, LedgerError::Foreign { .. }));
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
    // A ledger from a newer version.
    let (_d, newer, ledger) = new_ledger();
    drop(ledger);
    rusqlite::Connection::open(&newer).unwrap().pragma_update(None, "user_version", 99).unwrap();
    refused_untouched(&newer, |e| matches!(e, LedgerError::NewerSchema { found: 99, .. }));
}

#[test]
fn releases_are_append_only() {
    let (_dir, path, ledger) = new_ledger();
    ledger.record("d", "m", &[pure(1.0)], None).unwrap();
    drop(ledger);
    let conn = rusqlite::Connection::open(&path).unwrap();
    assert!(conn.execute("DELETE FROM releases", []).is_err());
    assert!(conn.execute("UPDATE releases SET guarantees = '[]'", []).is_err());
    drop(conn);
    assert_eq!(Ledger::open(&path).unwrap().releases(None).unwrap().len(), 1);
}

const CRASH_CHILD: &str = "MANIFOLD_DP_LEDGER_CRASH_CHILD";
const MARKER: &str = "INSIDE-THE-TRANSACTION";

/// Run by `a_writer_killed_mid_transaction_leaves_no_entry` in a child process (a no-op otherwise): opens the
/// ledger, inserts a release and, before committing, says so and waits to be killed.
#[test]
fn crash_child() {
    let Ok(path) = std::env::var(CRASH_CHILD) else { return };
    let ledger = Ledger::open(&path).unwrap();
    ledger
        .record_with_hook("d", "doomed", &[pure(0.25)], Some("retry-me"), || {
            use std::io::Write;
            println!("{MARKER}");
            std::io::stdout().flush().unwrap();
            std::thread::sleep(Duration::from_secs(120));
        })
        .unwrap();
    panic!("the parent should have killed this process");
}

#[test]
fn a_writer_killed_mid_transaction_leaves_no_entry() {
    let (_dir, path, ledger) = new_ledger();
    ledger.set_budget("d", pure(1.0)).unwrap();
    ledger.record("d", "first", &[pure(0.5)], None).unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "crash_child", "--nocapture", "--test-threads=1"])
        .env(CRASH_CHILD, &path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let seen = lines.by_ref().map_while(Result::ok).any(|l| l.contains(MARKER));
    assert!(seen, "the child ended before reaching its hook");
    // The child holds the write lock with its row inserted: a reader sees only what was committed.
    let reader = Ledger::open(&path).unwrap();
    assert_eq!(reader.releases(None).unwrap().len(), 1);
    drop(reader);
    child.kill().unwrap();
    child.wait().unwrap();
    // The killed writer leaves a rollback journal beside the file, and its insert only in its own memory (or,
    // had it spilled pages, in the file with their originals in a hot journal, which the next opener rolls
    // back): either way no entry, a sound file, and a ledger that works.
    let ledger = Ledger::open(&path).unwrap();
    ledger.integrity_check().unwrap();
    let releases = ledger.releases(None).unwrap();
    assert_eq!(releases.len(), 1, "{releases:?}");
    assert!(releases.iter().all(|r| r.request_id.as_deref() != Some("retry-me")));
    // The retry with the same request id is recorded once.
    let retry = ledger.record("d", "doomed", &[pure(0.25)], Some("retry-me")).unwrap();
    assert!(!retry.replayed);
    assert!(ledger.record("d", "doomed", &[pure(0.25)], Some("retry-me")).unwrap().replayed);
    assert_eq!(ledger.releases(None).unwrap().len(), 2);
    assert!(near(total(&ledger.spent("d").unwrap(), "pure").epsilon().unwrap(), 0.75));
}

#[test]
fn many_writers_race_for_the_last_of_a_budget() {
    let (_dir, path, ledger) = new_ledger();
    ledger.set_budget("d", pure(1.0)).unwrap();
    ledger.record("d", "before", &[pure(0.5)], None).unwrap();
    let writers = 16;
    let barrier = Arc::new(Barrier::new(writers));
    let handles: Vec<_> = (0..writers)
        .map(|i| {
            let (path, barrier) = (path.clone(), barrier.clone());
            std::thread::spawn(move || {
                let ledger = Ledger::open(&path).unwrap();
                barrier.wait();
                match ledger.record("d", &format!("writer {i}"), &[pure(0.15)], None) {
                    Ok(_) => true,
                    Err(LedgerError::OverBudget(_)) => false,
                    Err(e) => panic!("writer {i}: {e}"),
                }
            })
        })
        .collect();
    let won = handles.into_iter().map(|h| h.join().unwrap()).filter(|&ok| ok).count();
    // 0.5 + 3·0.15 = 0.95 fits, a fourth would make 1.1.
    assert_eq!(won, 3);
    let spent = ledger.spent("d").unwrap();
    assert_eq!(spent.releases, 4);
    let t = total(&spent, "pure");
    assert!(t.fits_within(&pure(1.0)).unwrap() && near(t.epsilon().unwrap(), 0.95), "{t}");
    ledger.integrity_check().unwrap();
}

/// Ask ε, pay ε, in the decimals people write: three releases at ε = 0.1 fit a budget of 0.3 (in binary
/// 0.1 + 0.1 + 0.1 > 0.3 and they were refused), a fourth does not; the same per km on a local budget; and many
/// tiny releases cannot creep past the budget by more than 2^-40 of it.
#[test]
fn decimal_budgets_hold_the_decimal_releases_that_sum_to_them() {
    let (_dir, _path, ledger) = new_ledger();
    ledger.set_budget("d", pure(0.3)).unwrap();
    for _ in 0..3 {
        ledger.record("d", "m", &[pure(0.1)], None).unwrap();
    }
    assert!(ledger.record("d", "m", &[pure(0.1)], None).unwrap_err().is_refusal());
    assert!(ledger.record("d", "m", &[pure(1e-9)], None).unwrap_err().is_refusal());
    let km = |e| Guarantee::metric_dp_in(e, Metric::SphereSurface, "km", 0.0);
    ledger.set_budget("local", km(0.3)).unwrap();
    for _ in 0..3 {
        ledger.record("local", "privatize latlon", &[km(0.1)], None).unwrap();
    }
    assert!(ledger.record("local", "privatize latlon", &[km(0.1)], None).unwrap_err().is_refusal());
    // Tiny releases on a spent budget: admitted only while the widening (at most 2^-40) covers them.
    ledger.set_budget("tiny", pure(1.0)).unwrap();
    ledger.record("tiny", "m", &[pure(1.0)], None).unwrap();
    let mut admitted = 0;
    while ledger.record("tiny", "m", &[pure(1e-14)], None).is_ok() {
        admitted += 1;
        assert!(admitted < 1000, "tiny releases kept fitting");
    }
    assert!(f64::from(admitted) * 1e-14 <= manifold_dp_ledger::DECIMAL_SLACK * 1.0, "{admitted}");
}
