//! The interactive shell: line editing, history, statements ended by `;`.

use std::io::{IsTerminal, Read};
use std::sync::Arc;
use std::time::Instant;

use quiver_common::Result;
use quiver_engine::{Database, EngineConfig, OutputFormat, Session, StatementResult};
use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;

pub fn run(db: Arc<Database>, cfg: EngineConfig) -> Result<()> {
    let session = Session::new(db, cfg);
    if !std::io::stdin().is_terminal() {
        // Statements piped in run as a script: the first error ends it with
        // exit status 1, as the mysql client's batch mode does.
        let mut sql = String::new();
        std::io::stdin()
            .read_to_string(&mut sql)
            .map_err(|e| quiver_common::QuiverError::io("cannot read standard input", e))?;
        return crate::run_script(&session, &sql, OutputFormat::Table);
    }
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
    for piece in quiver_sql::split_statements(sql) {
        let piece = piece.trim_start();
        let stmts = match quiver_sql::parse_sql(piece) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                return;
            }
        };
        let source = Arc::new(quiver_sql::SqlSource::new(piece));
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
}
