//! `quiver serve`: the MySQL wire-protocol server over a database folder.

use std::path::PathBuf;
use std::time::Duration;

use quiver_common::Result;
use quiver_engine::EngineConfig;
use quiver_server::{Server, ServerConfig};

#[derive(clap::Args)]
pub struct ServeArgs {
    /// Address to listen on. Beyond loopback, every account needs a password.
    #[arg(long, default_value = "127.0.0.1")]
    bind: String,
    #[arg(long, default_value_t = 3306)]
    port: u16,
    /// Accounts file: one `user plugin credential` a line (see docs/SERVER.md).
    #[arg(long, value_name = "FILE")]
    users: Option<PathBuf>,
    /// Connections served at once; more are refused with error 1040.
    #[arg(long, default_value_t = 151)]
    max_connections: usize,
    /// Longest packet accepted from a client, e.g. 64M.
    #[arg(long, default_value = "64M", value_parser = crate::parse_size)]
    max_allowed_packet: usize,
    /// Seconds a connection may stay idle before it is closed.
    #[arg(long, default_value_t = 28800)]
    wait_timeout: u64,
}

pub fn run(args: ServeArgs, db: Option<PathBuf>, cfg: EngineConfig) -> Result<()> {
    let database = crate::open_database(db.as_ref())?;
    let config = ServerConfig {
        bind: args.bind,
        port: args.port,
        max_connections: args.max_connections.max(1),
        max_allowed_packet: args.max_allowed_packet.max(1024),
        wait_timeout: Duration::from_secs(args.wait_timeout.max(1)),
        users_file: args.users,
        ..ServerConfig::default()
    };
    let server = Server::bind(database, cfg, config)?;
    let where_ = match &db {
        Some(d) => d.display().to_string(),
        None => "a temporary in-memory database".to_string(),
    };
    eprintln!(
        "quiver {} serving {where_} on {} (MySQL protocol)",
        env!("CARGO_PKG_VERSION"),
        server.local_addr()
    );
    server.run()
}
