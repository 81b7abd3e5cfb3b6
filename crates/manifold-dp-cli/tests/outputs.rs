//! Where `privatize` (and `ledger export`) may write: outputs distinct from each other,
//! the input and the ledger; devices, FIFOs and symbolic links; every path checked before any work or ledger
//! charge; streams that fail midway say what they published; and interrupted runs leave no temporary files.

use predicates::prelude::*;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

mod common;
use common::{POSES, ledger, privatize, releases, scratch};

/// Names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn outputs_may_not_name_each_other_the_input_or_the_ledger() {
    let dir = scratch();
    let d = dir.path();
    fs::write(d.join("pub.csv"), "precious\n").unwrap();
    std::os::unix::fs::symlink("pub.csv", d.join("alias.csv")).unwrap();
    std::os::unix::fs::symlink("in.csv", d.join("in-link.csv")).unwrap();
    let before = listing(d);
    let ledger_bytes = fs::read(d.join("l.sqlite")).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--output", "new.csv", "--skip-invalid", "./new.csv"], "name the same file"),
        (&["--output", "pub.csv", "--skip-invalid", "./pub.csv", "--force"], "name the same file"),
        (&["--output", "pub.csv", "--report", "./pub.csv", "--force"], "name the same file"),
        (&["--output", "pub.csv", "--report", "alias.csv", "--force"], "name the same file"),
        (&["--output", "-", "--skip-invalid", "-"], "standard output"),
        (&["--output", "-", "--report", "-"], "standard output"),
        (&["--output", "in-link.csv", "--force"], "is the input file"),
        (&["--output", "./in.csv", "--force"], "is the input file"),
        (&["--output", "out.csv", "--report", "in.csv", "--force"], "is the input file"),
        (&["--output", "l.sqlite", "--force", "--ledger", "l.sqlite"], "is the privacy ledger"),
        (&["--output", "o.csv", "--report", "./l.sqlite", "--force", "--ledger", "l.sqlite"], "is the privacy ledger"),
    ];
    for (args, expect) in cases {
        privatize(d)
            .args(["--input", "in.csv"])
            .args(*args)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(*expect));
        assert_eq!(listing(d), before, "{args:?}");
        assert_eq!(fs::read_to_string(d.join("pub.csv")).unwrap(), "precious\n", "{args:?}");
        assert_eq!(fs::read_to_string(d.join("in.csv")).unwrap(), POSES);
    }
    // `ledger export` may not overwrite the ledger it exports.
    for name in ["l.sqlite", "./l.sqlite"] {
        ledger(d)
            .args(["export", "--force", "--output", name])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("is the privacy ledger"));
    }
    assert_eq!(fs::read(d.join("l.sqlite")).unwrap(), ledger_bytes);
    assert_eq!(releases(d, "in.csv"), 0);
    // /dev/null may take several outputs: nothing written there can be mixed up.
    privatize(d)
        .args(["--input", "in.csv", "--output", "/dev/null", "--report", "/dev/null", "--skip-invalid", "/dev/null"])
        .assert()
        .success();
}

#[test]
fn special_files_are_written_in_place_and_links_written_through() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let dir = scratch();
    let d = dir.path();
    // /dev/null: neither "already exists" nor replaced, with or without --force (CSV: it has no extension).
    for force in [&[][..], &["--force"]] {
        privatize(d).args(["--input", "in.csv", "--output", "/dev/null", "--quiet"]).args(force).assert().success();
        assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    }
    // /dev/stdout when standard output is a pipe (as here): a link into /proc that names no path, written into.
    let out = privatize(d).args(["--input", "in.csv", "--output", "/dev/stdout", "--quiet"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("w,x,y,z\n") && text.lines().count() == 5, "{text}");
    // A FIFO is written into, not replaced by a regular file.
    let fifo = d.join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    privatize(d).args(["--input", "in.csv", "--output", "pipe", "--force", "--quiet"]).assert().success();
    let text = reader.join().unwrap();
    assert_eq!(text.lines().count(), 5, "{text}");
    assert!(text.starts_with("w,x,y,z\n"));
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    // A symbolic link is written through: its target is replaced (with --force), the link stays a link.
    fs::write(d.join("real.csv"), "old\n").unwrap();
    fs::set_permissions(d.join("real.csv"), fs::Permissions::from_mode(0o600)).unwrap();
    std::os::unix::fs::symlink("real.csv", d.join("link.csv")).unwrap();
    privatize(d)
        .args(["--input", "in.csv", "--output", "link.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already exists"));
    assert_eq!(fs::read_to_string(d.join("real.csv")).unwrap(), "old\n");
    privatize(d).args(["--input", "in.csv", "--output", "link.csv", "--force", "--quiet"]).assert().success();
    assert!(fs::symlink_metadata(d.join("link.csv")).unwrap().file_type().is_symlink());
    assert_eq!(fs::read_to_string(d.join("real.csv")).unwrap().lines().count(), 5);
    // --force kept the replaced file's mode (0600), through the link and directly.
    let mode = |p: &str| fs::metadata(d.join(p)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("real.csv"), 0o600);
    fs::set_permissions(d.join("real.csv"), fs::Permissions::from_mode(0o640)).unwrap();
    privatize(d).args(["--input", "in.csv", "--output", "real.csv", "--force", "--quiet"]).assert().success();
    assert_eq!(mode("real.csv"), 0o640);
    // A link to nothing is refused, and nothing is created at its target.
    std::os::unix::fs::symlink("missing/x.csv", d.join("dangling.csv")).unwrap();
    privatize(d)
        .args(["--input", "in.csv", "--output", "dangling.csv", "--force"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("symbolic link"));
    assert!(!d.join("missing").exists());
    assert!(!listing(d).iter().any(|n| n.starts_with(".manifold-dp-")));
}

#[test]
fn every_path_is_checked_before_any_work_or_charge() {
    let dir = scratch();
    let d = dir.path();
    fs::create_dir(d.join("sub")).unwrap();
    let before = listing(d);
    let cases: &[(&[&str], &str)] = &[
        (&["--output", "sub", "--force"], "is a directory"),
        (&["--output", "sub"], "is a directory"),
        (&["--output", "outslash/"], "names a directory"),
        (&["--output", ""], "empty"),
        (&["--output", "missing/out.csv"], "missing"),
        (&["--output", "o.csv", "--report", "sub", "--force"], "is a directory"),
        (&["--output", "o.csv", "--report", "rep/"], "names a directory"),
        (&["--output", "o.csv", "--report", "missing/r.json"], "missing"),
        (&["--output", "o.csv", "--skip-invalid", "sub", "--force"], "is a directory"),
        (&["--output", "-", "--report", "sub/"], "names a directory"),
    ];
    for (args, expect) in cases {
        privatize(d)
            .args(["--input", "in.csv", "--ledger", "l.sqlite"])
            .args(*args)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(*expect));
        assert_eq!(listing(d), before, "{args:?}");
        assert_eq!(listing(&d.join("sub")), Vec::<String>::new());
        assert_eq!(releases(d, "in.csv"), 0, "{args:?} charged the ledger");
    }
}

/// 70 000 valid rows (more than one batch) and then an invalid one.
fn long_input_with_a_late_bad_row() -> String {
    let mut text = String::from("w,x,y,z\n");
    for _ in 0..70_000 {
        text.push_str("1,0,0,0\n");
    }
    text.push_str("1,0,zero,0\n");
    text
}

#[test]
fn a_stream_is_validated_first_and_a_partial_stream_is_stated() {
    let dir = scratch();
    let d = dir.path();
    let text = long_input_with_a_late_bad_row();
    fs::write(d.join("long.csv"), &text).unwrap();
    ledger(d).args(["limit", "--dataset", "long.csv", "--pure", "100", "--metric-dp", "100"]).assert().success();
    // From a file: every row is read before the first goes out, so nothing is published or charged.
    privatize(d)
        .args(["--input", "long.csv", "--output", "-", "--ledger", "l.sqlite"])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(
            predicate::str::contains("row 70001 (line 70002)").and(predicate::str::contains("Nothing was written")),
        );
    assert_eq!(releases(d, "long.csv"), 0);
    // From standard input, which cannot be read twice: the rows already written are counted, and the charge
    // (made just before the first of them) is stated.
    let out = privatize(d)
        .args(["--input", "-", "--output", "-", "--ledger", "l.sqlite", "--dataset", "long.csv"])
        .write_stdin(text)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let rows = String::from_utf8(out.stdout).unwrap().lines().count() - 1;
    assert!(rows > 0, "{stderr}");
    assert!(stderr.contains("row 70001 (line 70002)"), "{stderr}");
    assert!(!stderr.contains("Nothing was written"), "{stderr}");
    assert!(
        stderr.contains(&format!("{rows} privatized rows had already been written to standard output")),
        "{rows} rows: {stderr}"
    );
    assert!(stderr.contains("recorded in the ledger"), "{stderr}");
    assert_eq!(releases(d, "long.csv"), 1);
    // The same from standard input to a file: nothing published, nothing charged.
    privatize(d)
        .args(["--input", "-", "--output", "o.csv", "--ledger", "l.sqlite", "--dataset", "long.csv"])
        .write_stdin(long_input_with_a_late_bad_row())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Nothing was written; the ledger (if any) was not charged"));
    assert_eq!(releases(d, "long.csv"), 1);
    assert!(!d.join("o.csv").exists());
}

fn temp_files(dir: &Path) -> Vec<String> {
    listing(dir).into_iter().filter(|n| n.starts_with(".manifold-dp-")).collect()
}

#[test]
fn interrupted_runs_leave_no_temporary_files() {
    for (signal, code) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let bin = assert_cmd::cargo::cargo_bin("manifold-dp");
        // Reading standard input that stays open: the run is certainly in progress when the signal comes.
        let mut child = std::process::Command::new(bin)
            .current_dir(d)
            .args(["privatize", "--mechanism", "laplace", "--epsilon", "1", "--input", "-", "--output", "out.csv"])
            .args(["--skip-invalid", "rejects.csv", "--report", "report.json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"w,x,y,z\n").unwrap();
        for i in 0..100_000 {
            // Every tenth row is invalid: raw rows for the rejects file.
            let row: &[u8] = if i % 10 == 0 { b"1,0,raw-secret,0\n" } else { b"1,0,0,0\n" };
            stdin.write_all(row).unwrap();
        }
        stdin.flush().unwrap();
        // Wait (polling, no deadline asserted) until the three temporary outputs exist.
        let mut polls = 0;
        while temp_files(d).len() < 3 {
            polls += 1;
            assert!(polls < 6000, "the temporary files never appeared: {:?}", listing(d));
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let pid = child.id().to_string();
        assert!(std::process::Command::new("kill").args(["-s", signal, &pid]).status().unwrap().success());
        let status = child.wait().unwrap();
        drop(stdin);
        assert_eq!(status.code(), Some(code), "SIG{signal}");
        assert_eq!(listing(d), Vec::<String>::new(), "SIG{signal} left files behind");
    }
}
