//! `manifold-dp budget ledger …` and `--ledger` on `privatize` and `mean`: round trips, refusals with exit code
//! 4 that record and write nothing, damaged ledger files, and processes racing for the last of a budget.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::fs;
use std::path::Path;

fn cmd() -> Command {
    Command::cargo_bin("manifold-dp").unwrap()
}

fn ledger(db: &Path) -> Command {
    let mut c = cmd();
    c.args(["budget", "ledger", "--db"]).arg(db);
    c
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

/// The `show --json` entry of one data set.
fn spent(db: &Path, dataset: &str) -> Value {
    let out = ledger(db).args(["show", "--dataset", dataset, "--json"]).assert().success().get_output().stdout.clone();
    json_of(&out)["datasets"][0].clone()
}

fn account<'a>(spent: &'a Value, name: &str) -> &'a Value {
    spent["notions"].as_array().unwrap().iter().find(|n| n["account"] == name).unwrap()
}

const POSES: &str = "w,x,y,z\n1,0,0,0\n0.9950041652780258,0.09983341664682815,0,0\n\
                     0.9950041652780258,0,0.09983341664682815,0\n0.9950041652780258,0,0,0.09983341664682815\n";

/// A mean with the samplers' negligible δ is admitted by a zCDP and a GDP budget, and its δ is shown beside the
/// totals (`docs/proofs/accounting.md`, "The negligible δ").
#[test]
fn a_mean_with_a_negligible_delta_is_admitted_by_zcdp_and_gdp_budgets() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("privacy.sqlite");
    ledger(&db).args(["init", "--dataset", "d", "--zcdp", "1", "--gdp", "2"]).assert().success();
    let mean = r#"{"notion":"pure_dp","epsilon":0.5,"delta":1e-300}"#;
    for _ in 0..2 {
        ledger(&db).args(["add", "--dataset", "d", "--mechanism", "mean s2", "--guarantee", mean]).assert().success();
    }
    let s = spent(&db, "d");
    for name in ["zcdp", "gdp"] {
        let a = account(&s, name);
        assert!(a["total"].is_object(), "{a}");
        assert!(a["negligible_delta"].as_f64().is_some_and(|d| (2e-300..2.1e-300).contains(&d)), "{a}");
    }
    assert!((account(&s, "zcdp")["total"]["rho"].as_f64().unwrap() - 0.25).abs() < 1e-12);
    let out = ledger(&db).args(["show", "--dataset", "d"]).assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("spent rho = 0.25, delta ≤ 2e-300"), "{text}");
}

#[test]
fn init_add_show_export_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("privacy.sqlite");
    let out = ledger(&db)
        .args(["init", "--dataset", "survey", "--approx", "4,1e-5", "--zcdp", "1", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(account(&json_of(&out)["datasets"][0], "approx")["budget"]["delta"], 1e-5);
    // init never overwrites.
    ledger(&db).arg("init").assert().code(2).stderr(predicate::str::contains("already exists"));
    let out = ledger(&db)
        .args(["add", "--dataset", "survey", "--mechanism", "laplace count", "--pure", "0.5", "--json"])
        .args(["--request-id", "job-1"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let first = json_of(&out);
    assert_eq!(first["recorded"], true);
    assert_eq!(first["replayed"], false);
    assert_eq!(first["release"]["id"], 1);
    assert_eq!(first["release"]["guarantees"][0], serde_json::json!({"notion": "pure_dp", "epsilon": 0.5}));
    // The same request again: replayed, nothing added.
    let out = ledger(&db)
        .args(["add", "--dataset", "survey", "--mechanism", "laplace count", "--pure", "0.5", "--json"])
        .args(["--request-id", "job-1"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(json_of(&out)["replayed"], true);
    // A Gaussian release reporting several guarantees, given as JSON as reports print them.
    ledger(&db)
        .args(["add", "--dataset", "survey", "--mechanism", "gaussian mean", "--zcdp", "0.125"])
        .args(["--guarantee", r#"{"notion":"approx_dp","epsilon":1.0,"delta":1e-6}"#])
        .assert()
        .success()
        .stdout(predicate::str::contains("Recorded release #2"));
    let s = spent(&db, "survey");
    assert_eq!(s["releases"], 2);
    // Pure: the Gaussian release has no pure guarantee, and the total says so (a pure budget would refuse it).
    assert!(account(&s, "pure")["not_accountable"].as_str().unwrap().contains("release #2"));
    let approx = account(&s, "approx");
    assert!((approx["total"]["epsilon"].as_f64().unwrap() - 1.5).abs() < 1e-12, "{approx}");
    // zCDP: 0.5²/2 + 0.125 = 0.25, with its (ε, δ) beside it.
    let z = account(&s, "zcdp");
    assert!((z["total"]["rho"].as_f64().unwrap() - 0.25).abs() < 1e-12, "{z}");
    assert_eq!(z["standard"]["delta"], 1e-6);
    assert!((z["remaining"]["rho"].as_f64().unwrap() - 0.75).abs() < 1e-12);
    // "May I release once more?" with a candidate, for people and for scripts.
    ledger(&db)
        .args(["show", "--dataset", "survey", "--zcdp", "0.05"])
        .assert()
        .success()
        .stdout(predicate::str::contains("May it release once more? Yes"));
    let out = ledger(&db)
        .args(["show", "--dataset", "survey", "--zcdp", "0.8", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let check = &json_of(&out)["check"];
    assert_eq!(check["allowed"], false);
    // ρ = 0.8 at δ = 1e-6 costs ε ≈ 7.45 > 4 − 1.5 (and ρ 1.05 > 1): approx is checked first.
    assert_eq!(check["refusal"]["notion"], "approx");
    // Export: a JSON document with everything, written atomically; an existing file needs --force.
    let report = dir.path().join("ledger.json");
    ledger(&db).args(["export", "--output"]).arg(&report).assert().success();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(doc["format"], "manifold-dp-ledger");
    assert_eq!(doc["datasets"][0]["releases"].as_array().unwrap().len(), 2);
    assert_eq!(doc["datasets"][0]["releases"][0]["mechanism"], "laplace count");
    assert!(doc["datasets"][0]["releases"][0]["at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(doc["budget_history"].as_array().unwrap().len(), 2);
    ledger(&db).args(["export", "--output"]).arg(&report).assert().code(2);
    ledger(&db).args(["export", "--force", "--output"]).arg(&report).assert().success();
    let stdout = ledger(&db).arg("export").assert().success().get_output().stdout.clone();
    assert_eq!(json_of(&stdout)["datasets"][0]["dataset"], "survey");
}

#[test]
fn over_budget_exits_4_and_records_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("l.sqlite");
    ledger(&db).args(["init", "--dataset", "d", "--pure", "1"]).assert().success();
    ledger(&db).args(["add", "--dataset", "d", "--mechanism", "m", "--pure", "0.7"]).assert().success();
    ledger(&db)
        .args(["add", "--dataset", "d", "--mechanism", "m", "--pure", "0.4"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("\"d\"").and(predicate::str::contains("pure total")))
        .stderr(predicate::str::contains("budget of pure DP, epsilon = 1").and(predicate::str::contains("1.1")));
    let out = ledger(&db)
        .args(["add", "--dataset", "d", "--mechanism", "m", "--pure", "0.4", "--json"])
        .assert()
        .code(4)
        .get_output()
        .stdout
        .clone();
    let refusal = json_of(&out);
    assert_eq!(refusal["recorded"], false);
    assert_eq!(refusal["refusal"]["kind"], "over_budget");
    assert_eq!(refusal["refusal"]["budget"]["epsilon"], 1.0);
    // The dry run answers with the exit code and records nothing either way.
    ledger(&db).args(["add", "--dataset", "d", "--mechanism", "m", "--pure", "0.4", "--dry-run"]).assert().code(4);
    ledger(&db)
        .args(["add", "--dataset", "d", "--mechanism", "m", "--pure", "0.2", "--dry-run"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Would be accepted"));
    assert_eq!(spent(&db, "d")["releases"], 1);
    // A release that a budgeted notion cannot express is refused too.
    ledger(&db)
        .args(["add", "--dataset", "d", "--mechanism", "gaussian", "--gdp", "0.1"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("cannot be expressed"));
    assert_eq!(spent(&db, "d")["releases"], 1);
    ledger(&db)
        .args(["show", "--dataset", "d"])
        .assert()
        .success()
        .stdout(predicate::str::contains("spent epsilon = 0.7 of epsilon = 1, epsilon = 0.3 left"));
}

#[test]
fn privatize_and_mean_record_and_then_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("l.sqlite");
    let input = dir.path().join("poses.csv");
    std::fs::write(&input, POSES).unwrap();
    // Laplace ε = 1 per rad on SO(3) is a local release, charged to the local budget (1 of 1.5 per rad); each
    // mean is central, charged exactly its asked ε = 1 to the pure budget.
    ledger(&db).args(["init", "--dataset", "poses.csv", "--pure", "2", "--metric-dp", "1.5"]).assert().success();
    let private = dir.path().join("private.csv");
    cmd()
        .args(["privatize", "--mechanism", "laplace", "--epsilon", "1", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(&private)
        .arg("--ledger")
        .arg(&db)
        .assert()
        .success()
        .stderr(predicate::str::contains("recorded as release #1 of data set \"poses.csv\""));
    assert!(private.exists());
    let mean = |extra: &[&str]| {
        let mut c = cmd();
        c.args(["mean", "--space", "so3", "--center", "identity", "--radius", "30deg", "--epsilon", "1", "--json"])
            .arg("--input")
            .arg(&input)
            .arg("--ledger")
            .arg(&db)
            .args(extra);
        c
    };
    // Ask ε, pay ε: the rounding cost is taken inside the ε asked, so the guarantee (and the charge) is 1.
    for _ in 0..2 {
        let out = mean(&[]).assert().success().get_output().stdout.clone();
        assert_eq!(json_of(&out)["guarantee"]["epsilon"].as_f64().unwrap(), 1.0);
    }
    let s = spent(&db, "poses.csv");
    assert_eq!(s["releases"], 3);
    assert_eq!(account(&s, "pure")["total"]["epsilon"].as_f64().unwrap(), 2.0);
    assert_eq!(account(&s, "metric:so3_geodesic:rad")["total"]["epsilon"].as_f64().unwrap(), 1.0);
    // 2 + 1 > 2: the third mean is refused before the file is read, and prints nothing.
    mean(&[]).assert().code(4).stdout(predicate::str::is_empty()).stderr(predicate::str::contains("poses.csv"));
    // So is another privatize (1 + 1 > 1.5), and it leaves no output file.
    let again = dir.path().join("again.csv");
    cmd()
        .args(["privatize", "--mechanism", "laplace", "--epsilon", "1", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(&again)
        .arg("--ledger")
        .arg(&db)
        .assert()
        .code(4)
        .stderr(predicate::str::contains("over its budget"));
    assert!(!again.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3, "only the ledger, the input and the first output");
    assert_eq!(spent(&db, "poses.csv")["releases"], 3);
    // Another label is another data set, with no budget: refused (exit 4, nothing recorded) unless allowed.
    mean(&["--dataset", "poses-v2"])
        .assert()
        .code(4)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("has no budget").and(predicate::str::contains("--allow-unbudgeted")));
    assert_eq!(spent(&db, "poses-v2")["releases"], 0);
    mean(&["--dataset", "poses-v2", "--allow-unbudgeted"]).assert().success();
    assert_eq!(spent(&db, "poses-v2")["releases"], 1);
}

/// A label with no budget (a typo, a default taken from the file name) is refused with exit 4,
/// writes nothing and charges nothing, for privatize, mean and `ledger add`, unless explicitly allowed.
#[test]
fn unbudgeted_labels_are_refused_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("l.sqlite");
    let input = dir.path().join("poses.csv");
    std::fs::write(&input, POSES).unwrap();
    ledger(&db).args(["init", "--dataset", "poses", "--pure", "50", "--metric-dp", "50"]).assert().success();
    let out = dir.path().join("out.csv");
    let privatize = |extra: &[&str]| {
        let mut c = cmd();
        c.args(["privatize", "--mechanism", "laplace", "--epsilon", "1", "--input"])
            .arg(&input)
            .arg("--output")
            .arg(&out)
            .arg("--ledger")
            .arg(&db)
            .args(extra);
        c
    };
    // The default label is the file name, "poses.csv", which has no budget ("poses" has).
    privatize(&[]).assert().code(4).stderr(predicate::str::contains("\"poses.csv\" has no budget"));
    privatize(&["--dataset", "pose"]).assert().code(4);
    assert!(!out.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "only the ledger and the input");
    ledger(&db).args(["add", "--dataset", "pose", "--mechanism", "m", "--pure", "1"]).assert().code(4);
    ledger(&db)
        .args(["add", "--dataset", "pose", "--mechanism", "m", "--pure", "1", "--json"])
        .assert()
        .code(4)
        .stdout(predicate::str::contains("\"no_budget\""));
    let export = ledger(&db).args(["export"]).assert().success().get_output().stdout.clone();
    assert_eq!(json_of(&export)["datasets"].as_array().unwrap().len(), 1, "only the budgeted data set");
    privatize(&["--dataset", "poses"]).assert().success();
    privatize(&["--dataset", "pose", "--allow-unbudgeted", "--force"]).assert().success();
    ledger(&db)
        .args(["add", "--dataset", "pose", "--mechanism", "m", "--pure", "1", "--allow-unbudgeted"])
        .assert()
        .success();
    assert_eq!(spent(&db, "pose")["releases"], 2);
}

/// A request id is used once. A second run with it (same request, or another input) would
/// draw new noise, so it is refused with exit 4 before anything is read or written, and charges nothing.
#[test]
fn a_reused_request_id_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("l.sqlite");
    let input = dir.path().join("poses.csv");
    std::fs::write(&input, POSES).unwrap();
    let other = dir.path().join("other.csv");
    std::fs::write(&other, "w,x,y,z\n1,0,0,0\n").unwrap();
    ledger(&db).args(["init", "--dataset", "poses.csv", "--pure", "100", "--metric-dp", "100"]).assert().success();
    let privatize = |out: &Path| {
        let mut c = cmd();
        c.args(["privatize", "--mechanism", "laplace", "--epsilon", "1", "--request-id", "job-7", "--input"])
            .arg(&input)
            .arg("--output")
            .arg(out)
            .arg("--ledger")
            .arg(&db);
        c
    };
    let first = dir.path().join("first.csv");
    privatize(&first).assert().success();
    // The retry, to a new file and to standard output, is refused; nothing appears.
    let second = dir.path().join("second.csv");
    privatize(&second)
        .assert()
        .code(4)
        .stderr(predicate::str::contains("request id \"job-7\" was already used by release #1"));
    assert!(!second.exists());
    privatize(Path::new("-")).assert().code(4).stdout(predicate::str::is_empty());
    assert_eq!(spent(&db, "poses.csv")["releases"], 1);
    // mean with an id: once; the same id with another input file is refused too.
    let mean = |input: &Path, id: &str| {
        let mut c = cmd();
        c.args(["mean", "--space", "so3", "--center", "identity", "--radius", "30deg", "--epsilon", "1"])
            .args(["--dataset", "poses.csv", "--request-id", id, "--input"])
            .arg(input)
            .arg("--ledger")
            .arg(&db);
        c
    };
    mean(&input, "mean-1").assert().success();
    mean(&input, "mean-1").assert().code(4).stdout(predicate::str::is_empty());
    mean(&other, "mean-1").assert().code(4).stdout(predicate::str::is_empty());
    mean(&other, "job-7").assert().code(4).stdout(predicate::str::is_empty());
    assert_eq!(spent(&db, "poses.csv")["releases"], 2);
    // `ledger add` records a release computed elsewhere: there a retry with the same id and the same release is
    // an idempotent replay (no noise is drawn here), and another release under it a conflict.
    let add = |eps: &str| {
        let mut c = ledger(&db);
        c.args(["add", "--dataset", "poses.csv", "--mechanism", "ext", "--pure", eps, "--request-id", "ext-1"]);
        c
    };
    add("1").assert().success();
    add("1").assert().success().stdout(predicate::str::contains("Already recorded"));
    add("2").assert().code(2);
    assert_eq!(spent(&db, "poses.csv")["releases"], 3);
}

#[test]
fn damaged_or_missing_ledgers_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.sqlite");
    let bytes: Vec<u8> = (0..5000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    std::fs::write(&junk, &bytes).unwrap();
    for args in [&["show"][..], &["add", "--dataset", "d", "--mechanism", "m", "--pure", "1"], &["export"]] {
        ledger(&junk)
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("is not a privacy ledger").and(predicate::str::contains("left as it is")));
    }
    assert_eq!(std::fs::read(&junk).unwrap(), bytes);
    let missing = dir.path().join("missing.sqlite");
    ledger(&missing).arg("show").assert().code(2).stderr(predicate::str::contains("no such ledger"));
    assert!(!missing.exists());
    // privatize with a bad ledger fails before writing anything.
    let input = dir.path().join("poses.csv");
    std::fs::write(&input, POSES).unwrap();
    let out = dir.path().join("out.csv");
    cmd()
        .args(["privatize", "--mechanism", "laplace", "--epsilon", "1", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(&out)
        .arg("--ledger")
        .arg(&junk)
        .assert()
        .code(2);
    assert!(!out.exists());
    assert_eq!(std::fs::read(&junk).unwrap(), bytes);
}

#[test]
fn bad_arguments_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("l.sqlite");
    cmd().args(["budget", "ledger", "show"]).assert().code(2).stderr(predicate::str::contains("--db"));
    ledger(&db).arg("init").assert().success();
    let add = |extra: &[&str]| {
        let mut c = ledger(&db);
        c.args(["add", "--dataset", "d", "--mechanism", "m"]).args(extra);
        c
    };
    add(&[]).assert().code(2).stderr(predicate::str::contains("guarantees"));
    add(&["--approx", "1"]).assert().code(2);
    add(&["--pure", "-1"]).assert().code(2);
    add(&["--guarantee", "{oops"]).assert().code(2);
    add(&["--guarantee", r#"{"notion":"renyi","alpha":2}"#]).assert().code(2);
    ledger(&db).args(["init", "--pure", "1"]).assert().code(2);
    ledger(&db).args(["limit", "--dataset", "d"]).assert().code(2);
    ledger(&db).args(["show", "--pure", "1"]).assert().code(2);
    assert!(!ledger(&db).arg("show").assert().success().get_output().stdout.is_empty());
}

#[test]
fn processes_race_for_the_last_of_a_budget() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("l.sqlite");
    ledger(&db).args(["init", "--dataset", "d", "--pure", "1"]).assert().success();
    ledger(&db).args(["add", "--dataset", "d", "--mechanism", "first", "--pure", "0.5"]).assert().success();
    let bin = assert_cmd::cargo::cargo_bin("manifold-dp");
    let children: Vec<_> = (0..8)
        .map(|i| {
            std::process::Command::new(&bin)
                .args(["budget", "ledger", "--db"])
                .arg(&db)
                .args(["add", "--dataset", "d", "--mechanism", &format!("racer {i}"), "--pure", "0.15"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let codes: Vec<i32> = children.into_iter().map(|mut c| c.wait().unwrap().code().unwrap()).collect();
    // 0.5 + 3·0.15 = 0.95 fits; a fourth would make 1.1.
    assert_eq!(codes.iter().filter(|&&c| c == 0).count(), 3, "{codes:?}");
    assert_eq!(codes.iter().filter(|&&c| c == 4).count(), 5, "{codes:?}");
    let s = spent(&db, "d");
    assert_eq!(s["releases"], 4);
    assert!(account(&s, "pure")["total"]["epsilon"].as_f64().unwrap() <= 1.0);
}

/// One label holds local and central budgets side by side: a location release per rad is charged to a metric
/// budget kept per km (a unit is a unit), a central mean only to the central accounts.
/// Analyst workflow: a 5 km local release and two central means at ε = 1 on one label with a 0.5/km
/// local and a pure-2 central budget; a third mean is refused, and so is a 3 km release. On the old main the
/// location release was refused (charged ε·D = 4003 pure), and a mean was charged 1.00037, so two did not fit.
#[test]
fn local_and_central_budgets_side_by_side_with_units() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("l.sqlite");
    let input = dir.path().join("airports.csv");
    fs::write(&input, "lat,lon\n48.85,2.35\n48.86,2.33\n48.84,2.36\n").unwrap();
    ledger(&db)
        .args(["init", "--dataset", "airports", "--metric-dp", "0.5", "--metric", "sphere_surface", "--unit", "km"])
        .args(["--pure", "2"])
        .assert()
        .success();
    let privatize = |km: &str| {
        let mut c = cmd();
        c.args(["privatize", "--space", "latlon", "--mechanism", "purkayastha", "--protect", km, "--level", "1"])
            .args(["--input"])
            .arg(&input)
            .args(["--output", "/dev/null", "--quiet", "--ledger"])
            .arg(&db)
            .args(["--dataset", "airports"]);
        c
    };
    privatize("5km").assert().success();
    let mean = || {
        let mut c = cmd();
        c.args(["mean", "--space", "latlon", "--center", "48.85,2.35", "--radius", "50km", "--epsilon", "1"])
            .args(["--input"])
            .arg(&input)
            .args(["--ledger"])
            .arg(&db)
            .args(["--dataset", "airports"]);
        c
    };
    mean().assert().success();
    mean().assert().success();
    mean().assert().code(4).stderr(predicate::str::contains("pure total"));
    privatize("3km").assert().code(4).stderr(predicate::str::contains("metric:sphere_surface:km"));
    // Rotations on the location label: nothing in the km budget covers them, so refused, never charged 0.
    let frames = dir.path().join("frames.csv");
    fs::write(&frames, POSES).unwrap();
    cmd()
        .args(["privatize", "--space", "so3", "--mechanism", "laplace", "--epsilon", "1", "--input"])
        .arg(&frames)
        .args(["--output", "/dev/null", "--quiet", "--ledger"])
        .arg(&db)
        .args(["--dataset", "airports"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("cannot be expressed"));
    let s = spent(&db, "airports");
    assert_eq!(s["releases"], 3);
    // 1 per 5 km is 0.2 per km exactly, with the float-safety ε₀ beside it; the means are 1 each, exactly.
    let metric = &account(&s, "metric:sphere_surface:km")["total"];
    assert_eq!(metric["epsilon"].as_f64().unwrap(), 0.2, "{s}");
    let additive = metric["additive_epsilon"].as_f64().unwrap();
    assert!(additive > 0.0 && additive < 1e-2, "{s}");
    assert_eq!(account(&s, "pure")["total"]["epsilon"].as_f64().unwrap(), 2.0, "{s}");
    // Σ central ε + Σ ε₀, rounded up (one ulp at most above the nearest sum).
    let constant = s["combined"]["constant"].as_f64().unwrap();
    assert!(constant >= 2.0 + additive && constant <= (2.0 + additive).next_up(), "{s}");
    // `show` states the combined guarantee in the user's unit, and its standard-DP reading.
    let text = ledger(&db).args(["show", "--dataset", "airports"]).output().unwrap().stdout;
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("Combined: epsilon <= 0.2 per km · d + 2.00"), "{text}");
    assert!(text.contains("as standard DP (d up to 20015"), "{text}");
    assert!(
        text.contains(
            "May it release once more? No central releases: its pure budget is spent. Others within what is \
                       left: metric:sphere_surface:km epsilon = 0.3 per km + 0.09"
        ),
        "{text}"
    );
    let export = String::from_utf8(ledger(&db).args(["export", "--output", "-"]).output().unwrap().stdout).unwrap();
    assert!(export.contains("privatize latlon purkayastha --protect 5km --level 1: "), "{export}");
    assert!(export.contains("mean latlon --center 48.85,2.35 --radius 50km --epsilon 1 --outside error: "), "{export}");
}

/// A budgeted label refuses a kind it has no budget for, and the message names the flag that adds one.
#[test]
fn a_kind_without_a_budget_is_refused_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("l.sqlite");
    let input = dir.path().join("airports.csv");
    fs::write(&input, "lat,lon\n48.85,2.35\n48.86,2.33\n").unwrap();
    ledger(&db)
        .args(["init", "--dataset", "a", "--metric-dp", "0.5", "--metric", "sphere_surface", "--unit", "km"])
        .assert()
        .success();
    cmd()
        .args(["mean", "--space", "latlon", "--center", "48.85,2.35", "--radius", "50km", "--epsilon", "5"])
        .arg("--input")
        .arg(&input)
        .arg("--ledger")
        .arg(&db)
        .args(["--dataset", "a"])
        .assert()
        .code(4)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("none for central releases").and(predicate::str::contains("--pure E")));
    ledger(&db).args(["limit", "--dataset", "b", "--pure", "3"]).assert().success();
    cmd()
        .args(["privatize", "--space", "latlon", "--mechanism", "vmf", "--epsilon", "100", "--input"])
        .arg(&input)
        .args(["--output", "/dev/null", "--quiet", "--ledger"])
        .arg(&db)
        .args(["--dataset", "b"])
        .assert()
        .code(4)
        .stderr(
            predicate::str::contains("none for local releases")
                .and(predicate::str::contains("--metric-dp E --metric sphere_chordal --unit unit")),
        );
    assert_eq!(spent(&db, "a")["releases"], 0);
    assert_eq!(spent(&db, "b")["releases"], 0);
}

/// Repeated local releases under a local (ε, δ) budget composed in Rényi DP (`--local-approx`): VMF on S² at
/// κ = 0.1 costs ε_p = 2κ + ε₀ ≈ 0.2 between any two points, so adding ε's admits 14 releases under ε = 3;
/// the Rényi account admits 22, then refuses one (exit 4), recording and writing nothing.
#[test]
fn repeated_local_releases_compose_in_renyi_dp_under_a_local_approx_budget() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("l.sqlite");
    let input = dir.path().join("points.csv");
    std::fs::write(&input, "x1,x2,x3\n1,0,0\n0,0.6,0.8\n").unwrap();
    ledger(&db).args(["init", "--dataset", "points", "--local-approx", "3,1e-6"]).assert().success();
    let run = |i: usize| {
        let out = dir.path().join(format!("out{i}.csv"));
        let mut c = cmd();
        c.args(["privatize", "--space", "sphere:3", "--mechanism", "vmf", "--epsilon", "0.1", "--quiet"])
            .arg("--input")
            .arg(&input)
            .arg("--output")
            .arg(&out)
            .args(["--ledger"])
            .arg(&db)
            .args(["--dataset", "points"]);
        (c, out)
    };
    let mut admitted = 0;
    for i in 0..60 {
        let (mut c, out) = run(i);
        let output = c.output().unwrap();
        if output.status.code() == Some(4) {
            assert!(String::from_utf8_lossy(&output.stderr).contains("local_rdp"), "{output:?}");
            assert!(!out.exists(), "a refused release writes nothing");
            break;
        }
        assert!(output.status.success(), "{output:?}");
        admitted += 1;
    }
    assert!((20..60).contains(&admitted), "admitted {admitted}, linear composition 14");
    let s = spent(&db, "points");
    assert_eq!(s["releases"], admitted, "nothing charged on refusal");
    let rdp = account(&s, "local_rdp");
    assert_eq!(rdp["total"]["notion"], "approx_dp");
    assert!(rdp["total"]["epsilon"].as_f64().unwrap() <= 3.0 && rdp["total"]["delta"].as_f64().unwrap() == 1e-6);
    // The linear total beside it: Σ ε per chordal unit, as pure DP 22·ε_p > 4, over the budget of 3.
    let linear = account(&s, "metric:sphere_chordal:unit");
    assert!(linear["total"]["epsilon"].as_f64().unwrap() >= 0.1 * admitted as f64 * (1.0 - 1e-9));
    assert!(linear["standard"]["epsilon"].as_f64().unwrap() > 4.0);
    // The guarantee recorded carries the law it was charged by.
    let export = ledger(&db).args(["export"]).assert().success().get_output().stdout.clone();
    let release = &json_of(&export)["datasets"][0]["releases"][0]["guarantees"][0];
    assert_eq!(release["renyi"], serde_json::json!({"family": "vmf", "dim": 3, "kappa": 0.1}));
    // The text report shows both.
    let text = ledger(&db).args(["show", "--dataset", "points"]).assert().success().get_output().stdout.clone();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("local_rdp") && text.contains("metric:sphere_chordal:unit"), "{text}");
}
