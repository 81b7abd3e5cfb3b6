//! Errors a user can act on (one test per case): each names what is wrong in the user's terms, exits non-zero
//! (2 for bad input, 1 when the machine fails), and never panics.

use assert_cmd::Command;
use assert_cmd::assert::OutputAssertExt;
use predicates::prelude::*;
use std::fs;

fn bin() -> Command {
    Command::cargo_bin("manifold-dp").unwrap()
}

/// The binary with its standard output going to /dev/full: every write to it fails (ENOSPC).
fn to_dev_full() -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("manifold-dp"));
    c.stdout(std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap());
    c
}

#[test]
fn an_spd_row_beyond_double_precision_is_called_ill_conditioned_not_indefinite() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("c.csv");
    fs::write(&input, "m11,m12,m21,m22\n1e300,0,0,1\n1,0,0,1\n").unwrap();
    bin()
        .args(["mean", "--space", "spd:2", "--center", "identity", "--radius", "1.5", "--epsilon", "1", "--seed", "1"])
        .arg("--input")
        .arg(&input)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("row 1 (line 2): matrix is too ill-conditioned"))
        .stderr(predicate::str::contains("condition number 1e300"))
        .stderr(predicate::str::contains("not positive definite").not());
}

#[test]
fn a_centre_of_the_wrong_length_says_how_many_numbers_the_space_needs() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("p.csv");
    fs::write(&input, "lat,lon\n48,2\n48.1,2.1\n").unwrap();
    for (space, center, expect) in [
        ("latlon", "48", "the centre needs 2 coordinates on latlon (lat,lon), got 1"),
        ("sphere:3", "1,0", "the centre needs 3 coordinates on sphere:3"),
        ("circle", "1,0", "the centre needs 1 coordinate on circle"),
    ] {
        bin()
            .args(["mean", "--space", space, "--center", center, "--radius", "5deg", "--epsilon", "1", "--seed", "1"])
            .arg("--input")
            .arg(&input)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(expect));
    }
}

#[test]
fn a_result_that_cannot_be_printed_after_the_charge_says_the_budget_was_spent() {
    let dir = tempfile::tempdir().unwrap();
    let (input, db) = (dir.path().join("p.csv"), dir.path().join("l.sqlite"));
    fs::write(&input, "lat,lon\n48,2\n48.1,2.1\n").unwrap();
    bin().args(["budget", "ledger", "init", "--dataset", "d", "--pure", "5", "--db"]).arg(&db).assert().success();
    to_dev_full()
        .args(["mean", "--space", "latlon", "--center", "48,2", "--radius", "100km", "--epsilon", "1"])
        .args(["--dataset", "d", "--input"])
        .arg(&input)
        .arg("--ledger")
        .arg(&db)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot print the result to standard output"))
        .stderr(predicate::str::contains("its budget is spent"))
        .stderr(predicate::str::contains("panicked").not());
    // The ledger holds the release the message speaks of.
    bin()
        .args(["budget", "ledger", "show", "--dataset", "d", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains("1 release"));
    // Without a ledger the same failure says nothing of budgets.
    to_dev_full()
        .args(["mean", "--space", "latlon", "--center", "48,2", "--radius", "100km", "--epsilon", "1", "--seed", "1"])
        .arg("--input")
        .arg(&input)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot print the result"))
        .stderr(predicate::str::contains("budget").not());
}

#[test]
fn metric_budgets_take_the_space_names_users_know_and_the_help_shows_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("l.sqlite");
    let out = bin()
        .args(["budget", "ledger", "init", "--dataset", "d", "--metric-dp", "0.5", "--metric", "latlon", "--json"])
        .arg("--db")
        .arg(&db)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let notions = v["datasets"][0]["notions"].as_array().unwrap();
    let local = notions.iter().find(|n| n["notion"] == "metric").unwrap();
    assert_eq!(local["budget"]["metric"], "sphere_surface");
    assert_eq!(local["budget"]["unit"], "km", "latlon budgets are per km unless --unit says otherwise");
    // so3 stands for the rotation angle; an unknown name lists the space names too.
    let db2 = dir.path().join("l2.sqlite");
    bin()
        .args(["budget", "ledger", "init", "--dataset", "d", "--metric-dp", "1", "--metric", "so3", "--db"])
        .arg(&db2)
        .assert()
        .success();
    bin()
        .args(["budget", "ledger", "init", "--dataset", "d", "--metric-dp", "1", "--metric", "earth", "--db"])
        .arg(dir.path().join("l3.sqlite"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("or a space's name (so3, latlon"));
    bin()
        .args(["budget", "ledger", "init", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--metric-dp 0.5 --metric latlon"));
}
