//! Result-set column definitions against MariaDB's: the statements of
//! `golden/column_definitions.txt` (written from a MariaDB server by
//! `scripts/server/column_definitions_from_mariadb.py`) run through the
//! server, and every field of every column definition is compared. The
//! differences Quiver keeps on purpose or has not closed yet are listed, with
//! their reasons, in `golden/column_definitions_known.txt`; a listed
//! difference that no longer occurs fails the test too, so the list stays true.

mod common;

use std::collections::BTreeSet;

use common::*;

const GOLDEN: &str = include_str!("golden/column_definitions.txt");
const KNOWN: &str = include_str!("golden/column_definitions_known.txt");

/// The fields of a column definition as the golden file writes them.
fn fields(c: &Column) -> Vec<(&'static str, String)> {
    vec![
        ("schema", c.schema.clone()),
        ("table", c.table.clone()),
        ("org_table", c.org_table.clone()),
        ("name", c.name.clone()),
        ("org_name", c.org_name.clone()),
        ("charset", c.charset.to_string()),
        ("length", c.length.to_string()),
        ("type", c.ty.to_string()),
        ("flags", c.flags.to_string()),
        ("decimals", c.decimals.to_string()),
    ]
}

/// `query | column (1-based) | field`, as the known-differences file lists them.
type Difference = (String, usize, String);

fn known_differences() -> BTreeSet<Difference> {
    KNOWN
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let parts: Vec<&str> = l.split(" | ").map(str::trim).collect();
            assert_eq!(parts.len(), 3, "bad line in the known differences: {l}");
            let column = parts[1].parse().expect("a column number");
            (parts[0].to_string(), column, parts[2].to_string())
        })
        .collect()
}

#[test]
fn column_definitions_match_mariadbs() {
    let (h, _db) = default_server();
    let mut c = Client::root(h.local_addr());
    let mut found: BTreeSet<Difference> = BTreeSet::new();
    let mut report = Vec::new();
    let mut lines = GOLDEN.lines().filter(|l| !l.starts_with('#')).peekable();
    let mut queries = 0;
    while let Some(line) = lines.next() {
        if let Some(sql) = line.strip_prefix("statement ") {
            let r = c.query(sql);
            assert!(!matches!(r, Outcome::Err { .. }), "{sql}: {r:?}");
            continue;
        }
        let sql = line.strip_prefix("query ").expect("statement or query");
        queries += 1;
        let mut want = Vec::new();
        while let Some(col) = lines.next_if(|l| l.starts_with("  ")) {
            let pairs: Vec<(String, String)> = col
                .trim_start()
                .split('\t')
                .map(|kv| {
                    let (k, v) = kv.split_once('=').expect("field=value");
                    (k.to_string(), v.to_string())
                })
                .collect();
            want.push(pairs);
        }
        let r = c.query(sql);
        let got = match &r {
            Outcome::Rows { columns, .. } => columns,
            other => panic!("{sql}: {other:?}"),
        };
        assert_eq!(got.len(), want.len(), "{sql}: column count");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            for ((field, value), (wfield, wvalue)) in fields(g).into_iter().zip(w) {
                assert_eq!(field, wfield);
                if &value != wvalue {
                    found.insert((sql.to_string(), i + 1, field.to_string()));
                    report.push(format!(
                        "{sql} | {} | {field}    # Quiver {value}, MariaDB {wvalue}",
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(queries >= 10, "the golden file has its queries");
    let known = known_differences();
    let new: Vec<&String> = report
        .iter()
        .filter(|l| {
            let key = l.split("    #").next().unwrap();
            let parts: Vec<&str> = key.split(" | ").collect();
            !known.contains(&(
                parts[0].to_string(),
                parts[1].parse().unwrap(),
                parts[2].trim().to_string(),
            ))
        })
        .collect();
    let gone: Vec<&Difference> = known.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "column definitions differ from MariaDB's where not listed:\n{}\nlisted but now equal: {gone:?}",
        new.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}
