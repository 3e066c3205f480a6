//! The server over loopback, spoken to by the test client in `common`.

mod common;

use std::io::Read;
use std::net::TcpStream;
use std::time::Duration;

use common::*;
use quiver_engine::Database;
use quiver_server::auth::Plugin;
use quiver_server::{Server, ServerConfig, SERVER_VERSION};

#[test]
fn handshake_queries_and_column_definitions() {
    let (h, _db) = default_server();
    let mut c = Client::root(h.local_addr());
    assert_eq!(c.server_version, SERVER_VERSION);
    // @@version agrees with the handshake.
    assert_eq!(
        c.query("SELECT @@version").scalar().as_deref(),
        Some(SERVER_VERSION)
    );
    assert_eq!(
        c.query("CREATE TABLE t (id INT NOT NULL, name VARCHAR(20) COLLATE utf8mb4_general_ci, price DECIMAL(10,2), d DATE, u BIGINT UNSIGNED)"),
        Outcome::Ok { affected: 0 }
    );
    assert_eq!(
        c.query("INSERT INTO t VALUES (1, 'a', 1.50, '2024-02-29', 18446744073709551615), (2, NULL, NULL, NULL, 0)"),
        Outcome::Ok { affected: 2 }
    );
    let r = c.query("SELECT id, name, price, d, u, 2.5e0 AS dbl, NULL AS n FROM t ORDER BY id");
    assert_eq!(
        r.rows(),
        &vec![
            vec![
                Some("1".into()),
                Some("a".into()),
                Some("1.50".into()),
                Some("2024-02-29".into()),
                Some("18446744073709551615".into()),
                Some("2.5".into()),
                None
            ],
            vec![
                Some("2".into()),
                None,
                None,
                None,
                Some("0".into()),
                Some("2.5".into()),
                None
            ],
        ]
    );
    let cols = r.columns();
    let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["id", "name", "price", "d", "u", "dbl", "n"]);
    // Type codes: LONG, VAR_STRING, NEWDECIMAL, DATE, LONGLONG, DOUBLE, NULL.
    let types: Vec<u8> = cols.iter().map(|c| c.ty).collect();
    assert_eq!(types, [3, 253, 246, 10, 8, 5, 6]);
    // Strings are named in the connection's result collation, which the
    // handshake set (45, utf8mb4_general_ci, from this client); numbers and
    // dates are binary (63). As MariaDB does.
    let charsets: Vec<u16> = cols.iter().map(|c| c.charset).collect();
    assert_eq!(charsets, [63, 45, 63, 63, 63, 63, 63]);
    assert_eq!(cols[2].decimals, 2);
    assert!(cols[4].flags & 32 != 0, "BIGINT UNSIGNED has UNSIGNED_FLAG");
    // MariaDB leaves BINARY_FLAG off a table's number columns (and sets it on
    // computed numbers and dates); tests/column_definitions.rs compares all.
    assert!(cols[0].flags & 128 == 0, "an INT column has no BINARY_FLAG");
    assert!(cols[3].flags & 128 != 0, "a DATE column has BINARY_FLAG");
    assert!(cols[1].flags & 128 == 0, "a _ci string is not BINARY");
    assert_eq!(cols[1].length, 20 * 4, "characters times utf8mb4's 4 bytes");
    let bin = c.query("CREATE TABLE b (s VARCHAR(5) COLLATE utf8mb4_bin)");
    assert_eq!(bin, Outcome::Ok { affected: 0 });
    let r = c.query("SELECT s, 'x' FROM b");
    assert_eq!(r.columns()[0].charset, 45);
    assert!(r.columns()[0].flags & 128 == 0, "strings are never BINARY");
    // SET NAMES changes the result collation; character_set_results = NULL
    // sends each column's own.
    c.query("SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci");
    let r = c.query("SELECT s, name, 'x' FROM b, t");
    let charsets: Vec<u16> = r.columns().iter().map(|c| c.charset).collect();
    assert_eq!(charsets, [224, 224, 224]);
    c.query("SET character_set_results = NULL");
    let r = c.query("SELECT s, name, 'x' FROM b, t");
    let charsets: Vec<u16> = r.columns().iter().map(|c| c.charset).collect();
    assert_eq!(charsets, [46, 45, 224]);
    // NOT_NULL (flag 1) as MariaDB 10.11 sets it on these result columns:
    // the same tables and SELECT against the oracle, read through PyMySQL's
    // cursor.description (null_ok), gave NN N NN N NN NN N NN N N N NN N NN.
    c.query("CREATE TABLE nn (a INT NOT NULL, b INT, s VARCHAR(5) NOT NULL)");
    c.query("INSERT INTO nn VALUES (1, 2, 'x')");
    let r = c.query(
        "SELECT 1, NULL, nn.a, nn.b, nn.s, COUNT(*), SUM(nn.a), nn.a+1, nn.b+1, nn.a/2, \
         CONCAT(nn.s,'y'), COALESCE(nn.b,0), x.a, 'lit' \
         FROM nn LEFT JOIN nn x ON nn.a = x.b GROUP BY nn.a, nn.b, nn.s, x.a",
    );
    let not_null: String = r
        .columns()
        .iter()
        .map(|c| if c.flags & 1 != 0 { 'N' } else { '-' })
        .collect();
    assert_eq!(not_null, "N-N-NN-N---N-N");
}

#[test]
fn errors_travel_with_code_and_sqlstate() {
    let (h, _db) = default_server();
    let mut c = Client::root(h.local_addr());
    match c.query("SELECT * FROM nope") {
        Outcome::Err {
            code,
            state,
            message,
        } => {
            assert_eq!((code, state.as_str()), (1146, "42S02"));
            assert_eq!(message, "Table 'quiver.nope' doesn't exist");
        }
        other => panic!("{other:?}"),
    }
    match c.query("SELEC 1") {
        Outcome::Err { code, state, .. } => assert_eq!((code, state.as_str()), (1064, "42000")),
        other => panic!("{other:?}"),
    }
    assert_eq!(c.query("").code(), 1065);
    // The connection is still usable after errors.
    assert_eq!(c.query("SELECT 7").scalar().as_deref(), Some("7"));
}

#[test]
fn multi_statements_give_one_result_each_and_stop_at_an_error() {
    let (h, _db) = default_server();
    let mut c = Client::root(h.local_addr());
    let all = c.query_all(
        "CREATE TABLE m (a INT); INSERT INTO m VALUES (1),(2),(3); SELECT sum(a) FROM m; SELECT 'x;y'",
    );
    assert_eq!(all.len(), 4, "{all:?}");
    assert_eq!(all[1], Outcome::Ok { affected: 3 });
    assert_eq!(all[2].scalar().as_deref(), Some("6"));
    assert_eq!(all[3].scalar().as_deref(), Some("x;y"));
    assert_eq!(c.status & 0x0008, 0, "no MORE_RESULTS after the last");

    let all = c.query_all("SELECT 1; SELECT * FROM nope; SELECT 3");
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[1].code(), 1146);

    // Without CLIENT_MULTI_STATEMENTS a second statement is a syntax error.
    let mut single = Client::connect(
        h.local_addr(),
        Options {
            caps: Options::default().caps & !CLIENT_MULTI_STATEMENTS,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(single.query("SELECT 1; SELECT 2").code(), 1064);
    // COM_SET_OPTION turns them on.
    single.command(0x1B, &0u16.to_le_bytes());
    let eof = single.read();
    assert_eq!(eof[0], 0xFE);
    assert_eq!(single.query_all("SELECT 1; SELECT 2").len(), 2);
    // A body of one byte is the option with a zero high byte, as MariaDB
    // reads it (not an error): 1 turns them off, 0 on; an empty body is 0.
    single.command(0x1B, &[1]);
    assert_eq!(single.read()[0], 0xFE);
    assert_eq!(single.query("SELECT 1; SELECT 2").code(), 1064);
    single.command(0x1B, &[0]);
    assert_eq!(single.read()[0], 0xFE);
    assert_eq!(single.query_all("SELECT 1; SELECT 2").len(), 2);
    single.command(0x1B, &[1, 0, 7]);
    assert_eq!(single.read()[0], 0xFE, "bytes after the option are ignored");
    single.command(0x1B, &[]);
    assert_eq!(single.read()[0], 0xFE);
    assert_eq!(single.query_all("SELECT 1; SELECT 2").len(), 2);
    // An option that does not exist: 1047 Unknown command, as MariaDB.
    single.command(0x1B, &[2]);
    let e = parse_err(&single.read());
    assert_eq!(e.code(), 1047);
    assert_eq!(
        e,
        Outcome::Err {
            code: 1047,
            state: "08S01".into(),
            message: "Unknown command".into()
        }
    );
}

#[test]
fn both_plugins_wrong_passwords_and_account_statements() {
    let dir = std::env::temp_dir().join(format!("quiver-server-auth-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = Database::open(&dir).unwrap();
    let (h, _db) = start_with(db, ServerConfig::default());
    let addr = h.local_addr();
    let mut root = Client::root(addr);
    assert_eq!(
        root.query("CREATE USER 'alice'@'%' IDENTIFIED WITH caching_sha2_password BY 'wonder'"),
        Outcome::Ok { affected: 0 }
    );
    assert_eq!(
        root.query("CREATE USER bob IDENTIFIED BY 'b0b'"),
        Outcome::Ok { affected: 0 }
    );
    assert_eq!(root.query("CREATE USER bob IDENTIFIED BY 'x'").code(), 1396);
    assert_eq!(
        root.query("CREATE USER IF NOT EXISTS bob IDENTIFIED BY 'x'"),
        Outcome::Ok { affected: 0 }
    );
    let login = |user: &str, password: &str, plugin: Plugin| {
        Client::connect(
            addr,
            Options {
                user,
                password,
                plugin,
                ..Options::default()
            },
        )
    };
    // Each account with each proposed plugin: a mismatch goes through AuthSwitchRequest.
    for plugin in [Plugin::Native, Plugin::CachingSha2] {
        let mut a = login("alice", "wonder", plugin).expect("alice logs in");
        assert_eq!(a.query("SELECT 1").scalar().as_deref(), Some("1"));
        login("bob", "b0b", plugin).expect("bob logs in");
        for (user, pw) in [("alice", "wonder!"), ("bob", ""), ("nobody", "x")] {
            match login(user, pw, plugin) {
                Err(Outcome::Err { code, state, .. }) => {
                    assert_eq!((code, state.as_str()), (1045, "28000"), "{user}")
                }
                Err(other) => panic!("{other:?}"),
                Ok(_) => panic!("{user} with a wrong password got in"),
            }
        }
    }
    assert_eq!(
        root.query("ALTER USER alice IDENTIFIED BY 'new'"),
        Outcome::Ok { affected: 0 }
    );
    assert!(login("alice", "wonder", Plugin::CachingSha2).is_err());
    assert!(login("alice", "new", Plugin::CachingSha2).is_ok());
    assert_eq!(
        root.query("ALTER USER nobody IDENTIFIED BY 'x'").code(),
        1396
    );
    // SET PASSWORD, for another account and for one's own.
    assert_eq!(
        root.query("SET PASSWORD FOR bob = PASSWORD('b1')"),
        Outcome::Ok { affected: 0 }
    );
    let mut bob = login("bob", "b1", Plugin::Native).expect("bob's new password");
    assert_eq!(
        bob.query("SET PASSWORD = 'b2'"),
        Outcome::Ok { affected: 0 }
    );
    assert!(login("bob", "b1", Plugin::Native).is_err());
    assert!(login("bob", "b2", Plugin::Native).is_ok());
    assert_eq!(root.query("SET PASSWORD FOR nobody = 'x'").code(), 1133);
    assert_eq!(root.query("DROP USER bob"), Outcome::Ok { affected: 0 });
    assert!(login("bob", "b0b", Plugin::Native).is_err());

    // Stored: hashes only, and a new server on the folder knows the accounts.
    let stored = std::fs::read_to_string(dir.join("users")).unwrap();
    assert!(
        stored.contains("alice caching_sha2_password $sha2$"),
        "{stored}"
    );
    assert!(!stored.contains("new"), "a password in clear: {stored}");
    h.shutdown();
    let (h2, _) = start_with(Database::open(&dir).unwrap(), ServerConfig::default());
    Client::connect(
        h2.local_addr(),
        Options {
            user: "alice",
            password: "new",
            plugin: Plugin::Native,
            ..Options::default()
        },
    )
    .expect("alice after restart");
    // The implicit root of a fresh server was saved with the first CREATE
    // USER, still without a password (so only loopback can serve it).
    assert!(stored.contains("root mysql_native_password \n"), "{stored}");
    Client::connect(h2.local_addr(), Options::default()).expect("root after restart");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn passwordless_accounts_are_refused_beyond_loopback() {
    let err = Server::bind(
        Database::in_memory(),
        Default::default(),
        ServerConfig {
            bind: "0.0.0.0".into(),
            port: 0,
            ..ServerConfig::default()
        },
    )
    .err()
    .expect("refused");
    assert!(err.message.contains("root have no password"), "{err}");

    let users = std::env::temp_dir().join(format!("quiver-users-{}.txt", std::process::id()));
    std::fs::write(&users, "admin caching_sha2_password password:s3cret\n").unwrap();
    let server = Server::bind(
        Database::in_memory(),
        Default::default(),
        ServerConfig {
            bind: "0.0.0.0".into(),
            port: 0,
            users_file: Some(users.clone()),
            ..ServerConfig::default()
        },
    )
    .expect("all accounts have passwords");
    let h = server.spawn();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], h.local_addr().port()));
    let mut c = Client::connect(
        addr,
        Options {
            user: "admin",
            password: "s3cret",
            plugin: Plugin::CachingSha2,
            ..Options::default()
        },
    )
    .unwrap();
    // No account without a password may be made while listening beyond loopback.
    assert_eq!(c.query("CREATE USER guest").code(), 1819);
    let _ = std::fs::remove_file(users);
}

/// CREATE USER once wrote names as they were into DIR/users: a name with a
/// space, a plugin name and a line break left a second account, `evil`,
/// without a password, which logged in after a restart. Names are now
/// percent-encoded in the file: every hostile name comes back as itself
/// with its password, in both bind modes, and no other account appears.
#[test]
fn hostile_account_names_survive_restarts_in_both_bind_modes() {
    let dir = std::env::temp_dir().join(format!("quiver-server-hostile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let names = [
        "evil mysql_native_password\nx",
        "#root",
        "sp ace",
        "100%",
        "ünï",
        "q'uote",
    ];
    let (h, _db) = start_with(Database::open(&dir).unwrap(), ServerConfig::default());
    let mut root = Client::root(h.local_addr());
    for (i, n) in names.iter().enumerate() {
        let quoted = n
            .replace('\\', "\\\\")
            .replace('\'', "\\'")
            .replace('\n', "\\n");
        assert_eq!(
            root.query(&format!("CREATE USER '{quoted}'@'%' IDENTIFIED BY 'pw{i}'")),
            Outcome::Ok { affected: 0 },
            "{n}"
        );
    }
    assert_eq!(
        root.query(&format!(
            "CREATE USER '{}'@'%' IDENTIFIED BY 'x'",
            "b".repeat(129)
        ))
        .code(),
        1470
    );
    // Beyond loopback only accounts with passwords may exist.
    assert_eq!(
        root.query("ALTER USER root IDENTIFIED BY 'r00t'"),
        Outcome::Ok { affected: 0 }
    );
    h.shutdown();
    for bind in ["127.0.0.1", "0.0.0.0"] {
        let server = Server::bind(
            Database::open(&dir).unwrap(),
            Default::default(),
            ServerConfig {
                bind: bind.into(),
                port: 0,
                ..ServerConfig::default()
            },
        )
        .unwrap_or_else(|e| panic!("{bind}: {e}"));
        let h = server.spawn();
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], h.local_addr().port()));
        let login = |user: &str, password: &str| {
            Client::connect(
                addr,
                Options {
                    user,
                    password,
                    plugin: Plugin::Native,
                    ..Options::default()
                },
            )
        };
        for (i, n) in names.iter().enumerate() {
            let mut c = login(n, &format!("pw{i}")).unwrap_or_else(|e| panic!("{bind} {n}: {e:?}"));
            assert_eq!(c.query("SELECT 1").scalar().as_deref(), Some("1"));
            assert!(login(n, "").is_err(), "{bind} {n} without its password");
        }
        for smuggled in ["evil", "x", "root"] {
            assert!(
                login(smuggled, "").is_err(),
                "{bind}: {smuggled} without a password"
            );
        }
        h.shutdown();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn prepared_statements_with_every_parameter_type() {
    let (h, _db) = default_server();
    let mut c = Client::root(h.local_addr());
    let params = vec![
        Param::Tiny(-128),
        Param::UTiny(255),
        Param::Short(-32768),
        Param::Long(-2147483648),
        Param::LongLong(i64::MIN),
        Param::ULongLong(u64::MAX),
        Param::Float(1.5),
        Param::Double(-2.25e-3),
        Param::Decimal("-12345.678"),
        Param::Str("it's a \\ quote'; DROP TABLE t; --".into()),
        Param::Blob(b"bytes".to_vec()),
        Param::Null,
        Param::Date(2024, 2, 29),
        Param::DateTime(2024, 12, 31, 23, 59, 58, 123456),
        Param::Time(false, 0, 12, 34, 56),
    ];
    let placeholders = vec!["?"; params.len()].join(", ");
    let (id, nparams, _) = c.prepare(&format!("SELECT {placeholders}")).unwrap();
    assert_eq!(nparams, params.len());
    let r = c.execute(id, &params);
    let expected: Vec<Option<&str>> = vec![
        Some("-128"),
        Some("255"),
        Some("-32768"),
        Some("-2147483648"),
        Some("-9223372036854775808"),
        Some("18446744073709551615"),
        Some("1.5"),
        Some("-0.00225"),
        Some("-12345.678"),
        Some("it's a \\ quote'; DROP TABLE t; --"),
        Some("bytes"),
        None,
        Some("2024-02-29"),
        Some("2024-12-31 23:59:58.123456"),
        Some("12:34:56"),
    ];
    let got: Vec<Option<&str>> = r.rows()[0].iter().map(|v| v.as_deref()).collect();
    assert_eq!(got, expected);
    // Result types in the binary protocol follow the parameters' types.
    let types: Vec<u8> = r.columns().iter().map(|c| c.ty).collect();
    assert_eq!(types[5], 8, "u64 is LONGLONG");
    assert!(r.columns()[5].flags & 32 != 0, "and UNSIGNED");
    assert_eq!(types[7], 5, "double");
    assert_eq!(types[8], 246, "decimal");
    assert_eq!(types[12], 10, "date");
    assert_eq!(types[13], 12, "datetime");
    assert_eq!(types[14], 11, "time");

    // A statement on a table: columns known at prepare, executed twice
    // (the second time without resending types is not done by this client).
    c.query("CREATE TABLE p (id INT, name VARCHAR(10))");
    let (ins, n, cols) = c.prepare("INSERT INTO p VALUES (?, ?)").unwrap();
    assert_eq!((n, cols.len()), (2, 0));
    assert_eq!(
        c.execute(ins, &[Param::Long(1), Param::Str("one".into())]),
        Outcome::Ok { affected: 1 }
    );
    assert_eq!(
        c.execute(ins, &[Param::Long(2), Param::Null]),
        Outcome::Ok { affected: 1 }
    );
    let (sel, n, cols) = c
        .prepare("SELECT id, name FROM p WHERE id >= ? ORDER BY id")
        .unwrap();
    assert_eq!(n, 1);
    let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["id", "name"]);
    let r = c.execute(sel, &[Param::LongLong(1)]);
    assert_eq!(
        r.rows(),
        &vec![
            vec![Some("1".into()), Some("one".into())],
            vec![Some("2".into()), None]
        ]
    );
    // Again without resending the types: those of the last execution hold.
    let r = c.execute_with(sel, &[Param::LongLong(2)], false);
    assert_eq!(r.rows(), &vec![vec![Some("2".into()), None]]);
    // A value sent in pieces by COM_STMT_SEND_LONG_DATA.
    let (long, _, _) = c.prepare("SELECT CONCAT('<', ?, '>'), ?").unwrap();
    c.send_long_data(long, 0, "a'b".as_bytes());
    c.send_long_data(long, 0, b" and more");
    let r = c.execute(long, &[Param::LongData, Param::Long(5)]);
    assert_eq!(
        r.rows(),
        &vec![vec![Some("<a'b and more>".into()), Some("5".into())]]
    );
    // Long data beyond max_allowed_packet (64 MiB here): that execution fails, the next works.
    let (long2, _, _) = c.prepare("SELECT length(?)").unwrap();
    let chunk = vec![b'a'; 16 << 20];
    for _ in 0..5 {
        c.send_long_data(long2, 0, &chunk);
    }
    assert_eq!(c.execute(long2, &[Param::LongData]).code(), 1153);
    c.send_long_data(long2, 0, b"abc");
    assert_eq!(
        c.execute(long2, &[Param::LongData]).scalar().as_deref(),
        Some("3")
    );
    // Errors: at prepare for a missing table, at execute for a bad handle.
    assert_eq!(
        c.prepare("SELECT * FROM nope WHERE a = ?")
            .unwrap_err()
            .code(),
        1146
    );
    assert_eq!(c.execute(999, &[]).code(), 1243);
    // Not UTF-8: a binary string (X'FFFE' for the engine). Until the
    // engine's binder reads X'..' literals it refuses them (1235).
    let (id, _, _) = c.prepare("SELECT HEX(?)").unwrap();
    match c.execute(id, &[Param::Blob(vec![0xFF, 0xFE])]) {
        Outcome::Err { code, .. } => assert_eq!(code, 1235),
        r => assert_eq!(r.scalar().as_deref(), Some("FFFE")),
    }
    // COM_STMT_CLOSE: the handle is gone.
    c.command(0x19, &sel.to_le_bytes());
    assert_eq!(c.execute(sel, &[Param::LongLong(1)]).code(), 1243);
}

#[test]
fn ping_init_db_field_list_statistics_reset() {
    let (h, _db) = default_server();
    let mut c = Client::root(h.local_addr());
    c.command(0x0E, b"");
    assert_eq!(c.read()[0], 0x00);
    assert_eq!(c.query("SELECT DATABASE()").scalar(), None);
    c.command(0x02, b"quiver");
    assert_eq!(c.read()[0], 0x00);
    assert_eq!(
        c.query("SELECT DATABASE()").scalar().as_deref(),
        Some("quiver")
    );
    c.command(0x02, b"nope");
    assert_eq!(parse_err(&c.read()).code(), 1049);
    assert_eq!(c.query("USE nope").code(), 1049);

    c.query("CREATE TABLE f (a INT NOT NULL, b VARCHAR(5))");
    c.command(0x04, b"f\0");
    let a = parse_column(&c.read());
    let b = parse_column(&c.read());
    assert_eq!((a.name.as_str(), a.ty, a.flags & 1), ("a", 3, 1));
    assert_eq!((b.name.as_str(), b.ty, b.flags & 1), ("b", 253, 0));
    assert_eq!(c.read()[0], 0xFE);
    c.command(0x04, b"nope\0");
    assert_eq!(parse_err(&c.read()).code(), 1146);

    c.command(0x09, b"");
    let stats = String::from_utf8(c.read()).unwrap();
    assert!(stats.starts_with("Uptime: "), "{stats}");

    // The handshake's collation (45 from this client) is the connection's.
    assert_eq!(
        c.query("SELECT @@collation_connection, 'a' = 'A'").rows()[0],
        vec![Some("utf8mb4_general_ci".into()), Some("1".into())]
    );
    c.query("SET NAMES utf8mb4 COLLATE utf8mb4_bin");
    assert_eq!(
        c.query("SELECT @@collation_connection, 'a' = 'A'").rows()[0],
        vec![Some("utf8mb4_bin".into()), Some("0".into())]
    );
    // COM_RESET_CONNECTION: back to the handshake's.
    c.command(0x1F, b"");
    assert_eq!(c.read()[0], 0x00);
    assert_eq!(
        c.query("SELECT @@collation_connection").scalar().as_deref(),
        Some("utf8mb4_general_ci")
    );
    assert_eq!(c.query("SELECT DATABASE()").scalar(), None);

    // Unknown commands are refused and the connection goes on.
    c.command(0x77, b"");
    assert_eq!(parse_err(&c.read()).code(), 1047);
    assert_eq!(c.query("SELECT 1").scalar().as_deref(), Some("1"));
}

#[test]
fn connect_time_statements_of_connectors() {
    let (h, _db) = default_server();
    let mut c = Client::connect(
        h.local_addr(),
        Options {
            db: Some("quiver"),
            ..Options::default()
        },
    )
    .unwrap();
    for sql in [
        "SET NAMES utf8mb4",
        "SET autocommit=1",
        "SET SESSION sql_mode = 'STRICT_TRANS_TABLES'",
        "SET character_set_results = NULL",
        "SET @@session.autocommit = 1",
    ] {
        assert_eq!(c.query(sql), Outcome::Ok { affected: 0 }, "{sql}");
    }
    let r = c.query(
        "SELECT @@session.auto_increment_increment AS auto_increment_increment, @@character_set_client AS character_set_client, @@max_allowed_packet, @@sql_mode, @@lower_case_table_names, @@transaction_isolation, @@tx_isolation, @@time_zone, @@system_time_zone, @@wait_timeout, @@net_write_timeout, @@autocommit, @@version_comment",
    );
    assert_eq!(r.rows()[0].len(), 13);
    assert!(r.rows()[0].iter().all(|v| v.is_some()), "{r:?}");
    assert_eq!(
        c.query("SELECT DATABASE()").scalar().as_deref(),
        Some("quiver")
    );
    let dbs = c.query("SHOW DATABASES");
    assert_eq!(
        dbs.rows(),
        &vec![
            vec![Some("information_schema".into())],
            vec![Some("quiver".into())]
        ]
    );
    // A connection naming an unknown database is refused.
    let e = Client::connect(
        h.local_addr(),
        Options {
            db: Some("nope"),
            ..Options::default()
        },
    )
    .err()
    .unwrap();
    assert_eq!(e.code(), 1049);
}

#[test]
fn databases_at_connect_init_db_and_field_list() {
    let (h, _db) = default_server();
    let mut c = Client::root(h.local_addr());
    assert_eq!(c.query("CREATE DATABASE shop"), Outcome::Ok { affected: 1 });
    c.query("CREATE TABLE shop.items (id INT NOT NULL, name VARCHAR(5))");
    c.query("INSERT INTO shop.items VALUES (1, 'pen')");
    // A connection naming the database reads its tables unqualified.
    let mut d = Client::connect(
        h.local_addr(),
        Options {
            db: Some("shop"),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(
        d.query("SELECT DATABASE()").scalar().as_deref(),
        Some("shop")
    );
    assert_eq!(
        d.query("SELECT name FROM items").scalar().as_deref(),
        Some("pen")
    );
    // COM_INIT_DB, then COM_FIELD_LIST of a table of that database.
    c.command(0x02, b"shop");
    assert_eq!(c.read()[0], 0x00);
    c.command(0x04, b"items\0");
    let id = parse_column(&c.read());
    assert_eq!((id.name.as_str(), id.ty), ("id", 3));
    let _name = parse_column(&c.read());
    assert_eq!(c.read()[0], 0xFE);
    // SQL PREPARE / EXECUTE over the protocol.
    c.query("PREPARE q FROM 'SELECT name FROM items WHERE id = ?'");
    c.query("SET @k = 1");
    assert_eq!(
        c.query("EXECUTE q USING @k").scalar().as_deref(),
        Some("pen")
    );
    assert_eq!(c.query("EXECUTE q").code(), 1210);
    // Dropping the current database leaves none selected.
    assert_eq!(c.query("DROP DATABASE shop"), Outcome::Ok { affected: 1 });
    assert_eq!(c.query("SELECT DATABASE()").scalar(), None);
    assert_eq!(c.query("SELECT * FROM items").code(), 1046);
    assert_eq!(d.query("SELECT * FROM items").code(), 1146);
}

#[test]
fn malformed_truncated_and_oversized_packets_end_only_their_connection() {
    let (h, _db) = start(ServerConfig {
        max_allowed_packet: 1 << 20,
        ..ServerConfig::default()
    });
    let addr = h.local_addr();
    let mut bystander = Client::root(addr);
    bystander.query("CREATE TABLE keep (a INT)");
    bystander.query("INSERT INTO keep VALUES (1)");

    // A handshake response shorter than its fixed part: ERR 1835, closed.
    let reply = raw_after_handshake(addr, &[3, 0, 0, 1, 1, 2, 3]);
    assert_eq!(reply[4], 0xFF, "{reply:?}");
    assert_eq!(u16::from_le_bytes([reply[5], reply[6]]), 1835);
    // Announcing 16 MB over a 1 MB limit: ERR 1153 before any allocation of it.
    let reply = raw_after_handshake(addr, &[0xFF, 0xFF, 0xFF, 1]);
    assert_eq!(u16::from_le_bytes([reply[5], reply[6]]), 1153);
    // A truncated packet and then silence (the write side closed).
    let reply = raw_after_handshake(addr, &[100, 0, 0, 1, 1, 2]);
    assert!(reply.is_empty(), "{reply:?}");
    // Wrong sequence id.
    let reply = raw_after_handshake(addr, &[1, 0, 0, 7, 0]);
    assert_eq!(u16::from_le_bytes([reply[5], reply[6]]), 1156);
    // Garbage with a plausible length.
    let mut junk = vec![60, 0, 0, 1];
    junk.extend((0..60u8).map(|i| i.wrapping_mul(37)));
    let reply = raw_after_handshake(addr, &junk);
    assert!(reply.is_empty() || reply[4] == 0xFF, "{reply:?}");

    // After login: malformed command bodies are errors, the connection stays.
    let mut c = Client::root(addr);
    c.command(0x17, &[1, 2]); // COM_STMT_EXECUTE cut short
    assert_eq!(parse_err(&c.read()).code(), 1835);
    let (id, _, _) = c.prepare("SELECT ?, ?").unwrap();
    c.command(
        0x17,
        &[&id.to_le_bytes()[..], &[0, 1, 0, 0, 0, 0, 1, 3, 0]].concat(),
    );
    assert_eq!(parse_err(&c.read()).code(), 1835);
    c.command(0x03, &[0xC3, 0x28]); // not UTF-8
    assert_eq!(parse_err(&c.read()).code(), 1300);
    // Raw bytes in a _binary literal or a plain string (as PyMySQL sends
    // bytes) are not text: the literal goes to the engine as X'..' (MariaDB:
    // 'FF', 'FF005C27'); outside a string they are still 1300.
    c.command(0x03, b"SELECT HEX('\xFF'), HEX(_binary'\xFF\\0\\\\\\'')");
    assert_eq!(
        c.read_result(false).rows(),
        &vec![vec![Some("FF".to_string()), Some("FF005C27".to_string())]]
    );
    c.command(0x03, b"SELECT 1 \xFF");
    assert_eq!(parse_err(&c.read()).code(), 1300);
    assert_eq!(c.query("SELECT 2").scalar().as_deref(), Some("2"));
    // An oversized command after login: ERR 1153 and the connection ends.
    c.seq = 0;
    let big = vec![b'x'; (1 << 20) + 10];
    c.write(&[&[0x03][..], &big].concat());
    assert_eq!(parse_err(&c.read()).code(), 1153);
    assert!(c.try_read().is_err() || c.try_read().is_err());

    // The bystander never noticed; everyone else's connections are gone.
    assert_eq!(
        bystander.query("SELECT a FROM keep").scalar().as_deref(),
        Some("1")
    );
    drop(c);
    wait_for_connections(&h, 1);
}

#[test]
fn a_client_that_vanishes_mid_result_does_not_hurt_the_server() {
    let (h, _db) = default_server();
    let addr = h.local_addr();
    let mut c = Client::root(addr);
    c.query("CREATE TABLE big AS SELECT a.x * 1000 + b.x AS n, 'some text to make rows longer' AS s FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9 UNION ALL SELECT 10) a, (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9 UNION ALL SELECT 10) b");
    for _ in 0..5 {
        let mut v = Client::root(addr);
        // Many rows, read a few bytes, then vanish.
        v.command(
            0x03,
            b"SELECT a.n, a.s, b.n FROM big a, big b, big c WHERE c.n < 1003",
        );
        let mut few = [0u8; 64];
        let _ = v.stream.read(&mut few);
        drop(v);
    }
    wait_for_connections(&h, 1);
    assert_eq!(
        c.query("SELECT count(*) FROM big").scalar().as_deref(),
        Some("100")
    );
}

#[test]
fn idle_connections_time_out_and_the_limit_is_kept() {
    let (h, _db) = start(ServerConfig {
        wait_timeout: Duration::from_millis(300),
        connect_timeout: Duration::from_millis(300),
        max_connections: 2,
        ..ServerConfig::default()
    });
    let addr = h.local_addr();
    let a = Client::root(addr);
    let _b = Client::root(addr);
    // A third is refused with 1040 in place of the handshake.
    let e = Client::connect(addr, Options::default()).err().unwrap();
    assert_eq!(e.code(), 1040);
    // A client that never answers the handshake is dropped after connect_timeout.
    drop(a);
    wait_for_connections(&h, 1);
    let silent = TcpStream::connect(addr).unwrap();
    wait_for_connections(&h, 2);
    // Both the silent one and the idle logged-in one are closed by the timeouts.
    wait_for_connections(&h, 0);
    drop(silent);
    let mut c = Client::root(addr);
    assert_eq!(c.query("SELECT 1").scalar().as_deref(), Some("1"));
}

#[test]
fn information_schema_and_show_over_the_wire() {
    let (h, _db) = default_server();
    let mut c = Client::connect(
        h.local_addr(),
        Options {
            db: Some("quiver"),
            ..Options::default()
        },
    )
    .unwrap();
    c.query("CREATE TABLE people (id INT NOT NULL, name VARCHAR(30))");
    c.query("CREATE VIEW adults AS SELECT id FROM people");
    let r = c.query("SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME");
    assert_eq!(
        r.rows(),
        &vec![
            vec![Some("adults".into()), Some("VIEW".into())],
            vec![Some("people".into()), Some("BASE TABLE".into())]
        ]
    );
    let r = c.query("SELECT COLUMN_NAME, IS_NULLABLE, COLUMN_TYPE, CHARACTER_MAXIMUM_LENGTH FROM information_schema.COLUMNS WHERE TABLE_NAME = 'people' ORDER BY ORDINAL_POSITION");
    assert_eq!(
        r.rows(),
        &vec![
            vec![
                Some("id".into()),
                Some("NO".into()),
                Some("int".into()),
                None
            ],
            vec![
                Some("name".into()),
                Some("YES".into()),
                Some("varchar(30)".into()),
                Some("30".into())
            ]
        ]
    );
    let r = c.query("SHOW FULL COLUMNS FROM people WHERE Field = 'name'");
    assert_eq!(r.rows().len(), 1);
    assert_eq!(r.columns().len(), 9);
    assert_eq!(
        c.query("SHOW VARIABLES LIKE 'VERSION'").rows()[0][1].as_deref(),
        Some(SERVER_VERSION)
    );
    let r = c.query("SHOW COLLATION WHERE Collation = 'utf8mb4_general_ci'");
    assert_eq!(r.rows()[0][2].as_deref(), Some("45"));
}

#[test]
fn many_concurrent_connections_share_the_database() {
    let (h, _db) = default_server();
    let addr = h.local_addr();
    let mut setup = Client::root(addr);
    setup.query("CREATE TABLE shared (k INT, v INT)");
    setup.query("INSERT INTO shared VALUES (1, 10), (2, 20), (3, 30), (4, 40)");
    let threads: Vec<_> = (0..16)
        .map(|t| {
            std::thread::spawn(move || {
                let mut c = Client::root(addr);
                for i in 0..40 {
                    let k = (t + i) % 4 + 1;
                    if i % 2 == 0 {
                        let r = c.query(&format!("SELECT v FROM shared WHERE k = {k}"));
                        assert_eq!(r.scalar(), Some((k * 10).to_string()));
                    } else {
                        let (id, _, _) = c.prepare("SELECT sum(v) + ? FROM shared").unwrap();
                        let r = c.execute(id, &[Param::Long(k)]);
                        assert_eq!(r.scalar(), Some((100 + k).to_string()));
                        c.command(0x19, &id.to_le_bytes());
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a client thread");
    }
    drop(setup);
    wait_for_connections(&h, 0);
}

/// The result columns of a prepared statement are named by its text as
/// prepared, at prepare and at every execution, whatever the values (names
/// from MariaDB 10.11).
#[test]
fn prepared_result_columns_are_named_by_the_prepared_text() {
    let (h, _db) = default_server();
    let mut c = Client::root(h.local_addr());
    c.query("CREATE TABLE psn (i INT)");
    c.query("INSERT INTO psn VALUES (1)");
    let cases: Vec<(&str, Vec<Param>, Vec<&str>)> = vec![
        (
            "SELECT ?, ? + 1, i FROM psn WHERE i = ?",
            vec![Param::Str("abc".into()), Param::Long(5), Param::Long(1)],
            vec!["?", "? + 1", "i"],
        ),
        (
            "SELECT  ?  +  1 ,((?)), -?, ? AS x, CONCAT(?, 'a')",
            vec![
                Param::Long(1),
                Param::Str("b".into()),
                Param::Long(-3),
                Param::Long(2),
                Param::Str("c".into()),
            ],
            vec!["?  +  1", "?", "-?", "x", "CONCAT(?, 'a')"],
        ),
        (
            "SELECT /*c*/ ? /*d*/ + 1, 'x?', +?",
            vec![Param::Double(1.5), Param::Null],
            vec!["? /*d*/ + 1", "x?", "?"],
        ),
        (
            "SELECT ?, psn.*, i+? FROM psn",
            vec![Param::Long(7), Param::Long(8)],
            vec!["?", "i", "i+?"],
        ),
        (
            "(SELECT ?) UNION (SELECT 2)",
            vec![Param::Str("one".into())],
            vec!["?"],
        ),
    ];
    for (sql, params, want) in cases {
        let (id, n, columns) = c.prepare(sql).unwrap();
        assert_eq!(n, params.len(), "{sql}");
        let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, want, "prepare {sql}");
        for _ in 0..2 {
            let out = c.execute(id, &params);
            let names: Vec<&str> = out.columns().iter().map(|c| c.name.as_str()).collect();
            assert_eq!(names, want, "execute {sql}");
        }
    }
}

/// COM_FIELD_LIST's wildcard picks the columns as LIKE would, in either
/// case, a backslash escaping (answers from MariaDB 10.11).
#[test]
fn field_list_wildcards_pick_columns() {
    let (h, _db) = default_server();
    let mut c = Client::root(h.local_addr());
    c.command(0x02, b"quiver");
    assert_eq!(c.read()[0], 0x00);
    c.query("CREATE TABLE flw (v1 INT, vx INT, Va INT, w INT, v_ INT)");
    let cases: [(&[u8], &[&str]); 7] = [
        (b"v%", &["v1", "vx", "Va", "v_"]),
        (b"V_", &["v1", "vx", "Va", "v_"]),
        (b"v\\_", &["v_"]),
        (b"%a", &["Va"]),
        (b"", &["v1", "vx", "Va", "w", "v_"]),
        (b"x%", &[]),
        (b"v1", &["v1"]),
    ];
    for (wild, want) in cases {
        c.command(0x04, &[&b"flw\0"[..], wild].concat());
        let mut names = vec![];
        loop {
            let p = c.read();
            if p[0] == 0xFE && p.len() < 9 {
                break;
            }
            names.push(parse_column(&p).name);
        }
        assert_eq!(names, want, "{}", String::from_utf8_lossy(wild));
    }
}

#[test]
fn absurd_temporal_parameters_and_unknown_handles_as_mariadb() {
    let (h, _db) = default_server();
    let mut c = Client::root(h.local_addr());
    // COM_STMT_RESET of an unknown handle names mysqld_stmt_reset (MariaDB's
    // text); a body shorter than the id is an unknown handle too.
    c.command(0x1A, &77u32.to_le_bytes());
    assert_eq!(
        parse_err(&c.read()),
        Outcome::Err {
            code: 1243,
            state: "HY000".into(),
            message: "Unknown prepared statement handler (77) given to mysqld_stmt_reset".into()
        }
    );
    c.command(0x1A, &[1]);
    assert_eq!(parse_err(&c.read()).code(), 1243);
    let e = c.execute(77, &[]);
    assert!(
        matches!(&e, Outcome::Err { message, .. } if message.ends_with("mysqld_stmt_execute")),
        "{e:?}"
    );

    // MYSQL_TIME parameters read as MariaDB reads them (its answers, taken
    // from the oracle with raw packets): out-of-range fields make the zero
    // date, which the engine refuses (it has no zero dates) with 1525, where
    // MariaDB returns 0000-00-00 00:00:00 with a warning.
    let (id, _, _) = c.prepare("SELECT CAST(? AS CHAR)").unwrap();
    let mut run =
        |ty: u8, value: &[u8]| -> Outcome { c.execute(id, &[Param::Raw(ty, value.to_vec())]) };
    let (date, datetime, time) = (10u8, 12u8, 11u8);
    let text = |o: Outcome| o.scalar();
    assert_eq!(
        text(run(datetime, &[7, 0xE8, 0x07, 2, 29, 1, 2, 3])).as_deref(),
        Some("2024-02-29 01:02:03")
    );
    for absurd in [
        &[4, 0xE8, 0x07, 13, 1][..],                           // month 13
        &[4, 0xE8, 0x07, 1, 40],                               // day 40
        &[7, 0xE8, 0x07, 1, 1, 99, 0, 0],                      // hour 99
        &[7, 0xE8, 0x07, 1, 1, 1, 60, 0],                      // minute 60
        &[11, 0xE8, 0x07, 1, 1, 1, 1, 1, 0x80, 0x84, 0x1E, 0], // 2,000,000 µs
        &[3, 0xE8, 0x07, 1],                                   // too short
        &[0],                                                  // empty: the zero date
    ] {
        assert_eq!(run(datetime, absurd).code(), 1525, "{absurd:?}");
    }
    assert_eq!(run(date, &[4, 0xE8, 0x07, 13, 1]).code(), 1525);
    // A length of 5 reads the hour and zeros, one of 12 the microseconds.
    assert_eq!(
        text(run(datetime, &[5, 0xE8, 0x07, 1, 1, 1])).as_deref(),
        Some("2024-01-01 01:00:00")
    );
    assert_eq!(
        text(run(
            datetime,
            &[12, 0xE8, 0x07, 1, 1, 1, 1, 1, 5, 0, 0, 0, 0]
        ))
        .as_deref(),
        Some("2024-01-01 01:01:01.000005")
    );
    // Microseconds of zero make no fraction (DATETIME(0)), others six digits.
    assert_eq!(
        text(run(datetime, &[11, 0xE8, 0x07, 1, 1, 1, 1, 1, 0, 0, 0, 0])).as_deref(),
        Some("2024-01-01 01:01:01")
    );
    // A DATE ignores a time part.
    assert_eq!(
        text(run(date, &[7, 0xE8, 0x07, 1, 2, 3, 4, 5])).as_deref(),
        Some("2024-01-02")
    );
    // TIME: hours up to 838 pass, beyond is 838:59:59; minute or second
    // past 59 is 00:00:00; any non-zero sign byte is negative.
    for (value, want) in [
        (&[8, 0, 0, 0, 0, 0, 99, 0, 0][..], "99:00:00"),
        (&[8, 0, 1, 0, 0, 0, 2, 3, 4], "26:03:04"),
        (&[8, 0, 40, 0, 0, 0, 0, 0, 0], "838:59:59"),
        (&[8, 1, 0xA0, 0x86, 1, 0, 0, 0, 0], "-838:59:59"),
        (&[8, 0, 0, 0, 0, 0, 1, 60, 0], "00:00:00"),
        (&[8, 0, 0, 0, 0, 0, 1, 1, 99], "00:00:00"),
        (&[8, 5, 0, 0, 0, 0, 1, 0, 0], "-01:00:00"),
        (&[8, 1, 0xFF, 0xFF, 0xFF, 0xFF, 30, 0, 0], "-06:00:00"),
        (&[5, 0, 0, 0, 0, 1], "00:00:00"),
    ] {
        assert_eq!(text(run(time, value)).as_deref(), Some(want), "{value:?}");
    }
    // A length past the end of the packet, or none at all: no panic; the
    // value is missing (1210) or reads as zeros.
    assert_eq!(run(datetime, &[]).code(), 1210);
    assert_eq!(run(time, &[]).code(), 1210);
    // (MariaDB reads on past the packet: its answer depends on what lies there.)
    assert_eq!(
        text(run(datetime, &[11, 0xE8, 0x07, 1, 1])).as_deref(),
        Some("2024-01-01 00:00:00")
    );
    assert_eq!(text(run(time, &[0xFC, 8])).as_deref(), Some("00:00:00"));
    assert_eq!(c.query("SELECT 1").scalar().as_deref(), Some("1"));
}

#[test]
fn tables_and_table_status_of_a_database_folder() {
    let dir = std::env::temp_dir().join(format!("quiver-server-status-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (h, _db) = start_with(Database::open(&dir).unwrap(), ServerConfig::default());
    let mut c = Client::connect(
        h.local_addr(),
        Options {
            db: Some("quiver"),
            ..Options::default()
        },
    )
    .unwrap();
    c.query("CREATE TABLE st (id INT, name VARCHAR(10))");
    c.query("INSERT INTO st VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
    c.query("CREATE VIEW sv AS SELECT id FROM st");
    // Row counts, the size of the table's files, their times.
    let r = c.query(
        "SELECT TABLE_ROWS, DATA_LENGTH, AVG_ROW_LENGTH, CREATE_TIME, UPDATE_TIME, UPDATE_TIME >= CREATE_TIME FROM information_schema.TABLES WHERE TABLE_NAME = 'st'",
    );
    let row: Vec<String> = r.rows()[0].iter().map(|v| v.clone().unwrap()).collect();
    let (rows, bytes, avg): (u64, u64, u64) = (
        row[0].parse().unwrap(),
        row[1].parse().unwrap(),
        row[2].parse().unwrap(),
    );
    let on_disk: u64 = std::fs::read_dir(dir.join("tables"))
        .unwrap()
        .flatten()
        .flat_map(|t| std::fs::read_dir(t.path()).unwrap().flatten())
        .map(|f| f.metadata().unwrap().len())
        .sum();
    assert_eq!((rows, bytes, avg), (4, on_disk, on_disk / 4), "{row:?}");
    // Times in UTC (the session's time zone is SYSTEM), within the test's minutes.
    let utc = |at: std::time::SystemTime| {
        let secs = at.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
        let (y, m, d) = quiver_common::types::civil_from_days(secs.div_euclid(86_400) as i32);
        let t = secs.rem_euclid(86_400);
        format!(
            "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
            t / 3600,
            t / 60 % 60,
            t % 60
        )
    };
    let now = std::time::SystemTime::now();
    let earlier = utc(now - Duration::from_secs(600));
    let later = utc(now + Duration::from_secs(60));
    for t in &row[3..5] {
        assert!(
            earlier <= *t && *t <= later,
            "{t} not within {earlier} .. {later}"
        );
    }
    assert_eq!(row[5], "1");
    // SHOW TABLE STATUS: the same, named as MariaDB names it, in name order.
    let r = c.query("SHOW TABLE STATUS");
    let names: Vec<&str> = r.columns().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Name",
            "Engine",
            "Version",
            "Row_format",
            "Rows",
            "Avg_row_length",
            "Data_length",
            "Max_data_length",
            "Index_length",
            "Data_free",
            "Auto_increment",
            "Create_time",
            "Update_time",
            "Check_time",
            "Collation",
            "Checksum",
            "Create_options",
            "Comment",
            "Max_index_length",
            "Temporary"
        ]
    );
    assert_eq!(r.columns()[0].org_name, "TABLE_NAME");
    assert_eq!(r.columns()[0].schema, "information_schema");
    let cells =
        |i: usize| -> Vec<Option<String>> { r.rows().iter().map(|row| row[i].clone()).collect() };
    assert_eq!(cells(0), [Some("st".into()), Some("sv".into())]);
    assert_eq!(cells(4), [Some("4".into()), None]);
    assert_eq!(cells(6), [Some(on_disk.to_string()), None]);
    assert_eq!(cells(17), [Some("".into()), Some("VIEW".into())]);
    let r = c.query("SHOW TABLE STATUS FROM quiver LIKE 's_'");
    assert_eq!(r.rows().len(), 2);
    let r = c.query("SHOW TABLE STATUS WHERE Rows > 3");
    assert_eq!(r.rows().len(), 1);
    assert_eq!(
        c.query("SHOW TABLE STATUS IN information_schema")
            .rows()
            .len(),
        0
    );
    assert_eq!(c.query("SHOW TABLE STATUS FROM nope").code(), 1049);
    drop(c);
    drop(h);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_ok_packet_carries_the_first_auto_increment_value_generated() {
    let (h, _db) = default_server();
    let mut c = Client::root(h.local_addr());
    // The OK packet's last insert id: header, affected rows, insert id.
    let mut ok_of = |sql: &str| {
        c.command(0x03, sql.as_bytes());
        let p = c.read();
        assert_eq!(p[0], 0x00, "{sql}: not an OK packet: {p:?}");
        let mut r = Cur { b: &p, i: 1 };
        (r.lenenc(), r.lenenc())
    };
    assert_eq!(
        ok_of("CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20))"),
        (0, 0)
    );
    assert_eq!(ok_of("INSERT INTO t (name) VALUES ('a'), ('b')"), (2, 1));
    assert_eq!(ok_of("INSERT INTO t (name) VALUES ('c')"), (1, 3));
    // No value generated: 0 (LAST_INSERT_ID() keeps 3).
    assert_eq!(ok_of("INSERT INTO t VALUES (10, 'd')"), (1, 0));
    assert_eq!(ok_of("UPDATE t SET name = 'x' WHERE id = 10"), (1, 0));
    assert_eq!(
        c.query("SELECT LAST_INSERT_ID()").scalar().as_deref(),
        Some("3")
    );
}
