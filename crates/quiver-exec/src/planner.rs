//! Logical plan to physical operators. Every operator outputs its columns in
//! the order of its logical node's schema(), so a column id's position in a
//! child's schema is its position in the child's batches.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Field, Schema, SchemaRef};
use quiver_common::{QuiverError, Result};
use quiver_plan::optimizer::estimate_rows;
use quiver_plan::{ColumnInfo, Expr, JoinKind, LogicalPlan};

/// How much larger the right side of a semi or anti join must be estimated
/// for the join to index its left side instead.
const LEFT_BUILD_RATIO: f64 = 8.0;
/// The same for a left outer join (see `HashJoinExec::with_left_build`).
const LEFT_OUTER_BUILD_RATIO: f64 = 3.0;

use crate::expr::{operand_type, DecimalWidth, Layout, PhysicalExpr};
use crate::operators::*;

/// The schema of `columns` as declared (what clients are told).
pub fn arrow_schema(columns: &[ColumnInfo]) -> SchemaRef {
    schema_with(columns, &DecimalWidth::declared())
}

fn schema_with(columns: &[ColumnInfo], width: &DecimalWidth) -> SchemaRef {
    Arc::new(Schema::new(
        columns
            .iter()
            .map(|c| {
                let f = Field::new(&c.name, width.physical(&c.data_type), true);
                let mut meta = std::collections::HashMap::new();
                // The collation travels with result columns (CREATE TABLE ... AS keeps it).
                if let Some(coll) = c.collation {
                    meta.insert(
                        quiver_common::types::COLUMN_COLLATION_KEY.to_string(),
                        coll.name().to_string(),
                    );
                }
                if !c.nullable {
                    meta.insert(
                        quiver_common::types::COLUMN_NOT_NULL_KEY.to_string(),
                        "1".to_string(),
                    );
                }
                if let Some(o) = &c.origin {
                    origin_metadata(o, &mut meta);
                }
                if let Some(n) = c.display_length {
                    meta.insert(
                        quiver_common::types::COLUMN_DISPLAY_LENGTH_KEY.to_string(),
                        n.to_string(),
                    );
                }
                if let Some(d) = c
                    .decimals
                    .filter(|_| c.data_type == arrow_schema::DataType::Float64)
                {
                    meta.insert(
                        quiver_common::types::COLUMN_DECIMALS_KEY.to_string(),
                        d.to_string(),
                    );
                }
                if let Some(t) = &c.column_type {
                    meta.insert(
                        quiver_common::types::COLUMN_TYPE_KEY.to_string(),
                        t.to_string(),
                    );
                }
                if meta.is_empty() {
                    f
                } else {
                    f.with_metadata(meta)
                }
            })
            .collect::<Vec<_>>(),
    ))
}

/// What a client is told of a column read unchanged from a table: its
/// names, and whether the stored column is NOT NULL without a DEFAULT.
fn origin_metadata(
    o: &quiver_plan::ColumnOrigin,
    meta: &mut std::collections::HashMap<String, String>,
) {
    use quiver_common::types::*;
    let names = [&o.schema, &o.table, &o.org_table, &o.org_name];
    if names.iter().all(|n| !n.contains('\0')) {
        let value = names.map(|n| n.as_str()).join("\0");
        meta.insert(COLUMN_ORIGIN_KEY.to_string(), value);
    }
    if let Some(f) = &o.field {
        if !f.is_nullable() && !f.metadata().contains_key(COLUMN_DEFAULT_KEY) {
            meta.insert(COLUMN_NO_DEFAULT_KEY.to_string(), "1".to_string());
        }
    }
}

fn layout(columns: &[ColumnInfo]) -> Layout {
    Layout::of(columns)
}

fn list(exprs: &[Expr]) -> String {
    exprs
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `plan`'s operators, every type as declared.
pub fn create_physical_plan(plan: &LogicalPlan, threads: usize) -> Result<Arc<dyn ExecutionPlan>> {
    plan_with_work_tables(plan, threads, WorkTables::new())
}

/// [`create_physical_plan`] of a recursive CTE's part, its work tables
/// holding `work`.
pub(crate) fn plan_with_work_tables(
    plan: &LogicalPlan,
    threads: usize,
    work: WorkTables,
) -> Result<Arc<dyn ExecutionPlan>> {
    Planner {
        threads,
        width: DecimalWidth::declared(),
        work,
    }
    .plan(plan)
}

/// `plan`'s operators with decimals beyond 38 digits computed in i128
/// ([`DecimalWidth::narrow`]), and whether any was; None when the plan reads
/// stored Decimal256 columns (their values may need the width).
pub fn create_narrow_plan(
    plan: &LogicalPlan,
    threads: usize,
) -> Result<Option<(Arc<dyn ExecutionPlan>, bool)>> {
    if reads_wide_decimals(plan) {
        return Ok(None);
    }
    let planner = Planner {
        threads,
        width: DecimalWidth::narrow(),
        work: WorkTables::new(),
    };
    let physical = planner.plan(plan)?;
    Ok(Some((physical, planner.width.narrowed_any())))
}

fn reads_wide_decimals(plan: &LogicalPlan) -> bool {
    // A recursive CTE plans its rounds with the declared types.
    if matches!(plan, LogicalPlan::RecursiveCte { .. }) {
        return true;
    }
    if let LogicalPlan::Scan {
        columns,
        filter_columns,
        ..
    } = plan
    {
        if columns
            .iter()
            .chain(filter_columns)
            .any(|(_, c)| matches!(c.data_type, arrow_schema::DataType::Decimal256(..)))
        {
            return true;
        }
    }
    plan.children().into_iter().any(reads_wide_decimals)
}

/// `batch` (of a narrow plan) with the declared types of `schema`.
pub fn to_declared(batch: RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    if batch
        .schema()
        .fields()
        .iter()
        .zip(schema.fields())
        .all(|(a, b)| a.data_type() == b.data_type())
    {
        return Ok(RecordBatch::try_new(
            schema.clone(),
            batch.columns().to_vec(),
        )?);
    }
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(c, f)| {
            if c.data_type() == f.data_type() {
                Ok(c.clone())
            } else {
                crate::expr::cast_array(c, f.data_type())
            }
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

struct Planner {
    threads: usize,
    width: DecimalWidth,
    work: WorkTables,
}

impl Planner {
    fn compile(&self, e: &Expr, layout: &Layout) -> Result<PhysicalExpr> {
        PhysicalExpr::compile_with(e, layout, &self.width)
    }

    fn compile_all<'a>(
        &self,
        exprs: impl IntoIterator<Item = &'a Expr>,
        layout: &Layout,
    ) -> Result<Vec<PhysicalExpr>> {
        exprs.into_iter().map(|e| self.compile(e, layout)).collect()
    }

    fn group_concat(
        &self,
        g: &quiver_plan::GroupConcat,
        layout: &Layout,
    ) -> Result<Arc<GroupConcatSpec>> {
        Ok(Arc::new(GroupConcatSpec {
            args: self.compile_all(&g.args, layout)?,
            distinct_keys: self.compile_all(&g.distinct_keys, layout)?,
            order_by: g
                .order_by
                .iter()
                .map(|k| {
                    Ok(SortKey {
                        expr: self.compile(&k.expr, layout)?,
                        asc: k.asc,
                        nulls_first: k.nulls_first,
                    })
                })
                .collect::<Result<_>>()?,
            separator: g.separator.clone(),
            max_len: usize::try_from(g.max_len).unwrap_or(usize::MAX),
            collation: g.collation,
            limit: g.limit.map(|(o, c)| {
                let n = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
                (n(o), n(c))
            }),
            wrap: g.wrap.clone(),
        }))
    }

    /// A scan (`plan` is a `LogicalPlan::Scan`), with one more filter when
    /// it is the probe side of a hash join that tells it its build keys:
    /// `key` (over the scan's output columns) must be among them.
    fn plan_scan(
        &self,
        plan: &LogicalPlan,
        schema: SchemaRef,
        join_keys: Option<(PhysicalExpr, String, Arc<JoinKeyFilter>)>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let LogicalPlan::Scan {
            table,
            columns,
            filters,
            filter_columns,
        } = plan
        else {
            return Err(QuiverError::internal("a scan was expected"));
        };
        // Read the output columns, then the filter-only ones; filters see
        // both, the scan's output only the first (so a key over the output
        // columns reads the same positions).
        let read: Vec<&(usize, ColumnInfo)> = columns.iter().chain(filter_columns).collect();
        let cols: Vec<ColumnInfo> = read.iter().map(|(_, c)| c.clone()).collect();
        let l = layout(&cols);
        let mut compiled = self.compile_all(filters, &l)?;
        let mut text: Vec<String> = filters.iter().map(|f| f.to_string()).collect();
        if let Some((key, key_text, filter)) = join_keys {
            text.push(format!("{key_text} IN join build keys"));
            compiled.push(PhysicalExpr::JoinKeys {
                key: Box::new(key),
                filter,
            });
        }
        Ok(Arc::new(ScanExec::new(
            table.clone(),
            read.iter().map(|(i, _)| *i).collect(),
            compiled,
            text,
            schema_with(&cols, &self.width),
            schema,
            self.threads,
        )))
    }

    fn plan(&self, plan: &LogicalPlan) -> Result<Arc<dyn ExecutionPlan>> {
        let schema = schema_with(&plan.schema(), &self.width);
        Ok(match plan {
            LogicalPlan::Scan { .. } => self.plan_scan(plan, schema, None)?,
            LogicalPlan::Values { rows, .. } => {
                let empty = Layout::default();
                let rows = rows
                    .iter()
                    .map(|r| {
                        r.iter()
                            .map(|e| self.compile(e, &empty))
                            .collect::<Result<Vec<_>>>()
                    })
                    .collect::<Result<Vec<_>>>()?;
                Arc::new(ValuesExec::new(rows, schema))
            }
            LogicalPlan::JsonTable {
                input,
                doc,
                def,
                columns,
            } => {
                let child = self.plan(input)?;
                let d = self.compile(doc, &layout(&input.schema()))?;
                let schema = arrow_schema(&plan.schema());
                let fields = schema.fields()[schema.fields().len() - columns.len()..]
                    .iter()
                    .map(|f| f.as_ref().clone())
                    .collect();
                let declared = columns.iter().map(|c| c.column_type.clone()).collect();
                let spec =
                    crate::functions::json::table::JsonTableSpec::new(def, fields, declared)?;
                let text = format!("{} doc={doc} path={}", def.alias, def.path);
                Arc::new(JsonTableExec::new(child, d, spec, text, schema))
            }
            LogicalPlan::Filter { input, predicate } => {
                let child = self.plan(input)?;
                let p = self.compile(predicate, &layout(&input.schema()))?;
                Arc::new(FilterExec::new(child, p, predicate.to_string()))
            }
            LogicalPlan::Project { input, exprs } => {
                let child = self.plan(input)?;
                let l = layout(&input.schema());
                let compiled = self.compile_all(exprs.iter().map(|(_, e)| e), &l)?;
                let text = exprs
                    .iter()
                    .map(|(c, e)| format!("{e} AS {}", c.name))
                    .collect();
                Arc::new(ProjectExec::new(child, compiled, text, schema))
            }
            LogicalPlan::Join {
                left,
                right,
                kind,
                on,
                filter,
            } => {
                let (ls, rs) = (left.schema(), right.schema());
                let (ll, rl) = (layout(&ls), layout(&rs));
                let mut lk = Vec::new();
                let mut rk = Vec::new();
                for (l, r) in on {
                    // Both sides hash and compare in one common type (bytes
                    // when a binary string meets a string).
                    let t = self
                        .width
                        .physical(&operand_type(&l.data_type(), &r.data_type()));
                    lk.push(self.compile(&l.clone().cast(&t), &ll)?);
                    rk.push(self.compile(&r.clone().cast(&t), &rl)?);
                }
                let both: Vec<ColumnInfo> = ls.iter().chain(rs.iter()).cloned().collect();
                let f = filter
                    .as_ref()
                    .map(|f| self.compile(f, &layout(&both)))
                    .transpose()?;
                let mut text = on
                    .iter()
                    .map(|(l, r)| format!("{l} = {r}"))
                    .collect::<Vec<_>>()
                    .join(" AND ");
                if let Some(f) = filter {
                    text += &format!(" filter {f}");
                }
                // A small preserved side against a large one: index the small
                // side. A left outer join materializes its pairs that way, so it
                // asks for a clearer difference than building's cost alone.
                let (l_rows, r_rows) = (estimate_rows(left), estimate_rows(right));
                let small_left = match kind {
                    JoinKind::Semi | JoinKind::Anti => l_rows * LEFT_BUILD_RATIO < r_rows,
                    JoinKind::Left => l_rows * LEFT_OUTER_BUILD_RATIO < r_rows,
                    _ => false,
                };
                // An inner or semi join built on the right over a scan, whose
                // first key is an integer: the scan drops rows whose first
                // key the build lacks (Q9: lineitem rows of parts that are
                // not green, before the part and supplier pair is probed).
                let key_filter = (matches!(kind, JoinKind::Inner | JoinKind::Semi)
                    && !small_left
                    && !lk.is_empty()
                    && matches!(**left, LogicalPlan::Scan { .. })
                    && on[0].0.data_type().is_integer())
                .then(|| Arc::new(JoinKeyFilter::default()));
                let left_plan = match &key_filter {
                    Some(f) => self.plan_scan(
                        left,
                        schema_with(&ls, &self.width),
                        Some((lk[0].clone(), on[0].0.to_string(), f.clone())),
                    )?,
                    None => self.plan(left)?,
                };
                let mut join =
                    HashJoinExec::new(left_plan, self.plan(right)?, *kind, lk, rk, f, schema, text);
                if let Some(f) = key_filter {
                    join = join.with_key_filter(f);
                }
                Arc::new(if small_left {
                    join.with_left_build()
                } else {
                    join
                })
            }
            LogicalPlan::Aggregate { input, group, aggs } => {
                let child = self.plan(input)?;
                let l = layout(&input.schema());
                let g = self.compile_all(group.iter().map(|(_, e)| e), &l)?;
                let types = group
                    .iter()
                    .map(|(c, _)| self.width.physical(&c.data_type))
                    .collect();
                let specs = aggs
                    .iter()
                    .map(|(c, a)| {
                        Ok(AggregateSpec {
                            func: a.func,
                            arg: a.arg.as_ref().map(|e| self.compile(e, &l)).transpose()?,
                            distinct: a.distinct,
                            output_type: self.width.physical(&c.data_type),
                            text: format!("{:?}", a.func),
                            concat: a
                                .concat
                                .as_ref()
                                .map(|g| self.group_concat(g, &l))
                                .transpose()?,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                let text = format!(
                    "group=[{}] aggs=[{}]",
                    list(&group.iter().map(|(_, e)| e.clone()).collect::<Vec<_>>()),
                    aggs.iter()
                        .map(|(c, a)| format!("{:?} AS {}", a.func, c.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                Arc::new(AggregateExec::new(child, g, types, specs, schema, text))
            }
            LogicalPlan::Window { input, exprs } => {
                let child = self.plan(input)?;
                let l = layout(&input.schema());
                let specs = exprs
                    .iter()
                    .map(|(c, w)| {
                        Ok(WindowSpec {
                            func: w.func,
                            args: self.compile_all(&w.args, &l)?,
                            partition_by: self.compile_all(&w.partition_by, &l)?,
                            order_by: w
                                .order_by
                                .iter()
                                .map(|k| {
                                    Ok(SortKey {
                                        expr: self.compile(&k.expr, &l)?,
                                        asc: k.asc,
                                        nulls_first: k.nulls_first,
                                    })
                                })
                                .collect::<Result<_>>()?,
                            frame: w.frame,
                            output_type: self.width.physical(&c.data_type),
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                Arc::new(WindowExec::new(child, specs, schema))
            }
            LogicalPlan::Sort { input, keys, fetch } => {
                let child = self.plan(input)?;
                let l = layout(&input.schema());
                let k = keys
                    .iter()
                    .map(|k| {
                        Ok(SortKey {
                            expr: self.compile(&k.expr, &l)?,
                            asc: k.asc,
                            nulls_first: k.nulls_first,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                let text = keys
                    .iter()
                    .map(|k| format!("{} {}", k.expr, if k.asc { "ASC" } else { "DESC" }))
                    .collect::<Vec<_>>()
                    .join(", ");
                Arc::new(SortExec::new(child, k, *fetch, text))
            }
            LogicalPlan::Limit { input, skip, fetch } => {
                Arc::new(LimitExec::new(self.plan(input)?, *skip, *fetch))
            }
            LogicalPlan::Union { inputs, .. } => {
                let children = inputs
                    .iter()
                    .map(|i| self.plan(i))
                    .collect::<Result<Vec<_>>>()?;
                Arc::new(UnionExec::new(children, schema))
            }
            LogicalPlan::SetOp { input, kind } => {
                Arc::new(SetOpExec::new(self.plan(input)?, *kind, schema))
            }
            LogicalPlan::RecursiveCte {
                anchor,
                recursive,
                work,
                distinct,
                max_iterations,
                columns,
            } => {
                let mut empty = self.work.clone();
                empty.insert(*work, Arc::new(Vec::new()));
                let shape = plan_with_work_tables(recursive, self.threads, empty)?;
                let parts = RecursiveCteParts {
                    anchor: self.plan(anchor)?,
                    shape,
                    recursive: Arc::new((**recursive).clone()),
                    work: *work,
                    outer: self.work.clone(),
                    distinct: *distinct,
                    max_iterations: *max_iterations,
                    collations: columns
                        .iter()
                        .map(|c| {
                            quiver_common::types::is_string(&c.data_type)
                                .then(|| c.collation.unwrap_or_else(quiver_plan::default_collation))
                        })
                        .collect(),
                    threads: self.threads,
                };
                Arc::new(RecursiveCteExec::new(parts, schema))
            }
            LogicalPlan::WorkTable { work, .. } => {
                let rows = self.work.get(work).cloned().ok_or_else(|| {
                    QuiverError::internal("a work table outside its recursive CTE")
                })?;
                Arc::new(WorkTableExec::new(rows, schema))
            }
        })
    }
}
