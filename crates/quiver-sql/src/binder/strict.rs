//! MySQL's strict mode with ERROR_FOR_DIVISION_BY_ZERO (both in its default
//! sql_mode): a division by zero in a statement that writes a table (INSERT,
//! CREATE TABLE ... SELECT) is error 1365 instead of NULL.

use quiver_common::ScalarValue;
use quiver_plan::{BinaryOp, Expr, LogicalPlan, ScalarFunc};

/// The plan with the divisions of the values it outputs made strict. Only
/// the select list (also inside aggregates) is changed: MySQL evaluates a
/// WHERE / ON condition lazily (`b <> 0 AND a / b > 1` never divides by
/// zero) where Quiver evaluates every conjunct, so those keep NULL.
pub fn strict_division(plan: LogicalPlan) -> LogicalPlan {
    match plan {
        LogicalPlan::Project { input, exprs } => LogicalPlan::Project {
            input: Box::new(strict_division(*input)),
            exprs: exprs
                .into_iter()
                .map(|(c, e)| (c, strict_division_expr(e)))
                .collect(),
        },
        LogicalPlan::Aggregate { input, group, aggs } => LogicalPlan::Aggregate {
            input,
            group,
            aggs: aggs
                .into_iter()
                .map(|(c, mut a)| {
                    for e in a.exprs_mut() {
                        *e = strict_division_expr(std::mem::replace(
                            e,
                            Expr::lit(ScalarValue::Null),
                        ));
                    }
                    (c, a)
                })
                .collect(),
        },
        LogicalPlan::Sort { input, keys, fetch } => LogicalPlan::Sort {
            input: Box::new(strict_division(*input)),
            keys,
            fetch,
        },
        LogicalPlan::Limit { input, skip, fetch } => LogicalPlan::Limit {
            input: Box::new(strict_division(*input)),
            skip,
            fetch,
        },
        LogicalPlan::Union { inputs, columns } => LogicalPlan::Union {
            inputs: inputs.into_iter().map(strict_division).collect(),
            columns,
        },
        LogicalPlan::Values { columns, rows } => LogicalPlan::Values {
            columns,
            rows: rows
                .into_iter()
                .map(|r| r.into_iter().map(strict_division_expr).collect())
                .collect(),
        },
        other => other,
    }
}

/// `e` with each `/`, DIV and `%` it always evaluates made strict. Branches
/// of CASE / IF and the right side of AND / OR are left alone: MySQL does
/// not evaluate them for every row, Quiver does.
pub fn strict_division_expr(e: Expr) -> Expr {
    match e {
        Expr::Binary { op, left, right }
            if matches!(op, BinaryOp::Div | BinaryOp::IntDiv | BinaryOp::Mod) =>
        {
            let data_type = Expr::Binary {
                op,
                left: left.clone(),
                right: right.clone(),
            }
            .data_type();
            Expr::Function {
                func: ScalarFunc::StrictDivision(op),
                args: vec![strict_division_expr(*left), strict_division_expr(*right)],
                data_type,
            }
        }
        Expr::Binary { op, left, right } if op.arith().is_some() || op.is_comparison() => {
            Expr::Binary {
                op,
                left: Box::new(strict_division_expr(*left)),
                right: Box::new(strict_division_expr(*right)),
            }
        }
        Expr::Unary { op, expr } => Expr::Unary {
            op,
            expr: Box::new(strict_division_expr(*expr)),
        },
        Expr::Cast { expr, to } => Expr::Cast {
            expr: Box::new(strict_division_expr(*expr)),
            to,
        },
        Expr::Function {
            func,
            args,
            data_type,
        } if !matches!(func, ScalarFunc::Coalesce | ScalarFunc::NullIf) => Expr::Function {
            func,
            args: args.into_iter().map(strict_division_expr).collect(),
            data_type,
        },
        other => other,
    }
}
