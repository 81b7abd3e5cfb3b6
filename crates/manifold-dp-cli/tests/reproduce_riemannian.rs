//! `reproduce riemannian-mean` at a small budget: it writes its tables and figure, the sensitivity never
//! exceeds Theorem 2's bound, and the numbers in the CSV are what the summary says.

use assert_cmd::Command;
use std::fs;

#[test]
fn writes_tables_and_figure_and_respects_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rm");
    Command::cargo_bin("manifold-dp")
        .unwrap()
        .args(["reproduce", "riemannian-mean", "--out", out.to_str().unwrap(), "--repetitions", "20"])
        .assert()
        .success();
    for f in ["sensitivity.csv", "utility.csv", "summary.txt", "riemannian_mean.svg"] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let sens = fs::read_to_string(out.join("sensitivity.csv")).unwrap();
    let mut rows = 0;
    for line in sens.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (d, bound): (f64, f64) = (f[2].parse().unwrap(), f[3].parse().unwrap());
        assert!(d <= bound, "{line}");
        rows += 1;
    }
    assert_eq!(rows, 3 * 11 * 40);
    let utility = fs::read_to_string(out.join("utility.csv")).unwrap();
    for manifold in ["SPD(2)", "S^2", "SO(3)"] {
        assert!(utility.lines().any(|l| l.starts_with(&format!("{manifold},intrinsic,"))));
        assert!(utility.lines().any(|l| l.starts_with(&format!("{manifold},extrinsic,"))));
    }
    // Extrinsic SPD releases at n = 10 leave the cone often; on the sphere they always leave the sphere.
    let off = |prefix: &str| -> f64 {
        utility.lines().find(|l| l.starts_with(prefix)).unwrap().rsplit(',').next().unwrap().parse().unwrap()
    };
    assert!(off("SPD(2),extrinsic,10,") > 0.0);
    assert_eq!(off("S^2,extrinsic,10,"), 1.0);
}
