//! The embedded database: a catalog of tables and views over a folder (or
//! memory), and sessions that run SQL statements through the binder,
//! optimizer and executor.

mod alter;
mod assignments;
mod auto_increment;
pub mod catalog;
mod check_text;
mod checks;
mod databases;
mod ddl;
mod diagnostics;
mod dml;
mod explain;
mod folder_names;
pub mod format;
pub mod information_schema;
mod keys;
mod keys_ddl;
mod plan_cache;
pub mod prepared_sql;
pub mod process;
pub mod query;
pub mod session;
mod set;
mod show;
mod show_create;
mod store;
pub mod stream;
mod transaction;
mod upsert;
mod variables;

pub use catalog::{Database, Table, INFORMATION_SCHEMA, SCHEMA_NAME};
pub use format::{format_csv, format_json, format_table, OutputFormat};
pub use process::{Process, ProcessList};
pub use query::PreparedQuery;
pub use session::{EngineConfig, Session, StatementResult};
pub use store::{csv_read_schema, file_read_schema, stored_from_file};
pub use stream::{RowStream, StreamedResult};
