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
        let mut input = String::new();
        std::io::stdin()
            .read_to_string(&mut input)
            .map_err(|e| quiver_common::QuiverError::io("cannot read standard input", e))?;
        return run_piped(&session, &input);
    }
    let mut editor =
        DefaultEditor::new().map_err(|e| quiver_common::QuiverError::internal(e.to_string()))?;
    let history =
        std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".quiver_history"));
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    println!(
        "Quiver {} — statements end with ';', help with \\h, quit with \\q or Ctrl-D.",
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
                if buffer.is_empty() {
                    match client_command(trimmed) {
                        Some(ClientCommand::Quit) => break,
                        Some(ClientCommand::Help) => {
                            print!("{HELP}");
                            continue;
                        }
                        None => {}
                    }
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

/// What the shell does itself rather than send to the engine, as the mysql
/// client has its own commands.
#[derive(Debug, PartialEq, Eq)]
enum ClientCommand {
    Quit,
    Help,
}

const HELP: &str = "\
Quiver shell commands (each alone on a line, a trailing ';' allowed):
  help, \\h, ?       show this help
  exit, quit, \\q    end the session (so does Ctrl-D)
Anything else is SQL: statements end with ';' and may span lines.
";

/// The client command that a whole `line` is, if it is one: `exit`, `quit`,
/// `\q`, `help`, `\h` or `?`, with or without a trailing `;`, as the mysql
/// client takes them.
fn client_command(line: &str) -> Option<ClientCommand> {
    let word = line.trim();
    let word = word.strip_suffix(';').unwrap_or(word).trim_end();
    if word.eq_ignore_ascii_case("exit") || word.eq_ignore_ascii_case("quit") || word == "\\q" {
        Some(ClientCommand::Quit)
    } else if word.eq_ignore_ascii_case("help") || word == "\\h" || word == "?" {
        Some(ClientCommand::Help)
    } else {
        None
    }
}

/// Whether `sql` ends between statements, so that a next line starts a new
/// one: its last piece has its `;` (a `;` inside a string or comment does not
/// count, and an unterminated string runs to the end).
fn ends_between_statements(sql: &str) -> bool {
    match quiver_sql::split_statements(sql).last() {
        None => true,
        Some(last) => {
            let end = last.as_ptr() as usize - sql.as_ptr() as usize + last.len();
            end < sql.len()
        }
    }
}

/// Piped input runs as a script, its client commands taken between
/// statements: `exit` ends it there, `help` prints the help.
fn run_piped(session: &Session, input: &str) -> Result<()> {
    let mut pending = String::new();
    for line in input.split_inclusive('\n') {
        if ends_between_statements(&pending) {
            if let Some(command) = client_command(line) {
                crate::run_script(session, &pending, OutputFormat::Table)?;
                pending.clear();
                match command {
                    ClientCommand::Quit => return Ok(()),
                    ClientCommand::Help => print!("{HELP}"),
                }
                continue;
            }
        }
        pending.push_str(line);
    }
    crate::run_script(session, &pending, OutputFormat::Table)
}

fn run_statements(session: &Session, sql: &str) {
    for piece in quiver_sql::split_statements(sql) {
        let piece = piece.trim_start();
        let stmts = match quiver_sql::parse_sql(piece) {
            Ok(s) => s,
            Err(e) => {
                session.record_error(&e);
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
                    // As the mysql client says it: `1 warning`, `2 warnings`.
                    let warnings = match session.statement_warning_count() {
                        0 => String::new(),
                        1 => "1 warning ".to_string(),
                        n => format!("{n} warnings "),
                    };
                    match &r {
                        StatementResult::Rows { .. } => {
                            let _ = crate::print_result(&r, OutputFormat::Table);
                            println!("{warnings}({secs:.3} sec)\n");
                        }
                        StatementResult::Done { affected } => {
                            let warnings = warnings.trim_end();
                            let warnings = match warnings {
                                "" => String::new(),
                                w => format!(", {w}"),
                            };
                            println!(
                                "Query OK, {affected} rows affected{warnings} ({secs:.3} sec)\n"
                            )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_commands_are_whole_lines_with_an_optional_semicolon() {
        for line in ["exit", "quit", "\\q", "EXIT;", " Quit ; ", "\\q;\n"] {
            assert_eq!(client_command(line), Some(ClientCommand::Quit), "{line:?}");
        }
        for line in ["help", "help;", "\\h", "?", "HELP\n"] {
            assert_eq!(client_command(line), Some(ClientCommand::Help), "{line:?}");
        }
        for line in ["exit 1", "SELECT 1;", "quitter", "help me", ""] {
            assert_eq!(client_command(line), None, "{line:?}");
        }
    }

    #[test]
    fn a_statement_without_its_semicolon_is_still_open() {
        assert!(ends_between_statements(""));
        assert!(ends_between_statements("SELECT 1;\n"));
        assert!(ends_between_statements("SELECT 1; -- done\n"));
        assert!(!ends_between_statements("SELECT 1\n"));
        assert!(!ends_between_statements("SELECT 'a;\n"));
    }
}
