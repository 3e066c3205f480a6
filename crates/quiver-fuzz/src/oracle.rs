//! Running SQL and judging the answers without a second engine:
//!
//! - no panic and no internal error (1105): any other MySQL error is an
//!   answer (overflow, an illegal mix of collations, ...);
//! - no hang: each statement runs under `max_statement_time`, and running
//!   out of it (1969) is a finding;
//! - TLP (ternary logic partitioning): the rows of `Q` are the rows of
//!   `Q WHERE p`, `Q WHERE NOT p` and `Q WHERE p IS NULL` together; for an
//!   aggregate, MIN / MAX / COUNT over all rows is the MIN / MAX / SUM of
//!   the three parts' values; for DISTINCT, as many rows as the UNION of
//!   the three parts;
//! - NoREC: `COUNT(*) ... WHERE p` equals the count of rows for which
//!   `p IS TRUE` computed as a value, where no filter can be pushed down;
//! - LIMIT: `ORDER BY .. LIMIT k OFFSET o` gives rows of the whole answer,
//!   as many as there are past the offset, up to k;
//! - DELETE removes exactly the rows whose predicate is TRUE; UPDATE keeps
//!   the count of rows;
//! - the answer is the same at 1 and at 3 threads.

use std::panic::{catch_unwind, AssertUnwindSafe};

use quiver_engine::format::rows_as_text;
use quiver_engine::{Session, StatementResult};

/// What a statement gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Result rows as text, sorted (answers are compared as multisets).
    Rows(Vec<Vec<Option<String>>>),
    Error(u16, String),
    Panic(String),
}

impl Outcome {
    /// A panic or an internal error: a finding whatever else happens.
    pub fn broken(&self) -> bool {
        match self {
            Outcome::Panic(_) => true,
            // 1969: the statement ran out of the fuzzer's time limit.
            Outcome::Error(code, message) => {
                matches!(code, 1105 | 1969) || message.contains("Internal error")
            }
            Outcome::Rows(_) => false,
        }
    }
}

/// Runs `sql` on `session`; a panic is caught and returned.
pub fn run(session: &Session, sql: &str) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| session.query(sql))) {
        Ok(Ok(StatementResult::Rows { batches, .. })) => match rows_as_text(&batches) {
            Ok(mut rows) => {
                rows.sort();
                Outcome::Rows(rows)
            }
            Err(e) => Outcome::Error(e.code, e.message),
        },
        Ok(Ok(StatementResult::Done { .. })) => Outcome::Rows(Vec::new()),
        Ok(Err(e)) => Outcome::Error(e.code, e.message),
        Err(payload) => Outcome::Panic(
            payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into()),
        ),
    }
}

/// A check of one query: the statements it runs and what it asserts.
#[derive(Debug, Clone)]
pub enum Check {
    /// `base` = `base WHERE p` + `WHERE NOT p` + `WHERE p IS NULL`.
    Tlp {
        select: String,
        from: String,
        predicate: String,
    },
    /// `COUNT(*) WHERE p` = `SUM(p IS TRUE)`.
    NoRec { from: String, predicate: String },
    /// The same rows at 1 and 3 threads.
    Threads { sql: String },
    /// `agg(expr)` over all rows = the parts' values combined (`agg` is
    /// MIN, MAX or COUNT).
    TlpAggregate {
        agg: &'static str,
        expr: String,
        from: String,
        predicate: String,
    },
    /// As many DISTINCT rows as the UNION of the three parts has.
    TlpDistinct {
        select: String,
        from: String,
        predicate: String,
    },
    /// `ORDER BY order LIMIT limit OFFSET offset` over `SELECT select FROM
    /// from WHERE predicate`.
    Limit {
        select: String,
        from: String,
        predicate: String,
        order: String,
        limit: usize,
        offset: usize,
    },
    /// DELETE (or, with `set`, UPDATE) of a copy of `table` where
    /// `predicate`: the rows left are those it was not TRUE for (or all).
    Write {
        table: String,
        predicate: String,
        set: Option<String>,
    },
    /// A column `column` (of type `sql_type`) of `table` copied into a
    /// table with a UNIQUE key on it, by INSERT IGNORE, then REPLACE, then
    /// ON DUPLICATE KEY UPDATE: the key keeps one row per value as GROUP BY
    /// groups them (the same collation, another implementation), and each
    /// NULL (never a duplicate) adds a row every time.
    Upsert {
        table: String,
        column: String,
        sql_type: String,
    },
    /// Only that nothing breaks: a statement mutated into an invalid one,
    /// a set operation, ...
    NoPanic { sql: String },
}

/// The scratch table of [`Check::Write`].
pub const WRITE_COPY: &str = "fuzz_copy";
/// The scratch table of [`Check::Upsert`].
pub const KEYED_COPY: &str = "fuzz_keyed";

/// Why a check failed.
#[derive(Debug, Clone)]
pub struct Violation {
    pub oracle: &'static str,
    pub detail: String,
}

impl Check {
    pub fn oracle(&self) -> &'static str {
        match self {
            Check::Tlp { .. } => "tlp",
            Check::NoRec { .. } => "norec",
            Check::Threads { .. } => "threads",
            Check::TlpAggregate { .. } | Check::TlpDistinct { .. } => "tlp",
            Check::Limit { .. } => "limit",
            Check::Write { .. } => "write",
            Check::Upsert { .. } => "upsert",
            Check::NoPanic { .. } => "no-panic",
        }
    }

    /// The statements the check runs (for a report).
    pub fn statements(&self) -> Vec<String> {
        match self {
            Check::Tlp { select, from, predicate } => {
                let base = format!("SELECT {select} FROM {from}");
                vec![
                    base.clone(),
                    format!("{base} WHERE {predicate}"),
                    format!("{base} WHERE NOT ({predicate})"),
                    format!("{base} WHERE ({predicate}) IS NULL"),
                ]
            }
            Check::NoRec { from, predicate } => vec![
                format!("SELECT COUNT(*) FROM {from} WHERE {predicate}"),
                format!("SELECT COUNT(*) FROM (SELECT ({predicate}) IS TRUE AS hit FROM {from}) q WHERE hit = 1"),
            ],
            Check::Threads { sql } | Check::NoPanic { sql } => vec![sql.clone()],
            Check::TlpAggregate {
                agg,
                expr,
                from,
                predicate,
            } => {
                let part = |w: String| format!("SELECT {agg}({expr}) AS v FROM {from} WHERE {w}");
                let combine = if *agg == "COUNT" { "SUM" } else { agg };
                vec![
                    format!("SELECT {agg}({expr}) FROM {from}"),
                    format!(
                        "SELECT {combine}(v) FROM ({} UNION ALL {} UNION ALL {}) parts",
                        part(predicate.clone()),
                        part(format!("NOT ({predicate})")),
                        part(format!("({predicate}) IS NULL"))
                    ),
                ]
            }
            Check::TlpDistinct {
                select,
                from,
                predicate,
            } => {
                let base = format!("SELECT {select} FROM {from}");
                vec![
                    format!("SELECT DISTINCT {select} FROM {from}"),
                    format!(
                        "{base} WHERE {predicate} UNION {base} WHERE NOT ({predicate}) UNION {base} WHERE ({predicate}) IS NULL"
                    ),
                ]
            }
            Check::Limit {
                select,
                from,
                predicate,
                order,
                limit,
                offset,
            } => {
                let base = format!("SELECT {select} FROM {from} WHERE {predicate}");
                vec![
                    base.clone(),
                    format!("{base} ORDER BY {order} LIMIT {limit} OFFSET {offset}"),
                ]
            }
            Check::Write {
                table,
                predicate,
                set,
            } => {
                let t = WRITE_COPY;
                let write = match set {
                    None => format!("DELETE FROM {t} WHERE {predicate}"),
                    Some(set) => format!("UPDATE {t} SET {set} WHERE {predicate}"),
                };
                vec![
                    format!("DROP TABLE IF EXISTS {t}"),
                    format!("CREATE TABLE {t} AS SELECT * FROM {table}"),
                    format!("SELECT COUNT(*) FROM {t}"),
                    format!("SELECT COUNT(*) FROM {t} WHERE ({predicate}) IS TRUE"),
                    write,
                    format!("SELECT COUNT(*) FROM {t}"),
                    format!("DROP TABLE {t}"),
                ]
            }
            Check::Upsert {
                table,
                column,
                sql_type,
            } => {
                let k = KEYED_COPY;
                vec![
                    format!("DROP TABLE IF EXISTS {k}"),
                    format!("CREATE TABLE {k} (k {sql_type}, UNIQUE KEY uk (k))"),
                    format!("INSERT IGNORE INTO {k} SELECT {column} FROM {table}"),
                    format!("SELECT COUNT(*) FROM {k}"),
                    format!(
                        "SELECT COUNT(*) FROM (SELECT {column} FROM {table} WHERE {column} IS NOT NULL GROUP BY {column}) d"
                    ),
                    format!("SELECT COUNT(*) FROM {table} WHERE {column} IS NULL"),
                    format!("REPLACE INTO {k} SELECT {column} FROM {table}"),
                    format!("SELECT COUNT(*) FROM {k}"),
                    format!(
                        "INSERT INTO {k} SELECT {column} FROM {table} ON DUPLICATE KEY UPDATE k = k"
                    ),
                    format!("SELECT COUNT(*) FROM {k}"),
                    format!(
                        "SELECT COUNT(*) FROM (SELECT k FROM {k} WHERE k IS NOT NULL GROUP BY k HAVING COUNT(*) > 1) d"
                    ),
                    format!("DROP TABLE {k}"),
                ]
            }
        }
    }

    /// Runs the check on `one` (1 thread) and `three` (3 threads, the same
    /// database).
    pub fn run(&self, one: &Session, three: &Session) -> Verdict {
        let stmts = self.statements();
        let outcomes: Vec<Outcome> = stmts.iter().map(|s| run(one, s)).collect();
        if let Some((s, o)) = stmts.iter().zip(&outcomes).find(|(_, o)| o.broken()) {
            return Verdict::Fails(Violation {
                oracle: "no-panic",
                detail: format!("{s}\n  -> {o:?}"),
            });
        }
        let rows: Vec<&Vec<Vec<Option<String>>>> = outcomes
            .iter()
            .filter_map(|o| match o {
                Outcome::Rows(r) => Some(r),
                _ => None,
            })
            .collect();
        if matches!(self, Check::NoPanic { .. }) {
            return Verdict::Holds;
        }
        if rows.len() < outcomes.len() {
            // Leave no copy behind for the next check.
            match self {
                Check::Write { .. } => {
                    run(one, &format!("DROP TABLE IF EXISTS {WRITE_COPY}"));
                }
                Check::Upsert { .. } => {
                    run(one, &format!("DROP TABLE IF EXISTS {KEYED_COPY}"));
                }
                _ => {}
            }
            return Verdict::Inconclusive;
        }
        let failed = match self {
            Check::Threads { sql } => {
                let other = run(three, sql);
                if other.broken() {
                    return Verdict::Fails(Violation {
                        oracle: "no-panic",
                        detail: format!("{sql} (3 threads)\n  -> {other:?}"),
                    });
                }
                match other {
                    Outcome::Rows(r) => self.judge(&[rows[0], &r]),
                    _ => None,
                }
            }
            _ => self.judge(&rows),
        };
        match failed {
            Some(v) => Verdict::Fails(v),
            None => Verdict::Holds,
        }
    }
}

impl Check {
    /// Compares the answers the check's statements gave (sorted rows; for
    /// Threads: 1 thread's, then 3 threads').
    pub fn judge(&self, rows: &[&Vec<Vec<Option<String>>>]) -> Option<Violation> {
        match self {
            Check::Tlp { .. } => {
                let mut parts: Vec<Vec<Option<String>>> =
                    rows[1..].iter().flat_map(|r| r.iter().cloned()).collect();
                parts.sort();
                (parts != *rows[0]).then(|| Violation {
                    oracle: "tlp",
                    detail: format!(
                        "{} rows whole, {} in the three parts\n  whole: {:?}\n  parts: {:?}",
                        rows[0].len(),
                        parts.len(),
                        preview(rows[0]),
                        preview(&parts)
                    ),
                })
            }
            Check::NoRec { .. } => (rows[0] != rows[1]).then(|| Violation {
                oracle: "norec",
                detail: format!("filtered {:?}, as a value {:?}", rows[0], rows[1]),
            }),
            Check::TlpAggregate { .. } => (rows[0] != rows[1]).then(|| Violation {
                oracle: "tlp",
                detail: format!("whole {:?}, from the parts {:?}", rows[0], rows[1]),
            }),
            Check::TlpDistinct { .. } => (rows[0].len() != rows[1].len()).then(|| Violation {
                oracle: "tlp",
                detail: format!(
                    "{} distinct rows whole, {} in the union of the parts\n  whole: {:?}\n  union: {:?}",
                    rows[0].len(),
                    rows[1].len(),
                    preview(rows[0]),
                    preview(rows[1])
                ),
            }),
            Check::Limit { limit, offset, .. } => {
                let want = rows[0].len().saturating_sub(*offset).min(*limit);
                let mut whole = rows[0].clone();
                let mut missing = Vec::new();
                for r in rows[1] {
                    match whole.iter().position(|w| w == r) {
                        Some(i) => {
                            whole.swap_remove(i);
                        }
                        None => missing.push(r.clone()),
                    }
                }
                (rows[1].len() != want || !missing.is_empty()).then(|| Violation {
                    oracle: "limit",
                    detail: format!(
                        "{} rows whole, {} limited (want {want}); not in the whole: {:?}",
                        rows[0].len(),
                        rows[1].len(),
                        preview(&missing)
                    ),
                })
            }
            Check::Write { set, .. } => {
                let count = |r: &Vec<Vec<Option<String>>>| -> Option<u64> {
                    r.first()?.first()?.as_ref()?.parse().ok()
                };
                let (before, hits, after) = (count(rows[2]), count(rows[3]), count(rows[5]));
                let want = match set {
                    None => before.zip(hits).map(|(b, h)| b - h),
                    Some(_) => before,
                };
                (want != after).then(|| Violation {
                    oracle: "write",
                    detail: format!(
                        "{before:?} rows, predicate TRUE for {hits:?}, {after:?} rows after (want {want:?})"
                    ),
                })
            }
            Check::Upsert { .. } => {
                let count = |r: &Vec<Vec<Option<String>>>| -> Option<u64> {
                    r.first()?.first()?.as_ref()?.parse().ok()
                };
                let (ignored, groups, nulls) = (count(rows[3]), count(rows[4]), count(rows[5]));
                let (replaced, updated, twice) = (count(rows[7]), count(rows[9]), count(rows[10]));
                let want = |n: u64| groups.zip(nulls).map(|(g, z)| g + n * z);
                (ignored != want(1) || replaced != want(2) || updated != want(3) || twice != Some(0))
                    .then(|| Violation {
                        oracle: "upsert",
                        detail: format!(
                            "{groups:?} groups and {nulls:?} NULLs: {ignored:?} rows after IGNORE (want {:?}), \
                             {replaced:?} after REPLACE (want {:?}), {updated:?} after ON DUPLICATE KEY UPDATE \
                             (want {:?}), {twice:?} keys held twice",
                            want(1),
                            want(2),
                            want(3)
                        ),
                    })
            }
            Check::NoPanic { .. } => None,
            Check::Threads { .. } => (rows[0] != rows[1]).then(|| Violation {
                oracle: "threads",
                detail: format!(
                    "1 thread {:?}\n  3 threads {:?}",
                    preview(rows[0]),
                    preview(rows[1])
                ),
            }),
        }
    }
}

/// What a check found.
#[derive(Debug)]
pub enum Verdict {
    Holds,
    /// An ordinary MySQL error (overflow, a collation mix, ...) left it
    /// without an answer to compare.
    Inconclusive,
    Fails(Violation),
}

fn preview(rows: &[Vec<Option<String>>]) -> Vec<Vec<Option<String>>> {
    rows.iter().take(8).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(values: &[&str]) -> Vec<Vec<Option<String>>> {
        let mut r: Vec<_> = values.iter().map(|v| vec![Some(v.to_string())]).collect();
        r.sort();
        r
    }

    /// Each oracle holds on agreeing answers and fails on a lost, an added
    /// or a changed row.
    #[test]
    fn oracles_see_rows_lost_added_or_changed() {
        let tlp = Check::Tlp {
            select: "x".into(),
            from: "t".into(),
            predicate: "p".into(),
        };
        let whole = rows(&["1", "2", "2", "3"]);
        let (p, not_p, null) = (rows(&["2", "1"]), rows(&["3"]), rows(&["2"]));
        assert!(tlp.judge(&[&whole, &p, &not_p, &null]).is_none());
        assert!(
            tlp.judge(&[&whole, &p, &not_p, &rows(&[])]).is_some(),
            "a lost row"
        );
        assert!(
            tlp.judge(&[&whole, &p, &not_p, &rows(&["2", "2"])])
                .is_some(),
            "an added row"
        );
        assert!(
            tlp.judge(&[&whole, &p, &not_p, &rows(&["4"])]).is_some(),
            "a changed row"
        );
        let norec = Check::NoRec {
            from: "t".into(),
            predicate: "p".into(),
        };
        assert!(norec.judge(&[&rows(&["3"]), &rows(&["3"])]).is_none());
        assert!(norec.judge(&[&rows(&["3"]), &rows(&["2"])]).is_some());
        let threads = Check::Threads { sql: "q".into() };
        assert!(threads.judge(&[&whole, &whole.clone()]).is_none());
        assert!(threads.judge(&[&whole, &rows(&["1", "2", "3"])]).is_some());
    }

    /// The oracles added with the generator's second round: aggregate and
    /// DISTINCT TLP, LIMIT and writes, each holding on agreeing answers and
    /// failing on a wrong one.
    #[test]
    fn aggregate_distinct_limit_and_write_oracles_judge() {
        let agg = Check::TlpAggregate {
            agg: "MAX",
            expr: "x".into(),
            from: "t".into(),
            predicate: "p".into(),
        };
        assert!(agg.judge(&[&rows(&["3"]), &rows(&["3"])]).is_none());
        assert!(agg.judge(&[&rows(&["3"]), &rows(&["2"])]).is_some());
        assert!(agg.statements()[1].contains("MAX(v)"));
        let count = Check::TlpAggregate {
            agg: "COUNT",
            expr: "x".into(),
            from: "t".into(),
            predicate: "p".into(),
        };
        assert!(
            count.statements()[1].starts_with("SELECT SUM(v)"),
            "COUNTs add up"
        );
        let distinct = Check::TlpDistinct {
            select: "x".into(),
            from: "t".into(),
            predicate: "p".into(),
        };
        assert!(distinct
            .judge(&[&rows(&["1", "2"]), &rows(&["2", "1"])])
            .is_none());
        assert!(distinct
            .judge(&[&rows(&["1", "2"]), &rows(&["1", "2", "2"])])
            .is_some());
        let limit = Check::Limit {
            select: "x".into(),
            from: "t".into(),
            predicate: "p".into(),
            order: "1".into(),
            limit: 2,
            offset: 1,
        };
        let whole = rows(&["1", "2", "2", "3"]);
        assert!(limit.judge(&[&whole, &rows(&["2", "2"])]).is_none());
        assert!(limit.judge(&[&whole, &rows(&["2"])]).is_some(), "too few");
        assert!(
            limit.judge(&[&whole, &rows(&["2", "4"])]).is_some(),
            "not in the whole"
        );
        assert!(
            limit.judge(&[&rows(&["1"]), &rows(&[])]).is_none(),
            "past the end"
        );
        let delete = Check::Write {
            table: "t".into(),
            predicate: "p".into(),
            set: None,
        };
        let none = rows(&[]);
        let answers = |before: &str, hits: &str, after: &str| {
            vec![
                none.clone(),
                none.clone(),
                rows(&[before]),
                rows(&[hits]),
                none.clone(),
                rows(&[after]),
            ]
        };
        let ok = answers("5", "2", "3");
        assert!(delete.judge(&ok.iter().collect::<Vec<_>>()).is_none());
        let lost = answers("5", "2", "2");
        assert!(delete.judge(&lost.iter().collect::<Vec<_>>()).is_some());
        let update = Check::Write {
            table: "t".into(),
            predicate: "p".into(),
            set: Some("c = 1".into()),
        };
        assert!(
            update.judge(&lost.iter().collect::<Vec<_>>()).is_some(),
            "an UPDATE keeps every row"
        );
        assert!(update.statements()[4].starts_with("UPDATE fuzz_copy SET c = 1 WHERE"));
    }

    /// A panic and an internal error are findings; other MySQL errors are
    /// answers.
    /// The upsert oracle: one row per group and per NULL after IGNORE,
    /// one more per NULL after each of REPLACE and ON DUPLICATE KEY UPDATE.
    #[test]
    fn upsert_oracle_judges() {
        let upsert = Check::Upsert {
            table: "t".into(),
            column: "c".into(),
            sql_type: "INT".into(),
        };
        let stmts = upsert.statements();
        assert!(stmts[2].starts_with("INSERT IGNORE"));
        assert!(stmts[6].starts_with("REPLACE"));
        assert!(stmts[8].contains("ON DUPLICATE KEY UPDATE"));
        let none = rows(&[]);
        let n = |v: &str| rows(&[v]);
        // 3 groups, 2 NULLs: 5, 7, 9 rows, no key twice.
        let (five, three, two, seven, nine, zero) =
            (n("5"), n("3"), n("2"), n("7"), n("9"), n("0"));
        let good = [
            &none, &none, &none, &five, &three, &two, &none, &seven, &none, &nine, &zero, &none,
        ];
        assert!(upsert.judge(&good).is_none());
        let mut lost = good;
        lost[7] = &five;
        assert!(upsert.judge(&lost).is_some(), "REPLACE lost rows");
        let one = n("1");
        let mut twice = good;
        twice[10] = &one;
        assert!(upsert.judge(&twice).is_some(), "a key held twice");
    }

    #[test]
    fn panics_and_internal_errors_are_broken_answers() {
        assert!(Outcome::Panic("boom".into()).broken());
        assert!(Outcome::Error(1105, "Internal error: column #7 not in input".into()).broken());
        assert!(!Outcome::Error(1690, "BIGINT value is out of range".into()).broken());
        assert!(!Outcome::Rows(vec![]).broken());
        assert!(
            Outcome::Error(1969, "max_statement_time exceeded".into()).broken(),
            "a hang"
        );
    }
}
