//! End-to-end tests of the `manifold-dp` binary: the CLI contract's spellings, outputs and exit codes.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn cmd() -> Command {
    Command::cargo_bin("manifold-dp").unwrap()
}

/// `sample`'s standard output for `args`.
fn sample_text(args: &[&str]) -> String {
    String::from_utf8(cmd().arg("sample").args(args).assert().success().get_output().stdout.clone()).unwrap()
}

#[test]
fn sample_is_the_same_whatever_the_thread_count_and_equals_keyed_privatize() {
    // Across several parallel tasks and batches (4096 rows a task), with a last partial task.
    let args = ["--space", "sphere:3", "--mechanism", "purkayastha", "--epsilon", "2", "-n", "20000", "--seed", "11"];
    let one = sample_text(&[&args[..], &["--threads", "1"]].concat());
    assert_eq!(one, sample_text(&[&args[..], &["--threads", "3"]].concat()));
    assert_eq!(one, sample_text(&args));
    assert_eq!(one.lines().count(), 20_001);
    // Release i is row i of a keyed release: `privatize` of a file of 20 000 copies of the centre, same seed,
    // gives the same numbers (its CSV writer may spell them differently, so compare parsed values).
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("in.csv"), dir.path().join("out.csv"));
    std::fs::write(&input, format!("x1,x2,x3\n{}", "1,0,0\n".repeat(20_000))).unwrap();
    cmd()
        .args(["privatize", "--space", "sphere:3", "--mechanism", "purkayastha", "--epsilon", "2", "--seed", "11"])
        .args(["--input", input.to_str().unwrap(), "--output", output.to_str().unwrap(), "--quiet"])
        .assert()
        .success();
    let values = |text: &str| -> Vec<u64> {
        text.lines().skip(1).flat_map(|l| l.split(',').map(|v| v.parse::<f64>().unwrap().to_bits())).collect()
    };
    assert_eq!(values(&one), values(&std::fs::read_to_string(&output).unwrap()));
}

#[test]
fn sample_writes_unit_quaternions_with_header_and_w_nonnegative() {
    let out = cmd()
        .args(["sample", "--space", "so3", "--mechanism", "laplace", "--epsilon", "8", "-n", "500", "--seed", "3"])
        .assert()
        .success()
        .stderr(predicate::str::contains("not for releases"))
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("w,x,y,z"));
    let rows: Vec<Vec<f64>> = lines.map(|l| l.split(',').map(|v| v.parse().unwrap()).collect()).collect();
    assert_eq!(rows.len(), 500);
    for r in &rows {
        assert!(r[0] >= 0.0);
        assert!((r.iter().map(|v| v * v).sum::<f64>() - 1.0).abs() < 1e-12);
    }
}

#[test]
fn seeded_sample_is_reproducible_and_center_is_used() {
    let run = |seed: &str| {
        cmd()
            .args(["sample", "--mechanism", "bingham", "--epsilon", "1e6", "-n", "2", "--seed", seed])
            .args(["--center", "0,0,0,1"])
            .output()
            .unwrap()
            .stdout
    };
    assert_eq!(run("9"), run("9"));
    assert_ne!(run("9"), run("10"));
    // At epsilon = 1e6 the release is within ~1e-3 rad of the 180° turn about z.
    let text = String::from_utf8(run("9")).unwrap();
    let z: f64 = text.lines().nth(1).unwrap().split(',').nth(3).unwrap().parse().unwrap();
    assert!(z.abs() > 0.999);
}

#[test]
fn bad_parameters_exit_2_with_a_message() {
    for eps in ["0", "-1", "nan", "inf"] {
        cmd()
            .args(["sample", "--mechanism", "laplace", "--epsilon", eps, "-n", "1"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("epsilon"));
    }
    cmd()
        .args(["sample", "--mechanism", "laplace", "--epsilon", "1", "-n", "1", "--center", "1,1,0,0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("norm"));
    cmd()
        .args(["sample", "--mechanism", "laplace", "--concentration", "2", "-n", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bingham only"));
    cmd().args(["radius", "--mechanism", "laplace", "--epsilon", "1", "--level", "1.5"]).assert().code(2);
    cmd().args(["radius", "--mechanism", "laplace", "--radius", "ten", "--level", "0.5"]).assert().code(2);
}

#[test]
fn output_file_is_atomic_and_never_clobbered_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.csv");
    let p = path.to_str().unwrap();
    cmd().args(["sample", "--mechanism", "laplace", "--epsilon", "2", "-n", "10", "--output", p]).assert().success();
    let first = std::fs::read_to_string(&path).unwrap();
    assert_eq!(first.lines().count(), 11);
    cmd()
        .args(["sample", "--mechanism", "laplace", "--epsilon", "2", "-n", "10", "--output", p])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), first);
    cmd()
        .args(["sample", "--mechanism", "laplace", "--epsilon", "2", "-n", "4", "--output", p, "--force"])
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 5);
    // A failing run leaves nothing behind: no target, no temporary file.
    let bad = dir.path().join("bad.csv");
    cmd()
        .args(["sample", "--mechanism", "laplace", "--epsilon", "-2", "-n", "4"])
        .args(["--output", bad.to_str().unwrap()])
        .assert()
        .code(2);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("out.csv")]);
}

fn radius_json(args: &[&str]) -> Value {
    let out = cmd().arg("radius").args(args).arg("--json").assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn radius_json_and_its_inverse_agree() {
    let fwd = radius_json(&["--space", "so3", "--mechanism", "laplace", "--epsilon", "8", "--level", "0.683"]);
    let rho = fwd["radius_rad"].as_f64().unwrap();
    assert!((rho - 0.436).abs() < 1e-3, "{fwd}"); // docs/math.md §1.2
    assert!((fwd["radius_deg"].as_f64().unwrap() - rho.to_degrees()).abs() < 1e-9);
    assert_eq!(fwd["guarantee"]["notion"], "metric_dp");
    assert_eq!(fwd["guarantee"]["epsilon"], 8.0);
    let back = radius_json(&["--mechanism", "laplace", "--radius", &format!("{rho}rad"), "--level", "68.3%"]);
    assert!((back["epsilon"].as_f64().unwrap() - 8.0).abs() < 1e-6, "{back}");
    let bingham = radius_json(&["--mechanism", "bingham", "--epsilon", "8", "--level", "0.683"]);
    assert_eq!(bingham["concentration"], 16.0);
    assert!((bingham["radius_rad"].as_f64().unwrap() - 0.690).abs() < 1e-3);
    let paper = radius_json(&["--mechanism", "bingham", "--concentration", "8", "--level", "0.683"]);
    assert_eq!(paper["epsilon"], 4.0);
    assert!((paper["radius_rad"].as_f64().unwrap() - 1.033).abs() < 1e-3);
}

#[test]
fn radius_text_names_both_units() {
    cmd()
        .args(["radius", "--mechanism", "laplace", "--epsilon", "1", "--level", "0.683"])
        .assert()
        .success()
        .stdout(predicate::str::contains("rad").and(predicate::str::contains("°")));
}

#[test]
fn demo_reports_guarantee_radius_and_errors_and_writes_demo_output() {
    let dir = tempfile::tempdir().unwrap();
    cmd()
        .current_dir(dir.path())
        .args(["demo", "--seed", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("3000 wrist-IMU orientations"))
        .stdout(predicate::str::contains("guarantee: metric DP, epsilon = 5.72958 per rad"))
        .stdout(predicate::str::contains("radius of indistinguishability at 68.3%"))
        .stdout(predicate::str::contains("95th percentile"))
        .stdout(predicate::str::contains("demo-output/angular_errors.svg"))
        .stdout(predicate::str::contains("time of day: epsilon = 1.000 per h"))
        .stdout(predicate::str::contains("location: epsilon = 0.500 per km"));
    let out = dir.path().join("demo-output");
    for mech in ["laplace", "bingham"] {
        let csv = std::fs::read_to_string(out.join(format!("wrist_imu_{mech}.csv"))).unwrap();
        assert!(csv.starts_with("t_s,w,x,y,z\n"));
        assert_eq!(csv.lines().count(), 3001);
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join(format!("report_{mech}.json"))).unwrap()).unwrap();
        assert_eq!(report["rows"], 3000);
        assert_eq!(report["mechanism"], mech);
    }
    let svg = std::fs::read_to_string(out.join("angular_errors.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("exact density") && svg.contains("<polyline"));
    let checkins = std::fs::read_to_string(out.join("checkins_private.csv")).unwrap();
    assert!(checkins.starts_with("id,visited_at,lat,lon,venue\n1,2024-05-05T"));
    assert_eq!(checkins.lines().count(), 2001);
    assert!(!out.join("checkins_time_private.csv").exists());
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report_checkins_place.json")).unwrap()).unwrap();
    assert_eq!((report["space"].as_str(), report["unit"].as_str()), (Some("latlon"), Some("km")));
}

#[test]
fn reproduce_so3_figures_writes_tables_and_figures() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("figs");
    cmd()
        .args(["reproduce", "so3-figures", "--samples", "2000", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("fig2_laplace_samplers.svg"));
    let fig2 = std::fs::read_to_string(out.join("fig2_summary.csv")).unwrap();
    // The paper's naive sampler is rejected even at 2000 draws; the exact sampler is not.
    assert!(fig2.lines().any(|l| l.starts_with("paper naive") && l.contains("REJECTED")));
    assert!(fig2.lines().any(|l| l.starts_with("exact") && l.contains("consistent")));
    assert_eq!(std::fs::read_to_string(out.join("fig3_summary.csv")).unwrap().lines().count(), 1 + 4 * 3);
    assert_eq!(std::fs::read_to_string(out.join("throughput.csv")).unwrap().lines().count(), 1 + 11);
    for svg in ["fig2_laplace_samplers.svg", "fig3_laplace_vs_bingham.svg", "throughput.svg"] {
        assert!(std::fs::read_to_string(out.join(svg)).unwrap().starts_with("<svg"));
    }
}

#[test]
fn help_teaches() {
    cmd().arg("--help").assert().success().stdout(predicate::str::contains("per radian"));
    cmd().args(["radius", "--help"]).assert().success().stdout(predicate::str::contains("--radius 10deg"));
}

#[test]
fn help_examples_keep_one_command_per_line() {
    // clap folds doc comments into one paragraph unless told not to; each example must stay on its own line.
    for (command, example) in [
        ("privatize", "\n  manifold-dp privatize --space latlon --mechanism purkayastha --protect 2km --level 1 \\\n"),
        ("mean", "\n  manifold-dp mean --space so3 --center identity --radius 30deg --epsilon 1 --input poses.csv\n"),
        ("radius", "\n  manifold-dp radius --space so3 --mechanism laplace --epsilon 8 --level 0.683\n"),
        ("audit", "\n  manifold-dp audit --space so3 --mechanism laplace --epsilon 1\n"),
        ("budget", "\n  manifold-dp budget compose --notion pure 0.1 --times 10\n"),
        ("sample", "\n  manifold-dp sample --space so3 --mechanism laplace --epsilon 8 -n 5 --seed 1\n"),
    ] {
        let out = Command::cargo_bin("manifold-dp").unwrap().args([command, "--help"]).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains(example), "{command} --help:\n{text}");
    }
}
