//! The core's modules form layers: a module may use the ones below it and never one above. The test reads
//! the sources (tests excluded) and fails on any `crate::X` path that points upward.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Bottom to top. Numerics (formatting, directed rounding, trig, small fixed-size matrices) and the error type
/// know nothing of privacy; spaces carry their metrics, charts and grids; privacy accounts for mechanisms
/// it never builds; the registry and the auditor sit on top.
const LAYERS: &[&str] = &[
    "numerics",
    "error",
    "analysis",
    "sample",
    "space",
    "manifold",
    "privacy",
    "notes",
    "mechanism",
    "stats",
    "registry",
    "audit",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without its unit tests (a test module may use anything) and without comments.
fn code(text: &str) -> String {
    let body = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    body.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The top-level modules a file's code names through `crate::`.
fn uses(code: &str) -> BTreeSet<String> {
    code.match_indices("crate::")
        .map(|(i, m)| code[i + m.len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>())
        .collect()
}

/// Violations in the tree at `src`: (file, its layer, the upper module it uses).
fn upward_uses(src: &Path) -> Vec<(String, String, String)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut bad = Vec::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap().to_string_lossy().into_owned();
        let top = rel.split(['/', '.']).next().unwrap().to_string();
        let Some(own) = rank(&top) else { continue }; // lib.rs
        // A module's unit tests in files of their own (`x/tests.rs`, `x/tests/*.rs`) may use anything, as inline
        // ones may.
        if file.file_name().is_some_and(|n| n == "tests.rs") || rel.split('/').any(|part| part == "tests") {
            continue;
        }
        for used in uses(&code(&std::fs::read_to_string(&file).unwrap())) {
            if rank(&used).is_some_and(|r| r > own) {
                bad.push((rel.clone(), top.clone(), used));
            }
        }
    }
    bad
}

#[test]
fn no_module_uses_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let bad = upward_uses(&src);
    assert!(bad.is_empty(), "upward uses (file, its layer, the module above it that it uses):\n{bad:?}");
    // Every top-level module has a layer, so none escapes the check.
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    for line in lib.lines().filter_map(|l| l.strip_prefix("pub mod ")) {
        let name = line.trim_end_matches(';');
        assert!(LAYERS.contains(&name), "module {name} has no layer in LAYERS");
    }
}

#[test]
fn the_check_catches_an_upward_use() {
    // The control: a tree in which the sampler layer reaches up to the mechanisms.
    let dir = std::env::temp_dir().join(format!("layers-control-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sample")).unwrap();
    std::fs::write(dir.join("sample/x.rs"), "use crate::mechanism::Mechanism;\n// crate::audit in a comment\n")
        .unwrap();
    std::fs::write(dir.join("error.rs"), "use crate::numerics::format::short;\n").unwrap();
    let bad = upward_uses(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(bad, vec![("sample/x.rs".to_string(), "sample".to_string(), "mechanism".to_string())]);
}
