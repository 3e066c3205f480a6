//! The interactive shell: line editing, history, statements ended by `;`.

use std::sync::Arc;
use std::time::Instant;

use quiver_common::Result;
use quiver_engine::{Database, EngineConfig, OutputFormat, Session, StatementResult};
use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;

pub fn run(db: Arc<Database>, cfg: EngineConfig) -> Result<()> {
    let session = Session::new(db, cfg);
    let mut editor =
        DefaultEditor::new().map_err(|e| quiver_common::QuiverError::internal(e.to_string()))?;
    let history =
        std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".quiver_history"));
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    println!(
        "Quiver {} — statements end with ';', quit with \\q or Ctrl-D.",
        env!("CARGO_PKG_VERSION")
    );
    let mut buffer = String::new();
    loop {
        let prompt = if buffer.is_empty() {
            "quiver> "
        } else {
            "     -> "
        };
        match editor.readline(prompt) {
            Ok(line) => {
                let trimmed = line.trim();
                if buffer.is_empty()
                    && (trimmed == "\\q"
                        || trimmed.eq_ignore_ascii_case("quit")
                        || trimmed.eq_ignore_ascii_case("exit"))
                {
                    break;
                }
                buffer.push_str(&line);
                buffer.push('\n');
                if !trimmed.ends_with(';') {
                    continue;
                }
                let _ = editor.add_history_entry(buffer.trim());
                let sql = std::mem::take(&mut buffer);
                run_statements(&session, &sql);
            }
            Err(ReadlineError::Interrupted) => buffer.clear(),
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("{e}");
                break;
            }
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    Ok(())
}

fn run_statements(session: &Session, sql: &str) {
    let stmts = match quiver_sql::parse_sql(sql) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return;
        }
    };
    let source = std::sync::Arc::new(quiver_sql::SqlSource::new(sql));
    for stmt in stmts {
        let start = Instant::now();
        match session.execute_statement_from(&stmt, &source) {
            Ok(r) => {
                let secs = start.elapsed().as_secs_f64();
                match &r {
                    StatementResult::Rows { .. } => {
                        let _ = crate::print_result(&r, OutputFormat::Table);
                        println!("({secs:.3} sec)\n");
                    }
                    StatementResult::Done { affected } => {
                        println!("Query OK, {affected} rows affected ({secs:.3} sec)\n")
                    }
                }
            }
            Err(e) => {
                eprintln!("{e}");
                return;
            }
        }
    }
}
