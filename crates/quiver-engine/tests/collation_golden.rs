//! MariaDB's answers on collations (tests/collation/*.tsv, written by
//! scripts/collation/golden.py) asked again through Quiver's SQL: the values
//! go into columns of each collation, and `=`, STRCMP and LIKE are computed by
//! the engine's operators, not by calling the collation crate directly.
//!
//! Quiver's strings are UTF-8 text, so cases with invalid UTF-8 bytes, and
//! collations of charsets other than utf8mb4/utf8mb3, are left to the
//! collation crate's own golden test; so are utf8mb3 cases with characters
//! above U+FFFF, which a utf8mb3 column does not take (error 1366, as in
//! MariaDB: its answers read those bytes as invalid utf8mb3).

use std::path::PathBuf;

use arrow_array::{cast::AsArray, types::Int64Type, Array};
use quiver_engine::{Database, EngineConfig, Session, StatementResult};

fn golden(name: &str) -> Vec<Vec<String>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/collation")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn unhex(h: &str) -> Option<Vec<u8>> {
    if h == "-" {
        return Some(vec![]);
    }
    (0..h.len() / 2)
        .map(|i| u8::from_str_radix(h.get(2 * i..2 * i + 2)?, 16).ok())
        .collect()
}

/// A string usable as SQL text for a column of collation `coll`: valid
/// UTF-8 that the column's charset holds (as a hex literal, so any
/// character, quote or control byte gets through unchanged).
fn text_literal(coll: &str, h: &str) -> Option<String> {
    let bytes = unhex(h)?;
    let s = String::from_utf8(bytes).ok()?;
    if s.contains('\0') || (coll.starts_with("utf8mb3") && s.chars().any(|c| c > '\u{FFFF}')) {
        return None;
    }
    Some(if h.is_empty() || h == "-" {
        "''".into()
    } else {
        format!("X'{h}'")
    })
}

fn is_utf8_collation(c: &str) -> bool {
    c.starts_with("utf8mb4_") || c.starts_with("utf8mb3_")
}

fn session() -> Session {
    let config = EngineConfig {
        threads: 2,
        ..Default::default()
    };
    Session::new(Database::in_memory(), config)
}

/// Runs a query; its columns as optional i64 per row.
fn int_rows(s: &Session, sql: &str) -> Vec<Vec<Option<i64>>> {
    let StatementResult::Rows { batches, .. } =
        s.query(sql).unwrap_or_else(|e| panic!("{sql}\n{e}"))
    else {
        panic!("no rows from {sql}")
    };
    let mut out = vec![];
    for b in batches {
        for r in 0..b.num_rows() {
            out.push(
                b.columns()
                    .iter()
                    .map(|c| {
                        let c = arrow_cast_i64(c);
                        (!c.is_null(r)).then(|| c.as_primitive::<Int64Type>().value(r))
                    })
                    .collect(),
            );
        }
    }
    out
}

fn arrow_cast_i64(a: &arrow_array::ArrayRef) -> arrow_array::ArrayRef {
    quiver_exec::expr::cast_array(a, &arrow_schema::DataType::Int64).expect("integer column")
}

/// Table `table` with an id and two string columns `cols` under `coll`,
/// holding the cases (id, SQL literal, SQL literal).
fn load_pairs(
    s: &Session,
    table: &str,
    coll: &str,
    cols: [&str; 2],
    cases: &[(usize, String, String, &Vec<String>)],
) {
    let charset = if coll.starts_with("utf8mb3") {
        "utf8mb3"
    } else {
        "utf8mb4"
    };
    let [x, y] = cols;
    s.execute(&format!(
        "CREATE TABLE {table} (i INT, {x} VARCHAR(200) CHARACTER SET {charset} COLLATE {coll}, \
         {y} VARCHAR(200) CHARACTER SET {charset} COLLATE {coll})"
    ))
    .unwrap();
    let values: Vec<String> = cases
        .iter()
        .map(|(i, a, b, _)| format!("({i}, {a}, {b})"))
        .collect();
    s.execute(&format!("INSERT INTO {table} VALUES {}", values.join(", ")))
        .unwrap();
}

#[test]
fn equality_and_strcmp_through_sql_match_mariadb() {
    let rows = golden("compare.tsv");
    let s = session();
    let mut checked = 0;
    let mut collations: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    collations.dedup();
    for (t, coll) in collations
        .iter()
        .enumerate()
        .filter(|(_, c)| is_utf8_collation(c))
    {
        let cases: Vec<(usize, String, String, &Vec<String>)> = rows
            .iter()
            .filter(|r| r[0] == *coll)
            .enumerate()
            .filter_map(|(i, r)| {
                Some((i, text_literal(coll, &r[2])?, text_literal(coll, &r[3])?, r))
            })
            .collect();
        if cases.is_empty() {
            continue;
        }
        let table = format!("g{t}");
        load_pairs(&s, &table, coll, ["a", "b"], &cases);
        let got = int_rows(
            &s,
            &format!("SELECT i, a = b, STRCMP(a, b) FROM {table} ORDER BY i"),
        );
        assert_eq!(got.len(), cases.len(), "{coll}");
        for ((_, _, _, r), g) in cases.iter().zip(&got) {
            let want_eq: i64 = r[4].parse().unwrap();
            let want_cmp: i64 = r[5].parse().unwrap();
            assert_eq!(
                (g[1], g[2]),
                (Some(want_eq), Some(want_cmp)),
                "{coll}: a={} b={} (= and STRCMP)",
                r[2],
                r[3]
            );
            checked += 1;
        }
    }
    assert!(checked > 3000, "only {checked} cases checked");
}

#[test]
fn like_through_sql_matches_mariadb() {
    let rows = golden("like.tsv");
    let s = session();
    let mut checked = 0;
    let mut groups: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r[0].as_str(), r[3].as_str()))
        .collect();
    groups.sort();
    groups.dedup();
    for (t, (coll, escape)) in groups.iter().enumerate() {
        if !is_utf8_collation(coll) || *escape == "-" {
            continue;
        }
        let escape_sql = match *escape {
            "default" => String::new(),
            h => match text_literal(coll, h) {
                Some(l) => format!(" ESCAPE {l}"),
                None => continue,
            },
        };
        let cases: Vec<(usize, String, String, &Vec<String>)> = rows
            .iter()
            .filter(|r| r[0] == *coll && r[3] == *escape && !r[4].starts_with('E'))
            .enumerate()
            .filter_map(|(i, r)| {
                Some((i, text_literal(coll, &r[1])?, text_literal(coll, &r[2])?, r))
            })
            .collect();
        if cases.is_empty() {
            continue;
        }
        let table = format!("l{t}");
        load_pairs(&s, &table, coll, ["v", "p"], &cases);
        let got = int_rows(
            &s,
            &format!("SELECT i, v LIKE p{escape_sql} FROM {table} ORDER BY i"),
        );
        assert_eq!(got.len(), cases.len(), "{coll}");
        for ((_, _, _, r), g) in cases.iter().zip(&got) {
            let want: i64 = r[4].parse().unwrap();
            assert_eq!(
                g[1],
                Some(want),
                "{coll}: {} LIKE {} ESCAPE {escape}",
                r[1],
                r[2]
            );
            checked += 1;
        }
    }
    assert!(checked > 2000, "only {checked} cases checked");
}
