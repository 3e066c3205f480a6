//! `quiver sql --runs N`: hot timing of arbitrary SQL.
//!
//! Each SELECT runs once as warm-up and then N timed times in this process, so
//! tables loaded by the warm-up stay in memory, as in `quiver tpch run`. Other
//! statements (CREATE TABLE ... AS, SET, ...) run once, untimed and silent. One
//! row per SELECT is printed: `query,rows,median_s`, where `query` is the name
//! from a `-- name: xyz` comment line just before the statement, or else the
//! statement's 1-based position among all statements given (`-e` in order, then
//! `-f`), and `runs_s`, every timed run's seconds in order (`;`-separated).
//!
//! With `--interleave`, consecutive SELECTs named `group/variant` (the same
//! `group`) are timed run by run in turn after one warm-up each, the order
//! rotating by one every pass (a b c, b c a, c a b, ...), so that a slow spell
//! of the machine falls on every variant alike, each runs after each other
//! equally often, and run i of each can be compared as a pair
//! (bench/collation.py compares collations of one query so).

use std::time::Instant;

use quiver_common::{QuiverError, Result};
use quiver_engine::format::json_string;
use quiver_engine::{OutputFormat, Session};
use quiver_sql::sqlparser::ast::Statement;

/// One timed SELECT: its label, result row count, median seconds and every
/// timed run's seconds in the order they ran.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    pub query: String,
    pub rows: usize,
    pub median_s: f64,
    pub runs_s: Vec<f64>,
}

/// Runs every statement of `scripts` in order, timing the SELECTs, and prints
/// their timings in `format`. `interleave`: time each group of SELECTs (see
/// the module comment) run by run in turn.
pub fn run(
    session: &Session,
    scripts: &[String],
    runs: usize,
    interleave: bool,
    format: OutputFormat,
) -> Result<()> {
    if runs == 0 {
        return Err(QuiverError::syntax_msg(
            "--runs must be at least 1 (timed runs after one warm-up)",
        ));
    }
    let mut statements = Vec::new();
    for script in scripts {
        let parsed = quiver_sql::parse_sql(script)?;
        let names = statement_names(script, parsed.len());
        statements.extend(parsed.into_iter().zip(names));
    }
    let labels: Vec<String> = statements
        .iter()
        .enumerate()
        .map(|(i, (_, name))| name.clone().unwrap_or_else(|| (i + 1).to_string()))
        .collect();
    let is_query: Vec<bool> = statements
        .iter()
        .map(|(stmt, _)| matches!(stmt, Statement::Query(_)))
        .collect();
    let mut timings = Vec::new();
    for step in steps(&is_query, &labels, interleave) {
        match step {
            Step::Run(i) => {
                session
                    .execute_statement(&statements[i].0)
                    .map_err(|e| with_label(e, &labels[i]))?;
            }
            Step::Time(range) => {
                let group: Vec<(&Statement, &str)> = range
                    .map(|i| (&statements[i].0, labels[i].as_str()))
                    .collect();
                timings.extend(time_group(session, &group, runs)?);
            }
        }
    }
    print_timings(&timings, format, runs, session.config().threads);
    Ok(())
}

/// What `run` does with statement i, in order.
#[derive(Debug, PartialEq)]
enum Step {
    /// Execute once, untimed (not a SELECT).
    Run(usize),
    /// Time these SELECTs together, run by run in turn.
    Time(std::ops::Range<usize>),
}

/// Statements in order; with `interleave`, consecutive SELECTs of one label
/// group make one `Time` step, otherwise every SELECT is its own.
fn steps(is_query: &[bool], labels: &[String], interleave: bool) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut i = 0;
    while i < is_query.len() {
        if !is_query[i] {
            steps.push(Step::Run(i));
            i += 1;
            continue;
        }
        let mut end = i + 1;
        if interleave {
            if let Some(group) = group_of(&labels[i]) {
                while end < is_query.len() && is_query[end] && group_of(&labels[end]) == Some(group)
                {
                    end += 1;
                }
            }
        }
        steps.push(Step::Time(i..end));
        i = end;
    }
    steps
}

/// `eq_comment/binary` -> `eq_comment`; labels without `/` form no group.
fn group_of(label: &str) -> Option<&str> {
    label.rsplit_once('/').map(|(group, _)| group)
}

fn with_label(e: QuiverError, label: &str) -> QuiverError {
    QuiverError::new(e.code, e.sqlstate, format!("query {label}: {}", e.message))
}

/// Times the SELECTs of `group` run by run in turn: each one's warm-up, then
/// `runs` passes over all of them in rotating order. A group of one is the plain warm-up and
/// `runs` back-to-back runs.
fn time_group(session: &Session, group: &[(&Statement, &str)], runs: usize) -> Result<Vec<Timing>> {
    let mut timings = Vec::with_capacity(group.len());
    for (stmt, label) in group {
        let warm = session
            .execute_statement(stmt)
            .map_err(|e| with_label(e, label))?;
        timings.push(Timing {
            query: label.to_string(),
            rows: warm.num_rows(),
            median_s: 0.0,
            runs_s: Vec::with_capacity(runs),
        });
    }
    for pass in 0..runs {
        // Each pass starts one further along (a b c, b c a, c a b, ...): the run
        // after another query's is not the same one every time.
        for k in 0..group.len() {
            let i = (pass + k) % group.len();
            let (stmt, label) = group[i];
            let start = Instant::now();
            let result = session
                .execute_statement(stmt)
                .map_err(|e| with_label(e, label))?;
            timings[i].runs_s.push(start.elapsed().as_secs_f64());
            drop(result);
        }
    }
    for t in &mut timings {
        t.median_s = median(&mut t.runs_s.clone());
    }
    Ok(timings)
}

fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    let n = times.len();
    if n % 2 == 1 {
        times[n / 2]
    } else {
        (times[n / 2 - 1] + times[n / 2]) / 2.0
    }
}

/// The `-- name: xyz` label of each statement of `script`, if any. Found by a
/// light lexer that splits at `;` outside quotes and comments; if its split does
/// not give the parser's `count` statements, no statement gets a name rather
/// than a wrong one.
fn statement_names(script: &str, count: usize) -> Vec<Option<String>> {
    let mut names = Vec::with_capacity(count);
    for piece in split_statements(script) {
        let Ok(parsed) = quiver_sql::parse_sql(piece.text) else {
            return vec![None; count];
        };
        for i in 0..parsed.len() {
            names.push(if i == 0 { piece.name.clone() } else { None });
        }
    }
    if names.len() != count {
        return vec![None; count];
    }
    names
}

/// A `;`-terminated piece of a script and the name from its leading comments.
#[derive(Debug, PartialEq)]
struct Piece<'a> {
    text: &'a str,
    name: Option<String>,
}

/// Splits at `;` outside strings, quoted identifiers and comments, with MySQL's
/// lexical rules: `'...'` and `"..."` with backslash escapes and doubled quotes,
/// `` `...` ``, `-- ` (dash dash whitespace) and `#` line comments, `/* */`.
fn split_statements(script: &str) -> Vec<Piece<'_>> {
    let bytes = script.as_bytes();
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut name: Option<String> = None;
    // Whether the current piece has shown anything but whitespace and comments.
    let mut started = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b';' => {
                pieces.push(Piece {
                    text: &script[start..i],
                    name: name.take(),
                });
                i += 1;
                start = i;
                started = false;
            }
            quote @ (b'\'' | b'"' | b'`') => {
                started = true;
                i = skip_quoted(bytes, i, quote);
            }
            b'-' if bytes.get(i + 1) == Some(&b'-')
                && bytes.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) =>
            {
                let end = line_end(bytes, i);
                if !started {
                    if let Some(n) = comment_name(&script[i + 2..end]) {
                        name = Some(n);
                    }
                }
                i = end;
            }
            b'#' => i = line_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = match script[i + 2..].find("*/") {
                    Some(p) => i + 2 + p + 2,
                    None => bytes.len(),
                };
            }
            c => {
                if !c.is_ascii_whitespace() {
                    started = true;
                }
                i += 1;
            }
        }
    }
    pieces.push(Piece {
        text: &script[start..],
        name,
    });
    pieces
}

/// Index just past the closing `quote` of the quoted run starting at `open`.
fn skip_quoted(bytes: &[u8], open: usize, quote: u8) -> usize {
    let mut i = open + 1;
    while i < bytes.len() {
        if bytes[i] == b'\\' && quote != b'`' {
            i += 2;
        } else if bytes[i] == quote {
            if bytes.get(i + 1) == Some(&quote) {
                i += 2;
            } else {
                return i + 1;
            }
        } else {
            i += 1;
        }
    }
    bytes.len()
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| from + p)
}

/// `name: xyz` (the text after `--`) → `xyz`.
fn comment_name(comment: &str) -> Option<String> {
    let rest = comment.trim().strip_prefix("name:")?.trim();
    (!rest.is_empty()).then(|| rest.to_string())
}

fn print_timings(timings: &[Timing], format: OutputFormat, runs: usize, threads: usize) {
    use std::io::Write;
    let text = match format {
        OutputFormat::Csv => format_csv(timings),
        OutputFormat::Json => format_json(timings),
        OutputFormat::Table => format_table(timings, runs, threads),
    };
    // A closed pipe (e.g. `| head`) is not an error worth reporting.
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

fn format_csv(timings: &[Timing]) -> String {
    let mut out = String::from("query,rows,median_s,runs_s\n");
    for t in timings {
        out.push_str(&format!(
            "{},{},{:.6},{}\n",
            csv_field(&t.query),
            t.rows,
            t.median_s,
            run_list(&t.runs_s, ";")
        ));
    }
    out
}

fn run_list(runs: &[f64], separator: &str) -> String {
    runs.iter()
        .map(|r| format!("{r:.6}"))
        .collect::<Vec<_>>()
        .join(separator)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn format_json(timings: &[Timing]) -> String {
    let items: Vec<String> = timings
        .iter()
        .map(|t| {
            format!(
                "  {{\"query\": {}, \"rows\": {}, \"median_s\": {:.6}, \"runs_s\": [{}]}}",
                json_string(&t.query),
                t.rows,
                t.median_s,
                run_list(&t.runs_s, ", ")
            )
        })
        .collect();
    if items.is_empty() {
        "[]\n".to_string()
    } else {
        format!("[\n{}\n]\n", items.join(",\n"))
    }
}

fn format_table(timings: &[Timing], runs: usize, threads: usize) -> String {
    let rows: Vec<[String; 3]> = timings
        .iter()
        .map(|t| {
            [
                t.query.clone(),
                t.rows.to_string(),
                format!("{:.4}", t.median_s),
            ]
        })
        .collect();
    let head = ["query", "rows", "median_s"];
    let width: Vec<usize> = (0..3)
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([head[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let rule = format!(
        "+{}+\n",
        width
            .iter()
            .map(|w| "-".repeat(w + 2))
            .collect::<Vec<_>>()
            .join("+")
    );
    let line = |cells: [&str; 3]| {
        format!(
            "| {:<w0$} | {:>w1$} | {:>w2$} |\n",
            cells[0],
            cells[1],
            cells[2],
            w0 = width[0],
            w1 = width[1],
            w2 = width[2]
        )
    };
    let mut out = rule.clone();
    out.push_str(&line(head));
    out.push_str(&rule);
    for r in &rows {
        out.push_str(&line([&r[0], &r[1], &r[2]]));
    }
    out.push_str(&rule);
    let total: f64 = timings.iter().map(|t| t.median_s).sum();
    out.push_str(&format!(
        "total {total:.4} s over {} queries, {threads} threads, median of {runs} hot runs\n",
        timings.len()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(script: &str) -> Vec<Option<String>> {
        split_statements(script)
            .into_iter()
            .map(|p| p.name)
            .collect()
    }

    #[test]
    fn names_come_from_leading_comment_lines() {
        let script = "-- header\n-- name: first\nSELECT 1;\n-- name: second\n  SELECT 2; SELECT 3";
        assert_eq!(
            names(script),
            vec![Some("first".into()), Some("second".into()), None]
        );
    }

    #[test]
    fn a_name_comment_inside_a_statement_is_not_its_name() {
        let script = "SELECT 1\n-- name: late\nFROM t";
        assert_eq!(names(script), vec![None]);
    }

    #[test]
    fn semicolons_in_quotes_and_comments_do_not_split() {
        let script =
            "SELECT ';', \"a;b\", `c;d`, 'it''s;', 'x\\';' /* ; */ # ;\n-- ;\nFROM t; SELECT 2";
        let pieces = split_statements(script);
        assert_eq!(pieces.len(), 2);
        assert!(pieces[0].text.ends_with("FROM t"));
    }

    #[test]
    fn names_map_onto_parsed_statements() {
        let script = "-- name: a\nSELECT 1;\nSELECT 2;\n-- name: c\nSELECT 3;";
        assert_eq!(
            statement_names(script, 3),
            vec![Some("a".into()), None, Some("c".into())]
        );
        // A split that disagrees with the parser names nothing.
        assert_eq!(statement_names(script, 4), vec![None; 4]);
    }

    #[test]
    fn interleaving_groups_consecutive_selects_of_one_label_group() {
        let labels: Vec<String> = ["q/a", "q/b", "q/c", "4", "r/a", "s/a", "s/b", "8", "9"]
            .iter()
            .map(|l| l.to_string())
            .collect();
        // Statement 4 (position 4) is a SET; the rest are SELECTs.
        let is_query = [true, true, true, false, true, true, true, true, true];
        assert_eq!(
            steps(&is_query, &labels, true),
            vec![
                Step::Time(0..3),
                Step::Run(3),
                Step::Time(4..5),
                Step::Time(5..7),
                Step::Time(7..8),
                Step::Time(8..9),
            ]
        );
        let plain = steps(&is_query, &labels, false);
        assert_eq!(plain.len(), 9);
        assert!(plain
            .iter()
            .all(|s| matches!(s, Step::Time(r) if r.len() == 1) || *s == Step::Run(3)));
        // A statement between two of a group splits it.
        let is_query = [true, false, true];
        let labels: Vec<String> = ["q/a", "2", "q/b"].iter().map(|l| l.to_string()).collect();
        assert_eq!(
            steps(&is_query, &labels, true),
            vec![Step::Time(0..1), Step::Run(1), Step::Time(2..3)]
        );
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn csv_and_json_quote_names() {
        let t = [Timing {
            query: "a,\"b\"".into(),
            rows: 3,
            median_s: 0.5,
            runs_s: vec![0.5, 0.25],
        }];
        assert_eq!(
            format_csv(&t),
            "query,rows,median_s,runs_s\n\"a,\"\"b\"\"\",3,0.500000,0.500000;0.250000\n"
        );
        assert_eq!(
            format_json(&t),
            "[\n  {\"query\": \"a,\\\"b\\\"\", \"rows\": 3, \"median_s\": 0.500000, \"runs_s\": [0.500000, 0.250000]}\n]\n"
        );
    }
}
