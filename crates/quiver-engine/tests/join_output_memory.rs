//! A join whose rows each find many partners (a cross join, a key shared by
//! many rows) yields its output a bounded slice at a time: feeding a top-N,
//! the heap stays near the operators' own state instead of holding a probe
//! batch's whole product. The live heap is counted by a global allocator
//! wrapping the system one (this test binary's own), with its peak.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, Ordering};

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};

struct Counting;

static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);

fn grew(by: i64) {
    let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            grew(l.size() as i64);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if !p.is_null() {
            grew(l.size() as i64);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        LIVE.fetch_sub(l.size() as i64, Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            grew(new as i64 - l.size() as i64);
        }
        q
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const MIB: i64 = 1024 * 1024;

#[test]
fn a_cross_join_into_top_n_holds_a_slice_of_its_product() {
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
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let got = match s
        .query("SELECT a.id, b.k FROM a, b ORDER BY a.pad, a.id DESC, b.k DESC LIMIT 1")
        .unwrap()
    {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches).unwrap(),
        _ => panic!("no rows"),
    };
    let peak = PEAK.load(Ordering::Relaxed) - before;
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
