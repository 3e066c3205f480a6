//! Table storage of a database folder, and loading of external files.
//!
//! Layout (version 1, a simple columnar format; the paged, zone-mapped format
//! is planned separately): `DIR/tables/<name>/table.meta` names the current
//! data file and the columns; `data-<generation>.bin` holds the batches, each
//! column's buffers length-prefixed, with a CRC-32C over the whole file.
//! A new generation is written and fsynced before the manifest is switched by
//! rename, so a crash leaves either the old or the new table, never a mix.

pub mod csv_load;
pub mod parquet_load;
pub mod sketch;
pub mod table_file;
pub mod type_names;

pub use table_file::{estimate_distinct, read_table, write_table, TableMeta};
