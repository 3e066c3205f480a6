//! Crash safety of COMMIT across tables: a transaction that changes two
//! tables, killed (SIGKILL) at random points, or stopped dead right after
//! its redo record was written, leaves both tables as they were or both as
//! the transaction made them; the next opening finishes a cut commit, and
//! `quiver check` passes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const QUIVER: &str = env!("CARGO_BIN_EXE_quiver");

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quiver-txn-crash-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

fn run(db: &Path, statements: &[&str], env: Option<&str>) -> Output {
    let mut cmd = Command::new(QUIVER);
    cmd.args([
        "--db",
        db.to_str().unwrap(),
        "--threads",
        "2",
        "sql",
        "--format",
        "csv",
    ]);
    for s in statements {
        cmd.args(["-e", s]);
    }
    if let Some(var) = env {
        cmd.env(var, "1");
    }
    cmd.output().expect("run quiver")
}

fn sql(db: &Path, statements: &[&str]) -> String {
    let out = run(db, statements, None);
    assert!(
        out.status.success(),
        "{statements:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Both tables, as one text.
fn state(db: &Path) -> String {
    sql(
        db,
        &["SELECT (SELECT COUNT(*) FROM a), (SELECT SUM(k) FROM a), \
           (SELECT COUNT(*) FROM b), (SELECT SUM(v) FROM b)"],
    )
}

fn check_passes(db: &Path) {
    let out = Command::new(QUIVER)
        .args(["--db", db.to_str().unwrap(), "check"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn make_db(name: &str) -> PathBuf {
    let db = temp_dir(name);
    fs::create_dir_all(&db).unwrap();
    sql(
        &db,
        &[
            "CREATE TABLE a (k BIGINT, s VARCHAR(20))",
            "CREATE TABLE b (id INT PRIMARY KEY, v BIGINT)",
            "INSERT INTO b VALUES (1, 0), (2, 0)",
            "INSERT INTO a SELECT 1, 'x'",
        ],
    );
    // Enough rows that writing them takes a while: doubled 17 times.
    for _ in 0..17 {
        sql(&db, &["INSERT INTO a SELECT k + 1, s FROM a"]);
    }
    db
}

const TRANSACTION: [&str; 4] = [
    "START TRANSACTION",
    "INSERT INTO a SELECT k + 1000000, s FROM a WHERE k % 3 = 0",
    "UPDATE b SET v = v + 1",
    "COMMIT",
];

#[test]
fn a_commit_stopped_after_its_record_is_finished_by_the_next_opening() {
    let db = make_db("record");
    let old = state(&db);
    let out = run(&db, &TRANSACTION, Some("QUIVER_CRASH_AFTER_COMMIT_RECORD"));
    assert!(!out.status.success(), "the process was to stop dead");
    assert!(db.join("commit.redo").exists());
    let now = state(&db);
    assert_ne!(now, old, "the record's commit is finished");
    assert!(!db.join("commit.redo").exists());
    check_passes(&db);
    // The same transaction, uninterrupted, on the old state gives the same.
    let reference = make_db("record-ref");
    sql(&reference, &TRANSACTION);
    assert_eq!(state(&reference), now);
    let _ = fs::remove_dir_all(&db);
    let _ = fs::remove_dir_all(&reference);
}

#[test]
fn killed_transactions_leave_both_tables_before_or_after() {
    let db = make_db("kill");
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    let (mut old_seen, mut new_seen) = (0, 0);
    for round in 0..6 {
        let old = state(&db);
        let reference = db.with_extension("ref");
        let _ = fs::remove_dir_all(&reference);
        copy_dir(&db, &reference);
        let started = Instant::now();
        sql(&reference, &TRANSACTION);
        let took = started.elapsed();
        let new = state(&reference);
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = Duration::from_micros(seed % (took.as_micros() as u64 * 6 / 5 + 1));
        let mut cmd = Command::new(QUIVER);
        cmd.args(["--db", db.to_str().unwrap(), "--threads", "2", "sql"]);
        for s in TRANSACTION {
            cmd.args(["-e", s]);
        }
        let mut child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        let _ = child.wait();
        let now = state(&db);
        assert!(
            now == old || now == new,
            "round {round}, killed after {delay:?}: {now}\nold: {old}\nnew: {new}"
        );
        if now == old {
            old_seen += 1;
        } else {
            new_seen += 1;
        }
        check_passes(&db);
        let _ = fs::remove_dir_all(&reference);
    }
    eprintln!("killed transactions: {old_seen} left the old state, {new_seen} the new one");
    let _ = fs::remove_dir_all(&db);
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            fs::copy(e.path(), target).unwrap();
        }
    }
}
