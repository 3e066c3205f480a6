//! A join whose rows each find many partners (a cross join, a key shared by
//! many rows) yields its output a bounded slice at a time: feeding a top-N,
//! the heap stays near the operators' own state instead of holding a probe
//! batch's whole product; and the answers of every join kind stay whole when
//! a probe batch is cut. The live heap is counted by a global allocator
//! wrapping the system one (this test binary's own), with its peak; the
//! tests run one at a time (a mutex) so that one's peak is its own.

use quiver_common::heap::{self, CountingHeap};
use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};

#[global_allocator]
static HEAP: CountingHeap = CountingHeap;

const MIB: i64 = 1024 * 1024;

static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn rows(s: &Session, sql: &str) -> Vec<Vec<Option<String>>> {
    match s.query(sql).unwrap() {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches).unwrap(),
        _ => panic!("{sql}: no rows"),
    }
}

/// `a`: 20,000 rows (id, k = id % 4 except ids 0..100 with k = 9, pad of
/// 100 bytes); `b`: 400 rows (k = id % 4): each `a` row with k < 4 meets 100.
fn session() -> Session {
    let s = Session::new(
        Database::in_memory(),
        EngineConfig {
            threads: 2,
            ..EngineConfig::default()
        },
    );
    s.query("CREATE TABLE a (id INT, k INT, pad VARCHAR(100))")
        .unwrap();
    s.query("CREATE TABLE b (id INT, k INT)").unwrap();
    let pad = "x".repeat(100);
    let a: Vec<String> = (0..20_000)
        .map(|i| format!("({i}, {}, '{pad}')", if i < 100 { 9 } else { i % 4 }))
        .collect();
    for chunk in a.chunks(5000) {
        s.query(&format!("INSERT INTO a VALUES {}", chunk.join(",")))
            .unwrap();
    }
    let b: Vec<String> = (0..400).map(|i| format!("({i}, {})", i % 4)).collect();
    s.query(&format!("INSERT INTO b VALUES {}", b.join(",")))
        .unwrap();
    s
}

#[test]
fn joins_with_many_partners_per_row_answer_whole() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let s = session();
    let n = |v: i64| vec![vec![Some(v.to_string())]];
    // 19,900 rows meet 100 each; the 100 with k = 9 meet none.
    assert_eq!(
        rows(&s, "SELECT COUNT(*) FROM a JOIN b ON a.k = b.k"),
        n(1_990_000)
    );
    assert_eq!(
        rows(
            &s,
            "SELECT COUNT(*), COUNT(b.id) FROM a LEFT JOIN b ON a.k = b.k"
        ),
        vec![vec![Some("1990100".into()), Some("1990000".into())]]
    );
    // Semi and anti joins with a condition beyond the key (candidates made).
    assert_eq!(
        rows(&s, "SELECT COUNT(*) FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.id >= a.id % 400)"),
        n(19_900)
    );
    assert_eq!(
        rows(&s, "SELECT COUNT(*) FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.id > 395)"),
        // b's ids 396..399 have k 0..3: only the rows with k = 9 find none.
        rows(&s, "SELECT COUNT(*) FROM a WHERE k NOT IN (0, 1, 2, 3)"),
    );
    assert_eq!(
        rows(
            &s,
            "SELECT SUM(a.id) FROM a JOIN b ON a.k = b.k WHERE b.id = 3"
        ),
        rows(&s, "SELECT SUM(id) FROM a WHERE k = 3")
    );
}

#[test]
fn a_key_shared_by_many_rows_into_top_n_holds_a_slice_of_its_product() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let s = session();
    let before = heap::reset_peak();
    let got = rows(
        &s,
        "SELECT a.id, b.id FROM a JOIN b ON a.k = b.k ORDER BY a.pad, a.id DESC, b.id DESC LIMIT 1",
    );
    let peak = heap::peak() - before;
    assert_eq!(
        got,
        vec![vec![Some("19999".to_string()), Some("399".to_string())]]
    );
    assert!(
        peak < 100 * MIB,
        "the query's heap peaked at {} MiB",
        peak / MIB
    );
}

#[test]
fn a_cross_join_into_top_n_holds_a_slice_of_its_product() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let s = Session::new(
        Database::in_memory(),
        EngineConfig {
            threads: 2,
            ..EngineConfig::default()
        },
    );
    s.query("CREATE TABLE a (id INT, pad VARCHAR(100))")
        .unwrap();
    s.query("CREATE TABLE b (k INT)").unwrap();
    // 20,000 rows of ~100 bytes, and 200 rows: 4 million pairs, ~500 MB
    // if a probe batch's pairs were all made at once.
    let values: Vec<String> = (0..200).map(|i| format!("({i})")).collect();
    s.query(&format!("INSERT INTO b VALUES {}", values.join(",")))
        .unwrap();
    let rows: Vec<String> = (0..20_000)
        .map(|i| format!("({i}, '{}')", "x".repeat(100)))
        .collect();
    for chunk in rows.chunks(5000) {
        s.query(&format!("INSERT INTO a VALUES {}", chunk.join(",")))
            .unwrap();
    }
    let before = heap::reset_peak();
    let got = match s
        .query("SELECT a.id, b.k FROM a, b ORDER BY a.pad, a.id DESC, b.k DESC LIMIT 1")
        .unwrap()
    {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches).unwrap(),
        _ => panic!("no rows"),
    };
    let peak = heap::peak() - before;
    assert_eq!(
        got,
        vec![vec![Some("19999".to_string()), Some("199".to_string())]]
    );
    assert!(
        peak < 100 * MIB,
        "the query's heap peaked at {} MiB",
        peak / MIB
    );
}
