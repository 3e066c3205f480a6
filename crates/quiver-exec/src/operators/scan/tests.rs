//! Tests of the scan: filters, zone maps (plain and collated bounds) and
//! the adaptive filter order, end to end over a table with zone maps.

use super::*;
use crate::expr::Layout;
use arrow_array::{cast::AsArray, types::Int64Type, Array, ArrayRef, Int64Array, StringArray};
use arrow_schema::{DataType, Field, Schema};
use quiver_collation::Collation;
use quiver_common::ScalarValue;
use quiver_plan::{BinaryOp, ColumnId, ColumnZone, Expr, ZoneMaps};
use std::cmp::Ordering as Cmp;

use super::zone_maps::compare_ruled_out;

/// A table of row groups with zone maps computed from the data (strings
/// in byte order, as storage keeps them).
#[derive(Debug)]
struct ZonedTable {
    schema: SchemaRef,
    batches: Arc<Vec<RecordBatch>>,
    zones: Option<Arc<ZoneMaps>>,
}

impl TableSource for ZonedTable {
    fn name(&self) -> &str {
        "t"
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn row_count(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }
    fn distinct_estimate(&self, _: usize) -> Option<usize> {
        None
    }
    fn batches(&self) -> Result<Arc<Vec<RecordBatch>>> {
        Ok(self.batches.clone())
    }
    fn scan_batches(&self, columns: &[usize]) -> Result<quiver_plan::ScanBatches> {
        let batches = self
            .batches
            .iter()
            .map(|b| b.project(columns))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(quiver_plan::ScanBatches {
            batches: Arc::new(batches),
            zone_maps: self.zones.clone(),
            ends_in_space: Vec::new(),
        })
    }
}

fn zone(a: &ArrayRef) -> ColumnZone {
    let nulls = a.null_count();
    let (min, max) = match a.data_type() {
        DataType::Int64 => {
            let v: Vec<i64> = a.as_primitive::<Int64Type>().iter().flatten().collect();
            (
                v.iter().min().map(|x| ScalarValue::Int64(*x)),
                v.iter().max().map(|x| ScalarValue::Int64(*x)),
            )
        }
        _ => {
            let v: Vec<&str> = a.as_string::<i32>().iter().flatten().collect();
            (
                v.iter().min().map(|x| ScalarValue::Utf8(x.to_string())),
                v.iter().max().map(|x| ScalarValue::Utf8(x.to_string())),
            )
        }
    };
    ColumnZone {
        rows: a.len(),
        null_count: nulls,
        min,
        max,
        max_is_prefix: false,
        collated: None,
        shape: None,
    }
}

fn table(with_zones: bool) -> Arc<ZonedTable> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, true),
        Field::new("s", DataType::Utf8, true),
    ]));
    // Row groups of 1000 rows: k ascending (so zones are tight), s in
    // groups "g<n>" with trailing spaces on some rows, and a NULL-only group.
    let batches: Vec<RecordBatch> = (0..8)
        .map(|g| {
            let k: ArrayRef = Arc::new(Int64Array::from_iter(
                (0..1000).map(|i| (g != 5).then_some(g * 1000 + i)),
            ));
            let s: ArrayRef = Arc::new(StringArray::from_iter((0..1000).map(|i| {
                Some(if i % 3 == 0 {
                    format!("g{g} ")
                } else {
                    format!("g{g}")
                })
            })));
            RecordBatch::try_new(schema.clone(), vec![k, s]).unwrap()
        })
        .collect();
    let zones = with_zones.then(|| {
        Arc::new(ZoneMaps {
            groups: batches
                .iter()
                .map(|b| b.columns().iter().map(zone).collect())
                .collect(),
        })
    });
    Arc::new(ZonedTable {
        schema,
        batches: Arc::new(batches),
        zones,
    })
}

/// Rows (sorted) and (row groups skipped, row groups) of a scan.
type ScanResult = (Vec<(Option<i64>, String)>, Option<(usize, usize)>);

fn run(t: Arc<ZonedTable>, filter: &Expr) -> ScanResult {
    let mut layout = Layout::default();
    layout.insert(ColumnId(0), 0);
    layout.insert(ColumnId(1), 1);
    let f = PhysicalExpr::compile(filter, &layout).unwrap();
    let schema = t.schema.clone();
    let scan = Arc::new(ScanExec::new(
        t,
        vec![0, 1],
        vec![f],
        vec![],
        schema.clone(),
        schema,
        2,
    ));
    let ctx = Arc::new(ExecContext::new(2, usize::MAX));
    let plan: Arc<dyn ExecutionPlan> = scan.clone();
    let mut rows = Vec::new();
    for b in crate::collect(&plan, &ctx).unwrap() {
        let k = b.column(0).as_primitive::<Int64Type>();
        let s = b.column(1).as_string::<i32>();
        for i in 0..b.num_rows() {
            rows.push((k.is_valid(i).then(|| k.value(i)), s.value(i).to_string()));
        }
    }
    rows.sort();
    (rows, scan.row_groups_skipped())
}

fn col(i: u32, t: DataType) -> Box<Expr> {
    Box::new(Expr::Column(ColumnId(i), t))
}

fn cmp(op: BinaryOp, i: u32, v: ScalarValue) -> Expr {
    let t = if i == 0 {
        DataType::Int64
    } else {
        DataType::Utf8
    };
    let lit = Box::new(Expr::Literal(v, t.clone()));
    Expr::Binary {
        op,
        left: col(i, t),
        right: lit,
    }
}

#[test]
fn filter_only_columns_are_not_output() {
    let t = table(true);
    // s = 'g3' (PAD SPACE: also 'g3 '): output k, reading s for the
    // filter only; then read s alone and output no column at all.
    let filter = cmp(BinaryOp::Eq, 1, ScalarValue::Utf8("g3".into()));
    for (projection, outputs) in [(vec![0usize, 1], 1usize), (vec![1], 0)] {
        let mut layout = Layout::default();
        for (i, &c) in projection.iter().enumerate() {
            layout.insert(ColumnId(c as u32), i);
        }
        let f = PhysicalExpr::compile(&filter, &layout).unwrap();
        let read = Arc::new(t.schema.project(&projection).unwrap());
        let schema = Arc::new(t.schema.project(&projection[..outputs]).unwrap());
        let scan = Arc::new(ScanExec::new(
            t.clone(),
            projection.clone(),
            vec![f],
            vec![],
            read,
            schema.clone(),
            2,
        ));
        let ctx = Arc::new(ExecContext::new(2, usize::MAX));
        let plan: Arc<dyn ExecutionPlan> = scan.clone();
        let batches = crate::collect(&plan, &ctx).unwrap();
        assert!(batches.iter().all(|b| b.schema() == schema));
        assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 1000);
        if outputs == 1 {
            let mut k: Vec<i64> = batches
                .iter()
                .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
                .collect();
            k.sort();
            assert_eq!(k, (3000..4000).collect::<Vec<i64>>());
        }
        assert!(
            plan.describe().contains("filter_columns=[s]"),
            "{}",
            plan.describe()
        );
    }
}

#[test]
fn zone_maps_skip_row_groups_and_keep_results() {
    use BinaryOp::*;
    let int = ScalarValue::Int64;
    let s = |x: &str| ScalarValue::Utf8(x.to_string());
    let between = Expr::Binary {
        op: And,
        left: Box::new(cmp(GtEq, 0, int(2500))),
        right: Box::new(cmp(LtEq, 0, int(3100))),
    };
    let in_list = Expr::InList {
        negated: false,
        expr: col(1, DataType::Utf8),
        list: vec![
            Expr::Literal(s("g2"), DataType::Utf8),
            Expr::Literal(s("zz"), DataType::Utf8),
        ],
    };
    // (filter, row groups that must be skipped)
    let cases = [
        (cmp(Lt, 0, int(1000)), 7),
        (cmp(LtEq, 0, int(1000)), 6),
        (cmp(Gt, 0, int(6999)), 7),
        (cmp(GtEq, 0, int(6999)), 6),
        (cmp(Eq, 0, int(4321)), 7),
        (cmp(NotEq, 0, int(4321)), 1),
        (between, 6),
        (cmp(Eq, 1, s("g3")), 7),
        // PAD SPACE: 'g3  ' equals 'g3' and 'g3 ' under utf8mb4_bin.
        (cmp(Eq, 1, s("g3  ")), 7),
        (cmp(Lt, 1, s("g3")), 5),
        (cmp(Gt, 1, s("g6 ")), 7),
        (in_list, 7),
    ];
    for (filter, expect_skipped) in cases {
        let (with, skipped) = run(table(true), &filter);
        let (without, none) = run(table(false), &filter);
        assert_eq!(with, without, "{filter}");
        assert_eq!(none, Some((0, 8)), "{filter}");
        assert_eq!(skipped, Some((expect_skipped, 8)), "{filter}");
        assert!(!with.is_empty(), "{filter}");
    }
}

#[test]
fn truncated_string_maxima_only_rule_out_what_the_prefix_proves() {
    let z = ColumnZone {
        rows: 10,
        null_count: 0,
        min: Some(ScalarValue::Utf8("abc".into())),
        max: Some(ScalarValue::Utf8("abd".into())),
        max_is_prefix: true,
        collated: None,
        shape: None,
    };
    let c = Collation::utf8mb4_bin();
    let s = |x: &str| ScalarValue::Utf8(x.to_string());
    // Values may be "abdzzz...": only a constant above the prefix itself
    // rules out `>` and `=`.
    assert!(!compare_ruled_out(&z, BinaryOp::Gt, &s("abdzzzz"), c));
    assert!(!compare_ruled_out(&z, BinaryOp::Eq, &s("abd"), c));
    assert!(compare_ruled_out(&z, BinaryOp::Gt, &s("abe"), c));
    assert!(compare_ruled_out(&z, BinaryOp::Eq, &s("abe"), c));
    assert!(!compare_ruled_out(&z, BinaryOp::NotEq, &s("abd"), c));
    // Not under a collation whose order is not byte order.
    let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
    assert!(!compare_ruled_out(&z, BinaryOp::Gt, &s("abe"), ci));
    assert!(!compare_ruled_out(&z, BinaryOp::Lt, &s("ABC"), ci));
}

/// Bounds under a collation (normalized keys, cut to `cut` bytes as
/// storage cuts them) never rule out a row group holding a row that
/// passes: every comparison, over groups and constants of characters
/// that case, accents, trailing spaces and tabs make equal or close.
#[test]
fn collated_bounds_rule_out_only_groups_without_a_match() {
    const CHARS: [&str; 9] = ["a", "A", "b", "é", "E", " ", "\t", "ß", "s"];
    let strings: Vec<String> = (0..CHARS.len().pow(3))
        .flat_map(|n| {
            let s3: String = [n % 9, n / 9 % 9, n / 81]
                .iter()
                .map(|&i| CHARS[i])
                .collect();
            [s3[..CHARS[n % 9].len()].to_string(), s3]
        })
        .collect();
    let ops = [
        BinaryOp::Eq,
        BinaryOp::NotEq,
        BinaryOp::Lt,
        BinaryOp::LtEq,
        BinaryOp::Gt,
        BinaryOp::GtEq,
    ];
    let holds = |op: BinaryOp, o: Cmp| match op {
        BinaryOp::Eq => o.is_eq(),
        BinaryOp::NotEq => o.is_ne(),
        BinaryOp::Lt => o.is_lt(),
        BinaryOp::LtEq => o.is_le(),
        BinaryOp::Gt => o.is_gt(),
        _ => o.is_ge(),
    };
    let mut ruled_out = 0;
    for name in [
        "utf8mb4_general_ci",
        "utf8mb4_unicode_ci",
        "latin1_swedish_ci",
    ] {
        let coll = Collation::from_name(name).unwrap();
        for (g, group) in strings.chunks(37).enumerate() {
            let keys: Vec<Vec<u8>> = group
                .iter()
                .map(|v| {
                    let mut k = Vec::new();
                    coll.normalized_key(v.as_bytes(), &mut k);
                    k
                })
                .collect();
            let cut = [2, 3, 5, 48][g % 4];
            let (min, max) = (keys.iter().min().unwrap(), keys.iter().max().unwrap());
            let z = ColumnZone {
                rows: group.len(),
                null_count: 0,
                min: None,
                max: None,
                max_is_prefix: false,
                collated: Some(quiver_plan::CollatedBounds {
                    collation: coll,
                    min: min[..min.len().min(cut)].to_vec(),
                    max: max[..max.len().min(cut)].to_vec(),
                    max_is_prefix: max.len() > cut,
                }),
                shape: None,
            };
            for c in strings.iter().step_by(7) {
                let cv = ScalarValue::Utf8(c.clone());
                for op in ops {
                    if compare_ruled_out(&z, op, &cv, coll) {
                        ruled_out += 1;
                        for v in group {
                            let o = coll.compare(v.as_bytes(), c.as_bytes());
                            assert!(
                                !holds(op, o),
                                "{name}: {v:?} {op:?} {c:?} in a ruled-out group"
                            );
                        }
                    }
                }
                // Another collation's bounds decide nothing.
                let other = Collation::from_name("utf8mb4_general_nopad_ci").unwrap();
                assert!(!compare_ruled_out(&z, BinaryOp::Eq, &cv, other));
            }
        }
    }
    assert!(
        ruled_out > 1000,
        "the bounds should rule out many groups: {ruled_out}"
    );
}

/// Conjuncts in any learned order keep exactly the rows of their AND;
/// after a few batches the cheap, selective one runs first.
#[test]
fn adaptive_filters_keep_the_conjunction_and_learn_the_order() {
    use arrow_array::BooleanArray;
    use BinaryOp::*;
    let int = ScalarValue::Int64;
    let s = |x: &str| ScalarValue::Utf8(x.to_string());
    let t = table(false);
    let mut layout = Layout::default();
    layout.insert(ColumnId(0), 0);
    layout.insert(ColumnId(1), 1);
    // Given worst first: a string IN-list keeping most rows, then an
    // integer range keeping few.
    let keep_most = Expr::InList {
        negated: true,
        expr: col(1, DataType::Utf8),
        list: vec![
            Expr::Literal(s("g0"), DataType::Utf8),
            Expr::Literal(s("zz"), DataType::Utf8),
        ],
    };
    let keep_few = Expr::Binary {
        op: And,
        left: Box::new(cmp(GtEq, 0, int(2990))),
        right: Box::new(cmp(Lt, 0, int(3020))),
    };
    let conjuncts = [keep_most, keep_few, cmp(NotEq, 0, int(3000))];
    let compiled: Vec<PhysicalExpr> = conjuncts
        .iter()
        .map(|e| PhysicalExpr::compile(e, &layout).unwrap())
        .collect();
    let mut filters = AdaptiveFilters::new(compiled.clone());
    let mut kept = 0;
    for round in 0..3 {
        for b in t.batches.iter() {
            let out = filters.apply(b.clone(), Vec::new(), &b.schema()).unwrap();
            let mut expect = BooleanArray::from(vec![true; b.num_rows()]);
            for f in &compiled {
                let m = f.evaluate_mask(b).unwrap();
                expect = BooleanArray::new(expect.values() & m.values(), None);
            }
            let expect = arrow_select::filter::filter_record_batch(b, &expect).unwrap();
            assert_eq!(out, expect, "round {round}");
            kept += out.num_rows();
        }
    }
    assert_eq!(kept, 3 * 29);
    assert_eq!(
        filters.order[0], 1,
        "the range removes the most per unit of time"
    );
}
