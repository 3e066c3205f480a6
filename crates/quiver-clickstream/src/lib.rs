//! The web-analytics workload: a deterministic generator of `hits`, a wide
//! (100-column) clickstream table, straight into Quiver or into batches for
//! a Parquet file the peers read, and the workload's queries
//! (`queries.sql`) with their spelling for each engine.
//!
//! The queries are our own, in the spirit of the public ClickBench: counts,
//! high-cardinality GROUP BY and COUNT(DISTINCT) over users, phrases and
//! URLs, top-N, LIKE and REGEXP over URLs, wide sums and `SELECT *` top-N.

mod columns;
mod generate;
mod queries;
mod random;
mod vocabulary;

pub use columns::{create_table_sql, COLUMNS};
pub use generate::{batches, generate, TABLE};
pub use queries::{queries, Engine, Query};
