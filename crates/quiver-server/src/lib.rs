//! The MySQL client/server protocol over a Quiver database: `quiver serve`.
//!
//! One thread per connection (std::net, blocking I/O with timeouts), one
//! engine `Session` per connection over one shared `Database`. See
//! docs/SERVER.md for what is supported.

pub mod auth;
mod binary_literals;
mod config;
mod conn;
mod itemnames;
pub mod packet;
mod prepared;
pub mod proto;
pub mod resultset;
mod server;
mod shared;
mod sqltext;

pub use config::{ServerConfig, SERVER_VERSION};
pub use server::{Server, ServerHandle};
