//! `manifold-dp budget compose|convert`: totals, the standard guarantees beside them, conversions and refusals.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn budget(args: &[&str]) -> Command {
    let mut c = Command::cargo_bin("manifold-dp").unwrap();
    c.arg("budget").args(args);
    c
}

fn json(args: &[&str]) -> Value {
    let out = budget(args).arg("--json").assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)))
}

#[test]
fn compose_totals_in_each_notion() {
    // Ten rotation means at ε = 0.5 (docs/accounting.md): pure 5, and each release converted before composing.
    let v = json(&["compose", "--notion", "pure", "0.5", "--times", "10"]);
    assert_eq!(v["releases"], 10);
    assert_eq!(v["total"]["notion"], "pure_dp");
    assert!((v["total"]["epsilon"].as_f64().unwrap() - 5.0).abs() < 1e-12);
    assert!((v["implied"]["zcdp"]["rho"].as_f64().unwrap() - 1.25).abs() < 1e-12);
    let mu = v["implied"]["gdp"]["mu"].as_f64().unwrap();
    assert!((mu - 1.97292).abs() < 1e-5, "{mu}");
    assert_eq!(v["advanced"]["notion"], "approx_dp");
    // GDP adds in quadrature; parallel takes the largest.
    let g = json(&["compose", "--notion", "gdp", "0.3", "0.4"]);
    assert!((g["total"]["mu"].as_f64().unwrap() - 0.5).abs() < 1e-12);
    let p = json(&["compose", "--notion", "gdp", "0.3", "0.4", "--parallel", "--partition-key", "site"]);
    assert_eq!(p["total"]["mu"].as_f64().unwrap(), 0.4);
    assert_eq!(p["composition"], "parallel");
    assert_eq!(p["partition_key"], "site");
    // Approximate values are epsilon,delta pairs.
    let a = json(&["compose", "--notion", "approx", "1,1e-6", "0.5,1e-7"]);
    assert!((a["total"]["epsilon"].as_f64().unwrap() - 1.5).abs() < 1e-12);
    // Metric DP carries its metric and unit.
    let m = json(&["compose", "--notion", "metric", "2", "3", "--metric", "sphere_surface", "--unit", "km"]);
    assert_eq!(m["total"]["metric"], "sphere_surface");
    assert_eq!(m["total"]["unit"], "km");
}

#[test]
fn parallel_composition_needs_a_public_partition_key() {
    // Without a public key the part of a record may depend on its values, and replacing one record can then
    // change two parts: refused (exit 2), with what to change.
    budget(&["compose", "--notion", "pure", "1", "1", "--parallel"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--partition-key").and(predicate::str::contains("without --parallel")));
    budget(&["compose", "--notion", "pure", "1", "1", "--parallel", "--partition-key", " "]).assert().code(2);
    // A key without --parallel is a mistake too.
    budget(&["compose", "--notion", "pure", "1", "1", "--partition-key", "site"]).assert().code(2);
    budget(&["compose", "--notion", "pure", "1", "1", "--parallel", "--partition-key", "site"])
        .assert()
        .success()
        .stdout(predicate::str::contains("parallel (parts split by the public key \"site\")"));
    // Sequential JSON says there is no key.
    assert_eq!(json(&["compose", "--notion", "pure", "1", "1"])["partition_key"], Value::Null);
}

#[test]
fn rao_totals_never_stand_alone() {
    let gaussian = json(&["compose", "--notion", "rao", "0.5", "--times", "4"]);
    assert!((gaussian["total"]["theta"].as_f64().unwrap() - 1.0).abs() < 1e-12);
    assert!((gaussian["implied"]["gdp"]["mu"].as_f64().unwrap() - 1.0).abs() < 1e-12);
    assert_eq!(gaussian["has_testing_meaning"], false);
    // Outside the Gaussian family the refusal is the message, in text and JSON.
    let laplace = json(&["compose", "--notion", "rao", "0.5", "--family", "laplace"]);
    assert!(laplace["implied"]["gdp"]["refused"].as_str().unwrap().contains("not a test"));
    budget(&["compose", "--notion", "rao", "0.5", "--family", "laplace"])
        .assert()
        .success()
        .stdout(predicate::str::contains("implies no gdp guarantee").and(predicate::str::contains("note:")));
}

#[test]
fn convert_and_refuse() {
    let v = json(&["convert", "--from", "gdp", "1.0", "--to", "approx", "--delta", "1e-6"]);
    let eps = v["result"]["epsilon"].as_f64().unwrap();
    assert!((eps - 4.88655).abs() < 1e-4, "{eps}");
    let curve = json(&["convert", "--from", "gdp", "1.0", "--to", "approx", "--curve"]);
    assert!(curve["curve"].as_array().unwrap().len() >= 10);
    let pure = json(&["convert", "--from", "metric", "2", "--to", "pure", "--diameter", "3.141592653589793"]);
    assert!(pure["result"]["epsilon"].as_f64().unwrap() >= 2.0 * std::f64::consts::PI);
    // Conversions that do not hold: exit 2 with the reason.
    budget(&["convert", "--from", "approx", "1,1e-6", "--to", "zcdp"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unbounded loss"));
    budget(&["convert", "--from", "metric", "2", "--to", "pure"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("diameter"));
    budget(&["convert", "--from", "rao", "1", "--family", "gg:3", "--to", "gdp"]).assert().code(2);
}

/// A release's pure guarantee up to its negligible δ converts to GDP up to the same δ, printed; to (ε, δ) the
/// GDP δ adds δ·(1 + e^ε); zCDP, which has no δ, is refused with the routes that hold (`accounting.md`, "GDP up
/// to δ").
#[test]
fn a_negligible_delta_travels_through_convert() {
    let v = json(&["convert", "--from", "pure", "1,1e-300", "--to", "gdp"]);
    let plain = json(&["convert", "--from", "pure", "1", "--to", "gdp"]);
    assert_eq!(v["result"]["mu"], plain["result"]["mu"]);
    assert_eq!((v["result"]["delta"].as_f64(), plain["result"].get("delta")), (Some(1e-300), None), "{v}");
    budget(&["convert", "--from", "pure", "1,1e-300", "--to", "gdp"])
        .assert()
        .success()
        .stdout(predicate::str::contains("from:   pure DP, epsilon = 1 + delta ≤ 1e-300"))
        .stdout(
            predicate::str::contains("to:     Gaussian DP, mu = ").and(predicate::str::contains("+ delta ≤ 1e-300")),
        );
    budget(&["convert", "--from", "pure", "1,1e-300", "--to", "zcdp"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("convert to gdp"));
    let a = json(&["convert", "--from", "gdp", "1,2e-280", "--to", "approx", "--epsilon", "2"]);
    let exact = json(&["convert", "--from", "gdp", "1", "--to", "approx", "--epsilon", "2"]);
    let (d, d0) = (a["result"]["delta"].as_f64().unwrap(), exact["result"]["delta"].as_f64().unwrap());
    assert!(d > d0 && d <= d0 * (1.0 + 1e-15) + 1e-278, "{d} {d0}");
    budget(&["convert", "--from", "gdp", "1,2e-280", "--to", "zcdp"]).assert().code(2);
    budget(&["convert", "--from", "pure", "1,2", "--to", "gdp"]).assert().code(2);
    budget(&["convert", "--from", "zcdp", "1,1e-300", "--to", "approx", "--delta", "1e-6"]).assert().code(2);
}

#[test]
fn bad_values_exit_2() {
    budget(&["compose", "--notion", "pure", "-1"]).assert().code(2);
    budget(&["compose", "--notion", "pure", "abc"]).assert().code(2).stderr(predicate::str::contains("write a number"));
    budget(&["compose", "--notion", "approx", "1"]).assert().code(2).stderr(predicate::str::contains("epsilon,delta"));
    budget(&["compose", "--notion", "approx", "1,2"]).assert().code(2);
    budget(&["compose", "--notion", "rao", "1", "--family", "cauchy"]).assert().code(2);
    budget(&["compose", "--notion", "metric", "1", "--unit", "furlong"]).assert().code(2);
    budget(&["compose", "--notion", "pure", "1", "--times", "0"]).assert().code(2);
    budget(&["convert", "--from", "renyi", "1", "--to", "pure"]).assert().code(2);
}

#[test]
fn local_releases_compose_by_their_renyi_curves() {
    // 1000 SO(3) Laplace releases of one rotation at ε = 0.1 per rad: linear 100 per rad (314 between any two
    // rotations); by the Rényi curve (docs/renyi_local.md) about 22 at δ = 1e-6.
    let v = json(&[
        "compose",
        "--notion",
        "metric",
        "--metric",
        "so3",
        "--local-mechanism",
        "laplace",
        "0.1",
        "--times",
        "1000",
    ]);
    assert_eq!(v["renyi"]["total"]["notion"], "approx_dp");
    assert_eq!(v["renyi"]["total"]["delta"].as_f64().unwrap(), 1e-6);
    let eps = v["renyi"]["total"]["epsilon"].as_f64().unwrap();
    assert!(eps > 15.0 && eps < 30.0, "{eps}");
    // Without the flag nothing changes; a mechanism of another space, a non-metric notion and a metric that
    // names no space are refused as bad input.
    assert!(json(&["compose", "--notion", "metric", "--metric", "so3", "0.1"]).get("renyi").is_none());
    budget(&["compose", "--notion", "metric", "--metric", "so3", "--local-mechanism", "vmf", "0.1"]).assert().code(2);
    budget(&["compose", "--notion", "pure", "--local-mechanism", "laplace", "0.1"]).assert().code(2);
    budget(&["compose", "--notion", "metric", "--metric", "so3_geodesic", "--local-mechanism", "laplace", "0.1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("space"));
}
