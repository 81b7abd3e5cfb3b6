//! Careless use: a seed with a ledger is refused and every seeded run is announced;
//! copies of one point state what they cost together; rejected rows and temporary files are no more readable
//! than the input; a report names rows and reasons without the rows' values; SQLite's files beside the ledger
//! are refused as outputs; a ledger refusal while rows stream out exits 4.

use predicates::prelude::*;
use serde_json::Value;
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;

mod common;
use common::{cmd, ledger, privatize, releases, scratch};

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_seed_with_a_ledger_is_refused_and_a_seed_alone_warns() {
    let dir = scratch();
    let d = dir.path();
    privatize(d)
        .args(["--input", "in.csv", "--output", "o.csv", "--seed", "1", "--ledger", "l.sqlite"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("seeded run cannot be charged to a privacy ledger"));
    assert!(!d.join("o.csv").exists());
    assert_eq!(releases(d, "in.csv"), 0);
    cmd()
        .current_dir(d)
        .args(["mean", "--space", "so3", "--center", "identity", "--radius", "80deg", "--epsilon", "1"])
        .args(["--input", "in.csv", "--seed", "1", "--ledger", "l.sqlite"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("seeded run cannot be charged"));
    assert_eq!(releases(d, "in.csv"), 0);
    // Without a ledger a seeded run is an experiment, and says so even when asked to be quiet.
    privatize(d)
        .args(["--input", "in.csv", "--output", "o.csv", "--seed", "1", "--quiet"])
        .assert()
        .success()
        .stderr(predicate::str::contains("warning: seeded run, for experiments only"));
    cmd()
        .args(["sample", "--space", "so3", "--mechanism", "laplace", "--epsilon", "1", "-n", "1", "--seed", "2"])
        .assert()
        .success()
        .stderr(predicate::str::contains("warning: seeded run, for experiments only"));
}

#[test]
fn copies_of_one_point_state_their_joint_guarantee() {
    let out = cmd()
        .args(["sample", "--space", "latlon", "--mechanism", "purkayastha", "--epsilon", "3186"])
        .args(["--center", "48.85,2.35", "-n", "1000"])
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("1000 releases of 48.85,2.35"), "{stderr}");
    assert!(stderr.contains("all 1000 together"), "{stderr}");
    // Each is 3186 per rad, i.e. 0.5 per km; the thousand together 500 per km.
    assert!(stderr.contains("500") && stderr.contains("per km"), "{stderr}");
}

#[test]
fn rejected_rows_and_the_report_keep_the_inputs_values_private() {
    let dir = scratch();
    let d = dir.path();
    fs::write(d.join("private.csv"), "w,x,y,z\n1,0,0,0\n1,0,secret-text,0\n1,0,0,0\n123.456,0,0,0\n").unwrap();
    fs::set_permissions(d.join("private.csv"), fs::Permissions::from_mode(0o600)).unwrap();
    privatize(d)
        .args(["--input", "private.csv", "--output", "o.csv", "--skip-invalid", "rej.csv", "--report", "r.json"])
        .assert()
        .success();
    assert_eq!(mode(&d.join("rej.csv")) & 0o077, 0, "rejected rows are for their owner only");
    let rejected = fs::read_to_string(d.join("rej.csv")).unwrap();
    assert!(rejected.contains("secret-text") && rejected.contains("123.456"), "{rejected}");
    let report = fs::read_to_string(d.join("r.json")).unwrap();
    assert!(!report.contains("secret-text") && !report.contains("123.456"), "raw values in the report: {report}");
    let r: Value = serde_json::from_str(&report).unwrap();
    assert_eq!(r["first_rejections"][0]["row"], 2);
    assert_eq!(r["first_rejections"][0]["column"], "y");
    assert!(r["first_rejections"][0]["reason"].as_str().unwrap().contains("is not a number"), "{report}");
    assert_eq!(r["first_rejections"][1]["row"], 4);
    // Replacing a rejects file that others could read leaves it readable by its owner only.
    fs::set_permissions(d.join("rej.csv"), fs::Permissions::from_mode(0o644)).unwrap();
    privatize(d)
        .args(["--input", "private.csv", "--output", "o.csv", "--skip-invalid", "rej.csv", "--force", "--quiet"])
        .assert()
        .success();
    assert_eq!(mode(&d.join("rej.csv")), 0o600);
    // The released output is an ordinary file (0666 less the umask, which cannot be wider than 0666).
    assert_ne!(mode(&d.join("o.csv")) & 0o600, 0);
}

#[test]
fn temporary_files_are_named_as_ours_owner_only_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = assert_cmd::cargo::cargo_bin("manifold-dp");
    let mut child = std::process::Command::new(bin)
        .current_dir(d)
        .args(["privatize", "--mechanism", "laplace", "--epsilon", "1", "--input", "-", "--output", "out.csv"])
        .args(["--skip-invalid", "rejects.csv"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"w,x,y,z\n1,0,raw-secret,0\n").unwrap();
    for _ in 0..50_000 {
        stdin.write_all(b"1,0,0,0\n").unwrap();
    }
    stdin.flush().unwrap();
    let temps = || -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".manifold-dp-"))
            .collect();
        names.sort();
        names
    };
    let mut polls = 0;
    while temps().len() < 2 {
        polls += 1;
        assert!(polls < 6000, "the temporary files never appeared");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    for name in temps() {
        assert!(name.ends_with(".tmp"), "{name}");
        assert_eq!(mode(&d.join(&name)), 0o600, "{name}");
    }
    let pid = child.id().to_string();
    assert!(std::process::Command::new("kill").args(["-s", "QUIT", &pid]).status().unwrap().success());
    child.wait().unwrap();
    drop(stdin);
    assert_eq!(temps(), Vec::<String>::new(), "SIGQUIT left temporary files behind");
}

#[test]
fn sqlites_files_beside_the_ledger_are_refused_as_outputs() {
    let dir = scratch();
    let d = dir.path();
    for companion in ["l.sqlite-journal", "l.sqlite-wal", "l.sqlite-shm"] {
        privatize(d)
            .args(["--input", "in.csv", "--output", companion, "--ledger", "l.sqlite"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("uncommitted changes"));
        privatize(d)
            .args(["--input", "in.csv", "--output", "o.csv", "--report", companion, "--ledger", "l.sqlite"])
            .assert()
            .code(2);
        assert!(!d.join(companion).exists(), "{companion}");
    }
    assert_eq!(releases(d, "in.csv"), 0);
}

#[test]
fn a_refusal_while_rows_stream_out_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let values = "v\n0.1\n0.2\n0.3\n";
    fs::write(d.join("v.csv"), values).unwrap();
    // Room for one release at ε = 1, not two.
    ledger(d).args(["init", "--dataset", "v", "--pure", "1.5"]).assert().success();
    let release = [
        "privatize",
        "--space",
        "real",
        "--mechanism",
        "laplace",
        "--bounds",
        "0,1",
        "--epsilon",
        "1",
        "--columns",
        "v",
    ];
    let bin = assert_cmd::cargo::cargo_bin("manifold-dp");
    // From standard input to standard output: the release is checked first, and recorded just before the first
    // row goes out. Another run spends the budget in between.
    let mut child = std::process::Command::new(&bin)
        .current_dir(d)
        .args(release)
        .args(["--input", "-", "--output", "-", "--ledger", "l.sqlite", "--dataset", "v"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    cmd()
        .current_dir(d)
        .args(release)
        .args(["--input", "v.csv", "--output", "o.csv", "--ledger", "l.sqlite", "--dataset", "v", "--quiet"])
        .assert()
        .success();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(values.as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("refused") && stderr.contains("Nothing was written"), "{stderr}");
    let published = String::from_utf8_lossy(&out.stdout).lines().count();
    assert!(published <= 1, "rows were published: {}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(releases(d, "v"), 1);
}
