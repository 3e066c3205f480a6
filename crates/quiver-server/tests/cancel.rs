//! Stopping running queries: KILL QUERY / KILL CONNECTION from another
//! connection, a connection killing itself, unknown ids, and a client that
//! disconnects while its query runs. SHOW PROCESSLIST and
//! information_schema.PROCESSLIST show who runs what.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use quiver_engine::Database;

/// A join of orders with lineitem at SF0.01 that keeps no pairs: 15000 x
/// 60175 candidate pairs, each through the filter, tens of seconds of work
/// in memory that does not grow (pairs are filtered 64K at a time).
const LONG: &str = "SELECT count(*) FROM orders, lineitem WHERE o_totalprice + l_extendedprice < 0";

/// How long a cancelled query may take to end: it notices within a batch of
/// pairs (milliseconds); this is slack for a loaded machine, far below the
/// query's own running time.
const STOP_WITHIN: Duration = Duration::from_secs(10);

fn server() -> (quiver_server::ServerHandle, Arc<Database>) {
    let db = Database::in_memory();
    quiver_tpch::generate(&db, 0.01, &|_, _| {}).expect("generate SF0.01");
    start_with(db, Default::default())
}

fn client(addr: std::net::SocketAddr) -> Client {
    let c = Client::root(addr);
    c.stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    c
}

/// The PROCESSLIST row of connection `id` as (Command, Info), if listed.
fn process(c: &mut Client, id: u32) -> Option<(String, Option<String>)> {
    let r = c.query(&format!(
        "SELECT COMMAND, INFO FROM information_schema.PROCESSLIST WHERE ID = {id}"
    ));
    r.rows()
        .first()
        .map(|row| (row[0].clone().unwrap(), row[1].clone()))
}

/// Waits until connection `id` runs `sql` (as PROCESSLIST shows it).
fn wait_running(c: &mut Client, id: u32, sql: &str) {
    let start = Instant::now();
    loop {
        if let Some((cmd, info)) = process(c, id) {
            if cmd == "Query" && info.as_deref() == Some(sql) {
                return;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "connection {id} never ran {sql}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until connection `id` is no longer listed.
fn wait_gone(c: &mut Client, id: u32) -> Duration {
    let start = Instant::now();
    while process(c, id).is_some() {
        assert!(
            start.elapsed() < STOP_WITHIN,
            "connection {id} still listed after {STOP_WITHIN:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    start.elapsed()
}

#[test]
fn kill_query_from_another_connection_interrupts_with_1317() {
    let (h, _db) = server();
    let addr = h.local_addr();
    let mut victim = client(addr);
    let id = victim.connection_id;
    let mut killer = client(addr);
    let running = std::thread::spawn(move || {
        let r = victim.query(LONG);
        (r, victim)
    });
    wait_running(&mut killer, id, LONG);
    // SHOW PROCESSLIST has MySQL's columns and lists both connections.
    let list = killer.query("SHOW FULL PROCESSLIST");
    let names: Vec<&str> = list.columns().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["Id", "User", "Host", "db", "Command", "Time", "State", "Info"]
    );
    let row = list
        .rows()
        .iter()
        .find(|r| r[0].as_deref() == Some(&id.to_string()))
        .expect("the running connection is listed")
        .clone();
    assert_eq!(row[1].as_deref(), Some("root"));
    assert!(
        row[2].as_deref().unwrap().starts_with("127.0.0.1:"),
        "{row:?}"
    );
    assert_eq!(row[4].as_deref(), Some("Query"));
    assert_eq!(row[7].as_deref(), Some(LONG));
    let me = list
        .rows()
        .iter()
        .find(|r| r[0].as_deref() == Some(&killer.connection_id.to_string()))
        .expect("the asking connection is listed")
        .clone();
    assert_eq!(me[7].as_deref(), Some("SHOW FULL PROCESSLIST"));

    let killed_at = Instant::now();
    assert_eq!(
        killer.query(&format!("KILL QUERY {id}")),
        Outcome::Ok { affected: 0 }
    );
    let (r, mut victim) = running.join().unwrap();
    let took = killed_at.elapsed();
    assert_eq!(
        r,
        Outcome::Err {
            code: 1317,
            state: "70100".into(),
            message: "Query execution was interrupted".into()
        }
    );
    assert!(took < STOP_WITHIN, "stopped after {took:?}");
    eprintln!("KILL QUERY: the query ended {took:?} after the KILL");
    // The connection goes on, idle again.
    assert_eq!(victim.query("SELECT 1").scalar().as_deref(), Some("1"));
    assert_eq!(process(&mut killer, id), Some(("Sleep".to_string(), None)));
    // A prepared statement is stopped the same way (Command `Execute`).
    let (stmt, _, _) = victim.prepare(LONG).unwrap();
    let running = std::thread::spawn(move || {
        let r = victim.execute(stmt, &[]);
        (r, victim)
    });
    let start = Instant::now();
    while process(&mut killer, id).map(|p| p.0) != Some("Execute".into()) {
        assert!(start.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(20));
    }
    killer.query(&format!("KILL QUERY {id}"));
    let (r, _victim) = running.join().unwrap();
    assert_eq!(r.code(), 1317);
}

#[test]
fn kill_connection_ends_it_running_or_idle() {
    let (h, _db) = server();
    let addr = h.local_addr();
    let mut killer = client(addr);

    // Running: the client loses its connection (MariaDB sends nothing).
    let mut victim = client(addr);
    let id = victim.connection_id;
    let running = std::thread::spawn(move || {
        victim.command(0x03, LONG.as_bytes());
        victim.try_read().is_err()
    });
    wait_running(&mut killer, id, LONG);
    assert_eq!(
        killer.query(&format!("KILL CONNECTION {id}")),
        Outcome::Ok { affected: 0 }
    );
    assert!(running.join().unwrap(), "the connection was closed");
    let took = wait_gone(&mut killer, id);
    eprintln!("KILL CONNECTION: gone from PROCESSLIST {took:?} after");

    // Idle: closed at once; its next command finds the connection gone.
    let mut idle = client(addr);
    let id = idle.connection_id;
    assert_eq!(
        killer.query(&format!("KILL {id}")),
        Outcome::Ok { affected: 0 }
    );
    wait_gone(&mut killer, id);
    idle.command(0x03, b"SELECT 1");
    assert!(idle.try_read().is_err(), "the idle connection was closed");

    // The server serves on.
    assert_eq!(killer.query("SELECT 2").scalar().as_deref(), Some("2"));
    assert_eq!(h.active_connections(), 1);
}

#[test]
fn kill_of_an_unknown_id_and_of_oneself() {
    let (h, _db) = default_server();
    let mut c = Client::root(h.local_addr());
    for kill in ["KILL", "KILL QUERY", "KILL CONNECTION"] {
        assert_eq!(
            c.query(&format!("{kill} 999999")),
            Outcome::Err {
                code: 1094,
                state: "HY000".into(),
                message: "Unknown thread id: 999999".into()
            }
        );
    }
    let me = c.connection_id;
    // KILL QUERY of oneself stops the KILL itself; the connection goes on.
    assert_eq!(c.query(&format!("KILL QUERY {me}")).code(), 1317);
    assert_eq!(c.query("SELECT 1").scalar().as_deref(), Some("1"));
    // KILL of oneself: MariaDB's 1927, then the connection ends.
    assert_eq!(
        c.query(&format!("KILL {me}")),
        Outcome::Err {
            code: 1927,
            state: "70100".into(),
            message: "Connection was killed".into()
        }
    );
    c.command(0x03, b"SELECT 1");
    assert!(c.try_read().is_err(), "the connection ended");
}

#[test]
fn a_client_that_disconnects_mid_query_stops_it() {
    let (h, _db) = server();
    let addr = h.local_addr();
    let mut watcher = client(addr);
    let mut gone = client(addr);
    let id = gone.connection_id;
    gone.command(0x03, LONG.as_bytes());
    wait_running(&mut watcher, id, LONG);
    drop(gone);
    // The server notices the closed socket while the query runs, stops it
    // and frees the connection.
    let took = wait_gone(&mut watcher, id);
    eprintln!("disconnect: the connection was gone {took:?} after the client closed");
    let start = Instant::now();
    while h.active_connections() > 1 {
        assert!(start.elapsed() < STOP_WITHIN);
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(watcher.query("SELECT 3").scalar().as_deref(), Some("3"));
}

#[test]
fn processlist_shows_schema_and_idle_connections() {
    let (h, _db) = default_server();
    let mut a = Client::root(h.local_addr());
    let mut b = Client::root(h.local_addr());
    assert_eq!(b.query("USE quiver"), Outcome::Ok { affected: 0 });
    let r = a.query(
        "SELECT ID, USER, DB, COMMAND, STATE, INFO FROM information_schema.PROCESSLIST ORDER BY ID",
    );
    assert_eq!(
        r.rows(),
        &vec![
            vec![
                Some(a.connection_id.to_string()),
                Some("root".into()),
                None,
                Some("Query".into()),
                Some("executing".into()),
                Some("SELECT ID, USER, DB, COMMAND, STATE, INFO FROM information_schema.PROCESSLIST ORDER BY ID".into()),
            ],
            vec![
                Some(b.connection_id.to_string()),
                Some("root".into()),
                Some("quiver".into()),
                Some("Sleep".into()),
                Some("".into()),
                None,
            ],
        ]
    );
    // SHOW PROCESSLIST without FULL cuts the statement at 100 characters.
    let long = format!("SELECT '{}' AS x, 1", "y".repeat(200));
    let r = a.query_all(&format!("SHOW PROCESSLIST; {long}"));
    let mine = r[0]
        .rows()
        .iter()
        .find(|row| row[0].as_deref() == Some(&a.connection_id.to_string()))
        .unwrap()
        .clone();
    assert_eq!(mine[7].as_ref().unwrap().chars().count(), 100);
    drop(b);
}
