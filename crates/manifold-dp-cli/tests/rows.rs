//! Every row is either released or reported: blank lines between rows, rotation vectors
//! whose norm overflows, and absurd angles and longitudes are errors naming row, line and column (exit 2,
//! nothing written), or rows set aside with --skip-invalid; never skipped, never released as NaN or wrapped.

use assert_cmd::Command;
use predicates::prelude::*;
use std::fs;
use std::path::Path;

fn privatize(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::cargo_bin("manifold-dp").unwrap();
    c.current_dir(dir).args(["privatize", "--epsilon", "1", "--seed", "3", "--quiet"]).args(args);
    c
}

/// Runs privatize on `contents` with `args`, expecting exit 2, stdout empty and every string of `expect` in
/// the message.
fn expect_bad(contents: &str, args: &[&str], expect: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.csv"), contents).unwrap();
    let out = privatize(dir.path(), args)
        .args(["--input", "in.csv", "--output", "-"])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .get_output()
        .stderr
        .clone();
    let stderr = String::from_utf8(out).unwrap();
    for e in expect {
        assert!(stderr.contains(e), "{args:?}: stderr should contain {e:?}: {stderr}");
    }
}

#[test]
fn blank_lines_between_rows_are_reported_not_skipped() {
    let circle = ["--space", "circle", "--mechanism", "vmf"];
    expect_bad("angle\n1\n\n2\n", &circle, &["in.csv", "row 2 (line 3)", "blank line"]);
    expect_bad("angle\r\n1\r\n2\r\n\r\n3\r\n", &circle, &["row 3 (line 4)", "blank line"]);
    // A quoted field over two lines is one row; the blank line after it is row 3, at line 5.
    expect_bad("angle,note\n1,\"two\nlines\"\n2,x\n\n3,y\n", &circle, &["row 3 (line 5)", "blank line"]);
    // Rows after a multi-line field are located at their real lines.
    expect_bad("angle,note\n1,\"two\nlines\"\nfour,x\n", &circle, &["row 2 (line 4)", "\"four\" is not a number"]);
    expect_bad("w,x,y,z\n1,0,0,0\n\n0,1,0,0\n", &["--mechanism", "laplace"], &["row 2 (line 3)", "blank line"]);
    // With --skip-invalid the blank line is set aside and counted, later rows keep their real lines, and blank
    // lines after the last row are not rows.
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.csv"), "angle\n1\n\n2\nfour\n3\n\n\n").unwrap();
    let out = privatize(dir.path(), &circle)
        .args(["--input", "in.csv", "--output", "-", "--skip-invalid", "rejects.csv", "--report", "r.json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8(out).unwrap().lines().count(), 4, "header and three rows");
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(report["rows"], 3);
    assert_eq!(report["rejected_rows"], 2);
    assert_eq!(report["first_rejections"][0]["row"], 2);
    assert_eq!(report["first_rejections"][0]["line"], 3);
    assert_eq!(report["first_rejections"][1]["row"], 4);
    assert_eq!(report["first_rejections"][1]["line"], 5);
    assert_eq!(fs::read_to_string(dir.path().join("rejects.csv")).unwrap().lines().count(), 3);
}

#[test]
fn overflowing_rotation_vectors_are_errors_not_nan() {
    let rotvec = ["--mechanism", "laplace", "--format", "rotvec", "--columns", "rx,ry,rz"];
    for bad in ["1e155,0,0", "0,-1e200,0", "0,0,13", "1e308,1e308,1e308"] {
        expect_bad(
            &format!("rx,ry,rz\n0.1,0.2,0.3\n{bad}\n"),
            &rotvec,
            &["row 2 (line 3)", "column \"r", "rotation vector of norm"],
        );
    }
    // Within 4π, rotation vectors are released (and nothing released is NaN).
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.csv"), "rx,ry,rz\n0.1,0.2,0.3\n12,0,0\n0,0,-12.5\n").unwrap();
    let out = privatize(dir.path(), &rotvec).args(["--input", "in.csv", "--output", "-"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 4);
    assert!(!text.to_lowercase().contains("nan"), "{text}");
    // `mean` refuses the row too, naming it.
    fs::write(dir.path().join("bad.csv"), "rx,ry,rz\n0.1,0,0\n1e155,0,0\n").unwrap();
    Command::cargo_bin("manifold-dp")
        .unwrap()
        .current_dir(dir.path())
        .args(["mean", "--space", "so3", "--format", "rotvec", "--columns", "rx,ry,rz", "--center", "identity"])
        .args(["--radius", "80deg", "--epsilon", "1", "--input", "bad.csv"])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("row 2 (line 3), column \"rx\""));
}

#[test]
fn absurd_angles_and_longitudes_are_rejected_not_wrapped() {
    let circle = ["--space", "circle", "--mechanism", "vmf"];
    expect_bad("angle\n1\n1e300\n", &circle, &["row 2 (line 3)", "column \"angle\"", "full turns"]);
    expect_bad("angle\n1\n-1e7\n", &circle, &["row 2 (line 3)", "full turns"]);
    let deg = ["--space", "circle", "--mechanism", "vmf", "--format", "deg"];
    expect_bad("angle\n1\n4e8\n", &deg, &["row 2 (line 3)", "degrees", "full turns"]);
    let latlon = ["--space", "latlon", "--mechanism", "vmf"];
    expect_bad("lat,lon\n1,2\n10,1e17\n", &latlon, &["row 2 (line 3)", "column \"lon\"", "[-360, 360]"]);
    expect_bad("lat,lon\n1,2\n10,-361\n", &latlon, &["row 2 (line 3)", "column \"lon\""]);
    // Unwrapped angles (many turns) and both longitude conventions are fine.
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.csv"), "angle\n-100\n6000000\n").unwrap();
    privatize(dir.path(), &circle).args(["--input", "a.csv", "--output", "-"]).assert().success();
    fs::write(dir.path().join("l.csv"), "lat,lon\n10,-180\n10,359.5\n-90,360\n").unwrap();
    privatize(dir.path(), &latlon).args(["--input", "l.csv", "--output", "-"]).assert().success();
}
