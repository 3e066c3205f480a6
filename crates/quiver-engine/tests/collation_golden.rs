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

use std::collections::{BTreeMap, BTreeSet};
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

// ---------------------------------------------------------------------------
// strings.tsv, tables.tsv, like.tsv with constant patterns, locate.tsv: also
// for latin1 and ascii columns (Quiver keeps their text as UTF-8; a value
// goes in as `_latin1 X'..'`, and HEX shows its bytes in the charset again).

/// Where Quiver's answers differ from MariaDB's, one difference per line:
///   `<file> | <collation> | <case>    # Quiver's answer, MariaDB's`
/// (a whole class of cases that Quiver rejects with an error is one line,
/// without a collation). A listed difference that no longer occurs fails
/// its test: delete its line then.
const KNOWN: &str = r#"
"#;

fn known(file: &str) -> BTreeSet<String> {
    KNOWN
        .lines()
        .map(|l| l.split("    #").next().unwrap_or("").trim())
        .filter(|l| l.starts_with(file))
        .map(str::to_string)
        .collect()
}

/// Counts the cases a test checks and collects where Quiver differs.
struct Checker {
    file: &'static str,
    cases: usize,
    found: BTreeMap<String, String>,
}

impl Checker {
    fn new(file: &'static str) -> Self {
        Checker {
            file,
            cases: 0,
            found: BTreeMap::new(),
        }
    }

    /// One case: `key` names it (`<collation> | <case>`) in the differences.
    fn check(&mut self, key: impl FnOnce() -> String, got: &str, want: &str) {
        self.cases += 1;
        if got != want {
            let key = if let Some(code) = got.strip_prefix("error ") {
                // A query Quiver rejects: one line for its whole class.
                key().split_once(" | ").map(|(_, c)| c.to_string()).unwrap() + " | error " + code
            } else {
                key()
            };
            self.found.insert(
                format!("{} | {key}", self.file),
                format!("Quiver {got}, MariaDB {want}"),
            );
        }
    }

    /// Fails on a difference not listed in KNOWN, and on a listed one that
    /// is gone; and when fewer than `min` cases were checked.
    fn finish(self, what: &str, min: usize) {
        eprintln!("{}: {} cases checked ({what})", self.file, self.cases);
        assert!(
            self.cases >= min,
            "{}: only {} cases checked ({what})",
            self.file,
            self.cases
        );
        let known = known(self.file);
        let new: Vec<String> = self
            .found
            .iter()
            .filter(|(k, _)| !known.contains(*k))
            .map(|(k, v)| format!("{k}    # {v}"))
            .collect();
        let gone: Vec<&String> = known
            .iter()
            .filter(|k| !self.found.contains_key(*k))
            .collect();
        assert!(
            new.is_empty() && gone.is_empty(),
            "{} ({what}): {} differences from MariaDB not listed in KNOWN:\n{}\nlisted in KNOWN but now equal to MariaDB:\n{}",
            self.file,
            new.len(),
            new.join("\n"),
            gone.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
        );
    }
}

/// The charset of a text collation Quiver's columns hold.
fn charset_of(coll: &str) -> Option<&'static str> {
    ["utf8mb4", "utf8mb3", "latin1", "ascii"]
        .into_iter()
        .find(|cs| coll.starts_with(&format!("{cs}_")))
}

/// The bytes `h` (hex; `-` is empty) as a literal of the collation's charset
/// (`_latin1 X'E9'`), if Quiver's column of that collation holds them:
/// valid UTF-8 for utf8mb4, also no character above U+FFFF for utf8mb3, and
/// no byte above 0x7F for ascii (which Quiver reads as `?`).
fn charset_literal(coll: &str, h: &str) -> Option<String> {
    let cs = charset_of(coll)?;
    let bytes = unhex(h)?;
    let holds = match cs {
        "utf8mb4" => std::str::from_utf8(&bytes).is_ok(),
        "utf8mb3" => std::str::from_utf8(&bytes).is_ok_and(|s| s.chars().all(|c| c <= '\u{FFFF}')),
        "latin1" => true,
        _ => bytes.iter().all(|b| *b < 0x80),
    };
    let h = if h == "-" { "" } else { h };
    holds.then(|| format!("_{cs} X'{h}'"))
}

/// An ESCAPE argument as a plain string literal (Quiver takes no
/// introducer there): the bytes read in the collation's charset.
fn escape_literal(coll: &str, e: &str) -> Option<String> {
    let cs = charset_of(coll)?;
    let bytes = unhex(e)?;
    let text: String = match cs {
        "latin1" => {
            // Bytes 0x80-0x9F are cp1252's characters in MariaDB's latin1.
            if bytes.iter().any(|b| (0x80..0xA0).contains(b)) {
                return None;
            }
            bytes.iter().map(|&b| char::from(b)).collect()
        }
        "ascii" if bytes.iter().any(|b| *b >= 0x80) => return None,
        _ => String::from_utf8(bytes).ok()?,
    };
    if text.contains('\0') {
        return None;
    }
    Some(format!(
        "'{}'",
        text.replace('\\', "\\\\").replace('\'', "''")
    ))
}

/// Results of a query as text: strings as they are, other values as
/// integers (`NULL` for null); or `error <code>`.
fn cells(s: &Session, sql: &str) -> Result<Vec<Vec<String>>, String> {
    let r = s.query(sql).map_err(|e| format!("error {}", e.code))?;
    let StatementResult::Rows { batches, .. } = r else {
        panic!("no rows from {sql}")
    };
    let mut out = vec![];
    for b in batches {
        let cols: Vec<arrow_array::ArrayRef> = b
            .columns()
            .iter()
            .map(|c| match c.data_type() {
                arrow_schema::DataType::Utf8 => c.clone(),
                _ => arrow_cast_i64(c),
            })
            .collect();
        for r in 0..b.num_rows() {
            out.push(
                cols.iter()
                    .map(|c| {
                        if c.is_null(r) {
                            "NULL".to_string()
                        } else if let Some(s) = c.as_string_opt::<i32>() {
                            s.value(r).to_string()
                        } else {
                            c.as_primitive::<Int64Type>().value(r).to_string()
                        }
                    })
                    .collect(),
            );
        }
    }
    Ok(out)
}

/// HEX's answer as the golden files write it (`-` for the empty string).
fn dash(h: &str) -> &str {
    if h.is_empty() {
        "-"
    } else {
        h
    }
}

fn column_type(coll: &str) -> String {
    format!(
        "VARCHAR(200) CHARACTER SET {} COLLATE {coll}",
        charset_of(coll).expect("a text collation")
    )
}

/// Creates `table` (i INT, and string columns `cols` of collation `coll`)
/// holding `rows` (literals, one per string column).
fn load(s: &Session, table: &str, coll: &str, cols: &[&str], rows: &[Vec<String>]) {
    let defs: Vec<String> = cols
        .iter()
        .map(|c| format!("{c} {}", column_type(coll)))
        .collect();
    s.execute(&format!(
        "CREATE TABLE {table} (i INT, {})",
        defs.join(", ")
    ))
    .unwrap();
    for chunk in rows.chunks(500).enumerate() {
        let (k, chunk) = chunk;
        let values: Vec<String> = chunk
            .iter()
            .enumerate()
            .map(|(j, r)| format!("({}, {})", k * 500 + j, r.join(", ")))
            .collect();
        let sql = format!("INSERT INTO {table} VALUES {}", values.join(", "));
        s.execute(&sql).unwrap_or_else(|e| panic!("{sql}\n{e}"));
    }
}

/// The collations of a golden file's rows (first column), in file order.
fn collations_of(rows: &[Vec<String>], col: usize) -> Vec<String> {
    let mut seen = BTreeSet::new();
    rows.iter()
        .map(|r| r[col].clone())
        .filter(|c| charset_of(c).is_some() && seen.insert(c.clone()))
        .collect()
}

#[test]
fn strings_through_sql_match_mariadb() {
    let rows = golden("strings.tsv");
    let s = session();
    let mut f = Checker::new("strings.tsv");
    const EXPRS: [&str; 7] = [
        "HEX(WEIGHT_STRING(s))",
        "CHAR_LENGTH(s)",
        "HEX(UPPER(s))",
        "HEX(LOWER(s))",
        "HEX(LEFT(s, 2))",
        "HEX(RIGHT(s, 2))",
        "HEX(SUBSTRING(s, 2, 3))",
    ];
    for (t, coll) in collations_of(&rows, 0).iter().enumerate() {
        let cases: Vec<(&Vec<String>, String)> = rows
            .iter()
            .filter(|r| r[0] == *coll)
            .filter_map(|r| Some((r, charset_literal(coll, &r[1])?)))
            .collect();
        let table = format!("s{t}");
        let lits: Vec<Vec<String>> = cases.iter().map(|(_, l)| vec![l.clone()]).collect();
        load(&s, &table, coll, &["s"], &lits);
        let got = cells(
            &s,
            &format!("SELECT i, {} FROM {table} ORDER BY i", EXPRS.join(", ")),
        )
        .unwrap();
        assert_eq!(got.len(), cases.len(), "{coll}");
        for ((r, _), g) in cases.iter().zip(&got) {
            for (k, e) in EXPRS.iter().enumerate() {
                let want = &r[2 + k];
                let got = if k == 1 {
                    g[1 + k].as_str()
                } else {
                    dash(&g[1 + k])
                };
                f.check(
                    || format!("{coll} | {}", e.replace("(s", &format!("({}", r[1]))),
                    got,
                    want,
                );
            }
        }
    }
    f.finish(
        "WEIGHT_STRING, CHAR_LENGTH, UPPER, LOWER, LEFT, RIGHT, SUBSTRING",
        20000,
    );
}

/// A set of tables.tsv loaded into a table.
struct Set {
    table: String,
    /// Per row (id): its stored bytes (hex), and whether the table holds it.
    vals: Vec<(String, bool)>,
    /// MariaDB's ORDER BY s, id and GROUP BY s's groups (ids), all rows.
    order: Vec<usize>,
    groups: Vec<Vec<usize>>,
}

/// tables.tsv: each set's stored values in a column of the collation (with
/// `i` the insertion order, as MariaDB's `id`), then ORDER BY s, i (MariaDB's
/// order has no ties: ids break them), GROUP BY s (the groups' members, and
/// the value shown for a group: MariaDB's is its first row's), MIN and MAX.
///
/// MariaDB stored some values Quiver's columns cannot hold (surrogates in a
/// utf8 column, bytes above 0x7F in an ascii one): those rows are left out,
/// and MariaDB's answers restricted to the other rows: the order without
/// them, the groups without them (a group shows its first remaining row's
/// value), MIN the first row of that order and MAX the first row of the
/// last group in it, as MariaDB's answers for whole sets show (checked).
#[test]
fn order_group_min_max_through_sql_match_mariadb() {
    let rows = golden("tables.tsv");
    let s = session();
    let mut f = Checker::new("tables.tsv");
    let mut set: Option<Set> = None;
    let (mut sets, mut left_out) = (0, 0);
    let ids = |v: &[usize]| {
        v.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    for (t, r) in rows.iter().enumerate() {
        let (kind, coll, set_no) = (r[0].as_str(), r[1].as_str(), r[2].as_str());
        if charset_of(coll).is_none() {
            continue;
        }
        if kind == "values" {
            let mut vals = vec![];
            let mut inserts = vec![];
            for (k, x) in r[3].split(' ').enumerate() {
                let (id, hx) = x.split_once(':').expect("id:hex");
                assert_eq!(id, k.to_string(), "ids in insertion order");
                let lit = charset_literal(coll, hx);
                if let Some(lit) = &lit {
                    // A bit per row, for the members of GROUP BY's groups.
                    inserts.push(format!("({k}, {}, {lit})", 1u64 << k));
                } else {
                    left_out += 1;
                }
                vals.push((hx.to_string(), lit.is_some()));
            }
            let table = format!("t{t}");
            s.execute(&format!(
                "CREATE TABLE {table} (i INT, b BIGINT, s {})",
                column_type(coll)
            ))
            .unwrap();
            let sql = format!("INSERT INTO {table} VALUES {}", inserts.join(", "));
            s.execute(&sql).unwrap_or_else(|e| panic!("{sql}\n{e}"));
            sets += 1;
            set = Some(Set {
                table,
                vals,
                order: vec![],
                groups: vec![],
            });
            continue;
        }
        let set = set.as_mut().expect("values first");
        let table = &set.table;
        let kept = |i: &usize| set.vals[*i].1;
        match kind {
            "order" => {
                set.order = r[3].split(' ').map(|i| i.parse().unwrap()).collect();
                let want: Vec<usize> = set.order.iter().copied().filter(kept).collect();
                let got = match cells(&s, &format!("SELECT i FROM {table} ORDER BY s, i")) {
                    Ok(g) => g.iter().map(|r| r[0].clone()).collect::<Vec<_>>().join(","),
                    Err(e) => e,
                };
                f.check(
                    || format!("{coll} | set {set_no} ORDER BY s"),
                    &got,
                    &ids(&want),
                );
            }
            "group" => {
                let mut want = vec![];
                set.groups.clear();
                for g in r[3].split(' ') {
                    let (shown, members) = g.split_once(':').unwrap();
                    let members: Vec<usize> =
                        members.split(',').map(|i| i.parse().unwrap()).collect();
                    assert_eq!(
                        shown, set.vals[members[0]].0,
                        "a group shows its first row's value"
                    );
                    let rest: Vec<usize> = members.iter().copied().filter(kept).collect();
                    if let Some(first) = rest.first() {
                        want.push(format!("{}:{}", set.vals[*first].0, ids(&rest)));
                    }
                    set.groups.push(members);
                }
                want.sort();
                let got = match cells(
                    &s,
                    &format!("SELECT HEX(s), SUM(b) FROM {table} GROUP BY s"),
                ) {
                    Ok(g) => {
                        let mut groups: Vec<String> = g
                            .iter()
                            .map(|r| {
                                let bits: u64 = r[1].parse().expect("SUM(b)");
                                let members: Vec<usize> =
                                    (0..64).filter(|k| bits >> k & 1 == 1).collect();
                                format!("{}:{}", dash(&r[0]), ids(&members))
                            })
                            .collect();
                        groups.sort();
                        groups.join(" ")
                    }
                    Err(e) => e,
                };
                f.check(
                    || format!("{coll} | set {set_no} GROUP BY s"),
                    &got,
                    &want.join(" "),
                );
            }
            "minmax" => {
                // MIN: the first row in order; MAX: the first row of the
                // last group in order.
                let min_max = |order: &[usize]| {
                    let last = order.last().expect("rows");
                    let group = set.groups.iter().find(|g| g.contains(last)).unwrap();
                    let max = group.iter().copied().find(|i| order.contains(i)).unwrap();
                    format!("{} {}", set.vals[order[0]].0, set.vals[max].0)
                };
                assert_eq!(
                    min_max(&set.order),
                    format!("{} {}", r[3], r[4]),
                    "MIN, MAX as the order shows"
                );
                let order: Vec<usize> = set.order.iter().copied().filter(kept).collect();
                let got = match cells(&s, &format!("SELECT HEX(MIN(s)), HEX(MAX(s)) FROM {table}"))
                {
                    Ok(g) => format!("{} {}", dash(&g[0][0]), dash(&g[0][1])),
                    Err(e) => e,
                };
                f.check(
                    || format!("{coll} | set {set_no} MIN(s), MAX(s)"),
                    &got,
                    &min_max(&order),
                );
            }
            other => panic!("unknown row kind {other}"),
        }
    }
    eprintln!("tables.tsv: {sets} sets, {left_out} rows left out (values the column cannot hold)");
    f.finish("ORDER BY, GROUP BY, MIN/MAX", 250);
}
