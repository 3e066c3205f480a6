//! The command-line contract that scripts rely on: output formats, error
//! lines and exit codes, persistence of a database folder, loading, TPC-H.

use std::path::PathBuf;
use std::process::{Command, Output};

fn quiver(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quiver"))
        .args(args)
        .output()
        .expect("run quiver")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quiver-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn csv_output_has_header_quoting_and_null() {
    let o = quiver(&[
        "sql",
        "--format",
        "csv",
        "-e",
        "SELECT 1 + 1 AS two, 'a,b' AS s, NULL AS n, 7 / 2 AS q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "two,s,n,q\n2,\"a,b\",NULL,3.5000\n");
}

/// MySQL names a select item without an alias by its text as written
/// (spacing and case kept); the expected header is what MariaDB 10.11 names
/// the same items.
#[test]
fn unaliased_columns_are_named_by_their_text() {
    let o = quiver(&[
        "sql",
        "--format",
        "csv",
        "-e",
        "CREATE TABLE t (a INT); INSERT INTO t VALUES (1)",
        "-e",
        "SELECT a*3, COUNT(*), count(*), a  +  1, 'str', t.a, UPPER('x'), a MOD 2, 1.50, -a,\n  sum(a), LOCATE('b','abc'), concat( a ,'x' ), COALESCE(NULL,(a)), ((a))\n FROM t GROUP BY a",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let header = stdout(&o).lines().next().unwrap_or_default().to_string();
    assert_eq!(
        header,
        "a*3,COUNT(*),count(*),a  +  1,str,a,UPPER('x'),a MOD 2,1.50,-a,sum(a),\"LOCATE('b','abc')\",\"concat( a ,'x' )\",\"COALESCE(NULL,(a))\",a"
    );
}

/// The item's text runs from its first token to its last, though
/// sqlparser's spans leave out leading and trailing keywords and
/// parentheses; literals are named as MariaDB names them, and a view keeps
/// the names its query's items had. Expected headers from MariaDB 10.11.
#[test]
fn unaliased_columns_are_named_from_first_to_last_token() {
    let o = quiver(&[
        "sql",
        "--format",
        "csv",
        "-e",
        "CREATE TABLE t (a INT)",
        "-e",
        "SELECT (1/3)*3, - 1, +1, ((1+2)), null, true, 1.0e3, x'41', 0x41, CAST(a AS CHAR), a IS NOT NULL, EXTRACT(YEAR_MONTH FROM '2020-01-01'), '2020-01-01' + INTERVAL 1 DAY, 2 /* c */ + 3, (SELECT 1), '   x', -(1), CASE WHEN a THEN 2 END, a -- trailing comment\n FROM t",
        "-e",
        "CREATE VIEW v AS SELECT (1/3)*3, a  +  1 FROM t",
        "-e",
        "SELECT * FROM v",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let headers: Vec<&str> = out.lines().collect();
    assert_eq!(
        headers,
        [
            "(1/3)*3,- 1,1,((1+2)),NULL,TRUE,1.0e3,x'41',0x41,CAST(a AS CHAR),a IS NOT NULL,EXTRACT(YEAR_MONTH FROM '2020-01-01'),'2020-01-01' + INTERVAL 1 DAY,2 /* c */ + 3,(SELECT 1),x,-(1),CASE WHEN a THEN 2 END,a",
            "(1/3)*3,a  +  1",
        ]
    );
}

#[test]
fn several_statements_print_each_result() {
    let o = quiver(&[
        "sql",
        "--format",
        "csv",
        "-e",
        "SELECT 1 AS a; SELECT 2 AS b",
        "-e",
        "SELECT 3 AS c",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "a\n1\nb\n2\nc\n3\n");
}

#[test]
fn errors_are_mysql_lines_with_exit_status_1() {
    let o = quiver(&["sql", "-e", "SELECT * FROM nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim(),
        "ERROR 1146 (42S02): Table 'quiver.nope' doesn't exist"
    );
    let o = quiver(&["sql", "-e", "SELEC 1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with("ERROR 1064 (42000): You have an error in your SQL syntax"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("panicked"));
}

#[test]
fn zero_threads_is_refused() {
    let o = quiver(&["--threads", "0", "sql", "-e", "SELECT 1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("invalid value '0' for '--threads <THREADS>': must be at least 1"),
        "{}",
        stderr(&o)
    );
    let o = quiver(&["sql", "--threads", "1", "-e", "SELECT 1"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn database_folder_persists_between_runs() {
    let dir = temp_dir("persist");
    let db = dir.to_str().unwrap();
    let o = quiver(&[
        "sql",
        "--db",
        db,
        "-e",
        "CREATE TABLE t (id INT, name VARCHAR(10), code CHAR(2) DEFAULT 'zz')",
        "-e",
        "INSERT INTO t (id, name) VALUES (1, 'x'), (2, NULL)",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Declared lengths and defaults survive reopening: DESCRIBE shows them and
    // INSERT still checks them (1406) and fills them in.
    let o = quiver(&["sql", "--db", db, "--format", "csv", "-e", "DESCRIBE t"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("name,varchar(10),YES,,NULL,\ncode,char(2),YES,,zz,\n"),
        "{}",
        stdout(&o)
    );
    let o = quiver(&[
        "sql",
        "--db",
        db,
        "-e",
        "INSERT INTO t VALUES (3, 'y', 'abc')",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim(),
        "ERROR 1406 (22001): Data too long for column 'code' at row 1"
    );
    let o = quiver(&[
        "sql",
        "--db",
        db,
        "--format",
        "csv",
        "-e",
        "SELECT id, name, code FROM t ORDER BY id DESC",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "id,name,code\n2,NULL,zz\n1,x,zz\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn load_parquet_keeps_types_and_nulls() {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Date32Array, Decimal128Array, Float64Array, Int64Array};
    use arrow_array::{RecordBatch, StringArray};

    let dir = temp_dir("parquet");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("items.parquet");
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(Int64Array::from(vec![1, 2, 3]))),
        (
            "name",
            Arc::new(StringArray::from(vec![
                Some("pen"),
                None,
                Some("ink, blue"),
            ])),
        ),
        // 2024-02-29, 1970-01-01, 1999-12-31 as days since the epoch.
        ("day", Arc::new(Date32Array::from(vec![19782, 0, 10956]))),
        (
            "price",
            Arc::new(
                Decimal128Array::from(vec![Some(150), Some(-2), None])
                    .with_precision_and_scale(15, 2)
                    .unwrap(),
            ),
        ),
        ("weight", Arc::new(Float64Array::from(vec![0.5, 2.0, 1e-3]))),
        // Milliseconds: a DATETIME(3) (2024-02-29 10:00:00.5, the epoch, NULL).
        (
            "seen",
            Arc::new(arrow_array::TimestampMillisecondArray::from(vec![
                Some(1_709_200_800_500),
                Some(0),
                None,
            ])),
        ),
    ];
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(
        std::fs::File::create(&file).unwrap(),
        batch.schema(),
        None,
    )
    .unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();

    let db = dir.join("db");
    let db = db.to_str().unwrap();
    let o = quiver(&["load", "--db", db, "items", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = quiver(&[
        "sql",
        "--db",
        db,
        "--format",
        "csv",
        "-e",
        "SELECT id, name, day, price, weight * 2 AS w2, seen FROM items ORDER BY id",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "id,name,day,price,w2,seen\n1,pen,2024-02-29,1.50,1,2024-02-29 10:00:00.500\n\
         2,NULL,1970-01-01,-0.02,4,1970-01-01 00:00:00.000\n\
         3,\"ink, blue\",1999-12-31,NULL,0.002,NULL\n"
    );
    let o = quiver(&["sql", "--db", db, "-e", "DESCRIBE items", "--format", "csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let described = stdout(&o);
    assert!(described.contains("price,\"decimal(15,2)\""), "{described}");
    assert!(described.contains("day,date"), "{described}");
    assert!(described.contains("seen,datetime(3)"), "{described}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Parquet BINARY columns of UTF-8 bytes load as text that queries can use;
/// a nested column is refused at load time naming it, and no table is made.
#[test]
fn load_parquet_binary_as_text_and_refuses_lists() {
    use std::sync::Arc;

    use arrow_array::types::Int64Type;
    use arrow_array::{ArrayRef, BinaryArray, Int64Array, ListArray, RecordBatch};

    let dir = temp_dir("parquet-binary");
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, columns: Vec<(&str, ArrayRef)>| {
        let file = dir.join(name);
        let batch = RecordBatch::try_from_iter(columns).unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(
            std::fs::File::create(&file).unwrap(),
            batch.schema(),
            None,
        )
        .unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        file.to_str().unwrap().to_string()
    };
    let bytes = write(
        "bytes.parquet",
        vec![
            ("id", Arc::new(Int64Array::from(vec![1, 2, 3]))),
            (
                "word",
                Arc::new(BinaryArray::from_opt_vec(vec![
                    Some(b"pen"),
                    None,
                    Some(b"ink"),
                ])),
            ),
        ],
    );
    let lists = write(
        "lists.parquet",
        vec![
            ("id", Arc::new(Int64Array::from(vec![1]))),
            (
                "tags",
                Arc::new(ListArray::from_iter_primitive::<Int64Type, _, _>(vec![
                    Some(vec![Some(1)]),
                ])),
            ),
        ],
    );
    let db = dir.join("db");
    let db = db.to_str().unwrap();
    let o = quiver(&["load", "--db", db, "words", &bytes]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = quiver(&[
        "sql",
        "--db",
        db,
        "--format",
        "csv",
        "-e",
        "SELECT id, word, UPPER(word) AS up FROM words WHERE word <> 'ink' OR word IS NULL ORDER BY id",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "id,word,up\n1,pen,PEN\n2,NULL,NULL\n");
    let o = quiver(&["load", "--db", db, "tagged", &lists]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stderr(&o).trim(),
        "ERROR 1235 (42000): This version of Quiver doesn't yet support \
         'Parquet column `tags` of type LIST<Int64>'"
    );
    let o = quiver(&["sql", "--db", db, "--format", "csv", "-e", "SHOW TABLES"]);
    assert_eq!(stdout(&o), "Tables_in_quiver\nwords\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn load_csv_infers_types() {
    let dir = temp_dir("load");
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("people.csv");
    std::fs::write(
        &csv,
        "id,name,born,score\n1,Ann,1990-02-03,1.5\n2,\"Bo, Jr\",1985-12-31,2.25\n",
    )
    .unwrap();
    let db = dir.join("db");
    let o = quiver(&[
        "load",
        "--db",
        db.to_str().unwrap(),
        "people",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = quiver(&[
        "sql",
        "--db",
        db.to_str().unwrap(),
        "--format",
        "csv",
        "-e",
        "SELECT name, born + INTERVAL 1 DAY AS next, score * 2 AS s FROM people WHERE id = 2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "name,next,s\n\"Bo, Jr\",1986-01-01,4.50\n");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A CSV file that cannot be a table is refused whole, with the row it
/// goes wrong at (the file's line) in the loader's MySQL-style error, and no
/// table is made.
#[test]
fn load_csv_refuses_bad_files_naming_the_row() {
    let dir = temp_dir("load-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("db");
    let db = db.to_str().unwrap();
    let cases = [
        (
            "a,b\n1,x\n2,\"oops\n3,z\n",
            "ERROR 1300 (HY000): {}: row 3, column 'b': quoted field is never closed",
        ),
        (
            "a,b\n1,2\n3,4,5\n",
            "ERROR 1262 (01000): {}: row 3 has 3 fields, table has 2 columns",
        ),
        (
            "a,a\n1,2\n",
            "ERROR 1060 (42S21): Duplicate column name 'a'",
        ),
        ("a,\n1,2\n", "ERROR 1166 (42000): Incorrect column name ''"),
    ];
    for (i, (text, expected)) in cases.into_iter().enumerate() {
        let csv = dir.join(format!("bad{i}.csv"));
        std::fs::write(&csv, text).unwrap();
        let csv = csv.to_str().unwrap();
        let o = quiver(&["load", "--db", db, "t", csv]);
        assert_eq!(o.status.code(), Some(1), "{text:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).trim(), expected.replace("{}", csv), "{text:?}");
        let o = quiver(&["sql", "--db", db, "--format", "csv", "-e", "SHOW TABLES"]);
        assert_eq!(stdout(&o), "Tables_in_quiver\n", "{text:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Types come from the first rows, but a later value that does not fit
/// widens its column instead of failing the load.
#[test]
fn load_csv_widens_a_column_for_a_late_value() {
    let dir = temp_dir("load-widen");
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("late.csv");
    let mut text = String::from("n,code\n");
    for i in 1..=20_000 {
        text.push_str(&format!("{i},\"{i}\"\n"));
    }
    text.push_str("1.5,A7\n");
    std::fs::write(&csv, text).unwrap();
    let db = dir.join("db");
    let db = db.to_str().unwrap();
    let o = quiver(&["load", "--db", db, "t", csv.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("Loaded 20001 rows into t"),
        "{}",
        stderr(&o)
    );
    let o = quiver(&[
        "sql",
        "--db",
        db,
        "--format",
        "csv",
        "-e",
        "SELECT COUNT(*) AS c, SUM(n) AS s, MIN(code) AS lo, MAX(code) AS hi FROM t",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // 1 + ... + 20000 = 200010000, and 1.5 more; codes compare as strings.
    assert_eq!(stdout(&o), "c,s,lo,hi\n20001,200010001.5,1,A7\n");
    let o = quiver(&["sql", "--db", db, "--format", "csv", "-e", "DESCRIBE t"]);
    assert!(stdout(&o).contains("n,\"decimal(18,1)\""), "{}", stdout(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn memory_limit_stops_the_query_with_an_error() {
    let o = quiver(&[
        "sql",
        "--memory-limit",
        "64K",
        "-e",
        "SELECT a.x FROM (SELECT 1 AS x UNION ALL SELECT 2) a ORDER BY a.x",
    ]);
    // Tiny inputs fit; now a big one that cannot.
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = temp_dir("mem");
    let db = dir.to_str().unwrap();
    let o = quiver(&["tpch", "gen", "--sf", "0.01", "--db", db]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = quiver(&[
        "sql",
        "--db",
        db,
        "--memory-limit",
        "1M",
        "-e",
        "SELECT l_comment FROM lineitem ORDER BY l_comment",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with("ERROR 1041 (HY001)"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("memory limit of 1 MiB;"),
        "{}",
        stderr(&o)
    );
    // A limit under 1 MiB is shown in the unit it was given in, not as 0 MiB.
    let o = quiver(&[
        "sql",
        "--db",
        db,
        "--memory-limit",
        "100K",
        "-e",
        "SELECT l_comment FROM lineitem ORDER BY l_comment",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("memory limit of 100 KiB;"),
        "{}",
        stderr(&o)
    );
    // A result is held whole to print a table, so it counts against the
    // limit; CSV streams, so an export larger than the limit goes through.
    let all = "SELECT l_orderkey, l_comment FROM lineitem";
    let table = quiver(&["sql", "--db", db, "--memory-limit", "1M", "-e", all]);
    assert!(
        stderr(&table).starts_with("ERROR 1041"),
        "{}",
        stderr(&table)
    );
    let csv = quiver(&[
        "sql",
        "--db",
        db,
        "--memory-limit",
        "1M",
        "--format",
        "csv",
        "-e",
        all,
    ]);
    assert!(csv.status.success(), "{}", stderr(&csv));
    let text = stdout(&csv);
    assert!(text.len() > 1 << 20, "only {} bytes", text.len());
    let count = quiver(&[
        "sql",
        "--db",
        db,
        "--format",
        "csv",
        "-e",
        "SELECT COUNT(*) FROM lineitem",
    ]);
    let rows: usize = stdout(&count).lines().nth(1).unwrap().parse().unwrap();
    assert_eq!(text.lines().count(), rows + 1, "header and every row");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tpch_runs_must_be_at_least_one() {
    let dir = temp_dir("tpch-runs");
    let db = dir.to_str().unwrap();
    for args in [
        &["tpch", "run", "--db", db, "--runs", "0"][..],
        &["tpch", "--db", db, "--runs", "0"][..],
    ] {
        let o = quiver(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("invalid value '0' for '--runs <RUNS>': must be at least 1"),
            "{args:?}: {}",
            stderr(&o)
        );
        assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
    }
    // Nothing was generated for the refused command.
    assert!(!dir.exists());
}

#[test]
fn tpch_run_prints_the_csv_contract() {
    let dir = temp_dir("tpch");
    let db = dir.to_str().unwrap();
    let o = quiver(&["tpch", "gen", "--sf", "0.01", "--db", db]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = quiver(&[
        "tpch",
        "run",
        "--db",
        db,
        "--runs",
        "1",
        "--threads",
        "2",
        "--format",
        "csv",
        "--queries",
        "1,6",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "query,rows,median_s");
    assert!(lines[1].starts_with("q1,4,"), "{out}");
    assert!(lines[2].starts_with("q6,1,"), "{out}");
    // A reader that has gone (`| head -0`): no panic, no stack trace, status 0.
    let mut child = Command::new(env!("CARGO_BIN_EXE_quiver"))
        .args([
            "tpch",
            "run",
            "--db",
            db,
            "--runs",
            "1",
            "--format",
            "csv",
            "--queries",
            "6",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .env("RUST_BACKTRACE", "1")
        .spawn()
        .expect("run quiver");
    drop(child.stdout.take());
    let o = child.wait_with_output().expect("quiver ends");
    assert!(o.status.success(), "{:?}: {}", o.status, stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn show_tables_describe_and_explain() {
    let setup = "CREATE TABLE a (id INT NOT NULL, name VARCHAR(10) DEFAULT 'x'); \
                 CREATE TABLE b (id INT, a_id INT); \
                 INSERT INTO a VALUES (1, 'p'), (2, 'q'); INSERT INTO b VALUES (10, 1), (11, 1), (12, 3)";
    let o = quiver(&[
        "sql",
        "--format",
        "csv",
        "-e",
        setup,
        "-e",
        "SHOW TABLES",
        "-e",
        "DESCRIBE a",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Tables_in_quiver\na\nb\n"), "{out}");
    assert!(
        out.contains(
            "Field,Type,Null,Key,Default,Extra\nid,int,NO,,NULL,\nname,varchar(10),YES,,x,\n"
        ),
        "{out}"
    );

    let join = "SELECT a.name, COUNT(*) FROM a JOIN b ON b.a_id = a.id GROUP BY a.name";
    let o = quiver(&[
        "sql",
        "--format",
        "csv",
        "-e",
        setup,
        "-e",
        &format!("EXPLAIN {join}"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let plan = stdout(&o);
    assert!(
        plan.contains("HashJoin Inner")
            && plan.contains("HashAggregate")
            && plan.contains("Scan b"),
        "{plan}"
    );
    assert!(
        !plan.contains("rows="),
        "EXPLAIN does not run the query: {plan}"
    );

    let o = quiver(&[
        "sql",
        "--format",
        "csv",
        "-e",
        setup,
        "-e",
        &format!("EXPLAIN ANALYZE {join}"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let plan = stdout(&o);
    // Per-operator rows and time: two b rows find their a row; one group.
    let line = |op: &str| {
        plan.lines()
            .find(|l| l.contains(op))
            .unwrap_or_default()
            .to_string()
    };
    assert!(line("HashJoin Inner").contains("(rows=2 time="), "{plan}");
    assert!(line("HashAggregate").contains("(rows=1 time="), "{plan}");
    assert!(line("Scan b").contains("(rows=3 time="), "{plan}");
    assert!(plan.contains("Total: 1 rows in"), "{plan}");
}

/// `-e` / `-f` scripts run statement by statement: the statements before a
/// syntax error have run (and printed) when it stops, as `mysql` in batch mode.
#[test]
fn a_script_runs_until_its_first_error() {
    let dir = temp_dir("script");
    let db = dir.to_str().unwrap();
    let o = quiver(&[
        "sql",
        "--db",
        db,
        "--format",
        "csv",
        "-e",
        "CREATE TABLE t (a INT); INSERT INTO t VALUES (1); SELECT a FROM t;\nSELEC oops; INSERT INTO t VALUES (2)",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stdout(&o), "a\n1\n");
    let err = stderr(&o);
    assert!(err.starts_with("ERROR 1064 (42000)"), "{err}");
    // The line is counted from the failing statement, as mysql does.
    assert!(err.contains("at line 1"), "{err}");
    let o = quiver(&[
        "sql",
        "--db",
        db,
        "--format",
        "csv",
        "-e",
        "SELECT count(*) AS n FROM t",
    ]);
    assert_eq!(stdout(&o), "n\n1\n", "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Statements piped into `quiver` (no tty) run as a script; an error ends it
/// with status 1 and nothing after it runs.
#[test]
fn piped_statements_stop_at_an_error_with_status_1() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_quiver"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run quiver");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"SELECT 40 + 2 AS answer;\nSELECT * FROM nowhere;\nSELECT 'after' AS x;\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("42"), "{out}");
    assert!(!out.contains("after"), "{out}");
    assert!(
        stderr(&o).starts_with("ERROR 1146 (42S02)"),
        "{}",
        stderr(&o)
    );
}

fn quiver_with_stdin(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_quiver"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run quiver");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// The shell takes `exit`, `quit`, `\q` (with or without `;`) as the end of
/// the session and `help`, `\h`, `?` as a request for help, as the mysql
/// client does, also with its input piped; they are SQL inside a statement.
#[test]
fn piped_shell_takes_client_commands() {
    for quit in ["exit", "quit", "\\q", "exit;", "QUIT ;", "\\q;"] {
        let o = quiver_with_stdin(
            &[],
            &format!("SELECT 40 + 2 AS answer;\n{quit}\nSELECT 'after' AS x;\n"),
        );
        assert!(o.status.success(), "{quit}: {}", stderr(&o));
        assert!(stdout(&o).contains("42"), "{quit}: {}", stdout(&o));
        assert!(!stdout(&o).contains("after"), "{quit}: {}", stdout(&o));
        assert_eq!(stderr(&o), "", "{quit}");
    }
    for help in ["help", "help;", "\\h", "?"] {
        let o = quiver_with_stdin(&[], &format!("{help}\nSELECT 7 AS seven;\n"));
        assert!(o.status.success(), "{help}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(out.contains("exit, quit, \\q"), "{help}: {out}");
        assert!(out.contains("| seven |"), "{help}: {out}");
    }
    // Inside an unfinished statement the words are the statement's.
    let o = quiver_with_stdin(&[], "SELECT\nquit\nFROM (SELECT 3 AS quit) t;\nexit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("| quit |"), "{}", stdout(&o));
}

/// JSON output: numbers and booleans bare, strings quoted, NULL as null
/// (also a bare NULL literal's column).
#[test]
fn json_output_types_values() {
    let o = quiver(&[
        "sql",
        "--format",
        "json",
        "-e",
        "SELECT 1 AS i, 2.50 AS d, 'x\"y' AS s, NULL AS n, 1 < 2 AS b, CAST(NULL AS SIGNED) AS m",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("\"i\": 1"), "{out}");
    assert!(out.contains("\"d\": 2.50"), "{out}");
    assert!(out.contains("\"s\": \"x\\\"y\""), "{out}");
    assert!(out.contains("\"n\": null"), "{out}");
    assert!(out.contains("\"b\": 1"), "{out}");
    assert!(out.contains("\"m\": null"), "{out}");
}

/// A leading `-- comment` line is SQL, not an option.
#[test]
fn execute_accepts_a_leading_comment_line() {
    let o = quiver(&[
        "sql",
        "--format",
        "csv",
        "-e",
        "-- first a comment\nSELECT 5 AS five",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "five\n5\n");
}

/// `quiver sql < script.sql` runs the script, as `mysql < script.sql` does
/// (it once refused: "nothing to run"); with --format csv for machines.
#[test]
fn sql_reads_statements_from_standard_input() {
    let o = quiver_with_stdin(
        &["sql", "--format", "csv"],
        "CREATE TABLE p (b VARBINARY(4));\nINSERT INTO p VALUES (X'41FF');\nSELECT HEX(b) AS h, LENGTH(b) AS n FROM p;\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).ends_with("h,n\n41FF,2\n"), "{}", stdout(&o));
}

/// A binary value that is not UTF-8 shows as 0x.. hex in a table, never as
/// replacement characters; UTF-8 bytes show as their text.
#[test]
fn binary_values_show_as_text_or_hex() {
    let o = quiver(&["sql", "-e", "SELECT X'41FF' AS a, _binary'ok' AS b"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("| 0x41FF |") && out.contains("| ok "), "{out}");
}

/// A YEAR column loads CSV values as text ('0' and '00' are 2000, '0000'
/// is 0000, as MariaDB's LOAD DATA reads them) and Parquet integers as
/// numbers (0 is 0000); a value that is no year fails the load with 1366.
#[test]
fn load_year_columns_from_csv_text_and_parquet_numbers() {
    use std::sync::Arc;

    let dir = temp_dir("load-year");
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("db");
    let db = db.to_str().unwrap();
    let o = quiver(&["sql", "--db", db, "-e", "CREATE TABLE yc (id INT, y YEAR)"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = quiver(&[
        "sql",
        "--db",
        db,
        "-e",
        "CREATE TABLE yp (id INT, y YEAR(4))",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = dir.join("y.csv");
    std::fs::write(&csv, "id,y\n1,0\n2,00\n3,69\n4,1999\n5,0000\n").unwrap();
    let o = quiver(&["load", "--db", db, "yc", csv.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "id,y\n6,abc\n").unwrap();
    let o = quiver(&["load", "--db", db, "yc", bad.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("1366"), "{}", stderr(&o));

    let file = dir.join("y.parquet");
    let batch = arrow_array::RecordBatch::try_from_iter(vec![
        (
            "id",
            Arc::new(arrow_array::Int64Array::from(vec![1, 2, 3])) as arrow_array::ArrayRef,
        ),
        (
            "y",
            Arc::new(arrow_array::Int64Array::from(vec![0, 69, 2001])) as arrow_array::ArrayRef,
        ),
    ])
    .unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(
        std::fs::File::create(&file).unwrap(),
        batch.schema(),
        None,
    )
    .unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let o = quiver(&["load", "--db", db, "yp", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));

    let sql = "SELECT id, y FROM yc ORDER BY id";
    let o = quiver(&["sql", "--db", db, "--format", "csv", "-e", sql]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "id,y\n1,2000\n2,2000\n3,2069\n4,1999\n5,0000\n");
    let sql = "SELECT id, y FROM yp ORDER BY id";
    let o = quiver(&["sql", "--db", db, "--format", "csv", "-e", sql]);
    assert_eq!(stdout(&o), "id,y\n1,0000\n2,2069\n3,2001\n");
    let _ = std::fs::remove_dir_all(&dir);
}
