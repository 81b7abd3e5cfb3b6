//! Releases under `--seed` are bit-identical to the recorded ones in `tests/golden/`: a refactor of the
//! release path (codecs, keyed noise, snapping, writers) that changes a single bit fails here. The recorded
//! files were made by this binary; when the release law or the key schedule changes on purpose, record them
//! again (the commands are below) and say so in the commit.

use assert_cmd::Command;
use std::path::Path;

fn golden(args: &[&str], input: &str, expected: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let out = tempfile::tempdir().unwrap();
    let output = out.path().join("out.csv");
    Command::cargo_bin("manifold-dp")
        .unwrap()
        .arg("privatize")
        .args(args)
        .args(["--seed", "42", "--quiet", "--input"])
        .arg(dir.join(input))
        .arg("--output")
        .arg(&output)
        .assert()
        .success();
    let got = std::fs::read_to_string(&output).unwrap();
    let want = std::fs::read_to_string(dir.join(expected)).unwrap();
    assert!(got == want, "{expected} changed:\n{got}");
}

#[test]
fn rotations_are_released_as_recorded() {
    golden(
        &["--space", "so3", "--mechanism", "laplace", "--epsilon", "2"],
        "wrist_imu_40.csv",
        "wrist_imu_40.laplace.csv",
    );
}

#[test]
fn locations_and_times_are_released_as_recorded() {
    let loc = ["--space", "latlon", "--mechanism", "purkayastha", "--protect", "2km", "--level", "1"];
    golden(&[&loc[..], &["--columns", "lat,lon"]].concat(), "checkins_40.csv", "checkins_40.latlon.csv");
    let time = ["--space", "timeofday", "--mechanism", "vmf", "--protect", "1h", "--level", "1"];
    golden(&[&time[..], &["--columns", "visited_at"]].concat(), "checkins_40.csv", "checkins_40.time.csv");
}
