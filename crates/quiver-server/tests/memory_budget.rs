//! `quiver serve --memory-limit` is the budget of all connections together:
//! a query that fits its own limit gets 1041 while others hold the rest,
//! and answers once they are done. (The sharing itself is tested in
//! quiver-engine's memory_limit tests; this is the server's wiring of it.)

mod common;

use std::sync::Arc;

use common::{Client, Outcome};
use quiver_engine::{Database, EngineConfig};
use quiver_server::{Server, ServerConfig};

#[test]
fn connections_share_the_servers_memory_limit() {
    let db = Database::in_memory();
    let limit = 256 << 20;
    let engine = EngineConfig {
        threads: 2,
        memory_limit: limit,
    };
    let server = Server::bind(
        Arc::clone(&db),
        engine,
        ServerConfig {
            port: 0,
            ..Default::default()
        },
    )
    .expect("server binds");
    let h = server.spawn();
    assert_eq!(
        db.memory().limit(),
        limit,
        "--memory-limit is the database's budget"
    );
    let mut c = Client::root(h.local_addr());
    for sql in [
        "CREATE TABLE dg (i INT)",
        "INSERT INTO dg VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)",
        "CREATE TABLE t AS SELECT CONCAT('v', a.i, b.i, c.i, d.i, e.i) AS s FROM dg a, dg b, dg c, dg d, dg e",
    ] {
        assert!(matches!(c.query(sql), Outcome::Ok { .. }), "{sql}");
    }
    let sql = "SELECT COUNT(DISTINCT s) FROM t";
    assert_eq!(c.query(sql).scalar().as_deref(), Some("100000"));
    // Other connections' queries hold all but 1 KiB (the query's sets of
    // distinct strings take megabytes).
    let held = db
        .memory()
        .reserve_owned(limit - db.memory().used() - 1024)
        .expect("room");
    let mut other = Client::root(h.local_addr());
    assert_eq!(other.query(sql).code(), 1041);
    drop(held);
    assert_eq!(other.query(sql).scalar().as_deref(), Some("100000"));
}
