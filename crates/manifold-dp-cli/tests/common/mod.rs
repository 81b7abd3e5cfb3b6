//! Helpers shared by the integration tests that run `privatize` against a ledger in a scratch directory
//! (`outputs.rs`, `careless.rs`).

#![allow(dead_code)] // each test file uses its own share

use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::Path;

/// Four rotations as quaternions w,x,y,z.
pub const POSES: &str = "w,x,y,z\n1,0,0,0\n0,1,0,0\n0,0,1,0\n0,0,0,1\n";

/// The binary.
pub fn cmd() -> Command {
    Command::cargo_bin("manifold-dp").unwrap()
}

/// `privatize` of so3 Laplace at ε = 1, run in `dir` (not seeded: most of these runs are charged to a ledger,
/// which refuses a seed).
pub fn privatize(dir: &Path) -> Command {
    let mut c = cmd();
    c.current_dir(dir).args(["privatize", "--mechanism", "laplace", "--epsilon", "1"]);
    c
}

/// `budget ledger --db l.sqlite`, run in `dir`.
pub fn ledger(dir: &Path) -> Command {
    let mut c = cmd();
    c.current_dir(dir).args(["budget", "ledger", "--db", "l.sqlite"]);
    c
}

/// How many releases the ledger in `dir` holds for `dataset`.
pub fn releases(dir: &Path, dataset: &str) -> u64 {
    let out = ledger(dir).args(["show", "--dataset", dataset, "--json"]).assert().success().get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    v["datasets"][0]["releases"].as_u64().unwrap()
}

/// A scratch directory with `in.csv` and a ledger `l.sqlite` giving `in.csv` a budget.
pub fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.csv"), POSES).unwrap();
    ledger(dir.path()).args(["init", "--dataset", "in.csv", "--pure", "100"]).assert().success();
    dir
}
