//! Real MySQL clients against the server: the `mariadb` command-line client,
//! PyMySQL and mysql-connector-python (pure and C extension, through
//! scripts/server/client_check.py), and Go's go-sql-driver/mysql
//! (scripts/server/go_check); binary strings through the Python clients
//! (scripts/server/binary_check.py). They must be installed:
//! `scripts/server/setup_clients.sh` does it (CI runs it before the tests).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use quiver_engine::Database;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn require(tool: &Path) {
    assert!(
        tool.exists() || which(tool).is_some(),
        "{} is missing: run scripts/server/setup_clients.sh (it installs the mariadb client and a venv with PyMySQL and mysql-connector-python)",
        tool.display()
    );
}

fn which(tool: &Path) -> Option<PathBuf> {
    if tool.components().count() > 1 {
        return None;
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(tool))
            .find(|p| p.is_file())
    })
}

fn python() -> PathBuf {
    let venv = std::env::var_os("QUIVER_CLIENT_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/server-clients-venv"));
    venv.join("bin/python")
}

fn mariadb(port: u16, user: &str, password: &str, args: &[&str]) -> Output {
    let mut cmd = Command::new("mariadb");
    cmd.args([
        "--no-defaults",
        "--default-character-set=utf8mb4",
        "--protocol=TCP",
        "-h127.0.0.1",
    ])
    .arg(format!("-P{port}"))
    .arg(format!("-u{user}"));
    if !password.is_empty() {
        cmd.arg(format!("-p{password}"));
    }
    cmd.args(args).output().expect("run mariadb")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn mariadb_command_line_client() {
    require(Path::new("mariadb"));
    let dir = std::env::temp_dir().join(format!("quiver-real-mariadb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (h, _db) = start_with(Database::open(&dir).unwrap(), Default::default());
    let port = h.local_addr().port();

    let out = mariadb(
        port,
        "root",
        "",
        &[
            "quiver",
            "-e",
            "CREATE TABLE t (id INT, name VARCHAR(20), price DECIMAL(6,2), d DATE); \
             INSERT INTO t VALUES (1, 'one', 1.5, '2024-01-31'), (2, NULL, NULL, NULL); \
             SELECT * FROM t ORDER BY id; \
             CREATE USER alice IDENTIFIED WITH caching_sha2_password BY 'secret'; \
             CREATE USER bob IDENTIFIED BY 'hunter2'; \
             SELECT DATABASE(), USER()",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "id\tname\tprice\td\n1\tone\t1.50\t2024-01-31\n2\tNULL\tNULL\tNULL\nDATABASE()\tUSER()\nquiver\troot@127.0.0.1\n"
    );

    // Both plugins from the client's side, and a wrong password.
    for (user, pw) in [("alice", "secret"), ("bob", "hunter2")] {
        let out = mariadb(port, user, pw, &["-N", "-e", "SELECT count(*) FROM t"]);
        assert!(out.status.success(), "{user}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "2\n");
        let out = mariadb(port, user, "wrong", &["-e", "SELECT 1"]);
        assert!(!out.status.success());
        assert!(
            text(&out.stderr).contains(&format!(
                "ERROR 1045 (28000): Access denied for user '{user}'"
            )),
            "{}",
            text(&out.stderr)
        );
    }

    // Errors as the client prints them, with the exit status.
    let out = mariadb(port, "root", "", &["quiver", "-e", "SELECT * FROM nope"]);
    assert_eq!(out.status.code(), Some(1));
    // (This client echoes the failing statement above the error.)
    assert!(
        text(&out.stderr)
            .ends_with("\nERROR 1146 (42S02) at line 1: Table 'quiver.nope' doesn't exist\n"),
        "{}",
        text(&out.stderr)
    );

    // What the interactive client runs for `status`, and column metadata.
    let out = mariadb(port, "root", "", &["quiver", "-e", "status"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let status = text(&out.stdout);
    assert!(
        status.contains("Server version:\t\t8.0.40-Quiver"),
        "{status}"
    );
    assert!(status.contains("Current database:\tquiver"), "{status}");
    let out = mariadb(
        port,
        "root",
        "",
        &[
            "quiver",
            "-t",
            "--column-type-info",
            "-e",
            "SELECT id, name FROM t LIMIT 1",
        ],
    );
    let info = text(&out.stdout);
    assert!(info.contains("Type:       LONG\n"), "{info}");
    // Strings in the result collation the client asked for in its handshake.
    assert!(
        info.contains("Collation:  utf8mb4_general_ci (45)"),
        "{info}"
    );

    // A script through standard input, with a DELIMITER-free batch of statements.
    let mut child = Command::new("mariadb")
        .args([
            "--no-defaults",
            "--protocol=TCP",
            "-h127.0.0.1",
            "-uroot",
            "quiver",
        ])
        .arg(format!("-P{port}"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"SHOW TABLES;\nSELECT name FROM t WHERE id = 1;\nSHOW DATABASES;\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        text(&out.stdout),
        "Tables_in_quiver\nt\nname\none\nDatabase\ninformation_schema\nquiver\n"
    );
    h.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs a Python client check script of scripts/server against a fresh
/// in-memory server; it must end with `ALL PASSED`.
fn python_check(script: &str) {
    let py = python();
    require(&py);
    let (h, _db) = start_with(Database::in_memory(), Default::default());
    let out = Command::new(&py)
        .arg(workspace().join("scripts/server").join(script))
        .arg("127.0.0.1")
        .arg(h.local_addr().port().to_string())
        .output()
        .expect("run python");
    let stdout = text(&out.stdout);
    assert!(
        out.status.success() && stdout.ends_with("ALL PASSED\n"),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    h.shutdown();
}

#[test]
fn pymysql_and_mysql_connector_python() {
    python_check("client_check.py");
}

/// Binary strings through PyMySQL (bytes escaped into the statement text)
/// and mysql-connector-python's prepared cursor (bytes raw in
/// COM_STMT_EXECUTE): VARBINARY and BLOB round trips of every byte value,
/// HEX(), type codes and charset 63, and MariaDB's 1366 for bytes that are
/// not UTF-8 in a text column. scripts/server/binary_check.py passes against
/// MariaDB 10.11 as well.
#[test]
fn binary_strings_through_python_clients() {
    let py = python();
    require(&py);
    let (h, _db) = start_with(Database::in_memory(), Default::default());
    let script = workspace().join("scripts/server/binary_check.py");
    let out = Command::new(&py)
        .arg(&script)
        .arg("127.0.0.1")
        .arg(h.local_addr().port().to_string())
        .output()
        .expect("run python");
    let stdout = text(&out.stdout);
    assert!(
        out.status.success() && stdout.ends_with("ALL PASSED\n"),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    for pass in [
        "PASS pymysql: bytes",
        "PASS mysql-connector-python (connector pure)",
        "PASS mysql-connector-python (connector C extension)",
    ] {
        assert!(stdout.contains(pass), "{stdout}");
    }
    h.shutdown();
}

/// The warning count of OK packets and of the EOF / OK that ends rows, and
/// SHOW WARNINGS after statements, through PyMySQL and both
/// mysql-connector-python cursors. scripts/server/warnings_check.py passes
/// against MariaDB 10.11 as well.
#[test]
fn warning_counts_through_python_clients() {
    python_check("warnings_check.py");
}

/// The `mariadb` client says how many warnings a statement raised.
#[test]
fn the_mariadb_client_prints_the_warning_count() {
    require(Path::new("mariadb"));
    let (h, _db) = start_with(Database::in_memory(), Default::default());
    let out = mariadb(
        h.local_addr().port(),
        "root",
        "",
        &[
            "-Dquiver",
            "-vvv",
            "-e",
            "SELECT 1/0; DROP TABLE IF EXISTS nope",
        ],
    );
    let stdout = text(&out.stdout);
    assert!(stdout.contains("1 row in set, 1 warning"), "{stdout}");
    assert!(
        stdout.contains("Query OK, 0 rows affected, 1 warning"),
        "{stdout}"
    );
    h.shutdown();
}

#[test]
fn go_sql_driver_mysql() {
    let bin = std::env::var_os("QUIVER_GO_CHECK")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/server-go-check/gocheck"));
    require(&bin);
    let (h, _db) = start_with(Database::in_memory(), Default::default());
    let out = Command::new(&bin)
        .arg(h.local_addr().to_string())
        .output()
        .expect("run the Go check");
    let stdout = text(&out.stdout);
    assert!(
        out.status.success() && stdout.ends_with("ALL PASSED\n"),
        "{stdout}\n{}",
        text(&out.stderr)
    );
}

/// `s` as a JSON string.
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// All 22 TPC-H queries at SF0.01 through PyMySQL (text protocol, values as
/// the server's text) equal the embedded session's answers, row by row.
/// tests/tpch.rs does the same with the test's own client over both protocols.
#[test]
fn tpch_queries_through_pymysql_equal_the_embedded_results() {
    let py = python();
    require(&py);
    let db = Database::in_memory();
    quiver_tpch::generate(&db, 0.01, &|_, _| {}).expect("generate SF0.01");
    let embedded = quiver_engine::Session::new(db.clone(), Default::default());
    let mut cases = vec![];
    for n in 1..=22 {
        let sql = quiver_tpch::query(n).unwrap();
        let rows = match embedded.query(sql).unwrap() {
            quiver_engine::StatementResult::Rows { batches, .. } => {
                quiver_engine::format::rows_as_text(&batches).unwrap()
            }
            other => panic!("Q{n}: {other:?}"),
        };
        let rows: Vec<String> = rows
            .iter()
            .map(|r| {
                let cells: Vec<String> = r
                    .iter()
                    .map(|v| v.as_deref().map_or("null".to_string(), json_string))
                    .collect();
                format!("[{}]", cells.join(","))
            })
            .collect();
        cases.push(format!(
            "{{\"n\":{n},\"sql\":{},\"rows\":[{}]}}",
            json_string(sql),
            rows.join(",")
        ));
    }
    let file = std::env::temp_dir().join(format!("quiver-tpch-check-{}.json", std::process::id()));
    std::fs::write(&file, format!("[{}]", cases.join(",\n"))).unwrap();
    let (h, _db) = start_with(db, Default::default());
    let out = Command::new(&py)
        .arg(workspace().join("scripts/server/tpch_check.py"))
        .arg("127.0.0.1")
        .arg(h.local_addr().port().to_string())
        .arg(&file)
        .output()
        .expect("run python");
    let _ = std::fs::remove_file(&file);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success() && stdout.ends_with("ALL PASSED\n"),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    assert_eq!(stdout.matches("PASS Q").count(), 22, "{stdout}");
    h.shutdown();
}
