//! Results stream: a result of millions of rows goes out batch by batch, the
//! server's heap stays far below the result's size, a client that stops
//! reading holds the query back, and an error after rows were sent arrives
//! as an ERR packet in place of the end of the result. The live heap is
//! counted by a global allocator wrapping the system one (its own test
//! binary), with its peak.

mod common;

use std::time::{Duration, Instant};

use common::*;
use quiver_common::heap::{self, CountingHeap};

#[global_allocator]
static HEAP: CountingHeap = CountingHeap;

const MIB: f64 = 1024.0 * 1024.0;

/// The heap is the whole process's: the tests of this file run one at a
/// time so that one's allocations do not count in another's peak.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Starts measuring: the peak from now on, above the live heap now.
fn reset_peak() -> i64 {
    heap::reset_peak()
}

fn peak_above(base: i64) -> f64 {
    (heap::peak() - base) as f64 / MIB
}

/// 2^21 rows (2,097,152): 1024 by VALUES, doubled 11 times.
const ROWS: usize = 1 << 21;

/// Rows computed by the query (new memory, not only slices of the stored
/// table).
const QUERY: &str = "SELECT a * 3 AS n, a - 7 AS m, s FROM t";

/// How much above its level before the query the heap may peak while the
/// whole result streams. The engine keeps a few batches of 16K rows per
/// partition and the server 256 KiB of packets; the result itself is ~55
/// MiB of packets, and its computed columns alone 32 MiB.
const STREAM_BOUND_MIB: f64 = 16.0;

fn setup() -> (
    std::sync::MutexGuard<'static, ()>,
    quiver_server::ServerHandle,
    Client,
) {
    let alone = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let (h, _db) = default_server();
    let mut c = Client::root(h.local_addr());
    c.stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    c.query("CREATE TABLE t (a BIGINT NOT NULL, s VARCHAR(20))");
    let values: Vec<String> = (0..1024).map(|i| format!("({i}, 'row{i}')")).collect();
    c.query(&format!("INSERT INTO t VALUES {}", values.join(", ")));
    for k in 0..11 {
        let r = c.query(&format!("INSERT INTO t SELECT a + {}, s FROM t", 1024 << k));
        assert_eq!(
            r,
            Outcome::Ok {
                affected: 1024 << k
            }
        );
    }
    // Warm-up: the engine's threads and lazily built state in the baseline.
    assert_eq!(
        c.query("SELECT count(*) FROM t").scalar().as_deref(),
        Some(ROWS.to_string().as_str())
    );
    (alone, h, c)
}

/// What reading a streamed result saw.
struct Streamed {
    rows: usize,
    bytes: usize,
    /// The ERR that ended it, if one did.
    error: Option<Outcome>,
}

/// Sends `sql` and reads its result packet by packet without keeping rows;
/// `pause` is called after each row with the bytes read so far.
fn stream(c: &mut Client, sql: &str, mut pause: impl FnMut(usize)) -> Streamed {
    c.command(0x03, sql.as_bytes());
    let first = c.read();
    assert!(
        first[0] != 0xFF && first[0] != 0x00,
        "a result set: {first:?}"
    );
    let columns = first[0] as usize;
    c.read_columns(columns);
    let mut s = Streamed {
        rows: 0,
        bytes: 0,
        error: None,
    };
    loop {
        let p = c.read();
        if p[0] == 0xFF {
            let mut err = vec![];
            err.extend_from_slice(&p);
            s.error = Some(parse_err(&err));
            return s;
        }
        if p[0] == 0xFE && p.len() < 11 {
            return s;
        }
        s.rows += 1;
        s.bytes += p.len() + 4;
        pause(s.bytes);
    }
}

#[test]
fn a_multi_million_row_result_streams_in_bounded_memory() {
    let (_alone, _h, mut c) = setup();
    let base = reset_peak();
    let started = Instant::now();
    let s = stream(&mut c, QUERY, |_| {});
    let peak = peak_above(base);
    eprintln!(
        "streamed {} rows, {:.1} MB of packets in {:.2} s; heap peak {peak:.1} MiB above the start",
        s.rows,
        s.bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    assert!(s.error.is_none(), "{:?}", s.error);
    assert_eq!(s.rows, ROWS);
    assert!(s.bytes as f64 / MIB > 3.0 * STREAM_BOUND_MIB);
    assert!(
        peak < STREAM_BOUND_MIB,
        "heap peaked {peak:.1} MiB above the start while streaming {:.1} MiB",
        s.bytes as f64 / MIB
    );
    // The connection is usable after it.
    assert_eq!(c.query("SELECT 1").scalar().as_deref(), Some("1"));
}

#[test]
fn a_client_that_stops_reading_holds_the_query_back() {
    let (_alone, h, mut c) = setup();
    let mut observer = Client::root(h.local_addr());
    let id = c.connection_id;
    let base = reset_peak();
    let mut paused = false;
    let mut state_seen = String::new();
    let s = stream(&mut c, QUERY, |bytes| {
        if !paused && bytes > 1 << 20 {
            paused = true;
            // The client reads nothing for a while: the server fills the
            // socket's buffers and waits, and so does the engine.
            std::thread::sleep(Duration::from_millis(1500));
            let r = observer.query(&format!(
                "SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = {id}"
            ));
            state_seen = r.scalar().unwrap_or_default();
        }
    });
    let peak = peak_above(base);
    eprintln!(
        "slow client: heap peak {peak:.1} MiB above the start; state while paused: {state_seen}"
    );
    assert!(s.error.is_none(), "{:?}", s.error);
    assert_eq!(s.rows, ROWS, "every row arrives after the pause");
    assert_eq!(state_seen, "Sending to client");
    assert!(
        peak < STREAM_BOUND_MIB,
        "heap peaked {peak:.1} MiB above the start with a paused client"
    );
}

#[test]
fn an_error_after_rows_were_sent_ends_the_result_with_err() {
    let (_alone, h, mut c) = setup();
    let mut killer = Client::root(h.local_addr());
    let id = c.connection_id;
    let mut killed = false;
    let s = stream(&mut c, QUERY, |bytes| {
        if !killed && bytes > 1 << 20 {
            killed = true;
            assert_eq!(
                killer.query(&format!("KILL QUERY {id}")),
                Outcome::Ok { affected: 0 }
            );
        }
    });
    assert!(s.rows > 0 && s.rows < ROWS, "{} rows", s.rows);
    assert_eq!(s.error.expect("an ERR ends the result").code(), 1317);
    // The connection goes on.
    assert_eq!(c.query("SELECT 2").scalar().as_deref(), Some("2"));
}
