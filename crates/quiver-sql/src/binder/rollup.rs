//! GROUP BY ... WITH ROLLUP: the groups of every prefix of the keys (all of
//! them, all but the last, ..., none), the rolled-up keys NULL, in one
//! UNION ALL sorted as MariaDB sends it: by each key in turn, a group's
//! super-aggregate row after the group's rows.

use arrow_schema::DataType;
use quiver_common::ScalarValue;
use quiver_plan::{copy_with_fresh_ids, AggExpr, ColumnInfo, Expr, LogicalPlan, SortExpr};

use super::Binder;

impl Binder<'_> {
    /// The plan of an aggregate over `input` with `group` and `aggs`, rolled
    /// up; it outputs their columns (group columns nullable) and one flag
    /// column per key (1 where that key is rolled up), for the sort.
    pub(super) fn rollup(
        &mut self,
        input: LogicalPlan,
        group: Vec<(ColumnInfo, Expr)>,
        aggs: Vec<(ColumnInfo, AggExpr)>,
    ) -> LogicalPlan {
        let n = group.len();
        let flags: Vec<ColumnInfo> = (0..n)
            .map(|i| self.new_column(format!("rollup_{i}"), DataType::Int64, false))
            .collect();
        let mut inputs = Vec::with_capacity(n + 1);
        for kept in (0..=n).rev() {
            // The rows of this level: grouped on the first `kept` keys. The
            // grand total groups on a constant, so no rows make no total.
            let mut level_group: Vec<(ColumnInfo, Expr)> = group[..kept].to_vec();
            if kept == 0 {
                let one = Expr::lit(ScalarValue::Int64(1));
                level_group.push((self.new_column("rollup", DataType::Int64, false), one));
            }
            let level = LogicalPlan::Aggregate {
                input: Box::new(input.clone()),
                group: level_group,
                aggs: aggs.clone(),
            };
            let mut map = std::collections::HashMap::new();
            let mut next_id = || self.new_column("", DataType::Null, true).id;
            let level = copy_with_fresh_ids(&level, &mut next_id, &mut map);
            let schema = level.schema();
            let column = |c: &ColumnInfo| {
                let id = map.get(&c.id).copied().unwrap_or(c.id);
                let found = schema.iter().find(|s| s.id == id).expect("copied column");
                found.expr()
            };
            let mut exprs: Vec<(ColumnInfo, Expr)> = Vec::new();
            for (i, (c, _)) in group.iter().enumerate() {
                let e = if i < kept {
                    column(c)
                } else {
                    Expr::Literal(ScalarValue::Null, c.data_type.clone())
                };
                exprs.push((
                    self.new_column(c.name.clone(), c.data_type.clone(), true),
                    e,
                ));
            }
            for (c, _) in &aggs {
                let e = column(c);
                exprs.push((
                    self.new_column(c.name.clone(), c.data_type.clone(), true),
                    e,
                ));
            }
            for (i, f) in flags.iter().enumerate() {
                let rolled = ScalarValue::Int64(i64::from(i >= kept));
                exprs.push((
                    self.new_column(f.name.clone(), DataType::Int64, false),
                    Expr::lit(rolled),
                ));
            }
            inputs.push(LogicalPlan::Project {
                input: Box::new(level),
                exprs,
            });
        }
        let columns: Vec<ColumnInfo> = group
            .iter()
            .map(|(c, _)| ColumnInfo {
                nullable: true,
                ..c.clone()
            })
            .chain(aggs.iter().map(|(c, _)| ColumnInfo {
                nullable: true,
                ..c.clone()
            }))
            .chain(flags.iter().cloned())
            .collect();
        let union = LogicalPlan::Union { inputs, columns };
        let keys = group
            .iter()
            .zip(&flags)
            .flat_map(|((c, _), f)| {
                [f.expr(), super::collation::collated(c.expr())]
                    .into_iter()
                    .map(|expr| SortExpr {
                        expr,
                        asc: true,
                        nulls_first: true,
                    })
            })
            .collect();
        LogicalPlan::Sort {
            input: Box::new(union),
            keys,
            fetch: None,
        }
    }
}
