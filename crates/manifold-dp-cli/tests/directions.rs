//! End-to-end tests of the direction spaces: `privatize --space timeofday|latlon|circle|sphere:N` (forms kept,
//! pass-through, bad input naming row and column with nothing left behind, --skip-invalid, Parquet), units in
//! --protect and reports, `radius` and `sample` on these spaces.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::fs;
use std::path::Path;

fn bin() -> Command {
    Command::cargo_bin("manifold-dp").unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    v.sort();
    v
}

fn read_report(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

const VISITS: &str = "id,visited_at,place\n\
1,2024-05-01T13:30:00Z,\"Café, Rue X\"\n\
2,07:15,b\n\
3,2024-05-01 23:59:59.2+02:00,c\n\
4,00:00:00,d\n";

#[test]
fn time_of_day_keeps_every_form_and_passes_other_columns_through() {
    // At ε = 1e6 per radian (the largest accepted) the noise is about 15 ms: every field, written to at most a
    // tenth of a second, must come back as written.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("visits.csv");
    fs::write(&input, VISITS).unwrap();
    let output = dir.path().join("out.csv");
    bin()
        .args(["privatize", "--space", "timeofday", "--mechanism", "purkayastha", "--epsilon", "1e6", "--seed", "1"])
        .args(["--columns", "visited_at", "--input", s(&input), "--output", s(&output), "--quiet"])
        .assert()
        .success();
    assert_eq!(fs::read_to_string(&output).unwrap(), VISITS);
}

#[test]
fn time_of_day_protected_within_an_hour_reports_per_hour() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("t.csv");
    let rows: String = (0..2000).map(|i| format!("{i},{}\n", 6.0 + (i % 12) as f64)).collect();
    fs::write(&input, format!("id,time\n{rows}")).unwrap();
    let output = dir.path().join("out.csv");
    let report = dir.path().join("r.json");
    bin()
        .args(["privatize", "--space", "timeofday", "--mechanism", "purkayastha", "--protect", "1h", "--level", "1"])
        .args(["--input", s(&input), "--output", s(&output), "--report", s(&report), "--seed", "2"])
        .assert()
        .success()
        .stderr(predicate::str::contains("epsilon = 1 per h of great-circle distance"));
    let r = read_report(&report);
    assert_eq!(r["space"], "timeofday");
    assert_eq!(r["unit"], "h");
    assert!((r["epsilon_per_unit"].as_f64().unwrap() - 1.0).abs() < 1e-12);
    assert!((r["epsilon"].as_f64().unwrap() - 12.0 / std::f64::consts::PI).abs() < 1e-12);
    assert_eq!(r["guarantee_in_unit"]["unit"], "h");
    // The noisy hours lie in [0, 24) and their mean error matches the reported expectation (Hoeffding on
    // [0, 12] h at 1e-9: margin 12·√(ln(2e9)/(2·2000)) = 0.74 h).
    let out = fs::read_to_string(&output).unwrap();
    let mut total = 0.0;
    for (i, line) in out.lines().skip(1).enumerate() {
        let h: f64 = line.split(',').nth(1).unwrap().parse().unwrap();
        assert!((0.0..24.0).contains(&h));
        let d = (h - (6.0 + (i % 12) as f64)).rem_euclid(24.0);
        total += d.min(24.0 - d);
    }
    let mean = total / 2000.0;
    let expected = r["mean_error_in_unit"].as_f64().unwrap();
    assert!((mean - expected).abs() < 0.74, "{mean} vs {expected}");
}

#[test]
fn latitude_longitude_round_trip_and_km_budget() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("geo.csv");
    fs::write(&input, "name,lat,lon\nparis,48.8566,2.3522\nfiji,-17.7,190\nnorth,90,0\n").unwrap();
    let output = dir.path().join("out.csv");
    let report = dir.path().join("r.json");
    bin()
        .args(["privatize", "--space", "latlon", "--mechanism", "purkayastha", "--epsilon", "1e6", "--seed", "3"])
        .args(["--input", s(&input), "--output", s(&output), "--report", s(&report), "--quiet"])
        .assert()
        .success();
    let out = fs::read_to_string(&output).unwrap();
    let rows: Vec<Vec<String>> = out.lines().skip(1).map(|l| l.split(',').map(String::from).collect()).collect();
    assert_eq!(out.lines().next().unwrap(), "name,lat,lon");
    let want = [("paris", 48.8566, 2.3522), ("fiji", -17.7, -170.0)];
    for (row, (name, lat, lon)) in rows.iter().zip(want) {
        assert_eq!(row[0], name);
        assert!((row[1].parse::<f64>().unwrap() - lat).abs() < 1e-2, "{row:?}");
        assert!((row[2].parse::<f64>().unwrap() - lon).abs() < 1e-2, "{row:?}");
    }
    assert!((rows[2][1].parse::<f64>().unwrap() - 90.0).abs() < 1e-2);
    // --protect 2km at level 1 is 0.5 per km.
    bin()
        .args(["privatize", "--space", "latlon", "--mechanism", "vmf", "--protect", "2km", "--level", "1"])
        .args(["--input", s(&input), "--output", s(&output), "--report", s(&report), "--force"])
        .assert()
        .success()
        .stderr(predicate::str::contains("per km of great-circle distance"));
    let r = read_report(&report);
    assert!((r["epsilon_per_unit"].as_f64().unwrap() - 0.5).abs() < 1e-12);
    assert_eq!(r["guarantee"]["metric"], "sphere_chordal");
    assert_eq!(r["guarantee_in_unit"]["metric"], "sphere_surface");
}

/// A fine local release (latlon at 2 km) states its negligible δ per pair of inputs, never the vacuous
/// "delta ≤ 1" of the diameter (`docs/proofs/float_safety.md` §6, "Per pair").
#[test]
fn a_fine_location_release_states_its_delta_per_pair() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("geo.csv");
    fs::write(&input, "lat,lon\n48.85,2.35\n").unwrap();
    let (output, report) = (dir.path().join("out.csv"), dir.path().join("r.json"));
    let assert = bin()
        .args(["privatize", "--space", "latlon", "--mechanism", "purkayastha", "--protect", "2km", "--level", "1"])
        .args(["--input", s(&input), "--output", s(&output), "--report", s(&report)])
        .assert()
        .success();
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("per km") && stderr.contains("delta(d) ≤ 1e-300·(1 + exp(epsilon·d"), "{stderr}");
    assert!(!stderr.contains("delta ≤ 1\n") && !stderr.contains("delta ≤ 1 "), "{stderr}");
    let r = read_report(&report);
    let base = r["guarantee"]["delta_base"].as_f64().unwrap();
    assert!(base > 0.0 && base < 1.01e-300 && r["guarantee"].get("delta").is_none(), "{r}");
}

#[test]
fn parquet_and_csv_agree_on_directions() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("geo.csv");
    let rows: String =
        (0..300).map(|i| format!("{i},{},{}\n", -60.05 + 0.4 * i as f64, -179.0 + 1.1 * i as f64)).collect();
    fs::write(&input, format!("id,lat,lon\n{rows}")).unwrap();
    // CSV → Parquet at ε = 1e6 (nearly a copy: Purkayastha's angle scale is 1/ε), then the same seeded release
    // from both. (No latitude is 0: the tangent frame on S² flips with the sign of z, so inputs 1e-12 apart
    // across the equator get different — equally distributed — noise from the same random numbers.)
    let pq = dir.path().join("geo.parquet");
    bin()
        .args(["privatize", "--space", "latlon", "--mechanism", "purkayastha", "--epsilon", "1e6", "--seed", "1"])
        .args(["--input", s(&input), "--output", s(&pq), "--quiet"])
        .assert()
        .success();
    let from_csv = dir.path().join("a.csv");
    let from_pq = dir.path().join("b.csv");
    for (src, dst) in [(&input, &from_csv), (&pq, &from_pq)] {
        bin()
            .args(["privatize", "--space", "latlon", "--mechanism", "purkayastha", "--epsilon", "300", "--seed", "9"])
            .args(["--input", s(src), "--output", s(dst), "--quiet"])
            .assert()
            .success();
    }
    let (a, b) = (fs::read_to_string(&from_csv).unwrap(), fs::read_to_string(&from_pq).unwrap());
    for (la, lb) in a.lines().zip(b.lines()).skip(1) {
        let va: Vec<f64> = la.split(',').map(|v| v.parse().unwrap()).collect();
        let vb: Vec<f64> = lb.split(',').map(|v| v.parse().unwrap()).collect();
        assert_eq!(va[0], vb[0]);
        assert!((va[1] - vb[1]).abs() < 1e-2 && (va[2] - vb[2]).abs() < 1e-2, "{la} vs {lb}");
    }
}

#[test]
fn unit_vectors_and_angles() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("v.csv");
    fs::write(&input, "x1,x2,x3,x4,tag\n0.5,0.5,0.5,0.5,a\n0,0,-1,0,b\n").unwrap();
    let output = dir.path().join("out.csv");
    bin()
        .args(["privatize", "--space", "sphere:4", "--mechanism", "vmf", "--epsilon", "1e6", "--seed", "1"])
        .args(["--input", s(&input), "--output", s(&output), "--quiet"])
        .assert()
        .success();
    let out = fs::read_to_string(&output).unwrap();
    let second: Vec<&str> = out.lines().nth(2).unwrap().split(',').collect();
    assert!((second[2].parse::<f64>().unwrap() + 1.0).abs() < 1e-4 && second[4] == "b");
    let input = dir.path().join("a.csv");
    fs::write(&input, "bearing\n350\n10\n").unwrap();
    bin()
        .args(["privatize", "--space", "circle", "--format", "deg", "--columns", "bearing"])
        .args(["--mechanism", "wrapped-laplace", "--epsilon", "1e6", "--seed", "1"])
        .args(["--input", s(&input), "--output", s(&output), "--force", "--quiet"])
        .assert()
        .success();
    let out = fs::read_to_string(&output).unwrap();
    let v: Vec<f64> = out.lines().skip(1).map(|l| l.parse().unwrap()).collect();
    assert!((v[0] - 350.0).abs() < 1e-2 && (v[1] - 10.0).abs() < 1e-2, "{v:?}");
}

/// Runs a privatize that must fail with exit 2, a message containing each of `needles`, and no file left.
fn refused(space: &str, mechanism: &str, csv: &str, extra: &[&str], needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    fs::write(&input, csv).unwrap();
    let output = dir.path().join("out.csv");
    let mut cmd = bin();
    cmd.args(["privatize", "--space", space, "--mechanism", mechanism])
        .args(["--input", s(&input), "--output", s(&output), "--report", s(&dir.path().join("r.json"))])
        .args(extra);
    if !extra.contains(&"--protect") {
        cmd.args(["--epsilon", "2"]);
    }
    let mut assert = cmd.assert().code(2);
    for n in needles {
        assert = assert.stderr(predicate::str::contains(*n));
    }
    assert_eq!(names(dir.path()), vec!["in.csv".to_string()], "debris left for {csv:?}");
}

#[test]
fn bad_directions_are_refused_with_row_and_column() {
    refused("latlon", "vmf", "lat,lon\n1,2\n91,0\n", &[], &["row 2", "column \"lat\"", "swapped"]);
    refused("latlon", "vmf", "lat,lon\n1,2\n3,NaN\n", &[], &["row 2", "column \"lon\"", "finite"]);
    refused("timeofday", "vmf", "time\n12:00\n25:00\n", &[], &["row 2", "column \"time\"", "below 24"]);
    refused("timeofday", "vmf", "time\n12:00\n12:30pm\n", &[], &["row 2", "\"pm\""]);
    refused("timeofday", "vmf", "time\n24.5\n", &[], &["row 1", "outside [0, 24]"]);
    refused("sphere:3", "purkayastha", "x1,x2,x3\n1,0,0\n0.5,0.5,0\n", &[], &["row 2", "not 1 within tolerance"]);
    refused("sphere:3", "purkayastha", "x1,x2,x3\n1,0,0\n1,0,inf\n", &[], &["row 2", "column \"x3\""]);
    refused("sphere:3", "purkayastha", "x1,x2\n1,0\n", &[], &["no column \"x3\""]);
    refused("latlon", "vmf", "lat,lon\n1,2\n", &["--columns", "lat"], &["needs 2 columns"]);
    refused("latlon", "laplace", "lat,lon\n1,2\n", &[], &["is for rotations"]);
    refused("latlon", "wrapped-laplace", "lat,lon\n1,2\n", &[], &["circle only"]);
    refused("timeofday", "vmf", "time\n1\n", &["--protect", "1", "--level", "1"], &["1h, 30min or 90s"]);
    refused("latlon", "vmf", "lat,lon\n1,2\n", &["--protect", "2h", "--level", "1"], &["2km or 500m"]);
    refused("timeofday", "vmf", "time\n1\n", &["--format", "deg"], &["does not apply"]);
}

#[test]
fn skip_invalid_sets_bad_locations_aside() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    fs::write(&input, "lat,lon,id\n1,2,a\n91,0,b\n3,4,c\n").unwrap();
    let output = dir.path().join("out.csv");
    let rejects = dir.path().join("rejects.csv");
    bin()
        .args(["privatize", "--space", "latlon", "--mechanism", "vmf", "--epsilon", "1e6", "--seed", "1"])
        .args(["--input", s(&input), "--output", s(&output), "--skip-invalid", s(&rejects), "--quiet"])
        .assert()
        .success();
    assert_eq!(fs::read_to_string(&rejects).unwrap(), "lat,lon,id\n91,0,b\n");
    assert_eq!(fs::read_to_string(&output).unwrap().lines().count(), 3);
}

#[test]
fn radius_in_hours_and_km() {
    let out = bin()
        .args(["radius", "--space", "timeofday", "--mechanism", "vmf", "--radius", "1h", "--level", "0.683", "--json"])
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!((v["radius_in_unit"].as_f64().unwrap() - 1.0).abs() < 1e-9, "{v}");
    assert!((v["radius_rad"].as_f64().unwrap() - std::f64::consts::PI / 12.0).abs() < 1e-9);
    assert_eq!(v["unit"], "h");
    let eps = v["epsilon"].as_f64().unwrap();
    // And back: this ε gives a 1 h radius.
    let out = bin()
        .args(["radius", "--space", "timeofday", "--mechanism", "vmf", "--epsilon", &eps.to_string()])
        .args(["--level", "68.3%", "--json"])
        .assert()
        .success();
    let w: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!((w["radius_in_unit"].as_f64().unwrap() - 1.0).abs() < 1e-6);
    bin()
        .args(["radius", "--space", "latlon", "--mechanism", "purkayastha", "--radius", "2km", "--level", "0.9"])
        .assert()
        .success()
        .stdout(predicate::str::contains("puts 90.0% of releases within 2 km"));
}

#[test]
fn sample_writes_each_space_s_header_and_points() {
    let cases =
        [("sphere:4", "x1,x2,x3,x4", 4), ("latlon", "lat,lon", 2), ("circle", "angle", 1), ("timeofday", "hours", 1)];
    for (space, header, fields) in cases {
        let out = bin()
            .args(["sample", "--space", space, "--mechanism", "purkayastha", "--epsilon", "5", "-n", "50"])
            .args(["--seed", "4"])
            .assert()
            .success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next().unwrap(), header);
        let rows: Vec<Vec<f64>> = lines.map(|l| l.split(',').map(|v| v.parse().unwrap()).collect()).collect();
        assert_eq!(rows.len(), 50);
        assert!(rows.iter().all(|r| r.len() == fields));
        if space == "sphere:4" {
            assert!(rows.iter().all(|r| (r.iter().map(|v| v * v).sum::<f64>() - 1.0).abs() < 1e-12));
        }
    }
    bin()
        .args(["sample", "--space", "latlon", "--mechanism", "vmf", "--epsilon", "5", "-n", "1", "--center", "91,0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--center 91,0"));
}

#[test]
fn snap_rounds_releases_onto_a_coarser_public_grid_at_no_cost() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("a.csv");
    fs::write(&input, "angle\n0.3\n-2.0\n3.0\n1.0\n").unwrap();
    let (plain, coarse) = (dir.path().join("plain.json"), dir.path().join("coarse.json"));
    let output = dir.path().join("out.csv");
    for (report, snap) in [(&plain, None), (&coarse, Some("0.01deg"))] {
        let mut cmd = bin();
        cmd.args(["privatize", "--space", "circle", "--mechanism", "purkayastha", "--epsilon", "2", "--seed", "3"])
            .args(["--input", s(&input), "--output", s(&output), "--force", "--quiet", "--report", s(report)]);
        if let Some(step) = snap {
            cmd.args(["--snap", step]);
        }
        cmd.assert().success();
    }
    // 0.01° is 1/36000 turn: the grid is 2^⌊log₂(1/36000)⌋ = 2^-16 turns, and the cost is the float-safe one.
    let (plain, coarse) = (read_report(&plain), read_report(&coarse));
    let g = &coarse["guarantee"];
    assert_eq!(g["grid"]["spacing_log2"], -16, "{g}");
    assert_eq!(g["additive_epsilon"], plain["guarantee"]["additive_epsilon"]);
    let out = fs::read_to_string(&output).unwrap();
    for line in out.lines().skip(1) {
        let turns = line.parse::<f64>().unwrap() / std::f64::consts::TAU * 65536.0;
        assert!((turns - turns.round()).abs() < 1e-6, "{line} is not on the 2^-16 turn grid");
    }
    // Finer than the float-safe grid, or not a distance: refused before anything is written.
    let fresh = dir.path().join("fresh.csv");
    for (step, needle) in [("1e-9deg", "finer than the float-safe grid"), ("2km", "--snap")] {
        bin()
            .args(["privatize", "--space", "circle", "--mechanism", "purkayastha", "--epsilon", "2"])
            .args(["--input", s(&input), "--output", s(&fresh), "--snap", step])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle));
        assert!(!fresh.exists());
    }
}

#[test]
fn tab_and_semicolon_separated_files_keep_their_separator() {
    let dir = tempfile::tempdir().unwrap();
    // TSV by extension, in and out.
    let input = dir.path().join("places.tsv");
    fs::write(&input, "id\tlat\tlon\tnote\n1\t48.85\t2.35\ta, b\n2\t-33.9\t151.2\tc\n").unwrap();
    let output = dir.path().join("out.tsv");
    bin()
        .args(["privatize", "--space", "latlon", "--mechanism", "purkayastha", "--protect", "2km", "--level", "1"])
        .args(["--seed", "1", "--quiet", "--input", s(&input), "--output", s(&output)])
        .assert()
        .success();
    let out = fs::read_to_string(&output).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "id\tlat\tlon\tnote");
    let first: Vec<&str> = lines[1].split('\t').collect();
    assert_eq!((first[0], first[3]), ("1", "a, b"), "{out}");
    assert!((first[1].parse::<f64>().unwrap() - 48.85).abs() < 0.5);
    // --delimiter ';' for input, output and the rejected rows, which keep the input's separator.
    let input = dir.path().join("places.csv");
    fs::write(&input, "id;lat;lon\n1;48.85;2.35\n2;x;151.2\n").unwrap();
    let (output, rejects) = (dir.path().join("out.csv"), dir.path().join("rejects.csv"));
    bin()
        .args(["privatize", "--space", "latlon", "--mechanism", "purkayastha", "--protect", "2km", "--level", "1"])
        .args(["--seed", "1", "--quiet", "--delimiter", ";", "--input", s(&input), "--output", s(&output)])
        .args(["--skip-invalid", s(&rejects)])
        .assert()
        .success();
    let out = fs::read_to_string(&output).unwrap();
    assert!(out.starts_with("id;lat;lon\n1;48."), "{out}");
    assert_eq!(fs::read_to_string(&rejects).unwrap(), "id;lat;lon\n2;x;151.2\n");
    // A separator that can appear in numbers is refused.
    bin()
        .args(["privatize", "--space", "latlon", "--mechanism", "purkayastha", "--epsilon", "1", "--delimiter", "."])
        .args(["--input", s(&input), "--output", s(&dir.path().join("never.csv"))])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot separate fields"));
}

/// `--mechanism auto` picks the most accurate mechanism from the exact laws and says why; naming one 2× or more
/// less accurate warns; the ledger records the mechanism that ran; auto cannot solve a radius for ε.
#[test]
fn auto_chooses_the_mechanism_and_a_poor_choice_warns() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    fs::write(&input, "lat,lon\n48.85,2.35\n48.86,2.33\n").unwrap();
    let ledger = dir.path().join("l.sqlite");
    bin()
        .args(["budget", "ledger", "--db", s(&ledger), "init", "--dataset", "in", "--metric-dp", "5000"])
        .args(["--metric", "sphere_surface"])
        .assert()
        .success();
    let run = |mechanism: &str| {
        let mut c = bin();
        c.args(["privatize", "--space", "latlon", "--mechanism", mechanism, "--protect", "5km", "--level", "1"])
            .args(["--input", s(&input), "--output", "/dev/null", "--quiet"]);
        c
    };
    run("auto").assert().success().stderr(
        predicate::str::contains("mechanism auto chose purkayastha (purkayastha: expected error 9.99")
            .and(predicate::str::contains("vmf: expected error 223")),
    );
    run("vmf").assert().success().stderr(predicate::str::contains("warning: vmf moves points 22."));
    run("purkayastha").assert().success().stderr(predicate::str::is_empty());
    run("auto").args(["--ledger", s(&ledger), "--dataset", "in"]).assert().success();
    let out = bin().args(["budget", "ledger", "--db", s(&ledger), "export", "--output", "-"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("privatize latlon purkayastha"));
    bin()
        .args(["radius", "--space", "latlon", "--mechanism", "auto", "--radius", "5km", "--level", "0.5"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--mechanism auto: solving epsilon for a radius needs one mechanism"));
}

/// `--format deg360` writes longitudes in [0, 360) for tables in that convention; the default is [-180, 180).
#[test]
fn longitudes_can_keep_the_0_to_360_convention() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    fs::write(&input, "lat,lon\n40,350\n41,10\n").unwrap();
    let lon = |format: &[&str]| -> Vec<f64> {
        let out = bin()
            .args(["privatize", "--space", "latlon", "--mechanism", "purkayastha", "--protect", "1km", "--level", "1"])
            .args(format)
            .args(["--input", s(&input), "--output", "-", "--quiet", "--seed", "3"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
            .collect()
    };
    let east = lon(&["--format", "deg360"]);
    assert!((east[0] - 350.0).abs() < 0.5 && (east[1] - 10.0).abs() < 0.5, "{east:?}");
    let signed = lon(&[]);
    assert!((signed[0] + 10.0).abs() < 0.5, "{signed:?}");
    // The same release, written two ways.
    assert!((east[0] - 360.0 - signed[0]).abs() < 1e-9 && east[1] == signed[1]);
}
