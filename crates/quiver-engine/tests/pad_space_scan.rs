//! `col = 'const'` under PAD SPACE (`utf8mb4_bin`, `utf8mb4_general_ci`)
//! over a table read back from its folder, where storage tells the scan
//! which rows end in a space (see `quiver_string_kernels::RowHints`): the
//! counts equal MySQL's rules applied row by row, in row groups with at
//! most one trailing space and with more, at every thread count (morsels
//! start inside row groups).

use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};

fn count(s: &Session, sql: &str) -> usize {
    match s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}")) {
        StatementResult::Rows { batches, .. } => rows_as_text(&batches).unwrap()[0][0]
            .as_deref()
            .expect("a count")
            .parse()
            .unwrap(),
        other => panic!("{sql}: {other:?}"),
    }
}

/// MySQL's PAD SPACE equality of byte strings: trailing spaces ignored.
fn pad_space_eq(a: &str, b: &str) -> bool {
    a.trim_end_matches(' ') == b.trim_end_matches(' ')
}

/// `utf8mb4_general_ci` equality of ASCII strings: PAD SPACE, letters
/// without case.
fn general_ci_eq(a: &str, b: &str) -> bool {
    a.trim_end_matches(' ')
        .eq_ignore_ascii_case(b.trim_end_matches(' '))
}

/// Row `n`: 'a'/'b'/'A'/' ' strings of up to six bytes; rows of the first row
/// group (65,536 rows) end in at most one space, later ones in up to three.
fn row(n: usize) -> String {
    let mut x = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20;
    let len = (x % 7) as usize;
    x /= 7;
    let mut s: String = (0..len)
        .map(|_| {
            let c = ["a", "b", " ", "A"][(x % 4) as usize];
            x /= 4;
            c
        })
        .collect();
    let most = if n < 65_536 { 1 } else { 3 };
    while s.len() - s.trim_end_matches(' ').len() > most {
        s.pop();
    }
    s
}

#[test]
fn pad_space_equality_over_stored_rows() {
    let dir = std::env::temp_dir().join(format!("quiver-pad-space-scan-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let rows: Vec<String> = (0..100_000).map(row).collect();
    {
        let s = Session::new(Database::open(&dir).expect("open"), EngineConfig::default());
        s.query(
            "CREATE TABLE t (s VARCHAR(10) COLLATE utf8mb4_bin, \
             ci VARCHAR(10) COLLATE utf8mb4_general_ci)",
        )
        .unwrap();
        for chunk in rows.chunks(10_000) {
            let values: Vec<String> = chunk.iter().map(|r| format!("('{r}', '{r}')")).collect();
            s.query(&format!("INSERT INTO t VALUES {}", values.join(", ")))
                .unwrap();
        }
    }
    // Read back from the folder: the scan gets storage's trailing-space
    // bitmaps with the pages.
    let file = quiver_storage::open_table(&dir.join("tables").join("t")).expect("table folder");
    let pages = file.read_column_pages(&[0, 1]).unwrap();
    assert!(
        pages.iter().flatten().all(|p| p.ends_in_space.is_some()),
        "every row group has rows ending in a space"
    );
    let db = Database::open(&dir).expect("reopen");
    for threads in [1, 3] {
        let s = Session::new(
            db.clone(),
            EngineConfig {
                threads,
                ..EngineConfig::default()
            },
        );
        for c in ["ab", "ab ", "a b", "b  ", "", " ", "aba", "bA ", "bbbbbb"] {
            let want = rows.iter().filter(|r| pad_space_eq(r, c)).count();
            let got = count(&s, &format!("SELECT COUNT(*) FROM t WHERE s = '{c}'"));
            assert_eq!(got, want, "s = '{c}' at {threads} threads");
            let want = rows.iter().filter(|r| general_ci_eq(r, c)).count();
            let got = count(&s, &format!("SELECT COUNT(*) FROM t WHERE ci = '{c}'"));
            assert_eq!(got, want, "ci = '{c}' at {threads} threads");
            // A filter that keeps under a quarter of the rows first: the scan
            // compacts the batch before the equality (the bitmap then no
            // longer lines up and must not be used).
            let want = rows
                .iter()
                .filter(|r| r.starts_with('a') && pad_space_eq(r, c))
                .count();
            let got = count(
                &s,
                &format!("SELECT COUNT(*) FROM t WHERE s LIKE 'a%' AND s = '{c}'"),
            );
            assert_eq!(got, want, "s LIKE 'a%' AND s = '{c}' at {threads} threads");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
