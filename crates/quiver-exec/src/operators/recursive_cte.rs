//! WITH RECURSIVE: the anchor's rows, then rounds of the recursive part
//! over the rows the round before added, until a round adds none, the
//! round limit (`max_recursive_iterations`, warning 1931) or a cancel.
//! Each round plans the recursive part afresh over that round's work
//! table, so no operator state (a hash join's built side) outlives it.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BinaryArray, BooleanArray, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, SchemaRef};
use hashbrown::HashSet;
use quiver_collation::Collation;
use quiver_common::Result;
use quiver_plan::{ColumnId, LogicalPlan};

use super::exec_plan::{execute_partitions, metered, BatchStream, ExecutionPlan, Metrics};
use crate::expr::cast_array;
use crate::warnings::{Condition, Level};
use crate::ExecContext;

/// The rows each work table of the plan holds this round.
pub(crate) type WorkTables = HashMap<ColumnId, Arc<Vec<RecordBatch>>>;

#[derive(Debug)]
pub struct RecursiveCteExec {
    anchor: Arc<dyn ExecutionPlan>,
    /// The recursive part over an empty work table, for EXPLAIN.
    shape: Arc<dyn ExecutionPlan>,
    recursive: Arc<LogicalPlan>,
    work: ColumnId,
    /// The work tables of enclosing recursive CTEs the part may read.
    outer: WorkTables,
    distinct: bool,
    max_iterations: u64,
    /// Per output column, the collation its strings compare under.
    collations: Vec<Option<Collation>>,
    threads: usize,
    schema: SchemaRef,
    metrics: Arc<Metrics>,
}

/// What `RecursiveCteExec::new` takes.
pub(crate) struct RecursiveCteParts {
    pub anchor: Arc<dyn ExecutionPlan>,
    pub shape: Arc<dyn ExecutionPlan>,
    pub recursive: Arc<LogicalPlan>,
    pub work: ColumnId,
    pub outer: WorkTables,
    pub distinct: bool,
    pub max_iterations: u64,
    pub collations: Vec<Option<Collation>>,
    pub threads: usize,
}

impl RecursiveCteExec {
    pub(crate) fn new(p: RecursiveCteParts, schema: SchemaRef) -> Self {
        RecursiveCteExec {
            anchor: p.anchor,
            shape: p.shape,
            recursive: p.recursive,
            work: p.work,
            outer: p.outer,
            distinct: p.distinct,
            max_iterations: p.max_iterations,
            collations: p.collations,
            threads: p.threads,
            schema,
            metrics: Default::default(),
        }
    }

    fn run(&self, ctx: &Arc<ExecContext>) -> Result<Vec<RecordBatch>> {
        let mut seen = self.distinct.then(|| SeenRows::new(&self.collations));
        let mut fresh = |batches: Vec<Vec<RecordBatch>>| -> Result<Vec<RecordBatch>> {
            let mut out = Vec::new();
            for b in batches.into_iter().flatten() {
                let b = self.conform(&b)?;
                let b = match &mut seen {
                    Some(s) => s.new_rows(&b)?,
                    None => b,
                };
                if b.num_rows() > 0 {
                    out.push(b);
                }
            }
            Ok(out)
        };
        // What the result holds is the query's memory.
        let mut held = ctx.memory.reserve(0)?;
        let mut work = fresh(execute_partitions(&self.anchor, ctx)?)?;
        held.grow(work.iter().map(crate::context::batch_bytes).sum())?;
        let mut result = work.clone();
        let mut rounds = 0u64;
        while !work.is_empty() {
            ctx.check_cancelled()?;
            if rounds >= self.max_iterations {
                ctx.warnings.push(Condition::new(
                    Level::Warning,
                    1931,
                    format!(
                        "Query execution was interrupted. The query exceeded \
                         max_recursive_iterations = {}. The query result may be incomplete",
                        self.max_iterations
                    ),
                ));
                break;
            }
            let mut tables = self.outer.clone();
            tables.insert(self.work, Arc::new(std::mem::take(&mut work)));
            let plan =
                crate::planner::plan_with_work_tables(&self.recursive, self.threads, tables)?;
            work = fresh(execute_partitions(&plan, ctx)?)?;
            held.grow(work.iter().map(crate::context::batch_bytes).sum())?;
            result.extend(work.iter().cloned());
            rounds += 1;
        }
        Ok(result)
    }

    /// `b` with the CTE's schema (a part's columns cast to the CTE's types).
    fn conform(&self, b: &RecordBatch) -> Result<RecordBatch> {
        let columns = b
            .columns()
            .iter()
            .zip(self.schema.fields())
            .map(|(c, f)| cast_array(c, f.data_type()))
            .collect::<Result<Vec<_>>>()?;
        Ok(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
        )?)
    }
}

impl ExecutionPlan for RecursiveCteExec {
    fn describe(&self) -> String {
        format!(
            "RecursiveCte {} max_iterations={}",
            if self.distinct { "Distinct" } else { "All" },
            self.max_iterations
        )
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        vec![self.anchor.clone(), self.shape.clone()]
    }
    fn output_partitions(&self) -> usize {
        1
    }
    fn execute(&self, _partition: usize, ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        let batches = self.run(ctx)?;
        Ok(metered(
            Box::new(batches.into_iter().map(Ok)),
            &self.metrics,
        ))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}

/// The rows of a UNION DISTINCT recursion so far, as encoded keys: strings
/// by their collation's normalized key (equal strings, equal keys), other
/// values as arrow-row encodes them; NULLs equal.
struct SeenRows {
    collations: Vec<Option<Collation>>,
    rows: HashSet<Box<[u8]>>,
    converter: Option<arrow_row::RowConverter>,
}

impl SeenRows {
    fn new(collations: &[Option<Collation>]) -> Self {
        SeenRows {
            collations: collations.to_vec(),
            rows: HashSet::new(),
            converter: None,
        }
    }

    /// The rows of `b` not seen before (and not twice in `b`).
    fn new_rows(&mut self, b: &RecordBatch) -> Result<RecordBatch> {
        let keys: Vec<ArrayRef> = b
            .columns()
            .iter()
            .zip(&self.collations)
            .map(|(c, coll)| key_column(c, *coll))
            .collect();
        if self.converter.is_none() {
            let fields = keys
                .iter()
                .map(|k| arrow_row::SortField::new(k.data_type().clone()))
                .collect();
            self.converter = Some(arrow_row::RowConverter::new(fields)?);
        }
        let converter = self.converter.as_ref().expect("set above");
        let rows = converter.convert_columns(&keys)?;
        let mask: BooleanArray = (0..b.num_rows())
            .map(|i| Some(self.rows.insert(Box::from(rows.row(i).as_ref()))))
            .collect();
        Ok(arrow_select::filter::filter_record_batch(b, &mask)?)
    }
}

/// A column as its rows compare: text by its collation's normalized keys.
fn key_column(c: &ArrayRef, collation: Option<Collation>) -> ArrayRef {
    let Some(collation) = collation else {
        return c.clone();
    };
    let mut key = Vec::new();
    let keyed = |v: Option<&[u8]>, key: &mut Vec<u8>| {
        v.map(|s| {
            key.clear();
            collation.normalized_key(s, key);
            key.clone()
        })
    };
    let values: Vec<Option<Vec<u8>>> = match c.data_type() {
        DataType::Utf8 => {
            let a = arrow_array::cast::AsArray::as_string::<i32>(c.as_ref());
            a.iter()
                .map(|v| keyed(v.map(str::as_bytes), &mut key))
                .collect()
        }
        DataType::LargeUtf8 => {
            let a = arrow_array::cast::AsArray::as_string::<i64>(c.as_ref());
            a.iter()
                .map(|v| keyed(v.map(str::as_bytes), &mut key))
                .collect()
        }
        DataType::Utf8View => {
            let a = arrow_array::cast::AsArray::as_string_view(c.as_ref());
            a.iter()
                .map(|v| keyed(v.map(str::as_bytes), &mut key))
                .collect()
        }
        _ => return c.clone(),
    };
    Arc::new(BinaryArray::from_iter(values))
}

/// A recursive CTE's work table: the rows its last round added.
#[derive(Debug)]
pub struct WorkTableExec {
    rows: Arc<Vec<RecordBatch>>,
    schema: SchemaRef,
    metrics: Arc<Metrics>,
}

impl WorkTableExec {
    pub fn new(rows: Arc<Vec<RecordBatch>>, schema: SchemaRef) -> Self {
        WorkTableExec {
            rows,
            schema,
            metrics: Default::default(),
        }
    }
}

impl ExecutionPlan for WorkTableExec {
    fn describe(&self) -> String {
        "WorkTable".into()
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        vec![]
    }
    fn output_partitions(&self) -> usize {
        1
    }
    fn execute(&self, _partition: usize, _ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        let (rows, schema) = (self.rows.clone(), self.schema.clone());
        let stream = (0..rows.len()).map(move |i| {
            let b = &rows[i];
            Ok(RecordBatch::try_new_with_options(
                schema.clone(),
                b.columns().to_vec(),
                &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
            )?)
        });
        Ok(metered(Box::new(stream), &self.metrics))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}
