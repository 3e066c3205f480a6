//! `quiver check` on clean and damaged databases, zone maps seen from SQL, and
//! crash safety: `load`, `INSERT`, `UPDATE`, `DELETE` and `CREATE TABLE ...
//! AS SELECT` killed (SIGKILL) at random points leave the previous state or
//! the new one (of a table with keys, its AUTO_INCREMENT counter too).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const QUIVER: &str = env!("CARGO_BIN_EXE_quiver");

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quiver-check-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

fn quiver(args: &[&str]) -> Output {
    Command::new(QUIVER)
        .args(args)
        .output()
        .expect("run quiver")
}

fn sql(db: &Path, statements: &[&str]) -> String {
    let mut args = vec!["--threads", "2", "sql", "--format", "csv"];
    args.insert(0, db.to_str().unwrap());
    args.insert(0, "--db");
    for s in statements {
        args.push("-e");
        args.push(s);
    }
    let out = quiver(&args);
    assert!(
        out.status.success(),
        "{statements:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A CSV of `rows` rows: k (ascending from `start`), v, s.
fn write_csv(path: &Path, start: u64, rows: u64) {
    let mut f = std::io::BufWriter::new(fs::File::create(path).unwrap());
    writeln!(f, "k,v,s").unwrap();
    for k in start..start + rows {
        writeln!(f, "{k},{}.{:02},word{}", k * 7 % 1000, k % 100, k % 17).unwrap();
    }
}

/// A database with table `t` of 300K rows (5 row groups).
fn make_db(name: &str) -> PathBuf {
    let db = temp_dir(name);
    fs::create_dir_all(&db).unwrap();
    let csv = db.with_extension("csv");
    write_csv(&csv, 0, 300_000);
    let out = quiver(&[
        "--db",
        db.to_str().unwrap(),
        "load",
        "t",
        csv.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    sql(
        &db,
        &[
            "CREATE TABLE small (a INT, b VARCHAR(10))",
            "INSERT INTO small VALUES (1, 'x'), (2, NULL)",
        ],
    );
    let _ = fs::remove_file(csv);
    db
}

fn check(db: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["--db", db.to_str().unwrap(), "--threads", "2", "check"];
    args.extend_from_slice(extra);
    quiver(&args)
}

fn data_file(db: &Path, table: &str) -> PathBuf {
    let dir = db.join("tables").join(table);
    let meta = quiver_storage::table_file::read_meta(&dir).unwrap();
    quiver_storage::table_file::data_path(&dir, &meta)
}

#[test]
fn clean_database_passes() {
    let db = make_db("clean");
    let out = check(&db, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // t: 5 row groups x 3 columns + the directory.
    assert!(stdout.contains("| t     |    16 |"), "{stdout}");
    assert!(stdout.contains("| small |     3 |"), "{stdout}");
    assert!(stdout.contains("no damage"), "{stdout}");
    let out = check(&db, &["--format", "json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("{\"ok\":true,"), "{stdout}");
    assert!(stdout.contains("\"table\":\"t\",\"pages\":16,"), "{stdout}");
    let _ = fs::remove_dir_all(&db);
}

#[test]
fn damaged_byte_names_table_column_and_page() {
    let db = make_db("damaged");
    let dir = db.join("tables").join("t");
    let file = quiver_storage::open_table(&dir).unwrap();
    let page = &file.layout.as_ref().unwrap().row_groups[3].pages[2];
    let path = data_file(&db, "t");
    let mut bytes = fs::read(&path).unwrap();
    bytes[(page.offset + page.len as u64 / 2) as usize] ^= 0x04;
    fs::write(&path, &bytes).unwrap();
    // Small reads: the damaged page is found whatever unit it falls in.
    for args in [
        &["--chunk", "64K"][..],
        &["--chunk", "4M"],
        &["--io-thread", "--chunk", "1M"],
    ] {
        let out = check(&db, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert_eq!(
            stderr.trim(),
            "ERROR 1877 (HY000): table 't', column 's', page 3: checksum mismatch"
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("| t     |    16 | "), "{stdout}");
        assert!(stdout.contains("1 damaged"), "{stdout}");
    }
    let out = check(&db, &["--format", "json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("{\"ok\":false,"), "{stdout}");
    assert!(
        stdout.contains("\"column\":\"s\",\"page\":3,\"code\":1877"),
        "{stdout}"
    );
    // A query reading that column fails with the same error; others work.
    let out = quiver(&[
        "--db",
        db.to_str().unwrap(),
        "sql",
        "-e",
        "SELECT max(s) FROM t",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "ERROR 1877 (HY000): table 't', column 's', page 3: checksum mismatch"
    );
    assert_eq!(
        sql(&db, &["SELECT count(*), sum(k) FROM t"]),
        "count(*),sum(k)\n300000,44999850000\n"
    );
    let _ = fs::remove_dir_all(&db);
}

#[test]
fn missing_and_truncated_files_are_damage() {
    let db = make_db("missing");
    let path = data_file(&db, "small");
    fs::remove_file(&path).unwrap();
    let out = check(&db, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("ERROR 1812 (HY000): table 'small': data file data-"),
        "{stderr}"
    );
    assert!(stderr.contains("is missing"), "{stderr}");

    let path = data_file(&db, "t");
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() - 1000]).unwrap();
    let out = check(&db, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("ERROR 1877 (HY000): table 't': data file truncated"),
        "{stderr}"
    );
    // A damaged manifest is damage too.
    let meta = db.join("tables").join("t").join("table.meta");
    let mut text = fs::read(&meta).unwrap();
    text[20] ^= 1;
    fs::write(&meta, &text).unwrap();
    let out = check(&db, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("table 't': manifest table.meta: checksum mismatch"),
        "{stderr}"
    );
    let _ = fs::remove_dir_all(&db);

    let out = quiver(&["--db", "/nonexistent/quiver-db", "check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ERROR 1049"));
}

/// Row groups are skipped by zone maps, and the answers equal those of the
/// same filters written so that no zone map can decide them.
#[test]
fn zone_maps_skip_row_groups_with_the_same_answers() {
    let db = make_db("zones");
    let cases = [
        (
            "k BETWEEN 70000 AND 70010",
            "k + 0 BETWEEN 70000 AND 70010",
            4,
        ),
        ("k < 65536", "k + 0 < 65536", 4),
        ("k >= 262144", "k + 0 >= 262144", 4),
        ("k IN (5, 299999)", "k + 0 IN (5, 299999)", 3),
        ("k = -1", "k + 0 = -1", 5),
        (
            "s = 'word3' AND k > 200000",
            "concat(s, '') = 'word3' AND k + 0 > 200000",
            3,
        ),
        ("s > 'word9'", "concat(s, '') > 'word9'", 5),
    ];
    for (filter, opaque, skipped) in cases {
        let q = |f: &str| format!("SELECT count(*), sum(k), sum(v), max(s) FROM t WHERE {f}");
        assert_eq!(sql(&db, &[&q(filter)]), sql(&db, &[&q(opaque)]), "{filter}");
        let plan = sql(&db, &[&format!("EXPLAIN ANALYZE {}", q(filter))]);
        assert!(
            plan.contains(&format!("row_groups_skipped={skipped}/5")),
            "{filter}: {plan}"
        );
        let plan = sql(&db, &[&format!("EXPLAIN ANALYZE {}", q(opaque))]);
        assert!(!plan.contains("row_groups_skipped"), "{opaque}: {plan}");
    }
    let _ = fs::remove_dir_all(&db);
}

/// Binary strings keep page bounds too, with bytes below 0x20 (they
/// compare as bytes, with no padding): keys here are 4 big-endian bytes of
/// `k`, so in `k`'s order, and most of them hold 0x00 bytes.
#[test]
fn zone_maps_skip_row_groups_of_binary_strings() {
    let db = make_db("zones_binary");
    sql(
        &db,
        &["CREATE TABLE b AS SELECT k, UNHEX(LPAD(HEX(k), 8, '0')) AS x FROM t ORDER BY k"],
    );
    let cases = [
        ("x = X'00011170'", "CONCAT(x, X'') = X'00011170'", 4),
        ("x < X'00010000'", "CONCAT(x, X'') < X'00010000'", 4),
        ("x >= X'00040000'", "CONCAT(x, X'') >= X'00040000'", 4),
        (
            "x BETWEEN X'00011170' AND X'0001117A'",
            "CONCAT(x, X'') BETWEEN X'00011170' AND X'0001117A'",
            4,
        ),
        (
            "x IN (X'00000005', X'00049000')",
            "CONCAT(x, X'') IN (X'00000005', X'00049000')",
            3,
        ),
        ("x > X'00FFFFFF'", "CONCAT(x, X'') > X'00FFFFFF'", 5),
    ];
    for (filter, opaque, skipped) in cases {
        let q =
            |f: &str| format!("SELECT count(*), sum(k), hex(min(x)), hex(max(x)) FROM b WHERE {f}");
        let answer = sql(&db, &[&q(filter)]);
        assert_eq!(answer, sql(&db, &[&q(opaque)]), "{filter}");
        let plan = sql(&db, &[&format!("EXPLAIN ANALYZE {}", q(filter))]);
        assert!(
            plan.contains(&format!("row_groups_skipped={skipped}/5")),
            "{filter}: {plan}"
        );
    }
    // The equality finds its row, shown with its bytes.
    let one = sql(&db, &["SELECT k, hex(x) FROM b WHERE x = X'00011170'"]);
    assert!(one.contains("70000") && one.contains("00011170"), "{one}");
    let _ = fs::remove_dir_all(&db);
}

/// Equality on text columns whose pages record their row shape (trailing
/// spaces, ASCII): row groups with none, one, up to three trailing spaces
/// and non-ASCII rows, under PAD SPACE, NO PAD and `_ci` collations, give
/// what the same compare gives where no shape is used (`CONCAT(v, '')`
/// keeps the collation but is no column).
#[test]
fn equality_on_pages_of_known_row_shape() {
    let db = make_db("row_shape");
    let v = "CONCAT(IF(k >= 196608 AND k % 5 = 0, 'é', 'w'), k % 1000, \
             REPEAT(' ', CASE WHEN k < 65536 THEN 0 WHEN k < 131072 THEN k % 2 ELSE k % 4 END))";
    sql(
        &db,
        &[
            "CREATE TABLE s (k INT, v VARCHAR(20), n VARCHAR(20) COLLATE utf8mb4_nopad_bin, \
             g VARCHAR(20) COLLATE utf8mb4_general_ci)",
            &format!("INSERT INTO s SELECT k, {v}, {v}, UPPER({v}) FROM t ORDER BY k"),
        ],
    );
    for col in ["v", "n", "g"] {
        let constants = ["w7", "w7 ", "w7   ", "W7", "é5", "É5  ", "w123", "w12", ""];
        let queries = |lhs: &str| -> Vec<String> {
            constants
                .iter()
                .map(|c| format!("SELECT '{c}', count(*), sum(k) FROM s WHERE {lhs} = '{c}'"))
                .collect()
        };
        let run = |qs: Vec<String>| sql(&db, &qs.iter().map(String::as_str).collect::<Vec<_>>());
        let shaped = run(queries(col));
        let plain = run(queries(&format!("CONCAT({col}, '')")));
        assert_eq!(shaped, plain, "{col}");
    }
    // The matches are there to be found: every group has rows of 'w7'.
    let n = sql(&db, &["SELECT count(*) FROM s WHERE v = 'w7'"]);
    assert!(n.contains("300"), "{n}");
    let _ = fs::remove_dir_all(&db);
}

fn state(db: &Path, table: &str) -> String {
    let mut state = rows_state(db, table);
    if table == "ka" {
        // The AUTO_INCREMENT counter is state too: the id the next INSERT
        // takes, asked of a copy.
        let probe = db.with_extension("probe");
        copy_dir(db, &probe);
        state += &sql(
            &probe,
            &[
                "INSERT INTO ka (k, v, s) VALUES (-1, 0, 'probe')",
                "SELECT id FROM ka WHERE k = -1",
            ],
        );
        let _ = fs::remove_dir_all(&probe);
    }
    state
}

fn rows_state(db: &Path, table: &str) -> String {
    let out = quiver(&[
        "--db",
        db.to_str().unwrap(),
        "sql",
        "--format",
        "csv",
        "-e",
        &format!("SELECT count(*), sum(k), sum(v), min(s), max(s), sum(length(s)) FROM {table}"),
    ]);
    if out.status.success() {
        String::from_utf8(out.stdout).unwrap()
    } else {
        // "doesn't exist" is a state too (before CREATE TABLE AS).
        String::from_utf8_lossy(&out.stderr).to_string()
    }
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = fs::remove_dir_all(to);
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

/// xorshift: random delays without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn killed_writes_leave_the_old_or_the_new_state() {
    let db = make_db("crash");
    let reference = db.with_extension("ref");
    let csv = db.with_extension("more.csv");
    write_csv(&csv, 1_000_000, 150_000);
    let dbs = db.to_str().unwrap().to_string();
    let ops: Vec<(&str, Vec<String>)> = vec![
        (
            "t",
            vec!["load".into(), "t".into(), csv.to_str().unwrap().into()],
        ),
        (
            "t",
            vec![
                "sql".into(),
                "-e".into(),
                "INSERT INTO t SELECT k + 5000000, v, s FROM t WHERE k < 100000".into(),
            ],
        ),
        (
            "t2",
            vec![
                "sql".into(),
                "-e".into(),
                "CREATE TABLE t2 AS SELECT * FROM t WHERE k % 2 = 0".into(),
            ],
        ),
        (
            "t",
            vec![
                "sql".into(),
                "-e".into(),
                // A residue not deleted before, whatever the rounds before left.
                "DELETE FROM t WHERE k % 97 = ROUND".into(),
            ],
        ),
        (
            "t",
            vec![
                "sql".into(),
                "-e".into(),
                "UPDATE t SET v = v + 1 WHERE k % 89 = ROUND".into(),
            ],
        ),
        // A table with keys and an AUTO_INCREMENT counter (kept in the
        // manifest): numbered rows, then a DELETE of the newest (whatever
        // the INSERT before left) so that the counter is past the largest id.
        (
            "ka",
            vec![
                "sql".into(),
                "-e".into(),
                "INSERT INTO ka (k, v, s) SELECT k + 10000000 * (ROUND + 1), v, s FROM t WHERE k < 60000"
                    .into(),
            ],
        ),
        (
            "ka",
            vec![
                "sql".into(),
                "-e".into(),
                "DELETE FROM ka WHERE id > (SELECT MAX(id) - 5000 FROM ka)".into(),
            ],
        ),
    ];
    sql(
        &db,
        &[
            "CREATE TABLE ka (id BIGINT PRIMARY KEY AUTO_INCREMENT, k BIGINT, v BIGINT, \
             s VARCHAR(40), UNIQUE KEY uk (k))",
            "INSERT INTO ka (k, v, s) SELECT k, v, s FROM t WHERE k < 100000",
        ],
    );
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let mut rng = Rng(seed | 1);
    let (mut old_seen, mut new_seen, mut mid_write) = (0, 0, 0);
    for round in 0..4 {
        for (table, args) in &ops {
            let args: Vec<String> = args
                .iter()
                .map(|a| a.replace("ROUND", &round.to_string()))
                .collect();
            let old = state(&db, table);
            // The new state: the same operation, uninterrupted, on a copy.
            copy_dir(&db, &reference);
            let started = Instant::now();
            let refdb = reference.to_str().unwrap().to_string();
            let mut full = vec!["--db".to_string(), refdb];
            full.extend(args.iter().cloned());
            let out = Command::new(QUIVER).args(&full).output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let took = started.elapsed();
            let new = state(&reference, table);
            assert_ne!(old, new, "{args:?} changes the table");
            // The same on the database, killed after a random delay within
            // (and a little past) the time it takes.
            let delay = Duration::from_micros(rng.next() % (took.as_micros() as u64 * 6 / 5 + 1));
            let mut full = vec!["--db".to_string(), dbs.clone()];
            full.extend(args.iter().cloned());
            let mut child = Command::new(QUIVER)
                .args(&full)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            std::thread::sleep(delay);
            let _ = child.kill(); // SIGKILL
            let _ = child.wait();
            // Files a write leaves behind only when killed in the middle of it:
            // a second data file, a manifest not yet renamed, a folder without
            // a manifest.
            let dir = db.join("tables").join(table);
            let names: Vec<String> = fs::read_dir(&dir)
                .map(|d| {
                    d.flatten()
                        .map(|e| e.file_name().to_string_lossy().to_string())
                        .collect()
                })
                .unwrap_or_default();
            let data_files = names.iter().filter(|n| n.starts_with("data-")).count();
            let left_files = dir.exists()
                && (data_files > 1
                    || names.iter().any(|n| n == "table.meta.tmp")
                    || !names.iter().any(|n| n == "table.meta"));
            if left_files {
                mid_write += 1;
            }
            // `quiver check` reports them (without removing them) ...
            let listed = check(&db, &["--format", "json"]);
            assert_eq!(
                String::from_utf8_lossy(&listed.stdout).contains("\"leftovers\":[{"),
                left_files,
                "{names:?}: {}",
                String::from_utf8_lossy(&listed.stdout)
            );
            // ... and the next process that opens the folder removes them.
            let now = state(&db, table);
            assert!(
                now == old || now == new,
                "round {round}, {args:?} killed after {delay:?}: {now}\nold: {old}\nnew: {new}"
            );
            if now == old {
                old_seen += 1;
            } else {
                new_seen += 1;
            }
            let out = check(&db, &[]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                !String::from_utf8_lossy(&out.stderr).contains("leftover"),
                "opening the folder left: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            if *table == "t2" && now == new {
                sql(&db, &["DROP TABLE t2"]);
            }
        }
    }
    eprintln!(
        "killed writes: {old_seen} left the old state, {new_seen} the new one; \
         {mid_write} were killed in the middle of writing files"
    );
    let _ = fs::remove_dir_all(&db);
    let _ = fs::remove_dir_all(&reference);
    let _ = fs::remove_file(&csv);
}
