//! End-to-end tests of `manifold-dp mean --space spd:K --metric log-euclidean` for K up to 8: the Laplace mean
//! (pure ε-DP) and the Gaussian mean (`--mechanism gaussian --mu M`, or `--epsilon E --delta D`), their JSON
//! (guarantee, Δ = 2r/n, grid in the log domain, no rounding cost for the Gaussian), the refusal of K = 9, and the
//! auditor's `log-euclidean-gaussian-mean` with its σ-halved control.

use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

fn bin() -> Command {
    Command::cargo_bin("manifold-dp").unwrap()
}

fn json(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

/// 30 diagonal SPD(k) matrices diag(e^{a_i}) with |a| ≤ 0.5 (within 1.5 of I), row-major columns m11…mkk.
fn spd_csv(dir: &Path, k: usize) -> PathBuf {
    let names: Vec<String> = (1..=k).flat_map(|i| (1..=k).map(move |j| format!("m{i}{j}"))).collect();
    let mut text = names.join(",") + "\n";
    for r in 0..30 {
        let row: Vec<String> = (0..k * k)
            .map(|e| {
                if e % (k + 1) == 0 {
                    let i = e / (k + 1);
                    format!("{}", (0.5 * ((r * 7 + i * 3) as f64).sin() / (k as f64).sqrt()).exp())
                } else {
                    "0".into()
                }
            })
            .collect();
        text.push_str(&(row.join(",") + "\n"));
    }
    let p = dir.join(format!("spd{k}.csv"));
    fs::write(&p, text).unwrap();
    p
}

fn mean(k: usize, input: &Path, budget: &[&str]) -> Command {
    let mut c = bin();
    c.args(["mean", "--space", &format!("spd:{k}"), "--metric", "log-euclidean", "--center", "identity"])
        .args(["--radius", "1.5", "--seed", "42", "--json", "--input"])
        .arg(input)
        .args(budget);
    c
}

#[test]
fn laplace_and_gaussian_means_up_to_k_8() {
    let dir = tempfile::tempdir().unwrap();
    for k in [4, 8] {
        let input = spd_csv(dir.path(), k);
        let out = mean(k, &input, &["--epsilon", "1"]).assert().success().get_output().stdout.clone();
        let v = json(&out);
        assert_eq!(v["guarantee"]["notion"], "pure_dp", "{v}");
        assert_eq!(v["grid"]["chart"], "log_domain", "{v}");
        assert!((v["sensitivity"].as_f64().unwrap() - 0.1).abs() < 1e-6, "{v}");
        assert_eq!(v["mean"].as_array().unwrap().len(), k * k);
        let out =
            mean(k, &input, &["--mechanism", "gaussian", "--mu", "1"]).assert().success().get_output().stdout.clone();
        let v = json(&out);
        assert_eq!((v["guarantee"]["notion"].as_str(), v["guarantee"]["mu"].as_f64()), (Some("gdp"), Some(1.0)), "{v}");
        assert_eq!(v["rounding_cost"].as_f64(), Some(0.0), "{v}");
        assert_eq!(v["grid"]["chart"], "log_domain", "{v}");
        assert!((v["sigma"].as_f64().unwrap() - 0.1).abs() < 1e-6, "{v}");
        let m = v["mean"].as_array().unwrap();
        assert!((m[1].as_f64().unwrap() - m[k].as_f64().unwrap()).abs() == 0.0, "symmetric: {v}");
        // (ε, δ) converted to μ through the exact GDP curve.
        let out = mean(k, &input, &["--mechanism", "gaussian", "--epsilon", "1", "--delta", "1e-6"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let mu = json(&out)["guarantee"]["mu"].as_f64().unwrap();
        assert!(mu > 0.2 && mu < 0.3, "{mu}");
    }
    let input = spd_csv(dir.path(), 2);
    let refused = mean(9, &input, &["--epsilon", "1"]).assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&refused).contains("k ≤ 8"), "{}", String::from_utf8_lossy(&refused));
}

/// The auditor tests the log-Euclidean Gaussian mean's noise on SPD(3) at the (ε, δ) its μ implies: no violation;
/// the control sampled with σ/2 under the same claim is flagged (exit 3). Seeded, false-alarm probability 1e-6.
#[test]
fn the_auditor_passes_the_log_euclidean_gaussian_mean_and_flags_its_half_sigma_control() {
    let audit = |name: &str| {
        let mut c = bin();
        c.args(["audit", "--space", "spd:3", "--mechanism", name, "--epsilon", "1", "--samples", "100000"])
            .args(["--seed", "7", "--json"]);
        c
    };
    let out = audit("log-euclidean-gaussian-mean").assert().success().get_output().stdout.clone();
    let v = json(&out);
    assert_eq!((v["verdict"].as_str(), v["flagged"].as_bool()), (Some("no_violation_found"), Some(false)), "{v}");
    audit("control:gaussian-mean-half-sigma").assert().code(3);
}

/// A ledger charges the log-Euclidean Gaussian mean to the gdp account as the other Gaussian means: μ = 0.6
/// twice fits a GDP budget of 1 (√0.72 ≈ 0.85), a third release is refused (exit 4) before anything is printed.
#[test]
fn the_ledger_charges_the_gdp_account() {
    let dir = tempfile::tempdir().unwrap();
    let input = spd_csv(dir.path(), 5);
    let db = dir.path().join("l.sqlite");
    bin()
        .args(["budget", "ledger", "--db"])
        .arg(&db)
        .args(["init", "--dataset", "covs", "--gdp", "1"])
        .assert()
        .success();
    let release = || {
        let mut c = bin();
        c.args(["mean", "--space", "spd:5", "--metric", "log-euclidean", "--center", "identity", "--radius", "1.5"])
            .args(["--mechanism", "gaussian", "--mu", "0.6", "--json", "--dataset", "covs", "--input"])
            .arg(&input)
            .arg("--ledger")
            .arg(&db);
        c
    };
    release().assert().success();
    let out = bin()
        .args(["budget", "ledger", "--db"])
        .arg(&db)
        .args(["show", "--dataset", "covs", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let spent = json(&out)["datasets"][0].clone();
    let gdp = spent["notions"].as_array().unwrap().iter().find(|n| n["account"] == "gdp").unwrap().clone();
    let mu = gdp["total"]["mu"].as_f64().unwrap();
    assert!((0.6..0.6 + 1e-12).contains(&mu), "{gdp}");
    release().assert().success();
    release().assert().code(4).stdout(predicates::str::is_empty());
}
