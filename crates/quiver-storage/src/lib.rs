//! Table storage of a database folder, and loading of external files.
//!
//! Format 2 (docs/STORAGE.md): `DIR/tables/<name>/table.meta` (manifest:
//! generation, row count, columns with their metadata and distinct estimates,
//! a CRC-32C) names `data-<generation>.qvt`, which holds the rows in row
//! groups, each column of a row group one page with its own header, min/max
//! and CRC-32C, then a directory of the pages. A new generation is written and
//! fsynced before the manifest is switched by rename, so a crash leaves either
//! the old or the new table, never a mix. Format 1 files (`data-*.bin`) are
//! still read; the next write of such a table converts it.

pub mod check;
pub mod commit;
pub mod csv_load;
mod errors;
pub mod leftovers;
mod legacy;
pub mod page;
pub mod parquet_load;
pub mod sketch;
pub mod table_file;
mod text_array;
pub mod type_names;

pub use page::Compression;
pub use table_file::CollatedZone;
pub use table_file::{
    estimate_distinct, open_table, open_table_as, read_table, stage_table, write_table,
    write_table_with, ColumnPage, StagedTable, TableFile, TableMeta, WriteOptions, WrittenTable,
    ZoneStats,
};
