//! Two openers of one database folder (as two `quiver` processes are): their
//! writes take turns through the folder's write lock, each sees the other's
//! tables and rows at its next statement, and no write is lost.

use std::sync::Arc;

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};

fn session(dir: &std::path::Path) -> Session {
    Session::new(Database::open(dir).unwrap(), EngineConfig::default())
}

fn scalar(s: &Session, sql: &str) -> String {
    match s.query(sql).unwrap() {
        StatementResult::Rows { batches, .. } => {
            rows_as_text(&batches).unwrap()[0][0].clone().unwrap()
        }
        _ => panic!("{sql}: no rows"),
    }
}

#[test]
fn writers_of_one_folder_take_turns_and_see_each_other() {
    let dir = std::env::temp_dir().join(format!("quiver-shared-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (a, b) = (session(&dir), session(&dir));
    a.query("CREATE TABLE t (id INT, who VARCHAR(1))").unwrap();
    // b opened the folder before t existed.
    b.query("INSERT INTO t VALUES (0, 'b')").unwrap();
    assert_eq!(scalar(&a, "SELECT COUNT(*) FROM t"), "1");

    let (a, b) = (Arc::new(a), Arc::new(b));
    let writer = |s: Arc<Session>, who: &'static str| {
        std::thread::spawn(move || {
            for i in 1..=40 {
                s.query(&format!("INSERT INTO t VALUES ({i}, '{who}')"))
                    .unwrap();
            }
        })
    };
    let (ta, tb) = (writer(a.clone(), "a"), writer(b.clone(), "b"));
    ta.join().unwrap();
    tb.join().unwrap();
    for s in [&a, &b] {
        assert_eq!(scalar(s, "SELECT COUNT(*) FROM t"), "81");
        assert_eq!(scalar(s, "SELECT COUNT(*) FROM t WHERE who = 'a'"), "40");
    }
    // A third opener finds the same on disk; a drop is seen by the others.
    let c = session(&dir);
    assert_eq!(
        scalar(&c, "SELECT SUM(id) FROM t"),
        (2 * (40 * 41 / 2)).to_string()
    );
    c.query("DROP TABLE t").unwrap();
    assert_eq!(a.query("SELECT * FROM t").unwrap_err().code, 1146);
    let _ = std::fs::remove_dir_all(&dir);
}
