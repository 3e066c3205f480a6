//! Join ordering: a tree of inner joins is flattened into relations and
//! conditions, then rebuilt. Up to [`EXHAUSTIVE_MAX`] connected relations
//! are ordered exhaustively over their connected subsets (dynamic
//! programming, the plan with the least estimated rows summed over its
//! joins); more, or relations nothing connects, greedily: always joining the
//! connected pair with the smallest estimated result. Either way the smaller
//! side is the hash table's build side (the right child), and cross products
//! are made only when nothing connects.

use std::collections::HashSet;

use super::cardinality::estimate_rows;
use crate::expr::{ColumnId, Expr};
use crate::plan::{JoinKind, LogicalPlan};

pub fn reorder_joins(plan: LogicalPlan) -> LogicalPlan {
    match plan {
        LogicalPlan::Join {
            kind: JoinKind::Inner,
            ..
        } => {
            let mut relations = Vec::new();
            let mut conditions = Vec::new();
            flatten(plan, &mut relations, &mut conditions);
            let relations: Vec<LogicalPlan> = relations.into_iter().map(reorder_joins).collect();
            if relations.len() <= EXHAUSTIVE_MAX {
                if let Some(plan) = exhaustive(&relations, &conditions) {
                    return plan;
                }
            }
            greedy(relations, conditions)
        }
        other => other.map_children(reorder_joins),
    }
}

fn flatten(plan: LogicalPlan, relations: &mut Vec<LogicalPlan>, conditions: &mut Vec<Expr>) {
    match plan {
        LogicalPlan::Join {
            left,
            right,
            kind: JoinKind::Inner,
            on,
            filter,
        } => {
            flatten(*left, relations, conditions);
            flatten(*right, relations, conditions);
            conditions.extend(
                on.into_iter()
                    .map(|(l, r)| Expr::binary(crate::expr::BinaryOp::Eq, l, r)),
            );
            if let Some(f) = filter {
                conditions.extend(f.split_conjunction());
            }
        }
        LogicalPlan::Filter { input, predicate }
            if matches!(
                *input,
                LogicalPlan::Join {
                    kind: JoinKind::Inner,
                    ..
                }
            ) =>
        {
            flatten(*input, relations, conditions);
            conditions.extend(predicate.split_conjunction());
        }
        other => relations.push(other),
    }
}

struct Part {
    plan: LogicalPlan,
    ids: HashSet<ColumnId>,
    rows: f64,
}

/// `conditions` and the equalities they imply (`a = b AND b = c` gives
/// `a = c`: Q5's customers meet the nation of their suppliers), with the
/// equivalence class of each column equality. Only columns of one type that
/// is not a string are chained: equality under a collation, or between a
/// number and a string, need not be transitive.
fn with_implied_equalities(conditions: &[Expr]) -> (Vec<Expr>, Vec<Option<usize>>) {
    let pair = |c: &Expr| match c {
        Expr::Binary {
            op: crate::expr::BinaryOp::Eq,
            left,
            right,
        } => match (left.as_ref(), right.as_ref()) {
            (Expr::Column(a, ta), Expr::Column(b, tb))
                if ta == tb && a != b && !quiver_common::types::is_string(ta) =>
            {
                Some((*a, *b, ta.clone()))
            }
            _ => None,
        },
        _ => None,
    };
    // Classes of columns of one type, merged through each equality.
    let mut class_of: std::collections::HashMap<ColumnId, usize> = Default::default();
    let mut members: Vec<Vec<ColumnId>> = Vec::new();
    let mut class_type: Vec<arrow_schema::DataType> = Vec::new();
    let mut chained = vec![false; conditions.len()];
    for (i, (a, b, t)) in conditions
        .iter()
        .enumerate()
        .filter_map(|(i, c)| pair(c).map(|p| (i, p)))
    {
        let (ca, cb) = (class_of.get(&a).copied(), class_of.get(&b).copied());
        if [ca, cb].iter().flatten().any(|&x| class_type[x] != t) {
            continue;
        }
        chained[i] = true;
        match (ca, cb) {
            (Some(x), Some(y)) if x == y => {}
            (Some(x), Some(y)) => {
                let moved = std::mem::take(&mut members[y]);
                for c in &moved {
                    class_of.insert(*c, x);
                }
                members[x].extend(moved);
            }
            (Some(x), None) | (None, Some(x)) => {
                let new = if ca.is_some() { b } else { a };
                class_of.insert(new, x);
                members[x].push(new);
            }
            (None, None) => {
                class_of.insert(a, members.len());
                class_of.insert(b, members.len());
                members.push(vec![a, b]);
                class_type.push(t);
            }
        }
    }
    let mut out = conditions.to_vec();
    let mut classes: Vec<Option<usize>> = conditions
        .iter()
        .zip(&chained)
        .map(|(c, &chained)| pair(c).filter(|_| chained).map(|(a, _, _)| class_of[&a]))
        .collect();
    let stated: HashSet<(ColumnId, ColumnId)> = conditions
        .iter()
        .filter_map(pair)
        .flat_map(|(a, b, _)| [(a, b), (b, a)])
        .collect();
    for (class, cols) in members.iter().enumerate() {
        let t = &class_type[class];
        for (i, a) in cols.iter().enumerate() {
            for b in &cols[i + 1..] {
                if !stated.contains(&(*a, *b)) {
                    out.push(Expr::binary(
                        crate::expr::BinaryOp::Eq,
                        Expr::Column(*a, t.clone()),
                        Expr::Column(*b, t.clone()),
                    ));
                    classes.push(Some(class));
                }
            }
        }
    }
    (out, classes)
}

/// Relations ordered by [`exhaustive`] at most: it visits 3^n subset pairs.
const EXHAUSTIVE_MAX: usize = 10;

/// The best join tree of the relations, or None when they are not all
/// connected. The best plan of each connected subset is the cheapest join of
/// two of its connected, connected-to-each-other halves; a plan's cost is the
/// estimated rows of all its joins (probe and build sides are read once
/// whatever the order; what the joins make is what differs: TPC-H Q5 joins
/// the 1 of 5 regions into customers before orders, not after lineitem).
fn exhaustive(relations: &[LogicalPlan], conditions: &[Expr]) -> Option<LogicalPlan> {
    let (conditions, classes) = with_implied_equalities(conditions);
    let conditions = &conditions[..];
    let n = relations.len();
    let ids: Vec<HashSet<ColumnId>> = relations
        .iter()
        .map(|r| r.schema().iter().map(|c| c.id).collect())
        .collect();
    // The relations each condition reads; none for one that reads no
    // relation or a column from elsewhere: it stays on top, as greedy keeps it.
    let masks: Vec<u32> = conditions
        .iter()
        .map(|c| {
            let cols = c.columns();
            if !cols.iter().all(|c| ids.iter().any(|r| r.contains(c))) {
                return 0;
            }
            (0..n)
                .filter(|&i| !cols.is_disjoint(&ids[i]))
                .fold(0, |m, i| m | 1 << i)
        })
        .collect();
    // The conditions a join of halves `inside` (or a relation) applies: those
    // over its relations not applied inside them; of column equalities of
    // one class, one (the halves' members of the class are equal already).
    let applies = |s: u32, inside: &[u32]| -> Vec<Expr> {
        let mut joined_classes = HashSet::new();
        conditions
            .iter()
            .zip(&masks)
            .zip(&classes)
            .filter(|((_, &m), class)| {
                m != 0
                    && m & !s == 0
                    && inside.iter().all(|&part| m & !part != 0)
                    && (inside.is_empty() || class.is_none_or(|c| joined_classes.insert(c)))
            })
            .map(|((c, _), _)| c.clone())
            .collect()
    };
    let full = (1u32 << n) - 1;
    // Per subset: its best plan, estimated rows and cost.
    let mut best: Vec<Option<(LogicalPlan, f64, f64)>> = vec![None; full as usize + 1];
    for (i, r) in relations.iter().enumerate() {
        let plan = match Expr::conjunction(applies(1 << i, &[])) {
            Some(predicate) => LogicalPlan::Filter {
                input: Box::new(r.clone()),
                predicate,
            },
            None => r.clone(),
        };
        best[1 << i] = Some((plan.clone(), estimate_rows(&plan), 0.0));
    }
    for s in 1..=full {
        if s.count_ones() < 2 {
            continue;
        }
        // Halves (a, s - a) with a holding s's lowest relation: each pair once.
        let low = s & s.wrapping_neg();
        let mut chosen: Option<(u32, f64)> = None;
        let mut a = (s - 1) & s;
        while a > 0 {
            let b = s ^ a;
            if a & low != 0 {
                if let (Some((_, _, ca)), Some((_, _, cb))) = (&best[a as usize], &best[b as usize])
                {
                    let joined = masks
                        .iter()
                        .any(|&m| m & a != 0 && m & b != 0 && m & !s == 0);
                    if joined && chosen.is_none_or(|(_, c)| ca + cb < c) {
                        chosen = Some((a, ca + cb));
                    }
                }
            }
            a = (a - 1) & s;
        }
        let Some((a, cost)) = chosen else {
            continue;
        };
        let b = s ^ a;
        let (pa, ra, _) = best[a as usize].clone().expect("a best half");
        let (pb, rb, _) = best[b as usize].clone().expect("a best half");
        let ((probe, _), (build, _)) = if ra >= rb {
            ((pa, ra), (pb, rb))
        } else {
            ((pb, rb), (pa, ra))
        };
        let plan = LogicalPlan::Join {
            left: Box::new(probe),
            right: Box::new(build),
            kind: JoinKind::Inner,
            on: vec![],
            filter: Expr::conjunction(applies(s, &[a, b])),
        };
        let rows = estimate_rows(&super::pushdown::push_down_predicates(plan.clone()));
        best[s as usize] = Some((plan, rows, cost + rows));
    }
    let (plan, ..) = best[full as usize].take()?;
    // Conditions of no relation (constants, outer columns) stay on top.
    let rest: Vec<Expr> = conditions
        .iter()
        .zip(&masks)
        .filter(|(_, &m)| m == 0)
        .map(|(c, _)| c.clone())
        .collect();
    Some(match Expr::conjunction(rest) {
        Some(predicate) => LogicalPlan::Filter {
            input: Box::new(plan),
            predicate,
        },
        None => plan,
    })
}

fn greedy(relations: Vec<LogicalPlan>, mut conditions: Vec<Expr>) -> LogicalPlan {
    let mut parts: Vec<Part> = relations
        .into_iter()
        .map(|plan| Part {
            ids: plan.schema().iter().map(|c| c.id).collect(),
            rows: estimate_rows(&plan),
            plan,
        })
        .collect();
    while parts.len() > 1 {
        let mut best: Option<(usize, usize, f64)> = None;
        for i in 0..parts.len() {
            for j in i + 1..parts.len() {
                let connected = conditions.iter().any(|c| {
                    let cols = c.columns();
                    !cols.is_disjoint(&parts[i].ids) && !cols.is_disjoint(&parts[j].ids) && {
                        let both: HashSet<ColumnId> =
                            parts[i].ids.union(&parts[j].ids).copied().collect();
                        cols.is_subset(&both)
                    }
                });
                if !connected {
                    continue;
                }
                let rows = estimate_rows(&join_of(&parts[i], &parts[j], &conditions));
                if best.is_none_or(|(_, _, r)| rows < r) {
                    best = Some((i, j, rows));
                }
            }
        }
        let (i, j) = match best {
            Some((i, j, _)) => (i, j),
            None => {
                // Nothing connects: cross the two smallest.
                let mut order: Vec<usize> = (0..parts.len()).collect();
                order.sort_by(|a, b| parts[*a].rows.total_cmp(&parts[*b].rows));
                (order[0].min(order[1]), order[0].max(order[1]))
            }
        };
        let b = parts.remove(j);
        let a = parts.remove(i);
        let ids: HashSet<ColumnId> = a.ids.union(&b.ids).copied().collect();
        // Conditions now fully covered go into this join.
        let (here, rest): (Vec<Expr>, Vec<Expr>) = conditions
            .into_iter()
            .partition(|c| c.columns().is_subset(&ids));
        conditions = rest;
        let (probe, build) = if a.rows >= b.rows { (a, b) } else { (b, a) };
        let plan = LogicalPlan::Join {
            left: Box::new(probe.plan),
            right: Box::new(build.plan),
            kind: JoinKind::Inner,
            on: vec![],
            filter: Expr::conjunction(here),
        };
        let rows = estimate_rows(&super::pushdown::push_down_predicates(plan.clone()));
        parts.push(Part { plan, ids, rows });
    }
    let last = parts.pop().expect("at least one relation").plan;
    match Expr::conjunction(conditions) {
        Some(predicate) => LogicalPlan::Filter {
            input: Box::new(last),
            predicate,
        },
        None => last,
    }
}

fn join_of(a: &Part, b: &Part, conditions: &[Expr]) -> LogicalPlan {
    let ids: HashSet<ColumnId> = a.ids.union(&b.ids).copied().collect();
    let here: Vec<Expr> = conditions
        .iter()
        .filter(|c| c.columns().is_subset(&ids))
        .cloned()
        .collect();
    super::pushdown::push_down_predicates(LogicalPlan::Join {
        left: Box::new(a.plan.clone()),
        right: Box::new(b.plan.clone()),
        kind: JoinKind::Inner,
        on: vec![],
        filter: Expr::conjunction(here),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::BinaryOp;
    use arrow_schema::DataType;

    fn eq(a: u32, b: u32, t: &DataType) -> Expr {
        Expr::binary(
            BinaryOp::Eq,
            Expr::Column(ColumnId(a), t.clone()),
            Expr::Column(ColumnId(b), t.clone()),
        )
    }

    #[test]
    fn equalities_chain_into_classes_of_one_non_string_type() {
        let int = DataType::Int64;
        let text = DataType::Utf8;
        let given = vec![
            eq(1, 2, &int),
            eq(2, 3, &int),
            eq(4, 5, &text),
            eq(5, 6, &text),
            eq(7, 8, &DataType::Int32),
            eq(8, 9, &int),
        ];
        let (all, classes) = with_implied_equalities(&given);
        let implied: Vec<String> = all[given.len()..].iter().map(|e| e.to_string()).collect();
        // 1 = 3 only: strings are not chained, nor columns of other types.
        assert_eq!(implied, vec![eq(1, 3, &int).to_string()]);
        assert_eq!(classes[0], classes[1]);
        assert_eq!(classes[0], classes[6]);
        assert_eq!(classes[2], None);
        assert!(classes[4].is_some());
        assert_eq!(classes[5], None);
    }

    /// A table of `rows` rows whose columns have the given distinct counts.
    #[derive(Debug)]
    struct Sized {
        name: &'static str,
        rows: usize,
        distinct: Vec<usize>,
    }

    impl crate::plan::TableSource for Sized {
        fn name(&self) -> &str {
            self.name
        }
        fn schema(&self) -> arrow_schema::SchemaRef {
            let fields: Vec<arrow_schema::Field> = (0..self.distinct.len())
                .map(|i| arrow_schema::Field::new(format!("c{i}"), DataType::Int64, false))
                .collect();
            std::sync::Arc::new(arrow_schema::Schema::new(fields))
        }
        fn row_count(&self) -> usize {
            self.rows
        }
        fn distinct_estimate(&self, column: usize) -> Option<usize> {
            self.distinct.get(column).copied()
        }
        fn batches(&self) -> quiver_common::Result<std::sync::Arc<Vec<arrow_array::RecordBatch>>> {
            Ok(std::sync::Arc::new(vec![]))
        }
    }

    /// A scan of every column of `t`, the columns numbered from `first_id`.
    fn scan(t: Sized, first_id: u32, filters: Vec<Expr>) -> LogicalPlan {
        let columns = (0..t.distinct.len())
            .map(|i| {
                let info = crate::plan::ColumnInfo {
                    id: ColumnId(first_id + i as u32),
                    name: format!("c{i}"),
                    data_type: DataType::Int64,
                    nullable: false,
                    collation: None,
                    coercibility: None,
                    origin: None,
                    column_type: None,
                    display_length: None,
                    decimals: None,
                };
                (i, info)
            })
            .collect();
        LogicalPlan::Scan {
            table: std::sync::Arc::new(t),
            columns,
            filters,
            filter_columns: vec![],
        }
    }

    fn tables(p: &LogicalPlan) -> Vec<String> {
        match p {
            LogicalPlan::Scan { table, .. } => vec![table.name().to_string()],
            LogicalPlan::Filter { input, .. } => tables(input),
            LogicalPlan::Join { left, right, .. } => {
                let mut t = tables(left);
                t.extend(tables(right));
                t.sort();
                t
            }
            _ => vec![],
        }
    }

    fn joins(p: &LogicalPlan, out: &mut Vec<(Vec<String>, Vec<String>)>) {
        if let LogicalPlan::Join { left, right, .. } = p {
            out.push((tables(left), tables(right)));
            joins(left, out);
            joins(right, out);
        } else if let LogicalPlan::Filter { input, .. } = p {
            joins(input, out);
        }
    }

    /// TPC-H Q9 at SF1: a lineitem row's part and supplier name one
    /// partsupp row, so partsupp joined to the few filtered parts first
    /// meets lineitem on both keys without multiplying it. (Each key's
    /// distinct count alone made that join look 15 times too large, and
    /// lineitem met part and orders first, then all 800,000 partsupp rows
    /// with their suppliers.)
    #[test]
    fn few_parts_meet_partsupp_before_lineitem_on_two_keys() {
        let int = DataType::Int64;
        let t = |name, rows, distinct| Sized {
            name,
            rows,
            distinct,
        };
        // Column ids: lineitem 1-3 (orderkey, partkey, suppkey), orders 10,
        // part 20-21 (partkey, a column of 5 values), partsupp 30-31,
        // supplier 40-41 (suppkey, nationkey), nation 50.
        let lineitem = scan(
            t("lineitem", 6_000_000, vec![1_500_000, 200_000, 10_000]),
            1,
            vec![],
        );
        let orders = scan(t("orders", 1_500_000, vec![1_500_000]), 10, vec![]);
        // One part in five, as Q9's LIKE '%green%' is estimated.
        let fifth = Expr::binary(
            BinaryOp::Eq,
            Expr::Column(ColumnId(21), int.clone()),
            Expr::lit(quiver_common::ScalarValue::Int64(3)),
        );
        let part = scan(t("part", 200_000, vec![200_000, 5]), 20, vec![fifth]);
        let partsupp = scan(t("partsupp", 800_000, vec![200_000, 10_000]), 30, vec![]);
        let supplier = scan(t("supplier", 10_000, vec![10_000, 25]), 40, vec![]);
        let nation = scan(t("nation", 25, vec![25]), 50, vec![]);
        let join = |l: LogicalPlan, r: LogicalPlan| LogicalPlan::Join {
            left: Box::new(l),
            right: Box::new(r),
            kind: JoinKind::Inner,
            on: vec![],
            filter: None,
        };
        let conditions = [
            eq(40, 3, &int),
            eq(31, 3, &int),
            eq(30, 2, &int),
            eq(20, 2, &int),
            eq(10, 1, &int),
            eq(41, 50, &int),
        ];
        // As the binder leaves Q9's FROM list: one inner join over all the
        // conditions.
        let plan = LogicalPlan::Join {
            left: Box::new(join(
                join(join(join(part, supplier), lineitem), partsupp),
                orders,
            )),
            right: Box::new(nation),
            kind: JoinKind::Inner,
            on: vec![],
            filter: Expr::conjunction(conditions.to_vec()),
        };
        let mut found = Vec::new();
        joins(&reorder_joins(plan), &mut found);
        let sides = |a: &[&str], b: &[&str]| {
            let (a, b): (Vec<String>, Vec<String>) = (
                a.iter().map(|s| s.to_string()).collect(),
                b.iter().map(|s| s.to_string()).collect(),
            );
            found
                .iter()
                .any(|(l, r)| (l == &a && r == &b) || (l == &b && r == &a))
        };
        assert!(
            sides(&["part"], &["partsupp"]) && !sides(&["lineitem"], &["part"]),
            "part meets partsupp, not lineitem: {found:?}"
        );
    }
}
