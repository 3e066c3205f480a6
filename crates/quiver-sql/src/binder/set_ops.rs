//! EXCEPT and INTERSECT [ALL | DISTINCT].
//!
//! Both sides' rows, each tagged with the side it comes from, go through
//! one UNION ALL into an aggregate grouping on every column (under the
//! columns' collations, NULLs as one value, as UNION DISTINCT groups) that
//! counts each distinct row's copies per side; a `SetOp` node then keeps
//! each row as many times as the operator says. Types and collations are
//! UNION's.

use arrow_schema::DataType;
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::{AggExpr, AggFunc, ColumnInfo, Expr, LogicalPlan, SetOpKind};
use sqlparser::ast;

use super::query::{project, union_collations};
use super::{Binder, BoundQuery, Nesting};

impl Binder<'_> {
    pub(super) fn except_intersect(
        &mut self,
        op: ast::SetOperator,
        quantifier: ast::SetQuantifier,
        left: &ast::SetExpr,
        right: &ast::SetExpr,
        nesting: Nesting,
    ) -> Result<BoundQuery> {
        let all = match quantifier {
            ast::SetQuantifier::All => true,
            ast::SetQuantifier::Distinct | ast::SetQuantifier::None => false,
            other => return Err(QuiverError::not_supported(format!("{op} {other}"))),
        };
        let kind = match op {
            ast::SetOperator::Except => SetOpKind::Except { all },
            _ => SetOpKind::Intersect { all },
        };
        let sides = vec![
            self.set_expr(left, nesting)?,
            self.set_expr(right, nesting)?,
        ];
        let sides = self.cast_to_common_types(sides);
        let width = sides[0].plan.schema().len();
        for b in &sides {
            if !b.correlation.is_empty() {
                return Err(QuiverError::not_supported(format!(
                    "correlated subqueries with {op}"
                )));
            }
            if b.plan.schema().len() != width {
                return Err(QuiverError::new(
                    1222,
                    "21000",
                    "The used SELECT statements have a different number of columns",
                ));
            }
        }
        let mut collations = union_collations(&[&sides[0].plan, &sides[1].plan])?;
        collations.extend([(None, None), (None, None)]);
        // Side i has 1 in its own tag column, NULL in the other's: COUNT of
        // a tag is that side's copies.
        let tagged = sides
            .into_iter()
            .enumerate()
            .map(|(i, b)| {
                let mut exprs: Vec<(ColumnInfo, Expr)> = b
                    .plan
                    .schema()
                    .iter()
                    .map(|c| (self.pass_through(c), c.expr()))
                    .collect();
                for (side, name) in ["left", "right"].into_iter().enumerate() {
                    let tag = if side == i {
                        ScalarValue::Int64(1)
                    } else {
                        ScalarValue::Null
                    };
                    let c = self.new_column(name, DataType::Int64, side != i);
                    exprs.push((c, Expr::Literal(tag, DataType::Int64)));
                }
                project(b.plan, exprs)
            })
            .collect();
        let rows = self.union_all(tagged, &collations)?;
        let schema = rows.schema();
        let group = schema[..width]
            .iter()
            .map(|c| {
                let e = c.expr();
                (self.new_column_for(c.name.clone(), &e, c.nullable), e)
            })
            .collect();
        let aggs = schema[width..]
            .iter()
            .map(|c| {
                let count = AggExpr {
                    func: AggFunc::Count,
                    arg: Some(c.expr()),
                    distinct: false,
                    data_type: DataType::Int64,
                    concat: None,
                };
                (
                    self.new_column(c.name.clone(), DataType::Int64, false),
                    count,
                )
            })
            .collect();
        let counted = LogicalPlan::Aggregate {
            input: Box::new(rows),
            group,
            aggs,
        };
        Ok(BoundQuery {
            plan: LogicalPlan::SetOp {
                input: Box::new(counted),
                kind,
            },
            visible: width,
            correlation: vec![],
            always_one_row: false,
            empty_row: vec![],
        })
    }

    /// A new column that reads `c` unchanged, with its name, type,
    /// collation, declared type and origin.
    fn pass_through(&mut self, c: &ColumnInfo) -> ColumnInfo {
        let mut n = self.new_column(c.name.clone(), c.data_type.clone(), c.nullable);
        (n.collation, n.coercibility) = (c.collation, c.coercibility);
        n.display_length = c.display_length;
        self.set_declared(&mut n, c.column_type.clone());
        if let Some(o) = &c.origin {
            self.set_origin(&mut n, o.clone());
        }
        n
    }
}
