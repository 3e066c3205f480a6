//! Window functions. The input is gathered, ordered by (PARTITION BY,
//! ORDER BY) with the same sort kernel as ORDER BY, and each function is
//! computed walking that order. Aggregates with ORDER BY use MySQL's default
//! frame (RANGE UNBOUNDED PRECEDING .. CURRENT ROW: peers included);
//! without ORDER BY they cover the whole partition.

use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_row::{RowConverter, SortField};
use arrow_schema::{DataType, SchemaRef};
use quiver_common::types::to_decimal;
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::{AggFunc, WindowFunc};

use super::sort::{collated_sort_column, sort_indices, SortKey};
use super::{execute_partitions, metered, timed, BatchStream, ExecutionPlan, Metrics};
use crate::context::MORSEL_ROWS;
use crate::expr::{cast_array, PhysicalExpr};
use crate::ExecContext;

#[derive(Debug, Clone)]
pub struct WindowSpec {
    pub func: WindowFunc,
    pub arg: Option<PhysicalExpr>,
    pub partition_by: Vec<PhysicalExpr>,
    pub order_by: Vec<SortKey>,
    pub output_type: DataType,
}

#[derive(Debug)]
pub struct WindowExec {
    input: Arc<dyn ExecutionPlan>,
    specs: Vec<WindowSpec>,
    schema: SchemaRef,
    output: OnceLock<Result<Arc<Vec<RecordBatch>>>>,
    metrics: Arc<Metrics>,
}

impl WindowExec {
    pub fn new(input: Arc<dyn ExecutionPlan>, specs: Vec<WindowSpec>, schema: SchemaRef) -> Self {
        WindowExec {
            input,
            specs,
            schema,
            output: OnceLock::new(),
            metrics: Default::default(),
        }
    }

    fn run(&self, ctx: &Arc<ExecContext>) -> Result<Arc<Vec<RecordBatch>>> {
        let batches: Vec<RecordBatch> = execute_partitions(&self.input, ctx)?
            .into_iter()
            .flatten()
            .collect();
        let batch = arrow_select::concat::concat_batches(&self.input.schema(), &batches)?;
        let mut cols = batch.columns().to_vec();
        for spec in &self.specs {
            cols.push(compute(&batch, spec)?);
        }
        let out = RecordBatch::try_new_with_options(
            self.schema.clone(),
            cols,
            &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
        )?;
        let mut chunks = Vec::new();
        let mut off = 0;
        while off < out.num_rows() {
            let len = MORSEL_ROWS.min(out.num_rows() - off);
            chunks.push(out.slice(off, len));
            off += len;
        }
        Ok(Arc::new(chunks))
    }
}

/// Byte-comparable rows of `exprs`, so that equal keys compare equal.
fn key_rows(batch: &RecordBatch, exprs: &[PhysicalExpr]) -> Result<Option<arrow_row::Rows>> {
    if exprs.is_empty() {
        return Ok(None);
    }
    // Strings as their collation's keys: rows equal under it are peers.
    let cols = exprs
        .iter()
        .map(|e| collated_sort_column(e.evaluate_array(batch)?, e.collation()))
        .collect::<Result<Vec<_>>>()?;
    let conv = RowConverter::new(
        cols.iter()
            .map(|c| SortField::new(c.data_type().clone()))
            .collect(),
    )?;
    Ok(Some(conv.convert_columns(&cols)?))
}

#[derive(Default, Clone)]
struct Running {
    count: i64,
    exact: i128,
    float: f64,
    best: Option<ScalarValue>,
}

fn compute(batch: &RecordBatch, spec: &WindowSpec) -> Result<ArrayRef> {
    let n = batch.num_rows();
    let mut keys: Vec<SortKey> = spec
        .partition_by
        .iter()
        .map(|e| SortKey {
            expr: e.clone(),
            asc: true,
            nulls_first: true,
        })
        .collect();
    keys.extend(spec.order_by.iter().cloned());
    let order = sort_indices(batch, &keys, None)?;
    let order: Vec<usize> = order.values().iter().map(|i| *i as usize).collect();
    let parts = key_rows(batch, &spec.partition_by)?;
    let peers = key_rows(
        batch,
        &spec
            .order_by
            .iter()
            .map(|k| k.expr.clone())
            .collect::<Vec<_>>(),
    )?;
    let same = |rows: &Option<arrow_row::Rows>, a: usize, b: usize| {
        rows.as_ref().is_none_or(|r| r.row(a) == r.row(b))
    };
    let arg = spec
        .arg
        .as_ref()
        .map(|a| a.evaluate_array(batch))
        .transpose()?;
    let exact_scale = match &spec.output_type {
        DataType::Decimal128(_, s) => Some(*s),
        _ => None,
    };
    let mut out: Vec<ScalarValue> = vec![ScalarValue::Null; n];
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && same(&parts, order[start], order[end]) {
            end += 1;
        }
        let part = &order[start..end];
        let mut state = Running::default();
        let mut dense = 0i64;
        let mut i = 0;
        // A partition without ORDER BY is one peer group.
        while i < part.len() {
            let mut j = i + 1;
            while j < part.len() && (spec.order_by.is_empty() || same(&peers, part[i], part[j])) {
                j += 1;
            }
            if spec.order_by.is_empty() {
                j = part.len();
            }
            dense += 1;
            let rank = i as i64 + 1;
            if let WindowFunc::Agg(f) = spec.func {
                for &r in &part[i..j] {
                    accumulate(&mut state, f, arg.as_ref(), r, exact_scale)?;
                }
            }
            for (k, &r) in part[i..j].iter().enumerate() {
                out[r] = match spec.func {
                    WindowFunc::RowNumber => ScalarValue::Int64((i + k) as i64 + 1),
                    WindowFunc::Rank => ScalarValue::Int64(rank),
                    WindowFunc::DenseRank => ScalarValue::Int64(dense),
                    WindowFunc::Agg(f) => {
                        finish(&state, f, &spec.output_type, exact_scale, arg.as_ref())?
                    }
                };
            }
            i = j;
        }
        start = end;
    }
    scalars_to_array(&out, &spec.output_type)
}

fn accumulate(
    s: &mut Running,
    f: AggFunc,
    arg: Option<&ArrayRef>,
    row: usize,
    scale: Option<i8>,
) -> Result<()> {
    if f == AggFunc::CountStar {
        s.count += 1;
        return Ok(());
    }
    let a = arg.ok_or_else(|| QuiverError::internal("window aggregate without argument"))?;
    let v = ScalarValue::from_array(a, row)?;
    if v.is_null() {
        return Ok(());
    }
    s.count += 1;
    match f {
        AggFunc::Sum | AggFunc::Avg => match scale {
            Some(_) => {
                let in_scale = match a.data_type() {
                    DataType::Decimal128(_, s) => *s,
                    _ => 0,
                };
                s.exact += to_decimal(&v, in_scale)?;
            }
            None => s.float += v.as_f64().unwrap_or(0.0),
        },
        AggFunc::Min | AggFunc::Max => {
            let better = match &s.best {
                None => true,
                Some(b) => {
                    let o = v.compare(b).unwrap_or(Ordering::Equal);
                    if f == AggFunc::Min {
                        o.is_lt()
                    } else {
                        o.is_gt()
                    }
                }
            };
            if better {
                s.best = Some(v);
            }
        }
        _ => {}
    }
    Ok(())
}

fn finish(
    s: &Running,
    f: AggFunc,
    t: &DataType,
    scale: Option<i8>,
    arg: Option<&ArrayRef>,
) -> Result<ScalarValue> {
    Ok(match f {
        AggFunc::Count | AggFunc::CountStar => ScalarValue::Int64(s.count),
        _ if s.count == 0 => ScalarValue::Null,
        AggFunc::Min | AggFunc::Max => s.best.clone().unwrap_or(ScalarValue::Null),
        AggFunc::Sum | AggFunc::Avg => {
            let avg = f == AggFunc::Avg;
            match (scale, t) {
                (Some(out_scale), DataType::Decimal128(p, _)) => {
                    let in_scale = match arg.map(|a| a.data_type()) {
                        Some(DataType::Decimal128(_, s)) => *s,
                        _ => 0,
                    };
                    let v = if avg {
                        let num = s.exact * 10i128.pow((out_scale - in_scale).max(0) as u32);
                        let c = s.count as i128;
                        let q = num / c;
                        if (num % c).abs() * 2 >= c {
                            q + num.signum()
                        } else {
                            q
                        }
                    } else {
                        quiver_common::types::rescale(s.exact, in_scale, out_scale).unwrap_or(0)
                    };
                    ScalarValue::Decimal(v, *p, out_scale)
                }
                _ => ScalarValue::Float64(if avg {
                    s.float / s.count as f64
                } else {
                    s.float
                }),
            }
        }
    })
}

fn scalars_to_array(values: &[ScalarValue], t: &DataType) -> Result<ArrayRef> {
    use arrow_array::*;
    let a: ArrayRef = match t {
        DataType::Int64 => Arc::new(
            values
                .iter()
                .map(|v| v.as_i64().filter(|_| !v.is_null()))
                .collect::<Int64Array>(),
        ),
        DataType::Float64 => Arc::new(values.iter().map(|v| v.as_f64()).collect::<Float64Array>()),
        DataType::Decimal128(p, s) => Arc::new(
            values
                .iter()
                .map(|v| {
                    if v.is_null() {
                        Ok(None)
                    } else {
                        to_decimal(v, *s).map(Some)
                    }
                })
                .collect::<Result<Vec<_>>>()?
                .into_iter()
                .collect::<Decimal128Array>()
                .with_precision_and_scale(*p, *s)?,
        ),
        _ => {
            let s: StringArray = values
                .iter()
                .map(|v| {
                    if v.is_null() {
                        None
                    } else {
                        Some(v.to_string())
                    }
                })
                .collect();
            return cast_array(&(Arc::new(s) as ArrayRef), t);
        }
    };
    Ok(a)
}

impl ExecutionPlan for WindowExec {
    fn describe(&self) -> String {
        let f: Vec<String> = self.specs.iter().map(|s| format!("{:?}", s.func)).collect();
        format!("Window [{}]", f.join(", "))
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        vec![self.input.clone()]
    }
    fn output_partitions(&self) -> usize {
        1
    }
    fn execute(&self, _partition: usize, ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        let out = self
            .output
            .get_or_init(|| timed(&self.metrics, || self.run(ctx)))
            .clone()?;
        let batches: Vec<Result<RecordBatch>> = out.iter().cloned().map(Ok).collect();
        Ok(metered(Box::new(batches.into_iter()), &self.metrics))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}
