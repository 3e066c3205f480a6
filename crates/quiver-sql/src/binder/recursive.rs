//! WITH RECURSIVE: a CTE whose body is a UNION of anchors (SELECTs that do
//! not read the CTE) and recursive SELECTs that read it once in their FROM.
//! The CTE's columns take the anchors' types; the recursive SELECTs read
//! the rows the last round added (a `WorkTable`), and their rows are cast
//! to those types. MariaDB's rules: no anchor is 4005; the CTE read in a
//! subquery, under an aggregate, window or DISTINCT, or on the NULL side of
//! an outer join is 4008; ORDER BY / LIMIT on the body and a mix of UNION
//! ALL and DISTINCT are 1235 in MariaDB too.

use arrow_schema::DataType;
use quiver_common::{QuiverError, Result};
use quiver_plan::{ColumnId, ColumnInfo, JoinKind, LogicalPlan};
use sqlparser::ast;

use super::coerce::cast;
use super::query::{flatten_union, project, union_collations};
use super::{Binder, BoundQuery, CteDef, Nesting, Scope, ScopeColumn};

/// MariaDB's default `max_recursive_iterations`.
const DEFAULT_MAX_ITERATIONS: u64 = 1000;

/// A recursive CTE whose body is being bound.
pub(crate) struct RecursiveRef {
    name: String,
    /// The query depth of its SELECTs: a read from deeper is a subquery's.
    depth: usize,
    work: ColumnId,
    /// The CTE's columns (names and the anchors' types); None while the
    /// SELECTs are being sorted into anchors and recursive ones.
    columns: Option<Vec<ColumnInfo>>,
    /// Reads of the CTE in the SELECT being bound.
    reads: usize,
}

fn restrictions(name: &str) -> QuiverError {
    QuiverError::new(
        4008,
        "HY000",
        format!("Restrictions imposed on recursive definitions are violated for table '{name}'"),
    )
}

impl Binder<'_> {
    pub(super) fn recursive_cte(
        &mut self,
        cte: &CteDef,
        qualifier: &str,
        alias_columns: &[String],
    ) -> Result<(LogicalPlan, Scope)> {
        if let Some(i) = self
            .recursive
            .iter()
            .rposition(|r| r.name.eq_ignore_ascii_case(&cte.name))
        {
            if i + 1 != self.recursive.len() {
                return Err(QuiverError::not_supported(
                    "a recursive CTE read inside another one's body",
                ));
            }
            return self.work_table(qualifier, alias_columns);
        }
        let outer = std::mem::take(&mut self.outer);
        let hidden = self.ctes.split_off(cte.visible.min(self.ctes.len()));
        self.query_depth += 1;
        let r = self.recursive_body(cte);
        self.query_depth -= 1;
        self.ctes.extend(hidden);
        self.outer = outer;
        match r? {
            Some(plan) => {
                let names = if alias_columns.is_empty() {
                    &cte.columns[..]
                } else {
                    alias_columns
                };
                self.derived_scope(plan, qualifier, Some(&cte.name), names)
            }
            // No SELECT reads the CTE: an ordinary one.
            None => {
                let hidden = self.ctes.split_off((cte.visible - 1).min(self.ctes.len()));
                let columns = if alias_columns.is_empty() {
                    &cte.columns[..]
                } else {
                    alias_columns
                };
                let r = self.derived(&cte.query, qualifier, Some(&cte.name), columns);
                self.ctes.extend(hidden);
                r
            }
        }
    }

    /// The CTE's plan, or None when its body does not read it.
    fn recursive_body(&mut self, cte: &CteDef) -> Result<Option<LogicalPlan>> {
        let q = &cte.query;
        let mut operands = Vec::new();
        flatten_union(&q.body, &mut operands)?;
        let work = self.new_column("work", DataType::Null, true).id;
        self.recursive.push(RecursiveRef {
            name: cte.name.clone(),
            depth: self.query_depth,
            work,
            columns: None,
            reads: 0,
        });
        let r = self.recursive_parts(cte, &operands, work);
        self.recursive.pop();
        let Some((anchor, recursive, distinct)) = r? else {
            return Ok(None);
        };
        if q.order_by.is_some() || q.limit_clause.is_some() {
            return Err(QuiverError::not_supported(
                "global ORDER_BY/LIMIT in recursive CTE spec",
            ));
        }
        if q.with.is_some() {
            return Err(QuiverError::not_supported("WITH inside a recursive CTE"));
        }
        let anchor_schema = anchor.schema();
        let recursive_schema = recursive.schema();
        let collations = union_collations(&[&anchor])?;
        let columns = anchor_schema
            .iter()
            .zip(&recursive_schema)
            .zip(collations)
            .map(|((a, r), (collation, coercibility))| {
                let mut c = self.new_column(
                    a.name.clone(),
                    a.data_type.clone(),
                    a.nullable || r.nullable,
                );
                (c.collation, c.coercibility) = (collation, coercibility);
                self.set_declared(&mut c, a.column_type.clone());
                c
            })
            .collect();
        let max_iterations = match self.vars.system.get("max_recursive_iterations") {
            Some(v) => v
                .as_i64()
                .map_or(DEFAULT_MAX_ITERATIONS, |n| n.max(0) as u64),
            None => DEFAULT_MAX_ITERATIONS,
        };
        Ok(Some(LogicalPlan::RecursiveCte {
            anchor: Box::new(anchor),
            recursive: Box::new(recursive),
            work,
            distinct,
            max_iterations,
            columns,
        }))
    }

    /// The anchors' plan, the recursive SELECTs' plan and whether the
    /// union is DISTINCT; None when no SELECT reads the CTE.
    fn recursive_parts(
        &mut self,
        cte: &CteDef,
        operands: &[(&ast::SetExpr, bool)],
        work: ColumnId,
    ) -> Result<Option<(LogicalPlan, LogicalPlan, bool)>> {
        // First sort the SELECTs: the ones that read the CTE are recursive.
        let mut anchors = Vec::new();
        let mut recursive = Vec::new();
        for (i, (operand, _)) in operands.iter().enumerate() {
            self.recursive.last_mut().expect("pushed").reads = 0;
            let bound = self.set_expr(operand, Nesting::Derived);
            if self.recursive.last().expect("pushed").reads > 0 {
                recursive.push(i);
            } else {
                anchors.push(bound?);
            }
        }
        if recursive.is_empty() {
            return Ok(None);
        }
        if anchors.is_empty() {
            return Err(QuiverError::new(
                4005,
                "HY000",
                format!("No anchors for recursive WITH element '{}'", cte.name),
            ));
        }
        let distinct = operands.iter().skip(1).any(|(_, d)| *d);
        if distinct && operands.iter().skip(1).any(|(_, d)| !*d) {
            return Err(QuiverError::not_supported(
                "mix of ALL and DISTINCT UNION operations in recursive CTE spec",
            ));
        }
        let anchor = self.union_of(anchors, false)?;
        let width = anchor.schema().len();
        let anchor_schema = anchor.schema();
        let names: Vec<String> = if cte.columns.is_empty() {
            anchor_schema.iter().map(|c| c.name.clone()).collect()
        } else if cte.columns.len() != width {
            return Err(QuiverError::new(
                4002,
                "HY000",
                "WITH column list and SELECT field list have different column counts",
            ));
        } else {
            cte.columns.clone()
        };
        let columns: Vec<ColumnInfo> = anchor_schema
            .iter()
            .zip(&names)
            .map(|(c, n)| ColumnInfo {
                name: n.clone(),
                nullable: true,
                ..c.clone()
            })
            .collect();
        self.recursive.last_mut().expect("pushed").columns = Some(columns);
        let mut parts = Vec::new();
        for i in recursive {
            let operand = operands[i].0;
            if !matches!(operand, ast::SetExpr::Select(_)) {
                return Err(restrictions(&cte.name));
            }
            self.recursive.last_mut().expect("pushed").reads = 0;
            let bound = self.set_expr(operand, Nesting::Derived)?;
            check_recursive_part(&bound.plan, work, &cte.name)?;
            if self.recursive.last().expect("pushed").reads > 1 {
                return Err(QuiverError::not_supported(
                    "a recursive CTE read more than once in one SELECT",
                ));
            }
            let schema = bound.plan.schema();
            if schema.len() != width {
                return Err(QuiverError::new(
                    1222,
                    "21000",
                    "The used SELECT statements have a different number of columns",
                ));
            }
            if !bound.correlation.is_empty() {
                return Err(QuiverError::not_supported("correlation in a recursive CTE"));
            }
            // Rows take the anchors' types.
            let exprs = schema
                .iter()
                .zip(&anchor_schema)
                .map(|(c, a)| {
                    let mut n = self.new_column(c.name.clone(), a.data_type.clone(), true);
                    (n.collation, n.coercibility) = (a.collation, a.coercibility);
                    (n, cast(c.expr(), &a.data_type))
                })
                .collect();
            parts.push(BoundQuery {
                plan: project(bound.plan, exprs),
                ..bound
            });
        }
        let recursive = self.union_of(parts, false)?;
        Ok(Some((anchor, recursive, distinct)))
    }

    /// UNION ALL (or DISTINCT) of parts of one width.
    fn union_of(&mut self, parts: Vec<BoundQuery>, distinct: bool) -> Result<LogicalPlan> {
        let mut parts = self.cast_to_common_types(parts);
        let width = parts[0].plan.schema().len();
        for b in &parts {
            if b.plan.schema().len() != width {
                return Err(QuiverError::new(
                    1222,
                    "21000",
                    "The used SELECT statements have a different number of columns",
                ));
            }
            if !b.correlation.is_empty() {
                return Err(QuiverError::not_supported("correlation in a recursive CTE"));
            }
        }
        if parts.len() == 1 {
            return Ok(parts.pop().expect("one part").plan);
        }
        let plans: Vec<LogicalPlan> = parts.into_iter().map(|b| b.plan).collect();
        let collations = union_collations(&plans.iter().collect::<Vec<_>>())?;
        let all = self.union_all(plans, &collations)?;
        Ok(if distinct {
            self.distinct_rows(all)
        } else {
            all
        })
    }

    /// The recursive CTE read in its own body: the last round's rows.
    fn work_table(
        &mut self,
        qualifier: &str,
        alias_columns: &[String],
    ) -> Result<(LogicalPlan, Scope)> {
        let depth = self.query_depth;
        let r = self.recursive.last_mut().expect("checked");
        r.reads += 1;
        let name = r.name.clone();
        if r.depth != depth {
            return Err(restrictions(&name));
        }
        let Some(columns) = r.columns.clone() else {
            // Sorting SELECTs: this one is recursive, bound again later.
            return Err(restrictions(&name));
        };
        let work = r.work;
        if !alias_columns.is_empty() && alias_columns.len() != columns.len() {
            return Err(QuiverError::new(
                1353,
                "HY000",
                "In definition of view, derived table or common table expression, SELECT list and column names list have different column counts",
            ));
        }
        let columns: Vec<ColumnInfo> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let name = alias_columns.get(i).unwrap_or(&c.name).clone();
                let mut n = self.new_column(name, c.data_type.clone(), true);
                (n.collation, n.coercibility) = (c.collation, c.coercibility);
                self.set_declared(&mut n, c.column_type.clone());
                n
            })
            .collect();
        let scope = Scope {
            columns: columns
                .iter()
                .map(|c| ScopeColumn::new(Some(qualifier), c))
                .collect(),
        };
        Ok((LogicalPlan::WorkTable { work, columns }, scope))
    }
}

/// MariaDB's 4008: a recursive SELECT may not read the CTE under an
/// aggregate, a window or DISTINCT, nor on the NULL side of an outer join.
fn check_recursive_part(plan: &LogicalPlan, work: ColumnId, name: &str) -> Result<()> {
    let reads = |p: &LogicalPlan| reads_work(p, work);
    match plan {
        LogicalPlan::Aggregate { input, .. } | LogicalPlan::Window { input, .. }
            if reads(input) =>
        {
            return Err(restrictions(name));
        }
        LogicalPlan::Join { right, kind, .. }
            if !matches!(kind, JoinKind::Inner) && reads(right) =>
        {
            return Err(restrictions(name));
        }
        _ => {}
    }
    for c in plan.children() {
        check_recursive_part(c, work, name)?;
    }
    Ok(())
}

fn reads_work(plan: &LogicalPlan, work: ColumnId) -> bool {
    matches!(plan, LogicalPlan::WorkTable { work: w, .. } if *w == work)
        || plan.children().into_iter().any(|c| reads_work(c, work))
}
