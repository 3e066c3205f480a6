//! `SUM(x + c)` as `SUM(x) + c * COUNT(x)`: a constant shift moves out of
//! the sum, so that many sums of one column shifted by different constants
//! (a dashboard's `SUM(width + 1), SUM(width + 2), ...`) become one SUM and
//! one COUNT, where each would otherwise add up a column of its own.
//!
//! Exact only where the rewrite changes no answer: `x` is an integer of at
//! most 32 bits widened to BIGINT and `|c| <= 2^62`, so that no row's `x + c`
//! can overflow (an overflow would be 1690 before and not after), and the
//! sum is an exact DECIMAL of scale 0. NULL rows count in neither side, and
//! a SUM over no value stays NULL. The result is cast back to the type the
//! SUM was declared with, and keeps its column id, so nothing above sees the
//! change.

use std::cell::Cell;

use arrow_schema::DataType;
use quiver_common::ScalarValue;

use crate::expr::{AggExpr, AggFunc, BinaryOp, ColumnId, Expr};
use crate::plan::{ColumnInfo, LogicalPlan};

use super::reduce_subquery::max_column_id;

pub(super) fn shift_sums(plan: LogicalPlan) -> LogicalPlan {
    let next_id = Cell::new(max_column_id(&plan) + 1);
    shift(plan, &next_id)
}

fn shift(plan: LogicalPlan, next_id: &Cell<u32>) -> LogicalPlan {
    let plan = plan.map_children(|c| shift(c, next_id));
    let LogicalPlan::Aggregate { input, group, aggs } = plan else {
        return plan;
    };
    if !aggs.iter().any(|(_, a)| shifted_sum(a).is_some()) {
        return LogicalPlan::Aggregate { input, group, aggs };
    }
    let fresh = || {
        let id = ColumnId(next_id.get());
        next_id.set(id.0 + 1);
        id
    };
    // One SUM and one COUNT per shifted expression, however many shifts.
    let mut bases: Vec<(Expr, ColumnId, ColumnId)> = Vec::new();
    let mut new_aggs: Vec<(ColumnInfo, AggExpr)> = Vec::new();
    let mut outputs: Vec<(ColumnInfo, Expr)> = group
        .iter()
        .map(|(c, _)| (c.clone(), Expr::Column(c.id, c.data_type.clone())))
        .collect();
    for (info, agg) in aggs {
        let Some((base, op, c)) = shifted_sum(&agg) else {
            outputs.push((info.clone(), Expr::Column(info.id, info.data_type.clone())));
            new_aggs.push((info, agg));
            continue;
        };
        let (sum_id, count_id) = match bases.iter().find(|(b, ..)| *b == base) {
            Some((_, s, n)) => (*s, *n),
            None => {
                let (s, n) = (fresh(), fresh());
                new_aggs.push((
                    ColumnInfo::plain(s, "sum", agg.data_type.clone(), true),
                    AggExpr {
                        func: AggFunc::Sum,
                        arg: Some(base.clone()),
                        distinct: false,
                        data_type: agg.data_type.clone(),
                        concat: None,
                    },
                ));
                new_aggs.push((
                    ColumnInfo::plain(n, "count", DataType::Int64, false),
                    AggExpr {
                        func: AggFunc::Count,
                        arg: Some(base.clone()),
                        distinct: false,
                        data_type: DataType::Int64,
                        concat: None,
                    },
                ));
                bases.push((base, s, n));
                (s, n)
            }
        };
        // |c * count| < 2^62 * 2^63 < 10^38: DECIMAL(19,0) factors fit.
        let factor = DataType::Decimal128(19, 0);
        let shift = Expr::Binary {
            op: BinaryOp::Mul,
            left: Box::new(Expr::Cast {
                expr: Box::new(Expr::Column(count_id, DataType::Int64)),
                to: factor.clone(),
            }),
            right: Box::new(Expr::Literal(ScalarValue::Decimal(c.into(), 19, 0), factor)),
        };
        let total = Expr::Binary {
            op,
            left: Box::new(Expr::Column(sum_id, agg.data_type.clone())),
            right: Box::new(shift),
        };
        let to = info.data_type.clone();
        outputs.push((
            info,
            Expr::Cast {
                expr: Box::new(total),
                to,
            },
        ));
    }
    LogicalPlan::Project {
        input: Box::new(LogicalPlan::Aggregate {
            input,
            group,
            aggs: new_aggs,
        }),
        exprs: outputs,
    }
}

/// `SUM(x + c)`, `SUM(c + x)` or `SUM(x - c)` that may move its shift out:
/// `x`, the operator (+ or -) and `c`.
fn shifted_sum(agg: &AggExpr) -> Option<(Expr, BinaryOp, i64)> {
    if !matches!(agg.func, AggFunc::Sum) || agg.distinct {
        return None;
    }
    if !matches!(
        agg.data_type,
        DataType::Decimal128(_, 0) | DataType::Decimal256(_, 0)
    ) {
        return None;
    }
    let Some(Expr::Binary { op, left, right }) = &agg.arg else {
        return None;
    };
    let (base, c) = match (op, constant(left), constant(right)) {
        (BinaryOp::Add | BinaryOp::Sub, None, Some(c)) => (left, c),
        (BinaryOp::Add, Some(c), None) => (right, c),
        _ => return None,
    };
    (narrow_widened(base) && c.unsigned_abs() <= 1 << 62).then(|| ((**base).clone(), *op, c))
}

/// A BIGINT constant.
fn constant(e: &Expr) -> Option<i64> {
    match e {
        Expr::Literal(ScalarValue::Int64(c), DataType::Int64) => Some(*c),
        _ => None,
    }
}

/// An integer of at most 32 bits widened to BIGINT: `|x| < 2^32`.
fn narrow_widened(e: &Expr) -> bool {
    let Expr::Cast { expr, to } = e else {
        return false;
    };
    *to == DataType::Int64
        && matches!(
            expr.data_type(),
            DataType::Int8
                | DataType::Int16
                | DataType::Int32
                | DataType::UInt8
                | DataType::UInt16
                | DataType::UInt32
        )
}
