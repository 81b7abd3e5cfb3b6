//! End-to-end tests of `manifold-dp mean --mechanism gaussian`: the μ-GDP Fréchet mean on latlon and so3, its
//! printed guarantee and `--json` keys, the refusals of a budget that does not fit the mechanism (exit 2,
//! naming the flag), and the ledger's gdp account.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::fs;
use std::path::Path;

fn bin() -> Command {
    Command::cargo_bin("manifold-dp").unwrap()
}

fn json(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

/// 30 points near (45 N, 10 E), all within 200 km of it.
fn latlon_csv(dir: &Path) -> std::path::PathBuf {
    let mut text = String::from("lat,lon\n");
    for i in 0..30 {
        let a = i as f64 * 0.7;
        text.push_str(&format!("{},{}\n", 45.0 + 0.4 * a.sin(), 10.0 + 0.5 * a.cos()));
    }
    let p = dir.join("places.csv");
    fs::write(&p, text).unwrap();
    p
}

/// 20 rotations within 0.2 rad of the identity.
fn so3_csv(dir: &Path) -> std::path::PathBuf {
    let mut text = String::from("w,x,y,z\n");
    for i in 0..20 {
        let a = 0.2 * ((i as f64) * 1.3).sin();
        text.push_str(&format!("{},{},{},0\n", (a / 2.0).cos(), (a / 2.0).sin() * 0.6, (a / 2.0).sin() * 0.8));
    }
    let p = dir.join("poses.csv");
    fs::write(&p, text).unwrap();
    p
}

#[test]
fn latlon_gaussian_mean_prints_a_gdp_guarantee_with_the_mu_asked() {
    let dir = tempfile::tempdir().unwrap();
    let input = latlon_csv(dir.path());
    let base = ["mean", "--space", "latlon", "--center", "45,10", "--radius", "200km", "--mechanism", "gaussian"];
    bin()
        .args(base)
        .args(["--mu", "0.5", "--seed", "3", "--input"])
        .arg(&input)
        .assert()
        .success()
        // μ-GDP up to the certificate's tail and the proposal's far piece (riemannian_gaussian.md §2, §5).
        .stdout(predicate::str::contains(
            "Guarantee: Gaussian DP, mu = 0.5 + delta ≤ 2e-280, for data sets of 30 points",
        ))
        .stdout(predicate::str::contains("Noise: Riemannian Gaussian"))
        .stdout(predicate::str::contains(" km"));
    let out = bin()
        .args(base)
        .args(["--mu", "0.5", "--seed", "3", "--json", "--input"])
        .arg(&input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    assert_eq!(v["guarantee"], serde_json::json!({"notion": "gdp", "mu": 0.5, "delta": 2e-280}));
    assert_eq!((v["mu"].as_f64(), v["mechanism"].as_str()), (Some(0.5), Some("gaussian")));
    for key in ["sigma", "sensitivity", "expected_error", "rounding_cost", "sigma_km", "expected_error_km"] {
        assert!(v[key].as_f64().is_some_and(|x| x > 0.0), "{key}: {v}");
    }
    assert!(v["grid"].is_object() && v["epsilon"].is_null() && v["noise_epsilon"].is_null(), "{v}");
    // σ is at least Δ/μ (the certified μ, rounding included, is at most the μ asked).
    assert!(v["sigma"].as_f64().unwrap() >= v["sensitivity"].as_f64().unwrap() / 0.5);
    let mean = v["mean"].as_array().unwrap();
    assert!((mean[0].as_f64().unwrap() - 45.0).abs() < 3.0 && (mean[1].as_f64().unwrap() - 10.0).abs() < 3.0);
}

#[test]
fn so3_gaussian_mean_from_epsilon_and_delta() {
    let dir = tempfile::tempdir().unwrap();
    let input = so3_csv(dir.path());
    let out = bin()
        .args(["mean", "--space", "so3", "--center", "identity", "--radius", "30deg", "--mechanism", "gaussian"])
        .args(["--mu", "1", "--json", "--seed", "5", "--input"])
        .arg(&input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    assert_eq!(v["guarantee"], serde_json::json!({"notion": "gdp", "mu": 1.0, "delta": 2e-280}));
    assert!(v["expected_error_deg"].as_f64().unwrap() > 0.0);
    // (ε, δ) = (1, 1e-6) is converted to the largest μ whose curve is (1, 1e-6)-DP: about 0.2.
    let out = bin()
        .args(["mean", "--space", "so3", "--center", "identity", "--radius", "30deg", "--mechanism", "gaussian"])
        .args(["--epsilon", "1", "--delta", "1e-6", "--json", "--seed", "5", "--input"])
        .arg(&input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    let mu = v["guarantee"]["mu"].as_f64().unwrap();
    assert!(v["guarantee"]["notion"] == "gdp" && mu > 0.15 && mu < 0.3, "{v}");
}

#[test]
fn budgets_that_do_not_fit_the_mechanism_are_refused_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let input = so3_csv(dir.path());
    let run = |extra: &[&str], needle: &str| {
        bin()
            .args(["mean", "--space", "so3", "--center", "identity", "--radius", "30deg", "--input"])
            .arg(&input)
            .args(extra)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(needle));
    };
    run(&["--mu", "1"], "--mu goes with --mechanism gaussian");
    run(&["--epsilon", "1", "--mu", "1"], "--mu goes with --mechanism gaussian");
    run(&["--mechanism", "gaussian"], "--mechanism gaussian needs a budget: --mu M");
    run(&["--mechanism", "gaussian", "--epsilon", "1"], "--epsilon alone");
    run(&["--mechanism", "gaussian", "--mu", "0"], "--mu 0: must be a finite number > 0");
    run(&["--mechanism", "gaussian", "--mu", "1", "--conditioning", "ball"], "--conditioning");
    run(&["--mechanism", "gaussian", "--mu", "1", "--estimator", "extrinsic"], "--estimator frechet");
    run(&[], "give --epsilon E");
    // A μ beyond what the certificate reaches: refused before the Karcher pass, in rows, radius and μ.
    run(&["--mechanism", "gaussian", "--mu", "50"], "checked before computing the mean): no noise scale is certified");
    // SPD under the affine-invariant metric has a Gaussian mean for k ≤ 3 only (the log-Euclidean one to k = 8).
    let spd = dir.path().join("spd.csv");
    fs::write(
        &spd,
        "m11,m12,m13,m14,m21,m22,m23,m24,m31,m32,m33,m34,m41,m42,m43,m44\n1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1\n",
    )
    .unwrap();
    bin()
        .args(["mean", "--space", "spd:4", "--center", "identity", "--radius", "1", "--mechanism", "gaussian"])
        .args(["--mu", "1", "--input"])
        .arg(&spd)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("affine-invariant metric is offered for k ≤ 3"));
}

#[test]
fn the_ledger_charges_the_gdp_account_and_refuses_past_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let input = so3_csv(dir.path());
    let db = dir.path().join("l.sqlite");
    bin()
        .args(["budget", "ledger", "--db"])
        .arg(&db)
        .args(["init", "--dataset", "poses.csv", "--gdp", "1"])
        .assert()
        .success();
    let mean = || {
        let mut c = bin();
        c.args(["mean", "--space", "so3", "--center", "identity", "--radius", "30deg", "--mechanism", "gaussian"])
            .args(["--mu", "0.6", "--json", "--input"])
            .arg(&input)
            .arg("--ledger")
            .arg(&db);
        c
    };
    mean().assert().success();
    let out = bin()
        .args(["budget", "ledger", "--db"])
        .arg(&db)
        .args(["show", "--dataset", "poses.csv", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let spent = json(&out)["datasets"][0].clone();
    let gdp = spent["notions"].as_array().unwrap().iter().find(|n| n["account"] == "gdp").unwrap().clone();
    // Charged μ = 0.6 (the ledger rounds its sums outwards).
    let mu = gdp["total"]["mu"].as_f64().unwrap();
    assert!((0.6..0.6 + 1e-12).contains(&mu), "{gdp}");
    // The release's δ (the certificate's tail and far piece) is stated beside the total, not charged.
    assert_eq!((gdp["negligible_delta"].as_f64(), gdp["total"].get("delta")), (Some(2e-280), None), "{gdp}");
    // √(0.6² + 0.6²) ≈ 0.85 ≤ 1; a third would be √1.08 > 1: refused before the file is read, printing nothing.
    mean().assert().success();
    mean().assert().code(4).stdout(predicate::str::is_empty());
}

/// The auditor tests the Gaussian mean's noise on S² at the (ε, δ) its certified μ implies: no violation; the
/// control sampled with σ/2 under the same claim is flagged (exit 3). Seeded, false-alarm probability 1e-6.
#[test]
fn the_auditor_passes_the_gaussian_mean_and_flags_its_half_sigma_control() {
    let audit = |name: &str| {
        let mut c = bin();
        c.args(["audit", "--space", "sphere:3", "--mechanism", name, "--epsilon", "1", "--samples", "100000"])
            .args(["--seed", "7", "--json"]);
        c
    };
    let out = audit("riemannian-gaussian-mean").assert().success().get_output().stdout.clone();
    let v = json(&out);
    assert_eq!((v["verdict"].as_str(), v["flagged"].as_bool()), (Some("no_violation_found"), Some(false)), "{v}");
    audit("control:gaussian-mean-half-sigma").assert().code(3);
}

/// SPD(2) under the affine-invariant metric (the default): the exponential-wrapped Gaussian at the centre prints
/// the gdp guarantee asked, in the chart at the centre; the auditor finds no violation of the (ε, δ) its μ
/// implies and flags the control sampled with σ/2 (exit 3). Seeded, false-alarm probability 1e-6.
#[test]
fn the_affine_spd_gaussian_mean_releases_gdp_and_the_auditor_flags_its_half_sigma_control() {
    let dir = tempfile::tempdir().unwrap();
    let spd = dir.path().join("spd.csv");
    fs::write(&spd, "m11,m12,m21,m22\n2,0.5,0.5,1\n1.5,0.2,0.2,1.1\n1,0,0,1\n").unwrap();
    let out = bin()
        .args(["mean", "--space", "spd:2", "--center", "identity", "--radius", "1.5", "--mechanism", "gaussian"])
        .args(["--mu", "1", "--json", "--seed", "42", "--input"])
        .arg(&spd)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    assert_eq!(v["guarantee"], serde_json::json!({"notion": "gdp", "mu": 1.0}), "{v}");
    assert_eq!(v["grid"]["chart"].as_str(), Some("spd_log_at_center"), "{v}");
    let audit = |name: &str| {
        let mut c = bin();
        c.args(["audit", "--space", "spd:2", "--mechanism", name, "--epsilon", "1", "--seed", "2026", "--json"]);
        c
    };
    let out = audit("affine-gaussian-mean").assert().success().get_output().stdout.clone();
    let v = json(&out);
    assert_eq!((v["verdict"].as_str(), v["flagged"].as_bool()), (Some("no_violation_found"), Some(false)), "{v}");
    audit("control:affine-gaussian-mean-half-sigma").assert().code(3);
}
