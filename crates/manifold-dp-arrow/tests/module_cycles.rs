//! The crate's modules use each other without cycles: the test reads the sources (tests and comments
//! excluded), builds the graph of `crate::x` uses between top-level modules and fails on any cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || path.file_name().is_some_and(|n| n == "tests.rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap().to_string_lossy().into_owned();
            let own = rel.split(['/', '.']).next().unwrap().to_string();
            if own == "lib" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let body = text.find("#[cfg(test)]\nmod tests").map_or(&text[..], |i| &text[..i]);
            let code: String =
                body.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
            let uses = graph.entry(own.clone()).or_default();
            for (i, m) in code.match_indices("crate::") {
                let used: String =
                    code[i + m.len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                // `crate::Error` and the other items of lib.rs are not modules.
                if used != own && used.chars().next().is_some_and(|c| c.is_lowercase()) {
                    uses.insert(used);
                }
            }
        }
    }
    graph
}

/// One cycle of the graph, if it has any (depth-first search).
fn a_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|n| n == node) {
            return Some(path[i..].to_vec());
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_modules_form_no_cycle() {
    let graph = module_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(graph.len() > 5, "{graph:?}");
    assert_eq!(a_cycle(&graph), None);
}

#[test]
fn the_check_finds_a_cycle() {
    // The control: temporal → zone → temporal, as the crate had it.
    let mut graph = BTreeMap::new();
    graph.insert("mean".to_string(), BTreeSet::from(["zone".to_string()]));
    graph.insert("temporal".to_string(), BTreeSet::from(["zone".to_string()]));
    graph.insert("zone".to_string(), BTreeSet::from(["temporal".to_string()]));
    assert_eq!(a_cycle(&graph), Some(vec!["zone".to_string(), "temporal".to_string()]));
}
