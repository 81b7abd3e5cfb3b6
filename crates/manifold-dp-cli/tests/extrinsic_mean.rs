//! End-to-end tests of `manifold-dp mean --estimator extrinsic`: rows anywhere on the space, no centre or
//! radius; the JSON keys beside the Fréchet mean's, the guarantee with its neighbouring relation, the
//! instability warning, and bad input (a ball's options given, zero rows, a space without an embedding).

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::fs;
use std::path::Path;

fn bin() -> Command {
    Command::cargo_bin("manifold-dp").unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Hamilton product (w, x, y, z).
fn mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

/// n rotations R0·exp(v_i), |v_i| up to 1.5 rad about axes that cycle through the three coordinate axes and
/// back (so their extrinsic mean is R0), R0 = 150° about z: far from the identity, spread over ±86°.
fn spread_rotations(n: usize) -> (String, [f64; 4]) {
    let r0 = [(75f64.to_radians()).cos(), 0.0, 0.0, (75f64.to_radians()).sin()];
    let mut text = String::from("w,x,y,z\n");
    for i in 0..n {
        let angle = 1.5 * (if i % 2 == 0 { 1.0 } else { -1.0 }) * ((i / 2) % 7) as f64 / 6.0;
        let mut v = [(angle / 2.0).cos(), 0.0, 0.0, 0.0];
        v[1 + (i / 14) % 3] = (angle / 2.0).sin();
        let q = mul(r0, v);
        text.push_str(&format!("{},{},{},{}\n", q[0], q[1], q[2], q[3]));
    }
    (text, r0)
}

#[test]
fn an_extrinsic_so3_mean_needs_no_ball_and_states_its_guarantee() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("frames.csv");
    let n = 420;
    let (text, r0) = spread_rotations(n);
    fs::write(&input, text).unwrap();
    let out = bin()
        .args(["mean", "--space", "so3", "--estimator", "extrinsic", "--epsilon", "5"])
        .args(["--input", s(&input), "--json", "--seed", "3"])
        .assert()
        .success()
        .get_output()
        .clone();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["estimator"], "extrinsic");
    assert_eq!(v["n"], n);
    let g = &v["guarantee"];
    assert_eq!((g["notion"].as_str(), g["epsilon"].as_f64()), (Some("pure_dp"), Some(5.0)));
    assert_eq!((g.get("neighbouring"), g["rows"].as_u64()), (None, Some(n as u64)), "replace-one, the default");
    assert_eq!(g["domain"], "rows anywhere on SO(3)");
    // The K-norm direction's negligible δ_N·(1 + e^ε), stated (float_safety.md §6).
    assert!(g["delta"].as_f64().is_some_and(|d| d > 0.0 && d < 1e-290), "{g}");
    // Δ = 2√2/n plus twice a float error far below it.
    let delta = v["sensitivity"].as_f64().unwrap();
    assert!(delta >= 2.0 * 2f64.sqrt() / n as f64 && delta < 2.0 * 2f64.sqrt() / n as f64 * (1.0 + 1e-6));
    let (cost, inner) = (v["rounding_cost"].as_f64().unwrap(), v["noise_epsilon"].as_f64().unwrap());
    assert!(cost > 0.0 && inner + cost <= 5.0 && cost < 0.01);
    assert_eq!(v["grid"]["chart"], "embedding");
    assert_eq!(v["embedded"].as_array().unwrap().len(), 9);
    assert_eq!(v["stable"], true);
    // The release lies within its stated bound of R0 (the exact extrinsic mean here, up to the data's asymmetry).
    let m: Vec<f64> = v["mean"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    let dot = (m[0] * r0[0] + m[1] * r0[1] + m[2] * r0[2] + m[3] * r0[3]).abs().min(1.0);
    let angle = 2.0 * dot.acos();
    let bound = v["error_bound"].as_f64().unwrap();
    assert!(angle < bound + 0.05, "{angle} vs {bound}");
    assert!((v["error_bound_deg"].as_f64().unwrap() - bound.to_degrees()).abs() < 1e-9);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("unstable"));
    // The text form says the same.
    bin()
        .args(["mean", "--space", "so3", "--estimator", "extrinsic", "--epsilon", "5"])
        .args(["--input", s(&input), "--seed", "3"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Private extrinsic mean of 420 points on SO(3)"))
        .stdout(predicate::str::contains("Guarantee: pure DP, epsilon = 5"))
        .stdout(predicate::str::contains("differ in one row (replaced)"))
        .stdout(predicate::str::contains("with probability 0.95"));
}

#[test]
fn circle_latlon_and_timeofday_means_come_back_in_their_own_form() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("t.csv");
    fs::write(&input, "time\n23:30\n00:30\n23:00\n01:00\n").unwrap();
    let out = bin()
        .args(["mean", "--space", "timeofday", "--estimator", "extrinsic", "--epsilon", "1000"])
        .args(["--input", s(&input), "--json", "--seed", "1"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let h = v["mean"][0].as_f64().unwrap();
    assert!(!(0.1..=23.9).contains(&h), "{h}");
    assert!(v["error_bound_h"].as_f64().is_some());
    let input = dir.path().join("ll.csv");
    // Points around the whole Earth's equator but one: their mean direction is the pole-ward gap's opposite.
    fs::write(&input, "lat,lon\n0,0\n0,90\n0,180\n10,-90\n").unwrap();
    bin()
        .args(["mean", "--space", "latlon", "--estimator", "extrinsic", "--epsilon", "1000"])
        .args(["--input", s(&input), "--seed", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("S^2 embedded as unit vectors of R^3"));
}

#[test]
fn evenly_spread_data_get_the_instability_warning() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("even.csv");
    // Twelve angles evenly around the circle: the exact extrinsic mean is 0.
    let text: String =
        std::iter::once("angle\n".to_string()).chain((0..12).map(|i| format!("{}\n", i as f64 * 30.0))).collect();
    fs::write(&input, text).unwrap();
    let out = bin()
        .args(["mean", "--space", "circle", "--format", "deg", "--estimator", "extrinsic", "--epsilon", "1"])
        .args(["--input", s(&input), "--json", "--seed", "2"])
        .assert()
        .success()
        .get_output()
        .clone();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["stable"], false);
    assert!(v["degeneracy_probability"].as_f64().unwrap() > 1e-3);
    assert!(v["error_bound"].is_null());
    // Drawn around a mean of 0, the release's degeneracy probability is a p-value: uniform, here well above 0.
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: the projection is unstable"));
}

#[test]
fn a_balls_options_zero_rows_and_spaces_without_an_embedding_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("r.csv");
    fs::write(&input, spread_rotations(30).0).unwrap();
    for extra in
        [&["--center", "identity"][..], &["--radius", "30deg"], &["--outside", "clip"], &["--conditioning", "ball"]]
    {
        bin()
            .args(["mean", "--space", "so3", "--estimator", "extrinsic", "--epsilon", "1", "--input", s(&input)])
            .args(extra)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!("{} is not used by --estimator extrinsic", extra[0])));
    }
    let empty = dir.path().join("empty.csv");
    fs::write(&empty, "w,x,y,z\n").unwrap();
    bin()
        .args(["mean", "--space", "so3", "--estimator", "extrinsic", "--epsilon", "1", "--input", s(&empty)])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("has no data rows"));
    bin()
        .args(["mean", "--space", "spd:2", "--estimator", "extrinsic", "--epsilon", "1", "--input", s(&input)])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the extrinsic estimator applies to so3, sphere:N, latlon"));
    // The Fréchet mean still needs its ball.
    bin()
        .args(["mean", "--space", "so3", "--estimator", "frechet", "--epsilon", "1", "--input", s(&input)])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give --center and --radius"));
    // A row that is not a rotation is named.
    let bad = dir.path().join("bad.csv");
    fs::write(&bad, "w,x,y,z\n1,0,0,0\n2,0,0,0\n").unwrap();
    bin()
        .args(["mean", "--space", "so3", "--estimator", "extrinsic", "--epsilon", "1", "--input", s(&bad)])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("row 2"));
}
