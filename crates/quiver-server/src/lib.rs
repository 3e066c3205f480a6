//! The MySQL client/server protocol over a Quiver database: `quiver serve`.
//!
//! One thread per connection (std::net, blocking I/O with timeouts), one
//! engine `Session` per connection over one shared `Database`. See
//! docs/SERVER.md for what is supported.

pub mod auth;
mod binary_literals;
mod conn;
mod itemnames;
pub mod packet;
mod prepared;
pub mod proto;
pub mod resultset;
mod server;
mod sqltext;

pub use server::{Server, ServerConfig, ServerHandle, SERVER_VERSION};
