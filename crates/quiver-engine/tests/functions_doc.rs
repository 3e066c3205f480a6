//! docs/FUNCTIONS.md is written from the function registry and from what
//! the engine answers: this test fails when the committed file is stale.
//! Rewrite it with
//!
//! ```sh
//! QUIVER_WRITE_DOCS=1 cargo test --release -p quiver-engine --test functions_doc
//! ```
//!
//! Each of MariaDB's scalar, aggregate and window functions
//! (`mariadb_functions.txt`) gets a status: **registry** (an object of
//! `quiver_exec::functions::REGISTRY`, a scalar, aggregate or window function),
//! **enum** (implemented, not yet moved to the registry: a `ScalarFunc`
//! variant or a form the binder rewrites), **refused** (error 1235),
//! **missing** (error 1305) or **unknown** (other errors), found by calling
//! it with a few argument lists; and the .slt files under tests/sql/ that
//! call it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use quiver_engine::{Database, EngineConfig, Session};
use quiver_plan::{AggregateRef, FunctionRef, FunctionRegistry, WindowRef};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn slt_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            slt_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "slt") {
            out.push(p);
        }
    }
}

/// Whether `text` (upper case) calls `name`: the name, not inside a longer
/// word, then `(`, where an expression may start (after `(`, `,`, an
/// operator or a keyword such as SELECT), so that types (`c CHAR(3)`,
/// `AS CHAR(3)`) do not count.
/// Whether a query line of `text` applies operator `op` (`|`, `<<`, `~`):
/// outside string literals, not doubled (`||`, `&&`).
fn applies_operator(text: &str, op: &str) -> bool {
    // Lines of SQL: not comments, not expected results (after `----`
    // up to a blank line).
    let mut in_results = false;
    text.lines()
        .filter(|l| {
            match l.trim() {
                "----" => in_results = true,
                "" => in_results = false,
                _ => {}
            }
            !in_results && !l.starts_with('#')
        })
        .any(|line| {
            // The line without its quoted strings.
            let mut bare = String::new();
            let mut quote = None;
            for c in line.chars() {
                match quote {
                    Some(q) if c == q => quote = None,
                    Some(_) => {}
                    None if c == '\'' || c == '"' => quote = Some(c),
                    None => bare.push(c),
                }
            }
            let b = bare.as_bytes();
            bare.match_indices(op).any(|(at, _)| {
                let end = at + op.len();
                let single = op.len() == 2 || {
                    let c = op.as_bytes()[0];
                    (at == 0 || b[at - 1] != c) && b.get(end) != Some(&c)
                };
                let operand_after = b
                    .get(end)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || b" (~-_".contains(c));
                single && operand_after && !(op == ">>" && at > 0 && b[at - 1] == b'>')
            })
        })
}

fn calls(text: &str, name: &str) -> bool {
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return applies_operator(text, name);
    }
    const BEFORE: &[&str] = &[
        "SELECT", "WHERE", "BY", "AND", "OR", "ON", "THEN", "ELSE", "WHEN", "NOT", "HAVING", "IN",
        "SET", "VALUES", "DISTINCT", "CASE", "LIKE", "BETWEEN", "IS",
    ];
    let pat = format!("{name}(");
    let b = text.as_bytes();
    text.match_indices(&pat).any(|(at, _)| {
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
            return false;
        }
        let before = text[..at].trim_end();
        match before.chars().last() {
            None => true,
            Some(c) if "(,=<>+-*/%".contains(c) => true,
            Some(_) => {
                let word = before
                    .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or("");
                BEFORE.contains(&word)
            }
        }
    })
}

fn status(session: &Session, registry: &dyn FunctionRegistry, name: &str, window: bool) -> String {
    if let Some(f) = registry.scalar(&name.to_lowercase()) {
        return format!("registry (`{}`)", f.name());
    }
    if let Some(f) = registry.aggregate(&name.to_lowercase()) {
        return format!("registry (`{}`)", f.name());
    }
    if let Some(f) = registry.window(&name.to_lowercase()) {
        return format!("registry (`{}`)", f.name());
    }
    if window {
        // A window function not registered: called over a window.
        return match session.execute(&format!("SELECT {name}(1) OVER (ORDER BY 1)")) {
            Ok(_) => "enum".into(),
            Err(e) if e.code == 1235 => "refused (1235)".into(),
            Err(e) if e.code == 1305 => "missing".into(),
            Err(e) => format!("unknown (error {})", e.code),
        };
    }
    // Calls of a few argument lists (TIMESTAMPADD and TIMESTAMPDIFF need a
    // unit, GET_FORMAT a type): one that binds makes it implemented.
    let mut codes = vec![];
    for args in [
        "",
        "1",
        "DAY, 1, '2020-01-01'",
        "DAY, '2020-01-01', '2020-01-02'",
        "DATE, 'EUR'",
    ] {
        match session.execute(&format!("SELECT {name}({args})")) {
            Ok(_) => return "enum".into(),
            Err(e) if e.code == 1582 => return "enum".into(),
            Err(e) => codes.push(e.code),
        }
    }
    if codes.contains(&1305) {
        "missing".into()
    } else if codes.contains(&1235) {
        "refused (1235)".into()
    } else {
        format!("unknown (error {})", codes[0])
    }
}

fn arity(f: FunctionRef) -> String {
    arity_text(f.arity())
}

fn aggregate_arity(f: AggregateRef) -> String {
    arity_text(f.arity())
}

fn window_arity(f: WindowRef) -> String {
    arity_text(f.arity())
}

fn arity_text(r: std::ops::RangeInclusive<usize>) -> String {
    match (*r.start(), *r.end()) {
        (a, b) if a == b => a.to_string(),
        (a, usize::MAX) => format!("{a}+"),
        (a, b) => format!("{a}-{b}"),
    }
}

fn render() -> String {
    let list = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mariadb_functions.txt"),
    )
    .unwrap();
    let mut files = Vec::new();
    slt_files(&root().join("tests/sql"), &mut files);
    files.sort();
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(root().join("tests/sql")).unwrap();
            (
                rel.display().to_string(),
                std::fs::read_to_string(p).unwrap().to_uppercase(),
            )
        })
        .collect();
    let session = Session::new(Database::in_memory(), EngineConfig::default());
    let registry = &quiver_exec::functions::REGISTRY;
    let mut out = String::from(
        "<!-- @generated by crates/quiver-engine/tests/functions_doc.rs: do not edit; \
         QUIVER_WRITE_DOCS=1 cargo test --release -p quiver-engine --test functions_doc -->\n\
         # Functions\n\n\
         MariaDB 10.11's scalar, aggregate and window functions and where Quiver \
         stands on each. Status: **registry**, an object of the function registry \
         (`quiver-exec/src/functions/`, aggregates in `functions/aggregate/`, window \
         functions in `functions/window/`); **enum**, implemented but not yet moved \
         to it; **refused**, error 1235; **missing**, error 1305; **unknown**, \
         other errors for calls with a few argument lists. Tests: the .slt files \
         under `tests/sql/` that call it.\n",
    );
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut body = String::new();
    for line in list
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (family, names) = line.split_once(':').unwrap();
        body.push_str(&format!(
            "\n## {family}\n\n| Function | Status | Arguments | Tests |\n|---|---|---|---|\n"
        ));
        for name in names.split_whitespace() {
            let st = status(&session, registry, name, family == "Window");
            *counts
                .entry(st.split(' ').next().unwrap().to_string())
                .or_default() += 1;
            let args = registry
                .scalar(&name.to_lowercase())
                .map(arity)
                .or_else(|| {
                    registry
                        .aggregate(&name.to_lowercase())
                        .map(aggregate_arity)
                })
                .or_else(|| registry.window(&name.to_lowercase()).map(window_arity))
                .unwrap_or_default();
            let tests: Vec<String> = texts
                .iter()
                .filter(|(_, t)| calls(t, name))
                .map(|(f, _)| format!("`{f}`"))
                .collect();
            body.push_str(&format!(
                "| {} | {st} | {args} | {} |\n",
                name.replace('|', "\\|"),
                tests.join(", ")
            ));
        }
    }
    out.push_str("\nCounts: ");
    out.push_str(
        &counts
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    out.push_str(".\n");
    out.push_str(&body);
    out
}

#[test]
fn functions_md_is_current() {
    let path = root().join("docs/FUNCTIONS.md");
    let text = render();
    if std::env::var_os("QUIVER_WRITE_DOCS").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "docs/FUNCTIONS.md is stale: QUIVER_WRITE_DOCS=1 cargo test --release -p quiver-engine --test functions_doc"
    );
}

/// Every registered function is in the list the document is made of.
#[test]
fn every_registered_function_is_listed() {
    let list = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mariadb_functions.txt"),
    )
    .unwrap()
    .to_lowercase();
    let names: Vec<&str> = list
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(':'))
        .flat_map(|(_, n)| n.split_whitespace())
        .collect();
    for f in quiver_exec::functions::REGISTRY.scalars() {
        for n in std::iter::once(f.name()).chain(f.aliases().iter().copied()) {
            assert!(names.contains(&n), "{n} is not in mariadb_functions.txt");
        }
    }
    for f in quiver_exec::functions::REGISTRY.aggregates() {
        for n in std::iter::once(f.name()).chain(f.aliases().iter().copied()) {
            assert!(names.contains(&n), "{n} is not in mariadb_functions.txt");
        }
    }
    for f in quiver_exec::functions::REGISTRY.windows() {
        assert!(
            names.contains(&f.name()),
            "{} is not in mariadb_functions.txt",
            f.name()
        );
    }
}
