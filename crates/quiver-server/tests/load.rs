//! Bounded load test: 64 clients for a fixed time over one in-process server
//! (TPC-H SF0.01), mixing point queries (text and prepared) with TPC-H Q6,
//! every answer checked against the embedded session's; meanwhile clients
//! that vanish mid-result. Afterwards no connection is left and the memory the
//! process holds (counted by a global allocator wrapping the system one, so
//! server threads, client threads and the engine all count) is back near where
//! it was before the load.

mod common;

use std::collections::HashMap;
use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use quiver_common::heap::{self, CountingHeap};
use quiver_engine::format::rows_as_text;
use quiver_engine::{Database, EngineConfig, Session, StatementResult};

#[global_allocator]
static HEAP: CountingHeap = CountingHeap;

/// Live heap of the whole process.
fn live_mib() -> f64 {
    heap::live() as f64 / (1024.0 * 1024.0)
}

fn rss_mib() -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

const CLIENTS: usize = 64;
const VANISHERS: usize = 2;
const DURATION: Duration = Duration::from_secs(20);
/// Allowed growth of live heap bytes after the load, over the baseline taken
/// after a warm-up round. Everything the load allocates is per query or per
/// connection: a leaked 256 KiB write buffer per connection would be 16 MiB
/// for the 64 clients (more with the vanishing ones), a leaked result per query
/// far more over thousands of queries. What may legitimately stay is small
/// (thread-local scratch of the engine's worker threads, lazily grown tables).
const TOLERANCE_MIB: f64 = 4.0;

/// A client whose reads fail after a minute, so a stuck server fails the test
/// instead of hanging it.
fn client(addr: std::net::SocketAddr) -> Client {
    let c = Client::root(addr);
    c.stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    c
}

fn text(r: StatementResult) -> Vec<Vec<Option<String>>> {
    match r {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches).unwrap(),
        other => panic!("expected rows: {other:?}"),
    }
}

#[test]
fn sixty_four_clients_for_twenty_seconds_get_right_answers_and_memory_returns() {
    let db = Database::in_memory();
    quiver_tpch::generate(&db, 0.01, &|_, _| {}).expect("generate SF0.01");
    let embedded = Session::new(
        db.clone(),
        EngineConfig {
            threads: 2,
            ..EngineConfig::default()
        },
    );
    // Known answers, computed embedded first.
    let prices: HashMap<i64, Option<String>> = text(
        embedded
            .query("SELECT o_orderkey, o_totalprice FROM orders")
            .unwrap(),
    )
    .into_iter()
    .map(|r| (r[0].as_ref().unwrap().parse().unwrap(), r[1].clone()))
    .collect();
    let keys: Arc<Vec<i64>> = Arc::new({
        let mut k: Vec<i64> = prices.keys().copied().collect();
        k.sort();
        k
    });
    assert!(keys.len() > 10_000, "SF0.01 has 15000 orders");
    let prices = Arc::new(prices);
    let q6 = quiver_tpch::query(6).unwrap();
    let q6_want = Arc::new(text(embedded.query(q6).unwrap()));
    assert_eq!(q6_want.len(), 1);
    let big = "SELECT * FROM lineitem";
    drop(embedded);

    let (h, _db) = start_with(db, Default::default());
    let addr = h.local_addr();

    // One client's round: a text point query, a prepared one, Q6.
    let round = |c: &mut Client, stmt: u32, i: usize| -> u64 {
        let k = keys[(i * 7919) % keys.len()];
        let got = c.query(&format!(
            "SELECT o_totalprice FROM orders WHERE o_orderkey = {k}"
        ));
        assert_eq!(got.rows(), &vec![vec![prices[&k].clone()]], "orderkey {k}");
        let k2 = keys[(i * 104_729 + 13) % keys.len()];
        let got = c.execute(stmt, &[Param::LongLong(k2)]);
        assert_eq!(
            got.rows(),
            &vec![vec![prices[&k2].clone()]],
            "prepared orderkey {k2}"
        );
        if i.is_multiple_of(4) {
            assert_eq!(c.query(q6).rows(), &*q6_want, "Q6");
            3
        } else {
            2
        }
    };

    // Warm-up: a round on one connection, and one vanishing client, so that
    // what is built once (engine threads, lazily sized tables) is in the baseline.
    {
        let mut c = client(addr);
        let (stmt, _, _) = c
            .prepare("SELECT o_totalprice FROM orders WHERE o_orderkey = ?")
            .unwrap();
        for i in 0..8 {
            round(&mut c, stmt, i);
        }
        let mut v = client(addr);
        v.command(0x03, big.as_bytes());
        let _ = v.stream.read(&mut [0u8; 256]);
    }
    wait_for_connections(&h, 0);
    let live0 = live_mib();
    let rss0 = rss_mib();

    let stop = Arc::new(AtomicBool::new(false));
    let queries = Arc::new(AtomicU64::new(0));
    let vanished = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    std::thread::scope(|s| {
        for t in 0..CLIENTS {
            let (stop, queries, round) = (stop.clone(), queries.clone(), &round);
            s.spawn(move || {
                let mut c = client(addr);
                let (stmt, params, _) = c
                    .prepare("SELECT o_totalprice FROM orders WHERE o_orderkey = ?")
                    .unwrap();
                assert_eq!(params, 1);
                let mut i = t * 1000;
                while !stop.load(Ordering::Relaxed) {
                    queries.fetch_add(round(&mut c, stmt, i), Ordering::Relaxed);
                    i += 1;
                }
                c.command(0x19, &stmt.to_le_bytes());
                c.command(0x01, &[]);
            });
        }
        // Clients that ask for all of lineitem (60k rows), read a little, vanish.
        for _ in 0..VANISHERS {
            let (stop, vanished) = (stop.clone(), vanished.clone());
            s.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let mut v = client(addr);
                    v.command(0x03, big.as_bytes());
                    let mut few = [0u8; 4096];
                    let n = v.stream.read(&mut few).unwrap();
                    assert!(n > 0, "the result starts");
                    drop(v);
                    vanished.fetch_add(1, Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(200));
                }
            });
        }
        std::thread::sleep(DURATION);
        stop.store(true, Ordering::Relaxed);
    });
    let elapsed = started.elapsed();
    let n = queries.load(Ordering::Relaxed);
    let v = vanished.load(Ordering::Relaxed);
    let live_peak_note = live_mib();

    // Every connection ends (the vanished ones once the server notices).
    wait_for_connections(&h, 0);
    // The server still answers after all of it.
    {
        let mut c = client(addr);
        assert_eq!(c.query(q6).rows(), &*q6_want);
    }
    wait_for_connections(&h, 0);
    let live1 = live_mib();
    let rss1 = rss_mib();
    eprintln!(
        "load: {n} queries checked in {:.1} s ({:.0} q/s) by {CLIENTS} clients, {v} vanished mid-result; \
         live heap {live0:.1} MiB before, {live_peak_note:.1} at the end of the load, {live1:.1} after \
         ({:+.0} KiB); RSS {rss0:.1} -> {rss1:.1} MiB",
        elapsed.as_secs_f64(),
        n as f64 / elapsed.as_secs_f64(),
        (live1 - live0) * 1024.0
    );
    assert!(
        n > CLIENTS as u64 * 3,
        "every client got through rounds: {n}"
    );
    assert!(v >= 1, "a client vanished mid-result");
    assert_eq!(h.active_connections(), 0);
    assert!(
        live1 - live0 <= TOLERANCE_MIB,
        "live heap {live0:.1} MiB before the load, {live1:.1} MiB after (tolerance {TOLERANCE_MIB} MiB)"
    );
}
