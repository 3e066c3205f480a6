//! Transactions over the wire: one connection's uncommitted rows are not
//! seen by another; a client that disconnects has its transaction rolled
//! back; the second of two transactions writing one table gets 1213.

mod common;

use common::*;

#[test]
fn connections_see_committed_rows_and_a_disconnect_rolls_back() {
    let (h, _db) = default_server();
    let addr = h.local_addr();
    let mut a = Client::root(addr);
    let mut b = Client::root(addr);
    a.query("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
    a.query("BEGIN");
    assert_eq!(
        a.query("INSERT INTO t VALUES (1, 10), (2, 20)"),
        Outcome::Ok { affected: 2 }
    );
    assert_eq!(a.query("SELECT COUNT(*) FROM t").scalar(), Some("2".into()));
    assert_eq!(b.query("SELECT COUNT(*) FROM t").scalar(), Some("0".into()));
    a.query("COMMIT");
    assert_eq!(b.query("SELECT COUNT(*) FROM t").scalar(), Some("2".into()));
    // A client gone mid-transaction: its rows never appear.
    let mut gone = Client::root(addr);
    gone.query("START TRANSACTION");
    gone.query("INSERT INTO t VALUES (3, 30)");
    drop(gone);
    wait_for_connections(&h, 2);
    assert_eq!(b.query("SELECT COUNT(*) FROM t").scalar(), Some("2".into()));
    // Two writers of t: the first to commit wins.
    a.query("BEGIN");
    b.query("BEGIN");
    a.query("UPDATE t SET v = v + 1 WHERE id = 1");
    b.query("UPDATE t SET v = v + 1 WHERE id = 2");
    a.query("COMMIT");
    assert_eq!(b.query("COMMIT").code(), 1213);
    assert_eq!(b.query("SELECT SUM(v) FROM t").scalar(), Some("31".into()));
    drop((a, b));
    wait_for_connections(&h, 0);
}
