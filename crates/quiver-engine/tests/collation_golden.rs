//! MariaDB's answers on collations (tests/collation/*.tsv, written by
//! scripts/collation/golden.py) asked again through Quiver's SQL: the values
//! go into columns of each collation (`_utf8mb4 X'..'`, `_latin1 X'..'`
//! literals), and `=`, STRCMP, WEIGHT_STRING, CHAR_LENGTH, UPPER / LOWER,
//! LEFT / RIGHT / SUBSTRING, LIKE (column and constant patterns), LOCATE,
//! ORDER BY, GROUP BY and MIN / MAX are computed by the engine's operators,
//! not by calling the collation crate directly.
//!
//! Quiver keeps every string as UTF-8 text (latin1 and ascii columns too),
//! so cases with invalid UTF-8 bytes for utf8mb4/utf8mb3, bytes above 0x7F
//! for ascii (which Quiver reads as `?`), and the binary collation are left
//! to the collation crate's own golden test; so are utf8mb3 cases with
//! characters above U+FFFF, which a utf8mb3 column does not take (error
//! 1366, as in MariaDB: its answers read those bytes as invalid utf8mb3).
//!
//! Where Quiver differs from MariaDB, the difference is listed in `KNOWN`
//! (below), and a listed one that is gone fails the test.

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

fn session() -> Session {
    let config = EngineConfig {
        threads: 2,
        ..Default::default()
    };
    Session::new(Database::in_memory(), config)
}

fn arrow_cast_i64(a: &arrow_array::ArrayRef) -> arrow_array::ArrayRef {
    quiver_exec::expr::cast_array(a, &arrow_schema::DataType::Int64).expect("integer column")
}

/// The golden rows `keep` picks whose two strings at `cols` a column of
/// `coll` can hold, each with their SQL literals.
fn pair_cases<'r>(
    rows: &'r [Vec<String>],
    coll: &str,
    keep: impl Fn(&Vec<String>) -> bool,
    cols: [usize; 2],
) -> Vec<(&'r Vec<String>, Vec<String>)> {
    rows.iter()
        .filter(|r| keep(r))
        .filter_map(|r| {
            let [a, b] = cols;
            Some((
                r,
                vec![charset_literal(coll, &r[a])?, charset_literal(coll, &r[b])?],
            ))
        })
        .collect()
}

#[test]
fn equality_and_strcmp_through_sql_match_mariadb() {
    let rows = golden("compare.tsv");
    let s = session();
    let mut f = Checker::new("compare.tsv", "");
    for (t, coll) in collations_of(&rows, 0).iter().enumerate() {
        let cases = pair_cases(&rows, coll, |r| r[0] == *coll, [2, 3]);
        let table = format!("g{t}");
        let values: Vec<Vec<String>> = cases.iter().map(|(_, v)| v.clone()).collect();
        load(&s, &table, coll, &["a", "b"], &values);
        let got = cells(
            &s,
            &format!("SELECT a = b, STRCMP(a, b) FROM {table} ORDER BY i"),
        )
        .unwrap();
        assert_eq!(got.len(), cases.len(), "{coll}");
        for ((r, _), g) in cases.iter().zip(&got) {
            f.check(
                |_| format!("{coll} | {} = {}, STRCMP", r[2], r[3]),
                &format!("{} {}", g[0], g[1]),
                &format!("{} {}", r[4], r[5]),
            );
        }
    }
    f.finish("= and STRCMP of columns", 8000);
}

/// The ESCAPE clause of a like.tsv case (`None`: the escape is not one
/// Quiver's column of `coll` can be given).
fn escape_clause(coll: &str, escape: &str) -> Option<String> {
    Some(match escape {
        "default" => String::new(),
        "-" => " ESCAPE ''".to_string(),
        e => format!(" ESCAPE {}", escape_literal(coll, e)?),
    })
}

/// like.tsv's answer as `cells` writes it (MariaDB's `E1210` as an error).
fn like_answer(want: &str) -> String {
    match want.strip_prefix('E') {
        Some(code) => format!("error {code}"),
        None => want.to_string(),
    }
}

/// like.tsv with the pattern from a column (`v LIKE p`), per collation and
/// escape one query over a table of the cases. MariaDB's errors (E1210: an
/// escape of more than one character) must be Quiver's too.
#[test]
fn like_through_sql_matches_mariadb() {
    let rows = golden("like.tsv");
    let s = session();
    let mut f = Checker::new("like.tsv", "(column pattern)");
    let mut groups: Vec<(&str, &str)> = rows
        .iter()
        .filter(|r| charset_of(&r[0]).is_some())
        .map(|r| (r[0].as_str(), r[3].as_str()))
        .collect();
    groups.sort();
    groups.dedup();
    for (t, (coll, escape)) in groups.iter().enumerate() {
        let Some(escape_sql) = escape_clause(coll, escape) else {
            continue;
        };
        let cases = pair_cases(&rows, coll, |r| r[0] == *coll && r[3] == *escape, [1, 2]);
        let table = format!("l{t}");
        let values: Vec<Vec<String>> = cases.iter().map(|(_, v)| v.clone()).collect();
        load(&s, &table, coll, &["v", "p"], &values);
        let got = answers(&s, &table, &[format!("v LIKE p{escape_sql}")]).remove(0);
        for (row, (r, _)) in cases.iter().enumerate() {
            let got = match &got {
                Ok(col) => col[row].clone(),
                Err(e) => e.clone(),
            };
            f.check(
                |class| match class {
                    true => format!("ESCAPE {escape} (column pattern)"),
                    false => format!(
                        "{coll} | {} LIKE {} ESCAPE {escape} (column pattern)",
                        r[1], r[2]
                    ),
                },
                &got,
                &like_answer(&r[4]),
            );
        }
    }
    f.finish("LIKE with column patterns", 6000);
}

// ---------------------------------------------------------------------------
// The differences, and the harness.

/// Where Quiver's answers differ from MariaDB's, one difference per line:
///   `<file> | <collation> | <case>    # Quiver's answer, MariaDB's`
/// (a whole class of cases that Quiver rejects with an error is one line,
/// without a collation). A listed difference that no longer occurs fails
/// its test: delete its line then.
const KNOWN: &str = r#"
"#;

/// The differences KNOWN lists for `file` whose case contains `scope`.
fn known(file: &str, scope: &str) -> BTreeSet<String> {
    KNOWN
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split("    #").next().unwrap_or("").trim())
        .filter(|l| l.starts_with(&format!("{file} | ")) && l.contains(scope))
        .map(str::to_string)
        .collect()
}

/// Counts the cases a test checks and collects where Quiver differs.
struct Checker {
    file: &'static str,
    /// What every case's key of this test contains (the tests of a file
    /// share its KNOWN lines).
    scope: &'static str,
    cases: usize,
    found: BTreeMap<String, String>,
}

impl Checker {
    fn new(file: &'static str, scope: &'static str) -> Self {
        Checker {
            file,
            scope,
            cases: 0,
            found: BTreeMap::new(),
        }
    }

    /// One case: `key` names it (`<collation> | <case>`) in the differences.
    /// When Quiver's answer is an error (`error <code>`), `key(true)` names
    /// the class of cases it rejects, else `key(false)` the case.
    fn check(&mut self, key: impl FnOnce(bool) -> String, got: &str, want: &str) {
        self.cases += 1;
        if got != want {
            let key = match got.strip_prefix("error ") {
                Some(code) => format!("{} | error {code}", key(true)),
                None => key(false),
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
        let known = known(self.file, self.scope);
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
    let mut f = Checker::new("strings.tsv", "");
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
                    |_| format!("{coll} | {}", e.replace("(s", &format!("({}", r[1]))),
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
    let mut f = Checker::new("tables.tsv", "");
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
                    |_| format!("{coll} | set {set_no} ORDER BY s"),
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
                    |_| format!("{coll} | set {set_no} GROUP BY s"),
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
                    |_| format!("{coll} | set {set_no} MIN(s), MAX(s)"),
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

/// Each expression of `exprs` over the rows of `table` (ordered by `i`),
/// several expressions per query: per expression, its answers by row, or
/// the error Quiver gives for it.
fn answers(s: &Session, table: &str, exprs: &[String]) -> Vec<Result<Vec<String>, String>> {
    let query = |exprs: &[String]| {
        cells(
            s,
            &format!("SELECT {} FROM {table} ORDER BY i", exprs.join(", ")),
        )
    };
    let mut out = vec![];
    for chunk in exprs.chunks(32) {
        match query(chunk) {
            Ok(rows) => out
                .extend((0..chunk.len()).map(|k| Ok(rows.iter().map(|r| r[k].clone()).collect()))),
            // Which of them fails: one at a time.
            Err(_) => out.extend(chunk.iter().map(|e| {
                query(std::slice::from_ref(e))
                    .map(|rows| rows.into_iter().map(|mut r| r.remove(0)).collect())
            })),
        }
    }
    out
}

/// Interns `e` in `exprs`: its index.
fn intern(exprs: &mut Vec<String>, index: &mut BTreeMap<String, usize>, e: String) -> usize {
    *index.entry(e.clone()).or_insert_with(|| {
        exprs.push(e);
        exprs.len() - 1
    })
}

/// like.tsv with the pattern a constant (`v LIKE _utf8mb4 X'..'`), which
/// Quiver compiles into literal pieces searched by its string kernels,
/// another path than a pattern column's. The values of a collation's cases
/// are rows of one table; each distinct pattern (and escape) one expression
/// over all of them, of which each case reads its own row. MariaDB's errors
/// (E1210: an escape of more than one character) must be Quiver's too.
#[test]
fn like_constant_patterns_through_sql_match_mariadb() {
    let rows = golden("like.tsv");
    let s = session();
    let mut f = Checker::new("like.tsv", "(constant pattern)");
    for (t, coll) in collations_of(&rows, 0).iter().enumerate() {
        // (row, expression, golden row)
        let mut cases: Vec<(usize, usize, &Vec<String>)> = vec![];
        let mut values: Vec<Vec<String>> = vec![];
        let (mut exprs, mut index) = (vec![], BTreeMap::new());
        for r in rows.iter().filter(|r| r[0] == *coll) {
            let Some(v) = charset_literal(coll, &r[1]) else {
                continue;
            };
            let Some(p) = charset_literal(coll, &r[2]) else {
                continue;
            };
            let Some(escape) = escape_clause(coll, &r[3]) else {
                continue;
            };
            let e = intern(&mut exprs, &mut index, format!("v LIKE {p}{escape}"));
            cases.push((values.len(), e, r));
            values.push(vec![v]);
        }
        let table = format!("k{t}");
        load(&s, &table, coll, &["v"], &values);
        let got = answers(&s, &table, &exprs);
        for (row, e, r) in cases {
            let got = match &got[e] {
                Ok(col) => col[row].clone(),
                Err(e) => e.clone(),
            };
            let want = like_answer(&r[4]);
            f.check(
                |class| match class {
                    true => format!("ESCAPE {} (constant pattern)", r[3]),
                    false => format!(
                        "{coll} | {} LIKE {} ESCAPE {} (constant pattern)",
                        r[1], r[2], r[3]
                    ),
                },
                &got,
                &want,
            );
        }
    }
    f.finish("LIKE with constant patterns", 6000);
}

/// locate.tsv: LOCATE(needle, hay) with the needle a column, and a constant
/// (`LOCATE(_utf8mb4 X'..', h)`), over a column hay.
#[test]
fn locate_through_sql_matches_mariadb() {
    let rows = golden("locate.tsv");
    let s = session();
    let mut f = Checker::new("locate.tsv", "");
    for (t, coll) in collations_of(&rows, 0).iter().enumerate() {
        let cases = pair_cases(&rows, coll, |r| r[0] == *coll, [1, 2]);
        let table = format!("o{t}");
        let values: Vec<Vec<String>> = cases.iter().map(|(_, v)| v.clone()).collect();
        load(&s, &table, coll, &["n", "h"], &values);
        let by_column = answers(&s, &table, &["LOCATE(n, h)".to_string()]).remove(0);
        let (mut exprs, mut index) = (vec![], BTreeMap::new());
        let constant: Vec<usize> = cases
            .iter()
            .map(|(_, v)| intern(&mut exprs, &mut index, format!("LOCATE({}, h)", v[0])))
            .collect();
        let by_constant = answers(&s, &table, &exprs);
        for (row, (r, _)) in cases.iter().enumerate() {
            for (how, got) in [
                ("column needle", &by_column),
                ("constant needle", &by_constant[constant[row]]),
            ] {
                let got = match got {
                    Ok(col) => col[row].clone(),
                    Err(e) => e.clone(),
                };
                f.check(
                    |class| match class {
                        true => format!("LOCATE ({how})"),
                        false => format!("{coll} | LOCATE({}, {}) ({how})", r[1], r[2]),
                    },
                    &got,
                    &r[3],
                );
            }
        }
    }
    f.finish("LOCATE, column and constant needles", 3000);
}
