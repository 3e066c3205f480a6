//! The contract of `quiver sql --runs N` that benchmark scripts rely on: one
//! `query,rows,median_s,runs_s` row per SELECT (named by a `-- name:` comment
//! line or numbered by position), nothing for other statements, positive
//! times, every run's; `--interleave` changes the order of runs, not that.

use std::process::{Command, Output};

fn quiver(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quiver"))
        .args(args)
        .output()
        .expect("run quiver")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

const SETUP: &str = "CREATE TABLE t (id INT, s VARCHAR(10) COLLATE utf8mb4_general_ci);
INSERT INTO t VALUES (1, 'a'), (2, 'B'), (3, 'b'), (4, NULL)";

/// Statements 3.. of a script after SETUP's two: a named SELECT, an unnamed
/// one (number 4), SET and CREATE TABLE ... AS (silent), and a SELECT over the
/// new table (number 7). Passed as `--execute=...`: clap takes a separate
/// argument starting with `--` for an option.
const QUERIES: &str = "-- name: all_rows
SELECT * FROM t;
SELECT s, COUNT(*) FROM t WHERE s = 'b' GROUP BY s;
SET NAMES utf8mb4;
CREATE TABLE u AS SELECT id FROM t WHERE id > 1;
SELECT COUNT(*) FROM u";

fn queries_arg() -> String {
    format!("--execute={QUERIES}")
}

/// (query, rows, median_s) of each row, checking that `runs_s` holds `runs`
/// positive times whose median is `median_s`.
fn parse_csv(out: &str, runs: usize) -> Vec<(String, usize, f64)> {
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("query,rows,median_s,runs_s"), "{out}");
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 4, "{l}");
            let mut times: Vec<f64> = f[3]
                .split(';')
                .map(|t| t.parse().expect("runs_s"))
                .collect();
            assert_eq!(times.len(), runs, "{l}");
            assert!(times.iter().all(|t| *t > 0.0), "{l}");
            times.sort_by(f64::total_cmp);
            let median = if runs % 2 == 1 {
                times[runs / 2]
            } else {
                (times[runs / 2 - 1] + times[runs / 2]) / 2.0
            };
            // The runs are printed rounded to microseconds: an even count's
            // median of them may differ from the printed one in the last digit.
            let printed: f64 = f[2].parse().expect("median_s");
            assert!(
                (median - printed).abs() <= 1.5e-6,
                "the median of the runs: {l}"
            );
            (
                f[0].to_string(),
                f[1].parse().expect("rows"),
                f[2].parse().expect("median_s"),
            )
        })
        .collect()
}

#[test]
fn csv_has_one_row_per_select_with_rows_and_positive_times() {
    let o = quiver(&[
        "sql",
        "--runs",
        "3",
        "--format",
        "csv",
        "-e",
        SETUP,
        &queries_arg(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = parse_csv(&stdout(&o), 3);
    let labels: Vec<(&str, usize)> = rows.iter().map(|(q, r, _)| (q.as_str(), *r)).collect();
    // 'b' = 'B' under utf8mb4_general_ci: one group; u holds ids 2, 3, 4.
    assert_eq!(labels, vec![("all_rows", 4), ("4", 1), ("7", 1)]);
    for (q, _, t) in &rows {
        assert!(*t > 0.0 && t.is_finite(), "query {q}: time {t}");
    }
}

#[test]
fn statements_from_a_file_are_numbered_after_those_of_e() {
    let dir = std::env::temp_dir().join(format!("quiver-sql-timing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("q.sql");
    std::fs::write(
        &file,
        "SELECT id FROM t WHERE id < 3;\n-- name: named\nSELECT 1",
    )
    .unwrap();
    let o = quiver(&[
        "sql",
        "--runs",
        "1",
        "--format",
        "csv",
        "-e",
        SETUP,
        "-f",
        file.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = parse_csv(&stdout(&o), 1);
    let labels: Vec<(&str, usize)> = rows.iter().map(|(q, r, _)| (q.as_str(), *r)).collect();
    assert_eq!(labels, vec![("3", 2), ("named", 1)]);
}

#[test]
fn json_and_table_formats() {
    let o = quiver(&[
        "sql",
        "--runs",
        "2",
        "--format",
        "json",
        "-e",
        SETUP,
        &queries_arg(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.trim_start().starts_with('['), "{out}");
    assert!(
        out.contains("\"query\": \"all_rows\", \"rows\": 4, \"median_s\": "),
        "{out}"
    );
    assert!(out.contains("\"query\": \"7\", \"rows\": 1"), "{out}");
    assert_eq!(out.matches("\"query\"").count(), 3, "{out}");

    let o = quiver(&["sql", "--runs", "1", "-e", SETUP, &queries_arg()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("| query    | rows | median_s |"), "{out}");
    assert!(out.contains("| all_rows |    4 |"), "{out}");
    assert!(out.contains("total ") && out.contains("3 queries"), "{out}");
    assert!(!out.contains("Query OK"), "{out}");
}

#[test]
fn errors_name_the_query_and_zero_runs_is_refused() {
    let o = quiver(&[
        "sql",
        "--runs",
        "2",
        "-e",
        "SELECT 1; -- name: broken\nSELECT * FROM nope",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim(),
        "ERROR 1146 (42S02): query broken: Table 'quiver.nope' doesn't exist"
    );
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));

    let o = quiver(&["sql", "--runs", "0", "-e", "SELECT 1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--runs must be at least 1"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn interleaved_runs_keep_the_contract_and_need_runs() {
    let queries = "--execute=-- name: count/all
SELECT COUNT(*) FROM t;
-- name: count/b
SELECT s FROM t WHERE s = 'b';
SELECT 1";
    let o = quiver(&[
        "sql",
        "--runs",
        "4",
        "--interleave",
        "--format",
        "csv",
        "-e",
        SETUP,
        queries,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = parse_csv(&stdout(&o), 4);
    let labels: Vec<(&str, usize)> = rows.iter().map(|(q, r, _)| (q.as_str(), *r)).collect();
    assert_eq!(labels, vec![("count/all", 1), ("count/b", 2), ("5", 1)]);

    let o = quiver(&["sql", "--interleave", "-e", "SELECT 1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--runs"), "{}", stderr(&o));
}
