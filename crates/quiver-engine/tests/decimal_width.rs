//! Decimals MySQL types wider than 38 digits (a product or SUM of narrower
//! columns) are computed in i128 first; a value that does not fit runs the
//! query again on the declared (Decimal256) types. What a caller sees is the
//! declared type either way, and never a wrapped value.

use std::sync::Arc;

use arrow_schema::DataType;
use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StreamedResult};
use quiver_sql::SqlSource;

fn session() -> Session {
    session_of("DECIMAL(38,0)")
}

/// The same rows with `a` of 39 digits: a stored Decimal256 column, so the
/// plan is the declared one from the start (the answers to compare with).
fn wide_session() -> Session {
    session_of("DECIMAL(39,0)")
}

fn session_of(a_type: &str) -> Session {
    let config = EngineConfig {
        threads: 1,
        ..EngineConfig::default()
    };
    let s = Session::new(Database::in_memory(), config);
    s.query(&format!(
        "CREATE TABLE t (id INT, a {a_type}, c DECIMAL(15,2))"
    ))
    .unwrap();
    // Two inserts: two batches, read in order by one thread.
    s.query("INSERT INTO t VALUES (1, 5, 1.50), (2, 7, 2.25)")
        .unwrap();
    s.query(
        "INSERT INTO t VALUES (3, 99999999999999999999999999999999999999, 3.00), \
         (4, 99999999999999999999999999999999999999, 4.00)",
    )
    .unwrap();
    s
}

fn stream(s: &Session, sql: &str) -> quiver_engine::RowStream {
    let source = Arc::new(SqlSource::new(sql));
    let stmt = quiver_sql::parse_sql(sql).unwrap().remove(0);
    match s.execute_streaming(&stmt, &source).unwrap() {
        StreamedResult::Rows(rows) => rows,
        StreamedResult::Done { .. } => panic!("{sql}: no rows"),
    }
}

fn text(batches: &[arrow_array::RecordBatch]) -> Vec<Vec<Option<String>>> {
    rows_as_text(batches).unwrap()
}

fn collected(s: &Session, sql: &str) -> Vec<Vec<Option<String>>> {
    match s.query(sql).unwrap() {
        quiver_engine::StatementResult::Rows { batches, .. } => text(&batches),
        _ => panic!("{sql}: no rows"),
    }
}

#[test]
fn a_sum_beyond_38_digits_is_computed_again_wide_when_streamed() {
    let s = session();
    let rows = stream(&s, "SELECT SUM(a), SUM(c * c * c) FROM t");
    // The declared types: SUM of DECIMAL(38,0) is DECIMAL(60,0).
    let schema = rows.schema();
    assert_eq!(schema.field(0).data_type(), &DataType::Decimal256(60, 0));
    assert_eq!(schema.field(1).data_type(), &DataType::Decimal256(65, 6));
    let batches = rows.collect_all().unwrap();
    assert!(batches.iter().all(|b| b.schema() == schema));
    let got = text(&batches);
    assert_eq!(
        got,
        collected(&wide_session(), "SELECT SUM(a), SUM(c * c * c) FROM t")
    );
    assert_eq!(got[0][0].as_ref().unwrap().len(), 39);
}

#[test]
fn a_sum_beyond_38_digits_is_computed_again_wide_when_collected() {
    let s = session();
    let q = "SELECT id % 2 AS k, SUM(a * c) FROM t GROUP BY k ORDER BY k";
    let quiver_engine::StatementResult::Rows { schema, batches } = s.query(q).unwrap() else {
        panic!("no rows")
    };
    assert_eq!(schema.field(1).data_type(), &DataType::Decimal256(65, 2));
    assert!(batches.iter().all(|b| b.schema() == schema));
    let got = text(&batches);
    assert_eq!(got, collected(&wide_session(), q));
    assert!(got[0][1].as_ref().unwrap().len() > 40);
}

#[test]
fn values_that_fit_keep_the_declared_types() {
    let s = session();
    let rows = stream(&s, "SELECT id, a * c FROM t WHERE id <= 2 ORDER BY id");
    let schema = rows.schema();
    assert_eq!(schema.field(1).data_type(), &DataType::Decimal256(53, 2));
    let batches = rows.collect_all().unwrap();
    assert!(batches.iter().all(|b| b.schema() == schema));
    assert_eq!(
        text(&batches),
        vec![
            vec![Some("1".to_string()), Some("7.50".to_string())],
            vec![Some("2".to_string()), Some("15.75".to_string())],
        ]
    );
}

#[test]
fn a_wide_row_after_rows_were_sent_is_error_1690_not_a_wrapped_value() {
    let s = session();
    // Row values stream: the first batch (ids 1, 2) leaves before the
    // second overflows i128, so the query cannot start again unseen.
    let mut rows = stream(&s, "SELECT id, a * c FROM t");
    let first = rows.next().unwrap().unwrap();
    assert_eq!(
        text(&[first]),
        vec![
            vec![Some("1".to_string()), Some("7.50".to_string())],
            vec![Some("2".to_string()), Some("15.75".to_string())],
        ]
    );
    let err = rows.next().unwrap().unwrap_err();
    assert_eq!(err.code, 1690, "{err}");
    // Collected whole, nothing has left yet: the wide plan answers.
    let q = "SELECT id, a * c FROM t ORDER BY id";
    let got = collected(&s, q);
    assert_eq!(got, collected(&wide_session(), q));
    assert_eq!(got.len(), 4);
}
