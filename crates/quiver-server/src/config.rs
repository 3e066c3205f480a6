//! The server's settings (`quiver serve`'s options) and the version it
//! announces.

use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Address to listen on (`127.0.0.1` unless told otherwise).
    pub bind: String,
    /// 0 picks a free port (tests).
    pub port: u16,
    pub max_connections: usize,
    /// The longest packet accepted from a client (MySQL's max_allowed_packet).
    pub max_allowed_packet: usize,
    /// How long a connection may stay silent between commands.
    pub wait_timeout: Duration,
    /// How long the handshake may take.
    pub connect_timeout: Duration,
    /// How long a write to a client that does not read may block.
    pub net_write_timeout: Duration,
    /// An accounts file (see `auth::Accounts`); accounts created with CREATE
    /// USER live in the database folder's `users` file.
    pub users_file: Option<PathBuf>,
    /// The version announced in the handshake and by `@@version`.
    pub version: String,
}

/// The version the server announces: MySQL 8.0's protocol, so that MySQL 8
/// connectors take their modern paths, and Quiver's own version after it.
pub const SERVER_VERSION: &str = concat!("8.0.40-Quiver-", env!("CARGO_PKG_VERSION"));

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            bind: "127.0.0.1".into(),
            port: 3306,
            max_connections: 151,
            max_allowed_packet: 64 << 20,
            wait_timeout: Duration::from_secs(28800),
            connect_timeout: Duration::from_secs(10),
            net_write_timeout: Duration::from_secs(60),
            users_file: None,
            version: SERVER_VERSION.into(),
        }
    }
}
