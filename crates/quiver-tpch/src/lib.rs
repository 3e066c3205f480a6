//! TPC-H for Quiver: the eight tables generated in-process by the `tpchgen`
//! crate (the same generator as dbgen, byte for byte) straight into columnar
//! batches, and the 22 queries with the spec's validation parameters.

mod generate;

pub use generate::{generate, table_rows, table_schema, TABLES};

/// The text of query `n` (1..=22), as in `queries/qNN.sql`.
pub fn query(n: usize) -> Option<&'static str> {
    QUERIES.get(n.wrapping_sub(1)).copied()
}

const QUERIES: [&str; 22] = [
    include_str!("../queries/q01.sql"),
    include_str!("../queries/q02.sql"),
    include_str!("../queries/q03.sql"),
    include_str!("../queries/q04.sql"),
    include_str!("../queries/q05.sql"),
    include_str!("../queries/q06.sql"),
    include_str!("../queries/q07.sql"),
    include_str!("../queries/q08.sql"),
    include_str!("../queries/q09.sql"),
    include_str!("../queries/q10.sql"),
    include_str!("../queries/q11.sql"),
    include_str!("../queries/q12.sql"),
    include_str!("../queries/q13.sql"),
    include_str!("../queries/q14.sql"),
    include_str!("../queries/q15.sql"),
    include_str!("../queries/q16.sql"),
    include_str!("../queries/q17.sql"),
    include_str!("../queries/q18.sql"),
    include_str!("../queries/q19.sql"),
    include_str!("../queries/q20.sql"),
    include_str!("../queries/q21.sql"),
    include_str!("../queries/q22.sql"),
];
