//! Runs every `tests/sql/**/*.slt` file as one test case against a fresh
//! in-memory Quiver database. Expected results come from MariaDB
//! (scripts/slt_from_mariadb.py). Files listed in tests/sql/known_failures.txt
//! are expected to fail until the feature lands; such a file that passes is
//! reported as a failure, so the list cannot go stale.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use quiver_engine::{format::rows_as_text, Database, EngineConfig, Session, StatementResult};
use sqllogictest::{DBOutput, DefaultColumnType};

#[derive(Debug)]
struct SqlError(String);

impl std::fmt::Display for SqlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SqlError {}

struct QuiverDb {
    session: Session,
}

impl sqllogictest::DB for QuiverDb {
    type Error = SqlError;
    type ColumnType = DefaultColumnType;

    fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, SqlError> {
        // A panic is a bug in its own right: report it as a distinct error.
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.session.query(sql)))
                .map_err(|_| SqlError(format!("PANIC while running: {sql}")))?;
        match result.map_err(|e| SqlError(e.to_string()))? {
            StatementResult::Done { affected } => Ok(DBOutput::StatementComplete(affected)),
            StatementResult::Rows { schema, batches } => {
                let rows = rows_as_text(&batches)
                    .map_err(|e| SqlError(e.to_string()))?
                    .into_iter()
                    .map(|r| {
                        r.into_iter()
                            .map(|v| match v {
                                None => "NULL".to_string(),
                                Some(s) if s.is_empty() => "(empty)".to_string(),
                                Some(s) => s,
                            })
                            .collect()
                    })
                    .collect();
                Ok(DBOutput::Rows {
                    types: vec![DefaultColumnType::Any; schema.fields().len()],
                    rows,
                })
            }
        }
    }

    fn engine_name(&self) -> &str {
        "quiver"
    }
}

fn slt_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sql")
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "slt") {
            out.push(p);
        }
    }
}

fn run_file(path: &Path) -> Result<(), String> {
    let mut runner = sqllogictest::Runner::new(|| async {
        let config = EngineConfig {
            threads: 2,
            ..EngineConfig::default()
        };
        Ok(QuiverDb {
            session: Session::new(Database::in_memory(), config),
        })
    });
    runner.add_label("quiver");
    runner
        .run_file(path)
        .map_err(|e| e.display(false).to_string())
}

fn main() {
    let args = Arguments::from_args();
    let root = slt_root();
    let mut files = Vec::new();
    collect(&root, &mut files);
    let known: Vec<String> = std::fs::read_to_string(root.join("known_failures.txt"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    let trials = files
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            let expect_fail = known.contains(&name);
            Trial::test(name.clone(), move || match (run_file(&path), expect_fail) {
                (Ok(()), false) => Ok(()),
                (Err(e), false) => Err(Failed::from(e)),
                (Err(_), true) => Ok(()),
                (Ok(()), true) => Err(Failed::from(format!(
                    "{name} now passes: remove it from tests/sql/known_failures.txt"
                ))),
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
