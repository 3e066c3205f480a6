//! The workspace's rooms stay small and one-way: no hand-written source file
//! passes 1,500 lines, the session's dispatcher (`quiver-engine`
//! `session.rs`) stays under 600, and no two files of a crate use each other
//! (directly or round a longer loop) through `use crate::...` / `super::`
//! paths. Files that begin with an `@generated` line are tables a script
//! writes and are exempt from the size rule.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 1500;
const MAX_SESSION_LINES: usize = 600;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file under `dir` whose name ends in one of `exts`, skipping build
/// output, virtual environments and data.
fn files(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(
                name.as_str(),
                "target" | ".venv" | "data" | ".git" | "node_modules"
            ) {
                files(&path, exts, out);
            }
        } else if exts.iter().any(|x| name.ends_with(x)) {
            out.push(path);
        }
    }
}

#[test]
fn no_hand_written_file_passes_1500_lines() {
    let root = workspace();
    let mut all = Vec::new();
    for dir in ["crates", "scripts", "bench", "tests", "docs"] {
        files(
            &root.join(dir),
            &[".rs", ".py", ".sh", ".go", ".md"],
            &mut all,
        );
    }
    assert!(
        all.len() > 100,
        "found only {} files under {root:?}",
        all.len()
    );
    let mut long = Vec::new();
    for path in all {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let generated = text
            .lines()
            .next()
            .is_some_and(|l| l.contains("@generated"));
        let lines = text.lines().count();
        if lines > MAX_LINES && !generated {
            long.push(format!(
                "{} ({lines} lines)",
                path.strip_prefix(&root).unwrap().display()
            ));
        }
    }
    assert!(
        long.is_empty(),
        "split these by job (at most {MAX_LINES} lines each): {long:#?}"
    );
}

#[test]
fn the_session_keeps_only_its_state_and_dispatcher() {
    let path = workspace().join("crates/quiver-engine/src/session.rs");
    let lines = std::fs::read_to_string(&path).unwrap().lines().count();
    assert!(
        lines <= MAX_SESSION_LINES,
        "session.rs has {lines} lines: statements belong in ddl.rs, dml.rs, set.rs, explain.rs, query.rs"
    );
}

/// The module path of a source file of a crate (`src/a/b.rs` and
/// `src/a/b/mod.rs` are `a::b`, `lib.rs` / `main.rs` the root).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The modules `text` (of module `me`) names by `crate::` or `super::`
/// paths, braced `use` trees included, each as the longest module of
/// `known` the path starts with.
fn uses(text: &str, me: &[String], known: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let bytes = code.as_bytes();
    let mut paths = Vec::new();
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(start) {
            let at = from + at;
            from = at + start.len();
            // Not the end of another word (`quiver_crate::`, `pub(crate)`).
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            // A `super::` right after another was taken with it.
            if start == "super::" && code[..at].ends_with("super::") {
                continue;
            }
            let base = if start == "crate::" {
                Vec::new()
            } else {
                me[..me.len().saturating_sub(1)].to_vec()
            };
            tree(base, &code[at + start.len()..], &mut paths);
        }
    }
    let mut out = BTreeSet::new();
    for mut path in paths {
        while !path.is_empty() && !known.contains(&path) {
            path.pop();
        }
        if !path.is_empty() && !me.starts_with(&path) {
            out.insert(path);
        }
    }
    out
}

/// The paths of the use tree at the start of `rest`, each after `prefix`:
/// `a::b`, `a::{b, c::d}`, `super::x`.
fn tree(mut prefix: Vec<String>, mut rest: &str, out: &mut Vec<Vec<String>>) -> usize {
    let len = rest.len();
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("super::") {
            prefix.pop();
            rest = r;
            continue;
        }
        if let Some(r) = rest.strip_prefix('{') {
            // Each item of the group, to its closing brace.
            rest = r;
            loop {
                rest = rest.trim_start();
                if let Some(r) = rest.strip_prefix('}') {
                    return len - r.len();
                }
                if let Some(r) = rest.strip_prefix(',') {
                    rest = r;
                    continue;
                }
                let used = tree(prefix.clone(), rest, out);
                if used == 0 {
                    return len - rest.len();
                }
                rest = &rest[used..];
            }
        }
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if word.is_empty() {
            if !prefix.is_empty() {
                out.push(prefix);
            }
            return len - rest.len();
        }
        prefix.push(word.clone());
        rest = &rest[word.len()..];
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => {
                out.push(prefix);
                return len - rest.len();
            }
        }
    }
}

/// The cycles of `graph`, each as the files round it (one per strongly
/// connected component of more than one file).
fn cycles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<String>> {
    let reach = |from: &Vec<String>| -> BTreeSet<Vec<String>> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(n) = todo.pop() {
            for m in graph.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    todo.push(m.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<_, _> = graph.keys().map(|k| (k.clone(), reach(k))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for k in graph.keys() {
        if done.contains(k) || !reaches[k].contains(k) {
            continue;
        }
        let component: Vec<String> = graph
            .keys()
            .filter(|m| reaches[k].contains(*m) && reaches[*m].contains(k))
            .inspect(|m| {
                done.insert((*m).clone());
            })
            .map(|m| m.join("::"))
            .collect();
        out.push(component);
    }
    out
}

#[test]
fn no_two_files_of_a_crate_use_each_other() {
    let root = workspace();
    let mut found = Vec::new();
    let mut crates = 0;
    for entry in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        let src = entry.path().join("src");
        if !src.is_dir() {
            continue;
        }
        crates += 1;
        let mut rs = Vec::new();
        files(&src, &[".rs"], &mut rs);
        let known: BTreeSet<Vec<String>> = rs.iter().map(|f| module_of(&src, f)).collect();
        let mut graph = BTreeMap::new();
        for f in &rs {
            let me = module_of(&src, f);
            let text = std::fs::read_to_string(f).unwrap();
            // A file's own test module may reach anywhere.
            let text = text.split("#[cfg(test)]").next().unwrap_or("");
            graph.insert(me.clone(), uses(text, &me, &known));
        }
        for c in cycles(&graph) {
            found.push(format!(
                "{}: {}",
                entry.file_name().to_string_lossy(),
                c.join(" <-> ")
            ));
        }
    }
    assert!(crates > 10, "found {crates} crates");
    assert!(
        found.is_empty(),
        "files that use each other (move the shared piece to its own module or the lower file): {found:#?}"
    );
}

#[test]
fn the_cycle_finder_sees_a_loop_of_three() {
    let m = |s: &str| vec![s.to_string()];
    let known: BTreeSet<_> = ["a", "b", "c", "d"].iter().map(|s| m(s)).collect();
    let mut graph = BTreeMap::new();
    graph.insert(m("a"), uses("use crate::b::Thing;", &m("a"), &known));
    graph.insert(m("b"), uses("use crate::{c::X, d};", &m("b"), &known));
    graph.insert(m("c"), uses("fn f() { crate::a::g() }", &m("c"), &known));
    graph.insert(
        m("d"),
        uses("use super::super::x; pub(crate) fn h() {}", &m("d"), &known),
    );
    assert_eq!(graph[&m("b")], [m("c"), m("d")].into_iter().collect());
    assert!(graph[&m("d")].is_empty());
    assert_eq!(
        cycles(&graph),
        vec![vec!["a".to_string(), "b".into(), "c".into()]]
    );
}
