//! End-to-end tests of `manifold-dp mean`: the private Fréchet mean of rotations, unit vectors and SPD
//! matrices, its printed guarantee and parameters, `--json`, and bad input (a point outside the ball, a
//! non-symmetric or indefinite matrix, a wrong column count, ε ≤ 0, a radius beyond r*) naming the file, row
//! and column with exit code 2.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::f64::consts::PI;
use std::fs;
use std::path::Path;

fn bin() -> Command {
    Command::cargo_bin("manifold-dp").unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn json(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap()
}

/// Rotations about a fixed axis by angles spread in [−0.3, 0.3]: their Fréchet mean is the identity.
fn rotations_csv(n: usize) -> String {
    let mut text = String::from("id,w,x,y,z\n");
    for i in 0..n {
        let a = -0.3 + 0.6 * i as f64 / (n - 1) as f64;
        text.push_str(&format!("{i},{},{},0,0\n", (a / 2.0).cos(), (a / 2.0).sin()));
    }
    text
}

#[test]
fn so3_mean_prints_the_release_guarantee_and_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("r.csv");
    fs::write(&input, rotations_csv(101)).unwrap();
    let out = bin()
        .args(["mean", "--space", "so3", "--center", "identity", "--radius", "20deg", "--epsilon", "1"])
        .args(["--input", s(&input), "--json", "--seed", "4"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    assert_eq!(v["n"], 101);
    assert_eq!(v["guarantee"]["notion"], "pure_dp");
    // Ask ε, pay ε: the guarantee is exactly the ε asked; the cost of rounding the release onto the public grid
    // (float safety: 1.4e-4 here) is taken inside it, the noise calibrated at ε′ with ε′ + cost ≤ ε.
    let eps = v["guarantee"]["epsilon"].as_f64().unwrap();
    assert_eq!(eps, 1.0);
    // The summary names that grid and its cost.
    assert_eq!(v["grid"]["chart"], "quaternion_cube_map");
    let cost = v["rounding_cost"].as_f64().unwrap();
    let inner = v["noise_epsilon"].as_f64().unwrap();
    assert!(cost > 0.0 && cost < 3e-4 && inner + cost <= 1.0 && inner > 1.0 - 2.0 * cost, "{cost} {inner}");
    assert_eq!(v["columns"], serde_json::json!(["w", "x", "y", "z"]));
    // Δ = 2r(2 − h)/(n h) with h = r·cot r on SO(3); unconditioned σ = Δ/ε.
    let r = 20f64.to_radians();
    let h = r / r.tan();
    let delta = 2.0 * r * (2.0 - h) / (101.0 * h);
    assert!((v["sensitivity"].as_f64().unwrap() - delta).abs() < 1e-9);
    assert!((v["sigma"].as_f64().unwrap() - delta / inner).abs() < 1e-9);
    assert_eq!(v["conditioned"], false);
    // The release is a unit quaternion near the identity (the exact mean): within 40 σ, a bound whose failure
    // probability under the SO(3) Laplace law is below 1e-12.
    let q: Vec<f64> = v["mean"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert!((q.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-12);
    let angle = 2.0 * q[1..].iter().map(|x| x * x).sum::<f64>().sqrt().atan2(q[0].abs());
    assert!(angle < 40.0 * delta, "{angle} vs σ = {delta}");
    // People get the same facts in words.
    bin()
        .args(["mean", "--space", "so3", "--center", "1,0,0,0", "--radius", "20deg", "--epsilon", "1"])
        .args(["--input", s(&input)])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("pure DP, epsilon = 1")
                .and(predicate::str::contains("Sensitivity: Δ ="))
                .and(predicate::str::contains("Expected error:"))
                .and(predicate::str::contains("Rounding: float-safe, on the quaternion cube-map grid"))
                .and(predicate::str::contains("w,x,y,z = ")),
        );
}

#[test]
fn sphere_and_euler_inputs_are_released_in_their_own_representation() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("d.csv");
    let rows: String = (0..50)
        .map(|i| {
            let t = 0.2 * (i as f64 / 49.0);
            let p = i as f64;
            format!("{},{},{}\n", t.sin() * p.cos(), t.sin() * p.sin(), t.cos())
        })
        .collect();
    fs::write(&input, format!("x1,x2,x3\n{rows}")).unwrap();
    let out = bin()
        .args(["mean", "--space", "sphere:3", "--center", "0,0,1", "--radius", "15deg", "--epsilon", "2"])
        .args(["--input", s(&input), "--json", "--seed", "5"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    let x: Vec<f64> = v["mean"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert_eq!(x.len(), 3);
    assert!((x.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-12);
    assert!((v["radius_deg"].as_f64().unwrap() - 15.0).abs() < 1e-9);

    let euler = dir.path().join("e.csv");
    fs::write(&euler, "yaw,pitch,roll\n10,0,0\n-10,0,0\n5,5,0\n").unwrap();
    let out = bin()
        .args(["mean", "--space", "so3", "--center", "0,0,0", "--radius", "30deg", "--epsilon", "1"])
        .args(["--format", "euler:ZYX:deg", "--columns", "yaw,pitch,roll", "--input", s(&euler), "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    assert_eq!(v["format"], "euler:ZYX:deg");
    assert_eq!(v["mean"].as_array().unwrap().len(), 3);
}

fn spd_csv(rows: &[[f64; 4]]) -> String {
    let mut t = String::from("m11,m12,m21,m22\n");
    for r in rows {
        t.push_str(&format!("{},{},{},{}\n", r[0], r[1], r[2], r[3]));
    }
    t
}

#[test]
fn spd_mean_is_positive_definite_with_the_flat_sensitivity() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("c.csv");
    let rows: Vec<[f64; 4]> =
        (0..200).map(|i| 1.0 + 0.3 * ((i as f64) * 0.7).sin()).map(|a| [a, 0.1, 0.1, 1.0 / a]).collect();
    fs::write(&input, spd_csv(&rows)).unwrap();
    for (metric, cond) in [("affine", "auto"), ("affine", "ball"), ("log-euclidean", "auto")] {
        let out = bin()
            .args(["mean", "--space", "spd:2", "--center", "identity", "--radius", "1", "--epsilon", "1"])
            .args(["--metric", metric, "--conditioning", cond, "--input", s(&input), "--json", "--seed", "6"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let v = json(&out);
        let m: Vec<f64> = v["mean"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        assert_eq!(m[1], m[2], "{metric}: symmetric");
        assert!(m[0] > 0.0 && m[0] * m[3] - m[1] * m[2] > 0.0, "{metric}: positive definite: {m:?}");
        // κ ≤ 0: Δ = 2r/n (plus the Karcher tolerance term, below 1e-11).
        assert!((v["sensitivity"].as_f64().unwrap() - 0.01).abs() < 1e-10, "{metric}");
        let factor = if cond == "ball" { 2.0 } else { 1.0 };
        let inner = v["noise_epsilon"].as_f64().unwrap();
        assert!((v["sigma"].as_f64().unwrap() - 0.01 * factor / inner).abs() < 1e-9, "{metric} {cond}");
        assert_eq!(v["conditioned"], cond == "ball");
        // Log-Euclidean releases are rounded in the log domain, affine-invariant ones in the log chart at the
        // centre; the cost is part of the guarantee.
        let chart = if metric == "log-euclidean" { "log_domain" } else { "spd_log_at_center" };
        assert_eq!(v["grid"]["chart"], chart, "{metric}");
        let cost = v["rounding_cost"].as_f64().unwrap();
        assert!(cost > 0.0 && cost < 1e-3, "{metric} {cond}: {cost}");
        assert_eq!(v["guarantee"]["epsilon"].as_f64().unwrap(), 1.0);
        assert!(inner + cost <= 1.0, "{inner} {cost}");
    }
    // A wide ball whose rounding would cost more than a tenth of ε is refused, saying why.
    let wide: Vec<[f64; 4]> = (0..200).map(|i| [1.0 + i as f64 / 100.0, 0.0, 0.0, 1.0]).collect();
    fs::write(&input, spd_csv(&wide)).unwrap();
    bin()
        .args(["mean", "--space", "spd:2", "--center", "identity", "--radius", "8", "--epsilon", "1"])
        .args(["--input", s(&input)])
        .assert()
        .failure()
        .stderr(predicate::str::contains("double precision"));
}

#[test]
fn bad_input_names_file_row_and_column_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let run = |csv: &str, extra: &[&str]| {
        let input = dir.path().join("bad.csv");
        fs::write(&input, csv).unwrap();
        let mut cmd = bin();
        cmd.args(["mean", "--input", s(&input)]).args(extra);
        cmd.assert().failure().code(2)
    };
    let spd = ["--space", "spd:2", "--center", "identity", "--radius", "1", "--epsilon", "1"];
    run(&spd_csv(&[[1.0, 0.0, 0.0, 1.0], [1.0, 0.5, 0.4, 1.0]]), &spd)
        .stderr(predicate::str::contains("row 2 (line 3)").and(predicate::str::contains("not symmetric")));
    run(&spd_csv(&[[1.0, 2.0, 2.0, 1.0]]), &spd).stderr(predicate::str::contains("not positive definite"));
    run("m11,m12,m21,m22\n1,0,0,nan\n", &spd)
        .stderr(predicate::str::contains("column \"m22\"").and(predicate::str::contains("row 1")));
    run(&spd_csv(&[[1.0, 0.0, 0.0, 1.0], [20.0, 0.0, 0.0, 1.0]]), &spd)
        .stderr(predicate::str::contains("row 2 (line 3)").and(predicate::str::contains("outside --radius")));
    run("m11,m12,m21\n1,0,0\n", &spd).stderr(predicate::str::contains("no column \"m22\""));
    let so3 = ["--space", "so3", "--center", "identity", "--radius", "10deg", "--epsilon", "1"];
    run("w,x,y,z\n1,0,0,0\n0.5,0.5,0.5,0.5\n", &so3)
        .stderr(predicate::str::contains("row 2").and(predicate::str::contains("outside --radius 10deg")));
    run("w,x,y,z\n1,0,0,0\n2,0,0,0\n", &so3).stderr(predicate::str::contains("row 2"));
    run("w,x,y,z\n1,0,0,0\n", &["--space", "so3", "--center", "identity", "--radius", "10deg", "--epsilon", "0"])
        .stderr(predicate::str::contains("--epsilon"));
    run("w,x,y,z\n1,0,0,0\n", &["--space", "so3", "--center", "identity", "--radius", "100deg", "--epsilon", "1"])
        .stderr(predicate::str::contains("r*"));
    run("x1,x2,x3\n0,0,1\n", &["--space", "sphere:3", "--center", "0,0,1", "--radius", "50deg", "--epsilon", "1"])
        .stderr(predicate::str::contains("r*"));
    run("x1,x2,x3\n0,0,1\n", &["--space", "sphere:3", "--center", "0,1", "--radius", "5deg", "--epsilon", "1"])
        .stderr(predicate::str::contains("--center 0,1: the centre needs 3 coordinates"));
    run("w,x,y,z\n", &so3).stderr(predicate::str::contains("no data rows"));
    run("w,x,y,z\n1,0,0,0\n", &["--space", "torus", "--center", "identity", "--radius", "1", "--epsilon", "1"])
        .stderr(predicate::str::contains("unknown space"));
    // The radius bound is per manifold: just inside π/4 is accepted on the sphere.
    let ok = dir.path().join("ok.csv");
    fs::write(&ok, "x1,x2,x3\n0,0,1\n0,0.1,0.99498743710662\n").unwrap();
    let inside = format!("{}rad", PI / 4.0 - 1e-6);
    bin()
        .args(["mean", "--space", "sphere:3", "--center", "0,0,1", "--radius", &inside, "--epsilon", "1"])
        .args(["--input", s(&ok)])
        .assert()
        .success();
}

/// Latitude/longitude, circle and time-of-day means in the units people use; rows outside the ball refused,
/// clipped or dropped, with the counts reported.
#[test]
fn direction_means_and_rows_outside_the_ball() {
    let dir = tempfile::tempdir().unwrap();
    let mean = |csv: &str, args: &[&str]| {
        let input = dir.path().join("in.csv");
        fs::write(&input, csv).unwrap();
        let out = bin().args(["mean", "--input", s(&input), "--json", "--seed", "3"]).args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let places = "lat,lon\n44.5,10\n45,9.5\n45.5,10\n45,10.5\n52.5,13.4\n";
    let base = ["--space", "latlon", "--center", "45,10", "--radius", "300km", "--epsilon", "1000"];
    let (code, _, err) = mean(places, &base);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("row 5 (line 6)") && err.contains("outside --radius 300km") && err.contains("--outside clip"),
        "{err}"
    );
    for (how, n, dropped, clipped) in [("clip", 5, 0, 1), ("drop", 4, 1, 0)] {
        let (code, out, err) = mean(places, &[&base[..], &["--outside", how]].concat());
        assert_eq!(code, Some(0), "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            (v["n"].as_u64(), v["dropped"].as_u64(), v["clipped"].as_u64()),
            (Some(n), Some(dropped), Some(clipped))
        );
        assert_eq!(v["outside"], how);
        // A drop mean's guarantee says what it does not protect, in the guarantee itself.
        let narrower =
            if how == "drop" { serde_json::json!("replace_one_row_in_ball") } else { serde_json::Value::Null };
        assert_eq!(v["guarantee"]["neighbouring"], narrower, "{how}");
        let m: Vec<f64> = serde_json::from_value(v["mean"].clone()).unwrap();
        // Berlin pulls a clipped mean a little north-east; a dropped one stays at the centre.
        assert!((m[0] - 45.0).abs() < 1.0 && (m[1] - 10.0).abs() < 1.0, "{how}: {m:?}");
    }
    // Times of day across midnight, the centre as a clock time: the mean of 23:00 and 01:00 is midnight.
    let (code, out, err) = mean(
        "time\n23:00\n01:00\n23:30\n00:30\n",
        &["--space", "timeofday", "--center", "00:00", "--radius", "2h", "--epsilon", "1000"],
    );
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let h = v["mean"][0].as_f64().unwrap();
    assert!(!(0.05..=23.95).contains(&h), "{h}");
    // Degrees on the circle.
    let (code, out, err) = mean(
        "angle\n350\n10\n0\n",
        &["--space", "circle", "--format", "deg", "--center", "0", "--radius", "30deg", "--epsilon", "1000"],
    );
    assert_eq!(code, Some(0), "{err}");
    let a = serde_json::from_str::<serde_json::Value>(&out).unwrap()["mean"][0].as_f64().unwrap();
    assert!(!(0.5..=359.5).contains(&a), "{a}");
    // A radius beyond r* is refused in the user's unit; a release noisier than the radius is warned about.
    let (code, _, err) =
        mean(places, &["--space", "latlon", "--center", "45,10", "--radius", "6000km", "--epsilon", "1"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--radius 6000km: must be below") && err.contains("5003") && err.contains("km"), "{err}");
    let (code, _, err) =
        mean(places, &[&base[..4], &["--radius", "300km", "--epsilon", "0.01", "--outside", "clip"]].concat());
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("warning: the expected error") && err.contains("exceeds the radius"), "{err}");
    // Bad centres are named.
    let (code, _, err) = mean(places, &["--space", "latlon", "--center", "45", "--radius", "300km", "--epsilon", "1"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--center 45: the centre needs 2 coordinates"), "{err}");
    let (code, _, err) =
        mean(places, &["--space", "latlon", "--center", "95,10", "--radius", "300km", "--epsilon", "1"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--center") && err.contains("atitude"), "{err}");
}

/// Plain numbers: per-row privatize with values clamped to --bounds, and bounded means of several columns,
/// with rows outside the bounds refused, dropped or clamped.
#[test]
fn real_columns_privatize_and_mean_within_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("quakes.csv");
    fs::write(&input, "place,depth,mag\na,10,4.5\nb,35,5.1\nc,700,6.2\nd,12,4.8\n").unwrap();
    let out = bin()
        .args(["privatize", "--space", "real", "--mechanism", "laplace", "--bounds", "0,100", "--epsilon", "1e4"])
        .args(["--columns", "depth,mag", "--input", s(&input), "--output", "-", "--seed", "1", "--quiet"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.iter().map(|r| r[0]).collect::<Vec<_>>(), ["a", "b", "c", "d"]);
    // Noise of scale 2·100/1e4 = 0.02 around the clamped values: 700 was clamped to 100.
    let depth: Vec<f64> = rows.iter().map(|r| r[1].parse().unwrap()).collect();
    for (got, want) in depth.iter().zip([10.0, 35.0, 100.0, 12.0]) {
        assert!((got - want).abs() < 1.0, "{depth:?}");
    }
    // --clamp-releases: the same draws clamped back into the bounds (at ε = 0.05 most would leave them).
    let clamped = |clamp: bool| {
        let out = bin()
            .args(["privatize", "--space", "real", "--mechanism", "laplace", "--bounds", "0,100", "--epsilon", "0.05"])
            .args(["--columns", "depth"])
            .args(["--input", s(&input), "--output", "-", "--seed", "1", "--quiet"])
            .args(if clamp { &["--clamp-releases"][..] } else { &[][..] })
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines().skip(1).map(|l| l.split(',').nth(1).unwrap().parse::<f64>().unwrap()).collect::<Vec<_>>()
    };
    let (raw, kept) = (clamped(false), clamped(true));
    assert!(raw.iter().any(|v| !(0.0..=100.0).contains(v)), "the control: {raw:?}");
    assert_eq!(raw.iter().map(|v| v.clamp(0.0, 100.0)).collect::<Vec<_>>(), kept);
    let refused = bin()
        .args(["privatize", "--space", "so3", "--mechanism", "laplace", "--epsilon", "1", "--clamp-releases"])
        .args(["--input", s(&input), "--output", "-"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--clamp-releases applies to --space real"));
    let mean = |extra: &[&str]| {
        bin()
            .args(["mean", "--space", "real", "--bounds", "0,100", "--epsilon", "1e4", "--columns", "depth,mag"])
            .args(["--input", s(&input), "--json"])
            .args(extra)
            .output()
            .unwrap()
    };
    let refused = mean(&[]);
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("row 3 (line 4)") && err.contains("outside --bounds 0,100"), "{err}");
    for (how, n, depth) in [("clip", 4, (10.0 + 35.0 + 100.0 + 12.0) / 4.0), ("drop", 3, 19.0)] {
        let out = mean(&["--outside", how]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["n"], n);
        // Δ₁ = 2·100/n: noise of scale Δ/ε below 0.1.
        assert!((v["sensitivity"].as_f64().unwrap() - 200.0 / n as f64).abs() < 1e-9);
        assert!((v["mean"][0].as_f64().unwrap() - depth).abs() < 1.0, "{how}: {v}");
    }
    // --bounds goes with real only, and real needs it; it takes epsilon, not --protect.
    bin()
        .args(["privatize", "--space", "real", "--mechanism", "laplace", "--epsilon", "1", "--columns", "depth"])
        .args(["--input", s(&input), "--output", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--bounds LO,HI goes with --space real"));
    bin()
        .args(["privatize", "--space", "real", "--mechanism", "laplace", "--bounds", "5,1", "--epsilon", "1"])
        .args(["--input", s(&input), "--output", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("LO must be below HI"));
}

/// Rotations mostly outside the ball (212 of 214 protein frames were clipped and nothing warned): a
/// clipped or dropped majority is warned about, saying what the expected error is the error of; a minority is not.
#[test]
fn a_mean_of_mostly_clipped_or_dropped_rows_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("frames.csv");
    // 30 rotations about x by angles in [−0.3, 0.3] rad, then 70 by 2.5 rad: the ball of radius 0.5 holds 30 %.
    let mut text = rotations_csv(30);
    for i in 30..100 {
        text.push_str(&format!("{i},{},{},0,0\n", (1.25f64).cos(), (1.25f64).sin()));
    }
    fs::write(&input, text).unwrap();
    let run = |outside: &str, input: &Path| {
        let out = bin()
            .args(["mean", "--space", "so3", "--center", "1,0,0,0", "--radius", "0.5", "--epsilon", "1"])
            .args(["--outside", outside, "--seed", "3", "--input", s(input)])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stderr).unwrap()
    };
    let err = run("clip", &input);
    assert!(err.contains("warning: 70 of 100 rows (70 %) lay outside the radius and were moved onto"), "{err}");
    assert!(err.contains("not of your data"), "{err}");
    let err = run("drop", &input);
    assert!(err.contains("warning: 70 of 100 rows (70 %) lay outside the radius and were left out"), "{err}");
    assert!(err.contains("the mean of the 30 rows inside"), "{err}");
    let few = dir.path().join("few.csv");
    fs::write(&few, rotations_csv(30) + "30,0.3153223623952687,0.9489846193555862,0,0\n").unwrap();
    assert!(!run("clip", &few).contains("lay outside"));
}

/// Per-column bounds on real (`--bounds 0,700 --columns depth,mag` gave a mean magnitude of 8.42
/// against a true 4.62): `--bounds depth=0:700,mag=4:7` names the columns and bounds each; Δ₁ adds the widths.
#[test]
fn real_means_take_each_columns_own_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("quakes.csv");
    let mut text = String::from("depth,mag\n");
    for i in 0..200 {
        text.push_str(&format!("{},{}\n", 10 + (i * 3) % 600, 4.0 + (i % 30) as f64 / 10.0));
    }
    fs::write(&input, text).unwrap();
    let out = bin()
        .args(["mean", "--space", "real", "--bounds", "depth=0:700,mag=4:7", "--epsilon", "100", "--json"])
        .args(["--seed", "1", "--input", s(&input)])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out.stdout);
    assert_eq!(v["columns"], serde_json::json!(["depth", "mag"]));
    assert_eq!(v["sensitivity"].as_f64().unwrap(), (700.0 + 3.0) / 200.0);
    let mag = v["mean"][1].as_f64().unwrap();
    assert!((mag - 5.45).abs() < 0.5, "{mag}");
    // Names that disagree with --columns, and malformed pairs, are refused naming the flag.
    bin()
        .args(["mean", "--space", "real", "--bounds", "depth=0:700,mag=4:7", "--columns", "mag,depth"])
        .args(["--epsilon", "1", "--input", s(&input)])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("name different columns"));
    bin()
        .args(["mean", "--space", "real", "--bounds", "depth=0-700", "--epsilon", "1", "--input", s(&input)])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("NAME=LO:HI"));
}

/// A mean whose float-safe rounding would cost more than a tenth of ε is refused once the row count
/// is known, before the Karcher iteration (a row outside the ball, which the iteration's pass would report, is
/// not reached), in the user's terms (rows, --radius as given, --epsilon) and without the SPD clause; a mean at a
/// large κ (beyond the sampler's old 1e6) is released. The refused case is on the circle within 10⁻⁹ rad at
/// ε = 100, beyond the circle's relative release (§4's absolute turn grid); on S², conditioned on the ball or not, the relative-error release (`float_safety.md` §3i) plans the
/// same rows within 50 m at ε = 0.001, and the pass then reaches the row outside the ball.
#[test]
fn costly_roundings_are_refused_before_the_mean_in_the_users_terms() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    let mut csv = String::from("angle\n");
    for _ in 0..999 {
        csv.push_str("0\n");
    }
    // Far outside the ball: the pass would refuse this row, so a refusal that names it came too late.
    csv.push_str("3\n");
    fs::write(&input, &csv).unwrap();
    // Within 10⁻⁹ rad at ε = 100 the noise (σ ≈ 2·10⁻¹⁴) is finer than the circle's relative release resolves
    // (cells below 2^-50 turns), and §4's turn grid would cost about twice ε.
    let args = ["--space", "circle", "--center", "0", "--radius", "1e-9rad", "--epsilon", "100"];
    let out = bin().args(["mean", "--input", s(&input), "--seed", "1"]).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("before computing the mean") && err.contains("1000 rows"), "{err}");
    assert!(err.contains("--radius 1e-9rad") && err.contains("--epsilon 100") && !err.contains("SPD"), "{err}");
    assert!(!err.contains("row 1000"), "{err}");
    // --outside drop: refused at the 999 rows in the ball (the far row left out), before the computation's pass
    // reaches the last row, which is not a number.
    fs::write(&input, format!("{csv}nan\n")).unwrap();
    let out =
        bin().args(["mean", "--input", s(&input), "--seed", "1", "--outside", "drop"]).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("checked before computing the mean): 999 rows, --radius 1e-9rad"), "{err}");
    assert!(!err.contains("row 1001"), "{err}");
    let mut csv = String::from("lat,lon\n");
    for _ in 0..999 {
        csv.push_str("45,10\n");
    }
    csv.push_str("50,10\n");
    fs::write(&input, &csv).unwrap();
    let args = ["--space", "latlon", "--center", "45,10", "--radius", "50m", "--epsilon", "0.001"];
    for conditioning in ["ball", "none"] {
        let out = bin()
            .args(["mean", "--input", s(&input), "--seed", "1", "--conditioning", conditioning])
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("row 1000") && !err.contains("before computing the mean"), "{conditioning}: {err}");
    }
    // 10⁴ rows within 1 km at ε = 100: κ ≈ 3·10⁹, refused on main by the sampler's cap of 1e6.
    let mut csv = String::from("lat,lon\n");
    for i in 0..10_000 {
        csv.push_str(&format!("{},{}\n", 45.0 + 0.001 * ((i % 7) as f64 - 3.0), 10.0 + 0.001 * ((i % 5) as f64 - 2.0)));
    }
    fs::write(&input, &csv).unwrap();
    let args = ["--space", "latlon", "--center", "45,10", "--radius", "1km", "--epsilon", "100", "--json"];
    let out = bin().args(["mean", "--input", s(&input), "--seed", "1"]).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out.stdout);
    assert!(v["rounding_cost"].as_f64().unwrap() <= 1.0, "{v}");
}

/// A rounding that costs more than 1 % of ε is warned once the rows are counted, before the Karcher computation,
/// in the user's terms (the rows, --radius as given, --epsilon): with a row the pass then refuses, the warning is
/// on stderr before that refusal; a release that succeeds warns once (not again after it). With --outside drop
/// the rows in the ball are counted first, and the warning at that count comes before the Karcher computation
/// too: before a row that is not a point, which the computation's pass then refuses.
#[test]
fn a_costly_rounding_is_warned_before_the_mean_in_the_users_terms() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    let mut csv = String::from("angle\n");
    for _ in 0..999 {
        csv.push_str("0\n");
    }
    // Far outside the ball: the pass refuses this row, after the warning.
    csv.push_str("3\n");
    fs::write(&input, &csv).unwrap();
    // Within 10⁻⁸ rad at ε = 100: beyond the circle's relative release (cells below 2^-50 turns), §4's turn grid
    // costs 3.84 % of ε.
    let args = ["--space", "circle", "--center", "0", "--radius", "1e-8rad", "--epsilon", "100", "--seed", "1"];
    let out = bin().args(["mean", "--input", s(&input)]).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let warned = err.find("warning: rounding the mean of 1000 rows within --radius 1e-8rad at --epsilon 100");
    let refused = err.find("row 1000");
    assert!(matches!((warned, refused), (Some(w), Some(r)) if w < r), "{err}");
    assert!(err.contains("more than 1 %") && err.contains("(3.84 %"), "{err}");
    // Without the far row: released, warned once.
    let clean = csv.replace("\n3\n", "\n0\n");
    fs::write(&input, &clean).unwrap();
    let out = bin().args(["mean", "--input", s(&input)]).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("float-safely").count(), 1, "{err}");
    assert!(err.contains("warning: rounding the mean of 1000 rows"), "{err}");
    // --outside drop: at the 999 rows in the ball (the far row left out), before the computation's pass
    // reaches the last row, which is not a number; released, warned once.
    let dropping = csv.replace("\n3\n", "\n3\nnan\n");
    fs::write(&input, &dropping).unwrap();
    let out = bin().args(["mean", "--input", s(&input), "--outside", "drop"]).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let warned = err.find("warning: rounding the mean of 999 rows within --radius 1e-8rad at --epsilon 100");
    let refused = err.find("row 1001");
    assert!(matches!((warned, refused), (Some(w), Some(r)) if w < r), "{err}");
    fs::write(&input, csv.replace("\n3\n", "\n3\n0\n")).unwrap();
    let out = bin().args(["mean", "--input", s(&input), "--outside", "drop"]).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("float-safely").count(), 1, "{err}");
    assert!(err.contains("warning: rounding the mean of 1000 rows within --radius"), "{err}");
}
