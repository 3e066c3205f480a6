//! The `quiver` command.

mod allocator;
mod check;
mod innochecksum;
mod load;
mod serve;
mod shell;
mod timing;
mod tpch;
mod web;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use quiver_common::{QuiverError, Result};
use quiver_engine::{Database, EngineConfig, OutputFormat, Session, StatementResult};

#[derive(Parser)]
#[command(
    name = "quiver",
    version,
    about = "Quiver: a vectorized, MySQL-compatible analytical SQL engine"
)]
struct Cli {
    /// Database folder (created if missing). Without it, a temporary in-memory database.
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, global = true, value_parser = parse_threads)]
    threads: Option<usize>,
    /// Memory the operators of a query may hold, e.g. 4G or 512M (default: 60% of RAM).
    #[arg(long, global = true, value_parser = parse_size)]
    memory_limit: Option<usize>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run SQL statements and print their results.
    Sql {
        /// A statement (or several separated by `;`); repeatable.
        #[arg(short = 'e', long = "execute", allow_hyphen_values = true)]
        execute: Vec<String>,
        /// A file of statements separated by `;`.
        #[arg(short = 'f', long = "file")]
        file: Option<PathBuf>,
        #[arg(long, default_value = "table")]
        format: OutputFormat,
        /// Time each SELECT instead of printing it: one warm-up run, then N timed runs in
        /// this process (tables stay in memory); prints `query,rows,median_s` per SELECT,
        /// `query` being a preceding `-- name: xyz` comment line or the statement's number.
        /// Other statements run once, silently.
        #[arg(long, value_name = "N")]
        runs: Option<usize>,
        /// With --runs: time consecutive SELECTs named `group/variant` (same group) run by
        /// run in turn, rotating (a b c, b c a, ...), so that their run i can be compared as a pair.
        #[arg(long, requires = "runs")]
        interleave: bool,
    },
    /// Load a CSV or Parquet file (`.tbl`: pipe-separated, no header) into a table, creating it if needed.
    Load {
        table: String,
        file: PathBuf,
        /// Field delimiter (default: `,`, or `|` for .tbl).
        #[arg(long)]
        delimiter: Option<char>,
        /// Whether the first line is a header (default: yes, except for .tbl).
        #[arg(long)]
        header: Option<bool>,
    },
    /// TPC-H: generate data and run the 22 queries. Without a subcommand: both, into a default folder.
    Tpch(tpch::TpchArgs),
    /// The web-analytics workload: generate the wide `hits` clickstream table, print its queries.
    Web(web::WebArgs),
    /// Verify the page checksums of InnoDB / MariaDB tablespace files (a faster `innochecksum`).
    Innochecksum(innochecksum::InnochecksumArgs),
    /// Verify every page checksum of every table of a database folder.
    Check(check::CheckArgs),
    /// Serve the database over the MySQL wire protocol, so MySQL clients work unchanged.
    Serve(serve::ServeArgs),
}

/// `--threads`: a whole number of at least 1 (0 would run nothing).
fn parse_threads(s: &str) -> std::result::Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{s}' is not a number of threads")),
    }
}

fn parse_size(s: &str) -> std::result::Result<usize, String> {
    let s = s.trim();
    let (num, mult) = match s.chars().last() {
        Some('K' | 'k') => (&s[..s.len() - 1], 1usize << 10),
        Some('M' | 'm') => (&s[..s.len() - 1], 1 << 20),
        Some('G' | 'g') => (&s[..s.len() - 1], 1 << 30),
        Some('T' | 't') => (&s[..s.len() - 1], 1 << 40),
        _ => (s, 1),
    };
    let n: f64 = num
        .parse()
        .map_err(|_| format!("invalid size '{s}' (examples: 4G, 512M)"))?;
    Ok((n * mult as f64) as usize)
}

pub(crate) fn open_database(dir: Option<&PathBuf>) -> Result<Arc<Database>> {
    match dir {
        Some(d) => Database::open(d),
        None => Ok(Database::in_memory()),
    }
}

pub(crate) fn config(cli_threads: Option<usize>, memory_limit: Option<usize>) -> EngineConfig {
    let mut c = EngineConfig::default();
    if let Some(t) = cli_threads {
        c.threads = t.max(1);
    }
    if let Some(m) = memory_limit {
        c.memory_limit = m;
    }
    c
}

/// Runs the statements of `sql` in turn, each parsed when its turn comes,
/// printing each result; stops at the first error, after the statements
/// before it have run (as the mysql client does in batch mode).
pub(crate) fn run_script(session: &Session, sql: &str, format: OutputFormat) -> Result<()> {
    for piece in quiver_sql::split_statements(sql) {
        // Error positions count lines from the statement's first word.
        let piece = piece.trim_start();
        let source = Arc::new(quiver_sql::SqlSource::new(piece));
        for stmt in quiver_sql::parse_sql(piece)? {
            if format == OutputFormat::Csv {
                stream_csv(session, &stmt, &source)?;
                continue;
            }
            let r = session.execute_statement_from(&stmt, &source)?;
            print_result(&r, format)?;
        }
    }
    Ok(())
}

/// CSV goes out a batch at a time as the query makes them, so an export of
/// any size needs no more memory than the query itself.
fn stream_csv(
    session: &Session,
    stmt: &quiver_sql::sqlparser::ast::Statement,
    source: &Arc<quiver_sql::SqlSource>,
) -> Result<()> {
    use std::io::Write;
    let quiver_engine::StreamedResult::Rows(rows) = session.execute_streaming(stmt, source)? else {
        return Ok(());
    };
    let mut out = std::io::stdout().lock();
    let header = quiver_engine::format::csv_header(&rows.schema());
    if out.write_all(header.as_bytes()).is_err() {
        return Ok(());
    }
    for batch in rows {
        let text = quiver_engine::format::csv_rows(&[batch?])?;
        // A closed pipe (e.g. `| head`) ends the output, not with an error.
        if out.write_all(text.as_bytes()).is_err() {
            return Ok(());
        }
    }
    Ok(())
}

pub(crate) fn print_result(r: &StatementResult, format: OutputFormat) -> Result<()> {
    use std::io::Write;
    let text = match r {
        StatementResult::Rows { schema, batches } => match format {
            OutputFormat::Table => quiver_engine::format_table(schema, batches)?,
            OutputFormat::Csv => quiver_engine::format_csv(schema, batches)?,
            OutputFormat::Json => quiver_engine::format_json(schema, batches)?,
        },
        StatementResult::Done { affected } => match format {
            OutputFormat::Table => format!(
                "Query OK, {affected} row{} affected\n",
                if *affected == 1 { "" } else { "s" }
            ),
            _ => String::new(),
        },
    };
    let mut out = std::io::stdout().lock();
    // A closed pipe (e.g. `| head`) is not an error worth reporting.
    let _ = out.write_all(text.as_bytes());
    Ok(())
}

fn run(cli: Cli) -> Result<ExitCode> {
    let cfg = config(cli.threads, cli.memory_limit);
    match cli.command {
        None => shell::run(open_database(cli.db.as_ref())?, cfg).map(|()| ExitCode::SUCCESS),
        Some(Command::Sql {
            execute,
            file,
            format,
            runs,
            interleave,
        }) => {
            let session = Session::new(open_database(cli.db.as_ref())?, cfg);
            let mut scripts = execute;
            if let Some(f) = file {
                scripts
                    .push(std::fs::read_to_string(&f).map_err(|e| {
                        QuiverError::io(&format!("cannot read {}", f.display()), e)
                    })?);
            }
            if scripts.is_empty() && !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
                // `quiver sql < script.sql`, as `mysql < script.sql`.
                let mut input = String::new();
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut input)
                    .map_err(|e| QuiverError::io("cannot read standard input", e))?;
                scripts.push(input);
            }
            if scripts.is_empty() {
                return Err(QuiverError::syntax_msg(
                    "nothing to run: give -e SQL, -f FILE or statements on standard input",
                ));
            }
            if let Some(runs) = runs {
                return timing::run(&session, &scripts, runs, interleave, format)
                    .map(|()| ExitCode::SUCCESS);
            }
            for sql in scripts {
                run_script(&session, &sql, format)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Load {
            table,
            file,
            delimiter,
            header,
        }) => {
            let db = open_database(cli.db.as_ref())?;
            load::load(&db, &table, &file, delimiter, header).map(|()| ExitCode::SUCCESS)
        }
        Some(Command::Tpch(args)) => tpch::run(args, cli.db, cfg).map(|()| ExitCode::SUCCESS),
        Some(Command::Web(args)) => web::run(args, cli.db, cfg).map(|()| ExitCode::SUCCESS),
        // Its own exit statuses, as MariaDB's innochecksum has them.
        Some(Command::Innochecksum(args)) => innochecksum::run(args, cli.threads),
        // Exit status 1 when any page is damaged.
        Some(Command::Check(args)) => check::run(args, cli.db, cli.threads),
        Some(Command::Serve(args)) => serve::run(args, cli.db, cfg).map(|()| ExitCode::SUCCESS),
    }
}

fn main() -> ExitCode {
    allocator::configure();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}
