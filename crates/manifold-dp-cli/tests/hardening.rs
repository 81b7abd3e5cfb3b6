//! What a user can type never crashes, hangs or aborts the tool (a clear message
//! and exit 2 instead), and numbers print with a few significant digits, costs rounded up.
//!
//! Every case here crashed (segfault, panic, allocation abort), hung or printed hundreds of digits before.
//! Each command gets a wall-clock limit far above its real run time (milliseconds) so that a regression to a
//! hang fails the test instead of stalling CI; nothing asserts on time.

use assert_cmd::Command;
use predicates::prelude::*;
use std::time::Duration;

fn mdp(args: &[&str]) -> Command {
    let mut c = Command::cargo_bin("manifold-dp").unwrap();
    c.args(args).timeout(Duration::from_secs(60));
    c
}

/// The command fails with exit 2 and a message containing `needle`.
fn refused(args: &[&str], needle: &str) {
    mdp(args)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(needle))
        .stderr(predicate::str::contains("panicked").not());
}

#[test]
fn sizes_are_checked_before_anything_is_allocated() {
    // Segfault (k² overflowed before the check on k) and allocation aborts.
    refused(&["audit", "--space", "spd:4294967296", "--mechanism", "riemannian-laplace", "--epsilon", "1"], "spd:K");
    refused(&["audit", "--space", "spd:65536", "--mechanism", "riemannian-laplace", "--epsilon", "1"], "spd:K");
    // Capacity-overflow panic and allocation aborts on sphere dimensions.
    refused(&["audit", "--space", "sphere:18446744073709551615", "--mechanism", "vmf", "--epsilon", "1"], "10000");
    refused(
        &["sample", "--space", "sphere:10000000000000", "--mechanism", "vmf", "--epsilon", "1", "-n", "1"],
        "10000",
    );
    refused(&["sample", "--space", "sphere:1e13", "--mechanism", "vmf", "--epsilon", "1", "-n", "1"], "unknown space");
    refused(
        &["mean", "--space", "sphere:10001", "--center", "1", "--radius", "1", "--epsilon", "1", "--input", "x.csv"],
        "10000",
    );
    refused(
        &["mean", "--space", "spd:65536", "--center", "identity", "--radius", "1", "--epsilon", "1", "--input", "x"],
        "64",
    );
    // --times: capacity-overflow panic, then a 32 GB allocation abort.
    refused(&["budget", "compose", "--notion", "pure", "1", "--times", "18446744073709551615"], "1..=1000000");
    refused(&["budget", "compose", "--notion", "pure", "1", "--times", "1000000000"], "1..=1000000");
    refused(&["budget", "compose", "--notion", "pure", "1", "2", "--times", "600000"], "at most 1000000");
    refused(&["budget", "compose", "--notion", "pure", "1", "--times", "1e9"], "--times");
    // --samples 1.8e19: an allocation abort.
    refused(
        &["audit", "--space", "so3", "--mechanism", "laplace", "--epsilon", "1", "--samples", "18000000000000000000"],
        "at most 1e9",
    );
    refused(
        &["audit", "--space", "so3", "--mechanism", "laplace", "--epsilon", "1", "--samples", "1.8e19"],
        "--samples",
    );
}

#[test]
fn alpha_too_small_to_split_is_refused() {
    // α = 5e-324 split over the tests became 0 and the Clopper–Pearson bound panicked.
    refused(
        &[
            "audit",
            "--space",
            "so3",
            "--mechanism",
            "laplace",
            "--epsilon",
            "1",
            "--alpha",
            "5e-324",
            "--samples",
            "1000",
        ],
        "[1e-100, 1)",
    );
}

#[test]
fn a_multibyte_character_where_a_date_would_be_is_an_error() {
    // Byte 10 of "abc€1234 12:00" is a space, and slicing the first 4 bytes cut the '€' in half: a panic.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("t.csv");
    std::fs::write(&input, "time\nabc€1234 12:00\n").unwrap();
    let out = dir.path().join("o.csv");
    refused(
        &[
            "privatize",
            "--space",
            "timeofday",
            "--mechanism",
            "vmf",
            "--epsilon",
            "1",
            "--input",
            input.to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
        ],
        "row 1",
    );
}

#[test]
fn an_input_without_newlines_is_refused_not_buffered() {
    // /dev/zero as a CSV: one endless record, read until memory ran out. Fed through stdin here, 20 MiB of
    // zero bytes (over the 16 MiB line limit), so the test does not depend on /dev/zero.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.csv");
    mdp(&[
        "privatize",
        "--space",
        "circle",
        "--mechanism",
        "vmf",
        "--epsilon",
        "1",
        "--input",
        "-",
        "--output",
        out.to_str().unwrap(),
    ])
    .write_stdin(vec![0u8; 20 << 20])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("longer than 16 MiB"));
}

#[test]
fn a_quoted_field_that_never_closes_is_refused_not_buffered() {
    // Newlines inside quotes do not end a record, so a field that opens a quote and never closes it is one
    // endless record however many lines it spans: 20 MiB of short lines after an open quote.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.csv");
    let mut input = b"angle\n\"0.5\n".to_vec();
    input.extend(b"1\n".repeat(10 << 20));
    mdp(&["privatize", "--space", "circle", "--mechanism", "vmf", "--epsilon", "1", "--input", "-", "--output"])
        .arg(&out)
        .write_stdin(input)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("longer than 16 MiB"));
    // Quoted newlines in a short field are fine: the limit is on records, not lines.
    let ok = dir.path().join("ok.csv");
    mdp(&["privatize", "--space", "circle", "--mechanism", "vmf", "--epsilon", "1", "--input", "-", "--output"])
        .arg(&ok)
        .args(["--columns", "angle"])
        .write_stdin(b"note,angle\n\"two\nlines\",0.5\n".to_vec())
        .assert()
        .success();
}

#[test]
fn parameters_outside_the_tested_ranges_are_refused_not_looped_on() {
    // Hangs: Purkayastha at ε = 1e100, Bingham at 1e160 (also via the concentration), GDP conversion at μ = 1e155.
    refused(
        &["sample", "--space", "sphere:3", "--mechanism", "purkayastha", "--epsilon", "1e100", "-n", "1"],
        "[1e-6, 1e6]",
    );
    refused(&["sample", "--space", "so3", "--mechanism", "bingham", "--epsilon", "1e160", "-n", "1"], "[1e-6, 1e6]");
    refused(
        &["sample", "--space", "so3", "--mechanism", "bingham", "--concentration", "1e160", "-n", "1"],
        "[2e-6, 2e6]",
    );
    refused(
        &["radius", "--space", "so3", "--mechanism", "laplace", "--epsilon", "1e-7", "--level", "0.5"],
        "[1e-6, 1e6]",
    );
    refused(&["budget", "convert", "--from", "gdp", "1e155", "--to", "approx", "--delta", "1e-6"], "1e155-GDP");
    // --threads 100000 spent minutes creating threads.
    refused(
        &[
            "privatize",
            "--mechanism",
            "laplace",
            "--epsilon",
            "1",
            "--input",
            "in.csv",
            "--output",
            "o.csv",
            "--threads",
            "100000",
        ],
        "1 to 256",
    );
    refused(&["audit", "--space", "so3", "--mechanism", "laplace", "--epsilon", "1", "--threads", "0"], "1 to 256");
    // The ends of the range are accepted.
    mdp(&["sample", "--space", "sphere:3", "--mechanism", "purkayastha", "--epsilon", "1e6", "-n", "2", "--seed", "1"])
        .assert()
        .success();
    mdp(&["sample", "--space", "so3", "--mechanism", "laplace", "--epsilon", "1e-6", "-n", "2", "--seed", "1"])
        .assert()
        .success();
}

#[test]
fn numbers_print_short_and_costs_round_up() {
    let text = |args: &[&str]| String::from_utf8(mdp(args).assert().success().get_output().stdout.clone()).unwrap();
    // 1e300 printed as a 301-digit decimal; 1e-300 as "epsilon = 0".
    let big = text(&["budget", "compose", "--notion", "pure", "1e300"]);
    assert!(big.contains("pure DP, epsilon = 1e300"), "{big}");
    assert!(big.lines().all(|l| l.len() < 200), "{big}");
    let small = text(&["budget", "compose", "--notion", "pure", "1e-300"]);
    assert!(small.contains("pure DP, epsilon = 1e-300"), "{small}");
    // ρ = ε²/2 underflowed to 0, a claim of perfect privacy.
    assert!(!small.contains("rho = 0 "), "{small}");
    // A total of 0.1 + 0.2 is 0.30000000000000004: printed as 0.300001, never as the smaller 0.3.
    let sum = text(&["budget", "compose", "--notion", "pure", "0.1", "0.2"]);
    assert!(sum.contains("epsilon = 0.300001"), "{sum}");
    // Error messages quote values briefly too.
    refused(&["budget", "compose", "--notion", "approx", "1e300,2"], "delta = 2");
    mdp(&["budget", "compose", "--notion", "approx", "1e300,2"])
        .assert()
        .stderr(predicate::function(|s: &str| s.len() < 400));
    // radius: distances with significant digits, not a fixed six decimals (0.000000 rad).
    let r = text(&["radius", "--space", "so3", "--mechanism", "laplace", "--epsilon", "1e6", "--level", "0.5"]);
    assert!(!r.contains("0.000000"), "{r}");
    assert!(r.contains("e-6 rad"), "{r}");
}

#[test]
fn a_parquet_page_the_decoder_asserts_on_is_an_error_not_a_crash() {
    // Found by the Parquet fuzz target (400 000 cases): a dictionary-encoded page without a dictionary page
    // made the parquet crate panic while decoding (exit 101). Now: exit 2, the file named, nothing written.
    let input = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/corpus/parquet/dictionary-page-missing.parquet");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.parquet");
    mdp(&["privatize", "--space", "so3", "--mechanism", "laplace", "--epsilon", "1", "--input", input, "--output"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("dictionary-page-missing.parquet"))
        .stderr(predicate::str::contains("corrupt file"))
        .stderr(predicate::str::contains("panicked").not());
    assert!(!out.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "no debris");
}
