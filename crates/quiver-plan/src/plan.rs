//! Logical plan nodes.

use std::fmt;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, FieldRef};
use quiver_common::Result;

use quiver_collation::Collation;

use crate::expr::{AggExpr, Coercibility, ColumnId, Expr, SortExpr, WindowExpr};

#[derive(Debug, Clone, PartialEq)]
pub struct ColumnInfo {
    pub id: ColumnId,
    pub name: String,
    pub data_type: DataType,
    pub nullable: bool,
    /// A string column's collation when it is not the default.
    pub collation: Option<Collation>,
    /// A string column's coercibility when it is not IMPLICIT: a derived
    /// table's or a union's column of literals is COERCIBLE, of a COLLATE
    /// EXPLICIT, as MySQL keeps them for the query around it.
    pub coercibility: Option<Coercibility>,
    /// The table column this one reads unchanged, if any: what a MySQL
    /// client is told in the result's column definitions.
    pub origin: Option<Arc<ColumnOrigin>>,
    /// A string column's declared type where its Arrow type does not say
    /// it all (`varchar(25)`, `char(5)`, `text`), as `COLUMN_TYPE_KEY` holds it.
    pub column_type: Option<Arc<str>>,
    /// A computed DOUBLE's display length as MySQL derives it (a client
    /// reads it in the column definition), where it is not the usual 23.
    pub display_length: Option<u32>,
    /// A computed DOUBLE's fixed decimals (MariaDB's `decimals` below 31:
    /// PI() is 6, PERCENTILE_CONT 10), which clients are shown it with.
    pub decimals: Option<u8>,
}

/// A result column read straight from a table or derived table: the names a
/// MySQL column definition carries (schema, table as the query named it,
/// original table and column) and, for a stored column, its field with the
/// declared type, default and NOT NULL.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnOrigin {
    pub schema: String,
    pub table: String,
    pub org_table: String,
    pub org_name: String,
    pub field: Option<FieldRef>,
}

impl ColumnInfo {
    /// A computed column: no collation, origin or declared type of its own.
    pub fn plain(
        id: ColumnId,
        name: impl Into<String>,
        data_type: DataType,
        nullable: bool,
    ) -> Self {
        ColumnInfo {
            id,
            name: name.into(),
            data_type,
            nullable,
            collation: None,
            coercibility: None,
            origin: None,
            column_type: None,
            display_length: None,
            decimals: None,
        }
    }

    /// A reference to this column; under its collation (coercibility
    /// IMPLICIT, as MySQL gives columns) if it has one.
    pub fn expr(&self) -> Expr {
        column_ref(self.id, &self.data_type, self.collation, self.coercibility)
    }
}

/// A table as the planner and the scan see it. Storage implements it.
pub trait TableSource: Send + Sync + fmt::Debug {
    fn name(&self) -> &str;
    /// Column names, Arrow types and nullability, in table order.
    fn schema(&self) -> arrow_schema::SchemaRef;
    fn row_count(&self) -> usize;
    /// Estimated number of distinct values of column `i`, if known.
    fn distinct_estimate(&self, column: usize) -> Option<usize>;
    /// The table's data, column-complete, as in-memory batches.
    fn batches(&self) -> Result<Arc<Vec<RecordBatch>>>;
    /// Only the given columns (table indices, in that order; the batches'
    /// schema is the projected one), so that a stored table need not read the
    /// others, with the zone maps that line up with those batches (taken
    /// together, so that a concurrent write cannot pair one table's batches
    /// with another's zone maps). Tables in memory have no zone maps.
    fn scan_batches(&self, columns: &[usize]) -> Result<ScanBatches> {
        let all = self.batches()?;
        Ok(ScanBatches {
            batches: Arc::new(
                all.iter()
                    .map(|b| b.project(columns))
                    .collect::<std::result::Result<Vec<_>, _>>()?,
            ),
            zone_maps: None,
            ends_in_space: Vec::new(),
        })
    }
}

/// What a scan reads: batches of its columns and, for a stored table, one
/// zone map entry per batch.
#[derive(Debug, Clone)]
pub struct ScanBatches {
    pub batches: Arc<Vec<RecordBatch>>,
    pub zone_maps: Option<Arc<ZoneMaps>>,
    /// `[column of the batches]`: which rows of a text column end in a
    /// space, where storage found out as it read the pages (see
    /// `quiver_collation::RowHints`). Empty when nothing is known.
    pub ends_in_space: Vec<Option<SpaceEnds>>,
}

/// Which rows of one text column end in a space: `[batch]`, one bit per
/// row (bit `i % 64` of word `i / 64`), `None` for a batch not known.
pub type SpaceEnds = Arc<Vec<Option<Arc<[u64]>>>>;

/// Per-row-group statistics of a table, for skipping row groups in a scan.
#[derive(Debug, Clone, Default)]
pub struct ZoneMaps {
    /// `[row group][table column]`.
    pub groups: Vec<Vec<ColumnZone>>,
}

/// What is known of one column in one row group.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnZone {
    pub rows: usize,
    pub null_count: usize,
    /// At most every non-null value (in byte order for strings: a prefix of
    /// the smallest value is a valid bound).
    pub min: Option<quiver_common::ScalarValue>,
    /// At least every non-null value; when `max_is_prefix`, a string that the
    /// first bytes of every value are at most (the largest value cut short).
    pub max: Option<quiver_common::ScalarValue>,
    pub max_is_prefix: bool,
    /// For a string column whose collation does not order by bytes, its
    /// bounds under that collation (`min`/`max` above are in byte order).
    pub collated: Option<CollatedBounds>,
    /// For a text column, how its rows end and whether they are ASCII:
    /// equality kernels then rule rows out by length alone.
    pub shape: Option<quiver_collation::RowShape>,
}

/// Bounds of a string column under a collation, as that collation's
/// normalized keys (`memcmp` order is the collation's order, equal keys are
/// equal strings). `min` may be cut short (still a lower bound); when
/// `max_is_prefix`, `max` bounds the first `max.len()` bytes of every key.
#[derive(Debug, Clone, PartialEq)]
pub struct CollatedBounds {
    pub collation: quiver_collation::Collation,
    pub min: Vec<u8>,
    pub max: Vec<u8>,
    pub max_is_prefix: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    /// Left outer join: unmatched left rows with NULLs on the right.
    Left,
    /// Left rows with at least one match (EXISTS, IN).
    Semi,
    /// Left rows with no match (NOT EXISTS).
    Anti,
    /// NOT IN: left rows that no right row can equal. The first `null_aware`
    /// keys of `on` are the IN comparison, where a NULL on either side makes a
    /// pair possibly equal (the NOT IN is then NULL, and the row dropped); the
    /// other keys and the filter are the subquery's correlation, which must
    /// hold exactly (a right row failing it is not in that row's subquery).
    NullAwareAnti {
        null_aware: usize,
    },
    /// `IN` / `EXISTS` as a value: every left row, with Boolean column `mark`
    /// TRUE when a right row matches (all keys equal, filter true), else NULL
    /// when one possibly equals it (as for `NullAwareAnti`), else FALSE.
    Mark {
        mark: ColumnId,
        null_aware: usize,
    },
    /// Scalar subquery: like Left, but more than one match is error 1242.
    Single,
}

/// The Boolean column a `Mark` join appends; NULL only with null-aware keys.
pub fn mark_column(mark: ColumnId, null_aware: usize) -> ColumnInfo {
    ColumnInfo {
        id: mark,
        name: "mark".into(),
        data_type: DataType::Boolean,
        nullable: null_aware > 0,
        collation: None,
        coercibility: None,
        origin: None,
        column_type: None,
        display_length: None,
        decimals: None,
    }
}

/// A reference to a column under its collation and coercibility (a bare
/// column is IMPLICIT under the default collation, or `binary` for bytes).
pub fn column_ref(
    id: ColumnId,
    data_type: &DataType,
    collation: Option<Collation>,
    coercibility: Option<Coercibility>,
) -> Expr {
    let e = Expr::Column(id, data_type.clone());
    match (collation, coercibility) {
        (Some(c), k) => e.with_collation(c, k.unwrap_or(Coercibility::Implicit)),
        (None, Some(k)) if k != Coercibility::Implicit => {
            let c = if quiver_common::types::is_binary(data_type) {
                Collation::binary()
            } else {
                crate::default_collation()
            };
            e.with_derivation(c, k)
        }
        (None, _) => e,
    }
}

#[derive(Debug, Clone)]
pub enum LogicalPlan {
    Scan {
        table: Arc<dyn TableSource>,
        /// (column index in the table, output column).
        columns: Vec<(usize, ColumnInfo)>,
        /// Conjuncts over the scan's own columns, applied while scanning.
        filters: Vec<Expr>,
        /// Columns read only for `filters`, not output: the scan drops them
        /// before compacting its rows, so `COUNT(*) ... WHERE s = 'x'` never
        /// copies `s`. Column pruning moves columns here; empty before it.
        filter_columns: Vec<(usize, ColumnInfo)>,
    },
    /// Literal rows; with no columns and one row it is MySQL's `DUAL`.
    Values {
        columns: Vec<ColumnInfo>,
        rows: Vec<Vec<Expr>>,
    },
    Filter {
        input: Box<LogicalPlan>,
        predicate: Expr,
    },
    Project {
        input: Box<LogicalPlan>,
        exprs: Vec<(ColumnInfo, Expr)>,
    },
    Join {
        left: Box<LogicalPlan>,
        right: Box<LogicalPlan>,
        kind: JoinKind,
        /// Equi-join keys: (expression over left, expression over right).
        on: Vec<(Expr, Expr)>,
        /// Further conditions over both sides, evaluated on candidate pairs.
        filter: Option<Expr>,
    },
    Aggregate {
        input: Box<LogicalPlan>,
        group: Vec<(ColumnInfo, Expr)>,
        aggs: Vec<(ColumnInfo, AggExpr)>,
    },
    /// Appends one column per window expression to its input's columns.
    Window {
        input: Box<LogicalPlan>,
        exprs: Vec<(ColumnInfo, WindowExpr)>,
    },
    Sort {
        input: Box<LogicalPlan>,
        keys: Vec<SortExpr>,
        fetch: Option<usize>,
    },
    Limit {
        input: Box<LogicalPlan>,
        skip: usize,
        fetch: Option<usize>,
    },
    /// UNION ALL; input i's column j feeds output column j.
    Union {
        inputs: Vec<LogicalPlan>,
        columns: Vec<ColumnInfo>,
    },
    /// The last step of EXCEPT / INTERSECT: `input` holds each distinct row
    /// once, then two counts, its rows on the left and on the right; each
    /// row comes out as many times as `kind` keeps it, without the counts.
    SetOp {
        input: Box<LogicalPlan>,
        kind: SetOpKind,
    },
    /// WITH RECURSIVE's table: `anchor`'s rows, then `recursive`'s, run
    /// again and again over the rows the round before added (which its
    /// `WorkTable { work }` leaves read), until a round adds none or
    /// `max_iterations` rounds have run (warning 1931). With `distinct` a
    /// row already in the result is not added again. Both inputs' column j
    /// feeds output column j.
    RecursiveCte {
        anchor: Box<LogicalPlan>,
        recursive: Box<LogicalPlan>,
        work: ColumnId,
        distinct: bool,
        max_iterations: u64,
        columns: Vec<ColumnInfo>,
    },
    /// The rows the last round of the `RecursiveCte` with this `work` added.
    WorkTable {
        work: ColumnId,
        columns: Vec<ColumnInfo>,
    },
    /// JSON_TABLE over each input row's `doc` (lateral): the input row's
    /// columns then `columns` (the definition's leaves), once per row the
    /// document makes; an input row whose document is NULL or makes no
    /// row is dropped. Not lateral, the input is DUAL.
    JsonTable {
        input: Box<LogicalPlan>,
        doc: Expr,
        def: Arc<crate::json_table::JsonTableDef>,
        columns: Vec<ColumnInfo>,
    },
}

/// EXCEPT or INTERSECT, ALL (with duplicates) or DISTINCT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOpKind {
    Except { all: bool },
    Intersect { all: bool },
}

impl SetOpKind {
    /// How many times a row with `left` copies on the left and `right` on
    /// the right is in the result.
    pub fn copies(self, left: u64, right: u64) -> u64 {
        match self {
            SetOpKind::Except { all: true } => left.saturating_sub(right),
            SetOpKind::Except { all: false } => u64::from(left > 0 && right == 0),
            SetOpKind::Intersect { all: true } => left.min(right),
            SetOpKind::Intersect { all: false } => u64::from(left > 0 && right > 0),
        }
    }
}

impl fmt::Display for SetOpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, all) = match self {
            SetOpKind::Except { all } => ("Except", all),
            SetOpKind::Intersect { all } => ("Intersect", all),
        };
        write!(f, "{name} {}", if *all { "All" } else { "Distinct" })
    }
}

impl LogicalPlan {
    pub fn schema(&self) -> Vec<ColumnInfo> {
        match self {
            LogicalPlan::Scan { columns, .. } => columns.iter().map(|(_, c)| c.clone()).collect(),
            LogicalPlan::Values { columns, .. }
            | LogicalPlan::Union { columns, .. }
            | LogicalPlan::RecursiveCte { columns, .. }
            | LogicalPlan::WorkTable { columns, .. } => columns.clone(),
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Sort { input, .. }
            | LogicalPlan::Limit { input, .. } => input.schema(),
            LogicalPlan::SetOp { input, .. } => {
                let mut s = input.schema();
                s.truncate(s.len().saturating_sub(2));
                s
            }
            LogicalPlan::Project { exprs, .. } => exprs.iter().map(|(c, _)| c.clone()).collect(),
            LogicalPlan::Join {
                left, right, kind, ..
            } => {
                let mut s = left.schema();
                match kind {
                    JoinKind::Inner => s.extend(right.schema()),
                    JoinKind::Left | JoinKind::Single => {
                        s.extend(right.schema().into_iter().map(|c| ColumnInfo {
                            nullable: true,
                            ..c
                        }))
                    }
                    JoinKind::Semi | JoinKind::Anti | JoinKind::NullAwareAnti { .. } => {}
                    JoinKind::Mark { mark, null_aware } => s.push(mark_column(*mark, *null_aware)),
                }
                s
            }
            LogicalPlan::Aggregate { group, aggs, .. } => group
                .iter()
                .map(|(c, _)| c.clone())
                .chain(aggs.iter().map(|(c, _)| c.clone()))
                .collect(),
            LogicalPlan::Window { input, exprs } => {
                let mut s = input.schema();
                s.extend(exprs.iter().map(|(c, _)| c.clone()));
                s
            }
            LogicalPlan::JsonTable { input, columns, .. } => {
                let mut s = input.schema();
                s.extend(columns.iter().cloned());
                s
            }
        }
    }

    pub fn children(&self) -> Vec<&LogicalPlan> {
        match self {
            LogicalPlan::Scan { .. }
            | LogicalPlan::Values { .. }
            | LogicalPlan::WorkTable { .. } => {
                vec![]
            }
            LogicalPlan::RecursiveCte {
                anchor, recursive, ..
            } => vec![anchor, recursive],
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Project { input, .. }
            | LogicalPlan::Aggregate { input, .. }
            | LogicalPlan::Window { input, .. }
            | LogicalPlan::Sort { input, .. }
            | LogicalPlan::Limit { input, .. }
            | LogicalPlan::SetOp { input, .. }
            | LogicalPlan::JsonTable { input, .. } => vec![input],
            LogicalPlan::Join { left, right, .. } => vec![left, right],
            LogicalPlan::Union { inputs, .. } => inputs.iter().collect(),
        }
    }

    /// This node with each input replaced by `f(input)`, in [`children`]
    /// order; the one structural rewrite step rules and the binder share.
    ///
    /// [`children`]: LogicalPlan::children
    pub fn map_children(self, mut f: impl FnMut(LogicalPlan) -> LogicalPlan) -> LogicalPlan {
        match self {
            LogicalPlan::Filter { input, predicate } => LogicalPlan::Filter {
                input: Box::new(f(*input)),
                predicate,
            },
            LogicalPlan::Project { input, exprs } => LogicalPlan::Project {
                input: Box::new(f(*input)),
                exprs,
            },
            LogicalPlan::Join {
                left,
                right,
                kind,
                on,
                filter,
            } => {
                let left = f(*left);
                LogicalPlan::Join {
                    left: Box::new(left),
                    right: Box::new(f(*right)),
                    kind,
                    on,
                    filter,
                }
            }
            LogicalPlan::Aggregate { input, group, aggs } => LogicalPlan::Aggregate {
                input: Box::new(f(*input)),
                group,
                aggs,
            },
            LogicalPlan::Window { input, exprs } => LogicalPlan::Window {
                input: Box::new(f(*input)),
                exprs,
            },
            LogicalPlan::Sort { input, keys, fetch } => LogicalPlan::Sort {
                input: Box::new(f(*input)),
                keys,
                fetch,
            },
            LogicalPlan::Limit { input, skip, fetch } => LogicalPlan::Limit {
                input: Box::new(f(*input)),
                skip,
                fetch,
            },
            LogicalPlan::Union { inputs, columns } => LogicalPlan::Union {
                inputs: inputs.into_iter().map(f).collect(),
                columns,
            },
            LogicalPlan::SetOp { input, kind } => LogicalPlan::SetOp {
                input: Box::new(f(*input)),
                kind,
            },
            LogicalPlan::JsonTable {
                input,
                doc,
                def,
                columns,
            } => LogicalPlan::JsonTable {
                input: Box::new(f(*input)),
                doc,
                def,
                columns,
            },
            LogicalPlan::RecursiveCte {
                anchor,
                recursive,
                work,
                distinct,
                max_iterations,
                columns,
            } => {
                let anchor = f(*anchor);
                LogicalPlan::RecursiveCte {
                    anchor: Box::new(anchor),
                    recursive: Box::new(f(*recursive)),
                    work,
                    distinct,
                    max_iterations,
                    columns,
                }
            }
            leaf @ (LogicalPlan::Scan { .. }
            | LogicalPlan::Values { .. }
            | LogicalPlan::WorkTable { .. }) => leaf,
        }
    }

    fn describe(&self) -> String {
        let list = |v: &[Expr]| {
            v.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            LogicalPlan::Scan {
                table,
                columns,
                filters,
                filter_columns,
            } => {
                let names = |cols: &[(usize, ColumnInfo)]| {
                    cols.iter()
                        .map(|(_, c)| format!("{}#{}", c.name, c.id.0))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let mut s = format!("Scan {} [{}]", table.name(), names(columns));
                if !filters.is_empty() {
                    s += &format!(" filters=[{}]", list(filters));
                }
                if !filter_columns.is_empty() {
                    s += &format!(" filter_columns=[{}]", names(filter_columns));
                }
                s
            }
            LogicalPlan::Values { rows, .. } => format!("Values rows={}", rows.len()),
            LogicalPlan::Filter { predicate, .. } => format!("Filter {predicate}"),
            LogicalPlan::Project { exprs, .. } => {
                let v: Vec<String> = exprs
                    .iter()
                    .map(|(c, e)| format!("{e} AS {}#{}", c.name, c.id.0))
                    .collect();
                format!("Project {}", v.join(", "))
            }
            LogicalPlan::Join {
                kind, on, filter, ..
            } => {
                let keys: Vec<String> = on.iter().map(|(l, r)| format!("{l} = {r}")).collect();
                let mut s = format!("Join {kind:?} on [{}]", keys.join(", "));
                if let Some(f) = filter {
                    s += &format!(" filter={f}");
                }
                s
            }
            LogicalPlan::Aggregate { group, aggs, .. } => {
                let g: Vec<String> = group
                    .iter()
                    .map(|(c, e)| format!("{e} AS #{}", c.id.0))
                    .collect();
                let a: Vec<String> = aggs
                    .iter()
                    .map(|(c, a)| {
                        let arg = match (&a.arg, &a.concat) {
                            (Some(e), _) => e.to_string(),
                            (None, Some(c)) => c.to_string(),
                            (None, None) => "*".into(),
                        };
                        format!(
                            "{:?}({}{arg}) AS #{}",
                            a.func,
                            if a.distinct { "DISTINCT " } else { "" },
                            c.id.0
                        )
                    })
                    .collect();
                format!("Aggregate group=[{}] aggs=[{}]", g.join(", "), a.join(", "))
            }
            LogicalPlan::Window { exprs, .. } => {
                let v: Vec<String> = exprs
                    .iter()
                    .map(|(c, w)| format!("{:?} AS #{}", w.func, c.id.0))
                    .collect();
                format!("Window {}", v.join(", "))
            }
            LogicalPlan::Sort { keys, fetch, .. } => {
                let k: Vec<String> = keys
                    .iter()
                    .map(|k| format!("{} {}", k.expr, if k.asc { "ASC" } else { "DESC" }))
                    .collect();
                match fetch {
                    Some(n) => format!("TopN {n} [{}]", k.join(", ")),
                    None => format!("Sort [{}]", k.join(", ")),
                }
            }
            LogicalPlan::Limit { skip, fetch, .. } => format!("Limit skip={skip} fetch={fetch:?}"),
            LogicalPlan::Union { inputs, .. } => format!("UnionAll inputs={}", inputs.len()),
            LogicalPlan::SetOp { kind, .. } => kind.to_string(),
            LogicalPlan::RecursiveCte {
                work,
                distinct,
                max_iterations,
                ..
            } => format!(
                "RecursiveCte #{} {} max_iterations={max_iterations}",
                work.0,
                if *distinct { "Distinct" } else { "All" }
            ),
            LogicalPlan::WorkTable { work, .. } => format!("WorkTable #{}", work.0),
            LogicalPlan::JsonTable { doc, def, .. } => {
                format!("JsonTable {} doc={doc} path={}", def.alias, def.path)
            }
        }
    }

    /// The plan as an indented tree, for EXPLAIN.
    pub fn display_tree(&self) -> String {
        let mut out = String::new();
        self.write_tree(0, &mut out);
        out
    }

    fn write_tree(&self, depth: usize, out: &mut String) {
        out.push_str(&"  ".repeat(depth));
        out.push_str(&self.describe());
        out.push('\n');
        for c in self.children() {
            c.write_tree(depth + 1, out);
        }
    }
}
