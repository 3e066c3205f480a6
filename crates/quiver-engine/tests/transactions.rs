//! Transactions across sessions (`transaction.rs`): a reader never sees a
//! transaction's uncommitted rows nor half of a commit, in this process or
//! in another one on the same folder; the second of two transactions that
//! wrote one table gets 1213 and is rolled back; writers moving money
//! between accounts keep the sum for readers at every moment.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};

fn folder(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quiver-txn-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn session(db: &Arc<Database>) -> Session {
    Session::new(
        db.clone(),
        EngineConfig {
            threads: 2,
            ..EngineConfig::default()
        },
    )
}

/// The first column of the rows of `sql`, as text.
fn column(s: &Session, sql: &str) -> Vec<String> {
    match s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}")) {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches)
            .unwrap()
            .into_iter()
            .map(|r| r[0].clone().unwrap_or_else(|| "NULL".into()))
            .collect(),
        StatementResult::Done { .. } => vec![],
    }
}

fn one(s: &Session, sql: &str) -> String {
    column(s, sql).join(",")
}

fn run(s: &Session, sql: &str) {
    s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
}

#[test]
fn readers_see_committed_states_only() {
    let dir = folder("isolation");
    let db = Database::open(&dir).unwrap();
    let (a, b) = (session(&db), session(&db));
    run(&a, "CREATE TABLE t (n INT); CREATE TABLE u (n INT)");
    run(&a, "INSERT INTO t VALUES (1)");
    run(&a, "START TRANSACTION");
    run(&a, "INSERT INTO t VALUES (2)");
    run(&a, "INSERT INTO u VALUES (20)");
    assert_eq!(one(&a, "SELECT COUNT(*) FROM t"), "2");
    // Another session, and another opening of the folder (as another
    // process), see the committed state.
    assert_eq!(one(&b, "SELECT COUNT(*) FROM t"), "1");
    assert_eq!(one(&b, "SELECT COUNT(*) FROM u"), "0");
    let other = Database::open(&dir).unwrap();
    let c = session(&other);
    assert_eq!(one(&c, "SELECT COUNT(*) FROM t"), "1");
    run(&a, "COMMIT");
    assert_eq!(
        one(
            &b,
            "SELECT (SELECT COUNT(*) FROM t) * 10 + (SELECT COUNT(*) FROM u)"
        ),
        "21"
    );
    assert_eq!(
        one(
            &c,
            "SELECT (SELECT COUNT(*) FROM t) * 10 + (SELECT COUNT(*) FROM u)"
        ),
        "21"
    );
    // A folder opened afresh reads the commit's files.
    drop((a, b, c, other, db));
    let db = Database::open(&dir).unwrap();
    let s = session(&db);
    assert_eq!(one(&s, "SELECT SUM(n) FROM t"), "3");
    assert_eq!(one(&s, "SELECT SUM(n) FROM u"), "20");
    // A session that ends rolls back.
    {
        let gone = session(&db);
        run(&gone, "BEGIN");
        run(&gone, "INSERT INTO t VALUES (100)");
    }
    assert_eq!(one(&s, "SELECT SUM(n) FROM t"), "3");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_second_writer_of_a_table_gets_1213() {
    let dir = folder("conflict");
    let db = Database::open(&dir).unwrap();
    let (a, b) = (session(&db), session(&db));
    run(&a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
    run(&a, "INSERT INTO t VALUES (1, 10), (2, 20)");
    run(&a, "BEGIN");
    run(&b, "BEGIN");
    run(&a, "UPDATE t SET v = v + 1 WHERE id = 1");
    run(&b, "UPDATE t SET v = v + 5 WHERE id = 2");
    run(&a, "COMMIT");
    // b copied t before a committed: rolled back whole, at its next write
    // of t or at COMMIT.
    let e = b.execute("UPDATE t SET v = 0 WHERE id = 1").unwrap_err();
    assert_eq!(e.code, 1213, "{e}");
    assert_eq!(one(&b, "SELECT @@in_transaction"), "0");
    assert_eq!(column(&b, "SELECT v FROM t ORDER BY id"), ["11", "20"]);
    run(&a, "BEGIN");
    run(&b, "BEGIN");
    run(&b, "DELETE FROM t WHERE id = 2");
    run(&a, "INSERT INTO t VALUES (3, 30)");
    run(&a, "COMMIT");
    let e = b.execute("COMMIT").unwrap_err();
    assert_eq!(e.code, 1213, "{e}");
    assert_eq!(column(&a, "SELECT id FROM t ORDER BY id"), ["1", "2", "3"]);
    // An autocommit write of another session conflicts as well.
    run(&b, "BEGIN");
    run(&b, "UPDATE t SET v = 1");
    run(&a, "DELETE FROM t WHERE id = 3");
    assert_eq!(b.execute("COMMIT").unwrap_err().code, 1213);
    assert_eq!(column(&a, "SELECT v FROM t ORDER BY id"), ["11", "20"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writers move money between accounts in transactions (retrying on 1213);
/// readers, in this process and in another opening of the folder, check at
/// every read that the sum is what it was. Bounded in count and time.
#[test]
fn transfers_keep_the_sum_for_every_reader() {
    const ACCOUNTS: i64 = 8;
    const TRANSFERS: u64 = 40;
    let dir = folder("bank");
    let db = Database::open(&dir).unwrap();
    let setup = session(&db);
    run(&setup, "CREATE TABLE acct (id INT PRIMARY KEY, bal INT)");
    run(&setup, "CREATE TABLE log (writer INT, amount INT)");
    run(&setup, "CREATE TABLE stats (n INT, moved INT)");
    run(&setup, "INSERT INTO stats VALUES (0, NULL)");
    let values: Vec<String> = (0..ACCOUNTS).map(|i| format!("({i}, 100)")).collect();
    run(
        &setup,
        &format!("INSERT INTO acct VALUES {}", values.join(",")),
    );
    let total = (ACCOUNTS * 100).to_string();
    let deadline = Instant::now() + Duration::from_secs(60);
    let done = Arc::new(AtomicBool::new(false));
    let (committed, conflicts) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    std::thread::scope(|scope| {
        let mut writers = Vec::new();
        for w in 0..3i64 {
            let (db, committed, conflicts) = (db.clone(), committed.clone(), conflicts.clone());
            writers.push(scope.spawn(move || {
                let s = session(&db);
                let mut made = 0;
                let mut k = w as u64 + 1;
                while made < TRANSFERS && Instant::now() < deadline {
                    k = k
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let (from, to, amount) = (
                        (k >> 33) as i64 % ACCOUNTS,
                        (k >> 40) as i64 % ACCOUNTS,
                        (k >> 50) % 20,
                    );
                    let steps = [
                        "START TRANSACTION".to_string(),
                        format!("UPDATE acct SET bal = bal - {amount} WHERE id = {from}"),
                        format!("UPDATE acct SET bal = bal + {amount} WHERE id = {to}"),
                        format!("INSERT INTO log VALUES ({w}, {amount})"),
                        format!("UPDATE stats SET n = n + 1, moved = IFNULL(moved, 0) + {amount}"),
                        "COMMIT".to_string(),
                    ];
                    match steps.iter().try_for_each(|sql| s.execute(sql).map(|_| ())) {
                        Ok(()) => {
                            made += 1;
                            committed.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) if e.code == 1213 => {
                            conflicts.fetch_add(1, Ordering::Relaxed);
                            assert_eq!(one(&s, "SELECT @@in_transaction"), "0");
                        }
                        Err(e) => panic!("writer {w}: {e}"),
                    }
                }
            }));
        }
        let mut readers = Vec::new();
        for r in 0..2 {
            // The second reader reads through its own opening of the folder.
            let db = match r {
                0 => db.clone(),
                _ => Database::open(&dir).unwrap(),
            };
            let (done, total) = (done.clone(), total.clone());
            readers.push(scope.spawn(move || {
                let s = session(&db);
                let mut reads = 0;
                while !done.load(Ordering::Relaxed) || reads == 0 {
                    assert_eq!(one(&s, "SELECT SUM(bal) FROM acct"), total);
                    // All three tables of a commit, or none.
                    assert_eq!(
                        one(
                            &s,
                            "SELECT (SELECT COUNT(*) FROM log) = (SELECT n FROM stats) \
                             AND (SELECT SUM(amount) FROM log) <=> (SELECT moved FROM stats)",
                        ),
                        "1",
                        "reader {r}"
                    );
                    reads += 1;
                }
                reads
            }));
        }
        for w in writers {
            w.join().unwrap();
        }
        done.store(true, Ordering::Relaxed);
        for r in readers {
            assert!(r.join().unwrap() > 0);
        }
    });
    let s = session(&db);
    assert_eq!(one(&s, "SELECT SUM(bal) FROM acct"), total);
    assert_eq!(
        one(&s, "SELECT COUNT(*) FROM log"),
        committed.load(Ordering::Relaxed).to_string()
    );
    eprintln!(
        "{} transfers committed, {} rolled back by 1213",
        committed.load(Ordering::Relaxed),
        conflicts.load(Ordering::Relaxed)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
