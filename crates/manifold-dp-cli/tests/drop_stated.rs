//! A mean with `--outside drop` states in its guarantee object what it does not protect (whether
//! a row lies outside the ball, and the in-ball count its σ reveals); `error` and `clip` keep the plain guarantee.

use assert_cmd::Command;
use serde_json::Value;
use std::fs;

fn mean(input: &std::path::Path, outside: &str) -> Value {
    let out = Command::cargo_bin("manifold-dp")
        .unwrap()
        .args(["mean", "--space", "circle", "--format", "deg", "--center", "0", "--radius", "30deg"])
        .args(["--epsilon", "1", "--outside", outside, "--json", "--seed", "1", "--input", input.to_str().unwrap()])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn a_drop_mean_says_what_it_does_not_protect_in_its_guarantee() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("a.csv");
    fs::write(&input, "angle\n0\n5\n-5\n10\n90\n180\n").unwrap();
    let v = mean(&input, "drop");
    let g = &v["guarantee"];
    assert_eq!((g["notion"].as_str(), g["epsilon"].as_f64()), (Some("pure_dp"), Some(1.0)));
    assert_eq!(g["neighbouring"], "replace_one_row_in_ball");
    assert_eq!(g["rows"], 4);
    assert!(g["not_protected"].as_str().unwrap().contains("how many rows do"), "{g}");
    // σ is Δ(n′)/ε′ for the n′ = 4 rows kept: the count it reveals is the one stated.
    assert_eq!(v["n"], 4);
    let g = &mean(&input, "clip")["guarantee"];
    assert!(g.get("not_protected").is_none() && g.get("neighbouring").is_none(), "clip: {g}");
}
