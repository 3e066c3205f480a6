//! Generation of the TPC-H tables into a database, in parallel chunks.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow_array::builder::{
    Date32Builder, Decimal128Builder, Int32Builder, Int64Builder, StringBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use quiver_common::{QuiverError, Result};
use quiver_engine::Database;
use rayon::prelude::*;
use tpchgen::generators::*;

pub const TABLES: [&str; 8] = [
    "region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem",
];

/// Rows per generated chunk: each chunk is one batch and one parallel task.
const CHUNK_ROWS: f64 = 120_000.0;

fn money() -> DataType {
    DataType::Decimal128(15, 2)
}

pub fn table_schema(table: &str) -> Result<SchemaRef> {
    use DataType::*;
    let cols: Vec<(&str, DataType)> = match table {
        "region" => vec![
            ("r_regionkey", Int64),
            ("r_name", Utf8),
            ("r_comment", Utf8),
        ],
        "nation" => vec![
            ("n_nationkey", Int64),
            ("n_name", Utf8),
            ("n_regionkey", Int64),
            ("n_comment", Utf8),
        ],
        "supplier" => vec![
            ("s_suppkey", Int64),
            ("s_name", Utf8),
            ("s_address", Utf8),
            ("s_nationkey", Int64),
            ("s_phone", Utf8),
            ("s_acctbal", money()),
            ("s_comment", Utf8),
        ],
        "customer" => vec![
            ("c_custkey", Int64),
            ("c_name", Utf8),
            ("c_address", Utf8),
            ("c_nationkey", Int64),
            ("c_phone", Utf8),
            ("c_acctbal", money()),
            ("c_mktsegment", Utf8),
            ("c_comment", Utf8),
        ],
        "part" => vec![
            ("p_partkey", Int64),
            ("p_name", Utf8),
            ("p_mfgr", Utf8),
            ("p_brand", Utf8),
            ("p_type", Utf8),
            ("p_size", Int32),
            ("p_container", Utf8),
            ("p_retailprice", money()),
            ("p_comment", Utf8),
        ],
        "partsupp" => vec![
            ("ps_partkey", Int64),
            ("ps_suppkey", Int64),
            ("ps_availqty", Int32),
            ("ps_supplycost", money()),
            ("ps_comment", Utf8),
        ],
        "orders" => vec![
            ("o_orderkey", Int64),
            ("o_custkey", Int64),
            ("o_orderstatus", Utf8),
            ("o_totalprice", money()),
            ("o_orderdate", Date32),
            ("o_orderpriority", Utf8),
            ("o_clerk", Utf8),
            ("o_shippriority", Int32),
            ("o_comment", Utf8),
        ],
        "lineitem" => vec![
            ("l_orderkey", Int64),
            ("l_partkey", Int64),
            ("l_suppkey", Int64),
            ("l_linenumber", Int32),
            ("l_quantity", money()),
            ("l_extendedprice", money()),
            ("l_discount", money()),
            ("l_tax", money()),
            ("l_returnflag", Utf8),
            ("l_linestatus", Utf8),
            ("l_shipdate", Date32),
            ("l_commitdate", Date32),
            ("l_receiptdate", Date32),
            ("l_shipinstruct", Utf8),
            ("l_shipmode", Utf8),
            ("l_comment", Utf8),
        ],
        other => return Err(QuiverError::unknown_table(other)),
    };
    Ok(Arc::new(Schema::new(
        cols.into_iter()
            .map(|(n, t)| Field::new(n, t, false))
            .collect::<Vec<_>>(),
    )))
}

/// Approximate row count of a table at scale factor `sf` (lineitem varies slightly).
pub fn table_rows(table: &str, sf: f64) -> u64 {
    let base = match table {
        "region" => return 5,
        "nation" => return 25,
        "supplier" => 10_000.0,
        "customer" => 150_000.0,
        "part" => 200_000.0,
        "partsupp" => 800_000.0,
        "orders" => 1_500_000.0,
        _ => 6_001_215.0,
    };
    (base * sf).max(1.0) as u64
}

/// Builders for one chunk of a table.
struct Cols {
    cols: Vec<Col>,
}

enum Col {
    I64(Int64Builder),
    I32(Int32Builder),
    Dec(Decimal128Builder),
    Date(Date32Builder),
    Str(StringBuilder),
}

impl Cols {
    fn new(schema: &SchemaRef, rows: usize) -> Cols {
        let cols = schema
            .fields()
            .iter()
            .map(|f| match f.data_type() {
                DataType::Int64 => Col::I64(Int64Builder::with_capacity(rows)),
                DataType::Int32 => Col::I32(Int32Builder::with_capacity(rows)),
                DataType::Decimal128(..) => Col::Dec(Decimal128Builder::with_capacity(rows)),
                DataType::Date32 => Col::Date(Date32Builder::with_capacity(rows)),
                _ => Col::Str(StringBuilder::with_capacity(rows, rows * 16)),
            })
            .collect();
        Cols { cols }
    }

    fn i64(&mut self, c: usize, v: i64) {
        if let Col::I64(b) = &mut self.cols[c] {
            b.append_value(v)
        }
    }
    fn i32(&mut self, c: usize, v: i32) {
        if let Col::I32(b) = &mut self.cols[c] {
            b.append_value(v)
        }
    }
    fn dec(&mut self, c: usize, cents: i64) {
        if let Col::Dec(b) = &mut self.cols[c] {
            b.append_value(cents as i128)
        }
    }
    fn date(&mut self, c: usize, d: tpchgen::dates::TPCHDate) {
        if let Col::Date(b) = &mut self.cols[c] {
            b.append_value(d.to_unix_epoch())
        }
    }
    fn str(&mut self, c: usize, v: impl std::fmt::Display) {
        if let Col::Str(b) = &mut self.cols[c] {
            let _ = write!(b, "{v}");
            b.append_value("");
        }
    }

    fn finish(self, schema: &SchemaRef) -> Result<RecordBatch> {
        let arrays: Vec<ArrayRef> = self
            .cols
            .into_iter()
            .map(|c| -> Result<ArrayRef> {
                Ok(match c {
                    Col::I64(mut b) => Arc::new(b.finish()),
                    Col::I32(mut b) => Arc::new(b.finish()),
                    Col::Dec(mut b) => Arc::new(b.finish().with_precision_and_scale(15, 2)?),
                    Col::Date(mut b) => Arc::new(b.finish()),
                    Col::Str(mut b) => Arc::new(b.finish()),
                })
            })
            .collect::<Result<_>>()?;
        Ok(RecordBatch::try_new(schema.clone(), arrays)?)
    }
}

fn chunk(table: &str, sf: f64, part: i32, parts: i32, schema: &SchemaRef) -> Result<RecordBatch> {
    let mut c = Cols::new(schema, (table_rows(table, sf) / parts as u64) as usize + 16);
    match table {
        "region" => {
            for r in RegionGenerator::new(sf, part, parts).iter() {
                c.i64(0, r.r_regionkey);
                c.str(1, r.r_name);
                c.str(2, r.r_comment);
            }
        }
        "nation" => {
            for n in NationGenerator::new(sf, part, parts).iter() {
                c.i64(0, n.n_nationkey);
                c.str(1, n.n_name);
                c.i64(2, n.n_regionkey);
                c.str(3, n.n_comment);
            }
        }
        "supplier" => {
            for s in SupplierGenerator::new(sf, part, parts).iter() {
                c.i64(0, s.s_suppkey);
                c.str(1, s.s_name);
                c.str(2, &s.s_address);
                c.i64(3, s.s_nationkey);
                c.str(4, &s.s_phone);
                c.dec(5, s.s_acctbal.0);
                c.str(6, &s.s_comment);
            }
        }
        "customer" => {
            for r in CustomerGenerator::new(sf, part, parts).iter() {
                c.i64(0, r.c_custkey);
                c.str(1, r.c_name);
                c.str(2, &r.c_address);
                c.i64(3, r.c_nationkey);
                c.str(4, &r.c_phone);
                c.dec(5, r.c_acctbal.0);
                c.str(6, r.c_mktsegment);
                c.str(7, r.c_comment);
            }
        }
        "part" => {
            for p in PartGenerator::new(sf, part, parts).iter() {
                c.i64(0, p.p_partkey);
                c.str(1, &p.p_name);
                c.str(2, p.p_mfgr);
                c.str(3, p.p_brand);
                c.str(4, p.p_type);
                c.i32(5, p.p_size);
                c.str(6, p.p_container);
                c.dec(7, p.p_retailprice.0);
                c.str(8, p.p_comment);
            }
        }
        "partsupp" => {
            for p in PartSuppGenerator::new(sf, part, parts).iter() {
                c.i64(0, p.ps_partkey);
                c.i64(1, p.ps_suppkey);
                c.i32(2, p.ps_availqty);
                c.dec(3, p.ps_supplycost.0);
                c.str(4, p.ps_comment);
            }
        }
        "orders" => {
            for o in OrderGenerator::new(sf, part, parts).iter() {
                c.i64(0, o.o_orderkey);
                c.i64(1, o.o_custkey);
                c.str(2, o.o_orderstatus);
                c.dec(3, o.o_totalprice.0);
                c.date(4, o.o_orderdate);
                c.str(5, o.o_orderpriority);
                c.str(6, o.o_clerk);
                c.i32(7, o.o_shippriority);
                c.str(8, o.o_comment);
            }
        }
        "lineitem" => {
            for l in LineItemGenerator::new(sf, part, parts).iter() {
                c.i64(0, l.l_orderkey);
                c.i64(1, l.l_partkey);
                c.i64(2, l.l_suppkey);
                c.i32(3, l.l_linenumber);
                c.dec(4, l.l_quantity * 100);
                c.dec(5, l.l_extendedprice.0);
                c.dec(6, l.l_discount.0);
                c.dec(7, l.l_tax.0);
                c.str(8, l.l_returnflag);
                c.str(9, l.l_linestatus);
                c.date(10, l.l_shipdate);
                c.date(11, l.l_commitdate);
                c.date(12, l.l_receiptdate);
                c.str(13, l.l_shipinstruct);
                c.str(14, l.l_shipmode);
                c.str(15, l.l_comment);
            }
        }
        other => return Err(QuiverError::unknown_table(other)),
    }
    c.finish(schema)
}

/// Generates all eight tables at scale factor `sf` into `db`, replacing any
/// existing TPC-H tables. `progress(table, rows_done)` is called as chunks finish.
pub fn generate(db: &Database, sf: f64, progress: &(dyn Fn(&str, u64) + Sync)) -> Result<()> {
    if !(sf > 0.0 && sf <= 1000.0) {
        return Err(QuiverError::new(
            1210,
            "HY000",
            format!("Incorrect scale factor {sf}: use a value in (0, 1000]"),
        ));
    }
    for table in TABLES {
        let schema = table_schema(table)?;
        let rows = table_rows(table, sf) as f64;
        let parts = (rows / CHUNK_ROWS).ceil().max(1.0) as i32;
        let done = AtomicU64::new(0);
        let batches: Vec<RecordBatch> = (1..=parts)
            .into_par_iter()
            .map(|p| {
                let b = chunk(table, sf, p, parts, &schema)?;
                let d =
                    done.fetch_add(b.num_rows() as u64, Ordering::Relaxed) + b.num_rows() as u64;
                progress(table, d);
                Ok(b)
            })
            .collect::<Result<_>>()?;
        if db.table(table).is_some() {
            db.drop_table(table, true)?;
        }
        db.create_table(table, schema, batches, false)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generates_the_known_row_counts() {
        let db = Database::in_memory();
        generate(&db, 0.01, &|_, _| {}).unwrap();
        let count = |t: &str| {
            db.table(t)
                .unwrap()
                .data()
                .unwrap()
                .iter()
                .map(|b| b.num_rows())
                .sum::<usize>()
        };
        assert_eq!(count("region"), 5);
        assert_eq!(count("nation"), 25);
        assert_eq!(count("supplier"), 100);
        assert_eq!(count("customer"), 1500);
        assert_eq!(count("part"), 2000);
        assert_eq!(count("partsupp"), 8000);
        assert_eq!(count("orders"), 15000);
        assert_eq!(count("lineitem"), 60175);
    }
}
