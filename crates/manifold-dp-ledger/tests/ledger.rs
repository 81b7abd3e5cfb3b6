//! The ledger's promises: budget arithmetic in every notion, refusals that record nothing, files that are not
//! ledgers reported and left byte for byte as they were, a writer killed mid-transaction, and many writers
//! racing for the last of a budget.

use manifold_dp::privacy::{Guarantee, Metric, RaoFamily, compose};
use manifold_dp_ledger::{Admission, Ledger, LedgerError, Spent};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::Duration;

fn pure(epsilon: f64) -> Guarantee {
    Guarantee::PureDp { epsilon }
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
    let err = ledger.record("d", "m", &[pure(1e-300)], None).unwrap_err();
    assert!(matches!(err, LedgerError::OverBudget(_)), "{err}");
    // Exact sums are not rounded up: ε = 1 holds 0.5 + 0.25 + 0.25 and nothing more, and nothing is left.
    ledger.set_budget("exact", pure(1.0)).unwrap();
    for e in [0.5, 0.25, 0.25] {
        ledger.record("exact", "m", &[pure(e)], None).unwrap();
    }
    let spent = ledger.spent("exact").unwrap();
    assert_eq!(total(&spent, "pure"), pure(1.0));
    assert_eq!(spent.get("pure").unwrap().remaining, Some(pure(0.0)));
    assert!(ledger.check("exact", &[pure(1e-300)]).unwrap_err().is_refusal());
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
    ledger.set_budget("d", Guarantee::Gdp { mu: 1.0 }).unwrap();
    ledger.record("d", "gaussian", &[Guarantee::Gdp { mu: 0.6 }], None).unwrap();
    let r = ledger.record("d", "gaussian", &[Guarantee::Gdp { mu: 0.6 }], None).unwrap();
    let Guarantee::Gdp { mu } = total(&r.spent, "gdp") else { panic!() };
    assert!(near(mu, 0.72f64.sqrt()), "{mu}");
    // √(1 − 0.72) ≈ 0.529 is left: 0.5 fits (though 0.6 + 0.6 + 0.5 > 1), 0.6 does not.
    let left = r.spent.get("gdp").unwrap().remaining.unwrap();
    let Guarantee::Gdp { mu: left } = left else { panic!() };
    assert!((left - 0.28f64.sqrt()).abs() < 1e-12, "{left}");
    assert!(ledger.check("d", &[Guarantee::Gdp { mu: 0.6 }]).unwrap_err().is_refusal());
    ledger.record("d", "gaussian", &[Guarantee::Gdp { mu: 0.5 }], None).unwrap();
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
    assert!(matches!(total(&r.spent, "gdp"), Guarantee::Gdp { mu } if near(mu, 0.6)));
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
fn metric_dp_has_its_own_accounts_and_counts_as_pure_on_bounded_spaces() {
    let (_dir, _path, ledger) = new_ledger();
    let so3 = |e| Guarantee::metric_dp(e, Metric::So3Geodesic);
    ledger.set_budget("imu", so3(20.0)).unwrap();
    ledger.set_budget("imu", pure(30.0)).unwrap();
    let r = ledger.record("imu", "privatize so3 laplace", &[so3(8.0)], None).unwrap();
    // ε = 8 per rad on SO(3), whose diameter is π rad: pure 8π ≈ 25.1 per record.
    assert!(near(total(&r.spent, "pure").epsilon().unwrap(), 8.0 * std::f64::consts::PI));
    assert!(near(total(&r.spent, "metric:so3_geodesic:rad").epsilon().unwrap(), 8.0));
    // The pure budget (30 < 2·8π) refuses the second, though the metric budget (16 ≤ 20) would allow it.
    let err = ledger.record("imu", "privatize so3 laplace", &[so3(8.0)], None).unwrap_err();
    assert!(matches!(err, LedgerError::OverBudget(ref o) if o.notion == "pure"), "{err}");
    // A local release in another metric (locations beside rotations) is charged to its own account and to pure,
    // not to the SO(3) metric budget: 8π + π fits the pure 30.
    let sphere = Guarantee::metric_dp(1.0, Metric::SphereSurface);
    let r = ledger.record("imu", "privatize latlon", &[sphere], None).unwrap();
    assert!(near(total(&r.spent, "metric:so3_geodesic:rad").epsilon().unwrap(), 8.0));
    assert!(near(total(&r.spent, "metric:sphere_surface:rad").epsilon().unwrap(), 1.0));
    assert!(near(total(&r.spent, "pure").epsilon().unwrap(), 9.0 * std::f64::consts::PI));
    // A budget that a recorded release cannot be expressed in cannot be set.
    let err = ledger.set_budget("imu", Guarantee::RaoDp { theta: 1.0, family: RaoFamily::Gaussian }).unwrap_err();
    assert!(matches!(err, LedgerError::BudgetUnaccountable { .. }) && err.is_bad_input(), "{err}");
    assert_eq!(ledger.budgets(Some("imu")).unwrap().len(), 2);
    // SPD has no finite diameter: its metric DP implies no pure ε.
    let (_d2, _p2, l2) = new_ledger();
    l2.set_budget("covs", pure(100.0)).unwrap();
    let spd = Guarantee::metric_dp(1.0, Metric::SpdAffineInvariant);
    let err = l2.record("covs", "privatize spd", &[spd], None).unwrap_err();
    assert!(matches!(err, LedgerError::Unaccountable { .. }), "{err}");
    assert!(err.to_string().contains("new release"), "{err}");
    assert!(l2.releases(None).unwrap().is_empty());
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
